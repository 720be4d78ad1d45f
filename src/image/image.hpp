// PNG and GIF writing for boards and screenshots (libpng, giflib), the colour themes that files and
// the viewer share, and cell ages. Every writer goes through tilelife::OutputFile (a temporary file in
// the target's directory, renamed over the target only when the image is complete), so a failed or
// interrupted write never leaves a partial file (design.md: outputs are atomic).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/geometry.hpp"

namespace tilelife::image {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

// What one cell shows, one byte per cell. Engines give 0 and 1; an AgeTracker turns successive boards
// into the age states (newly born, alive, and a fading trail behind cells that died).
enum CellState : std::uint8_t { kDeadCell = 0, kLiveCell = 1, kBornCell = 2, kDiedCell = 3 };
// Cells stay marked this many steps after they die: state kDiedCell + i means "died i + 1 steps ago".
inline constexpr int kTrailSteps = 4;
inline constexpr int kCellStates = kDiedCell + kTrailSteps;

// A colour theme: the cells' colours (files and the viewer) and the viewer's own chrome.
struct Colors {
    std::string name;
    Rgb dead, live;          // cells without ages
    Rgb born, aged;          // with ages: born at the last step, alive longer
    Rgb died[kTrailSteps];   // with ages: died 1, 2, ... steps ago (fading towards `dead`)
    Rgb outside, border, grid, tile, halo, selection, paste, text, panel;
    // The colour of a CellState (0/1 only without ages; unknown states read as dead).
    Rgb of(std::uint8_t state, bool ages) const;
};
// The themes by name: "print" (black cells on white, the default of board images), "dark" (the
// viewer's default) and "light". InputError naming `what` and listing the names otherwise.
const Colors& theme(std::string_view name, const std::string& what = "theme");
std::vector<std::string> theme_names();

// How board images are drawn: the theme's cell colours, and whether cells are coloured by age (the
// cell source then gives CellState values; GifWriter computes them itself from successive frames).
struct Style {
    Colors colors = theme("print");
    bool ages = false;
};

// Colours of board images (run -o, run --gif, convert) by default: black cells on white, as printed patterns.
inline constexpr Rgb kLive{0, 0, 0};
inline constexpr Rgb kDead{255, 255, 255};

// Board images larger than this need an explicit --region (memory, time and viewer limits).
inline constexpr std::int64_t kMaxSide = 16384;
inline constexpr std::int64_t kMaxPixels = std::int64_t{256} << 20;
// Animated GIFs: GIF's own 16-bit screen size, a frame count and a total-pixel budget.
inline constexpr std::int64_t kMaxGifSide = 16384;
inline constexpr std::int64_t kMaxGifFrames = 10000;
inline constexpr std::int64_t kMaxGifTotalPixels = std::int64_t{1} << 31;

// Checks a board image of `cells` at `scale` pixels per cell against kMaxSide/kMaxPixels; throws
// InputError naming `what` (with the advice to pass --region) otherwise.
void check_image_size(const Box& cells, int scale, const std::string& what);

// Writes an RGB image (3 bytes per pixel, rows top to bottom, `stride` bytes apart) as PNG.
void write_png_rgb(const std::string& path, int width, int height, const std::uint8_t* pixels, std::size_t stride);

// Fills `cells` (one byte per cell, 0 dead) with the cells of `box`, row-major.
using CellSource = std::function<void(const Box& box, std::uint8_t* cells)>;

// Writes the cells of `box` as a PNG with `scale` x `scale` pixels per cell in the style's colours
// (a two-colour palette, or one colour per CellState with `style.ages`), reading the cells a strip
// of rows at a time (bounded memory for large boards). Throws InputError when the image is over the
// size limits, RuntimeError on I/O failure.
void write_board_png(const std::string& path, const Box& box, int scale, const CellSource& source,
                     const Style& style = {});

// The cells of `box` from a list of live cells (those outside the box are ignored).
CellSource cells_from_list(const std::vector<Cell>& live);
// The cells of `box` from an engine; parts of `box` outside the engine's extent read as dead.
CellSource cells_from_engine(const Engine& engine);

// Ages of the cells of a box over successive boards (generations, frames): newly born cells, live
// ones, and a trail of kTrailSteps states behind cells that died. The box may change between calls
// (a moving view): cells new to it count as unchanged since the last step.
class AgeTracker {
public:
    // The next step's cells of `box` (0 dead, else alive), `box.width` bytes per row: states advance.
    void step(const Box& box, const std::uint8_t* cells);
    // The same step seen again (another box, or cells edited by hand): unchanged cells keep their
    // state, changed ones become plainly alive or dead.
    void refresh(const Box& box, const std::uint8_t* cells);
    void clear() { box_ = Box{}, states_.clear(); }
    const Box& box() const { return box_; }
    const std::vector<std::uint8_t>& states() const { return states_; }  // CellState, row-major over box()
    // The states of any box (dead outside box()); valid while the tracker lives and is not updated.
    CellSource source() const;

private:
    void update(const Box& box, const std::uint8_t* cells, bool step);
    Box box_;
    std::vector<std::uint8_t> states_;
};

// Animated GIF of a fixed `box` of cells, looping forever, `delay_cs` hundredths of a second per
// frame (gif_delay_cs converts and checks a user's milliseconds). add_frame() reads the box's cells
// (0/1) from `source`; with `style.ages` each frame is one step of an AgeTracker. finish()
// completes the file; a writer destroyed before leaves nothing behind.
class GifWriter {
public:
    GifWriter(const std::string& path, const Box& box, int scale, int delay_cs, const Style& style = {});
    ~GifWriter();
    void add_frame(const CellSource& source);
    void finish();
    std::int64_t frames() const { return frames_; }

private:
    struct State;
    std::unique_ptr<State> s_;
    Box box_;
    int scale_, delay_cs_;
    bool ages_;
    std::int64_t frames_ = 0;
};

// The GIF frame delay for `milliseconds`: GIF counts hundredths of a second (1..65535), and browsers
// show delays under 20 ms as 100 ms, so 20..655350 ms in steps of 10. InputError naming `what` otherwise.
int gif_delay_cs(std::int64_t milliseconds, const std::string& what);
inline constexpr int kDefaultGifDelayCs = 5;

// Checks an animated GIF of `frames` frames of `box` at `scale` against the GIF limits; throws
// InputError naming `what` otherwise.
void check_gif_size(const Box& box, int scale, std::int64_t frames, const std::string& what);

}  // namespace tilelife::image
