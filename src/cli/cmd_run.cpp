// tilelife run: load a pattern, run it on an engine, report, optionally write the result.
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cmath>
#include <chrono>
#include <csignal>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <type_traits>
#include <variant>

#include "cli/commands.hpp"
#include "cli/mpi_session.hpp"
#include "image/image.hpp"
#include "tilelife/board_setup.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {
namespace {

struct RunArgs {
    std::string pattern;
    std::int64_t gens = 100;
    std::string rule, topology, size, output, max_memory;
    std::string region, gif;  // images: -o x.png / --gif x.gif over --region at --scale
    int scale = 1;
    std::int64_t every = 0;          // --every: GIF frames and checkpoints; 0 = each one's default
    std::string checkpoint, resume;  // --checkpoint FILE.rle, --resume FILE.rle
    bool gens_given = false;
    bool json = false, quiet = false;
    EngineChoice engine;
};

using Clock = std::chrono::steady_clock;

// "x,y,w,h" with w, h >= 1.
Box parse_region(const std::string& text) {
    std::int64_t v[4];
    std::string_view rest = text;
    for (int i = 0; i < 4; ++i) {
        const auto comma = i < 3 ? rest.find(',') : rest.size();
        const std::string_view part = rest.substr(0, comma);
        const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v[i]);
        if (comma == std::string_view::npos || part.empty() || ec != std::errc() || p != part.data() + part.size() ||
            (i >= 2 && v[i] < 1) || v[i] > 4000000000LL || v[i] < -4000000000LL)
            throw InputError("--region '" + text + "' is not x,y,w,h (whole numbers, w and h at least 1)");
        rest = i < 3 ? rest.substr(comma + 1) : std::string_view();
    }
    return Box{v[0], v[1], v[2], v[3]};
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Progress on stderr (gens done, rate, ETA), only on a terminal and only once a run has taken a second.
class Progress {
public:
    Progress(bool enabled, std::int64_t total) : enabled_(enabled && isatty(STDERR_FILENO)), total_(total) {}
    void update(std::int64_t done, double elapsed) {
        if (!enabled_ || elapsed < 1.0) return;
        shown_ = true;
        const double rate = done / elapsed;
        const double eta = rate > 0 ? (total_ - done) / rate : 0;
        const int width = 30, filled = static_cast<int>(width * done / std::max<std::int64_t>(total_, 1));
        std::fprintf(stderr, "\r[%s%s] %" PRId64 "/%" PRId64 " gens  %.1f gens/s  ETA %.0fs   ",
                     std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), done, total_, rate,
                     eta);
        std::fflush(stderr);
    }
    ~Progress() {
        if (shown_) std::fprintf(stderr, "\r%*s\r", 80, "");
    }

private:
    bool enabled_;
    std::int64_t total_;
    bool shown_ = false;
};

std::string human_rate(double r) {
    char buf[64];
    if (r >= 1e12) std::snprintf(buf, sizeof buf, "%.2f T", r / 1e12);
    else if (r >= 1e9) std::snprintf(buf, sizeof buf, "%.2f G", r / 1e9);
    else if (r >= 1e6) std::snprintf(buf, sizeof buf, "%.2f M", r / 1e6);
    else std::snprintf(buf, sizeof buf, "%.0f ", r);
    return buf;
}

// Ctrl+C asks the run to stop after the step in progress (checked between chunks of steps); engines
// that take long single steps (cpu:hashlife) also poll g_stop (EngineOptions::interrupt).
volatile std::sig_atomic_t g_interrupted = 0;
std::atomic<bool> g_stop{false};  // lock-free, so safe to set from the handler
extern "C" void on_interrupt(int) {
    g_interrupted = 1;
    g_stop.store(true, std::memory_order_relaxed);
}

// A checkpoint is an RLE file (rule with its :T/:P suffix, #CXRLE Pos and Gen) plus one comment line
// saying which run it belongs to, so `--resume FILE` alone continues to the same final generation.
constexpr std::string_view kCheckpointTag = "tilelife-checkpoint";

