// tilelife view PATTERN: the SDL2 viewer, on the same board and engine `run` would use.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cli/commands.hpp"
#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"
#ifdef TILELIFE_HAVE_VIEWER
#include "cli/modules.hpp"
#include "image/image.hpp"
#include "viewer/viewer.hpp"  // viewer::Options only: the window is in the viewer module
#endif

namespace tilelife::cli {
namespace {

struct ViewArgs {
    std::string pattern, rule, topology, size, max_memory, window = "1024x768", zoom, screenshot, theme = "dark";
    std::int64_t frames = 0, speed = 1;
    int fps = 60;
    bool paused = false, tiles = false, grid = false, ages = false;
    EngineChoice engine;
};

const char* const kControls = R"(
Keys (Golly's; H in the window lists them all, docs/viewer.md explains them):
  Return  start/stop   Space  next generation   Tab  next step   + / -  step exponent   Shift+H  hyperspeed
  Z / Shift+Z  undo / redo (every edit and every run of generations)   R  reset to the starting pattern
  Arrows  pan   ] / [  zoom   1 2 4 8 6 3  scale 1:1..1:32   F  fit   M  middle   T  auto fit
  Left drag  draw (F2), select (F4) or move (F5); Ctrl+drag selects; right drag pans; wheel zooms
  A select all  K remove selection  5 random fill  Delete / Shift+Delete  clear inside / outside
  Ctrl+C / Ctrl+X / V  copy, cut, paste RLE (system clipboard)   X Y < >  flip and rotate
  L grid  W work-group tiles  B theme  Shift+B colour by age  P screenshot  Ctrl+S save RLE  Q quit
Scales are Golly's: 1:8 is 8 pixels per cell, 8:1 is 8 cells per pixel (before, --zoom 1:8 meant 8 cells per pixel).
Headless: --frames N [--screenshot out.png] runs N frames, writes the window and exits.)";

void view(const ViewArgs& a, int& exit_code) {
#ifndef TILELIFE_HAVE_VIEWER
    (void)a;
    (void)exit_code;
    throw RuntimeError("this build of tilelife has no viewer: SDL2 was not found when it was built "
                       "(install libsdl2-dev libsdl2-ttf-dev and rebuild)");
#else
    if (a.frames < 0) throw InputError("--frames must be 0 or more");
    if (!a.screenshot.empty() && a.frames == 0) throw InputError("--screenshot needs --frames N (headless mode)");
    if (!a.screenshot.empty() && output_format_for(a.screenshot) != OutputFormat::png)
        throw InputError(a.screenshot + ": --screenshot writes PNG (.png)");
    if (a.speed < 1) throw InputError("--speed must be 1 or more generations per step");
    if (a.fps < 1 || a.fps > 1000) throw InputError("--fps must be from 1 to 1000");
    const ViewerModule& module = viewer_module();  // SDL is loaded now, and only for `view`
    const auto [ww, wh] = parse_size(a.window, "--window");
    if (ww > 16384 || wh > 16384) throw InputError("--window " + a.window + " is larger than 16384 a side");
    (void)image::theme(a.theme, "--theme");

    BoardRequest request;
    request.source.name = a.pattern;
    request.overrides = board_overrides(a.rule, a.topology, a.size);
    // The default engine of the board's topology, as run chooses it (cpu:auto on the unbounded plane).
    request.engine = engine_choice(a.engine);
    request.options = engine_options(a.engine);
    const std::int64_t budget = a.max_memory.empty() ? default_memory_budget(request.options.threads) : parse_bytes(a.max_memory, "--max-memory");
    request.options.max_bytes = budget;
    if (!a.max_memory.empty()) name_memory_budget(request.options, budget);
    viewer::Options vo;
    if (!a.zoom.empty()) {
        vo.zoom_log = module.parse_scale(a.zoom);
        if (!vo.zoom_log)
            throw InputError("--zoom '" + a.zoom + "' is not a scale in Golly's notation: 1:1 .. 1:64 pixels per cell "
                             "(1:8 is 8 pixels per cell), or 2:1 .. 4096:1 cells per pixel");
    }

    // The budget covers the pattern as read, the board, and the viewer's undo history. A macrocell
    // tree goes to a tree engine whole, as for run.
    LoadedBoard board = load_board(request);
    Engine& engine = *board.engine;
    const BoardPlan& plan = board.plan;

    vo.title = "tilelife - " + a.pattern;
    const std::filesystem::path p(a.pattern);
    vo.stem = a.pattern.rfind("random:", 0) == 0 ? std::string("random") : p.stem().string();
    if (vo.stem.size() > 4 && vo.stem.ends_with(".rle")) vo.stem.resize(vo.stem.size() - 4);  // x.rle.gz
    vo.width = static_cast<int>(ww);
    vo.height = static_cast<int>(wh);
    vo.frames = a.frames;
    // libwayland finds its socket in XDG_RUNTIME_DIR unless WAYLAND_DISPLAY is a path; without either,
    // SDL's Wayland driver cannot connect and libwayland prints a line of its own before our error.
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    if (!(wayland && wayland[0] == '/') && !(runtime && *runtime)) vo.skip_video_drivers = {"wayland"};
    vo.screenshot = a.screenshot;
    vo.paused = a.paused;
    vo.step = a.speed;
    vo.fps = a.fps;
    vo.tiles = a.tiles;
    vo.grid = a.grid;
    vo.theme = a.theme;
    vo.ages = a.ages;
    vo.golly_offset = plan.golly_offset;
    vo.meta = board.meta;
    vo.generation0 = board.meta.generation;
    // Undo history: a quarter of the budget, at most 1 GiB.
    vo.history_bytes = std::min<std::int64_t>(budget / 4, std::int64_t{1} << 30);

    std::string no_display;
    const std::optional<int> code = module.run(engine, vo, no_display);
    if (!code)
        throw RuntimeError(no_display +
                           "; run it on a desktop or under xvfb-run, or headless with --frames N [--screenshot out.png]");
    exit_code = *code;
#endif
}

}  // namespace

void add_view(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<ViewArgs>();
    CLI::App* cmd = app.add_subcommand("view", "open a pattern in a window: watch it run, draw, zoom, pan, save");
    cmd->add_option("pattern", args->pattern, "pattern file (any readable format) or random:WxH[:density[:seed]]")
        ->required();
    cmd->add_option("-r,--rule", args->rule, "rule, e.g. B3/S23, B36/S23:T512,512 (overrides the file)");
    cmd->add_option("-t,--topology", args->topology, "unbounded, torus or plane (default: the rule's suffix, else unbounded)");
    cmd->add_option("-s,--size", args->size, "board size WxH for torus/plane (default: the suffix's, else the pattern's)");
    add_engine_options(*cmd, args->engine);
    cmd->add_option("--max-memory", args->max_memory, "memory budget for the board, e.g. 8G (default: half of the least of RAM, ulimit -v/-d and the cgroup limit); "
                   "given, HashLife's store may grow to it before it only collects (bgolly -M)");
    cmd->add_option("--window", args->window, "window size WxH in pixels")->default_val("1024x768");
    cmd->add_option("--zoom", args->zoom,
                    "initial scale in Golly's notation: 1:8 is 8 pixels per cell (1:1..1:64), 4:1 is 4 cells per "
                    "pixel (up to 4096:1); default: fit the pattern");
    cmd->add_option("--speed", args->speed, "generations a step at the start (each frame runs a step)")->default_val(1);
    cmd->add_option("--fps", args->fps, "frame-rate cap")->default_val(60);
    cmd->add_flag("--paused", args->paused, "start paused");
    cmd->add_flag("--tiles", args->tiles, "start with the work-group tile overlay on (W)");
    cmd->add_flag("--grid", args->grid, "start with the cell grid on (L)");
    cmd->add_option("--theme", args->theme, "colours: dark or light (B switches)")->default_val("dark");
    cmd->add_flag("--ages", args->ages, "colour cells by age: newly born, alive, recently died (Shift+B)");
    cmd->add_option("--frames", args->frames, "headless: run N frames, then write --screenshot and exit");
    cmd->add_option("--screenshot", args->screenshot, "headless: PNG of the window after --frames N frames");
    cmd->footer(kControls);
    cmd->callback([args, &exit_code] { view(*args, exit_code); });
}

}  // namespace tilelife::cli
