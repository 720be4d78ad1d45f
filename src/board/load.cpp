// Loading a board (tilelife/board.hpp): read the source within limits from the budget, plan the
// board, choose the engine, create it and put the pattern on it. An RLE file going onto a bounded
// board is read straight into the board's rows as bits (BoardSink): one bit per board cell instead
// of 16 bytes per live cell, and no sorting, moving or listing of cells; the engine takes the rows
// with write_rows_packed. Anything else (other formats, unbounded boards, boards too large for bits)
// is read into a cell list; both ways give the same board, errors and report.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#include "core/huge_pages.hpp"
#include "io/bands.hpp"
#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {

struct OpenedBoard::Rows {
    ZeroedBytes words;  // the whole board's rows
    std::int64_t first_row = 0, rows = 0, words_per_row = 0;
};

namespace {

// Builds the tree of an RLE file's cells as they are read (convert): no list of cells (16 bytes
// each), only the tree and a few rows of its squares (Caterloopillar_5c21.rle: 918,000 cells,
// 14.7 MB as a list).
class TreeSink final : public CellSink {
public:
    bool start(const Pattern&) override { return started_ = true; }
    void add(const CellRun* runs, std::size_t count) override {
        for (std::size_t i = 0; i < count; ++i) builder_.add(runs[i].x, runs[i].y, runs[i].length);
    }
    bool started() const { return started_; }
    Quadtree finish() { return builder_.finish(); }

private:
    QuadtreeBuilder builder_;
    bool started_ = false;
};

// What a streamed read produced: the plan, the counts, and the rows.
struct Streamed {
    BoardPlan plan;
    std::int64_t population = 0;
    Box bounding_box;
    std::unique_ptr<OpenedBoard::Rows> rows;
};

// Thrown by a counting BoardSink when the source cannot be read in bands (not a bounded board):
// open_board then reads it the usual way.
struct NotBanded {};

// Receives an RLE file's (or a soup's) runs and sets their bits on the planned bounded board. Three
// uses: the whole board (one process); counting only, keeping no rows (the pass that plans a board
// read in bands: population, bounding box, cells outside the board); one band of rows of a board
// already planned (read_board_rows).
class BoardSink final : public CellSink {
public:
    enum Mode { whole, count, band };
    BoardSink(const std::string& source, const BoardOverrides& overrides, std::int64_t budget, Mode mode = whole)
        : source_(source), overrides_(overrides), budget_(budget), mode_(mode) {}
    // A band: rows [first, first + rows) of `plan`'s board into `words` (zeroed here).
    BoardSink(const std::string& source, const BoardPlan& plan, std::int64_t first, std::int64_t rows,
              std::uint64_t* words)
        : source_(source), overrides_(no_overrides_), budget_(0), mode_(band), plan_(plan), keep0_(first),
          keep1_(first + rows), bits_(words) {}

    bool start(const Pattern& header) override {
        if (mode_ != band) {
            try {
                plan_ = plan_board(header, {}, overrides_, source_);
            } catch (const InputError&) {
                if (mode_ == count) throw NotBanded{};
                return false;  // the cell-list path reports it, after the file's own errors, as before
            }
        }
        if (plan_.spec.topology == Topology::unbounded) {
            if (mode_ == count) throw NotBanded{};
            return false;
        }
        w_ = plan_.spec.width;
        h_ = plan_.spec.height;
        nw_ = (w_ + 63) / 64;
        if (mode_ == whole) {
            std::int64_t bytes = 0;
            if (__builtin_mul_overflow(nw_ * 8, h_, &bytes) || bytes > budget_ / 4) return false;
            // Zeroed pages come lazily (a small pattern on a large board touches a few), large boards
            // in huge pages.
            words_ = ZeroedBytes(static_cast<std::size_t>(bytes));
            if (!words_) return false;
            bits_ = static_cast<std::uint64_t*>(words_.data());
            keep0_ = 0;
            keep1_ = h_;
        } else if (mode_ == band) {
            std::fill(bits_, bits_ + (keep1_ - keep0_) * nw_, std::uint64_t{0});
        }
        header_ = header;
        started_ = true;
        return true;
    }

