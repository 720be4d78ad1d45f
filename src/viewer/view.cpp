#include "viewer/view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tilelife::viewer {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

double Camera::zoom() const { return std::ldexp(1.0, zoom_log_); }

std::int64_t Camera::first_cell(std::int64_t p) const {
    return zoom_log_ >= 0 ? floor_div(p, std::int64_t{1} << zoom_log_) : p * (std::int64_t{1} << -zoom_log_);
}

std::int64_t Camera::pixel_of(std::int64_t m) const {
    return zoom_log_ >= 0 ? m * (std::int64_t{1} << zoom_log_) : floor_div(m, std::int64_t{1} << -zoom_log_);
}

Box Camera::visible(int w, int h) const {
    const std::int64_t x0 = cell_x(0), y0 = cell_y(0);
    // Magnified: through the cell of the last pixel; else to the first cell past the window.
    const std::int64_t x1 = zoom_log_ >= 0 ? cell_x(w - 1) + 1 : cell_x(w);
    const std::int64_t y1 = zoom_log_ >= 0 ? cell_y(h - 1) + 1 : cell_y(h);
    return Box{x0, y0, x1 - x0, y1 - y0};
}

void Camera::set(int zoom_log, std::int64_t opx, std::int64_t opy) {
    zoom_log_ = std::clamp(zoom_log, kMinLog, kMaxLog);
    opx_ = opx;
    opy_ = opy;
}

void Camera::zoom_about(double px, double py, int steps) {
    const double cx = (opx_ + px) / zoom(), cy = (opy_ + py) / zoom();
    zoom_log_ = std::clamp(zoom_log_ + steps, kMinLog, kMaxLog);
    opx_ = std::llround(cx * zoom() - px);
    opy_ = std::llround(cy * zoom() - py);
}

void Camera::pan_pixels(std::int64_t dx, std::int64_t dy) {
    opx_ -= dx;
    opy_ -= dy;
}

void Camera::fit(const Box& box, int w, int h, int max_log) {
    const Box b = box.empty() ? Box{box.x, box.y, 1, 1} : box;
    int log = std::min(max_log, kMaxLog);
    // A margin of a few pixels keeps the pattern off the window's edge.
    while (log > kMinLog && (b.width * std::ldexp(1.0, log) > w - 8 || b.height * std::ldexp(1.0, log) > h - 8)) --log;
    zoom_log_ = log;
    opx_ = std::llround((b.x + b.width / 2.0) * zoom() - w / 2.0);
    opy_ = std::llround((b.y + b.height / 2.0) * zoom() - h / 2.0);
}

void Camera::resize(int w0, int h0, int w1, int h1) {
    opx_ += (w0 - w1) / 2;
    opy_ += (h0 - h1) / 2;
}

