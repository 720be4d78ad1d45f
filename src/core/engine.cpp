#include "tilelife/engine.hpp"

#include <algorithm>

namespace tilelife {

void Engine::set_cell(std::int64_t x, std::int64_t y, bool alive) {
    const std::uint8_t v = alive ? 1 : 0;
    write_region(Box{x, y, 1, 1}, &v);
}

bool Engine::get_cell(std::int64_t x, std::int64_t y) const {
    if (!extent().contains(Cell{x, y})) return false;
    std::uint8_t v = 0;
    read_region(Box{x, y, 1, 1}, &v);
    return v != 0;
}

void Engine::set_cells(const std::vector<Cell>& cells) {
    if (cells.empty()) return;
    // One bulk write over the cells' bounding box keeps device engines to a single transfer.
    std::int64_t x0 = cells[0].x, x1 = cells[0].x, y0 = cells[0].y, y1 = cells[0].y;
    for (const Cell& c : cells) {
        x0 = std::min(x0, c.x), x1 = std::max(x1, c.x);
        y0 = std::min(y0, c.y), y1 = std::max(y1, c.y);
    }
    const Box box{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(box.width * box.height));
    // Keep what is already there: the box may cover live cells that are not in `cells`.
    const Box have = extent();
    const std::int64_t ix0 = std::max(box.x, have.x), iy0 = std::max(box.y, have.y);
    const std::int64_t ix1 = std::min(box.right(), have.right()), iy1 = std::min(box.bottom(), have.bottom());
    if (ix0 < ix1 && iy0 < iy1) {
        const Box inner{ix0, iy0, ix1 - ix0, iy1 - iy0};
        std::vector<std::uint8_t> old(static_cast<std::size_t>(inner.width * inner.height));
        read_region(inner, old.data());
        for (std::int64_t y = 0; y < inner.height; ++y)
            std::copy_n(old.data() + y * inner.width, inner.width,
                        buf.data() + (y + iy0 - box.y) * box.width + (ix0 - box.x));
    }
    for (const Cell& c : cells) buf[static_cast<std::size_t>((c.y - y0) * box.width + (c.x - x0))] = 1;
    write_region(box, buf.data());
}

std::vector<Cell> Engine::live_cells() const {
    std::vector<Cell> out;
    const Box box = extent();
    if (box.empty()) return out;
    // Row bands bound the temporary buffer for very large boards.
    const std::int64_t band = std::max<std::int64_t>(1, (std::int64_t{1} << 24) / box.width);
    std::vector<std::uint8_t> buf;
    for (std::int64_t y = box.y; y < box.bottom(); y += band) {
        const std::int64_t h = std::min(band, box.bottom() - y);
        buf.resize(static_cast<std::size_t>(box.width * h));
        read_region(Box{box.x, y, box.width, h}, buf.data());
        for (std::int64_t r = 0; r < h; ++r)
            for (std::int64_t c = 0; c < box.width; ++c)
                if (buf[static_cast<std::size_t>(r * box.width + c)]) out.push_back(Cell{box.x + c, y + r});
    }
    return out;
}

}  // namespace tilelife
