// The board layer: the one front door from a pattern source to an engine holding it, and from a
// board back to a file. `run`, `view`, `convert`, `info`, the Python module and the MPI session all
// go through it, so reading policy (limits from the memory budget, RLE streamed into rows of bits,
// macrocell trees handed to engines that take trees), placement (as Golly places patterns), engine
// choice and saving are decided once. Below it: the readers and writers (io/) and the engines.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


#include "tilelife/engine.hpp"
#include "tilelife/output_file.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {

struct BoardOverrides {
    std::optional<std::string> rule;            // --rule (may carry a :T/:P suffix)
    std::optional<Topology> topology;           // --topology
    std::optional<std::int64_t> width, height;  // --size
};

struct BoardPlan {
    BoardSpec spec;          // rule, topology, size (unbounded: an initial size hint)
    std::vector<Cell> cells; // live cells in engine coordinates (board indices when bounded)
    // Engine coordinate -> Golly's coordinate: Golly's bounded grid has its top-left cell at
    // (-W/2, -H/2), so bounded boards write positions shifted by this; unbounded ones by 0.
    Cell golly_offset;
    // What placing added to the pattern's coordinates to make `cells` (bounded boards; 0 when unbounded).
    Cell offset;
};

// Resolves the rule (the override, else the file's, else B3/S23), topology (the override, else the
// rule's suffix, else unbounded) and size (the override, else the suffix's, else the pattern's frame),
// and places the cells as Golly does. Throws InputError naming `source` for a bad rule in the file or
// a pattern that does not fit the board, and InputError for a size given for an unbounded board.
// (A rule with B0 on an unbounded board is refused by create_engine.)
BoardPlan plan_board(const Pattern& pattern, const BoardOverrides& overrides, const std::string& source);
// The same, taking the pattern's cells (moved in, placed in place) instead of copying
// pattern.cells: a large soup's cell list is not duplicated. pattern.cells is not read.
BoardPlan plan_board(const Pattern& pattern, std::vector<Cell> cells, const BoardOverrides& overrides,
                     const std::string& source);

// The rule text to write into an output file: "B3/S23", plus ":Tw,h" / ":Pw,h" for bounded boards.
std::string rule_for_output(const BoardSpec& spec);

// The engine's live cells in Golly's coordinates (engine coordinates + golly_offset), sorted by (y, x).
std::vector<Cell> golly_cells(const Engine& engine, Cell golly_offset);
// The board saved as Golly would save it, so that Golly opens it where it was computed: the live
// cells in Golly's coordinates, the board's rule with its :T/:P suffix (meta.rule is replaced), and
// meta's generation, name, authors and comments. Run outputs, checkpoints and the viewer's saves.
std::string format_board(OutputFormat format, const Engine& engine, const BoardPlan& plan, PatternMeta meta);
// The same text handed to `sink` in pieces (a bounded board's text is never held whole).
void write_board(OutputFormat format, const Engine& engine, const BoardPlan& plan, PatternMeta meta,
                 const TextSink& sink);


// ---------------------------------------------------------------------------------------------
// Loading: a pattern source, overrides, an engine choice and a budget -> an engine holding the pattern.

// Where a pattern comes from: a path, "-" (standard input), "random:WxH[:density[:seed]]", text
// already in memory, or a pattern already read (then `name` is what messages call it).
struct PatternSource {
    std::string name;
    std::optional<std::string> text;
    std::optional<Pattern> pattern;  // a pattern already read (Python's Pattern objects)
};

// The memory budget when none is given: half of what this process may use, the smallest of
// physical memory, its address-space and data limits (RLIMIT_AS, RLIMIT_DATA) and its cgroup's
// memory.max, less the stacks of `threads` threads (0: one a core) under an address-space limit:
// memory_limits().budget(threads) (tilelife/memory.hpp).
std::int64_t default_memory_budget(int threads = 1);
// A budget the caller names (--max-memory, Python's max_bytes): options.max_bytes, and also where a
// cache that doubles may grow before it only collects (options.store_bytes), as Golly's -M.
void name_memory_budget(EngineOptions& options, std::int64_t bytes);
// Reader limits that keep a pattern file's cells (16 bytes each, plus sorting) and text well inside
// a memory budget, so a hostile file is refused before it can exhaust memory.
ReadLimits read_limits_for(std::int64_t budget);

// A pattern as read, in the file's own coordinates (convert): within read_limits_for(budget) (0:
// the default budget). Without `list_tree_cells`, a macrocell tree's cells are not listed and an
// RLE file with a header is built into a tree as it is read (QuadtreeBuilder): Pattern::tree, no
// cells.
Pattern read_source(const PatternSource& source, std::int64_t budget = 0, bool list_tree_cells = true);

// The registered engine a choice means for a board of `topology`: "backend:kernel" or an alias; a
// backend name ("opencl") for that backend's default on the topology; empty or "auto" for the
// CPU's default (cpu:auto on the unbounded plane). InputError naming what exists otherwise.
std::string resolve_engine(std::string_view choice, Topology topology);

