// tilelife-mpi-bench: cell-update rates of the distributed engine on boards too large to pass
// through one process, checked for exactness. Run under mpirun (one rank per device):
//
//   mpirun -np 2 --bind-to none tilelife-mpi-bench --engine opencl:bitpacked --size 65536x65536
//
// Each rank fills its own band with a soup that is a function of the cell's position (a hash of
// seed, row and 64-cell word), so any process can recompute any part of the starting board. Then:
// 1. --check-gens generations, after which windows across every band seam, the torus seams and
//    the board's corners are compared with cpu:bitpacked run on the window's light cone;
// 2. --warmup generations, then --repeats timed runs of --gens generations (wall clock on every
//    rank, from a barrier to a population count that waits for the devices);
// 3. a fingerprint of the whole final board (a hash of every row's words), equal for any number
//    of ranks when the runs are exact; --exchanges N times N bare ghost exchanges.
// Rank 0 prints one JSON object per run (docs/distributed.md explains the fields).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

#include "mpi/distributed.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"

using namespace tilelife;

namespace {

std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The starting board: word i of row y (cells 64i .. 64i+63), density 1/2, bits past the width 0.
struct Soup {
    std::uint64_t seed = 1;
    std::int64_t width = 0;
    std::uint64_t word(std::int64_t y, std::int64_t i) const {
        const std::int64_t nw = (width + 63) / 64;
        std::uint64_t v = mix(seed * 0x100000001b3ull ^ mix(static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(nw) +
                                                            static_cast<std::uint64_t>(i)));
        if (i == nw - 1 && width % 64) v &= (std::uint64_t{1} << (width % 64)) - 1;
        return v;
    }
    bool cell(std::int64_t x, std::int64_t y) const { return (word(y, x / 64) >> (x % 64)) & 1u; }
};

struct Args {
    std::string engine = "cpu:bitpacked", size = "4096x4096", topology = "torus", rule = "B3/S23", device;
    std::int64_t gens = 0, warmup = 0, repeats = 3, ghost = 0, check_gens = -1, exchanges = 0, transfers = 0;
    std::uint64_t seed = 1;
    int threads = 0, steps_per_launch = 0;
    bool bytes = false, largest = false, fingerprint = true, overlap = true;
    std::vector<std::string> params;
    std::int64_t largest_step = 1024;  // --largest: row granularity of the search
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Largest height of a width-W torus one engine of this rank's device holds (a multiple of `step`
// rows), found by creating boards: doubling, then halving the interval.
std::int64_t largest_rows(const std::string& engine, const BoardSpec& base, const EngineOptions& options,
                          std::int64_t step) {
    auto fits = [&](std::int64_t rows) {
        BoardSpec s = base;
        s.height = rows;
        try {
            auto e = create_engine(engine, s, options);
            e->step(1);
            return true;
        } catch (const std::exception&) {
            return false;
        }
    };
    std::int64_t ok = 0, bad = step;
    while (bad <= (std::int64_t{1} << 40) / base.width && fits(bad)) ok = bad, bad *= 2;
    while (bad - ok > step) {
        const std::int64_t mid = (ok + bad) / 2 / step * step;
        if (mid <= ok) break;
        (fits(mid) ? ok : bad) = mid;
    }
    return ok;
}

// The windows compared after the check run: across each band's first row (the torus seam for
// rank 0), at the left edge, the middle and the right edge, and the board's bottom rows.
std::vector<Box> windows(const mpi::Layout& layout, std::int64_t ww, std::int64_t wh) {
    const std::int64_t W = layout.width, H = layout.height;
    ww = std::min(ww, W), wh = std::min(wh, H);
    std::vector<std::int64_t> ys;
    for (int r = 0; r < layout.active; ++r) ys.push_back(std::clamp(layout.first_row(r) - wh / 2, std::int64_t{0}, H - wh));
    ys.push_back(H - wh);
    std::vector<Box> out;
    for (std::int64_t y : ys)
        for (std::int64_t x : {std::int64_t{0}, (W - ww) / 2, W - ww}) out.push_back(Box{x, y, ww, wh});
    return out;
}

// The window's cells after `gens` generations, from cpu:bitpacked on its light cone (the window
// grown by `gens` cells; cut at a plane's edges, which are the board's own; wrapped on a torus).
std::vector<std::uint8_t> expected(const Soup& soup, const BoardSpec& board, const Box& win, std::int64_t gens) {
    Box cone = grow(win, gens);
    const bool torus = board.topology == Topology::torus;
    if (!torus) cone = intersect(cone, Box{0, 0, board.width, board.height});
    BoardSpec s = board;
    s.width = cone.width, s.height = cone.height, s.topology = Topology::plane;
    auto e = create_engine("cpu:bitpacked", s);
    std::vector<std::uint8_t> start(static_cast<std::size_t>(cone.width * cone.height));
    for (std::int64_t y = 0; y < cone.height; ++y)
        for (std::int64_t x = 0; x < cone.width; ++x) {
            const std::int64_t gx = ((cone.x + x) % board.width + board.width) % board.width;
            const std::int64_t gy = ((cone.y + y) % board.height + board.height) % board.height;
            start[static_cast<std::size_t>(y * cone.width + x)] = soup.cell(gx, gy);
        }
    e->write_region(Box{0, 0, cone.width, cone.height}, start.data());
    e->step(gens);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(win.width * win.height));
    e->read_region(Box{win.x - cone.x, win.y - cone.y, win.width, win.height}, out.data());
    return out;
}

int run(const Args& a) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto cross = a.size.find('x');
    if (cross == std::string::npos) throw InputError("--size must be WxH");
    BoardSpec spec;
    spec.width = std::stoll(a.size.substr(0, cross));
    spec.height = std::stoll(a.size.substr(cross + 1));
    const auto topo = parse_topology(a.topology);
    if (!topo) throw InputError("--topology must be torus or plane");
    spec.topology = *topo;
    spec.rule = parse_rule(a.rule).rule;
    EngineOptions options;
    options.device = a.device;
    options.threads = a.threads;
    options.steps_per_launch = a.steps_per_launch;
    for (const std::string& p : a.params) {
        const auto eq = p.find('=');
        if (eq == std::string::npos) throw InputError("--param takes NAME=VALUE");
        options.params[p.substr(0, eq)] = p.substr(eq + 1);
    }
    mpi::DistributedOptions dist;
    dist.ghost_rows = a.ghost;
    dist.packed = !a.bytes;
    dist.overlap = a.overlap;

