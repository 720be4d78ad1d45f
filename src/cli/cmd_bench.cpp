// tilelife bench: cell-update throughput of chosen engines on a random board. Engines with a device
// clock are timed by it (Engine::step_timed: kernel durations only, no transfers), the others by the
// wall clock. --autotune tries the option sets each engine offers for its device (describe().autotune).
// Nothing here knows a particular engine: engines describe themselves.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

// What "GB/s" counts, printed with every table: the least traffic a byte-per-cell step needs.
const char* const kBytesNote =
    "effective GB/s counts 2 bytes per cell update (read and write one byte per cell), the minimum traffic of a "
    "byte-per-cell board, not what a kernel actually moves";

struct BenchArgs {
    std::string size = "4096x4096";
    std::string gens = "100", warmup = "5";
    std::string topology = "torus";
    std::string rule = "B3/S23";
    double density = 0.3;
    std::uint64_t seed = 1;
    bool json = false, autotune = false, seed_setup = false;
    EngineChoice choice;
};

// The board every engine runs: the same random cells, warm-up and timed generations.
struct BenchJob {
    BoardSpec spec;
    std::vector<std::uint8_t> board;
    std::int64_t warmup = 0, gens = 0;
};

struct Result {
    EngineDescription engine;  // what the engine is and chose (only the name when it failed)
    EngineOptions options;     // what was asked for
    bool device_clock = false;
    double seconds = 0;        // for `gens` generations
    double span_seconds = 0;   // device clock: first kernel start to last kernel end
    double wall_seconds = 0;   // the timed steps plus a final synchronisation, any engine
    std::int64_t gens = 0, cells = 0, population = 0;
    std::string error;             // when this configuration could not run
    std::exception_ptr exception;  // ... and why, to rethrow when nothing ran
    bool ok() const { return error.empty(); }
    double updates_per_second() const { return seconds > 0 ? static_cast<double>(cells) * gens / seconds : 0; }
};

// Random cells from splitmix64, eight per draw (fast enough for 2^30-cell boards).
std::vector<std::uint8_t> random_board(std::int64_t w, std::int64_t h, double density, std::uint64_t seed) {
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
    const auto threshold = static_cast<unsigned>(std::clamp(density, 0.0, 1.0) * 256.0);
    std::uint64_t s = seed;
    std::size_t i = 0;
    while (i < cells.size()) {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        for (int k = 0; k < 8 && i < cells.size(); ++k, ++i) cells[i] = ((z >> (8 * k)) & 0xff) < threshold;
    }
    return cells;
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : text + ",") {
        if (c == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else if (c != ' ') {
            cur += c;
        }
    }
    return out;
}

// Creates the engine, loads the board, warms up, then times the generations. A configuration's
// InputError/RuntimeError (a shape the device refuses) is recorded instead of ending the bench.
Result measure(const std::string& engine, const EngineOptions& eo, const BenchJob& job) {
    Result r;
    r.engine.name = engine;
    r.engine.backend = engine.substr(0, engine.find(':'));
    r.options = eo;
    r.gens = job.gens;
    r.cells = job.spec.width * job.spec.height;
    try {
        auto e = create_engine(engine, job.spec, eo);
        e->write_region(Box{0, 0, job.spec.width, job.spec.height}, job.board.data());
        e->step(job.warmup);
        (void)e->population();  // also waits for the warm-up to finish
        r.engine = e->describe();
        const auto t0 = std::chrono::steady_clock::now();
        const std::optional<StepTiming> t = e->step_timed(job.gens);
        r.population = e->population();  // waits for the device; outside the CPU engines' timing
        r.wall_seconds = seconds_since(t0);
        r.device_clock = t.has_value();
        r.seconds = t ? t->kernel_seconds : r.wall_seconds;
        r.span_seconds = t ? t->span_seconds : 0;
    } catch (const std::exception& ex) {
        r.error = ex.what();
        r.exception = std::current_exception();
    }
    return r;
}

