// cpu:bitpacked against the oracle cpu:reference: exact cell sets and populations on every topology,
// awkward sizes (tails, seams off word boundaries, boards where a cell is its own neighbour), rules
// with and without B0, several thread counts, and every SIMD level this CPU supports.
#include <gtest/gtest.h>

#include <algorithm>
#include <new>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <random>
#include <string>
#include <vector>

#include "cpu/bitpacked.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {
namespace {

using bitpacked::Simd;

std::vector<Simd> supported_simd() {
    std::vector<Simd> out;
    for (Simd s : {Simd::baseline, Simd::avx2, Simd::avx512})
        if (bitpacked::simd_supported(s)) out.push_back(s);
    return out;
}

std::vector<std::uint8_t> random_cells(std::int64_t n, double density, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::bernoulli_distribution alive(density);
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(n));
    // Any nonzero byte means alive: mix in values other than 1 to check the packing.
    for (auto& c : cells) c = alive(gen) ? static_cast<std::uint8_t>(1 + gen() % 255) : 0;
    return cells;
}

std::int64_t host_count(const std::vector<Cell>& cells) { return static_cast<std::int64_t>(cells.size()); }

struct Size {
    std::int64_t w, h;
};

std::vector<Size> board_sizes() {
    std::vector<Size> s = {{1, 1},  {1, 2},  {2, 1},   {2, 2},   {1, 7},   {1, 100}, {7, 1},  {100, 1},
                           {3, 3},  {63, 65}, {64, 64}, {65, 65}, {97, 61}, {1000, 3}, {3, 1000}, {130, 2}};
    for (std::int64_t w : {31, 32, 33, 63, 64, 65, 127, 128, 129})
        for (std::int64_t h : {1, 2, 5, 40}) s.push_back({w, h});
    return s;
}

// Runs both engines from the same random board and compares after each chunk of generations.
void compare_bounded(const Rule& rule, Topology topo, Size size, int threads, Simd simd, std::uint64_t seed,
                     std::vector<std::int64_t> chunks = {1, 1, 2, 7}, bitpacked::Tuning tuning = {}) {
    SCOPED_TRACE(rule.to_string() + " " + std::string(to_string(topo)) + " " + std::to_string(size.w) + "x" +
                 std::to_string(size.h) + " threads=" + std::to_string(threads) + " simd=" +
                 std::string(bitpacked::to_string(simd)) + " sync_depth=" + std::to_string(tuning.sync_depth) +
                 " blocked_max_words=" + std::to_string(tuning.blocked_max_words));
    const BoardSpec spec{size.w, size.h, topo, rule};
    EngineOptions opts;
    opts.threads = threads;
    auto ref = create_engine("cpu:reference", spec);
    auto bp = bitpacked::make_bitpacked(spec, opts, simd, tuning);
    const auto cells = random_cells(size.w * size.h, 0.4, seed);
    const Box all{0, 0, size.w, size.h};
    ref->write_region(all, cells.data());
    bp->write_region(all, cells.data());
    ASSERT_EQ(bp->live_cells(), ref->live_cells());
    for (std::int64_t chunk : chunks) {
        ref->step(chunk);
        bp->step(chunk);
        SCOPED_TRACE("generation " + std::to_string(ref->generation()));
        const auto want = ref->live_cells();
        ASSERT_EQ(bp->live_cells(), want);
        ASSERT_EQ(bp->population(), host_count(want));
        ASSERT_EQ(bp->population(), ref->population());
        ASSERT_EQ(bp->generation(), ref->generation());
    }
}

class BitpackedVsReference : public ::testing::TestWithParam<std::tuple<std::string, Topology>> {
protected:
    void SetUp() override { register_builtin_engines(); }
};

// Every size at every SIMD level on one thread; several threads (slow on a loaded machine: they
// wait for each other) at the best level with fewer generations, in both multi-thread schemes:
// private overlapping bands synchronised every sync_depth generations (deep and shallow, so that
// chunks end mid-depth), and shared bands synchronised every generation.
TEST_P(BitpackedVsReference, RandomBoardsAllSizesThreadsSimd) {
    const Rule rule = parse_rule(std::get<0>(GetParam())).rule;
    const Topology topo = std::get<1>(GetParam());
    std::uint64_t seed = 1;
    for (Size size : board_sizes()) {
        for (Simd simd : supported_simd()) {
            compare_bounded(rule, topo, size, 1, simd, seed++);
            if (HasFatalFailure()) return;
        }
        const std::pair<int, bitpacked::Tuning> schemes[] = {{2, {16, std::size_t{1} << 22}},
                                                             {3, {3, std::size_t{1} << 22}},
                                                             {3, {16, 0}}};
        for (const auto& [threads, tuning] : schemes) {
            compare_bounded(rule, topo, size, threads, bitpacked::best_simd(), seed++, {1, 5}, tuning);
            if (HasFatalFailure()) return;
        }
    }
}

