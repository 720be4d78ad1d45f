// The interactive SDL2 window of `tilelife view`: runs an engine, draws the visible cells through one
// streaming texture per frame, and lets the user draw, zoom, pan and save.
#pragma once
#include <cstdint>
#include <string>

#include "tilelife/engine.hpp"

namespace tilelife::viewer {

struct Options {
    std::string title = "tilelife";   // window title prefix (the pattern)
    std::string stem = "tilelife";    // file-name stem of screenshots and saved patterns
    int width = 1024, height = 768;   // window size in pixels
    // Headless use: run this many frames, write `screenshot` (if set) and exit. 0 = interactive.
    std::int64_t frames = 0;
    std::string screenshot;
    bool paused = false;
    std::int64_t gens_per_frame = 1;
    int fps = 60;                     // frame-rate cap (interactive only)
    bool zoom_set = false;            // --zoom given: centre the pattern at 2^zoom_log px per cell
    int zoom_log = 0;
    bool tiles = false, grid = false;
    int tile_w = 16, tile_h = 16;
    std::string tile_note;            // where the tile size came from, shown in the status line
    std::string device;               // device name for the status line (empty: unknown/none)
    std::string rule_for_output;      // rule text for saved RLE (with the :T/:P suffix)
    Cell golly_offset;                // engine -> file coordinates for saved RLE
    std::int64_t generation0 = 0;     // the pattern file's generation
};

// Opens the window and runs until the user quits (or `frames` frames). Returns the exit code.
// Throws RuntimeError when no window can be opened.
int run(Engine& engine, const Options& options);

}  // namespace tilelife::viewer
