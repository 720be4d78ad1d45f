// The viewer's geometry and drawing, free of SDL so that tests can check them exactly: the camera
// (which cell is under which pixel), and the rasteriser that turns the visible cells into the
// window's pixels (ARGB32) together with the board border, cell grid, selection, paste preview and
// work-group tile overlay.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "image/image.hpp"
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
    // Puts the cell point (x, y) at the window's centre, at the current zoom.
    void centre_on(double x, double y, int w, int h);
    // Keeps the centre of the view when the window changes from (w0, h0) to (w1, h1).
    void resize(int w0, int h0, int w1, int h1);
    void set(int zoom_log, std::int64_t opx, std::int64_t opy);
    friend bool operator==(const Camera&, const Camera&) = default;

private:
    std::int64_t first_cell(std::int64_t p) const;
    std::int64_t pixel_of(std::int64_t m) const;
    int zoom_log_ = 0;
    std::int64_t opx_ = 0, opy_ = 0;
};

// Golly's scale notation: "1:8" is 8 pixels per cell, "4:1" four cells per pixel ("2^5:1" too).
std::string scale_text(int zoom_log);
// Parses Golly's notation (and a bare N, meaning N pixels per cell) into log2 pixels per cell;
// nullopt when it is not a power of two within the camera's range.
std::optional<int> parse_scale(const std::string& text);

// Window colours (ARGB32) of a theme: one per cell state (image::CellState) and the chrome.
struct Palette {
    std::uint32_t state[image::kCellStates] = {};
    std::uint32_t outside = 0, border = 0, grid = 0, tile = 0, halo = 0, selection = 0, paste = 0;
    static Palette of(const image::Colors& colors, bool ages);
    std::uint32_t live() const { return state[image::kLiveCell]; }
    std::uint32_t dead() const { return state[image::kDeadCell]; }
};
std::uint32_t argb(image::Rgb c);

// Tile lines are drawn only when tiles are at least this many pixels on both sides (and the cell
// grid only at 4 or more pixels per cell): closer lines would hide the cells.
inline constexpr int kMinTilePixels = 8;

struct Overlay {
    bool bounded = false;   // draw the board's border and shade outside it
    Box board;              // the bounded board (0, 0, W, H)
    bool grid = false;      // cell grid (drawn only when cells are at least 4 pixels)
    // Work-group tiles (lines every width x height cells from origin) when legible, and one tile
    // (`halo_tile`, in cells; empty: none) outlined with its halo.
    std::optional<TileGeometry> tiles;
    Box halo_tile;
    Box selection;                             // tinted with an outline; empty: none
    const std::vector<Cell>* paste = nullptr;  // the paste preview's live cells (engine coordinates)
    Box paste_box;                             // and its rectangle
};

// How render() got the cells: every cell of the visible box (dense), the engine's list of live cells
// (sparse: huge views of thin patterns), or one row of cells per pixel row (sampled: huge views of
// huge populations).
enum class ReadMode { none, dense, sparse, sampled };

// Where render() gets the cells of a box inside the readable box: `read` fills one byte per cell (a
// CellState: 0/1, or ages), `list` (optional) gives the live cells of a box sorted by (y, x), and
// `population` (-1: unknown) lets render() choose the sparse path for huge views of few cells.
struct CellReader {
    std::function<void(const Box&, std::uint8_t*)> read;
    std::function<std::vector<Cell>(const Box&)> list;
    std::int64_t population = -1;
};

struct RenderStats {
    std::int64_t cells_read = 0;
    ReadMode mode = ReadMode::none;
    bool tiles_drawn = false;  // the tile overlay was asked for and legible
};

// Views whose box holds more cells than this are read sparsely or sampled; the dense path reads at
// most this many per frame, in strips.
inline constexpr std::int64_t kDenseCells = std::int64_t{64} << 20;
inline constexpr std::int64_t kSparseCells = std::int64_t{16} << 20;

// Draws the window: `pixels` is w x h ARGB32. `readable` is the board (bounded) or the engine's
// extent (unbounded); only boxes inside it are read. Zoomed out, a pixel takes the most prominent
// state of its cells (born, alive, recently died, dead).
RenderStats render(std::vector<std::uint32_t>& pixels, int w, int h, const Camera& cam, const Box& readable,
                   const CellReader& reader, const Overlay& overlay, const Palette& palette);

// Cells on the straight line from a to b (both ends included), for drawing with the mouse.
std::vector<Cell> line_cells(Cell a, Cell b);

// The status line, fitted to a width: fields in display order with a priority (higher stays
// longer). Lays the fields out on at most `lines` lines of at most `width` characters (two spaces
// between fields), dropping the lowest-priority fields until they fit and shortening the last one
// that still does not fit.
struct StatusField {
    std::string text;
    int priority = 0;
};
std::vector<std::string> fit_status(const std::vector<StatusField>& fields, int width, int lines);

}  // namespace tilelife::viewer
