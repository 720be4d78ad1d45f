// PNG and GIF writing for boards and screenshots (libpng, giflib). Every writer goes to a temporary
// file in the target's directory and renames it over the target only when the image is complete, so
// a failed or interrupted write never leaves a partial file (design.md: outputs are atomic).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/geometry.hpp"

namespace tilelife::image {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

// Colours of board images (run -o, run --gif, convert): black cells on white, as printed patterns.
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

// Temp file next to `path`, renamed over it by commit(); removed if commit() was never reached.
class AtomicFile {
public:
    explicit AtomicFile(const std::string& path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    int fd() const { return fd_; }
    // Hands the descriptor to the caller (who closes it, e.g. through fclose).
    int take_fd() { return std::exchange(fd_, -1); }
    const std::string& temp_path() const { return temp_; }
    // Closes the descriptor if still open (`already_closed`: a library closed it) and renames.
    void commit(bool already_closed = false);

private:
    std::string path_, temp_;
    int fd_ = -1;
    bool done_ = false;
};

// Writes an RGB image (3 bytes per pixel, rows top to bottom, `stride` bytes apart) as PNG.
void write_png_rgb(const std::string& path, int width, int height, const std::uint8_t* pixels, std::size_t stride);

// Fills `cells` (one byte per cell, 0 dead) with the cells of `box`, row-major.
using CellSource = std::function<void(const Box& box, std::uint8_t* cells)>;

// Writes the cells of `box` as a two-colour PNG with `scale` x `scale` pixels per cell, reading the
// cells a strip of rows at a time (bounded memory for large boards). Throws InputError when the
// image is over the size limits, RuntimeError on I/O failure.
void write_board_png(const std::string& path, const Box& box, int scale, const CellSource& source,
                     Rgb live = kLive, Rgb dead = kDead);

// The cells of `box` from a list of live cells (those outside the box are ignored).
CellSource cells_from_list(const std::vector<Cell>& live);
// The cells of `box` from an engine; parts of `box` outside the engine's extent read as dead.
CellSource cells_from_engine(const Engine& engine);

// Animated two-colour GIF of a fixed `box` of cells, looping forever, `delay_cs` hundredths of a
// second per frame. add_frame() reads the box's cells from `source`; finish() completes the file.
class GifWriter {
public:
    GifWriter(const std::string& path, const Box& box, int scale, int delay_cs, Rgb live = kLive, Rgb dead = kDead);
    ~GifWriter();
    void add_frame(const CellSource& source);
    void finish();
    std::int64_t frames() const { return frames_; }

private:
    struct State;
    std::unique_ptr<State> s_;
    Box box_;
    int scale_, delay_cs_;
    std::int64_t frames_ = 0;
};

// Checks an animated GIF of `frames` frames of `box` at `scale` against the GIF limits; throws
// InputError naming `what` otherwise.
void check_gif_size(const Box& box, int scale, std::int64_t frames, const std::string& what);

}  // namespace tilelife::image
