// The growing unbounded board (src/core/unbounded.cpp) on top of every registered engine: exact
// positions far from the start, extent that follows the pattern rather than its history, growth in
// every direction, writes outside the current extent, dying patterns, the growth limit.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::picture;
using test::translated;

const Cells kGliderSE = picture({".O.", "..O", "OOO"});  // moves (+1,+1) every 4 generations
const Cells kGliderNE = picture({"OOO", "..O", ".O."});  // (+1,-1)
const Cells kGliderSW = picture({".O.", "O..", "OOO"});  // (-1,+1)
const Cells kGliderNW = picture({"OOO", "O..", ".O."});  // (-1,-1)

class Unbounded : public ::testing::TestWithParam<std::string> {
protected:
    std::unique_ptr<Engine> make(const std::string& rule = "B3/S23", const EngineOptions& opt = {}) {
        try {
            return create_engine(GetParam(), test::spec_of(0, 0, Topology::unbounded, rule), opt);
        } catch (const RuntimeError& e) {
            if (!test::is_opencl(GetParam())) throw;
            skipped_ = e.what();
            return nullptr;
        }
    }
    std::string skipped_;
};

#define MAKE_OR_SKIP(var, ...)        \
    auto var = make(__VA_ARGS__);     \
    if (!var) GTEST_SKIP() << GetParam() << ": " << skipped_

void expect_extent_holds_cells(const Engine& e) {
    const Box ext = e.extent();
    for (const Cell& c : e.live_cells()) ASSERT_TRUE(ext.contains(c)) << "(" << c.x << "," << c.y << ") outside extent";
}

TEST_P(Unbounded, GliderTravels1000CellsIn4000GenerationsOnASmallBoard) {
    MAKE_OR_SKIP(e);
    e->set_cells(kGliderSE);
    e->step(4000);
    EXPECT_EQ(e->generation(), 4000);
    EXPECT_CELLS(translated(kGliderSE, 1000, 1000), e->live_cells());
    EXPECT_EQ(e->population(), 5);
    // Memory follows the extent, not the distance travelled.
    const Box ext = e->extent();
    EXPECT_LE(ext.width, 256) << "extent " << ext.width << "x" << ext.height;
    EXPECT_LE(ext.height, 256) << "extent " << ext.width << "x" << ext.height;
    expect_extent_holds_cells(*e);
}

TEST_P(Unbounded, SteppingInPiecesEqualsSteppingAtOnce) {
    MAKE_OR_SKIP(a);
    MAKE_OR_SKIP(b);
    const Cells start = test::soup(24, 24, 0.4, 99, -12, -12);
    a->set_cells(start);
    b->set_cells(start);
    a->step(150);
    for (int i = 0; i < 150; i += (i % 7) + 1) {
        const int k = std::min(150 - i, (i % 7) + 1);
        b->step(k);
    }
    EXPECT_EQ(b->generation(), 150);
    EXPECT_CELLS(a->live_cells(), b->live_cells());
}

TEST_P(Unbounded, GrowsInEveryDirection) {
    MAKE_OR_SKIP(e);
    const Cells start = test::united(test::united(translated(kGliderSE, 20, 20), translated(kGliderNE, 20, -20)),
                                     test::united(translated(kGliderSW, -20, 20), translated(kGliderNW, -20, -20)));
    e->set_cells(start);
    e->step(400);
    const Cells want = test::united(
        test::united(translated(kGliderSE, 120, 120), translated(kGliderNE, 120, -120)),
        test::united(translated(kGliderSW, -120, 120), translated(kGliderNW, -120, -120)));
    EXPECT_CELLS(want, e->live_cells());
    expect_extent_holds_cells(*e);
    // And a single ship in each direction from a lone start, far out.
    for (const Cells& ship : {kGliderSE, kGliderNE, kGliderSW, kGliderNW}) {
        MAKE_OR_SKIP(s);
        s->set_cells(ship);
        s->step(2000);
        const Cells got = s->live_cells();
        ASSERT_EQ(got.size(), 5u);
        const std::int64_t dx = got[0].x - ship[0].x, dy = got[0].y - ship[0].y;
        EXPECT_EQ(std::abs(dx), 500);
        EXPECT_EQ(std::abs(dy), 500);
        EXPECT_CELLS(translated(ship, dx, dy), got);
    }
}