// A bounded board read in bands (BoardRequest::load_rows): the source, and where open_board put it.
struct BandedSource {
    std::string name;  // a file or a random: spec
    BoardSpec spec;
    Cell offset;       // BoardPlan::offset
    ReadLimits limits;
};
// The live cells of some rows of a pattern and their bounding box (the file's coordinates; empty
// when none).
struct BandCount {
    std::int64_t population = 0;
    Box bounding_box;
};
// Rows [y, y + rows) of that board as bits (Engine::write_rows_packed's layout), from one pass over
// the source keeping only those rows: what each MPI rank reads of a board no process holds whole.
// A soup skips the draws of the rows above; a file is mapped, not copied; a macrocell file's band is
// cut from its tree (no list of cells). Returns the rows' count.
BandCount read_board_rows(const BandedSource& source, std::int64_t y, std::int64_t rows, std::uint64_t* words);

struct BoardRequest {
    PatternSource source;
    BoardOverrides overrides;
    std::string engine;       // as resolve_engine takes it
    EngineOptions options;    // options.max_bytes: the memory budget (0: default_memory_budget())
    // Makes the engine instead of create_engine (the MPI session's board split across ranks); its
    // refusals are then not about the pattern and do not name it.
    EngineFactory factory;
    // When set, a bounded board from an RLE file with a header, a macrocell file (planned and counted
    // from its tree) or a random: soup is not read into
    // this process: open_board's pass only plans and counts it, and create_engine hands the engine
    // to load_rows, which fills it (the MPI session: each rank reads its band, read_board_rows) and
    // returns the whole board's count. A soup that fits its board is not even counted here: its
    // population and bounding box come from load_rows. Other sources are read as usual.
    std::function<BandCount(Engine&, const BandedSource&)> load_rows;
};

// A pattern read and planned onto its board, before any engine exists: what `info` shows and what
// `run` checks (checkpoints, regions, outputs) before it allocates the board. An RLE file with a
// header going onto a bounded board is read straight into the board's rows of bits (no list of
// cells); a macrocell file stays a tree until an engine takes it (load_quadtree) or needs its cells.
class OpenedBoard {
public:
    OpenedBoard();
    ~OpenedBoard();
    OpenedBoard(OpenedBoard&&) noexcept;
    OpenedBoard& operator=(OpenedBoard&&) noexcept;

    const std::string& source() const { return request_.source.name; }
    const BoardRequest& request() const { return request_; }
    // The pattern as read: metadata, format, generation, its tree; its cells have moved to the board.
    const Pattern& pattern() const { return pattern_; }
    const BoardPlan& plan() const { return plan_; }
    const BoardSpec& spec() const { return plan_.spec; }
    // Of the pattern as read (saturated), and its bounding box in the file's coordinates; a soup
    // read in bands is counted by load_rows: known once create_engine has run.
    std::int64_t population() const { return population_; }
    Box bounding_box() const { return bounding_box_; }
    std::int64_t budget() const { return request_.options.max_bytes; }
    const ReadLimits& limits() const { return limits_; }
    // The name, authors and comments to carry into outputs, with the rule of the board.
    PatternMeta meta() const;
    // The engine resolve_engine chooses for the request's choice and this board's topology.
    const std::string& engine_name() const { return engine_name_; }
    // The rows are left to BoardRequest::load_rows.
    bool banded() const { return banded_; }

    // Creates the engine (the request's options, or these) and puts the pattern on it: rows of bits,
    // a tree (load_quadtree on the unbounded plane; listed within the reader's cell limit for other
    // engines), or cells. The board's cells are released. Refusals name the source. Call once.
    std::unique_ptr<Engine> create_engine(std::optional<EngineOptions> options = std::nullopt);

    struct Rows;  // a bounded board's rows as bits (load.cpp)

private:
    friend OpenedBoard open_board(const BoardRequest& request);
    BoardRequest request_;
    ReadLimits limits_;
    Pattern pattern_;
    BoardPlan plan_;
    std::int64_t population_ = 0;
    Box bounding_box_;
    std::string engine_name_;
    std::unique_ptr<Rows> rows_;
    bool banded_ = false;
    bool counted_by_bands_ = false;  // population_ and bounding_box_ come from load_rows
};

// Reads and plans; refuses (InputError naming the source) bad files, rules, sizes, patterns that do
// not fit the board and engine choices that do not exist, before anything large is allocated.
OpenedBoard open_board(const BoardRequest& request);

// A board with its pattern on an engine: what open_board + create_engine give.
struct LoadedBoard {
    std::unique_ptr<Engine> engine;
    BoardPlan plan;             // spec and Golly's offset (no cells)
    PatternMeta meta;           // name, authors, comments, rule (the board's), generation (the file's)
    PatternFormat format = PatternFormat::rle;
    std::string source;
    std::int64_t population = 0;  // of the pattern as read
    Box bounding_box;             // of the pattern as read, in the file's coordinates
};
LoadedBoard load_board(const BoardRequest& request);

// ---------------------------------------------------------------------------------------------
// Saving: a board (or a pattern as read) -> a file in any pattern format.

// Writes the board to `target` atomically (a temporary file renamed when complete; .gz through
// zlib): RLE, plaintext or macrocell, as write_board writes them. PNG is an image: the command
// line's image module writes it (InputError here).
void save_board(const OutputTarget& target, const Engine& engine, const BoardPlan& plan, PatternMeta meta);
// The same for a pattern as read (convert): from its tree for .mc and .rle when it has one (RLE no
// larger than `limits.max_file_bytes`, what tilelife reads back), else from its cells.
void write_pattern(OutputFormat format, const Pattern& pattern, const PatternMeta& meta, const ReadLimits& limits,
                   const TextSink& sink);

}  // namespace tilelife