    double t0 = MPI_Wtime();
    std::int64_t probed = 0;
    if (a.largest) {
        // Every rank probes its own device; the board is what the smallest holds, times the ranks.
        EngineOptions o = options;
        const auto node = mpi::node_rank(MPI_COMM_WORLD);
        o.device = mpi::device_for_rank(a.engine.substr(0, a.engine.find(':')), a.device, node.first);
        const std::int64_t mine = largest_rows(a.engine, spec, o, a.largest_step);
        MPI_Allreduce(&mine, &probed, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
        if (probed == 0) throw RuntimeError("not even " + std::to_string(a.largest_step) + " rows fit");
        // Each band also keeps ghost rows: the same ghost depth the engine will choose.
        const std::int64_t g = a.ghost > 0 ? a.ghost : mpi::default_ghost_rows(a.engine, options);
        spec.height = size == 1 ? probed : size * (probed - 2 * g);
    }
    const double probe_seconds = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    mpi::DistributedEngine engine(a.engine, spec, options, MPI_COMM_WORLD, dist);
    const double create_seconds = MPI_Wtime() - t0;
    const mpi::Layout& layout = engine.layout();
    // Generations per run: the same for any number of ranks (so that runs compare), a multiple of
    // the ghost rows the engine chooses on several ranks.
    const std::int64_t G = a.ghost > 0 ? a.ghost : mpi::default_ghost_rows(a.engine, options);
    const std::int64_t gens = a.gens > 0 ? a.gens : 4 * G;
    const std::int64_t check_gens = a.check_gens >= 0 ? a.check_gens : 2 * G + 7;

    // Fill: every rank writes its own band, in pieces of about 64 MiB (the same number of
    // collective calls on every rank).
    t0 = MPI_Wtime();
    const Soup soup{a.seed, spec.width};
    const std::int64_t nw = (spec.width + 63) / 64;
    const std::int64_t piece = std::max<std::int64_t>(1, (std::int64_t{1} << 23) / nw);
    std::int64_t pieces = (engine.owned_rows() + piece - 1) / piece, most = 0;
    MPI_Allreduce(&pieces, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    {
        std::vector<std::uint64_t> words(static_cast<std::size_t>(std::min(piece, std::max<std::int64_t>(1, engine.owned_rows())) * nw));
        for (std::int64_t p = 0; p < most; ++p) {
            const std::int64_t y = engine.owned_first() + p * piece;
            const std::int64_t rows = std::clamp<std::int64_t>(engine.owned_first() + engine.owned_rows() - y, 0, piece);
#pragma omp parallel for schedule(static)
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t i = 0; i < nw; ++i) words[static_cast<std::size_t>(r * nw + i)] = soup.word(y + r, i);
            engine.write_owned_rows_packed(rows > 0 ? y : engine.owned_first(), rows, words.data());
        }
    }
    const double fill_seconds = MPI_Wtime() - t0;

    // 1. Exactness on windows across the seams.
    t0 = MPI_Wtime();
    engine.step(check_gens);
    std::int64_t checked = 0, mismatches = 0;
    for (const Box& w : windows(layout, 256, 64)) {
        std::vector<std::uint8_t> got(rank == 0 ? static_cast<std::size_t>(w.width * w.height) : 0);
        engine.read_region(w, got.data());
        if (rank != 0) continue;
        const std::vector<std::uint8_t> want = expected(soup, spec, w, check_gens);
        for (std::size_t k = 0; k < want.size(); ++k) mismatches += (want[k] != 0) != (got[k] != 0);
        checked += static_cast<std::int64_t>(want.size());
    }
    MPI_Bcast(&mismatches, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    const double check_seconds = MPI_Wtime() - t0;

    // 2. Timing.
    engine.step(a.warmup);
    (void)engine.population();
    const mpi::ExchangeStats before = engine.stats();
    std::vector<double> times, step_returned;  // whole timed runs; until step() returned
    std::int64_t population = 0;
    for (std::int64_t r = 0; r < a.repeats; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double s = MPI_Wtime();
        engine.step(gens);
        const double stepped = MPI_Wtime();
        population = engine.population();  // waits for the device: part of the timed run
        double mine[2] = {MPI_Wtime() - s, stepped - s}, slowest[2] = {0, 0};
        MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        times.push_back(slowest[0]);
        step_returned.push_back(slowest[1]);
    }
    mpi::ExchangeStats timed = engine.stats();
    // What the end of a timed run costs: one more run whose device work is waited for by reading one
    // owned row, then the population counted twice (the second time on an idle device).
    double after[4] = {0, 0, 0, 0};
    if (a.repeats > 0 && engine.owned_rows() > 0) {
        std::vector<std::uint64_t> row(static_cast<std::size_t>(nw));
        MPI_Barrier(MPI_COMM_WORLD);
        engine.step(gens);
        double t = MPI_Wtime();
        engine.read_owned_rows_packed(engine.owned_first(), 1, row.data());
        after[0] = MPI_Wtime() - t;
        t = MPI_Wtime();
        (void)engine.population();
        after[1] = MPI_Wtime() - t;
        t = MPI_Wtime();
        (void)engine.population();
        after[2] = MPI_Wtime() - t;
        if (const Engine* local = engine.local_engine()) {  // its part: the band and ghost rows on the device
            t = MPI_Wtime();
            (void)local->population();
            after[3] = MPI_Wtime() - t;
        }
    } else if (a.repeats > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        engine.step(gens);
        for (int k = 0; k < 2; ++k) (void)engine.population();
    }
    double after_max[4] = {0, 0, 0, 0};
    MPI_Allreduce(after, after_max, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    timed.exchanges -= before.exchanges;
    timed.read_seconds -= before.read_seconds;
    timed.mpi_seconds -= before.mpi_seconds;
    timed.write_seconds -= before.write_seconds;
    timed.step_seconds -= before.step_seconds;
    timed.agree_seconds -= before.agree_seconds;
    timed.agreements -= before.agreements;
    timed.bytes_sent -= before.bytes_sent;

    // 3. Bare exchanges, and the whole board's fingerprint.
    double exchange_seconds = 0;
    if (a.exchanges > 0 && layout.active >= 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double s = MPI_Wtime();
        for (std::int64_t k = 0; k < a.exchanges; ++k) engine.exchange();
        double mine = (MPI_Wtime() - s) / static_cast<double>(a.exchanges);
        MPI_Allreduce(&mine, &exchange_seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    // The exchange's transfers alone: each rank reads the rows it would send (its first and last
    // `ghost` owned rows) and writes them back where they were, without messages.
    double transfer_seconds = 0;
    if (a.transfers > 0) {
        const std::int64_t g = std::min(G, engine.owned_rows());
        std::vector<std::uint64_t> top(static_cast<std::size_t>(g * nw)), bottom(top.size());
        const std::int64_t y_top = engine.owned_first(), y_bottom = engine.owned_first() + engine.owned_rows() - g;
        (void)engine.population();  // the device is idle before timing
        MPI_Barrier(MPI_COMM_WORLD);
        const double s = MPI_Wtime();
        for (std::int64_t k = 0; k < a.transfers; ++k) {
            if (g > 0) {
                engine.read_owned_rows_packed(y_top, g, top.data());
                engine.read_owned_rows_packed(y_bottom, g, bottom.data());
            }
            engine.write_owned_rows_packed(y_top, g, top.data());
            engine.write_owned_rows_packed(y_bottom, g, bottom.data());
        }
        double mine = (MPI_Wtime() - s) / static_cast<double>(a.transfers);
        MPI_Allreduce(&mine, &transfer_seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    std::uint64_t fingerprint = 0;
    if (a.fingerprint) {
        std::uint64_t mine = 0;
        std::vector<std::uint64_t> words(static_cast<std::size_t>(std::min(piece, std::max<std::int64_t>(1, engine.owned_rows())) * nw));
        for (std::int64_t y = engine.owned_first(); y < engine.owned_first() + engine.owned_rows(); y += piece) {
            const std::int64_t rows = std::min(piece, engine.owned_first() + engine.owned_rows() - y);
            engine.read_owned_rows_packed(y, rows, words.data());
            std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t i = 0; i < nw; ++i)
                    sum += mix(words[static_cast<std::size_t>(r * nw + i)] ^ mix(static_cast<std::uint64_t>((y + r) * nw + i)));
            mine += sum;
        }
        MPI_Reduce(&mine, &fingerprint, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    }

    // Every rank's device (OpenCL engines name theirs), gathered as fixed-size text.
    char device[96] = {};
    if (engine.local_engine()) std::snprintf(device, sizeof device, "%s", engine.local_engine()->describe().device.c_str());
    std::vector<char> devices(rank == 0 ? sizeof device * static_cast<std::size_t>(size) : sizeof device);
    MPI_Gather(device, sizeof device, MPI_CHAR, devices.data(), sizeof device, MPI_CHAR, 0, MPI_COMM_WORLD);

    // Every rank's share of the timed runs.
    double part[8] = {timed.read_seconds, timed.mpi_seconds, timed.write_seconds, timed.step_seconds,
                      timed.agree_seconds, static_cast<double>(timed.exchanges),
                      static_cast<double>(timed.overlapped - before.overlapped), static_cast<double>(timed.agreements)};
    std::vector<double> parts(rank == 0 ? static_cast<std::size_t>(8 * size) : 8);
    MPI_Gather(part, 8, MPI_DOUBLE, parts.data(), 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        const double med = median(times);
        const double cells = static_cast<double>(spec.width) * static_cast<double>(spec.height);
        std::ostringstream js;
        js.precision(6);
        js << "{\"engine\":\"" << a.engine << "\",\"ranks\":" << size
           << ",\"width\":" << spec.width << ",\"height\":" << spec.height << ",\"cells\":" << cells
           << ",\"topology\":\"" << a.topology << "\",\"rule\":\"" << spec.rule.to_string() << "\",\"ghost\":"
           << engine.ghost_rows() << ",\"exchange\":\"" << (a.bytes ? "bytes" : "bits") << "\",\"overlap\":"
           << (!a.bytes && a.overlap ? "true" : "false") << ",\"gens\":" << gens
           << ",\"repeats\":" << a.repeats << ",\"seconds_median\":" << med
           << ",\"step_returned_median\":" << median(step_returned) << ",\"after_step\":{\"device\":" << after_max[0]
           << ",\"population\":" << after_max[1] << ",\"population_idle\":" << after_max[2] << ",\"local_population_idle\":" << after_max[3] << "},\"seconds\":[";
        for (std::size_t k = 0; k < times.size(); ++k) js << (k ? "," : "") << times[k];
        js << "],\"cell_updates_per_second\":" << (med > 0 ? cells * static_cast<double>(gens) / med : 0)
           << ",\"ms_per_gen\":" << med * 1e3 / static_cast<double>(gens) << ",\"population\":" << population
           << ",\"generation\":" << engine.generation() << ",\"fingerprint\":\"" << std::hex << fingerprint << std::dec
           << "\",\"check\":{\"gens\":" << check_gens << ",\"cells\":" << checked << ",\"mismatches\":" << mismatches
           << "},\"exchange_seconds\":" << exchange_seconds << ",\"transfer_seconds\":" << transfer_seconds << ",\"largest_rows_per_device\":" << probed
           << ",\"setup_seconds\":{\"probe\":" << probe_seconds << ",\"create\":" << create_seconds
           << ",\"fill\":" << fill_seconds << ",\"check\":" << check_seconds << "},\"per_rank\":[";
        for (int r = 0; r < size; ++r) {
            const double* p = parts.data() + 8 * r;
            js << (r ? "," : "") << "{\"device\":\"" << std::string(devices.data() + sizeof device * r) << "\",\"rows\":" << layout.rows(r) << ",\"read\":" << p[0] << ",\"mpi\":" << p[1]
               << ",\"write\":" << p[2] << ",\"step\":" << p[3] << ",\"agree\":" << p[4] << ",\"exchanges\":" << p[5]
               << ",\"overlapped\":" << p[6] << ",\"agreements\":" << p[7] << "}";
        }
        js << "]}";
        std::cout << js.str() << std::endl;
    }
    return mismatches == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    register_builtin_engines();
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Args a;
    CLI::App app{"tilelife-mpi-bench - the distributed engine's speed and exactness (run under mpirun)"};
    app.add_option("--engine", a.engine, "engine on each rank (the last one given)")
        ->capture_default_str()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.add_option("--size", a.size, "board WxH (with --largest: W, and H is found)")->capture_default_str();
    app.add_option("--topology", a.topology, "torus or plane")->capture_default_str();
    app.add_option("--rule", a.rule, "rule")->capture_default_str();
    app.add_option("--device", a.device, "device (empty: rank mod GPUs; a,b: one per rank)");
    app.add_option("--threads", a.threads, "CPU threads per rank (0: cores / ranks on the node)");
    app.add_option("--steps-per-launch", a.steps_per_launch, "OpenCL generations per launch");
    app.add_option("--param", a.params, "engine parameter NAME=VALUE");
    app.add_option("--gens", a.gens, "timed generations per repeat (default 4x the ghost rows)");
    app.add_option("--warmup", a.warmup, "generations before timing");
    app.add_option("--repeats", a.repeats, "timed runs (the median is reported)")->capture_default_str();
    app.add_option("--ghost", a.ghost, "ghost rows (0: the engine's choice)");
    app.add_option("--check-gens", a.check_gens, "generations before the window check (default 2x ghost + 7)");
    app.add_option("--exchanges", a.exchanges, "also time this many bare exchanges");
    app.add_option("--transfers", a.transfers, "also time this many rounds of an exchange's reads and writes alone");
    app.add_option("--seed", a.seed, "soup seed")->capture_default_str();
    app.add_flag("--bytes", a.bytes, "exchange through byte regions instead of bits");
    app.add_flag("!--no-overlap", a.overlap, "exchange after the step instead of overlapped with it");
    app.add_flag("--largest", a.largest, "the largest torus the devices hold, at --size's width");
    app.add_option("--largest-step", a.largest_step, "row granularity of --largest")->capture_default_str();
    app.add_flag("!--no-fingerprint", a.fingerprint, "skip hashing the final board");
    int code = 0;
    try {
        app.parse(argc, argv);
        code = run(a);
    } catch (const CLI::ParseError& e) {
        code = rank == 0 ? app.exit(e) : (e.get_exit_code() ? 2 : 0);
        if (e.get_exit_code()) code = 2;
    } catch (const InputError& e) {
        if (rank == 0) std::cerr << "tilelife-mpi-bench: " << e.what() << "\n";
        code = 2;
    } catch (const std::exception& e) {
        if (rank == 0) std::cerr << "tilelife-mpi-bench: " << e.what() << "\n";
        code = 1;
    }
    MPI_Finalize();
    return code;
}
