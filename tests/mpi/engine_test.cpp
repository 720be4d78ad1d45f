// The distributed engine against cpu:reference, run under `mpirun -np N` (N = 1..4, tests/mpi/
// CMakeLists.txt). Every test is collective: all ranks make the same calls; rank 0 compares.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <sstream>

#include "mpi/distributed.hpp"
#ifdef TILELIFE_HAVE_OPENCL
#include "opencl/api.hpp"
#endif
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

int rank_of() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int size_of() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

std::vector<std::uint8_t> random_cells(std::int64_t w, std::int64_t h, std::uint64_t seed, double density = 0.4) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
    for (auto& c : cells) c = (rng() >> 11) * (1.0 / 9007199254740992.0) < density ? 1 : 0;
    return cells;
}

BoardSpec spec_of(std::int64_t w, std::int64_t h, Topology t, const std::string& rule) {
    BoardSpec s;
    s.width = w;
    s.height = h;
    s.topology = t;
    s.rule = parse_rule(rule).rule;
    return s;
}

std::vector<std::uint8_t> whole(const Engine& e) {
    const Box b = e.extent();
    std::vector<std::uint8_t> out(static_cast<std::size_t>(b.width * b.height));
    e.read_region(b, out.data());  // collective for the distributed engine; filled on rank 0
    return out;
}

// "" when equal, else where the first difference is.
std::string first_difference(const std::vector<std::uint8_t>& want, const std::vector<std::uint8_t>& got, std::int64_t w) {
    if (want.size() != got.size()) return "sizes differ";
    for (std::size_t k = 0; k < want.size(); ++k)
        if ((want[k] != 0) != (got[k] != 0)) {
            std::ostringstream s;
            s << "cell (" << static_cast<std::int64_t>(k) % w << ", " << static_cast<std::int64_t>(k) / w << "): expected "
              << int(want[k] != 0);
            return s.str();
        }
    return "";
}

bool opencl_available() {
#ifdef TILELIFE_HAVE_OPENCL
    try {
        return find_engine("opencl:bitpacked") && !opencl::list_devices().empty();
    } catch (const std::exception&) {
    }
#endif
    return false;
}

struct Case {
    std::int64_t w, h;
    Topology topology;
    std::string rule;
    std::string engine = "cpu:bitpacked";
    std::int64_t ghost = 0;
    bool packed = true;
    bool overlap = true;
    std::string text() const {
        std::ostringstream s;
        s << engine << " " << w << "x" << h << " " << to_string(topology) << " " << rule << " ghost " << ghost
          << (packed ? "" : " bytes") << (overlap ? "" : " not overlapped") << " on " << size_of() << " ranks";
        return s.str();
    }
};

// Runs the case in chunks of generations, comparing the whole board and the population after each.
void check(const Case& c, const std::vector<std::int64_t>& chunks, std::uint64_t seed = 7) {
    SCOPED_TRACE(c.text());
    const bool root = rank_of() == 0;
    const BoardSpec spec = spec_of(c.w, c.h, c.topology, c.rule);
    mpi::DistributedOptions d;
    d.ghost_rows = c.ghost;
    d.packed = c.packed;
    d.overlap = c.overlap;
    mpi::DistributedEngine e(c.engine, spec, {}, MPI_COMM_WORLD, d);
    if (c.ghost > 0 && e.layout().active >= 2) {
        // Bands thinner than the ghost rows asked for cap them.
        std::int64_t thinnest = c.h;
        for (int r = 0; r < e.layout().active; ++r) thinnest = std::min(thinnest, e.layout().rows(r));
        EXPECT_EQ(e.ghost_rows(), std::min(c.ghost, thinnest));
    }
    const auto cells = random_cells(c.w, c.h, seed);
    e.write_region(Box{0, 0, c.w, c.h}, cells.data());
    std::unique_ptr<Engine> ref;
    if (root) {
        ref = create_engine("cpu:reference", spec);
        ref->write_region(Box{0, 0, c.w, c.h}, cells.data());
    }
    std::int64_t gen = 0;
    for (std::int64_t n : chunks) {
        e.step(n);
        gen += n;
        const auto got = whole(e);
        const std::int64_t pop = e.population();
        EXPECT_EQ(e.generation(), gen);
        if (!root) continue;
        ref->step(n);
        const auto want = whole(*ref);
        EXPECT_EQ(first_difference(want, got, c.w), "") << "after " << gen << " generations";
        EXPECT_EQ(pop, ref->population()) << "after " << gen << " generations";
    }
    // Every round that used up its ghost rows ended with an overlapped exchange, when asked for.
    if (e.layout().active >= 2 && c.packed && c.overlap && gen >= e.ghost_rows()) {
        EXPECT_GT(e.stats().overlapped, 0);
    } else {
        EXPECT_EQ(e.stats().overlapped, 0);
    }
}

