// Cells, sizes and boxes on a 64-bit plane (boards beyond 2^31 cells must index safely).
#pragma once
#include <algorithm>
#include <cstdint>

namespace tilelife {

struct Cell {
    std::int64_t x = 0;
    std::int64_t y = 0;  // y grows downwards, as in RLE and Golly
    friend bool operator==(const Cell&, const Cell&) = default;
    friend auto operator<=>(const Cell&, const Cell&) = default;
};

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

}  // namespace tilelife
