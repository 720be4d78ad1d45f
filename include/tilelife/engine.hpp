// The narrow engine interface (Golly-like): a board of cells, step(n), population, generation, and an
// engine's description of itself. Nothing here knows about rendering, files or command lines.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tilelife/geometry.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {

class Quadtree;  // tilelife/quadtree.hpp

struct BoardSpec {
    // For torus and plane: the board. For unbounded: an initial size hint (the board grows).
    std::int64_t width = 0;
    std::int64_t height = 0;
    Topology topology = Topology::torus;
    Rule rule = Rule::life();
};

// An engine parameter beyond the common options (a kernel's rows per work-item, a reduction path,
// activity tracking): declared by the engine when it registers, validated by create_engine, so a
// bad value is refused the same way for every engine and an unknown name is never ignored.
struct ParameterSpec {
    std::string name;                  // "rows"
    std::string description;           // one line
    std::vector<std::string> choices;  // the allowed words; empty: a whole number in [min, max]
    std::int64_t min = 0, max = 0;
    std::string default_value;         // as shown to users ("auto", "16", "from the device")
};

// How an engine is set up. Every field has a default meaning "the engine chooses".
struct EngineOptions {
    std::string device;               // backend's device: "P:D" or a flat index; empty = the backend's default
    int wg_width = 0, wg_height = 0;  // work-group shape; 0 = the engine's choice for the device
    int threads = 0;                  // CPU threads; 0 = the engine's choice for the work
    // Generations the caller means to run (0: not known): a hint for the engine's choices (CPU
    // threads by the work); never a limit.
    std::int64_t generations = 0;
    int steps_per_launch = 0;         // generations per kernel launch where supported; 0 = default
    // Memory budget in bytes for what the engine allocates on the host (boards, node tables); 0 = none.
    // Bounded boards over it are refused before anything is allocated; unbounded boards stop growing
    // at it (RuntimeError); engines with caches (hashlife) keep them inside it.
    std::int64_t max_bytes = 0;
    // Where a cache that grows by doubling (cpu:hashlife's store of squares) stops doubling and
    // collects instead, in bytes (capped by max_bytes); 0 = the engine's default (hashlife: 240
    // MiB, within Golly's default memory). The CLI sets it to a --max-memory the user gives, as
    // Golly's -M sets where its HashLife collects: a pattern whose working set is larger runs
    // faster with room for it.
    std::int64_t store_bytes = 0;
    // Engine parameters by name (ParameterSpec), as text; validated against the engine's declaration.
    std::map<std::string, std::string, std::less<>> params;
    // Polled during long steps: once it reads true, step() may return before doing all its
    // generations (generation() says how far it got). Null: never interrupted.
    const std::atomic<bool>* interrupt = nullptr;

    // Typed reads of a parameter (validated already by create_engine): the value, or `fallback`.
    std::string param(std::string_view name, std::string_view fallback) const;
    std::int64_t param_int(std::string_view name, std::int64_t fallback) const;
};

// Where one work-group's cells lie, for overlays and explanations: tiles of width x height cells
// repeat from `origin` (engine coordinates); each also reads halo_x / halo_y cells on every side.
struct TileGeometry {
    std::int64_t width = 0, height = 0;
    std::int64_t halo_x = 0, halo_y = 0;
    Cell origin;
    std::string text;  // "work-group 64x4, 4 cells x 16 rows per work-item"
};

// A value in an engine's description: flags, counts, rates, words, or nothing yet (nullptr: "not
// switched", null in JSON, where a sentinel such as -1 would read as a number).
using DescriptionValue = std::variant<bool, std::int64_t, double, std::string, std::nullptr_t>;

// What an engine is and what it chose. Every field is optional: a CPU engine leaves the device and
// work-group fields empty, an engine without tiles leaves `tiles` empty.
struct EngineDescription {
    std::string name;     // registered name ("opencl:halo-tile")
    std::string backend;  // "cpu", "opencl", "sycl", ...
    std::string device;   // "0:0 NVIDIA H100 80GB HBM3"; empty for the CPU
    int wg_width = 0, wg_height = 0;
    int cells_per_item = 0;
    int steps_per_launch = 0;
    int threads = 0;
    std::optional<TileGeometry> tiles;
    std::int64_t host_bytes = 0, device_bytes = 0;  // what the engine allocated for the board
    // Anything else worth reporting, in order: ("reduction", "tree"), ("simd", "avx2"), ...
    std::vector<std::pair<std::string, DescriptionValue>> properties;
    // Option sets that `bench --autotune` tries for this engine on this device (empty: nothing to
    // tune); each is a complete EngineOptions the engine accepts.
    std::vector<EngineOptions> autotune;
};

