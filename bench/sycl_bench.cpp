// tilelife_sycl_bench: times one engine configuration through the generic engine interface, with the
// engine parameters the CLI does not expose (`--param reduction=tree`, `--param neighbours=...`), and
// optionally the population() call and a whole run with its transfers. Any registered engine (the
// OpenCL twins too, in a build that has both backends). The random board is the one `tilelife bench`
// makes (same seed, same density), so populations can be compared with its output. Prints one JSON
// object. Used by bench/h100-sycl.sh and bench/cpu-sycl.sh.
//   tilelife_sycl_bench ENGINE [--size WxH] [--gens N] [--warmup N] [--repeats R] [--topology torus|plane]
//       [--rule R] [--wg WxH] [--steps-per-launch K] [--device D] [--param KEY=VALUE]...
//       [--population-repeats N] [--whole-run]
// --repeats R times R consecutive chunks of N generations and reports the median chunk (all of them
// in ms_per_generation_all). --whole-run then times, R times on the same engine, what a user's run
// costs: write the board, N generations, read the whole board back (wall clock, median).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace {

using namespace tilelife;

// `tilelife bench`'s board: splitmix64, eight cells per draw (src/cli/cmd_bench.cpp).
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

std::pair<std::int64_t, std::int64_t> size_of(const std::string& text) {
    const auto x = text.find_first_of("xX");
    if (x == std::string::npos) throw InputError("size '" + text + "' is not WxH");
    return {std::stoll(text.substr(0, x)), std::stoll(text.substr(x + 1))};
}