std::string param_name(const ::testing::TestParamInfo<BitpackedVsReference::ParamType>& info) {
    std::string name;
    for (char c : std::get<0>(info.param)) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Rules, BitpackedVsReference,
                         ::testing::Combine(::testing::Values("B3/S23", "B36/S23", "B3678/S34678", "B2/S",
                                                              "B1357/S1357", "B0/S8", "B012345678/S",
                                                              "B0123478/S01234678"),
                                            ::testing::Values(Topology::torus, Topology::plane)),
                         param_name);

// Larger boards with several cache blocks per thread band and many word columns.
TEST(Bitpacked, LargerTorusAndPlaneMatchReference) {
    register_builtin_engines();
    for (Topology topo : {Topology::torus, Topology::plane})
        for (Size size : {Size{300, 2100}, Size{1100, 70}})
            for (int threads : {1, 3})
                for (std::size_t blocked_max : {std::size_t{1} << 22, std::size_t{0}}) {
                    compare_bounded(Rule::life(), topo, size, threads, bitpacked::best_simd(), 99, {1, 1, 2, 7, 30},
                                    bitpacked::Tuning{16, blocked_max});
                    if (HasFatalFailure()) return;
                }
}

TEST(Bitpacked, UnboundedMatchesReference) {
    register_builtin_engines();
    std::uint64_t seed = 7;
    for (const char* text : {"B3/S23", "B36/S23", "B3678/S34678", "B2/S", "B1357/S1357"}) {
        const Rule rule = parse_rule(text).rule;
        for (int threads : {1, 2, 3}) {
            SCOPED_TRACE(std::string(text) + " threads=" + std::to_string(threads));
            const BoardSpec spec{16, 16, Topology::unbounded, rule};
            EngineOptions opts;
            opts.threads = threads;
            auto ref = create_engine("cpu:reference", spec, opts);
            auto bp = create_engine("cpu:bitpacked", spec, opts);
            // A soup at negative and positive coordinates, so the board grows every way.
            const Box box{-13, -9, 29, 23};
            const auto cells = random_cells(box.width * box.height, 0.35, seed++);
            ref->write_region(box, cells.data());
            bp->write_region(box, cells.data());
            for (std::int64_t chunk : {1, 4, 15, 40}) {
                ref->step(chunk);
                bp->step(chunk);
                SCOPED_TRACE("generation " + std::to_string(ref->generation()));
                const auto want = ref->live_cells();
                ASSERT_EQ(bp->live_cells(), want);
                ASSERT_EQ(bp->population(), host_count(want));
            }
        }
    }
}

// Issue 12: with --threads 0 the engine chooses its threads by the work: one thread per 2^28
// word-generations of the whole run (EngineOptions::generations), at most the cores; a given
// thread count is kept whatever the work. Exact either way.
TEST(Bitpacked, ThreadsByTheWork) {
    register_builtin_engines();
    int cores = 1;
#ifdef _OPENMP
    cores = omp_get_num_procs();
#endif
    const auto threads_used = [](std::int64_t w, std::int64_t h, int threads, std::int64_t generations, int steps) {
        EngineOptions opts;
        opts.threads = threads;
        opts.generations = generations;
        auto e = create_engine("cpu:bitpacked", BoardSpec{w, h, Topology::torus, Rule::life()}, opts);
        e->step(steps);
        return e->describe().threads;
    };
    // 1024 x 1024 cells are 16 x 1024 words: 2^28 word-generations are 16384 generations.
    EXPECT_EQ(threads_used(1024, 1024, 0, 600, 3), 1);
    EXPECT_EQ(threads_used(1024, 1024, 0, 16383 * 2, 3), 1);
    EXPECT_EQ(threads_used(1024, 1024, 0, 16384 * 2, 3), std::min(cores, 2));
    EXPECT_EQ(threads_used(1024, 1024, 0, std::int64_t{1} << 40, 3), cores);
    EXPECT_EQ(threads_used(1024, 1024, 1, std::int64_t{1} << 40, 3), 1);  // --threads wins
    EXPECT_EQ(threads_used(1024, 1024, 3, 10, 3), 3);
    // Without the run's length each step is judged alone.
    EXPECT_EQ(threads_used(1024, 1024, 0, 0, 100), 1);
    EXPECT_EQ(threads_used(1024, 1024, 0, 0, 40000), std::min(cores, 2));

    // Several threads chosen this way give the reference's cells (the parallel paths run: a step
    // of 1024 x 1024 over 2^21 word-generations).
    const BoardSpec spec{1024, 1024, Topology::torus, Rule::life()};
    EngineOptions opts;
    opts.generations = std::int64_t{1} << 40;
    auto ref = create_engine("cpu:reference", spec);
    auto bp = create_engine("cpu:bitpacked", spec, opts);
    const auto cells = random_cells(spec.width * spec.height, 0.4, 5);
    ref->write_region(Box{0, 0, spec.width, spec.height}, cells.data());
    bp->write_region(Box{0, 0, spec.width, spec.height}, cells.data());
    ref->step(140);
    bp->step(140);
    EXPECT_EQ(bp->live_cells(), ref->live_cells());
}