TEST(Layout, BandsCoverTheBoardInOrder) {
    if (rank_of() != 0) return;
    for (std::int64_t h : {1, 2, 3, 5, 7, 16, 17, 100, 101})
        for (int ranks : {1, 2, 3, 4, 7}) {
            const mpi::Layout l = mpi::make_layout(10, h, ranks);
            EXPECT_EQ(l.active, std::min<std::int64_t>(ranks, h));
            std::int64_t next = 0, thinnest = h, thickest = 0;
            for (int r = 0; r < ranks; ++r) {
                EXPECT_EQ(l.first_row(r), next) << h << " rows, " << ranks << " ranks, rank " << r;
                for (std::int64_t y = l.first_row(r); y < l.first_row(r) + l.rows(r); ++y) EXPECT_EQ(l.owner(y), r);
                next += l.rows(r);
                if (r < l.active) thinnest = std::min(thinnest, l.rows(r)), thickest = std::max(thickest, l.rows(r));
                else EXPECT_EQ(l.rows(r), 0);
            }
            EXPECT_EQ(next, h);
            EXPECT_LE(thickest - thinnest, 1);
        }
}

// Odd sizes (widths off multiples of 64, heights off multiples of the rank count, bands of one
// row), both bounded topologies, several rules including B0 and S-only ones, several ghost depths.
TEST(Distributed, MatchesReferenceOnOddBoards) {
    const std::vector<std::string> rules = {"B3/S23", "B36/S23", "B2/S", "B0123478/S01234678", "B/S1234", "B3678/S34678"};
    const std::vector<std::pair<std::int64_t, std::int64_t>> sizes = {{1, 1}, {1, 9}, {9, 1}, {5, 3}, {13, 7},
                                                                      {31, 17}, {64, 5}, {65, 33}, {100, 41}, {130, 67}};
    int k = 0;
    for (const auto& [w, h] : sizes)
        for (Topology t : {Topology::torus, Topology::plane})
            for (std::int64_t ghost : {0, 1, 3}) {
                const Case c{w, h, t, rules[static_cast<std::size_t>(k++) % rules.size()], "cpu:bitpacked", ghost};
                check(c, {1, 2, 5, 3, 9, 40});
            }
}

// Ghost rows deeper than the bands (capped), an exchange after every generation, and long runs
// that cross the seams hundreds of times.
TEST(Distributed, BandsThinnerThanTheGhostRows) {
    check(Case{37, 5, Topology::torus, "B3/S23", "cpu:bitpacked", 8}, {1, 7, 8, 9, 30});
    check(Case{37, 6, Topology::plane, "B36/S23", "cpu:bitpacked", 40}, {3, 50});
    check(Case{70, 9, Topology::torus, "B0123478/S01234678", "cpu:bitpacked", 100}, {13, 51});
}

TEST(Distributed, LongRunsExchangeHundredsOfTimes) {
    check(Case{67, 61, Topology::torus, "B3/S23", "cpu:bitpacked", 1}, {1, 99, 200, 400});
    check(Case{129, 45, Topology::plane, "B3/S23", "cpu:bitpacked", 4}, {700});
}

