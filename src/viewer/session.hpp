// The viewer's state and event handling, apart from the window: a Viewer takes SDL events (real or
// synthesised by tests), edits and runs the engine, keeps the undo history, and draws into a pixel
// buffer; the SDL window (viewer.cpp) is a thin shell around it. Keys follow Golly's defaults, and
// LifeViewer's where Golly has none (docs/viewer.md lists them).
#pragma once
#include <SDL.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "image/image.hpp"
#include "tilelife/board.hpp"
#include "tilelife/engine.hpp"
#include "viewer/view.hpp"
#include "viewer/viewer.hpp"

namespace tilelife::viewer {

enum class Mode { draw, select, move };
enum class PasteMode { orr, copy, xorr };  // Golly's Or (the default), Copy, Xor
enum class PasteAt { top_left, top_right, bottom_right, bottom_left, middle };

// The live cells of a board at a generation (for undoing generations and resets).
struct Snapshot {
    std::vector<Cell> live;  // sorted by (y, x)
    std::int64_t generation = 0;
};

// One undoable change: cells that were born and died (edits), or whole boards (generating, reset).
struct Change {
    std::string what;
    std::vector<Cell> born, died;                  // sorted by (y, x)
    std::optional<Snapshot> before, after;         // after: taken when the change is undone
    std::optional<Box> selection_before, selection_after;
    std::int64_t bytes() const;
};

class Viewer {
public:
    // `width` x `height`: the board area in pixels (the window less the status bar).
    Viewer(Engine& engine, const Options& options, int width, int height);

    // One event. Mouse coordinates are window coordinates; resize() gives their scale.
    void handle(const SDL_Event& event);
    // One frame's worth of time: runs generations when generating or a step is pending, follows the
    // pattern (auto fit). Throws what the engine throws only in headless mode (Options::frames > 0);
    // interactively an engine error stops generating and shows the message.
    void frame();
    // The board area changed to w x h pixels; (sx, sy): pixels per window coordinate (HiDPI).
    void resize(int w, int h, double sx = 1, double sy = 1);

    // Draws the board area (width() x height() ARGB32).
    RenderStats render(std::vector<std::uint32_t>& pixels);
    // The status line fitted to `chars` characters a line on at most `lines` lines.
    std::vector<std::string> status(int chars, int lines) const;
    // The help overlay: (keys, action) rows.
    static const std::vector<std::pair<std::string, std::string>>& keys();

    // State, for the shell and for tests.
    Engine& engine() { return engine_; }
    const Camera& camera() const { return cam_; }
    int width() const { return w_; }
    int height() const { return h_; }
    std::int64_t generation() const;  // the pattern's generation (the file's plus those run here)
    bool generating() const { return running_; }
    std::int64_t step_size() const { return step_size_; }
    int step_exponent() const;        // log2 of the step size, or -(delay level) when slowed down
    bool hyperspeed() const { return hyper_; }
    bool auto_fit() const { return autofit_; }
    Mode mode() const { return mode_; }
    const std::optional<Box>& selection() const { return selection_; }
    bool pasting() const { return paste_.has_value(); }
    const std::vector<Cell>& paste_cells() const;  // the paste pattern at its current place (engine coordinates)
    Box paste_box() const;
    PasteMode paste_mode() const { return paste_mode_; }
    PasteAt paste_at() const { return paste_at_; }
    std::optional<Cell> cursor() const { return cursor_; }  // the cell under the mouse (engine coordinates)
    std::size_t undo_depth() const { return undo_.size(); }
    std::size_t redo_depth() const { return redo_.size(); }
    std::int64_t history_bytes() const { return history_bytes_; }
    const std::string& theme() const { return theme_; }
    bool ages() const { return ages_; }
    bool tiles() const { return tiles_; }
    bool grid() const { return grid_; }
    bool help() const { return help_; }
    bool quit() const { return quit_; }
    const std::string& message() const { return message_; }
    const image::Colors& colors() const;
    // A screenshot was asked for (P); the shell takes it and reports back through show().
    bool take_screenshot_request() { return std::exchange(screenshot_, false); }
    void show(std::string message);
    std::string filename(const char* ext) const;  // STEM-genG.ext