// Sub-rectangles at unaligned offsets: writes keep the cells around them, reads return exactly them.
TEST(Bitpacked, RegionsAtUnalignedOffsets) {
    register_builtin_engines();
    std::mt19937_64 gen(42);
    for (Topology topo : {Topology::torus, Topology::plane}) {
        const BoardSpec spec{200, 37, topo, Rule::life()};
        auto ref = create_engine("cpu:reference", spec);
        auto bp = create_engine("cpu:bitpacked", spec);
        for (int round = 0; round < 200; ++round) {
            const std::int64_t x = static_cast<std::int64_t>(gen() % 200), y = static_cast<std::int64_t>(gen() % 37);
            const std::int64_t w = 1 + static_cast<std::int64_t>(gen() % (200 - x));
            const std::int64_t h = 1 + static_cast<std::int64_t>(gen() % (37 - y));
            const Box box{x, y, w, h};
            if (round % 3 == 0) {
                const auto cells = random_cells(w * h, 0.5, gen());
                ref->write_region(box, cells.data());
                bp->write_region(box, cells.data());
            } else {
                std::vector<std::uint8_t> a(static_cast<std::size_t>(w * h), 7), b(a.size(), 9);
                ref->read_region(box, a.data());
                bp->read_region(box, b.data());
                ASSERT_EQ(a, b) << "box " << x << "," << y << " " << w << "x" << h;
            }
            if (round % 50 == 49) {
                ref->step(3);
                bp->step(3);
            }
        }
        EXPECT_EQ(bp->live_cells(), ref->live_cells());
        EXPECT_EQ(bp->population(), ref->population());
    }
}

TEST(Bitpacked, RejectsRegionsOutsideTheBoard) {
    auto bp = bitpacked::make_bitpacked(BoardSpec{10, 10, Topology::torus, Rule::life()}, {}, Simd::baseline);
    std::uint8_t cell = 1;
    EXPECT_THROW(bp->write_region(Box{9, 9, 2, 1}, &cell), std::out_of_range);
    EXPECT_THROW(bp->read_region(Box{-1, 0, 1, 1}, &cell), std::out_of_range);
}

TEST(Bitpacked, SoftwareAndHardwarePopcountAgree) {
    std::mt19937_64 gen(3);
    std::vector<bitpacked::Word> words(1000);
    std::int64_t want = 0;
    for (auto& w : words) {
        w = gen() & gen();
        for (int b = 0; b < 64; ++b) want += (w >> b) & 1u;
    }
    for (Simd simd : supported_simd())
        for (bool hw : {false, true})
            EXPECT_EQ(bitpacked::popcount_kernel(simd, hw)(words.data(), words.size()), want);
}

// More than 2^31 cells: 64-bit indexing all the way (about 0.5 GiB; skipped only when that memory
// cannot be had: any other failure is a failure).
TEST(Bitpacked, BoardBeyondTwoToThe31Cells) {
    const std::int64_t w = 70000, h = 30700;  // 2,149,000,000 cells
    ASSERT_GT(w * h, std::int64_t{1} << 31);
    std::unique_ptr<Engine> bp;
    try {
        bp = bitpacked::make_bitpacked(BoardSpec{w, h, Topology::torus, Rule::life()}, {}, bitpacked::best_simd());
    } catch (const std::bad_alloc&) {
        GTEST_SKIP() << "not enough memory for a 70000x30700 board";
    }
    // A glider crossing the bottom-right corner of the torus: it wraps to the top-left.
    const std::vector<Cell> glider = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};
    std::vector<Cell> placed;
    for (Cell c : glider) placed.push_back(Cell{w - 3 + c.x, h - 3 + c.y});
    bp->set_cells(placed);
    EXPECT_EQ(bp->population(), 5);
    bp->step(12);  // 3 glider periods: moved (+3, +3)
    std::vector<Cell> want;
    for (Cell c : glider) want.push_back(Cell{(w - 3 + c.x + 3) % w, (h - 3 + c.y + 3) % h});
    std::sort(want.begin(), want.end(), [](Cell a, Cell b) { return std::pair(a.y, a.x) < std::pair(b.y, b.x); });
    std::vector<Cell> got;
    for (Cell c : want) EXPECT_TRUE(bp->get_cell(c.x, c.y)) << c.x << "," << c.y;
    EXPECT_EQ(bp->population(), 5);
}

}  // namespace
}  // namespace tilelife