// A glider on a small torus crosses every band seam and both torus seams many times.
TEST(Distributed, GliderCrossesTheTorusSeams) {
    const bool root = rank_of() == 0;
    const BoardSpec spec = spec_of(23, 19, Topology::torus, "B3/S23");
    mpi::DistributedEngine e("cpu:bitpacked", spec, {}, MPI_COMM_WORLD, {2, true});
    const std::vector<Cell> glider = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};
    e.set_cells(root ? glider : std::vector<Cell>{});
    auto ref = create_engine("cpu:reference", spec);
    ref->set_cells(glider);
    for (int round = 0; round < 12; ++round) {
        e.step(37);
        ref->step(37);
        const auto got = e.live_cells();
        EXPECT_EQ(e.population(), 5);
        if (root) {
            EXPECT_EQ(got, ref->live_cells()) << "after " << e.generation();
        }
    }
    // 4 * 23 * 19 generations bring it back to where it started.
    e.step(4 * 23 * 19 - e.generation());
    const auto back = e.live_cells();
    if (root) {
        EXPECT_EQ(back, glider);
    }
}

TEST(Distributed, CpuReferencePerRankAndByteExchange) {
    check(Case{41, 29, Topology::torus, "B36/S23", "cpu:reference", 3}, {1, 4, 20});
    check(Case{41, 29, Topology::plane, "B3/S23", "cpu:bitpacked", 3, false}, {1, 4, 20});
    check(Case{200, 30, Topology::torus, "B2/S", "cpu:bitpacked", 5, false}, {11});
}

TEST(Distributed, OpenCLBitpackedPerRank) {
    if (!opencl_available()) GTEST_SKIP() << "no OpenCL device";
    check(Case{97, 45, Topology::torus, "B3/S23", "opencl:bitpacked", 0}, {1, 10, 30});
    check(Case{65, 33, Topology::plane, "B36/S23", "opencl:bitpacked", 5}, {3, 17});
}

// The exchange overlapped with the step (Engine::step_reading_rows; the default in the cases
// above) against the exchange after it: chunks that end rounds early, late and exactly, on
// engines with and without their own step_reading_rows.
TEST(Distributed, OverlappedAndAfterTheStepExchangesAgree) {
    for (bool overlap : {true, false}) {
        Case c{67, 41, Topology::torus, "B3/S23", "cpu:bitpacked", 4};
        c.overlap = overlap;
        check(c, {1, 3, 4, 8, 5, 7, 40});
        Case p{130, 37, Topology::plane, "B36/S23", "cpu:reference", 3};
        p.overlap = overlap;
        check(p, {3, 3, 1, 2, 30});
    }
}

// opencl:bitpacked runs the tiles of the edge rows first in the last launch of a round and reads
// them on a second queue into page-locked staging while the others compute: bands of several tile
// rows (on a CPU device: 24 rows per tile row), rounds of whole launches and with a shorter last
// launch, widths whose rows end in a half 64-bit word (padding cleared).
TEST(Distributed, OpenCLOverlappedExchange) {
    if (!opencl_available()) GTEST_SKIP() << "no OpenCL device";
    check(Case{200, 300, Topology::torus, "B3/S23", "opencl:bitpacked", 0}, {1, 31, 64, 100});
    check(Case{65, 257, Topology::plane, "B36/S23", "opencl:bitpacked", 5}, {5, 12, 40});
    check(Case{97, 199, Topology::torus, "B3678/S34678", "opencl:bitpacked", 13}, {13, 26, 50});
}

#ifdef TILELIFE_TEST_HAVE_SYCL
// sycl:bitpacked per rank, in builds with a SYCL compiler: its packed rows through malloc_host
// staging, the exchange overlapped (rows read into its staging after the step, ghost rows received
// into write_staging) and after the step, widths whose device rows end in a padding word.
TEST(Distributed, SyclBitpackedPerRank) {
    for (bool overlap : {true, false}) {
        Case c{200, 45, Topology::torus, "B3/S23", "sycl:bitpacked", 0};
        c.overlap = overlap;
        check(c, {1, 10, 30});
        Case p{65, 33, Topology::plane, "B36/S23", "sycl:bitpacked", 5};
        p.overlap = overlap;
        check(p, {3, 17});
    }
}
#endif