// "--wg 16x8 --steps-per-launch 8 --param rows=16": the flags that ask for these options.
std::string options_flags(const EngineOptions& o) {
    std::string out;
    const auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
    if (!o.device.empty()) add("--device " + o.device);
    if (o.wg_width > 0) add("--wg " + std::to_string(o.wg_width) + "x" + std::to_string(o.wg_height));
    if (o.threads > 0) add("--threads " + std::to_string(o.threads));
    if (o.steps_per_launch > 0) add("--steps-per-launch " + std::to_string(o.steps_per_launch));
    for (const auto& [k, v] : o.params) add("--param " + k + "=" + v);
    return out;
}

// Ratio base: the first engine that ran.
double base_rate(const std::vector<Result>& results) {
    for (const Result& r : results)
        if (r.ok()) return r.updates_per_second();
    return 0;
}

// The fastest run that worked; nullopt when none did.
std::optional<std::size_t> best_of(const std::vector<Result>& runs) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].ok() && (!best || runs[i].updates_per_second() > runs[*best].updates_per_second())) best = i;
    return best;
}

Json result_json(const Result& r, double base) {
    const double ups = r.updates_per_second();
    const auto number = [&](double v) { return r.ok() ? Json(v) : Json(nullptr); };
    return Json{{"engine", engine_json(r.engine)},
                {"options", options_json(r.options)},
                {"timing", r.ok() ? Json(r.device_clock ? "device clock" : "wall clock") : Json(nullptr)},
                {"generations", r.gens},
                {"seconds", number(r.seconds)},
                {"span_seconds", r.device_clock ? Json(r.span_seconds) : Json(nullptr)},
                {"wall_seconds", number(r.wall_seconds)},
                {"ms_per_generation", number(r.seconds * 1e3 / static_cast<double>(r.gens))},
                {"cell_updates_per_second", number(ups)},
                {"effective_gb_per_second", number(2 * ups / 1e9)},
                {"ratio", number(base > 0 ? ups / base : 0)},
                {"population", r.ok() ? Json(r.population) : Json(nullptr)},
                {"error", string_or_null(r.error)}};
}

void print_table(const std::vector<Result>& results, double base, const char* options_heading,
                 const std::function<std::string(const Result&)>& options_text) {
    std::printf("%-24s %-22s %12s %14s %10s %8s %14s\n", "engine", options_heading, "ms/gen", "G updates/s", "GB/s",
                "ratio", "population");
    for (const Result& r : results) {
        if (!r.ok()) {
            std::printf("%-24s %-22s  failed: %s\n", r.engine.name.c_str(), options_text(r).c_str(), r.error.c_str());
            continue;
        }
        const double ups = r.updates_per_second();
        std::printf("%-24s %-22s %12.4f %14.2f %10.2f %8.2f %14lld\n", r.engine.name.c_str(), options_text(r).c_str(),
                    r.seconds * 1e3 / static_cast<double>(r.gens), ups / 1e9, 2 * ups / 1e9, base > 0 ? ups / base : 0,
                    static_cast<long long>(r.population));
    }
}

// "16x8, 4 cells per item": what the engine chose (for the main table).
std::string chosen_text(const Result& r) {
    const std::string s = r.ok() ? engine_summary(r.engine) : options_flags(r.options);
    return s.empty() ? "-" : s.size() > 22 ? s.substr(0, 21) + "~" : s;
}

