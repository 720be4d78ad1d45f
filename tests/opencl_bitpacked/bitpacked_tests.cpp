// opencl:bitpacked must equal cpu:reference exactly: every rule family, torus (seams inside words,
// tiny tori where a cell is its own neighbour), plane, the growing unbounded board, widths around
// word multiples, steps per launch larger than the board, step counts that are not multiples of it.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/opencl_fixture.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

constexpr const char* kEngine = "opencl:bitpacked";

class Bitpacked : public testing_support::OpenCLTest {};

using testing_support::board_of;
using testing_support::count;
using testing_support::property;
using testing_support::random_cells;

// Runs opencl:bitpacked and cpu:reference from the same random board and compares board,
// population and generation after each chunk of generations.
void expect_same(std::int64_t w, std::int64_t h, Topology topology, const std::string& rule,
                 const std::vector<std::int64_t>& chunks, EngineOptions options = {}, std::uint64_t seed = 1,
                 double density = 0.4) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + std::string(to_string(topology)) + " " + rule +
                 " K=" + std::to_string(options.steps_per_launch) + " wg " + std::to_string(options.wg_width) + "x" +
                 std::to_string(options.wg_height) + " rows " + options.param("rows", "default"));
    const BoardSpec spec{w, h, topology, parse_rule(rule).rule};
    auto ref = create_engine("cpu:reference", spec);
    auto dev = create_engine(kEngine, spec, options);
    const auto cells = random_cells(w, h, seed + static_cast<std::uint64_t>(w * 7919 + h), density);
    ref->write_region(Box{0, 0, w, h}, cells.data());
    dev->write_region(Box{0, 0, w, h}, cells.data());
    ASSERT_EQ(board_of(*dev), cells);
    ASSERT_EQ(dev->population(), count(cells));
    for (std::int64_t n : chunks) {
        ref->step(n);
        dev->step(n);
        const auto want = board_of(*ref);
        ASSERT_EQ(board_of(*dev), want) << "after generation " << ref->generation();
        ASSERT_EQ(dev->population(), count(want));
        ASSERT_EQ(dev->generation(), ref->generation());
    }
}

EngineOptions steps(int k) {
    EngineOptions o;
    o.steps_per_launch = k;
    return o;
}

const std::vector<std::pair<std::int64_t, std::int64_t>> kSizes = {
    {1, 1},   {1, 37},  {37, 1},  {2, 2},   {3, 2},   {63, 65},  {64, 64},  {65, 65},  {97, 61},
    {1000, 3}, {31, 9}, {32, 9},  {33, 9},  {63, 9},  {64, 9},   {65, 9},   {127, 9},  {128, 9}, {129, 9}};
const char* const kRules[] = {"B3/S23", "B36/S23", "B3678/S34678", "B2/S", "B1357/S1357"};
const int kSteps[] = {1, 3, 8, 5, 32, 2};

TEST_F(Bitpacked, EveryRuleTopologyAndSizeEqualsReference) {
    int i = 0;
    for (const char* rule : kRules)
        for (Topology t : {Topology::torus, Topology::plane})
            for (auto [w, h] : kSizes) {
                // Steps per launch vary with the case; chunks of 1, 4 and 9 are rarely multiples of it.
                const int k = kSteps[i++ % std::size(kSteps)];
                expect_same(w, h, t, rule, {1, 4, 9}, steps(k));
            }
}

TEST_F(Bitpacked, StepsPerLaunchIncludingMoreThanTheBoard) {
    for (int k : {1, 2, 4, 7, 16, 31, 32})
        for (Topology t : {Topology::torus, Topology::plane})
            for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                     {1, 1}, {2, 2}, {5, 3}, {33, 7}, {65, 65}, {129, 40}}) {
                expect_same(w, h, t, "B3/S23", {1, 10, 37}, steps(k), static_cast<std::uint64_t>(k));
                expect_same(w, h, t, "B36/S23", {45}, steps(k), static_cast<std::uint64_t>(k) + 100);
            }
}

TEST_F(Bitpacked, BirthOnZeroRules) {
    // B0: empty space comes alive; on a plane only inside the board, on a torus everywhere.
    for (const char* rule : {"B03/S23", "B0123478/S34678"})
        for (Topology t : {Topology::torus, Topology::plane})
            for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {2, 2}, {33, 5}, {70, 41}})
                for (int k : {1, 6}) expect_same(w, h, t, rule, {1, 2, 7}, steps(k), 3, 0.3);
}