TEST_P(Unbounded, PatternThatDiesOutLeavesNothing) {
    MAKE_OR_SKIP(e);
    e->set_cells(translated(picture({"......O.", "OO......", ".O...OOO"}), -1000, 777));
    e->step(129);
    EXPECT_EQ(e->population(), 2);
    e->step(1);
    EXPECT_EQ(e->population(), 0);
    EXPECT_TRUE(e->live_cells().empty());
    e->step(100000);  // nothing can come back (no B0)
    EXPECT_EQ(e->generation(), 100130);
    EXPECT_EQ(e->population(), 0);
}

TEST_P(Unbounded, WritesOutsideTheExtentGrowTheBoard) {
    MAKE_OR_SKIP(e);
    e->set_cells(picture({"OO", "OO"}));
    const Box before = e->extent();
    // A blinker far outside, written as one region.
    const std::int64_t fx = 600, fy = -400;
    ASSERT_FALSE(before.contains(Cell{fx, fy}));
    const std::uint8_t row[3] = {1, 1, 1};
    e->write_region(Box{fx, fy, 3, 1}, row);
    EXPECT_TRUE(e->extent().contains(Cell{fx, fy}));
    EXPECT_TRUE(e->extent().contains(Cell{fx + 2, fy}));
    EXPECT_EQ(e->population(), 7);
    const Cells both = test::united(picture({"OO", "OO"}), Cells{{fx, fy}, {fx + 1, fy}, {fx + 2, fy}});
    EXPECT_CELLS(both, e->live_cells());
    e->step(1);
    EXPECT_CELLS(test::united(picture({"OO", "OO"}), Cells{{fx + 1, fy - 1}, {fx + 1, fy}, {fx + 1, fy + 1}}),
                 e->live_cells());
    // set_cell at negative coordinates on the other side, then read back single cells.
    e->set_cell(-700, 900, true);
    EXPECT_TRUE(e->get_cell(-700, 900));
    EXPECT_FALSE(e->get_cell(-701, 900));
    EXPECT_FALSE(e->get_cell(123456789, -987654321));  // far outside: dead, no growth needed
    EXPECT_EQ(e->population(), 8);
    e->step(1);  // the lone cell dies, the blinker flips back
    EXPECT_CELLS(both, e->live_cells());
}

TEST_P(Unbounded, ReadsOutsideAndClearsDoNotGrowTheBoard) {
    MAKE_OR_SKIP(e);
    e->set_cells(picture({"OO", "OO"}, 10, 10));
    const Box ext = e->extent();
    std::vector<std::uint8_t> buf(100, 7);
    e->read_region(Box{100000, 100000, 10, 10}, buf.data());
    EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](std::uint8_t v) { return v == 0; }));
    // A region straddling the extent's edge: only the block's cells read as alive.
    std::vector<std::uint8_t> part(static_cast<std::size_t>(ext.width + 20));
    e->read_region(Box{ext.x - 10, 10, ext.width + 20, 1}, part.data());
    for (std::int64_t i = 0; i < ext.width + 20; ++i)
        EXPECT_EQ(part[static_cast<std::size_t>(i)], (ext.x - 10 + i == 10 || ext.x - 10 + i == 11) ? 1 : 0) << i;
    const std::vector<std::uint8_t> zeros(100, 0);
    e->write_region(Box{-90000, 50000, 10, 10}, zeros.data());
    EXPECT_EQ(e->extent(), ext);
    // Clearing cells inside the extent does clear them.
    e->write_region(Box{10, 10, 1, 1}, zeros.data());
    EXPECT_EQ(e->population(), 3);
}

