// tilelife run: load a pattern (or a checkpoint), run it on an engine, report, and write what was
// asked for. In steps: settle the flags (nothing read or written), open the outputs, prepare the
// board, step with the events that interrupt stepping (frames, checkpoints, log points), finish the
// outputs, report.
#include <atomic>
#include <cinttypes>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <tuple>
#include <variant>

#include <signal.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "cli/mpi_session.hpp"
#include "cli/progress.hpp"
#include "cli/units.hpp"
#include "image/image.hpp"
#include "cli/outputs.hpp"
#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/formats.hpp"
#include "tilelife/output_file.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::cli {
namespace {

struct RunArgs {
    std::string pattern, resume;
    std::string gens = "100";
    std::string rule, topology, size, max_memory;
    std::string output, format;
    std::string region, gif;
    int scale = 1;
    std::int64_t gif_delay_ms = 50;
    std::string theme = "print";
    bool ages = false;
    std::string every, gif_every, checkpoint_every, log_every;
    std::string checkpoint;
    bool gens_given = false, json = false, quiet = false;
    // Given at all: an empty name ("-o ''") is refused, not taken as no output.
    bool output_given = false, gif_given = false, checkpoint_given = false;
    EngineChoice engine;
};

// The flags as values, all checked; nothing read or written yet.
struct RunSettings {
    std::string source;  // the pattern, or the checkpoint with --resume
    bool resume = false;
    std::int64_t gens = 100;
    BoardOverrides overrides;
    EngineChoice engine;
    EngineOptions options;
    std::int64_t budget = 0;
    std::optional<Box> region;
    std::optional<OutputTarget> output;
    int scale = 1, gif_delay = image::kDefaultGifDelayCs;
    image::Style style;
    std::int64_t gif_every = 1, checkpoint_every = 1000, log_every = 0;
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

RunSettings settle(const RunArgs& a) {
    if (a.pattern.empty() == a.resume.empty())
        throw InputError(a.resume.empty() ? "run needs a PATTERN (or --resume CHECKPOINT)"
                                          : "give either a PATTERN or --resume CHECKPOINT, not both");
    RunSettings s;
    s.source = a.resume.empty() ? a.pattern : a.resume;
    s.resume = !a.resume.empty();
    s.gens = parse_count(a.gens, "--gens");
    // --every is the shorthand for both; the specific flags win.
    const std::int64_t every = a.every.empty() ? 0 : parse_count(a.every, "--every", 1);
    s.gif_every = !a.gif_every.empty() ? parse_count(a.gif_every, "--gif-every", 1) : every ? every : 1;
    s.checkpoint_every =
        !a.checkpoint_every.empty() ? parse_count(a.checkpoint_every, "--checkpoint-every", 1) : every ? every : 1000;
    if (!a.log_every.empty()) s.log_every = parse_count(a.log_every, "--log-every", 1);
    if (a.scale < 1 || a.scale > 64) throw InputError("--scale must be from 1 to 64 pixels per cell");
    s.scale = a.scale;
    s.gif_delay = image::gif_delay_cs(a.gif_delay_ms, "--gif-delay");
    s.style = image::Style{image::theme(a.theme, "--theme"), a.ages};
    if (!a.region.empty()) s.region = parse_region(a.region);
    for (const auto& [given, name, flag] : {std::tuple{a.output_given, a.output, "-o"}, std::tuple{a.gif_given, a.gif, "--gif"},
                                            std::tuple{a.checkpoint_given, a.checkpoint, "--checkpoint"}})
        if (given && name.empty()) throw InputError(std::string(flag) + " was given an empty file name");
    std::optional<OutputFormat> format;
    if (!a.format.empty()) {
        format = output_format_named(a.format);
        if (!format) throw InputError("--format '" + a.format + "' is not " + output_format_names());
        if (a.output.empty()) throw InputError("--format says how to write -o; give -o FILE or -o -");
    }
    if (!a.output.empty()) s.output = output_target(a.output, format);
    if (a.ages && a.gif.empty() && !(s.output && s.output->format == OutputFormat::png))
        throw InputError("--ages colours --gif frames and a .png result by age; give --gif FILE.gif or -o FILE.png");
    if (!a.gif.empty() && !a.gif.ends_with(".gif") && !a.gif.ends_with(".GIF"))
        throw InputError(a.gif + ": --gif writes a .gif file");
    s.overrides = board_overrides(a.rule, a.topology, a.size);
    s.engine = a.engine;
    (void)engine_name(a.engine);  // an unknown backend or kernel is refused now; the default waits for the board
    s.options = engine_options(a.engine);
    s.budget = a.max_memory.empty() ? default_memory_budget(s.options.threads) : parse_bytes(a.max_memory, "--max-memory");
    if (!a.max_memory.empty()) name_memory_budget(s.options, s.budget);
    return s;
}

// The pattern, the run it belongs to, and the board.
struct Job {
    OpenedBoard board;          // the pattern as read and planned (its cells held for the engine)
    Json pattern_json;
    CheckpointRun run;          // the original run: start generation and length
    std::int64_t gens = 0;      // generations this invocation runs
};

Job prepare(const RunSettings& s, bool gens_given) {
    BoardRequest request;
    request.source.name = s.source;
    request.overrides = s.overrides;
    request.engine = engine_choice(s.engine);
    request.options = s.options;
    request.options.max_bytes = s.budget;
    // Under mpirun the board is split across the ranks (docs/distributed.md).
    // Each rank reads its own band of a soup or an RLE file: rank 0 only counts the pattern.
    if (under_mpirun()) {
        request.factory = [choice = request.engine](const BoardSpec& spec, const EngineOptions& options) {
            return create_run_engine(resolve_engine(choice, spec.topology), spec, options);
        };
        request.load_rows = band_loader();
    }
    Job job{open_board(request), {}, {}, 0};
    const Pattern& pattern = job.board.pattern();
    job.pattern_json = pattern_json(s.source, pattern, job.board.population(), job.board.bounding_box());
    // A fresh run starts at the file's generation; a resumed one keeps the original run's start and
    // length (--gens on the resume command changes the length).
    job.run = CheckpointRun{pattern.generation, s.gens};
    if (s.resume) {
        const auto saved = checkpoint_run(pattern);
        if (!saved) throw InputError(s.source + ": not a tilelife checkpoint (no '#C tilelife-checkpoint' line)");
        job.run = *saved;
        if (gens_given) job.run.gens = s.gens;
    }
    if (job.run.start > INT64_MAX - job.run.gens)
        throw InputError(s.source + ": the run would end beyond generation 2^63 - 1 (it starts at generation " +
                         std::to_string(job.run.start) + ")");
    job.gens = job.run.start + job.run.gens - pattern.generation;
    if (job.gens < 0)
        throw InputError(s.source + ": the checkpoint is at generation " + std::to_string(pattern.generation) +
                         ", past the run's end at " + std::to_string(job.run.start + job.run.gens));
    const BoardSpec& spec = job.board.spec();
    if (s.region && spec.topology != Topology::unbounded) {
        const Box board{0, 0, spec.width, spec.height};
        if (intersect(*s.region, board) != *s.region)
            throw InputError("--region " + std::to_string(s.region->x) + "," + std::to_string(s.region->y) + "," +
                             std::to_string(s.region->width) + "," + std::to_string(s.region->height) +
                             " is not inside the " + std::to_string(board.width) + "x" + std::to_string(board.height) +
                             " board (board cells are 0.." + std::to_string(board.width - 1) + ", 0.." +
                             std::to_string(board.height - 1) + ")");
    }
    return job;
}

// An error about `path`, named once: messages that already start with it stay as they are.
InputError about(const std::string& path, const InputError& e) {
    const std::string what = e.what();
    return InputError(what.rfind(path + ": ", 0) == 0 ? what : path + ": " + what);
}

// Ctrl+C, SIGTERM (schedulers send it before killing) and SIGHUP stop a run alike. While the run
// steps, the first one asks it to stop: engines poll the flag inside long steps
// (EngineOptions::interrupt), the loop between them; the run then saves its checkpoint if asked and
// exits 128 + the signal's number (130, 143, 129). At any other time (reading the pattern, writing
// the outputs, saving that last checkpoint) or on a second signal, the handler removes every
// unfinished output's temporary file and exits at once with the same code: writing a large output
// stays interruptible. Lock-free atomics, unlink() and _exit() are safe in a signal handler.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};      // the first signal that asked the run to stop
std::atomic<bool> g_stepping{false};

extern "C" void on_stop_signal(int sig) {
    int none = 0;
    if (g_stepping.load() && g_signal.compare_exchange_strong(none, sig)) {
        g_interrupted.store(true);
        return;
    }
    remove_outputs_and_exit(sig);
}

class InterruptScope {
public:
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
    InterruptScope() {
        g_interrupted = false;
        g_signal = 0;
        g_stepping = false;
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        for (int sig : kSignals) sigaddset(&sa.sa_mask, sig);  // one handler at a time
        sa.sa_flags = SA_RESTART;
        for (std::size_t i = 0; i < std::size(kSignals); ++i) {
            sigaction(kSignals[i], nullptr, &previous_[i]);
            // A signal ignored by whoever started us (nohup ignores SIGHUP) stays ignored.
            if (previous_[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &sa, nullptr);
        }
    }
    ~InterruptScope() {
        g_stepping = false;
        for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous_[i], nullptr);
    }
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    struct sigaction previous_[std::size(kSignals)];
};

struct LogPoint {
    std::int64_t generation, population;
    double seconds;
};

// What stepping produced, for the report.
struct Stepped {
    double seconds = 0, cell_updates = 0;
    bool interrupted = false;
};

// What happens at chosen generations while stepping.
struct Events {
    std::optional<GifOutput>& gif;
    Every gif_every;
    const std::optional<Checkpoints>& checkpoints;
    Every checkpoint_every;
    Every log_every;
    std::function<void()> save_checkpoint;
    std::function<void(std::int64_t done)> log;
    FinalOutput* output;
};

// Steps in chunks that grow (after whole chunks that ran fast) until each takes ~0.2 s: cheap
// bookkeeping, a live progress bar, and cell-updates counted on the board actually computed (it
// changes size when unbounded). Chunks end at the next event.
// Tree engines (cpu:hashlife, cpu:auto) pay for every distinct step size, so they start with the
// whole run as one chunk (events still cut it); they poll the interrupt flag inside it.
Stepped step_with_events(Engine& engine, std::int64_t gens, Events& ev, Progress& progress, bool tree_engine) {
    Stepped st;
    double event_seconds = 0;
    const auto t0 = Clock::now();
    std::int64_t done = 0, chunk = tree_engine ? std::max<std::int64_t>(gens, 1) : 1;
    while (done < gens && !g_interrupted) {
        std::int64_t n = std::min(chunk, gens - done);
        for (const Every* e : {&ev.gif_every, &ev.checkpoint_every, &ev.log_every})
            if (e->on()) n = std::min(n, e->next() - done);
        if (ev.output) n = std::min({n, ev.output->gens_before_check(), ev.output->max_step(done, gens)});
        const auto c0 = Clock::now();
        const std::int64_t g0 = engine.generation();
        engine.step(n);
        const std::int64_t ran = engine.generation() - g0;  // fewer when interrupted inside the step
        const Box e = engine.extent();
        st.cell_updates += static_cast<double>(ran) * static_cast<double>(e.width) * static_cast<double>(e.height);
        done += ran;
        if (ran == chunk && seconds_since(c0) < 0.2 && chunk < (std::int64_t{1} << 40)) chunk *= 2;
        if (g_interrupted) break;
        const auto e0 = Clock::now();
        if (ev.gif_every.due(done)) {
            ev.gif->frame(engine);
            ev.gif_every.advance();
        }
        if (ev.checkpoint_every.due(done)) {
            ev.save_checkpoint();
            ev.checkpoint_every.advance();
        }
        if (ev.log_every.due(done)) {
            progress.clear();
            ev.log(done);
            ev.log_every.advance();
        }
        if (ev.output) {
            ev.output->check_growth(engine, gens - done);
            ev.output->after_step(engine, done, gens);
        }
        event_seconds += seconds_since(e0);
        progress.show(generations_bar(done, gens, seconds_since(t0)));
    }
    progress.clear();
    st.interrupted = g_interrupted;
    st.seconds = seconds_since(t0) - event_seconds;
    return st;
}

struct Report {
    const RunSettings& settings;
    const Job& job;
    const Engine& engine;
    const EngineDescription& description;
    const Stepped& stepped;
    const std::optional<GifOutput>& gif;
    const std::optional<Checkpoints>& checkpoints;
    const std::vector<LogPoint>& log;
};

void report_json(const Report& r, std::FILE* out) {
    const std::int64_t generation = r.job.board.pattern().generation + r.engine.generation();
    Json doc = json_document("run");
    doc["pattern"] = r.job.pattern_json;
    doc["board"] = board_json(r.job.board.spec(), r.engine.extent());
    doc["engine"] = engine_json(r.description);
    doc["generation"] = generation;
    doc["generations_run"] = r.engine.generation();
    doc["population"] = r.engine.population();
    doc["seconds"] = r.stepped.seconds;
    // Exact while it fits an integer; a HashLife run of 2^60 generations counts more (then a double).
    doc["cell_updates"] = r.stepped.cell_updates < 0x1p63 ? Json(static_cast<std::int64_t>(r.stepped.cell_updates))
                                                          : Json(r.stepped.cell_updates);
    // Nothing stepped (--gens 0): no rate, rather than a 0 that reads as a measurement.
    const bool rated = r.stepped.cell_updates > 0 && r.stepped.seconds > 0;
    doc["cell_updates_per_second"] = rated ? Json(r.stepped.cell_updates / r.stepped.seconds) : Json(nullptr);
    doc["output"] = r.settings.output ? Json(r.settings.output->path) : Json(nullptr);
    doc["gif"] = r.gif ? Json{{"path", r.gif->path()}, {"frames", r.gif->frames()}} : Json(nullptr);
    doc["checkpoint"] = r.checkpoints ? Json(r.checkpoints->path()) : Json(nullptr);
    Json log = nullptr;  // null without --log-every (a key is never left out)
    if (r.settings.log_every > 0) {
        log = Json::array();
        for (const LogPoint& p : r.log)
            log.push_back(Json{{"generation", p.generation}, {"population", p.population}, {"seconds", p.seconds}});
    }
    doc["log"] = log;
    print_json(doc, out);
}

void report_text(const Report& r, std::FILE* out) {
    const Pattern& p = r.job.board.pattern();
    const EngineDescription& d = r.description;
    const Box ext = r.engine.extent();
    const double rate = r.stepped.seconds > 0 ? r.stepped.cell_updates / r.stepped.seconds : 0;
    const std::int64_t start_population = r.job.pattern_json.at("population").get<std::int64_t>();
    std::fprintf(out, "pattern         %s (%s, %" PRId64 " live cells%s)\n", r.settings.source.c_str(),
                 std::string(to_string(p.format)).c_str(), start_population,
                 p.generation ? (", generation " + std::to_string(p.generation)).c_str() : "");
    const std::string summary = engine_summary(d);
    std::fprintf(out, "engine          %s%s\n", d.name.c_str(), summary.empty() ? "" : (" (" + summary + ")").c_str());
    if (!d.device.empty()) std::fprintf(out, "device          %s\n", d.device.c_str());
    std::fprintf(out, "rule            %s\n", r.job.board.spec().rule.to_string().c_str());
    std::fprintf(out, "topology        %s (board %" PRId64 "x%" PRId64 ")\n",
                 std::string(to_string(r.job.board.spec().topology)).c_str(), ext.width, ext.height);
    std::fprintf(out, "generation      %" PRId64 "\n", p.generation + r.engine.generation());
    std::fprintf(out, "population      %" PRId64 "\n", r.engine.population());
    std::fprintf(out, "seconds         %.6f\n", r.stepped.seconds);
    std::fprintf(out, "cell-updates/s  %scell-updates/s (%.4g)\n", si_prefixed(rate).c_str(), rate);
    if (r.settings.output) std::fprintf(out, "output          %s\n", r.settings.output->path.c_str());
    if (r.gif) std::fprintf(out, "gif             %s (%" PRId64 " frames)\n", r.gif->path().c_str(), r.gif->frames());
    if (r.checkpoints) std::fprintf(out, "checkpoint      %s\n", r.checkpoints->path().c_str());
}

void run(const RunArgs& a, int& exit_code) {
    const RunSettings s = settle(a);
    const InterruptScope interrupt_scope;  // from before the first output file is opened
    // Every output is opened or probed before any work: a bad path fails now, not after the run.
    std::optional<FinalOutput> output;
    // A PNG with --ages shows the births and deaths of the run's last generations.
    if (s.output) output.emplace(*s.output, s.scale, s.style, s.budget);
    if (!a.gif.empty()) check_output_path(a.gif);
    std::optional<Checkpoints> checkpoints;
    if (!a.checkpoint.empty()) checkpoints.emplace(a.checkpoint);
    // With -o - the result owns standard output; the report and log lines go to stderr.
    std::FILE* report_out = s.output && s.output->standard_output() ? stderr : stdout;

    Job job = prepare(s, a.gens_given);
    if (checkpoints) checkpoints->check_board(job.board.plan());
    EngineOptions options = s.options;
    options.generations = job.gens;  // engines size their choices (CPU threads) by the whole run
    options.max_bytes = s.budget;
    options.interrupt = &g_interrupted;
    const std::optional<Box> area = image_area(job.board.plan(), s.region);
    if (output) output->set_area(area);

    auto engine = job.board.create_engine(options);  // the engine has the cells now
    // A soup read in bands (under mpirun) is counted by the ranks as they read it.
    job.pattern_json = pattern_json(s.source, job.board.pattern(), job.board.population(), job.board.bounding_box());
    if (output) {
        output->check_growth(*engine, job.gens);
        output->after_step(*engine, 0, job.gens);
    }

    // Outputs carry the source's name, authors and comments (not a checkpoint's own line).
    PatternMeta meta = meta_of(job.board.pattern());
    meta.comments = comments_without_checkpoint(meta.comments);
    const auto meta_now = [&] {
        PatternMeta m = meta;
        m.generation = job.board.pattern().generation + engine->generation();
        return m;
    };
    std::optional<GifOutput> gif;
    if (!a.gif.empty()) {
        gif.emplace(a.gif, area, s.scale, s.gif_delay, job.gens / s.gif_every + 1, s.style);
        gif->frame(*engine);
    }
    std::vector<LogPoint> log;
    const auto log_point = [&](std::int64_t done, double seconds) {
        const LogPoint p{job.board.pattern().generation + done, engine->population(), seconds};
        log.push_back(p);
        if (!a.json)
            std::fprintf(report_out, "generation %" PRId64 "  population %" PRId64 "\n", p.generation, p.population);
        std::fflush(report_out);
    };
    const auto t0 = Clock::now();
    if (s.log_every > 0) log_point(0, 0);
    Events events{gif,
                  Every(gif ? s.gif_every : 0),
                  checkpoints,
                  Every(checkpoints ? s.checkpoint_every : 0),
                  Every(s.log_every),
                  [&] { checkpoints->save(*engine, job.board.plan(), job.run, meta_now()); },
                  [&](std::int64_t done) { log_point(done, seconds_since(t0)); },
                  output ? &*output : nullptr};
    Progress progress(!a.quiet && !a.json);
    const Stepped stepped = [&] {
        g_stepping = true;
        try {
            Stepped st = step_with_events(*engine, job.gens, events, progress, engine->wants_whole_runs());
            if (!st.interrupted) g_stepping = false;  // a signal from now on ends the run at once
            return st;
        } catch (const InputError& e) {
            g_stepping = false;
            // About an output (the GIF, the final image), not the pattern.
            const std::string what = e.what();
            if ((gif && what.rfind(gif->path() + ": ", 0) == 0) || (output && what.rfind(output->path() + ": ", 0) == 0))
                throw;
            throw InputError(s.source + ": " + e.what());
        } catch (const RuntimeError& e) {
            g_stepping = false;
            // E.g. a run that would leave the plane cpu:hashlife runs; engines count from 0.
            const std::int64_t from = job.board.pattern().generation;
            throw RuntimeError(s.source + ": " + e.what() +
                               (from ? " (engine generations: the pattern started at generation " + std::to_string(from) + ")"
                                     : std::string()));
        } catch (...) {
            g_stepping = false;
            throw;
        }
    }();

    if (stepped.interrupted) {
        // Stopped cleanly between (or inside) steps: save where we are if asked, write no partial
        // outputs (their temporary files go with their objects). A second signal ends it at once.
        if (checkpoints) checkpoints->save(*engine, job.board.plan(), job.run, meta_now());
        std::fprintf(stderr, "tilelife: interrupted at generation %" PRId64 "%s\n",
                     job.board.pattern().generation + engine->generation(),
                     checkpoints ? ("; checkpoint in " + checkpoints->path() + " (continue with --resume)").c_str()
                                 : "; no output written");
        exit_code = 128 + g_signal.load();
        return;
    }
    if (gif) gif->finish();
    if (output) {
        PatternMeta m = meta_now();
        // A .cells file has nowhere else to say what it is.
        if (m.name.empty() && s.output->format == OutputFormat::plaintext) m.name = s.source;
        try {
            output->write(*engine, job.board.plan(), m);
        } catch (const InputError& e) {
            throw about(s.output->path, e);  // e.g. RLE text too large for a huge tree
        }
    }
    const EngineDescription description = engine->describe();  // at the end: unbounded boards have grown
    const Report report{s, job, *engine, description, stepped, gif, checkpoints, log};
    if (a.json) report_json(report, report_out);
    else if (!a.quiet) report_text(report, report_out);
    exit_code = 0;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<RunArgs>();
    CLI::App* cmd = app.add_subcommand("run", "run a pattern for some generations and report (and save) the result");
    cmd->add_option("pattern", args->pattern,
                    "pattern file (RLE, Life 1.05/1.06, .cells, .mc, .gz), - for standard input, or "
                    "random:WxH[:density[:seed]]");
    auto* gens = cmd->add_option("-g,--gens", args->gens,
                                 "generations to run: 1000, 1e12, 2^40 (up to 2^63-1; default 100; with --resume: "
                                 "the original run's)");
    cmd->add_option("-r,--rule", args->rule, "rule, e.g. B3/S23, B36/S23, 23/3, B3/S23:T100,100 (overrides the file)");
    cmd->add_option("-t,--topology", args->topology, "unbounded, torus or plane (default: the rule's suffix, else unbounded)");
    cmd->add_option("-s,--size", args->size,
                    "board size WxH of a torus or plane (default: the suffix's, else the pattern's); refused for "
                    "unbounded boards, which grow as they need");
    add_engine_options(*cmd, args->engine);
    cmd->add_option("-o,--output", args->output,
                    "write the result: " + output_extensions() + " (.png: an image of the board: the whole "
                    "bounded board, the live cells' bounding box and a one-cell margin when unbounded, or "
                    "--region); - for standard output (RLE unless --format says otherwise; the report then "
                    "goes to stderr)");
    cmd->add_option("--format", args->format, "format of -o when its name cannot say: " + output_format_names());
    cmd->add_option("--scale", args->scale, "pixels per cell in .png and .gif output (1..64)")->default_val(1);
    cmd->add_option("--region", args->region,
                    "x,y,w,h: the cells the images show (bounded: board cells from 0,0; unbounded: pattern coordinates); "
                    "needed when the board's image would be over 16384 pixels a side or 256 MPixel");
    cmd->add_option("--gif", args->gif, "write an animated GIF of the run, one frame every --gif-every generations");
    cmd->add_option("--gif-every", args->gif_every, "generations between GIF frames (default 1)");
    cmd->add_option("--gif-delay", args->gif_delay_ms, "GIF frame delay in milliseconds, 20..655350 in steps of 10 "
                    "(default 50)")
        ->default_val(50);
    cmd->add_option("--theme", args->theme, "colours of .png and .gif output: print (black on white), dark or light")
        ->default_val("print");
    cmd->add_flag("--ages", args->ages,
                  "colour the --gif frames and a .png result by age: newly born, alive, and a fading trail of the "
                  "dead (a .png: over the last " + std::to_string(image::kTrailSteps) + " generations)");
    cmd->add_option("--checkpoint", args->checkpoint,
                    "save the run's state atomically to this .rle or .mc (unbounded boards; HashLife-scale runs) every "
                    "--checkpoint-every generations and on Ctrl+C, SIGTERM or SIGHUP");
    cmd->add_option("--checkpoint-every", args->checkpoint_every, "generations between checkpoints (default 1000)");
    cmd->add_option("--every", args->every, "shorthand for both --gif-every and --checkpoint-every");
    cmd->add_option("--resume", args->resume, "continue a run from its checkpoint (instead of PATTERN)");
    cmd->add_option("--log-every", args->log_every,
                    "print the population every N generations (a time series, as bgolly -i; in --json: \"log\")");
    cmd->add_flag("--json", args->json, "print one JSON object instead of text (docs/json.md)");
    cmd->add_flag("-q,--quiet", args->quiet, "print no report on success");
    cmd->add_option("--max-memory", args->max_memory, "memory budget for the board, e.g. 8G (default: half of the least of RAM, ulimit -v/-d and the cgroup limit); "
                   "given, HashLife's store may grow to it before it only collects (bgolly -M)");
    cmd->callback([args, gens, cmd, &exit_code] {
        args->gens_given = gens->count() > 0;
        args->output_given = cmd->get_option("--output")->count() > 0;
        args->gif_given = cmd->get_option("--gif")->count() > 0;
        args->checkpoint_given = cmd->get_option("--checkpoint")->count() > 0;
        run(*args, exit_code);
    });
}

}  // namespace tilelife::cli