struct CheckpointRun {
    std::int64_t start = 0;  // generation the original run started from
    std::int64_t gens = 0;   // generations the original run was asked for
};

std::optional<CheckpointRun> checkpoint_run(const Pattern& p) {
    for (const std::string& c : p.comments) {
        long long start = 0, gens = 0;
        if (c.rfind(kCheckpointTag, 0) == 0 &&
            std::sscanf(c.c_str() + kCheckpointTag.size(), " start=%lld gens=%lld", &start, &gens) == 2)
            return CheckpointRun{start, gens};
    }
    return std::nullopt;
}

// The engine's describe() properties as one JSON object (HashLife: nodes, collections, bytes, ...).
std::string properties_json(const EngineDescription& d) {
    std::string out = "{";
    for (const auto& [key, value] : d.properties) {
        if (out.size() > 1) out += ',';
        out += json_string(key) + ':';
        std::visit(
            [&](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, bool>) out += v ? "true" : "false";
                else if constexpr (std::is_same_v<V, std::string>) out += json_string(v);
                else if constexpr (std::is_same_v<V, double>) out += std::isfinite(v) ? std::to_string(v) : "null";
                else out += std::to_string(v);
            },
            value);
    }
    return out + "}";
}

// " (ran cpu:hashlife)" for engines that run another (cpu:auto), else "".
std::string ran_on(const Engine& e) {
    for (const auto& [key, value] : e.describe().properties)
        if (key == "running" && std::holds_alternative<std::string>(value)) return " (ran " + std::get<std::string>(value) + ")";
    return {};
}

