#include "cli/board_reader.hpp"

#include "tilelife/quadtree.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "core/huge_pages.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

// Receives an RLE file's runs and sets their bits on the planned bounded board.
class BoardSink final : public CellSink {
public:
    BoardSink(const std::string& source, const BoardOverrides& overrides, std::int64_t budget)
        : source_(source), overrides_(overrides), budget_(budget) {}

    bool start(const Pattern& header) override {
        try {
            plan_ = plan_board(header, {}, overrides_, source_);
        } catch (const InputError&) {
            return false;  // the cell-list path reports it, after the file's own errors, as before
        }
        if (plan_.spec.topology == Topology::unbounded) return false;
        w_ = plan_.spec.width;
        h_ = plan_.spec.height;
        nw_ = (w_ + 63) / 64;
        std::int64_t bytes = 0;
        if (__builtin_mul_overflow(nw_ * 8, h_, &bytes) || bytes > budget_ / 4) return false;
        // Zeroed pages come lazily (a small pattern on a large board touches a few), large boards
        // in huge pages.
        words_ = ZeroedBytes(static_cast<std::size_t>(bytes));
        if (!words_) return false;
        header_ = header;
        return true;
    }

    void add(const CellRun* runs, std::size_t count) override {
        if (count == 0) return;
        // Locals, not members, in the loop: the bit stores could alias members (uint64_t/int64_t).
        const std::int64_t dx = plan_.offset.x, dy = plan_.offset.y, w = w_, h = h_, nw = nw_;
        std::uint64_t* const words = static_cast<std::uint64_t*>(words_.data());
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
            set_bits(words + y * nw, static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(r.length));
        }
        population_ = population, x0_ = x0, x1_ = x1, outside_ = outside;
        if (y0_ == kNone) y0_ = runs[0].y;  // runs come in (y, x) order
        y1_ = runs[count - 1].y;
    }

    // The header start() saw.
    const Pattern& header() const { return header_; }
    bool started() const { return static_cast<bool>(words_); }

    LoadedBoard finish(Pattern pattern) {
        LoadedBoard b;
        b.population = population_;
        if (population_ > 0) b.bounding_box = Box{x0_, y0_, x1_ - x0_ + 1, y1_ - y0_ + 1};
        if (outside_)  // the message place_on_bounded_board gives
            throw InputError(located(source_, 0,
                                     "the pattern (" + std::to_string(b.bounding_box.width) + "x" +
                                         std::to_string(b.bounding_box.height) + ") does not fit the " +
                                         std::to_string(w_) + "x" + std::to_string(h_) + " " +
                                         std::string(to_string(plan_.spec.topology)) + " board"));
        b.pattern = std::move(pattern);
        b.plan = std::move(plan_);
        LoadedBoard::Rows rows;
        rows.words_per_row = nw_;
        if (population_ > 0) {
            rows.first_row = y0_ + b.plan.offset.y;
            rows.rows = y1_ - y0_ + 1;
        }
        rows.words = std::move(words_);
        b.rows = std::move(rows);
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

    const std::string& source_;
    const BoardOverrides& overrides_;
    std::int64_t budget_;
    Pattern header_;
    BoardPlan plan_;
    std::int64_t w_ = 0, h_ = 0, nw_ = 0;
    ZeroedBytes words_;
    std::int64_t population_ = 0;
    std::int64_t x0_ = INT64_MAX, x1_ = INT64_MIN, y0_ = kNone, y1_ = kNone;
    bool outside_ = false;
};

// What placing depends on: a line after the cells (a "#r" rule) must not have changed it.
bool same_placement(const Pattern& a, const Pattern& b) {
    return a.rule == b.rule && a.frame == b.frame && a.positioned == b.positioned;
}

}  // namespace

LoadedBoard load_board(const std::string& source, const ReadLimits& limits, const BoardOverrides& overrides,
                       std::int64_t budget) {
    // Standard input cannot be read twice (below): it is read into a list.
    if (source != "-") {
        BoardSink sink(source, overrides, budget);
        Pattern pattern = read_pattern(source, limits, &sink);
        if (sink.started() && same_placement(sink.header(), pattern)) return sink.finish(std::move(pattern));
        if (!sink.started()) {
            LoadedBoard b;
            b.population = static_cast<std::int64_t>(pattern.cells.size());
            b.bounding_box = pattern.bounding_box();
            b.plan = plan_board(pattern, std::move(pattern.cells), overrides, source);
            b.pattern = std::move(pattern);
            return b;
        }
    }
    // Standard input, or streamed but lines after the cells changed the placement: read as a list.
    LoadedBoard b;
    b.pattern = read_pattern(source, limits);
    b.population = static_cast<std::int64_t>(b.pattern.cells.size());
    b.bounding_box = b.pattern.bounding_box();
    b.plan = plan_board(b.pattern, std::move(b.pattern.cells), overrides, source);
    return b;
}

void LoadedBoard::put_on(Engine& engine) {
    if (rows) {
        if (rows->rows > 0)
            engine.write_rows_packed(rows->first_row, rows->rows,
                                     static_cast<const std::uint64_t*>(rows->words.data()) + rows->first_row * rows->words_per_row);
        rows.reset();
        return;
    }
    // A macrocell tree whose cells were not listed: tree engines take it whole.
    if (pattern.tree && pattern.tree->root() != 0 && plan.cells.empty()) {
        if (!set_quadtree(engine, *pattern.tree)) engine.set_cells(pattern.tree->cells());
        return;
    }
    engine.set_cells(plan.cells);
    plan.cells = {};
}

}  // namespace tilelife::cli
