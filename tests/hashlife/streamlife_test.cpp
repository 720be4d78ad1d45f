// cpu:streamlife against the oracles: cpu:reference on random soups of several rules, cpu:hashlife
// and bgolly on Golly's patterns with streams (guns, rakes, puffers, metapixels) at odd counts, a
// store forced through collections mid-run, the budget, trees in and out, and the CLI. Streams
// that cross, pass and are eaten exercise the independence test; a deliberately unsound one (any
// two streams independent) must be caught by the same comparisons.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "hashlife/hashlife.hpp"
#include "hashlife/streamlife.hpp"
#include "support/test_support.hpp"
#include "tilelife/board.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

using test::Cells;

const std::string kGolly = "/usr/share/golly/Patterns";
const Cells kGun = test::rle_cells(
    "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!");

BoardSpec plane(const std::string& rule = "B3/S23") { return test::spec_of(0, 0, Topology::unbounded, rule); }

std::unique_ptr<Engine> streamlife(const std::string& rule = "B3/S23", const EngineOptions& o = {},
                                   const streamlife::Tuning& t = {}) {
    return streamlife::make_streamlife(plane(rule), o, t);
}

std::int64_t property(const Engine& e, const std::string& key) {
    for (const auto& [k, v] : e.describe().properties)
        if (k == key) return std::get<std::int64_t>(v);
    ADD_FAILURE() << "no property " << key;
    return -1;
}

// Both engines through the same checkpoints; the first difference as a failure message, or "".
// The oracle is cpu:reference; cpu:hashlife (itself checked against it) for runs whose streams
// spread too far for the reference to be quick.
std::string first_difference(const std::string& rule, const Cells& start, const std::vector<std::int64_t>& steps,
                             const streamlife::Tuning& tuning = {}, std::int64_t* splits = nullptr,
                             const std::string& oracle = "cpu:reference") {
    register_builtin_engines();
    auto ref = create_engine(oracle, plane(rule));
    auto s = streamlife(rule, {}, tuning);
    ref->set_cells(start);
    s->set_cells(start);
    for (std::int64_t n : steps) {
        ref->step(n);
        s->step(n);
        const Cells want = ref->live_cells();
        const std::string d = test::diff(want, s->live_cells());
        if (!d.empty()) return rule + ", generation " + std::to_string(ref->generation()) + ": " + d;
        if (s->population() != static_cast<std::int64_t>(want.size())) return "population differs";
        if (!want.empty() && s->bounding_box() != test::bbox(want)) return "bounding box differs";
    }
    if (splits) *splits = property(*s, "independent pairs");
    return {};
}

// Streams meeting in every way: a gun's stream, gliders and a spaceship crossing it, passing a
// blinker, running into a block and a beehive (cells moving forward, east or south, go to the
// second layer, still ones and the rest stay in the first: these are pairs of streams whose lanes
// meet), plus ash from a soup.
Cells streams_scene() {
    Cells c = kGun;                                                        // fires south-east
    c = test::united(c, test::translated(test::picture({".O.", "..O", "OOO"}), 300, -200));  // glider south-east ...
    c = test::united(c, test::translated(test::picture({"OO", "OO"}), 360, -140));            // ... into a block
    c = test::united(c, test::translated(test::picture({".O..O", "O....", "O...O", "OOOO."}), 500, 300));  // LWSS west ...
    c = test::united(c, test::translated(test::picture({".OO.", "O..O", ".OO."}), 380, 300));  // ... into a beehive
    c = test::united(c, test::translated(test::picture({"OOO", "O..", ".O."}), -200, 260));   // glider north-west ...
    c = test::united(c, test::translated(test::picture({"O", "O", "O"}), -260, 200));         // ... into a blinker
    c = test::united(c, test::translated(test::picture({"OOO", "O..", ".O."}), 120, 90));   // glider north-west
    c = test::united(c, test::translated(test::picture({".O.", "O..", "OOO"}), 150, 40));   // glider south-west
    c = test::united(c, test::translated(test::picture({"OOO"}), 70, 40));                  // a blinker by the stream
    c = test::united(c, test::translated(test::picture({".O..O", "O....", "O...O", "OOOO."}), 40, 160));  // LWSS west
    c = test::united(c, test::soup(12, 12, 0.4, 9, -60, 30));
    return c;
}

