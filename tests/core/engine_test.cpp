// Known behaviour on every registered engine: topology edge cases, oscillators, spaceships, still
// lifes, methuselahs, other rules. Expected values were computed with bgolly 3.3 and hard-coded.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::picture;
using test::rle_cells;
using test::translated;

const Cells kGlider = picture({".O.", "..O", "OOO"});
const Cells kBlinkerH = picture({"OOO"}, 0, 1);   // (0,1) (1,1) (2,1)
const Cells kBlinkerV = picture({".O", ".O", ".O"}, 0, 0);  // (1,0) (1,1) (1,2)
const Cells kBlock = picture({"OO", "OO"});
const Cells kBeehive = picture({".OO.", "O..O", ".OO."});
const Cells kRPentomino = picture({".OO", "OO.", ".O."});

class EngineBehaviour : public ::testing::TestWithParam<std::string> {
protected:
    std::unique_ptr<Engine> make(std::int64_t w, std::int64_t h, Topology t, const std::string& rule = "B3/S23") {
        std::string why;
        auto e = test::try_create(GetParam(), test::spec_of(w, h, t, rule), &why);
        if (!e) skipped_ = why.empty() ? "no device" : why;
        return e;
    }
    std::string skipped_;
};

#define MAKE_OR_SKIP(var, ...)                                       \
    auto var = make(__VA_ARGS__);                                    \
    if (!var) GTEST_SKIP() << GetParam() << ": " << skipped_

TEST_P(EngineBehaviour, ReportsItsSpec) {
    MAKE_OR_SKIP(e, 37, 23, Topology::torus, "B36/S23");
    EXPECT_EQ(e->name(), GetParam());
    EXPECT_EQ(e->topology(), Topology::torus);
    EXPECT_EQ(e->rule(), parse_rule("B36/S23").rule);
    EXPECT_EQ(e->extent(), (Box{0, 0, 37, 23}));
    EXPECT_EQ(e->population(), 0);
    EXPECT_EQ(e->generation(), 0);
    EXPECT_TRUE(e->live_cells().empty());
    MAKE_OR_SKIP(u, 0, 0, Topology::unbounded);
    EXPECT_EQ(u->name(), GetParam());
    EXPECT_EQ(u->topology(), Topology::unbounded);
    EXPECT_EQ(u->population(), 0);
    EXPECT_TRUE(u->live_cells().empty());
}

TEST_P(EngineBehaviour, RegionsRoundTripAndGenerationCounts) {
    MAKE_OR_SKIP(e, 70, 9, Topology::plane);
    const Cells cells = test::soup(70, 9, 0.4, 7);
    e->set_cells(cells);
    EXPECT_CELLS(cells, e->live_cells());
    EXPECT_EQ(e->population(), static_cast<std::int64_t>(cells.size()));
    // A region read covering part of the board.
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(5 * 3));
    e->read_region(Box{63, 2, 5, 3}, buf.data());
    for (std::int64_t y = 0; y < 3; ++y)
        for (std::int64_t x = 0; x < 5; ++x) {
            const bool want = std::binary_search(cells.begin(), cells.end(), Cell{63 + x, 2 + y},
                                                 [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
            EXPECT_EQ(buf[static_cast<std::size_t>(y * 5 + x)] != 0, want) << x << "," << y;
        }
    // Clearing a region and setting single cells.
    const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(70 * 9), 0);
    e->write_region(Box{0, 0, 70, 9}, zeros.data());
    EXPECT_EQ(e->population(), 0);
    e->set_cell(69, 8, true);
    e->set_cell(0, 0, true);
    EXPECT_TRUE(e->get_cell(69, 8));
    EXPECT_TRUE(e->get_cell(0, 0));
    EXPECT_FALSE(e->get_cell(1, 0));
    e->set_cell(0, 0, false);
    EXPECT_EQ(e->live_cells(), (Cells{Cell{69, 8}}));
    e->step(3);
    e->step(0);
    e->step(2);
    EXPECT_EQ(e->generation(), 5);
    EXPECT_EQ(e->population(), 0);
}

// ---------------------------------------------------------------------------------------------
// Topology edge cases (expectations checked against bgolly)