    void add(const CellRun* runs, std::size_t count) override {
        if (count == 0) return;
        // Locals, not members, in the loop: the bit stores could alias members (uint64_t/int64_t).
        const std::int64_t dx = plan_.offset.x, dy = plan_.offset.y, w = w_, h = h_, nw = nw_;
        const std::int64_t keep0 = keep0_, keep1 = keep1_;
        std::uint64_t* const words = bits_;
        std::int64_t population = population_, x0 = x0_, x1 = x1_;
        bool outside = outside_;
        for (std::size_t k = 0; k < count; ++k) {
            const CellRun& r = runs[k];
            population += r.length;
            x0 = std::min(x0, r.x);
            x1 = std::max(x1, r.x + r.length - 1);
            const std::int64_t x = r.x + dx, y = r.y + dy;
            if (x < 0 || y < 0 || y >= h || r.length > w - x) [[unlikely]] {
                outside = true;  // reported at the end, with the whole pattern's size
                continue;
            }
            if (y < keep0 || y >= keep1) continue;  // another band's (none kept when counting)
            set_bits(words + (y - keep0) * nw, static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(r.length));
        }
        population_ = population, x0_ = x0, x1_ = x1, outside_ = outside;
        if (y0_ == kNone) y0_ = runs[0].y;  // runs come in (y, x) order
        y1_ = runs[count - 1].y;
    }

    // The header start() saw.
    const Pattern& header() const { return header_; }
    bool started() const { return started_; }

    Streamed finish() {
        Streamed b;
        b.population = population_;
        if (population_ > 0) b.bounding_box = Box{x0_, y0_, x1_ - x0_ + 1, y1_ - y0_ + 1};
        if (outside_)  // the message place_on_bounded_board gives
            throw InputError(located(source_, 0,
                                     "the pattern (" + std::to_string(b.bounding_box.width) + "x" +
                                         std::to_string(b.bounding_box.height) + ") does not fit the " +
                                         std::to_string(w_) + "x" + std::to_string(h_) + " " +
                                         std::string(to_string(plan_.spec.topology)) + " board"));
        b.plan = std::move(plan_);
        b.rows = std::make_unique<OpenedBoard::Rows>();
        b.rows->words_per_row = nw_;
        if (population_ > 0) {
            b.rows->first_row = y0_ + b.plan.offset.y;
            b.rows->rows = y1_ - y0_ + 1;
        }
        b.rows->words = std::move(words_);
        if (mode_ != whole) b.rows.reset();
        return b;
    }

private:
    static constexpr std::int64_t kNone = INT64_MIN;

    // Sets `length` >= 1 bits of a row from bit `from`.
    static void set_bits(std::uint64_t* row, std::uint64_t from, std::uint64_t length) {
        const std::uint64_t bit = from % 64;
        std::uint64_t* word = row + from / 64;
        if (length <= 64 - bit) {  // within one word: most runs of a soup
            *word |= (~std::uint64_t{0} >> (64 - length)) << bit;
            return;
        }
        *word++ |= ~std::uint64_t{0} << bit;
        for (length -= 64 - bit; length >= 64; length -= 64) *word++ = ~std::uint64_t{0};
        if (length) *word |= ~std::uint64_t{0} >> (64 - length);
    }

