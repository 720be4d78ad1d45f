// The viewer's geometry and drawing, free of SDL so that tests can check them exactly: the camera
// (which cell is under which pixel), and the rasteriser that turns the visible cells into the
// window's pixels (ARGB32) together with the board border, cell grid and work-group tile overlay.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/geometry.hpp"

namespace tilelife::viewer {

// Zoom is a power of two in pixels per cell (2^-12 .. 2^6), and the view's origin is kept on a
// whole pixel, so at zoom >= 1 every cell is exactly zoom x zoom pixels.
class Camera {
public:
    static constexpr int kMinLog = -12, kMaxLog = 6;

    int zoom_log() const { return zoom_log_; }
    double zoom() const;  // pixels per cell
    // The origin in pixels of the current zoom: cell point (opx / zoom, opy / zoom) is at the
    // window's top-left corner. Whole numbers, which is what keeps cells pixel-exact.
    std::int64_t origin_px() const { return opx_; }
    std::int64_t origin_py() const { return opy_; }

    // First cell drawn in window column px / row py (at zoom < 1 a pixel shows 2^-zoom_log cells).
    std::int64_t cell_x(std::int64_t px) const { return first_cell(opx_ + px); }
    std::int64_t cell_y(std::int64_t py) const { return first_cell(opy_ + py); }
    Cell cell_at(std::int64_t px, std::int64_t py) const { return Cell{cell_x(px), cell_y(py)}; }
    // Window column / row holding cell coordinate m.
    std::int64_t pixel_x(std::int64_t m) const { return pixel_of(m) - opx_; }
    std::int64_t pixel_y(std::int64_t m) const { return pixel_of(m) - opy_; }
    // Cells at least partly visible in a window of w x h pixels.
    Box visible(int w, int h) const;
    // Zooms by 2^steps (clamped) keeping the cell point under pixel (px, py) where it is.
    void zoom_about(double px, double py, int steps);
    void pan_pixels(std::int64_t dx, std::int64_t dy);
    // Largest zoom (at most 2^max_log) at which `box` fits a w x h window, centred.
    void fit(const Box& box, int w, int h, int max_log = 4);
    // Keeps the centre of the view when the window changes from (w0, h0) to (w1, h1).
    void resize(int w0, int h0, int w1, int h1);
    void set(int zoom_log, std::int64_t opx, std::int64_t opy);

private:
    std::int64_t first_cell(std::int64_t p) const;
    std::int64_t pixel_of(std::int64_t m) const;
    int zoom_log_ = 0;
    std::int64_t opx_ = 0, opy_ = 0;
};

struct Palette {
    std::uint32_t live = 0xFFF0F0E8, dead = 0xFF14161C, outside = 0xFF2A2D36, border = 0xFF7A8599;
    std::uint32_t grid = 0xFF30343E, tile = 0xFFE03030;
};

struct Overlay {
    bool bounded = false;   // draw the board's border and shade outside it
    Box board;              // the bounded board (0, 0, W, H)
    bool grid = false;      // cell grid (drawn only when cells are at least 4 pixels)
    bool tiles = false;     // work-group tile grid
    int tile_w = 16, tile_h = 16;
};

// Draws the window: `pixels` is w x h ARGB32. `read` fills a box of cells (one byte each) and is
// given only boxes inside the board (bounded) or the engine's extent (unbounded); it is called once
// per strip of at most 16 Mi cells. Returns the number of cells read.
using ReadCells = std::function<void(const Box&, std::uint8_t*)>;
std::int64_t render(std::vector<std::uint32_t>& pixels, int w, int h, const Camera& cam, const Box& readable,
                    const ReadCells& read, const Overlay& overlay, const Palette& palette = {});

// Cells on the straight line from a to b (both ends included), for drawing with the mouse.
std::vector<Cell> line_cells(Cell a, Cell b);

}  // namespace tilelife::viewer