// step_reading_rows of one engine: after the step, the rows read are the board's rows (any
// ranges, overlapping ones, the first and last rows, empty ones), and the board goes on exactly
// (sycl:bitpacked: read from its staging after the step, in SYCL builds).
TEST(Distributed, StepReadingRowsReadsTheSteppedRows) {
    if (rank_of() != 0) return;
    std::vector<std::string> engines = {"cpu:bitpacked", "cpu:reference"};
    if (opencl_available()) engines.push_back("opencl:bitpacked");
#ifdef TILELIFE_TEST_HAVE_SYCL
    engines.push_back("sycl:bitpacked");
#endif
    for (const std::string& name : engines)
        for (std::int64_t w : {1, 65, 96, 200}) {
            SCOPED_TRACE(name + " width " + std::to_string(w));
            const std::int64_t h = 150, nw = (w + 63) / 64;
            const BoardSpec spec = spec_of(w, h, Topology::torus, "B3/S23");
            auto e = create_engine(name, spec);
            auto ref = create_engine("cpu:reference", spec);
            const auto cells = random_cells(w, h, 11);
            e->write_region(Box{0, 0, w, h}, cells.data());
            ref->write_region(Box{0, 0, w, h}, cells.data());
            const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {{0, 7}, {143, 7}, {60, 30}, {70, 1}, {20, 0}};
            for (std::int64_t n : {1, 4, 9, 22}) {
                std::vector<std::vector<std::uint64_t>> bufs;
                std::vector<Engine::RowsRead> reads;
                for (auto [y, rows] : ranges) bufs.emplace_back(static_cast<std::size_t>(std::max<std::int64_t>(rows, 1) * nw), ~0ull);
                for (std::size_t k = 0; k < ranges.size(); ++k) reads.push_back({ranges[k].first, ranges[k].second, bufs[k].data()});
                std::vector<std::vector<std::uint64_t>> got;
                e->step_reading_rows(n, reads, [&](const std::vector<const std::uint64_t*>& where) {
                    ASSERT_EQ(where.size(), ranges.size());
                    for (std::size_t k = 0; k < ranges.size(); ++k)
                        got.emplace_back(where[k], where[k] + ranges[k].second * nw);
                });
                ref->step(n);
                ASSERT_EQ(got.size(), ranges.size());
                for (std::size_t k = 0; k < ranges.size(); ++k) {
                    std::vector<std::uint64_t> want(static_cast<std::size_t>(ranges[k].second * nw));
                    ref->read_rows_packed(ranges[k].first, ranges[k].second, want.data());
                    EXPECT_EQ(got[k], want) << "rows " << ranges[k].first << "+" << ranges[k].second << " after "
                                            << ref->generation();
                }
                EXPECT_EQ(first_difference(whole(*ref), whole(*e), w), "") << "after " << ref->generation();
            }
        }
}

// Rows written from the engine's own staging (write_staging: where the distributed engine receives
// ghost rows) are written, round after round (the staging is reused once its writes are done),
// between steps, exactly as from the caller's memory.
TEST(Distributed, RowsWrittenFromTheEnginesStaging) {
    if (rank_of() != 0) return;
    std::vector<std::string> engines = {"cpu:bitpacked"};
    if (opencl_available()) engines.push_back("opencl:bitpacked");
#ifdef TILELIFE_TEST_HAVE_SYCL
    engines.push_back("sycl:bitpacked");
#endif
    for (const std::string& name : engines)
        for (std::int64_t w : {1, 33, 65, 200}) {
            SCOPED_TRACE(name + " width " + std::to_string(w));
            const std::int64_t h = 120, nw = (w + 63) / 64, n = 9;
            const BoardSpec spec = spec_of(w, h, Topology::torus, "B3/S23");
            auto e = create_engine(name, spec);
            auto ref = create_engine("cpu:reference", spec);
            const auto cells = random_cells(w, h, 12);
            e->write_region(Box{0, 0, w, h}, cells.data());
            ref->write_region(Box{0, 0, w, h}, cells.data());
            std::mt19937_64 rng(5);
            std::vector<std::uint64_t> mine(static_cast<std::size_t>(2 * n * nw));
            for (int round = 0; round < 7; ++round) {
                std::uint64_t* rows = e->write_staging(mine.size());
                if (name != "cpu:bitpacked") {  // the device engines have staging
                    ASSERT_NE(rows, nullptr);
                }
                if (!rows) rows = mine.data();
                for (std::int64_t r = 0; r < 2 * n; ++r)
                    for (std::int64_t i = 0; i < nw; ++i)
                        rows[r * nw + i] = rng() & (i == nw - 1 && w % 64 ? (1ull << (w % 64)) - 1 : ~0ull);
                const std::int64_t y1 = (round * 13) % (h - n), y2 = (round * 29 + 50) % (h - n);
                std::vector<std::uint64_t> copy(rows, rows + 2 * n * nw);
                e->write_rows_packed(y1, n, rows);
                e->write_rows_packed(y2, n, rows + n * nw);
                ref->write_rows_packed(y1, n, copy.data());
                ref->write_rows_packed(y2, n, copy.data() + n * nw);
                e->step(round + 1);
                ref->step(round + 1);
                EXPECT_EQ(first_difference(whole(*ref), whole(*e), w), "") << "round " << round;
            }
        }
}