TEST_P(EngineBehaviour, OneByOneTorusCellIsItsOwnEightNeighbours) {
    {
        MAKE_OR_SKIP(e, 1, 1, Topology::torus, "B3/S8");
        e->set_cell(0, 0, true);
        e->step(5);
        EXPECT_EQ(e->population(), 1) << "a lone cell on a 1x1 torus sees itself 8 times and survives S8";
    }
    {
        MAKE_OR_SKIP(e, 1, 1, Topology::torus, "B3/S7");
        e->set_cell(0, 0, true);
        e->step(1);
        EXPECT_EQ(e->population(), 0);
    }
    {
        MAKE_OR_SKIP(e, 1, 1, Topology::torus, "B0/S");
        e->step(1);
        EXPECT_EQ(e->population(), 1);  // born from 0 neighbours
        e->step(1);
        EXPECT_EQ(e->population(), 0);  // then has 8 (itself) and no survival
    }
    {
        MAKE_OR_SKIP(e, 1, 1, Topology::plane, "B2/S");
        e->set_cell(0, 0, true);
        e->step(1);
        EXPECT_EQ(e->population(), 0);
        MAKE_OR_SKIP(f, 1, 1, Topology::plane, "B3/S0");
        f->set_cell(0, 0, true);
        f->step(7);
        EXPECT_EQ(f->population(), 1) << "a lone cell on a 1x1 plane has 0 neighbours";
    }
}

TEST_P(EngineBehaviour, TwoByTwoTorusCountsTheSameNeighbourSeveralTimes) {
    // Cell (0,0) sees (1,1) four times, (1,0) and (0,1) twice each.
    {
        MAKE_OR_SKIP(e, 2, 2, Topology::torus, "B4/S");
        e->set_cell(0, 0, true);
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{1, 1}}));
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{0, 0}}));
    }
    {
        MAKE_OR_SKIP(e, 2, 2, Topology::torus, "B2/S");
        e->set_cell(0, 0, true);
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{1, 0}, Cell{0, 1}}));
        e->step(1);
        EXPECT_EQ(e->population(), 0);
    }
    {
        MAKE_OR_SKIP(e, 2, 2, Topology::plane, "B1/S");  // on a plane each neighbour counts once
        e->set_cell(0, 0, true);
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{1, 0}, Cell{0, 1}, Cell{1, 1}}));
    }
}

TEST_P(EngineBehaviour, OneWideAndOneHighBoards) {
    {
        MAKE_OR_SKIP(e, 1, 3, Topology::torus, "B3/S2");
        e->set_cell(0, 0, true);
        e->step(1);  // the live cell sees itself twice; the others see it 3 times
        EXPECT_EQ(e->live_cells(), (Cells{Cell{0, 0}, Cell{0, 1}, Cell{0, 2}}));
        e->step(1);
        EXPECT_EQ(e->population(), 0);
    }
    {
        MAKE_OR_SKIP(e, 3, 1, Topology::torus, "B3/S2");
        e->set_cell(2, 0, true);
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{0, 0}, Cell{1, 0}, Cell{2, 0}}));
    }
    {
        MAKE_OR_SKIP(e, 1, 5, Topology::plane);
        e->set_cells({Cell{0, 1}, Cell{0, 2}, Cell{0, 3}});
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{0, 2}}));
        e->step(1);
        EXPECT_EQ(e->population(), 0);
    }
    {
        MAKE_OR_SKIP(e, 200, 1, Topology::plane);  // a blinker cut in half: the row stays a row
        e->set_cells({Cell{64, 0}, Cell{65, 0}, Cell{66, 0}});
        e->step(1);
        EXPECT_EQ(e->live_cells(), (Cells{Cell{65, 0}}));
    }
}

struct SmallBoard {
    std::int64_t w, h;
};

TEST_P(EngineBehaviour, SmallBoardsMatchANaiveStepper) {
    // Every engine against an independent stepper on awkward sizes (word and tile boundaries).
    const std::vector<SmallBoard> boards = {{1, 1},  {1, 2},  {2, 1},  {2, 2},  {1, 7},   {7, 1},  {2, 5},
                                            {3, 3},  {5, 3},  {13, 11}, {31, 2}, {33, 17}, {63, 5}, {64, 4},
                                            {65, 3}, {64, 64}, {100, 61}, {129, 7}, {3, 130}};
    const std::vector<std::string> rules = {"B3/S23", "B36/S23", "B2/S", "B1357/S1357", "B3678/S34678",
                                            "B0123478/S34678", "B1/S012345678"};
    std::uint64_t seed = 1;
    for (const SmallBoard& b : boards)
        for (Topology t : {Topology::torus, Topology::plane})
            for (const std::string& rule : rules) {
                if (test::is_opencl(GetParam()) && b.w * b.h > 64 * 64) continue;
                MAKE_OR_SKIP(e, b.w, b.h, t, rule);
                const Cells start = test::soup(b.w, b.h, 0.35, ++seed);
                const Rule r = parse_rule(rule).rule;
                e->set_cells(start);
                e->step(7);
                const Cells want = test::naive_step(start, b.w, b.h, t, r, 7);
                const std::string d = test::diff(want, e->live_cells());
                EXPECT_TRUE(d.empty()) << b.w << "x" << b.h << " " << to_string(t) << " " << rule << ": " << d;
                EXPECT_EQ(e->population(), static_cast<std::int64_t>(want.size()));
                if (!d.empty()) return;  // one failure is enough to diagnose
            }
}

