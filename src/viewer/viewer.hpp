// The interactive SDL2 window of `tilelife view`: runs an engine, draws the visible cells through one
// streaming texture per frame, and lets the user edit, select, copy and paste with undo (session.hpp
// holds the state and the keys; this is the window around it).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::viewer {

struct Options {
    std::string title = "tilelife";   // window title prefix (the pattern)
    std::string stem = "tilelife";    // file-name stem of screenshots and saved patterns
    int width = 1024, height = 768;   // window size in pixels
    // Headless use: run this many frames, write `screenshot` (if set) and exit. 0 = interactive, which
    // needs a real display (SDL's offscreen and dummy drivers are refused: the window would be invisible).
    std::int64_t frames = 0;
    std::string screenshot;
    bool paused = false;
    std::int64_t step = 1;            // generations a step at the start (Golly's step, 2^exponent)
    int fps = 60;                     // frame-rate cap (interactive only)
    std::optional<int> zoom_log;      // initial scale, log2 pixels per cell (default: fit the pattern)
    bool tiles = false, grid = false;
    std::string theme = "dark";       // image::theme() name
    bool ages = false;                // colour cells by age
    Cell golly_offset;                // engine -> Golly coordinates (status line, saved files)
    std::int64_t generation0 = 0;     // the pattern file's generation
    PatternMeta meta;                 // name, authors, comments for saved files (rule and generation: the board's)
    // Undo history limit in bytes (live-cell lists of edits and of boards before generating); the
    // oldest entries go first. 0: no undo.
    std::int64_t history_bytes = std::int64_t{256} << 20;
    // Wall time for generations per frame: longer steps are spread over frames so the window stays
    // responsive. 0: every frame runs its whole step (headless runs and tests).
    double frame_budget_ms = 0;
    // SDL video drivers not to try (the caller knows they cannot connect; trying one may print to
    // stderr, as libwayland does without XDG_RUNTIME_DIR). Ignored when SDL's video driver is set.
    std::vector<std::string> skip_video_drivers;
};

// Opens the window and runs until the user quits (or `frames` frames). Returns the exit code.
// Throws RuntimeError when no window can be opened (no display).
int run(Engine& engine, const Options& options);

}  // namespace tilelife::viewer