// population() after an overlapped step counts the ghost rows where they arrived (the engine's
// write staging for opencl:bitpacked) instead of reading them back; owned rows written after the
// step reuse that staging, and the count must not use what they left there.
TEST(Distributed, PopulationAfterRowsWrittenBehindAnOverlappedStep) {
    if (!opencl_available()) GTEST_SKIP() << "no OpenCL device";
    const bool root = rank_of() == 0;
    const std::int64_t w = 130, h = 97, nw = (w + 63) / 64;
    const BoardSpec spec = spec_of(w, h, Topology::torus, "B3/S23");
    mpi::DistributedEngine e("opencl:bitpacked", spec, {}, MPI_COMM_WORLD, {4, true, true});
    std::unique_ptr<Engine> ref;
    const auto cells = random_cells(w, h, 21);
    e.write_region(Box{0, 0, w, h}, cells.data());
    if (root) {
        ref = create_engine("cpu:reference", spec);
        ref->write_region(Box{0, 0, w, h}, cells.data());
    }
    for (int round = 0; round < 3; ++round) {
        e.step(8);
        if (root) ref->step(8);
        const std::int64_t stepped = e.population();  // collective
        if (root) {
            EXPECT_EQ(stepped, ref->population()) << "round " << round;
        }
        // Every rank writes one row of its band at a time, many times over the staging's size.
        auto row_of = [&](int k, int r, std::int64_t& y) {
            std::vector<std::uint64_t> row(static_cast<std::size_t>(nw));
            y = e.layout().first_row(r) + (k * 7 + round) % e.layout().rows(r);
            std::mt19937_64 rng(static_cast<std::uint64_t>(1000 * round + 10 * k + r));
            for (std::int64_t i = 0; i < nw; ++i) row[i] = rng() & (i == nw - 1 ? (1ull << (w % 64)) - 1 : ~0ull);
            return row;
        };
        for (int k = 0; k < 24; ++k) {
            std::int64_t y = 0;
            const auto mine = row_of(k, rank_of(), y);
            e.write_owned_rows_packed(y, 1, mine.data());  // collective
            if (root)
                for (int r = 0; r < e.layout().active; ++r) {
                    const auto row = row_of(k, r, y);
                    ref->write_rows_packed(y, 1, row.data());
                }
        }
        const std::int64_t pop = e.population();
        const auto got = whole(e);
        if (!root) continue;
        EXPECT_EQ(pop, ref->population()) << "round " << round;
        EXPECT_EQ(first_difference(whole(*ref), got, w), "") << "round " << round;
    }
}

