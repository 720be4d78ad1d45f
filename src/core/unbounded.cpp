// The growing board behind Topology::unbounded. Any bounded engine (run as a plane) is kept large
// enough that live cells never come within reach of its edge: a pattern spreads at most one cell per
// generation (no B0 rule is allowed here), so if every live cell is at least k cells inside the
// board, k generations on the bounded plane equal k generations on the infinite plane.
#include <algorithm>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"

namespace tilelife {
namespace {

class UnboundedBoard final : public Engine {
public:
    UnboundedBoard(std::string name, EngineFactory factory, const BoardSpec& spec, const EngineOptions& options,
                   std::function<std::int64_t(const BoardSpec&, const EngineOptions&)> host_bytes)
        : name_(std::move(name)), factory_(std::move(factory)), host_bytes_(std::move(host_bytes)), rule_(spec.rule),
          options_(options) {}

    std::string name() const override { return name_; }
    Topology topology() const override { return Topology::unbounded; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return board_; }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        if (box.empty()) return;
        bool any = false;
        const std::int64_t n = box.width * box.height;
        for (std::int64_t i = 0; i < n && !any; ++i) any = cells[i] != 0;
        if (!any) {  // clearing cells never needs room, and outside the board they are dead already
            const Box inside = intersect(box, board_);
            if (inside.empty() || !inner_) return;
            const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(inside.width * inside.height), 0);
            inner_->write_region(local(inside), zeros.data());
            return;
        }
        live_ = unite(live_, box);
        if (!inner_ || !(intersect(box, board_) == box)) relayout(live_);
        inner_->write_region(local(box), cells);
    }

    void set_cells(const std::vector<Cell>& cells) override {
        if (cells.empty()) return;
        const Box b = tilelife::bounding_box(cells);
        live_ = unite(live_, b);
        if (!inner_ || !(intersect(b, board_) == b)) relayout(live_);
        std::vector<Cell> mine(cells.size());
        for (std::size_t i = 0; i < cells.size(); ++i) mine[i] = Cell{cells[i].x - board_.x, cells[i].y - board_.y};
        inner_->set_cells(mine);
    }

    std::vector<Cell> live_cells_in(const Box& box) const override {
        const Box inside = intersect(box, board_);
        if (inside.empty() || !inner_) return {};
        std::vector<Cell> cells = inner_->live_cells_in(local(inside));
        for (Cell& c : cells) c = Cell{c.x + board_.x, c.y + board_.y};
        return cells;
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        std::fill_n(cells, box.width * box.height, std::uint8_t{0});
        const Box inside = intersect(box, board_);
        if (inside.empty() || !inner_) return;
        if (inside == box) {
            inner_->read_region(local(box), cells);
            return;
        }
        std::vector<std::uint8_t> buf(static_cast<std::size_t>(inside.width * inside.height));
        inner_->read_region(local(inside), buf.data());
        for (std::int64_t y = 0; y < inside.height; ++y)
            std::copy_n(buf.data() + y * inside.width, inside.width,
                        cells + (inside.y - box.y + y) * box.width + (inside.x - box.x));
    }

    void step(std::int64_t n) override { advance(n, nullptr); }

    std::int64_t population() const override { return inner_ ? inner_->population() : 0; }
    std::int64_t generation() const override { return generation_; }
    Box bounding_box() const override {  // the inner plane's, in this board's coordinates
        if (!inner_) return Box{};
        const Box b = inner_->bounding_box();
        return b.empty() ? b : Box{b.x + board_.x, b.y + board_.y, b.width, b.height};
    }

    std::optional<StepTiming> step_timed(std::int64_t n) override {
        std::optional<StepTiming> total;
        advance(n, &total);
        return total;
    }

