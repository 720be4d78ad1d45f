// Cells, sizes and boxes on a 64-bit plane (boards beyond 2^31 cells must index safely).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace tilelife {

struct Cell {
    std::int64_t x = 0;
    std::int64_t y = 0;  // y grows downwards, as in RLE and Golly
    friend bool operator==(const Cell&, const Cell&) = default;
    friend auto operator<=>(const Cell&, const Cell&) = default;
};

// Row order: by y, then x. Every reader gives cells in it and live_cells() returns them in it.
inline bool row_order(const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; }

// Half-open box [x, x+width) x [y, y+height). Empty when width or height is 0.
struct Box {
    std::int64_t x = 0;
    std::int64_t y = 0;
    std::int64_t width = 0;
    std::int64_t height = 0;
    bool empty() const { return width <= 0 || height <= 0; }
    std::int64_t right() const { return x + width; }    // one past the last column
    std::int64_t bottom() const { return y + height; }  // one past the last row
    bool contains(Cell c) const { return c.x >= x && c.x < right() && c.y >= y && c.y < bottom(); }
    friend bool operator==(const Box&, const Box&) = default;
};

// Smallest box holding both (an empty box is the identity).
inline Box unite(const Box& a, const Box& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    const std::int64_t x0 = std::min(a.x, b.x), y0 = std::min(a.y, b.y);
    const std::int64_t x1 = std::max(a.right(), b.right()), y1 = std::max(a.bottom(), b.bottom());
    return Box{x0, y0, x1 - x0, y1 - y0};
}

// Cells in both (empty when they do not overlap).
inline Box intersect(const Box& a, const Box& b) {
    const std::int64_t x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const std::int64_t x1 = std::min(a.right(), b.right()), y1 = std::min(a.bottom(), b.bottom());
    if (x0 >= x1 || y0 >= y1) return Box{};
    return Box{x0, y0, x1 - x0, y1 - y0};
}

// `b` with `by` more cells on every side.
inline Box grow(const Box& b, std::int64_t by) { return Box{b.x - by, b.y - by, b.width + 2 * by, b.height + 2 * by}; }

// Smallest box holding every cell (empty for no cells).
inline Box bounding_box(const std::vector<Cell>& cells) {
    if (cells.empty()) return Box{};
    std::int64_t x0 = cells[0].x, x1 = cells[0].x, y0 = cells[0].y, y1 = cells[0].y;
    for (const Cell& c : cells) {
        x0 = std::min(x0, c.x), x1 = std::max(x1, c.x);
        y0 = std::min(y0, c.y), y1 = std::max(y1, c.y);
    }
    return Box{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

}  // namespace tilelife