// Writes between steps (partial rows across seams), sparse access, regions, single cells.
TEST(Distributed, RegionsAndCellsBetweenSteps) {
    const bool root = rank_of() == 0;
    for (Topology t : {Topology::torus, Topology::plane}) {
        SCOPED_TRACE(std::string(to_string(t)));
        const BoardSpec spec = spec_of(75, 43, t, "B3/S23");
        mpi::DistributedEngine e("cpu:bitpacked", spec, {}, MPI_COMM_WORLD, {3, true});
        auto ref = create_engine("cpu:reference", spec);
        auto cells = random_cells(75, 43, 11);
        e.write_region(Box{0, 0, 75, 43}, cells.data());
        ref->write_region(Box{0, 0, 75, 43}, cells.data());
        e.step(5);
        ref->step(5);
        // A box across every band seam, and one at the right edge.
        const Box box{7, 2, 30, 39}, edge{60, 20, 15, 23};
        const auto patch = random_cells(box.width, box.height, 12, 0.6), patch2 = random_cells(edge.width, edge.height, 13);
        e.write_region(box, patch.data());
        ref->write_region(box, patch.data());
        e.step(4);
        ref->step(4);
        e.write_region(edge, patch2.data());
        ref->write_region(edge, patch2.data());
        const std::vector<Cell> extra = {{74, 42}, {0, 0}, {40, 21}, {3, 30}, {40, 22}, {41, 21}};
        e.set_cells(root ? extra : std::vector<Cell>{});
        ref->set_cells(extra);
        e.step(9);
        ref->step(9);
        const auto got = whole(e);
        const Box some{10, 5, 50, 30};
        std::vector<std::uint8_t> part(root ? 50 * 30 : 0), want_part(50 * 30);
        e.read_region(some, part.data());
        ref->read_region(some, want_part.data());
        const auto listed = e.live_cells_in(Box{-5, 8, 40, 100});  // partly outside the board
        const bool cell = e.get_cell(40, 21);
        const std::int64_t pop = e.population();
        if (!root) continue;
        EXPECT_EQ(first_difference(whole(*ref), got, 75), "");
        EXPECT_EQ(part, want_part);
        EXPECT_EQ(listed, ref->live_cells_in(Box{-5, 8, 40, 100}));
        EXPECT_EQ(cell, ref->get_cell(40, 21));
        EXPECT_EQ(pop, ref->population());
    }
}

// A checkpoint taken from one distributed engine continues on another with other ghost rows.
TEST(Distributed, CheckpointAndResume) {
    const bool root = rank_of() == 0;
    const BoardSpec spec = spec_of(90, 57, Topology::torus, "B36/S23");
    const auto cells = random_cells(90, 57, 21);
    auto ref = create_engine("cpu:reference", spec);
    ref->write_region(Box{0, 0, 90, 57}, cells.data());
    ref->step(150);
    std::vector<Cell> saved;
    {
        mpi::DistributedEngine a("cpu:bitpacked", spec, {}, MPI_COMM_WORLD, {5, true});
        a.write_region(Box{0, 0, 90, 57}, cells.data());
        a.step(60);
        saved = a.live_cells();  // on rank 0
    }
    mpi::DistributedEngine b("cpu:bitpacked", spec, {}, MPI_COMM_WORLD, {2, true});
    b.set_cells(saved);
    b.step(90);
    const auto got = b.live_cells();
    if (root) {
        EXPECT_EQ(got, ref->live_cells());
    }
}

// Bad arguments fail alike on every rank; a failure on one rank reaches every rank.
TEST(Distributed, FailuresReachEveryRank) {
    EXPECT_THROW(mpi::DistributedEngine("cpu:nonesuch", spec_of(10, 10, Topology::torus, "B3/S23"), {}, MPI_COMM_WORLD),
                 InputError);
    EXPECT_THROW(mpi::DistributedEngine("cpu:bitpacked", spec_of(10, 10, Topology::unbounded, "B3/S23"), {},
                                        MPI_COMM_WORLD),
                 InputError);
    EngineOptions bad;
    bad.params["simd"] = "sse9";
    EXPECT_THROW(mpi::DistributedEngine("cpu:bitpacked", spec_of(10, 10, Topology::torus, "B3/S23"), bad, MPI_COMM_WORLD),
                 InputError);
    mpi::DistributedEngine e("cpu:bitpacked", spec_of(20, 16, Topology::plane, "B3/S23"), {}, MPI_COMM_WORLD);
    EXPECT_THROW(e.write_region(Box{0, 10, 20, 7}, nullptr), std::out_of_range);
    // Only the last rank writes outside its band: every rank hears of it.
    const int last = e.layout().active - 1;
    std::vector<std::uint64_t> words(2, 0);
    const bool outside = rank_of() == last;
    try {
        e.write_owned_rows_packed(outside ? e.owned_first() + e.owned_rows() : e.owned_first(), outside ? 1 : 0, words.data());
        ADD_FAILURE() << "no error on rank " << rank_of();
    } catch (const std::out_of_range& err) {
        if (last != 0) {
            EXPECT_NE(std::string(err.what()).find("rank " + std::to_string(last) + ":"), std::string::npos) << err.what();
        }
    }
    // Cells outside the board, given on rank 0.
    EXPECT_THROW(e.set_cells(rank_of() == 0 ? std::vector<Cell>{{20, 0}} : std::vector<Cell>{}), std::out_of_range);
    // The engine still works after the failures.
    e.step(3);
    EXPECT_EQ(e.population(), 0);
}