    // The inner engine's description, in this board's coordinates (tiles repeat from the inner
    // board's corner, which moves with every re-layout).
    EngineDescription describe() const override {
        EngineDescription d;
        if (inner_) {
            d = inner_->describe();
        } else {
            d.backend = name_.substr(0, name_.find(':'));
        }
        d.name = name_;
        if (d.tiles) d.tiles->origin = Cell{d.tiles->origin.x + board_.x, d.tiles->origin.y + board_.y};
        d.properties.emplace_back("board", std::to_string(board_.width) + "x" + std::to_string(board_.height));
        return d;
    }

private:
    // Runs n generations; with `timing`, sums the inner engine's device times (nullopt stays nullopt
    // when the inner engine has no device clock).
    void advance(std::int64_t n, std::optional<StepTiming>* timing) {
        while (n > 0) {
            if (options_.interrupt && options_.interrupt->load(std::memory_order_relaxed)) return;
            if (live_.empty()) {  // nothing can be born from nothing without B0
                generation_ += n;
                return;
            }
            const std::int64_t pad = pad_for(live_);
            std::int64_t margin = margin_of(live_);
            // Re-centre when the pattern nears the edge, or when the board is far larger than needed
            // (memory follows the pattern's extent, not its history).
            const Box wanted = grow(live_, pad);
            const bool oversized = board_.width * board_.height > 16 * (wanted.width * wanted.height);
            if ((margin < n && 2 * margin < pad) || oversized) {
                relayout(live_);
                margin = margin_of(live_);
            }
            const std::int64_t k = std::min(n, margin);
            if (timing) {
                if (const auto t = inner_->step_timed(k)) {
                    if (!*timing) *timing = StepTiming{};
                    (*timing)->kernel_seconds += t->kernel_seconds;
                    (*timing)->span_seconds += t->span_seconds;
                }
            } else {
                inner_->step(k);
            }
            generation_ += k;
            n -= k;
            // Live cells can only be within k cells of where they were: scan just that.
            live_ = scan(intersect(grow(live_, k), board_));
        }
    }

    static std::int64_t pad_for(const Box& b) { return std::max<std::int64_t>(32, std::max(b.width, b.height) / 8); }

    std::int64_t margin_of(const Box& b) const {
        return std::min({b.x - board_.x, b.y - board_.y, board_.right() - b.right(), board_.bottom() - b.bottom()});
    }

    Box local(const Box& b) const { return Box{b.x - board_.x, b.y - board_.y, b.width, b.height}; }

    // Moves the pattern to a fresh board of `need` plus a margin on every side.
    void relayout(const Box& need) {
        const Box nb = grow(need, pad_for(need));
        BoardSpec spec{nb.width, nb.height, Topology::plane, rule_};
        // The old board is still held while the new one is filled: both count.
        if (options_.max_bytes > 0) {
            const std::int64_t need_bytes = host_bytes_(spec, options_);
            const std::int64_t held = inner_ ? host_bytes_(BoardSpec{board_.width, board_.height, Topology::plane, rule_}, options_) : 0;
            if (need_bytes > options_.max_bytes - held)
                throw RuntimeError("the unbounded pattern grew to a " + std::to_string(nb.width) + "x" +
                                   std::to_string(nb.height) + " board, which needs about " +
                                   bytes_text(need_bytes > INT64_MAX - held ? INT64_MAX : need_bytes + held) + " on " +
                                   name_ + " with the board it replaces, over the memory budget of " +
                                   bytes_text(options_.max_bytes));
        }
        auto fresh = factory_(spec, options_);
        const Box keep = intersect(live_, board_);
        if (inner_ && !keep.empty()) {
            // As a list of live cells: engines list and set them by words, so a sparse pattern's box
            // (a gun's glider stream, mostly empty) costs its live cells, not its area in bytes.
            std::vector<Cell> cells = inner_->live_cells_in(local(keep));
            for (Cell& c : cells) c = Cell{c.x + board_.x - nb.x, c.y + board_.y - nb.y};
            fresh->set_cells(cells);
        }
        inner_ = std::move(fresh);
        board_ = nb;
    }