std::int64_t render(std::vector<std::uint32_t>& pixels, int w, int h, const Camera& cam, const Box& readable,
                    const ReadCells& read, const Overlay& ov, const Palette& pal) {
    pixels.assign(static_cast<std::size_t>(w) * h, ov.bounded ? pal.outside : pal.dead);
    if (w <= 0 || h <= 0) return 0;
    // The board's rectangle in window pixels (clamped), shaded dead.
    auto clamp_x = [&](std::int64_t v) { return static_cast<int>(std::clamp<std::int64_t>(v, 0, w)); };
    auto clamp_y = [&](std::int64_t v) { return static_cast<int>(std::clamp<std::int64_t>(v, 0, h)); };
    const Box area = ov.bounded ? ov.board : readable;
    // Pixel extent of the cells [a, b): from the pixel of a to the pixel holding b-1, inclusive.
    const std::int64_t bl = cam.pixel_x(area.x), br = cam.pixel_x(area.right() - 1) + std::max<std::int64_t>(1, std::llround(cam.zoom()));
    const std::int64_t bt = cam.pixel_y(area.y), bb = cam.pixel_y(area.bottom() - 1) + std::max<std::int64_t>(1, std::llround(cam.zoom()));
    if (ov.bounded)
        for (int y = clamp_y(bt); y < clamp_y(bb); ++y)
            std::fill(pixels.begin() + static_cast<std::size_t>(y) * w + clamp_x(bl),
                      pixels.begin() + static_cast<std::size_t>(y) * w + clamp_x(br), pal.dead);

    // Which pixels show a live cell: read the visible part of the readable box a strip at a time.
    const Box box = intersect(cam.visible(w, h), readable);
    std::int64_t cells_read = 0;
    if (!box.empty()) {
        std::vector<std::uint8_t> hit(static_cast<std::size_t>(w) * h, 0);
        const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / box.width);
        std::vector<std::uint8_t> cells(static_cast<std::size_t>(std::min(strip, box.height) * box.width));
        // Column of each cell (zoom < 1: many cells to one column) or cell of each column (zoom >= 1).
        const bool magnified = cam.zoom_log() >= 0;
        std::vector<std::int64_t> map;
        if (magnified) {
            map.resize(w);
            for (int px = 0; px < w; ++px) {
                const std::int64_t c = cam.cell_x(px);
                map[px] = box.contains(Cell{c, box.y}) ? c - box.x : -1;
            }
        } else {
            map.resize(static_cast<std::size_t>(box.width));
            for (std::int64_t x = 0; x < box.width; ++x) map[x] = cam.pixel_x(box.x + x);
        }
        for (std::int64_t y0 = 0; y0 < box.height; y0 += strip) {
            const std::int64_t rows = std::min(strip, box.height - y0);
            const Box part{box.x, box.y + y0, box.width, rows};
            read(part, cells.data());
            cells_read += part.width * part.height;
            if (magnified) {
                const int py0 = clamp_y(cam.pixel_y(part.y)), py1 = clamp_y(cam.pixel_y(part.bottom()));
                for (int py = py0; py < py1; ++py) {
                    const std::uint8_t* row = cells.data() + (cam.cell_y(py) - part.y) * box.width;
                    std::uint8_t* out = hit.data() + static_cast<std::size_t>(py) * w;
                    for (int px = 0; px < w; ++px)
                        if (map[px] >= 0) out[px] = row[map[px]];
                }
            } else {
                for (std::int64_t r = 0; r < rows; ++r) {
                    const std::int64_t py = cam.pixel_y(part.y + r);
                    if (py < 0 || py >= h) continue;
                    const std::uint8_t* row = cells.data() + r * box.width;
                    std::uint8_t* out = hit.data() + static_cast<std::size_t>(py) * w;
                    for (std::int64_t x = 0; x < box.width; ++x) {
                        const std::int64_t px = map[x];
                        if (row[x] && px >= 0 && px < w) out[px] = 1;
                    }
                }
            }
        }
        for (std::size_t i = 0; i < hit.size(); ++i)
            if (hit[i]) pixels[i] = pal.live;
    }

    // Lines at every period-th cell boundary counted from (base_x, base_y), one pixel wide, over the
    // board (bounded) or the whole window (unbounded).
    const Box vis = cam.visible(w, h);
    const Box line_area = ov.bounded ? intersect(vis, ov.board) : vis;
    auto lines = [&](std::int64_t period_x, std::int64_t period_y, std::int64_t base_x, std::int64_t base_y,
                     std::uint32_t color) {
        if (line_area.empty()) return;
        const int x0 = ov.bounded ? clamp_x(bl) : 0, x1 = ov.bounded ? clamp_x(br) : w;
        const int y0 = ov.bounded ? clamp_y(bt) : 0, y1 = ov.bounded ? clamp_y(bb) : h;
        const std::int64_t fx = base_x + floor_div(line_area.x - base_x + period_x - 1, period_x) * period_x;
        for (std::int64_t m = fx; m < line_area.right(); m += period_x) {
            const std::int64_t px = cam.pixel_x(m);
            if (px >= 0 && px < w)
                for (int y = y0; y < y1; ++y) pixels[static_cast<std::size_t>(y) * w + px] = color;
        }
        const std::int64_t fy = base_y + floor_div(line_area.y - base_y + period_y - 1, period_y) * period_y;
        for (std::int64_t m = fy; m < line_area.bottom(); m += period_y) {
            const std::int64_t py = cam.pixel_y(m);
            if (py >= 0 && py < h)
                std::fill(pixels.begin() + py * w + x0, pixels.begin() + py * w + x1, color);
        }
    };
    if (ov.grid && cam.zoom_log() >= 2) lines(1, 1, 0, 0, pal.grid);
    // Tiles are counted from the engine's own origin: the board's corner, or the growing board's.
    if (ov.tiles && ov.tile_w * cam.zoom() >= 3 && ov.tile_h * cam.zoom() >= 3)
        lines(ov.tile_w, ov.tile_h, area.x, area.y, pal.tile);

    // The border, one pixel outside the board.
    if (ov.bounded) {
        auto put = [&](std::int64_t x, std::int64_t y) {
            if (x >= 0 && x < w && y >= 0 && y < h) pixels[static_cast<std::size_t>(y) * w + x] = pal.border;
        };
        for (std::int64_t x = std::max<std::int64_t>(bl - 1, -1); x <= std::min<std::int64_t>(br, w); ++x) {
            put(x, bt - 1);
            put(x, bb);
        }
        for (std::int64_t y = std::max<std::int64_t>(bt - 1, -1); y <= std::min<std::int64_t>(bb, h); ++y) {
            put(bl - 1, y);
            put(br, y);
        }
    }
    return cells_read;
}

std::vector<Cell> line_cells(Cell a, Cell b) {
    std::vector<Cell> out;
    const std::int64_t dx = std::llabs(b.x - a.x), dy = -std::llabs(b.y - a.y);
    const std::int64_t sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1;
    std::int64_t err = dx + dy;
    for (;;) {
        out.push_back(a);
        if (a == b) break;
        const std::int64_t e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            a.x += sx;
        }
        if (e2 <= dx) {
            err += dx;
            a.y += sy;
        }
    }
    return out;
}

}  // namespace tilelife::viewer