TEST(Streamlife, SoupsMatchTheReferenceAtOddCheckpoints) {
    for (const std::string rule : {"B3/S23", "B36/S23", "B3/S012345678", "B2/S", "B35678/S5678"}) {
        EXPECT_EQ(first_difference(rule, test::soup(48, 40, 0.35, 7, -30, -4), {1, 3, 60, 129, 300}), "");
        EXPECT_EQ(first_difference(rule, test::soup(20, 70, 0.5, 8, 100, -200), {5, 2, 127}), "");
    }
}

TEST(Streamlife, StreamsCrossingPassingAndEatenMatchTheReference) {
    std::int64_t splits = 0;
    EXPECT_EQ(first_difference("B3/S23", streams_scene(), {1, 7, 33, 100, 255}, {}, &splits), "");
    EXPECT_EQ(first_difference("B3/S23", streams_scene(), {511, 1, 4096, 30001}, {}, nullptr, "cpu:hashlife"), "");
    EXPECT_GT(splits, 0) << "no pair was stepped as two layers: the independence test went untested";
}

TEST(Streamlife, TwoGunsWithParallelStreamsSplitAndStayExact) {
    // Two Gosper guns, one mirrored, 40 cells apart: their streams run parallel (south-east and
    // north-west) past each other's guns' lanes for as long as the run goes.
    const Cells mirrored = [] {
        Cells m;
        for (const Cell& c : kGun) m.push_back(Cell{-c.x, -c.y});
        return m;
    }();
    const Cells start = test::united(kGun, test::translated(mirrored, 60, 100));
    std::int64_t splits = 0;
    EXPECT_EQ(first_difference("B3/S23", start, {3, 61, 300}, {}, &splits), "");
    EXPECT_GT(splits, 0);
    EXPECT_EQ(first_difference("B3/S23", start, {1023, 3001, 100003}, {}, &splits, "cpu:hashlife"), "");
    EXPECT_GT(splits, 0);
}

// Two trains of gliders at irregular spacings, one moving south-east, the other north-west on a
// lane 30 cells across: they pass each other without touching. HashLife meets a new square for
// every way the two trains overlap; the layers keep them apart (forward-moving streams in the
// second layer, the rest in the first), so most pairs are stepped as two one-layer results.
Cells passing_trains(int gliders) {
    Cells c;
    std::uint32_t seed = 12345;
    auto gap = [&] {
        seed = seed * 1664525u + 1013904223u;
        return 6 + static_cast<int>((seed >> 16) % 9);
    };
    const Cells south_east = test::picture({".O.", "..O", "OOO"}), north_west = test::picture({"OOO", "O..", ".O."});
    int d = 0;
    for (int i = 0; i < gliders; ++i) {
        d += gap();
        c = test::united(c, test::translated(south_east, d, d));
    }
    d += 50;
    for (int i = 0; i < gliders; ++i) {
        d += gap();
        c = test::united(c, test::translated(north_west, d, d + 30));
    }
    return c;
}

TEST(Streamlife, TrainsPassingEachOtherAreSteppedAsTwoLayers) {
    const Cells start = passing_trains(80);
    EXPECT_EQ(first_difference("B3/S23", start, {3, 61, 300}), "");
    register_builtin_engines();
    auto hashlife = create_engine("cpu:hashlife", plane());
    auto s = streamlife();
    hashlife->set_cells(start);
    s->set_cells(start);
    for (std::int64_t n : {1023, 1, 4096, 8191}) {
        hashlife->step(n);
        s->step(n);
        ASSERT_EQ(test::diff(hashlife->live_cells(), s->live_cells()), "") << "generation " << s->generation();
    }
    const std::int64_t splits = property(*s, "independent pairs"), pairs = property(*s, "pair results");
    EXPECT_GT(splits, 0);
    EXPECT_GE(2 * splits, pairs) << "the two trains share a layer: their overlaps are stepped as pairs";
}

// The engine cpu:auto runs on.
std::string running(const Engine& e) {
    for (const auto& [k, v] : e.describe().properties)
        if (k == "running") return std::get<std::string>(v);
    return "?";
}