TEST_P(EngineBehaviour, GliderTurnsIntoABlockInThePlaneCorner) {
    // 10x10 plane, glider at the top-left heading south-east (bgolly: gen 28, then a block at 40).
    MAKE_OR_SKIP(e, 10, 10, Topology::plane);
    e->set_cells(kGlider);
    e->step(28);
    EXPECT_CELLS(translated(kGlider, 7, 7), e->live_cells());
    e->step(12);
    EXPECT_CELLS(translated(kBlock, 8, 8), e->live_cells());
    e->step(60);
    EXPECT_CELLS(translated(kBlock, 8, 8), e->live_cells());
}

TEST_P(EngineBehaviour, GliderWrapsAroundATorus) {
    MAKE_OR_SKIP(e, 7, 5, Topology::torus);
    e->set_cells(kGlider);
    e->step(28);  // moved (7,7) == (0,2) modulo (7,5)
    EXPECT_CELLS(translated(kGlider, 0, 2), e->live_cells());
    e->step(112);  // back home after 4 * lcm(7,5) generations
    EXPECT_CELLS(kGlider, e->live_cells());
    EXPECT_EQ(e->generation(), 140);
}

// ---------------------------------------------------------------------------------------------
// Known patterns on torus, plane and unbounded

class EngineOnTopology : public ::testing::TestWithParam<std::tuple<std::string, Topology>> {
protected:
    std::unique_ptr<Engine> make(const std::string& rule = "B3/S23") {
        std::string why;
        auto e = test::try_create(std::get<0>(GetParam()), test::spec_of(40, 30, std::get<1>(GetParam()), rule), &why);
        if (!e) skipped_ = why;
        return e;
    }
    std::string skipped_;
};

#define MAKE_T_OR_SKIP(var, ...)      \
    auto var = make(__VA_ARGS__);     \
    if (!var) GTEST_SKIP() << skipped_

TEST_P(EngineOnTopology, BlinkerHasPeriodTwo) {
    MAKE_T_OR_SKIP(e);
    const Cells h = translated(kBlinkerH, 10, 10), v = translated(kBlinkerV, 10, 10);
    e->set_cells(h);
    e->step(1);
    EXPECT_CELLS(v, e->live_cells());
    e->step(1);
    EXPECT_CELLS(h, e->live_cells());
    e->step(101);
    EXPECT_CELLS(v, e->live_cells());
    EXPECT_EQ(e->generation(), 103);
}

TEST_P(EngineOnTopology, GliderMovesOneCellDiagonallyEveryFourGenerations) {
    MAKE_T_OR_SKIP(e);
    const Cells g = translated(kGlider, 5, 3);
    e->set_cells(g);
    e->step(4);
    EXPECT_CELLS(translated(g, 1, 1), e->live_cells());
    e->step(36);
    EXPECT_CELLS(translated(g, 10, 10), e->live_cells());
    e->step(1);  // the next phase of the glider
    EXPECT_CELLS(translated(picture({"O.O", ".OO", ".O."}), 15, 14), e->live_cells());
}

TEST_P(EngineOnTopology, StillLifesStayPut) {
    MAKE_T_OR_SKIP(e);
    const Cells both = test::united(translated(kBlock, 3, 4), translated(kBeehive, 20, 20));
    e->set_cells(both);
    e->step(1);
    EXPECT_CELLS(both, e->live_cells());
    e->step(50);
    EXPECT_CELLS(both, e->live_cells());
    EXPECT_EQ(e->population(), 10);
}

TEST_P(EngineOnTopology, EmptyBoardStaysEmpty) {
    MAKE_T_OR_SKIP(e);
    e->step(10);
    EXPECT_EQ(e->population(), 0);
    EXPECT_TRUE(e->live_cells().empty());
    EXPECT_EQ(e->generation(), 10);
}

// ---------------------------------------------------------------------------------------------
// Methuselahs and other rules on the unbounded plane