// cpu:bitpacked that fails (or sets an interrupt flag) on one rank once it reaches a generation:
// what step() does between its agreements, which come every few rounds, not every round.
struct Trap {
    int rank = -1;
    std::int64_t fail_at = -1, interrupt_at = -1;  // inner generation; -1: never
    std::atomic<bool>* flag = nullptr;
} g_trap;

class TrapEngine final : public Engine {
public:
    TrapEngine(const BoardSpec& spec, const EngineOptions& options) : inner_(create_engine("cpu:bitpacked", spec, options)) {}
    std::string name() const override { return "test:trap"; }
    Topology topology() const override { return inner_->topology(); }
    Rule rule() const override { return inner_->rule(); }
    Box extent() const override { return inner_->extent(); }
    void write_region(const Box& b, const std::uint8_t* c) override { inner_->write_region(b, c); }
    void read_region(const Box& b, std::uint8_t* c) const override { inner_->read_region(b, c); }
    void read_rows_packed(std::int64_t y, std::int64_t n, std::uint64_t* w) const override { inner_->read_rows_packed(y, n, w); }
    void write_rows_packed(std::int64_t y, std::int64_t n, const std::uint64_t* w) override { inner_->write_rows_packed(y, n, w); }
    std::int64_t population() const override { return inner_->population(); }
    std::int64_t generation() const override { return inner_->generation(); }
    void step(std::int64_t n) override {
        const std::int64_t g = inner_->generation() + n;
        if (rank_of() == g_trap.rank) {
            if (g_trap.fail_at >= 0 && g >= g_trap.fail_at) throw RuntimeError("trapped at " + std::to_string(g));
            if (g_trap.interrupt_at >= 0 && g >= g_trap.interrupt_at) g_trap.flag->store(true);
        }
        inner_->step(n);
    }

private:
    std::unique_ptr<Engine> inner_;
};

void register_trap() {
    EngineInfo info;
    info.name = "test:trap";
    register_engine(info, [](const BoardSpec& s, const EngineOptions& o) -> std::unique_ptr<Engine> {
        return std::make_unique<TrapEngine>(s, o);
    });
}

// The same on every rank (rank 0 checks).
void expect_same_everywhere(std::int64_t v, const std::string& what) {
    std::int64_t lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo, hi) << what;
}

// A step that fails on one rank in the middle of a long step (a round between two agreements):
// every rank throws that rank's error at the same generation, and the engine can be stepped again.
TEST(Distributed, FailureInsideALongStepReachesEveryRank) {
    register_trap();
    for (bool overlap : {true, false}) {
        SCOPED_TRACE(overlap ? "overlapped" : "not overlapped");
        const BoardSpec spec = spec_of(70, 12 * size_of(), Topology::torus, "B3/S23");
        mpi::DistributedOptions d;
        d.ghost_rows = 2;
        d.overlap = overlap;
        mpi::DistributedEngine e("test:trap", spec, {}, MPI_COMM_WORLD, d);
        const int last = e.layout().active - 1;
        const auto cells = random_cells(70, spec.height, 3);
        e.write_region(Box{0, 0, 70, spec.height}, cells.data());
        e.step(4);  // a first agreement: the rounds between the next ones follow from its time
        g_trap = Trap{last, 31};
        try {
            e.step(200);
            ADD_FAILURE() << "no error on rank " << rank_of();
        } catch (const RuntimeError& err) {
            const std::string want = (last != 0 ? "rank " + std::to_string(last) + ": " : std::string()) + "trapped at";
            EXPECT_EQ(std::string(err.what()).rfind(want, 0), 0u) << err.what();
        }
        g_trap = Trap{};
        expect_same_everywhere(e.generation(), "generation after the failure");
        if (e.layout().active >= 2) {
            EXPECT_LT(e.generation(), 204);  // one rank runs the step whole
        }
    }
}