// --- The seed's own setup ------------------------------------------------------------------------
// Its 160x160 board, 500 generations and GROUPSIZE 16, beside its published whole-run figures (from
// its own hardware). A fixed historical comparison, so its engines are data here: GROUPSIZE 16 is a
// 16x16 group for the naive kernel and a 16x16 tile (18x18 items) for the halo tile, or a 16x16
// group where a device caps work-groups below 324 items (NVIDIA's OpenCL on the H100).
struct SeedKernel {
    const char* engine;
    const char* key;    // JSON keys: KEY_kernel_us, KEY_wall_us
    const char* label;  // table row
    std::vector<std::pair<int, int>> groups;
    double published_us;  // 0: not published
};
const std::vector<SeedKernel>& seed_kernels() {
    static const std::vector<SeedKernel> k = {
        {"opencl:naive", "no_local", "no local (naive)", {{16, 16}}, 27485},
        {"opencl:local", "local", "local (halo tile)", {{18, 18}, {16, 16}}, 18159},
        {"opencl:local-strided", "local_strided", "local-strided", {}, 0},
        // The SYCL forms of the same kernels (the tutorial's hierarchical kernel with its 16x16 groups).
        {"sycl:hierarchical", "sycl_hierarchical", "sycl hierarchical", {{16, 16}}, 0},
        {"sycl:halo-tile", "sycl_local", "sycl halo tile", {{18, 18}, {16, 16}}, 0},
        {"sycl:halo-tile-strided", "sycl_local_strided", "sycl halo-tile-strided", {}, 0},
    };
    return k;
}
constexpr double kSeedLocalMicros = 18159, kSeedNoLocalMicros = 27485;

const SeedKernel* seed_kernel_of(const std::string& engine) {
    for (const SeedKernel& k : seed_kernels())
        if (const auto info = find_engine(k.engine); info && info->name == engine) return &k;
    return nullptr;
}

// Runs each engine, with the seed's groups under --seed-setup (unless --wg was given).
std::vector<Result> run_engines(const std::vector<std::string>& engines, const EngineOptions& base_options,
                                const BenchJob& job, bool seed_groups, Progress& progress) {
    std::vector<Result> results;
    for (std::size_t i = 0; i < engines.size(); ++i) {
        progress.show("bench " + std::to_string(i + 1) + "/" + std::to_string(engines.size()) + ": " + engines[i]);
        const SeedKernel* seed = seed_groups ? seed_kernel_of(engines[i]) : nullptr;
        if (!seed || seed->groups.empty()) {
            results.push_back(measure(engines[i], base_options, job));
            continue;
        }
        // The first group the device takes (the last one's failure is the result).
        for (std::size_t g = 0; g < seed->groups.size(); ++g) {
            EngineOptions eo = base_options;
            eo.wg_width = seed->groups[g].first;
            eo.wg_height = seed->groups[g].second;
            Result r = measure(engines[i], eo, job);
            if (r.ok() || g + 1 == seed->groups.size()) {
                results.push_back(std::move(r));
                break;
            }
        }
    }
    progress.clear();
    return results;
}

// --- Autotune ------------------------------------------------------------------------------------
struct Tuned {
    std::string engine;
    std::vector<Result> runs;
};

std::vector<Tuned> autotune(const std::vector<Result>& results, const BenchJob& job, Progress& progress) {
    std::vector<Tuned> tuned;
    std::size_t total = 0, done = 0;
    for (const Result& r : results) total += r.engine.autotune.size();
    for (const Result& r : results) {
        if (!r.ok()) continue;
        Tuned t{r.engine.name, {}};
        for (const EngineOptions& candidate : r.engine.autotune) {
            progress.show("autotune " + std::to_string(++done) + "/" + std::to_string(total) + ": " + r.engine.name +
                          " " + options_flags(candidate));
            t.runs.push_back(measure(r.engine.name, candidate, job));
        }
        tuned.push_back(std::move(t));
    }
    progress.clear();
    return tuned;
}

// --- Reports -------------------------------------------------------------------------------------
struct BenchReport {
    const BenchArgs& args;
    const BenchJob& job;
    const std::vector<Result>& results;
    const std::vector<Tuned>& tuned;
};

const Result* seed_result(const std::vector<Result>& results, const SeedKernel& k) {
    for (const Result& r : results)
        if (r.ok() && seed_kernel_of(r.engine.name) == &k) return &r;
    return nullptr;
}