// R-pentomino populations (bgolly 3.3).
TEST_P(EngineBehaviour, RPentominoPopulationsAndFinalState) {
    MAKE_OR_SKIP(e, 0, 0, Topology::unbounded);
    e->set_cells(kRPentomino);
    const std::vector<std::pair<std::int64_t, std::int64_t>> checkpoints = {
        {1, 6}, {2, 7}, {3, 9}, {10, 11}, {50, 64}, {100, 121}, {200, 120}, {500, 174}, {1000, 156},
        {1102, 118}, {1103, 116}, {1104, 116}, {2000, 116}};
    for (const auto& [gen, pop] : checkpoints) {
        e->step(gen - e->generation());
        ASSERT_EQ(e->generation(), gen);
        EXPECT_EQ(e->population(), pop) << "generation " << gen;
        EXPECT_EQ(static_cast<std::int64_t>(e->live_cells().size()), pop) << "generation " << gen;
        if (gen == 1103) {
            // The exact stable result (absolute coordinates, from bgolly's macrocell output).
            const Cells want = rle_cells(
                "479b2o$478bobo$480bo28$bo$2o$obo117$180b2o$180bobo$180bo90$265b2o$264bo2bo$265bobo$266bo$"
                "235bo$234bobo3b2o$235b2o3b2o3$284b3o$271b3o2$293b2o$293b2o5$201b2o$200bobo$200b2o31bo$"
                "232bobo$232bobo$233bo6bo$219b2o18bobo$219b2o18bobo$240bo2$211b2o$211b2o56b2o$269b2o2$"
                "241b3o51b2o$295b2o4$307bo$306bobo$283b2o21bobo$283b2o22bo3$295b3o$265bo$264bobo$"
                "264bobo$265bo2$249b2o$249b2o208$473bo$474b2o$473b2o7$499bo$500bo$498b3o12$454bo$"
                "455b2o$454b2o!",
                -240, -258);
            ASSERT_EQ(want.size(), 116u);
            EXPECT_CELLS(want, e->live_cells());
        }
    }
}

TEST_P(EngineBehaviour, DiehardDiesOutAtGeneration130) {
    MAKE_OR_SKIP(e, 0, 0, Topology::unbounded);
    e->set_cells(picture({"......O.", "OO......", ".O...OOO"}));
    e->step(100);
    EXPECT_EQ(e->population(), 23);
    e->step(29);
    EXPECT_EQ(e->population(), 2);
    e->step(1);
    EXPECT_EQ(e->population(), 0);
    EXPECT_TRUE(e->live_cells().empty());
    e->step(1000);
    EXPECT_EQ(e->population(), 0);
    EXPECT_EQ(e->generation(), 1130);
}

TEST_P(EngineBehaviour, HighLifeReplicatorMakesCopies) {
    MAKE_OR_SKIP(e, 0, 0, Topology::unbounded, "B36/S23");
    const Cells rep = picture({"..OOO", ".O..O", "O...O", "O..O.", "OOO.."});
    e->set_cells(rep);
    e->step(12);
    // Two copies of itself, moved (-2,-2) and (+2,+2) (bgolly).
    EXPECT_CELLS(test::united(translated(rep, -2, -2), translated(rep, 2, 2)), e->live_cells());
    const std::vector<std::pair<std::int64_t, std::int64_t>> pops = {{24, 24}, {36, 48}, {48, 24}, {60, 48},
                                                                     {72, 48}, {84, 96}, {96, 24}};
    for (const auto& [gen, pop] : pops) {
        e->step(gen - e->generation());
        EXPECT_EQ(e->population(), pop) << "generation " << gen;
    }
    // At 96 exactly two copies again, moved (-16,-16) and (+16,+16) (bgolly).
    EXPECT_CELLS(test::united(translated(rep, -16, -16), translated(rep, 16, 16)), e->live_cells());
}

TEST_P(EngineBehaviour, SeedsExplodes) {
    MAKE_OR_SKIP(e, 0, 0, Topology::unbounded, "B2/S");
    e->set_cells(picture({"OO", ".O"}));
    const std::vector<std::pair<std::int64_t, std::int64_t>> pops = {
        {1, 4}, {25, 216}, {50, 930}, {75, 1927}, {100, 3659}};
    for (const auto& [gen, pop] : pops) {
        e->step(gen - e->generation());
        EXPECT_EQ(e->population(), pop) << "generation " << gen;
    }
    // It spreads in every direction (bounding box from bgolly).
    EXPECT_EQ(test::bbox(e->live_cells()), (Box{-91, -100, 193, 193}));
}

INSTANTIATE_TEST_SUITE_P(AllEngines, EngineBehaviour, ::testing::ValuesIn(test::engine_names()),
                         test::EngineParamName{});

INSTANTIATE_TEST_SUITE_P(
    AllEngines, EngineOnTopology,
    ::testing::Combine(::testing::ValuesIn(test::engine_names()),
                       ::testing::Values(Topology::torus, Topology::plane, Topology::unbounded)),
    [](const ::testing::TestParamInfo<std::tuple<std::string, Topology>>& info) {
        return test::param_name(std::get<0>(info.param)) + "_" + std::string(to_string(std::get<1>(info.param)));
    });

}  // namespace
}  // namespace tilelife