// cpu:auto takes cpu:streamlife for a long run of streams moving both ways, and only then: a short
// run of the same trains, and a gun (streams one way), stay on HashLife. Cells exact either way.
TEST(StreamlifeAuto, ChoosesStreamlifeForLongRunsOfStreamsPassingEachOther) {
    register_builtin_engines();
    struct Case {
        Cells start;
        std::int64_t gens;
        std::string engine;
    };
    for (const Case& c : {Case{passing_trains(80), 32768, "cpu:streamlife"}, Case{passing_trains(80), 4096, "cpu:hashlife"},
                          Case{kGun, 32768, "cpu:hashlife"}}) {
        auto a = create_engine("cpu:auto", plane());
        auto h = create_engine("cpu:hashlife", plane());
        a->set_cells(c.start);
        h->set_cells(c.start);
        a->step(c.gens);
        h->step(c.gens);
        EXPECT_EQ(running(*a), c.engine) << c.gens << " generations";
        EXPECT_EQ(a->generation(), c.gens);
        EXPECT_EQ(test::diff(h->live_cells(), a->live_cells()), "") << c.gens << " generations";
        a->step(1001);
        h->step(1001);
        EXPECT_EQ(test::diff(h->live_cells(), a->live_cells()), "") << c.gens << " + 1001 generations";
    }
}

// Before it looks, cpu:auto exports HashLife's tree of the pattern beside HashLife's store: only
// when the memory budget holds both (export_cost). With a byte less, a long run of passing trains
// stays on HashLife. The runs are interrupted from the start: the choice is made at the first
// step, before any generation, and budgets this small could not hold the run itself.
TEST(StreamlifeAuto, LooksOnlyWhenTheBudgetHoldsTheExportedTreeBesideTheStore) {
    register_builtin_engines();
    const Cells start = passing_trains(80);
    auto h = create_engine("cpu:hashlife", plane());
    h->set_cells(start);
    const hashlife::ExportCost cost = hashlife::export_cost(*h);
    ASSERT_GT(cost.store_bytes, 0);
    // The bound holds the tree the export makes (33 bytes a square: its node and its level), and
    // the lanes the exact count lists (64 bytes for each place of a 64x64 square with cells).
    const std::shared_ptr<const Quadtree> tree = h->quadtree();
    ASSERT_TRUE(tree);
    EXPECT_GE(cost.export_bytes, static_cast<std::int64_t>(tree->nodes().size()) * 33 + h->population() * 64);
    const std::int64_t both = cost.store_bytes + cost.export_bytes;
    for (const auto& [budget, engine] : {std::pair{both - 1, "cpu:hashlife"}, std::pair{both, "cpu:streamlife"}}) {
        std::atomic<bool> stop{true};
        EngineOptions o;
        o.max_bytes = budget;
        o.interrupt = &stop;
        auto a = create_engine("cpu:auto", plane(), o);
        a->set_cells(start);
        a->step(32768);
        EXPECT_EQ(running(*a), engine) << "a budget of " << budget << " bytes";
        EXPECT_EQ(a->generation(), 0);
        EXPECT_EQ(test::diff(start, a->live_cells()), "") << "a budget of " << budget << " bytes";
    }
}