void run(RunArgs a, int& exit_code) {
    if (a.pattern.empty() == a.resume.empty())
        throw InputError(a.resume.empty() ? "run needs a PATTERN (or --resume CHECKPOINT)"
                                          : "give either a PATTERN or --resume CHECKPOINT, not both");
    if (!a.checkpoint.empty() && output_format_for(a.checkpoint) != OutputFormat::rle)
        throw InputError(a.checkpoint + ": a checkpoint is written as RLE; name it *.rle");
    const std::int64_t gif_every = a.every > 0 ? a.every : 1;
    const std::int64_t checkpoint_every = a.every > 0 ? a.every : 1000;
    if (!a.gens_given) a.gens = 100;
    // Check everything about the output before any work, so bad input never costs a long run.
    std::optional<OutputFormat> out_format;
    if (!a.output.empty()) {
        out_format = output_format_for(a.output);
#ifndef TILELIFE_HAVE_PNG
        if (*out_format == OutputFormat::png)
            throw InputError(a.output + ": PNG output is not available in this build (install libpng-dev and rebuild)");
#endif
    }
    if (!a.gif.empty()) {
#ifndef TILELIFE_HAVE_GIF
        throw InputError(a.gif + ": GIF output is not available in this build (install libgif-dev and rebuild)");
#endif
        if (!a.gif.ends_with(".gif") && !a.gif.ends_with(".GIF")) throw InputError(a.gif + ": --gif writes a .gif file");
    }
    if (a.scale < 1 || a.scale > 64) throw InputError("--scale must be from 1 to 64 pixels per cell");
    std::optional<Box> region;
    if (!a.region.empty()) region = parse_region(a.region);
    if (a.gens < 0) throw InputError("--gens must be 0 or more");
    if (a.every < 0) throw InputError("--every must be 1 or more generations");
    const BoardOverrides ov = board_overrides(a.rule, a.topology, a.size);
    std::string name = engine_name(a.engine);  // refuses an unknown backend or kernel now
    EngineOptions options = engine_options(a.engine);
    const std::int64_t budget = a.max_memory.empty() ? default_memory_budget() : parse_bytes(a.max_memory, "--max-memory");

    const std::string source = a.resume.empty() ? a.pattern : a.resume;
    // A macrocell file's tree is read as it is; its cells are listed below only for engines that
    // need them (cpu:hashlife and cpu:auto take the tree on the unbounded plane).
    ReadLimits limits = read_limits_for(budget);
    limits.list_tree_cells = false;
    Pattern pattern = read_pattern(source, limits);
    {
        // Without --kernel, the backend's default for the board's topology (cpu:auto when unbounded).
        const Topology topology = plan_board(pattern, std::vector<Cell>{}, ov, source).spec.topology;
        if (a.engine.kernel.empty())
            if (std::string d = default_engine(a.engine.backend, topology); !d.empty()) name = std::move(d);
        const auto chosen = find_engine(name);
        const bool takes_tree = chosen && chosen->native_unbounded && topology == Topology::unbounded;
        if (pattern.tree && pattern.tree->root() != 0 && pattern.cells.empty() && !takes_tree) {
            if (pattern.tree->population() > static_cast<CellCount>(limits.max_cells))
                throw InputError(source + ": more than " + std::to_string(limits.max_cells) + " live cells (limit for " +
                                 name + "; cpu:hashlife runs such trees on the unbounded plane)");
            pattern.cells = pattern.tree->cells();
        }
    }
    const auto info = find_engine(name);
    // What this run belongs to: a fresh run starts at the file's generation; a resumed one keeps
    // the original run's start and length (--gens on the resume command changes the length).
    CheckpointRun job{pattern.generation, a.gens};
    if (!a.resume.empty()) {
        const auto saved = checkpoint_run(pattern);
        if (!saved) throw InputError(a.resume + ": not a tilelife checkpoint (no '#C " + std::string(kCheckpointTag) + "' line)");
        job = *saved;
        if (a.gens_given) job.gens = a.gens;
        a.gens = job.start + job.gens - pattern.generation;
        if (a.gens < 0)
            throw InputError(a.resume + ": the checkpoint is at generation " + std::to_string(pattern.generation) +
                             ", past the run's end at " + std::to_string(job.start + job.gens));
        a.pattern = a.resume;
    }
    const std::string cells_at_start =
        pattern.tree && pattern.cells.empty() ? to_string_count(pattern.tree->population()) : std::to_string(pattern.cells.size());
    const BoardPlan plan = plan_board(pattern, std::move(pattern.cells), ov, source);
    apply_memory_budget(plan.spec, budget, options);

    // Image areas are known before running except for unbounded runs without --region (their
    // extent is known only at the end); everything checkable is checked now.
    const bool bounded = plan.spec.topology != Topology::unbounded;
    const Box board{0, 0, plan.spec.width, plan.spec.height};
    if (region && bounded && !(region->x >= 0 && region->y >= 0 && region->right() <= board.width &&
                               region->bottom() <= board.height))
        throw InputError("--region " + a.region + " is not inside the " + std::to_string(board.width) + "x" +
                         std::to_string(board.height) + " board (board cells are 0.." +
                         std::to_string(board.width - 1) + ", 0.." + std::to_string(board.height - 1) + ")");
    const std::optional<Box> image_box = region ? region : bounded ? std::optional<Box>(board) : std::nullopt;
    const bool png_out = out_format && *out_format == OutputFormat::png;
    if (png_out && image_box) image::check_image_size(*image_box, a.scale, a.output);
    const std::int64_t gif_frames = a.gens / gif_every + 1;
    if (!a.gif.empty()) image::check_gif_size(image_box ? *image_box : Box{0, 0, 1, 1}, a.scale, gif_frames, a.gif);

    options.interrupt = &g_stop;
    auto engine = create_run_engine(name, plan.spec, options);  // across the ranks under mpirun
    try {
        if (pattern.tree && plan.cells.empty()) {
            if (!set_quadtree(*engine, *pattern.tree)) engine->set_cells(pattern.tree->cells());
        } else {
            engine->set_cells(plan.cells);
        }
    } catch (const InputError& e) {
        throw InputError(source + ": " + e.what());  // e.g. cells beyond the plane cpu:hashlife runs
    }

    // GIF frames go straight to the file when the area is fixed; an unbounded run without --region
    // keeps each frame's live cells (up to a limit) and writes them over their common bounding box.
#ifdef TILELIFE_HAVE_GIF
    std::unique_ptr<image::GifWriter> gif;
#endif
    std::vector<std::vector<Cell>> kept_frames;
    std::int64_t kept_cells = 0;
    constexpr std::int64_t kMaxKeptCells = std::int64_t{32} << 20;
    double image_seconds = 0;
    auto gif_frame = [&] {
        const auto f0 = Clock::now();
#ifdef TILELIFE_HAVE_GIF
        if (gif) {
            gif->add_frame(image::cells_from_engine(*engine));
            image_seconds += seconds_since(f0);
            return;
        }
#endif
        {
            kept_frames.push_back(engine->live_cells());
            kept_cells += static_cast<std::int64_t>(kept_frames.back().size());
            if (kept_cells > kMaxKeptCells)
                throw InputError(a.gif + ": the frames of this unbounded run hold over " +
                                 std::to_string(kMaxKeptCells >> 20) + " Mi live cells in all; give --region x,y,w,h");
        }
        image_seconds += seconds_since(f0);
    };
#ifdef TILELIFE_HAVE_GIF
    if (!a.gif.empty() && image_box) gif = std::make_unique<image::GifWriter>(a.gif, *image_box, a.scale, 5);
#endif
    if (!a.gif.empty()) gif_frame();
    std::int64_t next_frame = gif_every;
    std::int64_t next_checkpoint = checkpoint_every;
    auto save_checkpoint = [&] {
        std::vector<Cell> cells = engine->live_cells();
        for (Cell& c : cells) c = Cell{c.x + plan.golly_offset.x, c.y + plan.golly_offset.y};
        std::string text = format_rle(cells, rule_for_output(plan.spec), pattern.generation + engine->generation());
        // The run's identity goes after the #CXRLE line, before the header (where Golly keeps comments).
        const std::string tag = "#C " + std::string(kCheckpointTag) + " start=" + std::to_string(job.start) +
                                " gens=" + std::to_string(job.gens) + "\n";
        text.insert(text.rfind("#CXRLE", 0) == 0 ? text.find('\n') + 1 : 0, tag);
        write_file_atomic(a.checkpoint, text);
    };
    g_interrupted = 0;
    g_stop = false;
    auto previous_handler = std::signal(SIGINT, on_interrupt);
    struct RestoreHandler {
        decltype(previous_handler) h;
        ~RestoreHandler() { std::signal(SIGINT, h); }
    } restore{previous_handler};

    // Step in chunks that grow until each takes ~0.2 s: cheap bookkeeping, a live progress bar,
    // and cell-updates counted on the board actually computed (it changes size when unbounded).
    Progress progress(!a.quiet && !a.json, a.gens);
    const auto t0 = Clock::now();
    double cell_updates = 0;
    // Tree engines (cpu:hashlife, cpu:auto) pay for every distinct step size, so they take the run
    // in one step (GIF frames and checkpoints still cut it), interruptible through g_stop.
    std::int64_t done = 0, chunk = info && info->native_unbounded ? std::max<std::int64_t>(a.gens, 1) : 1;
    while (done < a.gens) {
        std::int64_t n = std::min(chunk, a.gens - done);
        if (!a.gif.empty()) n = std::min(n, next_frame - done);
        if (!a.checkpoint.empty()) n = std::min(n, next_checkpoint - done);
        const auto c0 = Clock::now();
        try {
            engine->step(n);
        } catch (const InputError& e) {
            throw InputError(source + ": " + e.what());  // a run that leaves the plane cpu:hashlife runs
        }
        const Box e = engine->extent();
        cell_updates += static_cast<double>(n) * static_cast<double>(e.width) * static_cast<double>(e.height);
        done += n;
        if (seconds_since(c0) < 0.2) chunk *= 2;
        if (!a.gif.empty() && done == next_frame) {
            gif_frame();
            next_frame += gif_every;
        }
        if (!a.checkpoint.empty() && done == next_checkpoint) {
            save_checkpoint();
            next_checkpoint += checkpoint_every;
        }
        progress.update(done, seconds_since(t0));
        if (g_interrupted) break;
    }
    if (g_interrupted) {
        // Stopped cleanly between steps: save where we are if asked, write no partial outputs.
        const std::int64_t at = pattern.generation + engine->generation();
        if (!a.checkpoint.empty()) save_checkpoint();
        std::fprintf(stderr, "tilelife: interrupted at generation %" PRId64 "%s\n", at,
                     a.checkpoint.empty() ? "; no output written"
                                          : ("; checkpoint in " + a.checkpoint + " (continue with --resume)").c_str());
        exit_code = 130;
        return;
    }
    const std::int64_t population = engine->population();
    const double secs = seconds_since(t0) - image_seconds;
    const double rate = secs > 0 ? cell_updates / secs : 0;

    if (!a.gif.empty()) {
#ifdef TILELIFE_HAVE_GIF
        if (!gif) {
            Box all;
            for (const auto& f : kept_frames) all = unite(all, bounding_box(f));
            if (all.empty()) all = Box{0, 0, 1, 1};
            image::check_gif_size(all, a.scale, static_cast<std::int64_t>(kept_frames.size()), a.gif);
            gif = std::make_unique<image::GifWriter>(a.gif, all, a.scale, 5);
            for (const auto& f : kept_frames) gif->add_frame(image::cells_from_list(f));
        }
        gif->finish();
#endif
    }
    if (png_out) {
#ifdef TILELIFE_HAVE_PNG
        if (image_box) {
            image::write_board_png(a.output, *image_box, a.scale, image::cells_from_engine(*engine));
        } else {
            const std::vector<Cell> live = engine->live_cells();
            Box all = bounding_box(live);
            if (all.empty()) all = Box{0, 0, 1, 1};
            image::write_board_png(a.output, all, a.scale, image::cells_from_list(live));
        }
#endif
    } else if (out_format) {
        const std::int64_t gen = pattern.generation + engine->generation();
        // Tree engines (unbounded, no offset) write .mc and .rle straight from their tree.
        const std::shared_ptr<const Quadtree> tree = engine->quadtree();
        std::string text;
        if (tree && *out_format != OutputFormat::plaintext) {
            try {
                text = *out_format == OutputFormat::rle
                           ? format_rle_tree(*tree, rule_for_output(plan.spec), gen, limits.max_file_bytes)
                           : format_macrocell(*tree, rule_for_output(plan.spec), gen);
            } catch (const InputError& e) {
                throw InputError(a.output + ": " + e.what());
            }
        } else {
            std::vector<Cell> cells = engine->live_cells();
            for (Cell& c : cells) c = Cell{c.x + plan.golly_offset.x, c.y + plan.golly_offset.y};
            text = *out_format == OutputFormat::rle         ? format_rle(cells, rule_for_output(plan.spec), gen)
                   : *out_format == OutputFormat::macrocell ? format_macrocell(Quadtree::from_cells(cells), rule_for_output(plan.spec), gen)
                                                            : format_plaintext(cells, pattern.name.empty() ? a.pattern : pattern.name);
        }
        write_file_atomic(a.output, text);
    }

    const Box ext = engine->extent();
    if (a.json) {
        std::ostringstream js;
        js << "{\"pattern\":" << json_string(a.pattern) << ",\"format\":" << json_string(to_string(pattern.format))
           << ",\"engine\":" << json_string(name) << ",\"rule\":" << json_string(plan.spec.rule.to_string())
           << ",\"topology\":" << json_string(to_string(plan.spec.topology)) << ",\"width\":" << ext.width
           << ",\"height\":" << ext.height << ",\"generation\":" << engine->generation()
           << ",\"population\":" << population << ",\"seconds\":" << secs
           << ",\"cell_updates\":" << static_cast<std::int64_t>(cell_updates)
           << ",\"cell_updates_per_second\":" << rate
           << ",\"output\":" << (a.output.empty() ? std::string("null") : json_string(a.output))
           << ",\"properties\":" << properties_json(engine->describe()) << "}";
        std::cout << js.str() << "\n";
    } else if (!a.quiet) {
        std::printf("pattern         %s (%s, %s live cells)\n", a.pattern.c_str(),
                    std::string(to_string(pattern.format)).c_str(), cells_at_start.c_str());
        std::printf("engine          %s%s\n", name.c_str(), ran_on(*engine).c_str());
        std::printf("rule            %s\n", plan.spec.rule.to_string().c_str());
        std::printf("topology        %s (board %" PRId64 "x%" PRId64 ")\n",
                    std::string(to_string(plan.spec.topology)).c_str(), ext.width, ext.height);
        std::printf("generation      %" PRId64 "\n", engine->generation());
        std::printf("population      %" PRId64 "\n", population);
        std::printf("seconds         %.6f\n", secs);
        std::printf("cell-updates/s  %scell-updates/s (%.4g)\n", human_rate(rate).c_str(), rate);
        if (!a.output.empty()) std::printf("output          %s\n", a.output.c_str());
        if (!a.gif.empty()) std::printf("gif             %s (%" PRId64 " frames)\n", a.gif.c_str(), gif_frames);
    }
    exit_code = 0;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<RunArgs>();
    CLI::App* cmd = app.add_subcommand("run", "run a pattern for some generations and report (and save) the result");
    cmd->add_option("pattern", args->pattern, "pattern file (RLE, Life 1.05/1.06, .cells, .mc, .gz) or random:WxH[:density[:seed]]");
    auto* gens = cmd->add_option("-g,--gens", args->gens, "generations to run (default 100; with --resume: the original run's)");
    cmd->add_option("-r,--rule", args->rule, "rule, e.g. B3/S23, B36/S23, 23/3, B3/S23:T100,100 (overrides the file)");
    cmd->add_option("-t,--topology", args->topology, "unbounded, torus or plane (default: the rule's suffix, else unbounded)");
    cmd->add_option("-s,--size", args->size, "board size WxH for torus/plane (default: the suffix's, else the pattern's)");
    add_engine_options(*cmd, args->engine);
    cmd->add_option("-o,--output", args->output,
                    "write the result: .rle, .cells, .mc, or .png (an image of the board: the whole bounded board, "
                    "the live cells' bounding box when unbounded, or --region)");
    cmd->add_option("--scale", args->scale, "pixels per cell in .png and .gif output (1..64)")->default_val(1);
    cmd->add_option("--region", args->region,
                    "x,y,w,h: the cells the images show (bounded: board cells from 0,0; unbounded: pattern coordinates); "
                    "needed when the board's image would be over 16384 pixels a side or 256 MPixel");
    cmd->add_option("--gif", args->gif, "write an animated GIF of the run, one frame every --every generations");
    cmd->add_option("--every", args->every, "generations between GIF frames (default 1) and checkpoints (default 1000)");
    cmd->add_option("--checkpoint", args->checkpoint,
                    "save the run's state atomically to this .rle every --every generations and on Ctrl+C");
    cmd->add_option("--resume", args->resume, "continue a run from its checkpoint (instead of PATTERN)");
    cmd->add_flag("--json", args->json, "print one JSON object instead of text");
    cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
    cmd->add_option("--max-memory", args->max_memory, "memory budget for the board, e.g. 8G (default: half of RAM)");
    cmd->callback([args, gens, &exit_code] {
        args->gens_given = gens->count() > 0;
        run(*args, exit_code);
    });
}

}  // namespace tilelife::cli