// Device time of some generations, from the device's own clock: the sum of the kernels' durations
// and the span from the first kernel's start to the last one's end (which adds launch gaps).
struct StepTiming {
    double kernel_seconds = 0;
    double span_seconds = 0;
};

class Engine {
public:
    virtual ~Engine() = default;

    virtual std::string name() const = 0;  // "backend:kernel"
    virtual Topology topology() const = 0;
    virtual Rule rule() const = 0;
    // The cells the engine stores, in its coordinates. Bounded boards: (0, 0, W, H).
    // Unbounded: a box that contains every live cell.
    virtual Box extent() const = 0;

    // Bulk access to a rectangle inside extent(): one byte per cell (0 dead, 1 alive), row-major,
    // `box.width` bytes per row. Unbounded engines grow to take cells written outside their extent.
    virtual void write_region(const Box& box, const std::uint8_t* cells) = 0;
    virtual void read_region(const Box& box, std::uint8_t* cells) const = 0;

    virtual void step(std::int64_t generations) = 0;
    virtual std::int64_t population() const = 0;
    virtual std::int64_t generation() const = 0;

    // Sparse access. The defaults go through the byte regions; an engine with a denser representation
    // overrides them, so that moving or listing a sparse pattern on a huge board (the unbounded
    // board's re-layouts, a gun's glider stream) costs its words, not its bytes.
    virtual void set_cells(const std::vector<Cell>& cells);           // makes these cells alive
    virtual std::vector<Cell> live_cells_in(const Box& box) const;    // inside box ∩ extent(), sorted by (y, x)

    // Whole rows of a bounded board as bits: rows [y, y + rows), ceil(W / 64) words per row, cell x
    // at bit x % 64 of word x / 64, bits past the width 0 (and 0 on writes). For moving bands of a
    // board between processes (src/mpi): bit-packed engines answer from their words, with no byte
    // conversion and 8x less to move; the defaults go through the byte regions.
    virtual void read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const;
    virtual void write_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words);
    // step(generations), then rows of the result read as read_rows_packed reads them, each range into
    // its `words` or into memory of the engine's own (page-locked staging where it has a device);
    // `ready` gets where each range's rows are, in order, and is called as soon as they are: an engine
    // that can (opencl:bitpacked) runs the parts of its last launch that these rows need first and
    // reads them while the rest computes, so that what `ready` does (send them to other processes,
    // src/mpi) overlaps the step. The engine's memory stays as it is until the next call of this
    // function. The default: step(), read_rows_packed() per range, ready().
    struct RowsRead {
        std::int64_t y = 0, rows = 0;
        std::uint64_t* words = nullptr;  // ceil(W / 64) words per row
    };
    virtual void step_reading_rows(std::int64_t generations, const std::vector<RowsRead>& reads,
                                   const std::function<void(const std::vector<const std::uint64_t*>&)>& ready);
    // Memory of the engine's own for rows to be written (at least `words` words), where it has such
    // (page-locked staging on a device engine: opencl:bitpacked); null (the default) where not. Rows
    // that write_rows_packed then gets from it are not copied first (src/mpi receives the ghost rows
    // straight into it). It is the caller's until the next call of this function, except the parts
    // already given to write_rows_packed, which the engine may still be reading.
    virtual std::uint64_t* write_staging(std::size_t words);

    // What the engine is and chose (device, work-group, tiles, memory, ...). The default names it.
    virtual EngineDescription describe() const;
    // Runs `generations` steps timed by the device's clock; engines without one run them and return
    // nullopt (the caller then times the wall clock).
    virtual std::optional<StepTiming> step_timed(std::int64_t generations);
    // The live cells as a quadtree, for engines that store one (cpu:hashlife): huge patterns are
    // then written and counted without being listed. Null (the default): use live_cells().
    virtual std::shared_ptr<const Quadtree> quadtree() const { return nullptr; }
    // Replaces the cells by a macrocell tree (its coordinates are the engine's), for engines that
    // store trees: a huge pattern is never listed. False (the default): the engine takes no trees,
    // and the caller lists the tree's cells instead.
    virtual bool load_quadtree(const Quadtree& tree);
    // The live cells' bounding box; an empty box when there are none. The default reads bounded
    // boards as rows of bits a band at a time and lists the cells of others; engines that know it
    // (a tree's root, a growing board's inner engine) answer at once.
    virtual Box bounding_box() const;
    // Whether step(n) should get a whole run at once rather than chunks: tree engines pay for every
    // distinct step size (and poll the interrupt flag inside a step). False for the rest.
    virtual bool wants_whole_runs() const { return false; }

    // Conveniences.
    void set_cell(std::int64_t x, std::int64_t y, bool alive);
    bool get_cell(std::int64_t x, std::int64_t y) const;
    std::vector<Cell> live_cells() const { return live_cells_in(extent()); }  // sorted by (y, x)
};