// What cpu:auto reads before choosing: each 64x64 square of the tree (a tree of a level above 6
// has its squares' corners at x = 64a, y = 64b + 1) is a stream moving forward, backward or
// neither, and streams that keep their distance on their axis from the other way's lanes and
// from everything else are apart. Exact counts of cells for scenes laid out by hand.
TEST(StreamShare, SquaresAndLanesCountedExactly) {
    const Cells south_east = test::picture({".O.", "..O", "OOO"}), north_west = test::picture({"OOO", "O..", ".O."});
    const Cells block = test::picture({"OO", "OO"});
    const auto share = [](const Cells& cells, const std::string& rule = "B3/S23") {
        return streamlife::stream_share(Quadtree::from_cells(cells), parse_rule(rule).rule);
    };
    const auto expect = [](const streamlife::StreamShare& s, std::int64_t f, std::int64_t b, std::int64_t p,
                           std::int64_t apart) {
        EXPECT_EQ(s.forward, f);
        EXPECT_EQ(s.backward, b);
        EXPECT_EQ(s.population, p);
        EXPECT_EQ(s.apart, apart);
    };
    const Cells se = test::translated(south_east, 30, 31);  // inside the square at (0, 1)
    {
        SCOPED_TRACE("no cells");
        expect(share({}), 0, 0, 0, 0);
    }
    {
        SCOPED_TRACE("on diagonals 192 apart");
        expect(share(test::united(se, test::translated(north_west, 30 + 256, 31 + 64))), 5, 5, 10, 10);
    }
    {
        SCOPED_TRACE("on one diagonal, towards each other");
        expect(share(test::united(se, test::translated(north_west, 30 + 192, 31 + 192))), 5, 5, 10, 0);
    }
    {
        SCOPED_TRACE("on diagonals 11 apart: within the independence test's reach of 16");
        expect(share(test::united(se, test::translated(north_west, 30 + 204, 31 + 192))), 5, 5, 10, 0);
    }
    {
        SCOPED_TRACE("a block on the south-east glider's diagonal");
        const Cells scene = test::united(se, test::translated(north_west, 30 + 256, 31 + 64));
        expect(share(test::united(scene, test::translated(block, 128 + 30, 129 + 30))), 5, 5, 14, 5);
    }
    {
        SCOPED_TRACE("both gliders in one square: neither way");
        expect(share(test::united(se, test::translated(north_west, 50, 31))), 0, 0, 10, 0);
    }
    {
        SCOPED_TRACE("a glider across two squares, in their 4-cell borders, is not seen moving");
        const Cells scene = test::united(se, test::translated(north_west, 30 + 256, 31 + 64));
        expect(share(test::united(scene, test::translated(south_east, 128 + 62, 129 + 30))), 5, 5, 15, 10);
    }
    {
        SCOPED_TRACE("a small tree: one square at the origin of a level-6 root");
        // In the corner of a level-5 root: 16 cells from the level-6 square's corner, clear of its border.
        expect(share(test::translated(south_east, -16, -15)), 5, 0, 5, 0);
    }
    {
        SCOPED_TRACE("the rule decides: no glider in B3/S2");
        expect(share(test::united(se, test::translated(north_west, 30 + 256, 31 + 64)), "B3/S2"), 0, 0, 10, 0);
    }
}

// The quick look cpu:auto takes first: a sample of the cells, drawn the same way every time. A
// quarter of the cells moving each way (gliders in squares of their own, blocks for the rest)
// passes a floor of an eighth and fails one of 0.4; streams one way only, or none, never pass.
TEST(StreamShare, ASampleOfTheCellsSeesEachWaysShare) {
    const Cells south_east = test::picture({".O.", "..O", "OOO"}), north_west = test::picture({"OOO", "O..", ".O."});
    const Cells block = test::picture({"OO", "OO"});
    Cells quarters, one_way, still;
    for (int i = 0; i < 40; ++i) {
        quarters = test::united(quarters, test::translated(south_east, 64 * i + 30, 31));
        quarters = test::united(quarters, test::translated(north_west, 64 * i + 30, 64 * 8 + 31));
        one_way = test::united(one_way, test::translated(south_east, 64 * i + 30, 64 * (i % 5) + 31));
    }
    for (int i = 0; i < 100; ++i) {
        quarters = test::united(quarters, test::translated(block, 64 * (i % 20) + 30, 64 * (3 + i / 20) + 31));
        still = test::united(still, test::translated(block, 64 * (i % 20) + 30, 64 * (i / 20) + 31));
    }
    const Rule life = Rule::life();
    const Quadtree q = Quadtree::from_cells(quarters);
    const streamlife::StreamShare exact = streamlife::stream_share(q, life);
    ASSERT_EQ(exact.forward * 4, exact.population);
    ASSERT_EQ(exact.backward * 4, exact.population);
    EXPECT_TRUE(streamlife::sampled_both_ways(q, life, 1.0 / 8));
    EXPECT_FALSE(streamlife::sampled_both_ways(q, life, 0.4));
    EXPECT_FALSE(streamlife::sampled_both_ways(Quadtree::from_cells(one_way), life, 1.0 / 8));
    EXPECT_FALSE(streamlife::sampled_both_ways(Quadtree::from_cells(still), life, 1.0 / 8));
    EXPECT_FALSE(streamlife::sampled_both_ways(Quadtree{}, life, 1.0 / 8));
    Quadtree hollow;  // squares, but no cells
    const Quadtree::Index leaf = hollow.add_leaf(0);
    const Quadtree::Index n4 = hollow.add_node(4, {leaf, 0, 0, 0}), n5 = hollow.add_node(5, {n4, 0, 0, 0});
    const Quadtree::Index n6 = hollow.add_node(6, {0, n5, 0, 0});
    hollow.set_root(hollow.add_node(8, {0, 0, hollow.add_node(7, {n6, n6, 0, 0}), 0}), 8);
    EXPECT_FALSE(streamlife::sampled_both_ways(hollow, life, 1.0 / 8));
    EXPECT_EQ(streamlife::stream_share(hollow, life).population, 0);
    EXPECT_TRUE(streamlife::sampled_both_ways(Quadtree::from_cells(passing_trains(80)), life, 1.0 / 8));
    EXPECT_FALSE(streamlife::sampled_both_ways(Quadtree::from_cells(kGun), life, 1.0 / 8));
}