    // The board's spec (from the engine) and Golly offset, as board_setup's writers take them.
    BoardPlan plan() const;
    // Engine coordinates -> Golly's (what the status line, RLE files and the clipboard use).
    Cell to_golly(Cell c) const { return Cell{c.x + o_.golly_offset.x, c.y + o_.golly_offset.y}; }

private:
    void key(const SDL_Keysym& k);
    void text(const char* text);
    void mouse_down(const SDL_MouseButtonEvent& b);
    void mouse_up(const SDL_MouseButtonEvent& b);
    void mouse_move(const SDL_MouseMotionEvent& m);
    void wheel(const SDL_MouseWheelEvent& w);
    Cell cell_under(int x, int y) const;

    // Generating.
    void start_stop();
    void stop();
    void request(std::int64_t generations, const char* what);
    void run_pending();
    void faster();
    void slower();
    void commit_run();  // the generations run since the last history entry become one entry

    // Editing; every edit is one history entry.
    void begin_edit();
    void push(Change c);
    void apply(const std::vector<Cell>& born, const std::vector<Cell>& died);
    void edit(const std::string& what, std::vector<Cell> born, std::vector<Cell> died,
              std::optional<Box> selection_after = std::nullopt, bool change_selection = false);
    void undo();
    void redo();
    void reset();
    Snapshot snapshot() const;
    void restore(const Snapshot& s);
    void stroke_to(Cell c);
    void end_stroke();
    void random_fill();
    void clear(bool outside);
    void copy(bool cut);
    void paste();
    void place_paste();
    void transform(int kind);  // 0 flip left-right, 1 flip top-bottom, 2 rotate clockwise, 3 anticlockwise
    void select_all();
    void shrink_selection();
    bool on_board(Cell c) const { return !bounded_ || board_.contains(c); }
    std::vector<Cell> live_in(const Box& box) const;

    // View.
    void fit_pattern();
    void fit_box(const Box& b);
    void follow();
    void zoom_centre(int steps);
    void set_scale(int log);
    void pan(int dx, int dy);
    void manual_view();  // the user moved the view: auto fit ends (Golly)
    Box live_bounds() const;
    void refresh_tiles();

    std::vector<StatusField> status_fields() const;

    using Clock = std::chrono::steady_clock;
    Engine& engine_;
    Options o_;
    int w_, h_;
    double sx_ = 1, sy_ = 1;
    Camera cam_;
    bool bounded_;
    Box board_;
    std::int64_t gen_offset_;  // generation() - engine_.generation()

    // Generating: Golly's step (2^exponent generations a step) or, below 1, a delay in frames.
    bool running_ = false, hyper_ = false, autofit_ = false;
    std::int64_t step_size_ = 1;
    int delay_ = 0;                   // one generation every 2^delay_ frames
    std::int64_t pending_ = 0;        // generations of the current step still to run
    std::int64_t chunk_ = 1;          // generations per engine call (grows while calls stay quick)
    std::int64_t frame_no_ = 0, steps_at_size_ = 0;
    std::optional<Snapshot> run_start_;  // the board before the generations not yet in the history

    // Editing.
    Mode mode_ = Mode::draw;
    enum class Drag { none, draw, erase, select, pan } drag_ = Drag::none;
    Cell drag_from_, last_;
    bool drag_moved_ = false;
    std::vector<Cell> stroke_born_, stroke_died_;  // the stroke so far
    std::optional<Box> selection_;
    std::optional<Cell> cursor_;
    struct Paste {
        std::vector<Cell> cells;  // relative to (0, 0), inside (0, 0, w, h)
        std::int64_t w = 0, h = 0;
    };
    std::optional<Paste> paste_;
    mutable std::vector<Cell> paste_placed_;
    PasteMode paste_mode_ = PasteMode::orr;
    PasteAt paste_at_ = PasteAt::top_left;
    std::deque<Change> undo_;
    std::vector<Change> redo_;
    std::int64_t history_bytes_ = 0;
    std::optional<Snapshot> start_;
    std::mt19937_64 rng_{20240601};

    // Looks.
    std::string theme_;
    std::string device_;  // the engine's device (describe()), for the status line
    bool ages_ = false, tiles_ = false, grid_ = false, help_ = false;
    image::AgeTracker age_;
    std::int64_t age_generation_ = -1;
    std::vector<std::uint8_t> cells_;
    std::optional<TileGeometry> tile_geometry_;
    Box tiles_for_extent_{0, 0, -1, -1};
    bool tiles_known_ = false;
    RenderStats last_render_;

    bool quit_ = false, screenshot_ = false;
    std::string message_;
    Clock::time_point message_until_{}, last_follow_{};
    struct Sample {
        Clock::time_point t;
        std::int64_t generation;
        double cell_updates;
    };
    std::deque<Sample> rate_;
};

}  // namespace tilelife::viewer