TEST_F(Bitpacked, WorkGroupShapesAndRowsPerItem) {
    struct Case {
        int lw, strips, rows, k;
    };
    for (Case c : {Case{3, 5, 2, 2}, Case{4, 3, 3, 4}, Case{34, 2, 16, 8}, Case{8, 4, 32, 32}, Case{16, 9, 8, 32}}) {
        EngineOptions o = steps(c.k);
        o.params["rows"] = std::to_string(c.rows);
        o.wg_width = c.lw;
        o.wg_height = c.strips;
        for (Topology t : {Topology::torus, Topology::plane})
            for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                     {1, 1}, {17, 5}, {63, 65}, {200, 77}, {257, 3}})
                expect_same(w, h, t, "B3/S23", {2, 7, 33}, o, static_cast<std::uint64_t>(c.lw * 100 + c.rows));
        auto e = create_engine(kEngine, BoardSpec{40, 40, Topology::torus, Rule::life()}, o);
        const auto d = e->describe();
        EXPECT_EQ(d.wg_width, c.lw);
        EXPECT_EQ(d.wg_height, c.strips);
        EXPECT_EQ(d.cells_per_item, 32 * c.rows);
        EXPECT_EQ(d.steps_per_launch, c.k);
        EXPECT_EQ(property<std::int64_t>(d, "rows"), c.rows);
        const auto opts = property<std::string>(d, "build-options");
        EXPECT_NE(opts.find("-DLW=" + std::to_string(c.lw)), std::string::npos) << opts;
    }
}

TEST_F(Bitpacked, LongerRunsAndBiggerBoardsStayExact) {
    // Several tiles in both directions, seams inside words, many launches.
    expect_same(1000, 300, Topology::torus, "B3/S23", {100, 123}, steps(8));
    expect_same(999, 301, Topology::plane, "B36/S23", {150}, steps(13));
    expect_same(2049, 129, Topology::torus, "B3678/S34678", {64}, {});
    expect_same(1031, 517, Topology::torus, "B3/S23", {20}, {});
}

TEST_F(Bitpacked, UnboundedEqualsReference) {
    for (const char* rule : {"B3/S23", "B36/S23", "B2/S"})
        for (int k : {0, 3, 32}) {
            SCOPED_TRACE(std::string(rule) + " K=" + std::to_string(k));
            const BoardSpec spec{16, 16, Topology::unbounded, parse_rule(rule).rule};
            auto ref = create_engine("cpu:reference", spec);
            auto dev = create_engine(kEngine, spec, steps(k));
            const auto soup = random_cells(20, 20, 42, 0.35);
            ref->write_region(Box{-5, 3, 20, 20}, soup.data());
            dev->write_region(Box{-5, 3, 20, 20}, soup.data());
            // A glider heading away keeps the board growing (and the engine being re-created).
            const std::vector<Cell> glider = {{41, 40}, {42, 41}, {40, 42}, {41, 42}, {42, 42}};
            ref->set_cells(glider);
            dev->set_cells(glider);
            for (std::int64_t n : {1, 10, 50, 139}) {
                ref->step(n);
                dev->step(n);
                ASSERT_EQ(dev->live_cells(), ref->live_cells()) << "generation " << ref->generation();
                ASSERT_EQ(dev->population(), ref->population());
            }
        }
}

TEST_F(Bitpacked, RegionsAtAnyBitOffset) {
    const std::int64_t w = 101, h = 23;
    auto ref = create_engine("cpu:reference", BoardSpec{w, h, Topology::plane, Rule::life()});
    auto dev = create_engine(kEngine, BoardSpec{w, h, Topology::plane, Rule::life()});
    std::uint64_t seed = 7;
    for (Box b : {Box{0, 0, w, h}, Box{5, 3, 40, 7}, Box{31, 0, 2, 23}, Box{32, 1, 32, 1}, Box{63, 4, 38, 19},
                  Box{100, 22, 1, 1}, Box{1, 2, 99, 3}, Box{64, 0, 37, 23}}) {
        SCOPED_TRACE(std::to_string(b.x) + "," + std::to_string(b.y) + " " + std::to_string(b.width) + "x" +
                     std::to_string(b.height));
        auto cells = random_cells(b.width, b.height, ++seed, 0.5);
        for (auto& c : cells) c = c ? static_cast<std::uint8_t>(1 + seed % 200) : 0;  // any non-zero is alive
        ref->write_region(b, cells.data());
        dev->write_region(b, cells.data());
        ASSERT_EQ(board_of(*dev), board_of(*ref));
        std::vector<std::uint8_t> a(cells.size()), d(cells.size());
        ref->read_region(b, a.data());
        dev->read_region(b, d.data());
        ASSERT_EQ(d, a);
        ASSERT_EQ(dev->population(), ref->population());
    }
    EXPECT_THROW(dev->write_region(Box{-1, 0, 1, 1}, nullptr), std::out_of_range);
    std::uint8_t one = 0;
    EXPECT_THROW(dev->read_region(Box{100, 22, 2, 1}, &one), std::out_of_range);
}