TEST(Streamlife, AnUnsoundIndependenceTestIsCaught) {
    // The comparisons above can fail: with every pair of streams taken as independent, whatever
    // their lanes, the crossing streams come out wrong.
    streamlife::Tuning broken;
    broken.trust_streams = true;
    EXPECT_NE(first_difference("B3/S23", streams_scene(), {511, 1, 4096, 30001}, broken, nullptr, "cpu:hashlife"), "");
}

TEST(Streamlife, SteppingInPiecesEqualsSteppingAtOnce) {
    const Cells start = test::united(kGun, test::soup(30, 30, 0.4, 3, 200, -100));
    auto a = streamlife(), b = streamlife();
    a->set_cells(start);
    b->set_cells(start);
    a->step(12341);
    for (std::int64_t n : {1, 2, 4000, 8191, 147}) b->step(n);
    EXPECT_EQ(a->generation(), b->generation());
    EXPECT_CELLS(a->live_cells(), b->live_cells());
}

TEST(Streamlife, RegionsAndCellsMatchTheReference) {
    register_builtin_engines();
    auto ref = create_engine("cpu:hashlife", plane());
    auto s = streamlife();
    const Cells start = streams_scene();
    ref->set_cells(start);
    s->set_cells(start);
    ref->step(300);
    s->step(300);
    const Box box{-20, -10, 90, 70};
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(box.width * box.height), 0);
    for (std::size_t i = 0; i < cells.size(); i += 7) cells[i] = 1;
    ref->write_region(box, cells.data());
    s->write_region(box, cells.data());
    ref->set_cells({{5000, -7000}, {5001, -7000}, {5002, -7000}});
    s->set_cells({{5000, -7000}, {5001, -7000}, {5002, -7000}});
    ref->step(77);
    s->step(77);
    EXPECT_CELLS(ref->live_cells(), s->live_cells());
    const Box window{0, 0, 64, 48};
    std::vector<std::uint8_t> want(window.width * window.height), got(want.size());
    ref->read_region(window, want.data());
    s->read_region(window, got.data());
    EXPECT_EQ(want, got);
    EXPECT_EQ(ref->live_cells_in(window), s->live_cells_in(window));
}

TEST(Streamlife, B0IsRefusedAndTheEngineIsRegistered) {
    register_builtin_engines();
    EXPECT_THROW(create_engine("cpu:streamlife", plane("B03/S23")), InputError);
    auto e = create_engine("cpu:streamlife", plane());
    EXPECT_EQ(e->name(), "cpu:streamlife");
    EXPECT_EQ(e->describe().backend, "cpu");
}

// ---------------------------------------------------------------------------------------------
// Memory

TEST(StreamlifeMemory, CollectionsMidRunKeepTheCellsExact) {
    // A 256 KiB store in a 4 MiB budget: the gun's stream and a soup's ash fill it many times
    // within one step; each time it is collected and the step retried (in halves if need be).
    streamlife::Tuning small;
    small.initial_bytes = 256 << 10;
    EngineOptions tight;
    tight.max_bytes = 4 << 20;
    const Cells start = test::united(kGun, test::soup(48, 48, 0.4, 21, 100, 100));
    auto roomy = streamlife(), cramped = streamlife("B3/S23", tight, small);
    roomy->set_cells(start);
    cramped->set_cells(start);
    for (std::int64_t n : {1000, 3, 20000, 65537}) {
        roomy->step(n);
        cramped->step(n);
        EXPECT_CELLS(roomy->live_cells(), cramped->live_cells());
    }
    EXPECT_GE(property(*cramped, "collections"), 3);
    EXPECT_EQ(property(*roomy, "collections"), 0);
    EXPECT_LE(property(*cramped, "bytes"), tight.max_bytes);
}