TEST_P(Unbounded, FarCoordinatesAre64Bit) {
    MAKE_OR_SKIP(e);
    const std::int64_t far = std::int64_t{1} << 40;
    e->set_cells(translated(kGliderSE, far, -far));
    e->step(40);
    EXPECT_CELLS(translated(kGliderSE, far + 10, -far + 10), e->live_cells());
}

TEST_P(Unbounded, ExtentShrinksWhenThePatternDoes) {
    MAKE_OR_SKIP(e);
    e->set_cells(picture({"OO", "OO"}));
    e->set_cells(picture({"OO", "OO"}, 1500, 1500));
    const Box big = e->extent();
    EXPECT_GE(big.width, 1500);
    // Remove the far block; after a few generations the board fits the remaining block again.
    const std::uint8_t zeros[4] = {0, 0, 0, 0};
    e->write_region(Box{1500, 1500, 2, 2}, zeros);
    e->step(3);
    e->step(1);  // the board is re-laid lazily, at the start of a step
    EXPECT_CELLS(picture({"OO", "OO"}), e->live_cells());
    const Box small = e->extent();
    EXPECT_LE(small.width * small.height, 256 * 256) << "extent stayed " << small.width << "x" << small.height;
}

TEST_P(Unbounded, LongRunOfAnOscillatorKeepsTheExtentSmall) {
    MAKE_OR_SKIP(e);
    const Cells blinker = picture({"OOO"}, -1, 0);
    e->set_cells(blinker);
    e->step(test::is_opencl(GetParam()) ? 10000 : 100000);
    EXPECT_CELLS(blinker, e->live_cells());
    EXPECT_LE(e->extent().width, 128);
    EXPECT_LE(e->extent().height, 128);
}

TEST_P(Unbounded, MatchesALargePlaneOnTheReferenceEngine) {
    // 100 generations from a 30x30 soup can reach at most 100 cells out: a 300x300 plane never
    // feels its edge, so unbounded == plane (translated), for any rule without B0.
    register_builtin_engines();
    std::uint64_t seed = 500;
    for (const std::string rule : {"B3/S23", "B36/S23", "B2/S", "B3678/S34678", "B1357/S1357"}) {
        MAKE_OR_SKIP(e, rule);
        const Cells start = test::soup(30, 30, 0.4, ++seed, -15, -15);
        e->set_cells(start);
        e->step(100);
        auto plane = create_engine("cpu:reference", test::spec_of(300, 300, Topology::plane, rule));
        plane->set_cells(translated(start, 150, 150));
        plane->step(100);
        const Cells want = translated(plane->live_cells(), -150, -150);
        const std::string d = test::diff(want, e->live_cells());
        EXPECT_TRUE(d.empty()) << rule << ": " << d;
        expect_extent_holds_cells(*e);
    }
}

TEST_P(Unbounded, GrowthBeyondTheCellLimitIsARuntimeError) {
    EngineOptions opt;
    opt.max_bytes = 2 * 200 * 200;  // a 200x200 board at two bytes a cell
    MAKE_OR_SKIP(e, "B2/S", opt);  // Seeds grows at the speed of light
    e->set_cells(picture({"OO", ".O"}));
    EXPECT_THROW(e->step(500), RuntimeError);
    // A growing board pays for the area between two far cells; a tree engine (cpu:hashlife) does not.
    if (find_engine(GetParam())->native_unbounded) return;
    MAKE_OR_SKIP(f, "B3/S23", opt);
    f->set_cell(0, 0, true);
    EXPECT_THROW(f->set_cell(100000, 0, true), RuntimeError);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, Unbounded, ::testing::ValuesIn(test::engine_names()), test::EngineParamName{});

}  // namespace
}  // namespace tilelife