void report_json(const BenchReport& b) {
    const double base = base_rate(b.results);
    Json doc = json_document("bench");
    doc["board"] = board_json(b.job.spec, Box{0, 0, b.job.spec.width, b.job.spec.height});
    doc["density"] = b.args.density;
    doc["seed"] = b.args.seed;
    doc["warmup"] = b.job.warmup;
    doc["generations"] = b.job.gens;
    doc["bytes_per_cell_update"] = 2;  // what effective_gb_per_second counts (kBytesNote)
    Json results = Json::array();
    for (const Result& r : b.results) results.push_back(result_json(r, base));
    doc["results"] = results;
    if (b.args.autotune) {
        Json tuned = Json::array();
        for (const Tuned& t : b.tuned) {
            Json runs = Json::array();
            for (const Result& r : t.runs) runs.push_back(result_json(r, base));
            const auto best = best_of(t.runs);
            tuned.push_back(Json{{"engine", t.engine}, {"runs", runs}, {"best", best ? Json(*best) : Json(nullptr)}});
        }
        doc["autotune"] = tuned;
    } else {
        doc["autotune"] = nullptr;
    }
    if (b.args.seed_setup) {
        Json seed{{"published_local_us", kSeedLocalMicros}, {"published_no_local_us", kSeedNoLocalMicros}};
        for (const SeedKernel& k : seed_kernels())
            if (const Result* r = seed_result(b.results, k)) {
                seed[std::string(k.key) + "_kernel_us"] = r->seconds * 1e6;
                seed[std::string(k.key) + "_wall_us"] = r->wall_seconds * 1e6;
            }
        doc["seed_setup"] = seed;
    } else {
        doc["seed_setup"] = nullptr;
    }
    print_json(doc);
}

void report_text(const BenchReport& b) {
    const BenchJob& job = b.job;
    const double base = base_rate(b.results);
    std::printf("board %lldx%lld %s %s, density %.2f, seed %llu; %lld warm-up + %lld timed generations\n",
                static_cast<long long>(job.spec.width), static_cast<long long>(job.spec.height),
                std::string(to_string(job.spec.topology)).c_str(), job.spec.rule.to_string().c_str(), b.args.density,
                static_cast<unsigned long long>(b.args.seed), static_cast<long long>(job.warmup),
                static_cast<long long>(job.gens));
    std::vector<std::string> devices;
    for (const Result& r : b.results)
        if (!r.engine.device.empty() && std::find(devices.begin(), devices.end(), r.engine.device) == devices.end())
            devices.push_back(r.engine.device);
    for (const std::string& d : devices) std::printf("device %s\n", d.c_str());
    std::printf("timing: engines with a device clock = sum of kernel durations (no transfers); others = wall clock "
                "of step()\n%s\n\n",
                kBytesNote);
    print_table(b.results, base, "chose", chosen_text);
    for (const Tuned& t : b.tuned) {
        std::printf("\nautotune %s (ratio to the first table's base):\n", t.engine.c_str());
        if (t.runs.empty()) {
            std::printf("nothing to tune: the engine offers no option sets for this device\n");
            continue;
        }
        print_table(t.runs, base, "options", [](const Result& r) { return options_flags(r.options); });
        if (const auto best = best_of(t.runs))
            std::printf("best for %s: %s (%.2f G updates/s)\n", t.engine.c_str(),
                        options_flags(t.runs[*best].options).c_str(), t.runs[*best].updates_per_second() / 1e9);
    }
    if (b.args.seed_setup) {
        std::printf("\nseed setup (160x160, 500 generations, GROUPSIZE 16), whole run in microseconds:\n");
        std::printf("%-22s %14s %14s %18s\n", "", "kernels (us)", "wall (us)", "seed published (us)");
        for (const SeedKernel& k : seed_kernels())
            if (const Result* r = seed_result(b.results, k)) {
                char published[32] = "-";
                if (k.published_us > 0) std::snprintf(published, sizeof published, "%.0f", k.published_us);
                std::printf("%-22s %14.1f %14.1f %18s\n", k.label, r->seconds * 1e6, r->wall_seconds * 1e6, published);
            }
        std::printf("(the seed's figures come from its own hardware; compare ratios: seed no-local/local = %.2f)\n",
                    kSeedNoLocalMicros / kSeedLocalMicros);
    }
}