TEST(StreamlifeMemory, APatternOverTheBudgetIsARuntimeErrorNamingIt) {
    // The store copes with a small budget by collecting and stepping in smaller pieces; a pattern
    // whose squares alone are over the budget cannot run.
    EngineOptions tiny;
    tiny.max_bytes = 600 << 10;
    auto e = streamlife("B3/S23", tiny);
    try {
        e->set_cells(test::soup(1500, 1500, 0.45, 5));
        e->step(100);
        ADD_FAILURE() << "no error";
    } catch (const RuntimeError& err) {
        EXPECT_NE(std::string(err.what()).find("memory budget"), std::string::npos) << err.what();
    }
    EXPECT_LE(property(*e, "bytes"), tiny.max_bytes);
    tiny.max_bytes = 4096;  // below the store's own start
    EXPECT_THROW(streamlife("B3/S23", tiny), InputError);
}

TEST(StreamlifeRun, InterruptStopsALongStepAndLeavesAnExactState) {
    // Seeds (B2/S) grows chaotically at the speed of light: 2^20 generations would take hours; the
    // flag, raised after 50 ms, stops the run between pieces or inside one (undoing that piece),
    // at an exact generation.
    std::atomic<bool> stop{false};
    EngineOptions o;
    o.interrupt = &stop;
    auto s = streamlife("B2/S", o);
    const Cells start = test::soup(20, 20, 0.4, 11);
    s->set_cells(start);
    std::thread raiser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        stop = true;
    });
    s->step((std::int64_t{1} << 20) - 1);  // twenty pieces
    raiser.join();
    EXPECT_LT(s->generation(), (std::int64_t{1} << 20) - 1);
    register_builtin_engines();
    auto h = create_engine("cpu:hashlife", plane("B2/S"));
    h->set_cells(start);
    h->step(s->generation());
    EXPECT_CELLS(h->live_cells(), s->live_cells());
}

TEST(StreamlifeRun, ARunLeavingThePlaneIsARuntimeError) {
    auto s = streamlife();
    s->set_cells(test::picture({".O.", "..O", "OOO"}));
    EXPECT_THROW(s->step(INT64_MAX), RuntimeError);
}

// ---------------------------------------------------------------------------------------------
// Golly's patterns with streams, against cpu:hashlife (cells as macrocell text) and bgolly

struct RunResult {
    std::string text;      // the result as macrocell text
    std::int64_t splits = 0;
};

RunResult run_engine(const std::string& engine, const std::string& path, std::int64_t count) {
    ReadLimits limits;
    limits.list_tree_cells = false;
    const Pattern p = read_pattern(path, limits);
    const BoardPlan plan = plan_board(p, BoardOverrides{}, path);
    auto e = create_engine(engine, plan.spec);
    if (p.tree && plan.cells.empty()) EXPECT_TRUE(e->load_quadtree(*p.tree));
    else e->set_cells(plan.cells);
    e->step(count);
    RunResult r;
    r.text = format_macrocell(*e->quadtree(), rule_for_output(plan.spec), p.generation + count);
    if (engine == "cpu:streamlife") r.splits = property(*e, "independent pairs");
    return r;
}

std::string body(const std::string& mc) {  // without the first line (the writer's name)
    const auto nl = mc.find('\n');
    return nl == std::string::npos ? std::string() : mc.substr(nl + 1);
}

struct GollyCase {
    std::string file;
    std::int64_t count;
};
void PrintTo(const GollyCase& c, std::ostream* os) { *os << c.file << " " << c.count; }

class GollyStreams : public ::testing::TestWithParam<GollyCase> {};