std::string json(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char u[8];
            std::snprintf(u, sizeof u, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += u;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string value_json(const DescriptionValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
    if (std::holds_alternative<std::nullptr_t>(v)) return "null";
    return json(std::get<std::string>(v));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"time one engine configuration (generic interface, engine parameters)"};
    std::string engine, size = "4096x4096", topology = "torus", rule = "B3/S23", wg, device;
    std::int64_t gens = 100, warmup = 5;
    int steps = 0, population_repeats = 0, repeats = 1;
    bool whole_run = false;
    double density = 0.3;
    std::uint64_t seed = 1;
    std::vector<std::string> params;
    app.add_option("engine", engine, "backend:kernel")->required();
    app.add_option("--size", size, "board WxH");
    app.add_option("--gens", gens, "generations timed");
    app.add_option("--warmup", warmup, "generations before timing");
    app.add_option("--topology", topology, "torus or plane");
    app.add_option("--rule", rule, "Life-like rule");
    app.add_option("--density", density, "share of live cells");
    app.add_option("--seed", seed, "random board seed");
    app.add_option("--wg", wg, "work-group WxH");
    app.add_option("--steps-per-launch", steps, "generations per launch");
    app.add_option("--device", device, "device of the engine's backend");
    app.add_option("--param", params, "engine parameter KEY=VALUE (repeatable)");
    app.add_option("--repeats", repeats, "timed chunks of --gens generations (median)")->check(CLI::PositiveNumber);
    app.add_option("--population-repeats", population_repeats, "time population() this many times (median)");
    app.add_flag("--whole-run", whole_run, "also time write + generations + read back, --repeats times (median)");
    CLI11_PARSE(app, argc, argv);
    try {
        register_builtin_engines();
        const auto [w, h] = size_of(size);
        const auto topo = parse_topology(topology);
        if (!topo || *topo == Topology::unbounded) throw InputError("--topology must be torus or plane");
        const BoardSpec spec{w, h, *topo, parse_rule(rule).rule};
        EngineOptions o;
        o.device = device;
        o.steps_per_launch = steps;
        if (!wg.empty()) {
            const auto [x, y] = size_of(wg);
            o.wg_width = static_cast<int>(x);
            o.wg_height = static_cast<int>(y);
        }
        for (const std::string& p : params) {
            const auto eq = p.find('=');
            if (eq == std::string::npos) throw InputError("--param '" + p + "' is not KEY=VALUE");
            o.params[p.substr(0, eq)] = p.substr(eq + 1);
        }
        const auto t_board = std::chrono::steady_clock::now();
        const auto board = random_board(w, h, density, seed);
        const double board_s = seconds_since(t_board);
        auto e = create_engine(engine, spec, o);
        const auto t_write = std::chrono::steady_clock::now();
        e->write_region(Box{0, 0, w, h}, board.data());
        const double write_s = seconds_since(t_write);
        e->step(warmup);
        (void)e->population();
        // Consecutive chunks of `gens` generations; the median chunk is the figure.
        struct Chunk {
            double kernel, span, wall;
        };
        std::vector<Chunk> chunks;
        bool profiled = false;
        for (int r = 0; r < repeats; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto timed = e->step_timed(gens);
            const double wall = seconds_since(t0);
            profiled = timed.has_value();
            chunks.push_back({timed ? timed->kernel_seconds : wall, timed ? timed->span_seconds : wall, wall});
        }
        std::vector<Chunk> sorted = chunks;
        std::sort(sorted.begin(), sorted.end(), [](const Chunk& a, const Chunk& b) { return a.kernel < b.kernel; });
        const Chunk mid = sorted[sorted.size() / 2];
        const double kernel = mid.kernel;
        std::vector<double> pops;
        std::int64_t population = e->population();
        for (int i = 0; i < population_repeats; ++i) {
            const auto tp = std::chrono::steady_clock::now();
            population = e->population();
            pops.push_back(seconds_since(tp));
        }
        std::sort(pops.begin(), pops.end());
        // A user's whole run: the board in, the generations, the whole board out (the engine and its
        // kernels already made). Its own median of `repeats`.
        std::vector<double> whole, whole_write, whole_read;
        if (whole_run) {
            std::vector<std::uint8_t> back(board.size());
            for (int r = 0; r < repeats; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                e->write_region(Box{0, 0, w, h}, board.data());
                const double wr = seconds_since(t0);
                e->step(gens);
                const auto t1 = std::chrono::steady_clock::now();
                e->read_region(Box{0, 0, w, h}, back.data());
                whole_read.push_back(seconds_since(t1));
                whole.push_back(seconds_since(t0));
                whole_write.push_back(wr);
            }
            for (auto* v : {&whole, &whole_write, &whole_read}) std::sort(v->begin(), v->end());
        }
        const EngineDescription d = e->describe();
        std::ostringstream js;
        js << "{\"engine\":" << json(engine) << ",\"size\":[" << w << "," << h << "],\"topology\":" << json(topology)
           << ",\"rule\":" << json(spec.rule.to_string()) << ",\"density\":" << density << ",\"seed\":" << seed
           << ",\"warmup\":" << warmup << ",\"generations\":" << gens << ",\"device\":" << json(d.device)
           << ",\"wg\":\"" << d.wg_width << "x" << d.wg_height << "\",\"cells_per_item\":" << d.cells_per_item
           << ",\"steps_per_launch\":" << d.steps_per_launch << ",\"params\":{";
        bool first = true;
        for (const auto& [k, v] : o.params) js << (first ? "" : ",") << json(k) << ":" << json(v), first = false;
        js << "},\"properties\":{";
        first = true;
        for (const auto& [k, v] : d.properties) js << (first ? "" : ",") << json(k) << ":" << value_json(v), first = false;
        js << "},\"timing\":" << json(profiled ? "profiling events" : "wall clock") << ",\"repeats\":" << repeats
           << ",\"seconds\":" << kernel << ",\"span_seconds\":" << mid.span << ",\"wall_seconds\":" << mid.wall
           << ",\"ms_per_generation\":" << kernel * 1e3 / static_cast<double>(gens) << ",\"ms_per_generation_all\":[";
        for (std::size_t i = 0; i < chunks.size(); ++i)
            js << (i ? "," : "") << chunks[i].kernel * 1e3 / static_cast<double>(gens);
        js << "]"
           << ",\"cell_updates_per_second\":" << static_cast<double>(w) * static_cast<double>(h) * static_cast<double>(gens) / kernel
           << ",\"population\":" << population << ",\"board_seconds\":" << board_s << ",\"write_seconds\":" << write_s;
        if (!pops.empty())
            js << ",\"population_median_ms\":" << pops[pops.size() / 2] * 1e3 << ",\"population_min_ms\":" << pops.front() * 1e3;
        if (!whole.empty())
            js << ",\"whole_run_us\":" << whole[whole.size() / 2] * 1e6 << ",\"whole_run_min_us\":" << whole.front() * 1e6
               << ",\"whole_write_us\":" << whole_write[whole_write.size() / 2] * 1e6
               << ",\"whole_read_us\":" << whole_read[whole_read.size() / 2] * 1e6;
        js << "}";
        std::cout << js.str() << std::endl;
        return 0;
    } catch (const InputError& e) {
        std::cout << "{\"engine\":" << json(engine) << ",\"error\":" << json(e.what()) << "}" << std::endl;
        return 2;
    } catch (const std::exception& e) {
        std::cout << "{\"engine\":" << json(engine) << ",\"error\":" << json(e.what()) << "}" << std::endl;
        return 1;
    }
}