    static inline const BoardOverrides no_overrides_{};
    const std::string& source_;
    const BoardOverrides& overrides_;
    std::int64_t budget_;
    Mode mode_;
    Pattern header_;
    BoardPlan plan_;
    std::int64_t w_ = 0, h_ = 0, nw_ = 0;
    std::int64_t keep0_ = 0, keep1_ = 0;  // the rows kept, in board rows
    ZeroedBytes words_;                   // the whole board's rows (whole)
    std::uint64_t* bits_ = nullptr;       // row keep0_'s words
    bool started_ = false;
    std::int64_t population_ = 0;
    std::int64_t x0_ = INT64_MAX, x1_ = INT64_MIN, y0_ = kNone, y1_ = kNone;
    bool outside_ = false;
};

// What placing depends on: a line after the cells (a "#r" rule) must not have changed it.
bool same_placement(const Pattern& a, const Pattern& b) {
    return a.rule == b.rule && a.frame == b.frame && a.positioned == b.positioned;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// A macrocell tree's placement needs its frame (readers that do not list a tree leave it empty).
void frame_from_tree(Pattern& p) {
    if (p.tree && p.frame.empty()) {
        p.frame = p.tree->bounding_box();
        p.positioned = true;
    }
}

CellCount saturated(CellCount n) { return std::min<CellCount>(n, static_cast<CellCount>(INT64_MAX)); }

}  // namespace

std::int64_t default_memory_budget(int threads) { return memory_limits().budget(threads); }

void name_memory_budget(EngineOptions& options, std::int64_t bytes) { options.max_bytes = options.store_bytes = bytes; }

ReadLimits read_limits_for(std::int64_t budget) {
    ReadLimits limits;
    if (budget <= 0) return limits;
    limits.max_cells = std::clamp<std::int64_t>(budget / 64, 1 << 20, limits.max_cells);
    limits.max_file_bytes = std::clamp<std::int64_t>(budget / 8, 1 << 24, limits.max_file_bytes);
    return limits;
}

Pattern read_source(const PatternSource& source, std::int64_t budget, bool list_tree_cells) {
    ReadLimits limits = read_limits_for(budget > 0 ? budget : default_memory_budget());
    limits.list_tree_cells = list_tree_cells;
    if (source.pattern) return *source.pattern;
    if (list_tree_cells)
        return source.text ? parse_pattern(*source.text, source.name, limits) : read_pattern(source.name, limits);
    TreeSink sink;
    Pattern p = source.text ? parse_pattern(*source.text, source.name, limits, &sink)
                            : read_pattern(source.name, limits, &sink);
    if (sink.started()) p.tree = std::make_shared<const Quadtree>(sink.finish());
    return p;
}

std::string resolve_engine(std::string_view choice, Topology topology) {
    if (choice.empty() || choice == "auto") return default_engine("cpu", topology);
    std::vector<std::string> names, backends;
    for (const EngineInfo& e : registered_engines()) {
        names.push_back(e.name);
        if (std::find(backends.begin(), backends.end(), e.backend()) == backends.end()) backends.push_back(e.backend());
    }
    const std::string wanted(choice);
    const std::string backend = wanted.substr(0, wanted.find(':'));
    if (std::find(backends.begin(), backends.end(), backend) == backends.end())
        throw InputError("this build of tilelife has no '" + backend + "' backend (it has: " + joined(backends) + ")");
    if (wanted.find(':') == std::string::npos) return default_engine(backend, topology);
    if (const auto info = find_engine(wanted)) return info->name;  // an alias names its engine
    throw InputError("unknown backend/kernel '" + wanted + "' (available: " + joined(names) + ")");
}

OpenedBoard::OpenedBoard() = default;
OpenedBoard::~OpenedBoard() = default;
OpenedBoard::OpenedBoard(OpenedBoard&&) noexcept = default;
OpenedBoard& OpenedBoard::operator=(OpenedBoard&&) noexcept = default;

PatternMeta OpenedBoard::meta() const {
    PatternMeta m = meta_of(pattern_);
    m.rule = rule_for_output(plan_.spec);
    return m;
}

OpenedBoard open_board(const BoardRequest& request) {
    OpenedBoard b;
    b.request_ = request;
    if (b.request_.options.max_bytes <= 0)
        b.request_.options.max_bytes = default_memory_budget(b.request_.options.threads);
    const std::int64_t budget = b.request_.options.max_bytes;
    const std::string& source = b.request_.source.name;
    const BoardOverrides& overrides = b.request_.overrides;
    // An unknown backend or kernel is refused before the file is read.
    (void)resolve_engine(b.request_.engine, Topology::torus);
    // A macrocell file's tree is read as it is; its cells are listed only for engines that need them.
    b.limits_ = read_limits_for(budget);
    b.limits_.list_tree_cells = false;
    const auto read = [&](CellSink* sink) {
        return b.request_.source.text ? parse_pattern(*b.request_.source.text, source, b.limits_, sink)
                                      : read_pattern(source, b.limits_, sink);
    };
    bool planned = false;
    const bool random = !b.request_.source.text && source.rfind("random:", 0) == 0;
    const auto take = [&](BoardSink& sink) {
        Streamed st = sink.finish();
        b.plan_ = std::move(st.plan);
        b.population_ = st.population;
        b.bounding_box_ = st.bounding_box;
        b.rows_ = std::move(st.rows);
        planned = true;
    };
    // Read in bands (each MPI rank its own, later): this pass only plans and counts, keeping no rows.
    // Counted cells are not stored, so the cell limit does not apply to them.
    const bool bandable = b.request_.load_rows && !b.request_.source.pattern && !b.request_.source.text && source != "-";
    if (bandable && random) {
        // A soup whose frame lies inside the board has no cell outside it: nothing to check here,
        // and the ranks count their bands as they draw them (load_rows), so no rank draws it whole.
        const io::RandomSpec spec = io::parse_random_spec(source);
        Pattern header = io::random_header(spec);
        try {
            BoardPlan plan = plan_board(header, {}, overrides, source);
            const BoardSpec& bs = plan.spec;
            if (bs.topology != Topology::unbounded && plan.offset.x >= 0 && plan.offset.y >= 0 &&
                plan.offset.x <= bs.width - spec.width && plan.offset.y <= bs.height - spec.height) {
                b.pattern_ = std::move(header);
                b.plan_ = std::move(plan);
                b.banded_ = b.counted_by_bands_ = planned = true;
            }
        } catch (const InputError&) {
            // Reported below, as one process reports it.
        }
    }
    if (bandable && !planned) {
        try {
            BoardSink sink(source, overrides, budget, BoardSink::count);
            ReadLimits counting = b.limits_;
            counting.max_cells = INT64_MAX;
            Pattern p;
            if (random) {
                const io::RandomSpec spec = io::parse_random_spec(source);
                p = io::random_header(spec);
                io::stream_random(spec, 0, spec.height, sink);
            } else {
                p = io::read_pattern_mapped(source, counting, &sink);
            }
            if (sink.started() && same_placement(sink.header(), p)) {
                b.pattern_ = std::move(p);
                take(sink);
                b.banded_ = true;
            } else if (!sink.started() && p.tree && p.cells.empty()) {
                // A macrocell file: its tree (not its cells) plans and counts the board; each rank
                // cuts its band from the tree (read_board_rows). The frame's corners stand for the
                // cells in plan_board's check, so a misfit gives the whole pattern's box as before.
                frame_from_tree(p);
                const Box f = p.frame;
                std::vector<Cell> corners;
                if (!f.empty()) corners = {Cell{f.x, f.y}, Cell{f.right() - 1, f.bottom() - 1}};
                std::optional<BoardPlan> plan;
                try {
                    plan = plan_board(p, std::move(corners), overrides, source);
                } catch (const InputError&) {
                    // Reported below, as one process reports it.
                }
                if (plan && plan->spec.topology != Topology::unbounded) {
                    plan->cells = std::vector<Cell>();
                    b.population_ = static_cast<std::int64_t>(saturated(p.tree->population()));
                    b.bounding_box_ = f;
                    b.pattern_ = std::move(p);
                    b.plan_ = std::move(*plan);
                    b.banded_ = planned = true;
                }
            }
        } catch (const NotBanded&) {
            // Not a bounded board: read below as one process reads it.
        }
    }
    // Standard input cannot be read twice (below): it is read into a list.
    if (planned) {
    } else if (b.request_.source.pattern) {
        b.pattern_ = std::move(*b.request_.source.pattern);
        b.request_.source.pattern.reset();
    } else if (random) {
        // A soup going onto a bounded board goes straight into rows of bits (no list of cells, so no
        // cell limit: the board's memory is what counts); otherwise it is listed as before.
        const io::RandomSpec spec = io::parse_random_spec(source);
        BoardSink sink(source, overrides, budget);
        io::stream_random(spec, 0, spec.height, sink);
        if (sink.started()) {
            b.pattern_ = io::random_header(spec);
            take(sink);
        } else {
            b.pattern_ = read(nullptr);
        }
    } else if (source != "-" || b.request_.source.text) {
        BoardSink sink(source, overrides, budget);
        b.pattern_ = read(&sink);
        if (sink.started() && same_placement(sink.header(), b.pattern_)) {
            take(sink);
        } else if (sink.started()) {
            // Lines after the cells changed the placement: read again as a list.
            b.pattern_ = read(nullptr);
        }
    } else {
        b.pattern_ = read(nullptr);
    }
    if (!planned) {
        frame_from_tree(b.pattern_);
        b.population_ = b.pattern_.tree && b.pattern_.cells.empty()
                            ? static_cast<std::int64_t>(saturated(b.pattern_.tree->population()))
                            : static_cast<std::int64_t>(b.pattern_.cells.size());
        // A tree's frame is its live cells' box (the macrocell reader's, or frame_from_tree's): the
        // tree is not walked again for it.
        b.bounding_box_ = b.pattern_.tree && b.pattern_.cells.empty() ? b.pattern_.frame : b.pattern_.bounding_box();
        b.plan_ = plan_board(b.pattern_, std::move(b.pattern_.cells), overrides, source);
        b.pattern_.cells = std::vector<Cell>();
    }
    b.engine_name_ = resolve_engine(b.request_.engine, b.plan_.spec.topology);
    return b;
}

std::unique_ptr<Engine> OpenedBoard::create_engine(std::optional<EngineOptions> options) {
    const EngineOptions& o = options ? *options : request_.options;
    const std::string& source = request_.source.name;
    // A board made without a pattern (an empty source name) has nothing to name.
    // Errors that already start with the source (plan_board's) are not prefixed twice.
    const auto named = [&](const InputError& e) {
        const std::string what = e.what();
        if (source.empty() || what.rfind(source + ":", 0) == 0) return InputError(what);
        return InputError(located(source, 0, what));
    };
    std::unique_ptr<Engine> engine;
    try {
        engine = request_.factory ? request_.factory(plan_.spec, o) : tilelife::create_engine(engine_name_, plan_.spec, o);
    } catch (const InputError& e) {
        if (request_.factory) throw;  // about devices and ranks, not the pattern
        throw named(e);
    }
    try {
        if (banded_) {
            const BandCount all = request_.load_rows(*engine, BandedSource{source, plan_.spec, plan_.offset, limits_});
            if (counted_by_bands_) {
                population_ = all.population;
                bounding_box_ = all.bounding_box;
                counted_by_bands_ = false;
            }
        } else if (rows_) {
            if (rows_->rows > 0)
                engine->write_rows_packed(
                    rows_->first_row, rows_->rows,
                    static_cast<const std::uint64_t*>(rows_->words.data()) + rows_->first_row * rows_->words_per_row);
            rows_.reset();
        } else if (pattern_.tree && pattern_.tree->root() != 0 && plan_.cells.empty()) {
            // A tree whose cells were not listed: the unbounded plane keeps the file's coordinates,
            // so tree engines take it whole; the rest get its cells, within the reader's limit.
            if (plan_.spec.topology != Topology::unbounded || !engine->load_quadtree(*pattern_.tree)) {
                if (pattern_.tree->population() > static_cast<CellCount>(limits_.max_cells))
                    throw InputError("more than " + std::to_string(limits_.max_cells) + " live cells (the limit for " +
                                     engine_name_ + "; cpu:hashlife runs such trees on the unbounded plane)");
                Pattern placed = pattern_;
                placed.tree.reset();
                plan_ = plan_board(placed, pattern_.tree->cells(), request_.overrides, source);
                engine->set_cells(plan_.cells);
            }
        } else {
            engine->set_cells(plan_.cells);
        }
    } catch (const InputError& e) {
        throw named(e);  // e.g. cells beyond the plane cpu:hashlife runs
    }
    // Freed, not only emptied: `= {}` picks vector's initializer-list assignment, which keeps the
    // capacity (the reader reserves a cell a byte of the file: Caterloopillar_5c21.rle's 3.6 MB
    // held 55 MiB, 14 MiB of it resident, for the whole run).
    plan_.cells = std::vector<Cell>();
    // The pattern's cells and the reader's buffers are freed now; without a trim glibc keeps their
    // pages for the whole run (the CLI asks it to keep freed blocks: src/cli/main.cpp).
    return_free_heap();
    return engine;
}

namespace {
void tree_rows(const Quadtree& tree, const BandedSource& source, std::int64_t y, std::int64_t rows, std::uint64_t* words);
BandCount count_rows(const BandedSource& source, std::int64_t y, std::int64_t rows, const std::uint64_t* words);
}  // namespace

BandCount read_board_rows(const BandedSource& source, std::int64_t y, std::int64_t rows, std::uint64_t* words) {
    if (rows <= 0) return {};
    if (y < 0 || y > source.spec.height - rows) throw std::out_of_range("rows outside the board");
    BoardPlan plan;
    plan.spec = source.spec;
    plan.offset = source.offset;
    BoardSink sink(source.name, plan, y, rows, words);
    if (source.name.rfind("random:", 0) == 0) {
        io::stream_random(io::parse_random_spec(source.name), y - plan.offset.y, y + rows - plan.offset.y, sink);
    } else {
        // open_board's pass streamed this file (it has a header), so no cell is stored; the cells
        // are counted against the limit, which a board's worth of cells must pass.
        ReadLimits limits = source.limits;
        if (__builtin_mul_overflow(source.spec.width, source.spec.height, &limits.max_cells)) limits.max_cells = INT64_MAX;
        // A macrocell file's tree is never listed: only its band's rows are cut from it.
        limits.list_tree_cells = false;
        const Pattern p = io::read_pattern_mapped(source.name, limits, &sink);
        if (!sink.started() && p.tree) {
            tree_rows(*p.tree, source, y, rows, words);
            return count_rows(source, y, rows, words);
        }
    }
    if (!sink.started()) throw RuntimeError(source.name + ": changed while it was read (its header is gone)");
    return count_rows(source, y, rows, words);
}

namespace {

// Rows [y, y + rows) of the board from a macrocell tree: for_each_row visits only the squares
// crossing the band (the window), never a list of the pattern's cells.
void tree_rows(const Quadtree& tree, const BandedSource& source, std::int64_t y, std::int64_t rows,
               std::uint64_t* words) {
    const std::int64_t nw = (source.spec.width + 63) / 64;
    std::fill(words, words + rows * nw, std::uint64_t{0});
    const Cell o = source.offset;
    const Box window{-o.x, y - o.y, source.spec.width, rows};
    tree.for_each_row(
        [&](std::int64_t ty, const std::vector<Quadtree::RowPiece>& pieces) {
            std::uint64_t* row = words + (ty + o.y - y) * nw;
            for (const Quadtree::RowPiece& piece : pieces)
                for (unsigned bits = piece.bits; bits != 0; bits &= bits - 1) {
                    // Inside the board: the window cleared the piece's cells outside it.
                    const auto x = static_cast<std::uint64_t>(piece.x + o.x + std::countr_zero(bits));
                    row[x / 64] |= std::uint64_t{1} << (x % 64);
                }
        },
        &window);
}

// The population and bounding box (the file's coordinates) of rows [y, y + rows) from their bits.
BandCount count_rows(const BandedSource& source, std::int64_t y, std::int64_t rows, const std::uint64_t* words) {
    BoardPlan plan;
    plan.offset = source.offset;
    const std::int64_t nw = (source.spec.width + 63) / 64;
    BandCount count;
    std::int64_t first = -1, last = -1;
    std::vector<std::uint64_t> columns(static_cast<std::size_t>(nw), 0);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::uint64_t* row = words + r * nw;
        std::uint64_t any = 0;
        for (std::int64_t i = 0; i < nw; ++i) {
            count.population += std::popcount(row[i]);
            columns[static_cast<std::size_t>(i)] |= row[i];
            any |= row[i];
        }
        if (any) {
            if (first < 0) first = r;
            last = r;
        }
    }
    if (count.population == 0) return count;
    std::int64_t x0 = 0, x1 = 0;
    for (std::int64_t i = 0; i < nw; ++i)
        if (columns[static_cast<std::size_t>(i)]) {
            x0 = i * 64 + std::countr_zero(columns[static_cast<std::size_t>(i)]);
            break;
        }
    for (std::int64_t i = nw - 1; i >= 0; --i)
        if (columns[static_cast<std::size_t>(i)]) {
            x1 = i * 64 + 63 - std::countl_zero(columns[static_cast<std::size_t>(i)]);
            break;
        }
    count.bounding_box = Box{x0 - plan.offset.x, y + first - plan.offset.y, x1 - x0 + 1, last - first + 1};
    return count;
}

}  // namespace

LoadedBoard load_board(const BoardRequest& request) {
    OpenedBoard opened = open_board(request);
    LoadedBoard b;
    b.engine = opened.create_engine();
    b.plan = opened.plan();
    b.meta = opened.meta();
    b.format = opened.pattern().format;
    b.source = opened.source();
    b.population = opened.population();
    b.bounding_box = opened.bounding_box();
    return b;
}

}  // namespace tilelife