    // Exact bounding box of the live cells inside `area` (world coordinates). Reads inwards from the
    // four edges and stops at the first live cell on each side, so what it reads is about the
    // bounding box's border, not its area: on a sparse pattern spread over a large board (a gun's
    // glider stream) the area is mostly empty and scanning it all would dominate the run.
    Box scan(const Box& area) const {
        if (area.empty()) return Box{};
        // Strips are listed through live_cells_in, which engines answer from their own representation
        // (cpu:bitpacked tests a 64-cell word at a time): empty strips cost their words, not bytes.
        auto cells_in = [&](const Box& b) {
            std::vector<Cell> c = inner_->live_cells_in(local(b));
            for (Cell& cell : c) cell = Cell{cell.x + board_.x, cell.y + board_.y};
            return c;
        };
        // Strips start thin and double (up to ~4M cells): the first live cell is usually near the edge.
        const std::int64_t cap = std::int64_t{1} << 22;
        auto grow_strip = [&](std::int64_t n, std::int64_t across) { return std::min(2 * n, std::max<std::int64_t>(1, cap / across)); };
        // Rows, top down then bottom up (the lists are sorted by (y, x)).
        std::int64_t y0 = 0, y1 = 0;
        bool top = false, bottom = false;
        for (std::int64_t y = area.y, h = 8; y < area.bottom() && !top; y += h, h = grow_strip(h, area.width)) {
            h = std::min(h, area.bottom() - y);
            const auto c = cells_in(Box{area.x, y, area.width, h});
            if (!c.empty()) y0 = c.front().y, top = true;
        }
        if (!top) return Box{};
        for (std::int64_t y = area.bottom(), h = 8; y > y0 && !bottom; y -= h, h = grow_strip(h, area.width)) {
            h = std::min(h, y - y0);
            const auto c = cells_in(Box{area.x, y - h, area.width, h});
            if (!c.empty()) y1 = c.back().y, bottom = true;
        }
        if (!bottom) y1 = y0;
        // Columns of rows y0..y1, left to right then right to left.
        const std::int64_t rows = y1 - y0 + 1;
        std::int64_t x0 = area.x, x1 = area.right() - 1;
        bool left = false, right = false;
        for (std::int64_t x = area.x, w = 64; x < area.right() && !left; x += w, w = grow_strip(w, rows)) {
            w = std::min(w, area.right() - x);
            const auto c = cells_in(Box{x, y0, w, rows});
            if (c.empty()) continue;
            x0 = std::min_element(c.begin(), c.end(), [](const Cell& a, const Cell& b) { return a.x < b.x; })->x;
            left = true;
        }
        for (std::int64_t x = area.right(), w = 64; x > x0 && !right; x -= w, w = grow_strip(w, rows)) {
            w = std::min(w, x - x0);
            const auto c = cells_in(Box{x - w, y0, w, rows});
            if (c.empty()) continue;
            x1 = std::max_element(c.begin(), c.end(), [](const Cell& a, const Cell& b) { return a.x < b.x; })->x;
            right = true;
        }
        return Box{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
    }

    std::string name_;
    EngineFactory factory_;
    std::function<std::int64_t(const BoardSpec&, const EngineOptions&)> host_bytes_;
    Rule rule_;
    EngineOptions options_;
    std::unique_ptr<Engine> inner_;
    Box board_;  // world coordinates of the inner board
    Box live_;   // bounding box of live cells (may be larger than exact after writes)
    std::int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_unbounded(std::string name, EngineFactory factory, const BoardSpec& spec,
                                       const EngineOptions& options,
                                       std::function<std::int64_t(const BoardSpec&, const EngineOptions&)> host_bytes) {
    if (!host_bytes)
        host_bytes = [name](const BoardSpec& s, const EngineOptions& o) { return engine_host_bytes(name, s, o); };
    return std::make_unique<UnboundedBoard>(std::move(name), std::move(factory), spec, options, std::move(host_bytes));
}

}  // namespace tilelife
