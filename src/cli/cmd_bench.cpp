// tilelife bench: cell-update throughput of chosen engines on a random board. OpenCL kernels are
// timed with profiling events (kernel durations only, no transfers); CPU engines by wall clock.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

// What "GB/s" counts, printed with every table: the least traffic a byte-per-cell step needs.
const char* const kBytesNote =
    "effective GB/s counts 2 bytes per cell update (read and write one byte per cell), the minimum traffic of a "
    "byte-per-cell board, not what a kernel actually moves";

// The seed's published whole-run figures (its 160x160 board, 500 generations, GROUPSIZE 16).
constexpr double kSeedLocalMicros = 18159, kSeedNoLocalMicros = 27485;

struct Options {
    std::string size = "4096x4096";
    std::int64_t gens = 100;
    std::int64_t warmup = 5;
    std::string topology = "torus";
    std::string rule = "B3/S23";
    double density = 0.3;
    std::uint64_t seed = 1;
    bool json = false;
    bool autotune = false;
    bool seed_setup = false;
    EngineChoice choice;
};

struct Result {
    std::string engine;
    std::string wg = "-";         // work-group shape, OpenCL only
    int cells_per_item = 0;       // OpenCL only
    std::string device;           // OpenCL only
    std::string timing;           // "profiling events" or "wall clock"
    double seconds = 0;           // for `gens` generations
    double span_seconds = 0;      // OpenCL: first kernel start to last kernel end
    double wall_seconds = 0;      // step() plus a final synchronisation, any engine
    std::int64_t gens = 0;
    std::int64_t cells = 0;
    std::int64_t population = 0;
    std::string error;            // when this configuration could not run
    std::exception_ptr exception; // ... and why, to rethrow when nothing ran
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

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Creates the engine, loads the board, warms up, then times `gens` generations.
Result run_one(const std::string& engine, const BoardSpec& spec, const EngineOptions& eo,
               const std::vector<std::uint8_t>& board, std::int64_t warmup, std::int64_t gens) {
    Result r;
    r.engine = engine;
    r.gens = gens;
    r.cells = spec.width * spec.height;
    auto e = create_engine(engine, spec, eo);
    e->write_region(Box{0, 0, spec.width, spec.height}, board.data());
    e->step(warmup);
    (void)e->population();  // also waits for the warm-up to finish
    const EngineDescription d = e->describe();
    if (d.wg_width > 0) {
        r.wg = std::to_string(d.wg_width) + "x" + std::to_string(d.wg_height);
        r.cells_per_item = d.cells_per_item;
        r.device = d.device;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (const auto t = e->step_timed(gens)) {
        r.wall_seconds = seconds_since(t0);
        r.timing = "profiling events";
        r.seconds = t->kernel_seconds;
        r.span_seconds = t->span_seconds;
        r.population = e->population();
        return r;
    }
    // No device clock: step_timed ran the generations; CPU engines are done when it returns.
    r.seconds = r.wall_seconds = seconds_since(t0);
    r.population = e->population();  // outside the timing
    r.timing = "wall clock";
    return r;
}

// Runs one configuration; an InputError/RuntimeError of that configuration (a shape the device
// refuses) is recorded instead of ending the whole bench.
Result run_guarded(const std::string& engine, const BoardSpec& spec, const EngineOptions& eo,
                   const std::vector<std::uint8_t>& board, std::int64_t warmup, std::int64_t gens) {
    try {
        return run_one(engine, spec, eo, board, warmup, gens);
    } catch (const std::exception& e) {
        Result r;
        r.engine = engine;
        if (eo.wg_width > 0) r.wg = std::to_string(eo.wg_width) + "x" + std::to_string(eo.wg_height);
        r.error = e.what();
        r.exception = std::current_exception();
        return r;
    }
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string result_json(const Result& r, double ratio) {
    std::ostringstream js;
    js << "{\"engine\":" << json_string(r.engine) << ",\"wg\":" << json_string(r.wg);
    if (!r.error.empty()) return js.str() + ",\"error\":" + json_string(r.error) + "}";
    js << ",\"cells_per_item\":" << r.cells_per_item << ",\"device\":" << json_string(r.device)
       << ",\"timing\":" << json_string(r.timing) << ",\"generations\":" << r.gens
       << ",\"seconds\":" << fixed(r.seconds, 9) << ",\"span_seconds\":" << fixed(r.span_seconds, 9)
       << ",\"wall_seconds\":" << fixed(r.wall_seconds, 9)
       << ",\"ms_per_generation\":" << fixed(r.seconds * 1e3 / static_cast<double>(r.gens), 6)
       << ",\"cell_updates_per_second\":" << fixed(r.updates_per_second(), 0)
       << ",\"effective_gb_per_second\":" << fixed(2 * r.updates_per_second() / 1e9, 3)
       << ",\"ratio\":" << fixed(ratio, 3) << ",\"population\":" << r.population << "}";
    return js.str();
}

// Ratio base: the naive kernel when it ran, else the first result that ran.
double base_rate(const std::vector<Result>& results) {
    for (const Result& r : results)
        if (r.error.empty() && r.engine.size() >= 6 && r.engine.ends_with(":naive")) return r.updates_per_second();
    for (const Result& r : results)
        if (r.error.empty()) return r.updates_per_second();
    return 0;
}

void print_table(const std::vector<Result>& results, const std::string& ratio_to) {
    const double base = base_rate(results);
    std::printf("%-24s %-9s %6s %12s %14s %10s %8s %14s\n", "engine", "wg", "cells", "ms/gen", "G updates/s", "GB/s",
                ratio_to.c_str(), "population");
    for (const Result& r : results) {
        if (!r.error.empty()) {
            std::printf("%-24s %-9s  failed: %s\n", r.engine.c_str(), r.wg.c_str(), r.error.c_str());
            continue;
        }
        const double ups = r.updates_per_second();
        std::printf("%-24s %-9s %6s %12.4f %14.2f %10.2f %8.2f %14lld\n", r.engine.c_str(), r.wg.c_str(),
                    r.cells_per_item ? std::to_string(r.cells_per_item).c_str() : "-",
                    r.seconds * 1e3 / static_cast<double>(r.gens), ups / 1e9, 2 * ups / 1e9, base > 0 ? ups / base : 0,
                    static_cast<long long>(r.population));
    }
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "bench", "measure cell updates per second of engines on a random board (--kernel a,b,c to compare)");
    cmd->add_option("--size", o->size, "board size WxH")->default_val("4096x4096");
    cmd->add_option("--gens", o->gens, "generations timed per engine")->default_val(100)->check(CLI::PositiveNumber);
    cmd->add_option("--warmup", o->warmup, "generations run before timing")->default_val(5)->check(CLI::NonNegativeNumber);
    cmd->add_option("--topology", o->topology, "torus or plane")->default_val("torus");
    cmd->add_option("--rule", o->rule, "Life-like rule")->default_val("B3/S23");
    cmd->add_option("--density", o->density, "share of live cells in the random board")
        ->default_val(0.3)
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--seed", o->seed, "random board seed")->default_val(1);
    cmd->add_flag("--json", o->json, "print one JSON object");
    cmd->add_flag("--autotune", o->autotune,
                  "sweep the option sets each engine names for the device (work-groups, rows, K), report the best");
    cmd->add_flag("--seed-setup", o->seed_setup,
                  "the seed's own setup: 160x160, 500 generations, 16x16 groups, beside its published figures");
    add_engine_options(*cmd, o->choice);
    cmd->callback([o, &exit_code] {
        if (o->seed_setup) {
            o->size = "160x160";
            o->gens = 500;
            if (o->choice.kernel.empty())
                o->choice.kernel = o->choice.backend == "sycl" ? "hierarchical,halo-tile,halo-tile-strided"
                                                               : "naive,local,local-strided";
            if (o->choice.backend == "cpu" && o->choice.kernel.find(':') == std::string::npos) o->choice.backend = "opencl";
        }
        const auto [w, h] = parse_size(o->size, "--size");
        const auto topology = parse_topology(o->topology);
        if (!topology || *topology == Topology::unbounded)
            throw InputError("--topology '" + o->topology + "' must be torus or plane for bench");
        const BoardSpec spec{w, h, *topology, parse_rule(o->rule).rule};
        std::vector<std::string> engines;
        for (const std::string& k : split(o->choice.kernel.empty() ? std::string() : o->choice.kernel)) {
            EngineChoice c = o->choice;
            c.kernel = k;
            engines.push_back(engine_name(c));
        }
        if (engines.empty()) engines.push_back(engine_name(o->choice));
        const EngineOptions base_options = engine_options(o->choice);
        const auto board = random_board(w, h, o->density, o->seed);

        std::vector<Result> results;
        for (const std::string& engine : engines) {
            EngineOptions eo = base_options;
            // The seed's GROUPSIZE 16: 16x16 work-items, and for the halo tile a 16x16 tile (18x18 items).
            if (o->seed_setup && o->choice.wg.empty()) {
                if (engine == "opencl:naive") eo.wg_width = eo.wg_height = 16;
                if (engine == "opencl:local" || engine == "sycl:halo-tile") eo.wg_width = eo.wg_height = 18;
                if (engine == "sycl:hierarchical") eo.wg_width = eo.wg_height = 16;  // the tutorial's own kernel
            }
            results.push_back(run_guarded(engine, spec, eo, board, o->warmup, o->gens));
            // Some devices cap this kernel below 18x18 = 324 work-items (NVIDIA's OpenCL reports 256 on
            // the H100): the seed's GROUPSIZE 16 then means a 16x16 group, a 14x14 tile.
            if (o->seed_setup && o->choice.wg.empty() && (engine == "opencl:local" || engine == "sycl:halo-tile") &&
                !results.back().error.empty()) {
                eo.wg_width = eo.wg_height = 16;
                results.back() = run_guarded(engine, spec, eo, board, o->warmup, o->gens);
            }
        }

        struct Tuned {
            std::string engine;
            std::vector<Result> runs;
            std::vector<int> rows;   // rows per item of each run (0: not applicable)
            std::vector<int> steps;  // generations per launch of each run (0: not applicable)
        };
        std::vector<Tuned> tuned;
        // Autotune: the option sets each engine names for this device (describe().autotune).
        if (o->autotune)
            for (const std::string& engine : engines) {
                const auto candidates = create_engine(engine, spec, base_options)->describe().autotune;
                if (candidates.empty()) continue;
                Tuned t{engine, {}, {}, {}};
                for (const EngineOptions& eo : candidates) {
                    t.runs.push_back(run_guarded(engine, spec, eo, board, o->warmup, o->gens));
                    t.rows.push_back(static_cast<int>(eo.param_int("rows", 0)));
                    t.steps.push_back(eo.steps_per_launch);
                }
                tuned.push_back(std::move(t));
            }

        const bool failed = std::all_of(results.begin(), results.end(), [](const Result& r) { return !r.error.empty(); });
        const double base = base_rate(results);
        auto best_of = [](const Tuned& t) {
            std::size_t best = t.runs.size();
            for (std::size_t i = 0; i < t.runs.size(); ++i)
                if (t.runs[i].error.empty() &&
                    (best == t.runs.size() || t.runs[i].updates_per_second() > t.runs[best].updates_per_second()))
                    best = i;
            return best;
        };
        // The seed-setup comparison: whole-run microseconds (kernel time and wall clock).
        auto seed_micros = [&](const char* engine) -> const Result* {
            for (const Result& r : results)
                if (r.engine == engine && r.error.empty()) return &r;
            return nullptr;
        };

        if (o->json) {
            std::ostringstream js;
            js << "{\"command\":\"bench\",\"size\":[" << w << "," << h << "],\"topology\":" << json_string(o->topology)
               << ",\"rule\":" << json_string(spec.rule.to_string()) << ",\"density\":" << o->density
               << ",\"seed\":" << o->seed << ",\"warmup\":" << o->warmup << ",\"generations\":" << o->gens
               << ",\"bytes_counted\":" << json_string(kBytesNote) << ",\"results\":[";
            for (std::size_t i = 0; i < results.size(); ++i)
                js << (i ? "," : "")
                   << result_json(results[i], base > 0 ? results[i].updates_per_second() / base : 0);
            js << "]";
            if (o->autotune) {
                js << ",\"autotune\":[";
                for (std::size_t i = 0; i < tuned.size(); ++i) {
                    const Tuned& t = tuned[i];
                    const std::size_t best = best_of(t);
                    js << (i ? "," : "") << "{\"engine\":" << json_string(t.engine) << ",\"runs\":[";
                    for (std::size_t k = 0; k < t.runs.size(); ++k) {
                        std::string one = result_json(t.runs[k], base > 0 ? t.runs[k].updates_per_second() / base : 0);
                        if (t.rows[k]) one.insert(one.size() - 1, ",\"rows_per_item\":" + std::to_string(t.rows[k]));
                        if (t.steps[k]) one.insert(one.size() - 1, ",\"steps_per_launch\":" + std::to_string(t.steps[k]));
                        js << (k ? "," : "") << one;
                    }
                    js << "],\"best\":"
                       << (best < t.runs.size()
                               ? json_string(t.runs[best].wg + (t.rows[best] ? " rows " + std::to_string(t.rows[best]) : "") +
                                             (t.steps[best] ? " steps " + std::to_string(t.steps[best]) : ""))
                               : "null")
                       << "}";
                }
                js << "]";
            }
            if (o->seed_setup) {
                js << ",\"seed_setup\":{\"published_local_us\":" << kSeedLocalMicros
                   << ",\"published_no_local_us\":" << kSeedNoLocalMicros;
                for (auto [key, engine] : {std::pair{"no_local", "opencl:naive"}, std::pair{"local", "opencl:local"},
                                           std::pair{"local_strided", "opencl:local-strided"},
                                           std::pair{"sycl_hierarchical", "sycl:hierarchical"},
                                           std::pair{"sycl_halo_tile", "sycl:halo-tile"},
                                           std::pair{"sycl_halo_tile_strided", "sycl:halo-tile-strided"}})
                    if (const Result* r = seed_micros(engine))
                        js << ",\"" << key << "_kernel_us\":" << fixed(r->seconds * 1e6, 1) << ",\"" << key
                           << "_wall_us\":" << fixed(r->wall_seconds * 1e6, 1);
                js << "}";
            }
            js << "}";
            std::cout << js.str() << "\n";
        } else {
            std::printf("board %lldx%lld %s %s, density %.2f, seed %llu; %lld warm-up + %lld timed generations\n",
                        static_cast<long long>(w), static_cast<long long>(h), o->topology.c_str(),
                        spec.rule.to_string().c_str(), o->density, static_cast<unsigned long long>(o->seed),
                        static_cast<long long>(o->warmup), static_cast<long long>(o->gens));
            for (const Result& r : results)
                if (!r.device.empty()) {
                    std::printf("device %s\n", r.device.c_str());
                    break;
                }
            std::printf("timing: OpenCL and SYCL = sum of kernel durations from profiling events (no transfers); CPU = "
                        "wall clock of step()\n%s\n\n",
                        kBytesNote);
            print_table(results, "ratio");
            if (o->autotune)
                for (const Tuned& t : tuned) {
                    std::printf("\nautotune %s (ratio to the first table's base):\n", t.engine.c_str());
                    std::vector<Result> runs = t.runs;
                    for (std::size_t k = 0; k < runs.size(); ++k) {
                        if (t.rows[k]) runs[k].wg += "/r" + std::to_string(t.rows[k]);
                        if (t.steps[k]) runs[k].wg += "/k" + std::to_string(t.steps[k]);
                    }
                    std::vector<Result> with_base = results;  // keep ratios comparable with the table above
                    std::printf("%-24s %-14s %6s %12s %14s %10s %8s %14s\n", "engine", "wg[/rows][/K]", "cells", "ms/gen",
                                "G updates/s", "GB/s", "ratio", "population");
                    for (const Result& r : runs) {
                        if (!r.error.empty()) {
                            std::printf("%-24s %-14s  n/a: %s\n", r.engine.c_str(), r.wg.c_str(), r.error.c_str());
                            continue;
                        }
                        const double ups = r.updates_per_second();
                        std::printf("%-24s %-14s %6d %12.4f %14.2f %10.2f %8.2f %14lld\n", r.engine.c_str(), r.wg.c_str(),
                                    r.cells_per_item, r.seconds * 1e3 / static_cast<double>(r.gens), ups / 1e9,
                                    2 * ups / 1e9, base > 0 ? ups / base : 0, static_cast<long long>(r.population));
                    }
                    const std::size_t best = best_of(t);
                    if (best < runs.size())
                        std::printf("best for %s: --wg %s%s%s (%.2f G updates/s)\n", t.engine.c_str(), t.runs[best].wg.c_str(),
                                    t.steps[best] ? (" --steps-per-launch " + std::to_string(t.steps[best])).c_str() : "",
                                    t.rows[best] ? (" --param rows=" + std::to_string(t.rows[best])).c_str() : "",
                                    runs[best].updates_per_second() / 1e9);
                }
            if (o->seed_setup) {
                std::printf("\nseed setup (160x160, 500 generations, GROUPSIZE 16), whole run in microseconds:\n");
                std::printf("%-22s %14s %14s %18s\n", "", "kernels (us)", "wall (us)", "seed published (us)");
                for (auto [label, engine, published] :
                     {std::tuple{"no local (naive)", "opencl:naive", kSeedNoLocalMicros},
                      std::tuple{"local (halo tile)", "opencl:local", kSeedLocalMicros},
                      std::tuple{"local-strided", "opencl:local-strided", 0.0},
                      std::tuple{"sycl hierarchical", "sycl:hierarchical", 0.0},
                      std::tuple{"sycl halo-tile", "sycl:halo-tile", 0.0},
                      std::tuple{"sycl halo-tile-strided", "sycl:halo-tile-strided", 0.0}}) {
                    const Result* r = seed_micros(engine);
                    if (!r) continue;
                    std::printf("%-22s %14.1f %14.1f %18s\n", label, r->seconds * 1e6, r->wall_seconds * 1e6,
                                published > 0 ? fixed(published, 0).c_str() : "-");
                }
                std::printf("(the seed's figures come from its own hardware; compare ratios: seed no-local/local = %.2f)\n",
                            kSeedNoLocalMicros / kSeedLocalMicros);
            }
        }
        // Every engine failing is a failed bench, with the first engine's error (InputError for a bad
        // --wg, RuntimeError for a missing device); a partial failure is reported in the table.
        if (failed) std::rethrow_exception(results.front().exception);
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
