// cpu:reference — one byte per cell, straightforward loops. This engine is the oracle every other
// engine is tested against, so it favours being obviously right over being fast.
#include <algorithm>
#include <cstring>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

class ReferenceEngine final : public Engine {
public:
    explicit ReferenceEngine(const BoardSpec& spec)
        : w_(spec.width), h_(spec.height), topology_(spec.topology), rule_(spec.rule) {
        const auto n = static_cast<std::size_t>(w_ * h_);
        try {
            cur_.assign(n, 0);
            next_.assign(n, 0);
        } catch (const std::bad_alloc&) {
            throw RuntimeError("out of memory allocating a " + std::to_string(w_) + "x" + std::to_string(h_) +
                               " board for cpu:reference");
        }
        for (int n8 = 0; n8 <= 8; ++n8) {
            table_[0][n8] = rule_.next(false, n8);
            table_[1][n8] = rule_.next(true, n8);
        }
    }

    std::string name() const override { return "cpu:reference"; }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        for (std::int64_t y = 0; y < box.height; ++y)
            for (std::int64_t x = 0; x < box.width; ++x)
                cur_[idx(box.x + x, box.y + y)] = cells[y * box.width + x] ? 1 : 0;
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        for (std::int64_t y = 0; y < box.height; ++y)
            std::memcpy(cells + y * box.width, &cur_[idx(box.x, box.y + y)], static_cast<std::size_t>(box.width));
    }

    void step(std::int64_t n) override {
        for (std::int64_t g = 0; g < n; ++g) {
            step_once();
            ++generation_;
        }
    }

    std::int64_t population() const override {
        std::int64_t p = 0;
        for (std::uint8_t c : cur_) p += c;
        return p;
    }
    std::int64_t generation() const override { return generation_; }

private:
    std::size_t idx(std::int64_t x, std::int64_t y) const { return static_cast<std::size_t>(y * w_ + x); }

    void check(const Box& b) const {
        if (b.x < 0 || b.y < 0 || b.right() > w_ || b.bottom() > h_ || b.width < 0 || b.height < 0)
            throw std::out_of_range("region outside the board");
    }

    // Neighbour at offset (dx, dy) or 0 when it lies off a plane. On a torus the offsets wrap, so on
    // a 1-wide or 2-wide torus a cell can be its own neighbour, exactly as in Golly.
    std::uint8_t at(std::int64_t x, std::int64_t y) const {
        if (topology_ == Topology::torus) {
            x = (x % w_ + w_) % w_;
            y = (y % h_ + h_) % h_;
        } else if (x < 0 || y < 0 || x >= w_ || y >= h_) {
            return 0;
        }
        return cur_[idx(x, y)];
    }

    void step_once() {
        for (std::int64_t y = 0; y < h_; ++y) {
            const bool inner_row = y > 0 && y + 1 < h_;
            for (std::int64_t x = 0; x < w_; ++x) {
                int n = 0;
                if (inner_row && x > 0 && x + 1 < w_) {
                    // Interior cells: direct indexing (the common case).
                    const std::uint8_t* up = &cur_[idx(x - 1, y - 1)];
                    const std::uint8_t* mid = &cur_[idx(x - 1, y)];
                    const std::uint8_t* down = &cur_[idx(x - 1, y + 1)];
                    n = up[0] + up[1] + up[2] + mid[0] + mid[2] + down[0] + down[1] + down[2];
                } else {
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx)
                            if (dx || dy) n += at(x + dx, y + dy);
                }
                next_[idx(x, y)] = table_[cur_[idx(x, y)]][n];
            }
        }
        cur_.swap(next_);
    }

    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    std::uint8_t table_[2][9]{};
    std::vector<std::uint8_t> cur_, next_;
    std::int64_t generation_ = 0;
};

}  // namespace

void register_bitpacked_engine();  // src/cpu/bitpacked.cpp
void register_cpu_engines();  // called by register_builtin_engines()
void register_cpu_engines() {
    register_engine({"cpu:reference", "one byte per cell, plain loops: the exact oracle"},
                    [](const BoardSpec& spec, const EngineOptions&) -> std::unique_ptr<Engine> {
                        return std::make_unique<ReferenceEngine>(spec);
                    });
    register_bitpacked_engine();
}

}  // namespace tilelife