using EngineFactory = std::function<std::unique_ptr<Engine>(const BoardSpec&, const EngineOptions&)>;

struct EngineInfo {
    std::string name;                  // "opencl:halo-tile"
    std::string description;           // one line for --help and `tilelife engines`
    std::vector<std::string> aliases;  // older names still accepted ("opencl:local")
    std::vector<ParameterSpec> parameters;
    // The topologies this engine is its backend's default for ("the fastest").
    std::vector<Topology> default_for;
    // Does the factory make unbounded boards itself (hashlife)? Otherwise the core's growing board
    // runs the engine as a plane. Engines that cannot make bounded boards set bounded = false.
    bool native_unbounded = false;
    bool bounded = true;
    // Host bytes a board of this spec costs (the memory budget counts them before creating one);
    // empty: 2 bytes per cell. For unbounded boards the spec is the growing board's current plane.
    std::function<std::int64_t(const BoardSpec&, const EngineOptions&)> host_bytes;

    std::string backend() const { return name.substr(0, name.find(':')); }
};

// Registers an engine family member; registering a name again replaces it.
void register_engine(const EngineInfo& info, EngineFactory factory);
std::vector<EngineInfo> registered_engines();
// The registration of a name or alias; nullopt when unknown.
std::optional<EngineInfo> find_engine(std::string_view name_or_alias);
bool engine_exists(std::string_view name_or_alias);
// The backend's default engine for a topology (its fastest); InputError naming what exists otherwise.
std::string default_engine(std::string_view backend, Topology topology);
// Host bytes of an engine for a spec (its host_bytes, else 2 per cell); INT64_MAX when it overflows.
std::int64_t engine_host_bytes(std::string_view name, const BoardSpec& spec, const EngineOptions& options = {});

// Creates an engine by name or alias. Throws InputError for an unknown name, an invalid spec (size < 1,
// B0 on unbounded, a topology the engine cannot run), a parameter the engine does not declare or a
// value it does not allow, or a bounded board over options.max_bytes.
std::unique_ptr<Engine> create_engine(std::string_view name, const BoardSpec& spec,
                                      const EngineOptions& options = {});

// The growing board behind Topology::unbounded, exposed for tests: wraps engines of `factory`
// (created with Topology::plane) so that live cells never come within reach of the board's edge.
// `host_bytes` prices each plane against options.max_bytes (empty: 2 bytes per cell).
std::unique_ptr<Engine> make_unbounded(std::string name, EngineFactory factory, const BoardSpec& spec,
                                       const EngineOptions& options,
                                       std::function<std::int64_t(const BoardSpec&, const EngineOptions&)> host_bytes = {});

// Device listing, per backend (`tilelife devices`): a backend registers how to enumerate its devices.
struct DeviceInfo {
    std::string backend;  // "opencl"
    std::string id;       // what EngineOptions::device takes ("0:1")
    std::string name;
    std::string type;     // "GPU", "CPU", ...
    std::vector<std::pair<std::string, DescriptionValue>> properties;  // local memory, compute units, ...
};
struct BackendInfo {
    std::string name;         // "opencl"
    std::string description;  // one line
    // Every device; throws RuntimeError (with an installation hint) when the backend finds none at all.
    std::function<std::vector<DeviceInfo>()> devices;
};
void register_backend(const BackendInfo& info);
std::vector<BackendInfo> registered_backends();

}  // namespace tilelife