// An interrupt flag set on one rank only, in the middle of a long step: every rank stops at the
// same generation, soon, with the board exact there.
TEST(Distributed, InterruptOnOneRankStopsEveryRankAtOneGeneration) {
    if (size_of() < 2) GTEST_SKIP() << "one rank runs the step whole";
    register_trap();
    for (bool overlap : {true, false}) {
        SCOPED_TRACE(overlap ? "overlapped" : "not overlapped");
        const BoardSpec spec = spec_of(70, 12 * size_of(), Topology::torus, "B3/S23");
        mpi::DistributedOptions d;
        d.ghost_rows = 3;
        d.overlap = overlap;
        std::atomic<bool> flag{false};
        EngineOptions o;
        o.interrupt = &flag;
        mpi::DistributedEngine e("test:trap", spec, o, MPI_COMM_WORLD, d);
        const auto cells = random_cells(70, spec.height, 4);
        e.write_region(Box{0, 0, 70, spec.height}, cells.data());
        g_trap = Trap{e.layout().active - 1, -1, 40, &flag};
        e.step(30000);
        g_trap = Trap{};
        const std::int64_t gen = e.generation();
        expect_same_everywhere(gen, "generation after the interrupt");
        EXPECT_GE(gen, 40);
        EXPECT_LT(gen, 40 + 17 * 3);  // at most kMostRoundsUnagreed rounds on
        const auto got = whole(e);
        if (rank_of() == 0) {
            auto ref = create_engine("cpu:reference", spec);
            ref->write_region(Box{0, 0, 70, spec.height}, cells.data());
            ref->step(gen);
            EXPECT_EQ(first_difference(whole(*ref), got, 70), "") << "at " << gen;
        }
    }
}

// Led mode: rank 0 drives an ordinary Engine; the others follow.
TEST(Distributed, LedByRankZero) {
    const BoardSpec spec = spec_of(51, 39, Topology::torus, "B3/S23");
    if (rank_of() != 0) {
        EXPECT_EQ(mpi::follow(MPI_COMM_WORLD), 7);
        return;
    }
    {
        EXPECT_THROW(mpi::lead("cpu:bitpacked", spec_of(5, 5, Topology::unbounded, "B3/S23"), {}, MPI_COMM_WORLD),
                     InputError);
        auto e = mpi::lead("cpu:bitpacked", spec, {}, MPI_COMM_WORLD, {4, true});
        auto ref = create_engine("cpu:reference", spec);
        const auto cells = random_cells(51, 39, 5);
        e->write_region(Box{0, 0, 51, 39}, cells.data());
        ref->write_region(Box{0, 0, 51, 39}, cells.data());
        for (std::int64_t n : {1, 6, 33}) {
            e->step(n);
            ref->step(n);
            EXPECT_EQ(e->live_cells(), ref->live_cells());
            EXPECT_EQ(e->population(), ref->population());
        }
        EXPECT_THROW(e->read_region(Box{50, 0, 2, 1}, nullptr), std::out_of_range);
        e->set_cells({{0, 0}, {50, 38}});
        ref->set_cells({{0, 0}, {50, 38}});
        e->step(2);
        ref->step(2);
        EXPECT_EQ(whole(*e), whole(*ref));
    }
    mpi::release(MPI_COMM_WORLD, 7);
}

}  // namespace
}  // namespace tilelife

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    tilelife::register_builtin_engines();
    ::testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // One report: rank 0's (the others' failures show in their exit codes and in rank 0's checks).
    if (rank != 0) delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
    const int failed = RUN_ALL_TESTS();
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
