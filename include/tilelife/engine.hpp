// The narrow engine interface (Golly-like): a board of cells, step(n), population, generation.
// Nothing here knows about rendering, files or devices.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tilelife/geometry.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {

struct BoardSpec {
    // For torus and plane: the board. For unbounded: an initial size hint (the board grows).
    std::int64_t width = 0;
    std::int64_t height = 0;
    Topology topology = Topology::torus;
    Rule rule = Rule::life();
};

// Knobs some engines understand and others ignore.
struct EngineOptions {
    std::string device;               // OpenCL: "P:D" or an index; empty = first GPU, else first device
    int wg_width = 0, wg_height = 0;  // OpenCL work-group shape; 0 = from the device
    int threads = 0;                  // CPU threads; 0 = all cores
    int steps_per_launch = 0;         // generations per kernel launch where supported; 0 = default
    std::int64_t max_cells = 0;       // unbounded growth limit in cells; 0 = none
};

class Engine {
public:
    virtual ~Engine() = default;

    virtual std::string name() const = 0;  // "backend:kernel"
    virtual Topology topology() const = 0;
    virtual Rule rule() const = 0;
    // The cells the engine stores, in its coordinates. Bounded boards: (0, 0, W, H).
    // Unbounded: the current board, which contains every live cell.
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

    // Conveniences.
    void set_cell(std::int64_t x, std::int64_t y, bool alive);
    bool get_cell(std::int64_t x, std::int64_t y) const;
    std::vector<Cell> live_cells() const { return live_cells_in(extent()); }  // sorted by (y, x)
};

using EngineFactory = std::function<std::unique_ptr<Engine>(const BoardSpec&, const EngineOptions&)>;

struct EngineInfo {
    std::string name;         // "cpu:reference"
    std::string description;  // one line for --help and `tilelife engines`
};

// Registers a bounded (torus/plane) engine; unbounded boards of that engine come for free by
// wrapping it in the core's growing board.
void register_engine(const EngineInfo& info, EngineFactory factory);
std::vector<EngineInfo> registered_engines();
bool engine_exists(std::string_view name);
// Throws InputError for an unknown name or an invalid spec (size < 1, B0 on unbounded).
std::unique_ptr<Engine> create_engine(std::string_view name, const BoardSpec& spec,
                                      const EngineOptions& options = {});

// The growing board behind Topology::unbounded, exposed for tests: wraps engines of `factory`
// (created with Topology::plane) so that live cells never come within reach of the board's edge.
std::unique_ptr<Engine> make_unbounded(std::string name, EngineFactory factory, const BoardSpec& spec,
                                       const EngineOptions& options);

}  // namespace tilelife