TEST_P(GollyStreams, SameCellsAsHashlife) {
    register_builtin_engines();
    const std::string path = kGolly + "/" + GetParam().file;
    if (!test::file_exists(path)) GTEST_SKIP() << path << " not installed (golly's patterns)";
    const RunResult h = run_engine("cpu:hashlife", path, GetParam().count);
    const RunResult s = run_engine("cpu:streamlife", path, GetParam().count);
    EXPECT_TRUE(body(h.text) == body(s.text)) << "cells differ from cpu:hashlife's";
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, GollyStreams,
    ::testing::Values(GollyCase{"Life/Guns/period-52-glider-gun.rle", 100003},
                      GollyCase{"Life/Guns/p59-gun-with-Snark-reflectors.rle", 65537},
                      GollyCase{"Life/Guns/gun-p165mwss.rle", 30001}, GollyCase{"Life/Guns/golly-ticker.rle", 10007},
                      GollyCase{"Life/Guns/2c5-spaceship-gun-p416.rle", 4097},
                      GollyCase{"Life/Guns/Cordership-gun-p784.rle", 20001},
                      GollyCase{"Life/Rakes/basic-rakes.rle", 100003},
                      GollyCase{"Life/Rakes/c4-sideways-rake.rle", 30001},
                      GollyCase{"Life/Rakes/forward-LWSS-rake-p90.rle", 20001},
                      GollyCase{"Life/Rakes/spider-rake.rle", 8191}, GollyCase{"Life/Puffers/puffer-train.rle", 10001},
                      GollyCase{"Life/Breeders/rake-breeder.rle", 4097},
                      GollyCase{"HashLife/metapixel-p216-gun.mc.gz", 4095},
                      GollyCase{"HashLife/metapixel-parity64.mc.gz", 1023},
                      GollyCase{"HashLife/loafer-gun-p8388608-linear.mc.gz", 16383},
                      GollyCase{"HashLife/triple-Snark-wick-extruder.rle.gz", 1025}),
    [](const auto& info) {
        std::string n = info.param.file.substr(info.param.file.rfind('/') + 1);
        n = n.substr(0, n.find('.'));
        for (char& ch : n)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return n;
    });

TEST(GollyStreamsBgolly, SameCellsAsBgollyOnAGunAndAMetapixel) {
    if (test::bgolly_path().empty()) GTEST_SKIP() << "bgolly not found";
    register_builtin_engines();
    test::TempDir dir;
    for (const GollyCase& c : {GollyCase{"Life/Guns/p59-gun-with-Snark-reflectors.rle", 1000003},
                               GollyCase{"HashLife/metapixel-galaxy.mc.gz", 4095}}) {
        SCOPED_TRACE(c.file);
        const std::string path = kGolly + "/" + c.file;
        if (!test::file_exists(path)) continue;
        ReadLimits limits;
        limits.list_tree_cells = false;
        const Pattern p = read_pattern(path, limits);
        const std::string out = dir / "golly.mc";
        const test::CommandResult r = test::run_command(
            "timeout 600 " + test::shell_quote(test::bgolly_path()) + " -a HashLife -q -q -m " +
            std::to_string(p.generation + c.count) + " -o " + test::shell_quote(out) + " " + test::shell_quote(path));
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        const RunResult s = run_engine("cpu:streamlife", path, c.count);
        EXPECT_TRUE(body(test::read_text(out)) == body(s.text)) << "cells differ from bgolly's";
    }
}

// ---------------------------------------------------------------------------------------------
// The CLI

test::CommandResult tl(const test::TempDir& dir, const std::string& args) {
    return test::run_command("cd " + test::shell_quote(dir.path()) + " && " + test::shell_quote(TILELIFE_CLI) + " " +
                             args);
}

TEST(StreamlifeCli, RunsByNameAndRefusesAHopelessBudgetNamingIt) {
    test::TempDir dir;
    auto r = tl(dir, "run random:60x60:0.4:3 --kernel cpu:streamlife --gens 1001 -q -o s.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = tl(dir, "run random:60x60:0.4:3 --kernel cpu:hashlife --gens 1001 -q -o h.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::read_text(dir / "s.rle"), test::read_text(dir / "h.rle"));
    r = tl(dir, "run random:1000x1000:0.45:5 --kernel cpu:streamlife --gens 100 --max-memory 600K -o x.mc");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("memory budget"), std::string::npos) << r.err;
    EXPECT_FALSE(test::file_exists(dir / "x.mc"));
    r = tl(dir, "engines");
    EXPECT_NE(r.out.find("cpu:streamlife"), std::string::npos);
}

}  // namespace
}  // namespace tilelife
