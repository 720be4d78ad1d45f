// tilelife view PATTERN: the SDL2 viewer, on the same board and engine `run` would use.
#include <charconv>
#include <filesystem>

#include "cli/commands.hpp"
#include "tilelife/board_setup.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"
#ifdef TILELIFE_HAVE_VIEWER
#include "viewer/viewer.hpp"
#endif

namespace tilelife::cli {
namespace {

struct ViewArgs {
    std::string pattern, rule, topology, size, max_memory, window = "1024x768", zoom, screenshot;
    std::int64_t frames = 0, speed = 1;
    int fps = 60;
    bool paused = false, tiles = false, grid = false;
    EngineChoice engine;
};

const char* const kControls = R"(
Controls:
  Space        pause / run            N, Right   one generation
  + / -        faster / slower (generations per frame; below 1, a frame-rate cap)
  Mouse wheel  zoom about the cursor  Right/middle drag  pan
  F            fit the pattern (unbounded: and follow its growth)
  Left drag    draw cells             Shift+left drag    erase
  R            random fill of the visible board          C  clear
  T            work-group tile overlay (the OpenCL engine's tile; 16x16 otherwise)
  G            cell grid (zoomed in)  P  screenshot PNG   Ctrl+S  save as RLE
  H, ?         help overlay           Esc, Q  quit
Headless: --frames N --screenshot out.png runs N frames, writes the window and exits.)";

// "8" (pixels per cell) or "1:4" (cells per pixel), powers of two -> log2 of pixels per cell.
int parse_zoom(const std::string& text) {
    const bool inverse = text.rfind("1:", 0) == 0;
    const std::string_view num = inverse ? std::string_view(text).substr(2) : std::string_view(text);
    int v = 0;
    const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec != std::errc() || p != num.data() + num.size() || v < 1 || (v & (v - 1)) != 0 || v > (inverse ? 4096 : 64))
        throw InputError("--zoom '" + text + "' is not a power of two: pixels per cell 1..64, or 1:N cells per pixel up to 1:4096");
    int log = 0;
    while ((1 << log) < v) ++log;
    return inverse ? -log : log;
}

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
    if (a.speed < 1) throw InputError("--speed must be 1 or more generations per frame");
    if (a.fps < 1 || a.fps > 1000) throw InputError("--fps must be from 1 to 1000");
    const auto [ww, wh] = parse_size(a.window, "--window");
    if (ww > 16384 || wh > 16384) throw InputError("--window " + a.window + " is larger than 16384 a side");

    const BoardOverrides ov = board_overrides(a.rule, a.topology, a.size);
    const std::string name = engine_name(a.engine);
    EngineOptions options = engine_options(a.engine);
    const std::int64_t budget = a.max_memory.empty() ? default_memory_budget() : parse_bytes(a.max_memory, "--max-memory");
    viewer::Options vo;
    if (!a.zoom.empty()) {
        vo.zoom_set = true;
        vo.zoom_log = parse_zoom(a.zoom);
    }

    const Pattern pattern = read_pattern(a.pattern, read_limits_for(default_memory_budget()));
    const BoardPlan plan = plan_board(pattern, ov, a.pattern);
    apply_memory_budget(plan.spec, budget, options);
    auto engine = create_engine(name, plan.spec, options);
    engine->set_cells(plan.cells);

    vo.title = "tilelife - " + a.pattern;
    const std::filesystem::path p(a.pattern);
    vo.stem = a.pattern.rfind("random:", 0) == 0 ? std::string("random") : p.stem().string();
    if (vo.stem.size() > 4 && vo.stem.ends_with(".rle")) vo.stem.resize(vo.stem.size() - 4);  // x.rle.gz
    vo.width = static_cast<int>(ww);
    vo.height = static_cast<int>(wh);
    vo.frames = a.frames;
    vo.screenshot = a.screenshot;
    vo.paused = a.paused;
    vo.gens_per_frame = a.speed;
    vo.fps = a.fps;
    vo.tiles = a.tiles;
    vo.grid = a.grid;
    vo.rule_for_output = rule_for_output(plan.spec);
    vo.golly_offset = plan.golly_offset;
    vo.generation0 = pattern.generation;

    // The tile overlay shows the cells one work-group computes, as the engine describes them (the
    // growing board's description follows its inner engine).
    vo.tile_note = "(default: " + engine->name() + " has no work-group tiles)";
    const EngineDescription described = engine->describe();
    if (described.tiles) {
        vo.tile_w = static_cast<int>(std::max<std::int64_t>(1, described.tiles->width));
        vo.tile_h = static_cast<int>(std::max<std::int64_t>(1, described.tiles->height));
        vo.tile_note = "(" + described.tiles->text + ")";
    }
    if (!described.device.empty()) vo.device = described.device;
    if (vo.device.empty() && !a.engine.device.empty()) vo.device = "device " + a.engine.device;

    exit_code = viewer::run(*engine, vo);
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
    cmd->add_option("--max-memory", args->max_memory, "memory budget for the board, e.g. 8G (default: half of RAM)");
    cmd->add_option("--window", args->window, "window size WxH in pixels")->default_val("1024x768");
    cmd->add_option("--zoom", args->zoom, "initial zoom: 1,2,4..64 pixels per cell or 1:2..1:4096 (default: fit the pattern)");
    cmd->add_option("--speed", args->speed, "generations per frame at the start")->default_val(1);
    cmd->add_option("--fps", args->fps, "frame-rate cap")->default_val(60);
    cmd->add_flag("--paused", args->paused, "start paused");
    cmd->add_flag("--tiles", args->tiles, "start with the work-group tile overlay on (T)");
    cmd->add_flag("--grid", args->grid, "start with the cell grid on (G)");
    cmd->add_option("--frames", args->frames, "headless: run N frames, then write --screenshot and exit");
    cmd->add_option("--screenshot", args->screenshot, "headless: PNG of the window after --frames N frames");
    cmd->footer(kControls);
    cmd->callback([args, &exit_code] { view(*args, exit_code); });
}

}  // namespace tilelife::cli