// --- The command ---------------------------------------------------------------------------------
void bench(BenchArgs a, int& exit_code) {
    if (a.seed_setup) {
        a.size = "160x160";
        a.gens = "500";
        // The seed's kernels on every device backend of this build, or on the one --backend names.
        const std::string only = a.choice.backend == "cpu" ? std::string() : a.choice.backend + ":";
        if (a.choice.kernel.empty())
            for (const SeedKernel& k : seed_kernels())
                if (engine_exists(k.engine) && std::string_view(k.engine).starts_with(only))
                    a.choice.kernel += (a.choice.kernel.empty() ? "" : ",") + std::string(k.engine);
        if (a.choice.kernel.empty())
            throw InputError("--seed-setup compares the OpenCL (and SYCL) kernels; this build has none");
    }
    const auto [w, h] = parse_size(a.size, "--size");
    const auto topology = parse_topology(a.topology);
    if (!topology || *topology == Topology::unbounded)
        throw InputError("--topology '" + a.topology + "' must be torus or plane for bench");
    BenchJob job;
    job.spec = BoardSpec{w, h, *topology, parse_rule(a.rule).rule};
    job.gens = parse_count(a.gens, "--gens", 1);
    job.warmup = parse_count(a.warmup, "--warmup");
    std::vector<std::string> engines;
    for (const std::string& k : split(a.choice.kernel)) {
        EngineChoice c = a.choice;
        c.kernel = k;
        engines.push_back(engine_name(c, *topology));
    }
    if (engines.empty()) engines.push_back(engine_name(a.choice, *topology));
    const EngineOptions base_options = engine_options(a.choice);
    job.board = random_board(w, h, a.density, a.seed);

    Progress progress(!a.json, 0.5);
    const std::vector<Result> results = run_engines(engines, base_options, job, a.seed_setup && a.choice.wg.empty(), progress);
    const std::vector<Tuned> tuned = a.autotune ? autotune(results, job, progress) : std::vector<Tuned>{};
    const BenchReport report{a, job, results, tuned};
    if (a.json) report_json(report);
    else report_text(report);
    // Every engine failing is a failed bench, with the first engine's error (InputError for a bad
    // --wg, RuntimeError for a missing device); a partial failure is reported in the table.
    if (std::none_of(results.begin(), results.end(), [](const Result& r) { return r.ok(); }))
        std::rethrow_exception(results.front().exception);
    exit_code = 0;
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<BenchArgs>();
    CLI::App* cmd = app.add_subcommand(
        "bench", "measure cell updates per second of engines on a random board (--kernel a,b,c to compare)");
    cmd->add_option("--size", a->size, "board size WxH")->default_val("4096x4096");
    cmd->add_option("--gens", a->gens, "generations timed per engine: 100, 1e4, 2^10 (default 100)");
    cmd->add_option("--warmup", a->warmup, "generations run before timing (default 5)");
    cmd->add_option("--topology", a->topology, "torus or plane")->default_val("torus");
    cmd->add_option("--rule", a->rule, "Life-like rule")->default_val("B3/S23");
    cmd->add_option("--density", a->density, "share of live cells in the random board")
        ->default_val(0.3)
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--seed", a->seed, "random board seed")->default_val(1);
    cmd->add_flag("--json", a->json, "print one JSON object (docs/json.md)");
    cmd->add_flag("--autotune", a->autotune,
                  "also run each engine with every option set it offers for the device (work-groups, rows per "
                  "work-item, ...) and report the best");
    cmd->add_flag("--seed-setup", a->seed_setup,
                  "the seed's own setup: 160x160, 500 generations, 16x16 groups, beside its published figures");
    add_engine_options(*cmd, a->choice);
    cmd->callback([a, &exit_code] { bench(*a, exit_code); });
}

}  // namespace tilelife::cli