TEST_F(Bitpacked, PopulationEqualsHostCount) {
    for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1}, {1, 1000}, {1000, 1}, {31, 5}, {33, 70}, {64, 32}, {2049, 3}, {1031, 517}})
        for (double density : {0.0, 0.3, 1.0}) {
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " density " + std::to_string(density));
            auto e = create_engine(kEngine, BoardSpec{w, h, Topology::torus, Rule::life()});
            const auto cells = random_cells(w, h, 9, density);
            e->write_region(Box{0, 0, w, h}, cells.data());
            EXPECT_EQ(e->population(), count(cells));
        }
}

TEST_F(Bitpacked, OptionsOutOfRangeAreInputErrors) {
    const BoardSpec spec{40, 40, Topology::torus, Rule::life()};
    EXPECT_THROW(create_engine(kEngine, spec, steps(33)), InputError);
    EXPECT_THROW(create_engine(kEngine, spec, steps(-1)), InputError);
    EngineOptions o = steps(8);
    o.wg_width = 2;
    o.wg_height = 8;
    EXPECT_THROW(create_engine(kEngine, spec, o), InputError);  // no room for the halo words
    o.wg_width = 8;
    o.wg_height = 1;
    o.params["rows"] = "4";
    EXPECT_THROW(create_engine(kEngine, spec, o), InputError);  // 4 local rows cannot hold 2 x 8 halo rows
    o.wg_width = 4096;
    o.wg_height = 4096;
    EXPECT_THROW(create_engine(kEngine, spec, o), InputError);
    EngineOptions rows;
    rows.params["rows"] = "33";
    EXPECT_THROW(create_engine(kEngine, spec, rows), InputError);
}

TEST_F(Bitpacked, TimedStepAdvancesAndReportsDeviceTime) {
    auto e = create_engine(kEngine, BoardSpec{300, 200, Topology::torus, Rule::life()}, steps(4));
    const auto cells = random_cells(300, 200, 5);
    e->write_region(Box{0, 0, 300, 200}, cells.data());
    const auto timing = e->step_timed(10);  // launches of 4, 4 and 2 generations
    ASSERT_TRUE(timing);
    EXPECT_GT(timing->kernel_seconds, 0.0);
    EXPECT_GE(timing->span_seconds, timing->kernel_seconds * 0.999);
    EXPECT_EQ(e->generation(), 10);
    auto ref = create_engine("cpu:reference", BoardSpec{300, 200, Topology::torus, Rule::life()});
    ref->write_region(Box{0, 0, 300, 200}, cells.data());
    ref->step(10);
    EXPECT_EQ(board_of(*e), board_of(*ref));
}

// Beyond 2^31 cells (and 2^26 words): a glider crossing the torus seam in the board's last rows and
// columns, where 32-bit cell indices would have wrapped long before.
TEST_F(Bitpacked, BoardsBeyondTwoToTheThirtyOneCells) {
    const std::int64_t w = 65536 + 33, h = 32800;  // 2 149 638 400 cells; seam inside a word
    std::unique_ptr<Engine> e;
    try {
        e = create_engine(kEngine, BoardSpec{w, h, Topology::torus, Rule::life()}, steps(4));
    } catch (const RuntimeError& err) {
        GTEST_SKIP() << "device cannot hold a " << w << "x" << h << " board: " << err.what();
    }
    const std::vector<Cell> glider = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};  // moves +1,+1 per 4 gens
    const std::int64_t x0 = w - 3, y0 = h - 3;
    for (const Cell& c : glider) e->set_cell((x0 + c.x) % w, (y0 + c.y) % h, true);
    EXPECT_EQ(e->population(), 5);
    e->step(8);  // two launches; the glider is now across both seams, at (x0 + 2, y0 + 2) mod size
    std::vector<Cell> want;
    for (const Cell& c : glider) want.push_back(Cell{(x0 + 2 + c.x) % w, (y0 + 2 + c.y) % h});
    std::sort(want.begin(), want.end(), [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    std::vector<Cell> got;
    for (std::int64_t y : {h - 1, std::int64_t{0}, std::int64_t{1}, std::int64_t{2}})
        for (std::int64_t x : {w - 1, std::int64_t{0}, std::int64_t{1}, std::int64_t{2}})
            if (e->get_cell(x, y)) got.push_back(Cell{x, y});
    std::sort(got.begin(), got.end(), [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    EXPECT_EQ(got, want);
    EXPECT_EQ(e->population(), 5);
}

}  // namespace
}  // namespace tilelife
