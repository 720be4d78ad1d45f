// cpu:hashlife against the oracle (cpu:reference on the unbounded plane): every Life-like rule the
// plane allows on random soups, every leaf-kernel instruction set, odd and huge step counts, the
// store forced through collections, interruption, the light-cone refusal, trees in and out.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <random>
#include <thread>

#include "hashlife/hashlife.hpp"
#include "tilelife/pattern.hpp"
#include "support/test_support.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::picture;
using test::translated;

const Cells kGlider = picture({".O.", "..O", "OOO"});  // (+1, +1) every 4 generations
const Cells kGun = test::rle_cells(
    "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!");

BoardSpec plane(const std::string& rule = "B3/S23") { return test::spec_of(0, 0, Topology::unbounded, rule); }

std::unique_ptr<Engine> hashlife(const std::string& rule = "B3/S23", const EngineOptions& o = {},
                                 const hashlife::Tuning& t = {}) {
    return hashlife::make_hashlife(plane(rule), o, t);
}

std::int64_t property(const Engine& e, const std::string& key) {
    for (const auto& [k, v] : e.describe().properties)
        if (k == key) return std::get<std::int64_t>(v);
    ADD_FAILURE() << "no property " << key;
    return -1;
}

// Steps both engines through the same checkpoints, comparing every one.
void compare_with_reference(const std::string& rule, const Cells& start, const std::vector<std::int64_t>& steps,
                            const hashlife::Tuning& tuning = {}) {
    register_builtin_engines();
    auto ref = create_engine("cpu:reference", plane(rule));
    auto h = hashlife(rule, {}, tuning);
    ref->set_cells(start);
    h->set_cells(start);
    ASSERT_EQ(h->population(), static_cast<std::int64_t>(test::sorted(start).size()));
    for (std::int64_t n : steps) {
        ref->step(n);
        h->step(n);
        ASSERT_EQ(h->generation(), ref->generation());
        const Cells want = ref->live_cells();
        const std::string d = test::diff(want, h->live_cells());
        ASSERT_TRUE(d.empty()) << rule << ", generation " << h->generation() << ": " << d;
        ASSERT_EQ(h->population(), static_cast<std::int64_t>(want.size())) << rule;
        if (!want.empty()) {
            ASSERT_EQ(h->extent(), test::bbox(want)) << rule;
        }
    }
}

// Rules: the named ones of the test plan, light-speed growth (B1, B2), no births at all, and
// every neighbour count.
const std::vector<std::string> kRules = {"B3/S23",      "B36/S23",   "B2/S",       "B1/S1",     "B3678/S34678", "B1357/S1357",
                        "B/S0123",     "B34/S34",   "B35678/S5678", "B2/S2",   "B38/S238",     "B13/S012",
                        "B12345678/S012345678", "B368/S245", "B4/S", "B5678/S45678"};

class Rules : public ::testing::TestWithParam<std::string> {};

TEST_P(Rules, SoupsMatchTheReferenceAtOddCheckpoints) {
    const std::string rule = GetParam();
    const bool fast_growth = rule.find("B1") == 0 || rule.find("B2") == 0;
    const std::vector<std::int64_t> steps =
        fast_growth ? std::vector<std::int64_t>{1, 2, 5, 16, 7} : std::vector<std::int64_t>{1, 2, 5, 16, 31, 64, 100, 3};
    compare_with_reference(rule, test::soup(21, 19, 0.35, 7, -30, -4), steps);
    compare_with_reference(rule, test::soup(37, 5, 0.5, 8, 100, -200), {3, 1, 60});
}

INSTANTIATE_TEST_SUITE_P(Named, Rules, ::testing::ValuesIn(kRules), [](const auto& info) {
    return test::param_name(info.param);
});

TEST(Hashlife, RandomRulesWithoutB0MatchTheReference) {
    std::mt19937_64 gen(20240611);
    for (int i = 0; i < 24; ++i) {
        Rule r;
        r.birth = static_cast<std::uint16_t>(gen() & 0x1fe);  // any births but B0
        r.survival = static_cast<std::uint16_t>(gen() & 0x1ff);
        SCOPED_TRACE(r.to_string());
        const bool fast_growth = r.birth & 0x6;
        compare_with_reference(r.to_string(), test::soup(14, 13, 0.3, 100 + i, -7, 3),
                               fast_growth ? std::vector<std::int64_t>{1, 6, 9} : std::vector<std::int64_t>{1, 6, 9, 32, 17});
    }
}

TEST(Hashlife, EveryLeafKernelThisCpuHasMatchesTheReference) {
    for (int simd = 1; simd <= hashlife::best_leaf_simd(); ++simd) {
        SCOPED_TRACE("simd " + std::to_string(simd));
        hashlife::Tuning t;
        t.simd = simd;
        compare_with_reference("B3/S23", test::soup(40, 40, 0.4, 3, -20, -20), {1, 4, 16, 33, 130}, t);
        compare_with_reference("B36/S23", test::soup(30, 30, 0.4, 4, -20, -20), {1, 4, 16, 33, 130}, t);
    }
}

TEST(Hashlife, LeafKernelsAgreeOnRandomBlocks) {
    // Every instruction set, every generation count 1..16, Life and a general rule: the exact
    // centre (rows 16..47, bits 16..47) of random 64x64 blocks against the naive stepper.
    std::mt19937_64 gen(5);
    for (const char* rule_text : {"B3/S23", "B36/S245"}) {
        const Rule rule = parse_rule(rule_text).rule;
        const auto masks = hashlife::rule_masks(rule);
        for (int trial = 0; trial < 6; ++trial) {
            std::uint64_t rows[64];
            Cells cells;
            for (int y = 0; y < 64; ++y) {
                rows[y] = gen() & gen();
                for (int x = 0; x < 64; ++x)
                    if ((rows[y] >> x) & 1) cells.push_back(Cell{x, y});
            }
            for (int gens = 1; gens <= 16; gens += (trial % 2) + 1) {
                Cells want;
                for (const Cell& c : test::naive_step(cells, 64, 64, Topology::plane, rule, gens))
                    if (c.x >= 16 && c.x < 48 && c.y >= 16 && c.y < 48) want.push_back(c);
                for (int simd = 1; simd <= hashlife::best_leaf_simd(); ++simd) {
                    std::uint64_t work[64];
                    std::copy(rows, rows + 64, work);
                    hashlife::leaf_kernel(simd)(work, gens, masks, rule == Rule::life());
                    Cells got;
                    for (int y = 16; y < 48; ++y)
                        for (int x = 16; x < 48; ++x)
                            if ((work[y] >> x) & 1) got.push_back(Cell{x, y});
                    const std::string d = test::diff(want, got);
                    ASSERT_TRUE(d.empty()) << rule_text << " simd " << simd << " gens " << gens << ": " << d;
                }
            }
        }
    }
}

TEST(Hashlife, SteppingInPiecesEqualsSteppingAtOnce) {
    auto a = hashlife(), b = hashlife();
    const Cells start = test::soup(50, 50, 0.4, 11, -25, -25);
    a->set_cells(start);
    b->set_cells(start);
    a->step(1000003);
    for (std::int64_t n : {1, 2, 1000, 65536, 3, 933461}) b->step(n);
    ASSERT_EQ(b->generation(), 1000003);
    EXPECT_CELLS(a->live_cells(), b->live_cells());
}

TEST(Hashlife, GliderCrossesAstronomicalDistancesExactly) {
    auto e = hashlife();
    e->set_cells(kGlider);
    const std::int64_t g = std::int64_t{1} << 40;
    e->step(g);
    EXPECT_EQ(e->generation(), g);
    EXPECT_CELLS(translated(kGlider, g / 4, g / 4), e->live_cells());
    e->step(4 * 1000001);
    EXPECT_CELLS(translated(kGlider, g / 4 + 1000001, g / 4 + 1000001), e->live_cells());
    EXPECT_EQ(e->population(), 5);
}

TEST(Hashlife, GosperGunMatchesTheReferenceAtOddCounts) {
    register_builtin_engines();
    auto ref = create_engine("cpu:bitpacked", plane());
    auto h = hashlife();
    ref->set_cells(kGun);
    h->set_cells(kGun);
    for (std::int64_t n : {1, 29, 1000, 4097}) {
        ref->step(n);
        h->step(n);
        EXPECT_CELLS(ref->live_cells(), h->live_cells());
    }
    // Much later: the gun has period 30 and sends one 5-cell glider per period, none lost.
    h->step(std::int64_t{30} * 999000 - h->generation());
    const std::int64_t before = h->population();
    h->step(30 * 1000);
    EXPECT_EQ(h->population() - before, 5 * 1000);
    EXPECT_EQ(h->generation(), 30000000);
}

// ---------------------------------------------------------------------------------------------
// Memory: collections, the budget

TEST(HashlifeMemory, CollectionsKeepTheCellsExact) {
    // A store of 256 KiB that does not double (its soft limit is its start) in a budget of 3 MiB:
    // the gun's stream and a soup's ash force many collections (some dropping memoised results);
    // every checkpoint must still be exact.
    hashlife::Tuning small, large;
    small.initial_bytes = small.soft_limit_bytes = 256 << 10;
    large.initial_bytes = 64 << 20;
    EngineOptions tight;
    tight.max_bytes = 3 << 20;
    tight.threads = 1;  // the single-threaded policy (hashlife_threads_test.cpp collects mid-step with threads)
    const Cells start = test::united(kGun, test::soup(48, 48, 0.4, 21, 100, 100));
    auto roomy = hashlife("B3/S23", {}, large), cramped = hashlife("B3/S23", tight, small);
    roomy->set_cells(start);
    cramped->set_cells(start);
    for (std::int64_t n : {1000, 3, 20000, 65536, 7}) {
        roomy->step(n);
        cramped->step(n);
        EXPECT_CELLS(roomy->live_cells(), cramped->live_cells());
    }
    EXPECT_GE(property(*cramped, "collections"), 5);
    EXPECT_EQ(property(*roomy, "collections"), 0);
    EXPECT_LE(property(*cramped, "bytes"), tight.max_bytes);
}

TEST(HashlifeMemory, TheStoreDoublesAtEachCollectionUpToItsSoftLimit) {
    // From 256 KiB with a soft limit of 2 MiB: collections at about 256 K, 512 K, 1 M, 2 M, then
    // only as the working set needs; the store ends near the soft limit, not at the budget, and
    // the cells are those of a run that never collected.
    hashlife::Tuning doubling, large;
    doubling.initial_bytes = 256 << 10;
    doubling.soft_limit_bytes = 2 << 20;
    large.initial_bytes = 64 << 20;
    EngineOptions budget;
    budget.max_bytes = 64 << 20;
    const Cells start = test::soup(400, 400, 0.4, 5, -200, -200);
    auto roomy = hashlife("B3/S23", {}, large), d = hashlife("B3/S23", budget, doubling);
    roomy->set_cells(start);
    d->set_cells(start);
    roomy->step(10001);
    d->step(10001);
    EXPECT_CELLS(roomy->live_cells(), d->live_cells());
    EXPECT_GT(property(*roomy, "bytes"), 4 << 20);  // the run needs more than the soft limit
    EXPECT_EQ(property(*roomy, "collections"), 0);
    EXPECT_GE(property(*d, "collections"), 4);
    EXPECT_GE(property(*d, "bytes"), 3 << 19);  // it did grow from 256 KiB
    EXPECT_LE(property(*d, "bytes"), 3 << 20);
}

TEST(HashlifeMemory, StoreBytesMovesTheSoftLimitUpToTheBudget) {
    // The run of the test above, whose working set is over 4 MiB: with EngineOptions::store_bytes
    // (what --max-memory sets, as Golly's -M) at 16 MiB the store doubles past the tuning's 2 MiB
    // soft limit, so it collects less often; the cells are the same. A store_bytes over the budget
    // stops at the budget.
    hashlife::Tuning doubling, large;
    doubling.initial_bytes = 256 << 10;
    doubling.soft_limit_bytes = 2 << 20;
    large.initial_bytes = 64 << 20;
    EngineOptions soft, named;
    soft.max_bytes = named.max_bytes = 64 << 20;
    named.store_bytes = 16 << 20;
    const Cells start = test::soup(400, 400, 0.4, 5, -200, -200);
    auto roomy = hashlife("B3/S23", {}, large), d = hashlife("B3/S23", soft, doubling),
         n = hashlife("B3/S23", named, doubling);
    for (Engine* e : {roomy.get(), d.get(), n.get()}) {
        e->set_cells(start);
        e->step(10001);
    }
    EXPECT_CELLS(roomy->live_cells(), n->live_cells());
    EXPECT_EQ(property(*d, "soft limit bytes"), 2 << 20);
    EXPECT_EQ(property(*n, "soft limit bytes"), 16 << 20);
    EXPECT_GT(property(*n, "bytes"), 3 << 20);  // past what the 2 MiB soft limit lets the store keep
    EXPECT_LE(property(*n, "bytes"), 16 << 20);
    EXPECT_LT(property(*n, "collections"), property(*d, "collections"));
    named.store_bytes = 1 << 30;
    EXPECT_EQ(property(*hashlife("B3/S23", named, doubling), "soft limit bytes"), 64 << 20);
}

TEST(HashlifeMemory, AFullStoreStaysWithinItsBudgetTablesAndPagesIncluded) {
    // A soup whose ash fills budgets of 6 and 8 MiB: the store's bytes (both arrays in whole
    // pages, both tables, the mark bytes) stay within the budget, one thread or two. Before
    // 2026-11-28 growing counted 8 table bytes a node where a power-of-two table takes up to 16,
    // and the arrays before their rounding to pages: 10.6 MB in 8 MiB.
    const Cells start = read_pattern("random:600x600:0.4:3").cells;
    auto roomy = hashlife();
    roomy->set_cells(start);
    roomy->step(20000);
    for (int threads : {1, 2})
        for (std::int64_t mib : {6, 8}) {
            SCOPED_TRACE(std::to_string(mib) + " MiB, " + std::to_string(threads) + " threads");
            EngineOptions o;
            o.max_bytes = mib << 20;
            o.threads = threads;
            auto e = hashlife("B3/S23", o);
            e->set_cells(start);
            e->step(20000);
            EXPECT_CELLS(roomy->live_cells(), e->live_cells());
            EXPECT_GT(property(*e, "collections"), 0);
            EXPECT_LE(property(*e, "bytes"), o.max_bytes);
            EXPECT_EQ(property(*e, "memory budget bytes"), o.max_bytes);
        }
}

TEST(HashlifeMemory, APatternOverTheBudgetIsARuntimeErrorNotACrash) {
    EngineOptions tiny;
    tiny.max_bytes = 200 << 10;
    auto e = hashlife("B3/S23", tiny);
    e->set_cells(test::soup(300, 300, 0.45, 5));  // its chaos needs far more than 200 KiB
    EXPECT_THROW(e->step(4096), RuntimeError);
    // Below the engine's own minimum: refused when made.
    tiny.max_bytes = 4096;
    EXPECT_THROW(hashlife("B3/S23", tiny), InputError);
}

// ---------------------------------------------------------------------------------------------
// Interruption, the light cone, huge and empty runs

TEST(HashlifeRun, InterruptStopsALongJumpAndLeavesAnExactState) {
    std::atomic<bool> stop{false};
    EngineOptions o;
    o.interrupt = &stop;
    // Seeds from a small soup: chaos at the speed of light, far too much to finish.
    auto e = hashlife("B2/S", o);
    const Cells start = test::soup(16, 16, 0.3, 9);
    e->set_cells(start);
    stop = true;
    e->step(1000);
    EXPECT_EQ(e->generation(), 0) << "interrupted before any work";
    stop = false;
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        stop = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    e->step((std::int64_t{1} << 20) - 1);  // every power of two up to 2^19
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stopper.join();
    EXPECT_LT(secs, 20.0) << "the step did not notice the interrupt";
    const std::int64_t g = e->generation();
    ASSERT_GT(g, 0);
    ASSERT_LT(g, (std::int64_t{1} << 20) - 1);
    // No square is left marked queued (the export numbers nodes in that mark), and the tree a
    // checkpoint would write now is a fresh run's.
    EXPECT_EQ(hashlife::check_store(*e), "");
    auto fresh = hashlife("B2/S");
    fresh->set_cells(start);
    fresh->step(g);
    EXPECT_EQ(format_macrocell(*e->quadtree(), "B2/S", g), format_macrocell(*fresh->quadtree(), "B2/S", g));
    // Where it stopped is a generation like any other.
    EXPECT_EQ(e->population(), fresh->population());
    EXPECT_EQ(e->extent(), fresh->extent());
    // And it carries on.
    stop = false;
    e->step(3);
    fresh->step(3);
    EXPECT_CELLS(fresh->live_cells(), e->live_cells());
}

// The first generation at which kGlider moved by (dx, dy) has a cell at x or y >= 2^60 (it moves
// (+1, +1) every 4 generations): from its four phases on the reference engine.
std::int64_t glider_leaves_plane_at(std::int64_t dx, std::int64_t dy) {
    auto r = hashlife();  // small steps near the origin
    r->set_cells(kGlider);
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t phase = 0; phase < 4; ++phase, r->step(1)) {
        std::int64_t far = std::numeric_limits<std::int64_t>::min();
        for (const Cell& c : r->live_cells()) far = std::max({far, c.x + dx, c.y + dy});
        const std::int64_t k = std::max<std::int64_t>(0, (std::int64_t{1} << 60) - far);  // periods to go
        first = std::min(first, 4 * k + phase);
    }
    return first;
}

TEST(HashlifeRun, ARunThatLeavesThePlaneIsRefusedAndUndone) {
    // A glider (c/4) from the origin reaches x = 2^60 after 2^62 generations: refused, and the
    // engine is as it was before the step.
    auto e = hashlife();
    e->set_cells(kGlider);
    e->step(1000);
    const Cells before = e->live_cells();
    try {
        e->step(std::int64_t{1} << 62);
        ADD_FAILURE() << "a glider taken 2^60 cells away was accepted";
    } catch (const RuntimeError& err) {  // a valid count, beyond the engine's plane: a runtime limit
        EXPECT_NE(std::string(err.what()).find("2^60"), std::string::npos) << err.what();
        // The exact generation at which it would leave, not the end of the piece that found it.
        const std::string at = "at generation " + std::to_string(glider_leaves_plane_at(0, 0)) + " ";
        EXPECT_NE(std::string(err.what()).find(at), std::string::npos) << "no '" << at << "' in " << err.what();
    }
    EXPECT_EQ(e->generation(), 1000);
    EXPECT_CELLS(before, e->live_cells());
    // Still usable, and a long run that stays on the plane (past the light cone's 2^60) is exact.
    e->step((std::int64_t{1} << 61) + 4);
    EXPECT_CELLS(translated(before, (std::int64_t{1} << 59) + 1, (std::int64_t{1} << 59) + 1), e->live_cells());

    // Close to the edge: exact up to it, refused one step beyond (the glider at x = 2^60 - 1).
    const std::int64_t near = (std::int64_t{1} << 60) - 100;
    auto f = hashlife();
    const Cells edge = translated(kGlider, near, -near);
    f->set_cells(edge);
    f->step(388);  // 97 cells on: the rightmost cell at 2^60 - 1
    EXPECT_CELLS(translated(edge, 97, 97), f->live_cells());
    try {
        f->step(4);
        ADD_FAILURE() << "a glider past x = 2^60 - 1 was accepted";
    } catch (const RuntimeError& err) {
        const std::string at = "at generation " + std::to_string(glider_leaves_plane_at(near, -near)) + " ";
        EXPECT_NE(std::string(err.what()).find(at), std::string::npos) << "no '" << at << "' in " << err.what();
    }
    EXPECT_EQ(f->generation(), 388);
    EXPECT_CELLS(translated(edge, 97, 97), f->live_cells());
    // Cells beyond the plane are refused when set.
    EXPECT_THROW(f->set_cells({Cell{std::int64_t{1} << 61, 0}}), InputError);
    EXPECT_FALSE(hashlife_run_fits(Box{0, 0, 3, 3}, near + 98));
    EXPECT_TRUE(hashlife_run_fits(Box{0, 0, 3, 3}, near + 97));
    EXPECT_TRUE(hashlife_run_fits(Box{}, std::numeric_limits<std::int64_t>::max()));
}

TEST(HashlifeRun, BoundedPatternsRunToTheLastGeneration) {
    // 2^63 - 1 generations: a block stays, a blinker ends in its odd phase, the gun's gliders
    // would leave the plane (refused, nothing changed).
    const std::int64_t last = std::numeric_limits<std::int64_t>::max();
    const Cells block = picture({"OO", "OO"}, -7, 3), blinker = picture({"OOO"}, 5, 5);
    auto e = hashlife();
    e->set_cells(test::united(block, blinker));
    e->step(last);
    EXPECT_EQ(e->generation(), last);
    EXPECT_CELLS(test::united(block, picture({"O", "O", "O"}, 6, 4)), e->live_cells());
    EXPECT_THROW(e->step(1), InputError);  // past 2^63 - 1
    EXPECT_EQ(e->generation(), last);
    // In pieces that cross 2^60 more than once.
    auto p = hashlife();
    p->set_cells(blinker);
    p->step((std::int64_t{1} << 62) + 1);
    p->step((std::int64_t{3} << 60) - 2);
    EXPECT_EQ(p->generation(), (std::int64_t{7} << 60) - 1);
    EXPECT_CELLS(picture({"O", "O", "O"}, 6, 4), p->live_cells());
    auto g = hashlife();
    g->set_cells(kGun);
    g->step(99);
    const Cells gun99 = g->live_cells();
    EXPECT_THROW(g->step(last - 99), RuntimeError);
    EXPECT_EQ(g->generation(), 99);
    EXPECT_CELLS(gun99, g->live_cells());
}

TEST(HashlifeRun, AnEmptyPlaneTakesAnyNumberOfGenerations) {
    auto e = hashlife();
    e->step(std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(e->generation(), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(e->population(), 0);
    EXPECT_TRUE(e->live_cells().empty());
    EXPECT_TRUE(e->extent().empty());
}

TEST(HashlifeRun, DiehardDiesAndStaysDeadAtAnyScale) {
    auto e = hashlife();
    e->set_cells(picture({"......O.", "OO......", ".O...OOO"}));
    e->step(129);
    EXPECT_EQ(e->population(), 2);
    e->step(1);
    EXPECT_EQ(e->population(), 0);
    e->step(std::int64_t{1} << 50);
    EXPECT_EQ(e->population(), 0);
}

// ---------------------------------------------------------------------------------------------
// Cells and trees in and out

TEST(HashlifeCells, RegionsAndSparseAccessMatchTheReference) {
    register_builtin_engines();
    std::mt19937_64 rng(3);
    auto ref = create_engine("cpu:reference", plane());
    auto h = hashlife();
    const Cells start = test::soup(70, 50, 0.3, 77, -35, -20);
    ref->set_cells(start);
    h->set_cells(start);
    for (int round = 0; round < 30; ++round) {
        // A random rectangle written with random bytes (inside and far outside the pattern).
        const std::int64_t far = (round % 5 == 0) ? 700 : 0;
        const Box b{static_cast<std::int64_t>(rng() % 120) - 60 + far, static_cast<std::int64_t>(rng() % 90) - 45,
                    static_cast<std::int64_t>(rng() % 40) + 1, static_cast<std::int64_t>(rng() % 30) + 1};
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(b.width * b.height));
        for (auto& v : bytes) v = (rng() % 3) == 0;
        ref->write_region(b, bytes.data());
        h->write_region(b, bytes.data());
        if (round % 3 == 0) {
            ref->step(round);
            h->step(round);
        }
        const Box r{static_cast<std::int64_t>(rng() % 200) - 100 + far, static_cast<std::int64_t>(rng() % 140) - 70, 77, 55};
        std::vector<std::uint8_t> a(77 * 55), c(77 * 55);
        ref->read_region(r, a.data());
        h->read_region(r, c.data());
        ASSERT_EQ(a, c) << "round " << round;
        ASSERT_EQ(ref->live_cells_in(r), h->live_cells_in(r)) << "round " << round;
        ASSERT_EQ(ref->live_cells(), h->live_cells()) << "round " << round;
        ASSERT_EQ(ref->population(), h->population());
    }
}

// set_cells takes cells in any order: row order (every reader's, sorted a band of rows at a time)
// and any other (sorted whole), duplicates included, far apart or close, give the same cells and
// the same generations as the reference.
TEST(HashlifeCells, CellsInAnyOrderMakeTheSameTree) {
    register_builtin_engines();
    std::mt19937_64 rng(11);
    for (int round = 0; round < 6; ++round) {
        Cells start = test::soup(90 + round * 7, 61, 0.35, 100 + round, -45, -30);
        const Cells far = test::soup(20, 17, 0.4, 200 + round, 5000 * (round % 3) - 3000, -7000 * (round % 2));
        start = test::united(start, far);
        Cells shuffled = start;
        shuffled.insert(shuffled.end(), start.begin(), start.begin() + static_cast<std::ptrdiff_t>(start.size() / 3));
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        auto ref = create_engine("cpu:reference", plane());
        auto rows = hashlife(), any = hashlife();
        ref->set_cells(start);
        rows->set_cells(start);
        any->set_cells(shuffled);
        ASSERT_EQ(rows->live_cells(), start) << "round " << round;
        ASSERT_EQ(any->live_cells(), start) << "round " << round;
        for (std::int64_t n : {1, 30, 97}) {
            ref->step(n);
            rows->step(n);
            any->step(n);
            ASSERT_EQ(test::diff(ref->live_cells(), rows->live_cells()), "") << "round " << round;
            ASSERT_EQ(test::diff(ref->live_cells(), any->live_cells()), "") << "round " << round;
        }
    }
}

TEST(HashlifeMemory, ATreeThatRepeatsItsSquaresLoadsInTheBudgetOfItsDistinctOnes) {
    // A full square of side 2^12 spelled out without sharing: every node and leaf its own copy,
    // 4^8 level-4 squares and 5461 above. A store for as many squares (about 3 MiB with its
    // tables) does not fit a budget of 1 MiB; the few distinct ones do, so the load sizes the
    // store by them, not by the tree's count.
    Quadtree t;
    const auto build = [&](const auto& self, int level) -> Quadtree::Index {
        if (level == Quadtree::leaf_level) return t.add_leaf(~std::uint64_t{0});
        std::array<Quadtree::Index, 4> k{};
        for (auto& q : k) q = self(self, level - 1);
        return t.add_node(level, k);
    };
    t.set_root(build(build, 12), 12);
    ASSERT_GT(t.nodes().size(), std::size_t{4} << 16);
    hashlife::Tuning small;
    small.initial_bytes = small.soft_limit_bytes = 256 << 10;
    EngineOptions tight;
    tight.max_bytes = 1 << 20;
    tight.threads = 1;
    auto e = hashlife("B3/S23", tight, small);
    ASSERT_TRUE(e->load_quadtree(t));
    EXPECT_EQ(e->population(), std::int64_t{1} << 24);
    EXPECT_LE(property(*e, "bytes"), tight.max_bytes);
    // The same square with its squares shared, in a roomy store: the same cells on.
    Quadtree shared;
    Quadtree::Index k = shared.add_leaf(~std::uint64_t{0});
    for (int level = 4; level <= 12; ++level) k = shared.add_node(level, {k, k, k, k});
    shared.set_root(k, 12);
    auto f = hashlife();
    ASSERT_TRUE(f->load_quadtree(shared));
    e->step(5);
    f->step(5);
    EXPECT_EQ(e->population(), f->population());
    const Box box = f->extent();
    EXPECT_EQ(e->extent(), box);
    const Box corner{box.x - 4, box.y - 4, 40, 40};
    EXPECT_EQ(e->live_cells_in(corner), f->live_cells_in(corner));
}

TEST(HashlifeCells, TreesGoInAndOutWithoutListingCells) {
    // 2^40 live cells (a full square of side 2^20) and a far glider.
    Quadtree t;
    Quadtree::Index k = t.add_leaf(~std::uint64_t{0});
    for (int level = 4; level <= 20; ++level) k = t.add_node(level, {k, k, k, k});
    const Quadtree::Index g = t.add_leaf(0x0000000000070402ull);  // glider rows .O. / ..O / OOO
    Quadtree::Index path = g;
    for (int level = 4; level <= 20; ++level) path = t.add_node(level, {0, 0, 0, path});
    const Quadtree::Index root = t.add_node(21, {k, 0, 0, path});
    t.set_root(root, 21);
    EXPECT_EQ(t.population(), (CellCount{1} << 40) + 5);
    auto e = hashlife();
    ASSERT_TRUE(e->load_quadtree(t));
    EXPECT_EQ(e->population(), (std::int64_t{1} << 40) + 5);
    const Box box = e->extent();
    EXPECT_EQ(box, t.bounding_box());
    // A full square of side 2^20 dies inward from its corners; the glider flies on. The tree that
    // comes out holds what a small reference run of a corner shows.
    e->step(8);
    const auto out = e->quadtree();
    ASSERT_TRUE(out);
    EXPECT_EQ(static_cast<std::int64_t>(out->population()), e->population());
    EXPECT_EQ(out->bounding_box(), e->extent());
    // Round trip: the exported tree loaded into a fresh engine is the same pattern.
    auto f = hashlife();
    ASSERT_TRUE(f->load_quadtree(*out));
    EXPECT_EQ(f->population(), e->population());
    const Box corner{box.x - 20, box.y - 20, 60, 60};
    EXPECT_EQ(f->live_cells_in(corner), e->live_cells_in(corner));
    // Engines without trees say so.
    register_builtin_engines();
    auto b = create_engine("cpu:bitpacked", test::spec_of(8, 8, Topology::torus));
    EXPECT_FALSE(b->load_quadtree(*out));
    EXPECT_EQ(b->quadtree(), nullptr);
}

TEST(HashlifeCells, ALoadedTreeMakesOnlyWhatItsRootReaches) {
    // A tree may hold squares its root does not use (the API allows it; Golly's files do not).
    // The load makes the root's squares level by level, and only those.
    const auto build = [](bool junk) {
        Quadtree t;
        if (junk) {
            Quadtree::Index k = t.add_leaf(~std::uint64_t{0});
            for (int level = 4; level <= 7; ++level) k = t.add_node(level, {k, 0, k, 0});
        }
        const Quadtree::Index g = t.add_leaf(0x0000000000070402ull);  // a glider
        const Quadtree::Index b = t.add_leaf(0x0000000000000303ull);  // a block
        Quadtree::Index k = t.add_node(4, {g, 0, 0, b});
        for (int level = 5; level <= 9; ++level) k = t.add_node(level, {k, 0, 0, k});
        t.set_root(k, 9);
        return t;
    };
    auto clean = hashlife(), junk = hashlife();
    ASSERT_TRUE(clean->load_quadtree(build(false)));
    ASSERT_TRUE(junk->load_quadtree(build(true)));
    EXPECT_EQ(property(*junk, "nodes"), property(*clean, "nodes"));
    EXPECT_EQ(property(*junk, "leaves"), property(*clean, "leaves"));
    EXPECT_EQ(junk->population(), 9 << 5);  // 9 cells, doubled at each of levels 5 to 9
    EXPECT_CELLS(clean->live_cells(), junk->live_cells());
    clean->step(100);
    junk->step(100);
    EXPECT_CELLS(clean->live_cells(), junk->live_cells());
}

TEST(HashlifeCells, AnExportLeavesTheStoreAsItFoundIt) {
    // The export numbers the nodes in their own Node::queued (0 between steps) and zeroes it
    // again: a mark left behind would stop a later step from evaluating that square, or give the
    // next export a stale number.
    register_builtin_engines();
    auto ref = create_engine("cpu:reference", plane());
    auto h = hashlife();
    const Cells start = test::united(kGun, test::soup(40, 40, 0.4, 5, 50, 50));
    ref->set_cells(start);
    h->set_cells(start);
    for (int round = 0; round < 6; ++round) {
        ref->step(37);
        h->step(37);
        const auto tree = h->quadtree();
        ASSERT_EQ(hashlife::check_store(*h), "") << "after export " << round;
        EXPECT_CELLS(ref->live_cells(), tree->cells());
    }
}

TEST(HashlifeCells, ExportedTreesAreGollysMinimalRoots) {
    // The exported root is the smallest of level >= 4 that holds the cells (Golly's after a run).
    auto e = hashlife();
    e->set_cells(kGlider);
    EXPECT_EQ(e->quadtree()->level(), 4);
    e->step(100);  // the glider at (25..27, 25..27): a level-6 root
    EXPECT_EQ(e->quadtree()->level(), 6);
    EXPECT_CELLS(translated(kGlider, 25, 25), e->quadtree()->cells());
}

TEST(HashlifeCells, ExportedTreesAreCanonicalAndWriteAsTheSharedTreeWalkDoes) {
    // The export says its tree is canonical (each distinct square once, in Golly's order), and the
    // macrocell writer then writes its squares in index order. That text must be what the writer's
    // walk finding shared squares gives: the glider as a lone 8x8 quarter (the root a leaf's
    // centre), the glider far from where the root began, a soup and a gun with its stream.
    struct Case {
        Cells cells;
        std::int64_t gens;
    };
    const std::vector<Case> cases = {{kGlider, 0},
                                     {kGlider, 100},
                                     {test::soup(60, 45, 0.4, 9, -31, 7), 77},
                                     {test::united(kGun, test::soup(20, 20, 0.4, 3, 60, 60)), 333}};
    for (const Case& c : cases) {
        auto e = hashlife();
        e->set_cells(c.cells);
        e->step(c.gens);
        const auto tree = e->quadtree();
        ASSERT_TRUE(tree->canonical());
        Quadtree walked = *tree;
        walked.set_root(walked.root(), walked.level());  // says nothing about the tree any more
        ASSERT_FALSE(walked.canonical());
        const std::string text = format_macrocell(*tree, "B3/S23", c.gens);
        EXPECT_EQ(text, format_macrocell(walked, "B3/S23", c.gens)) << c.gens;
        EXPECT_CELLS(e->live_cells(), parse_pattern(text, "x.mc").tree->cells());
    }
    // Adding a square after the producer spoke clears it.
    Quadtree t;
    t.set_root(t.add_leaf(1), Quadtree::leaf_level);
    t.set_canonical();
    t.add_leaf(2);
    EXPECT_FALSE(t.canonical());
}

// ---------------------------------------------------------------------------------------------
// Registration and refusals

TEST(HashlifeRegistry, RegisteredForThePlaneOnlyWithAutoTheUnboundedDefault) {
    register_builtin_engines();
    const auto h = find_engine("cpu:hashlife");
    ASSERT_TRUE(h);
    EXPECT_TRUE(h->native_unbounded);
    EXPECT_FALSE(h->bounded);
    EXPECT_EQ(default_engine("cpu", Topology::unbounded), "cpu:auto");
    EXPECT_EQ(default_engine("cpu", Topology::torus), "cpu:bitpacked");
    for (const char* name : {"cpu:hashlife", "cpu:auto"}) {
        try {
            create_engine(name, test::spec_of(64, 64, Topology::torus));
            ADD_FAILURE() << name << " accepted a torus";
        } catch (const InputError& err) {
            const std::string what = err.what();
            EXPECT_NE(what.find("runs only the unbounded plane"), std::string::npos) << what;
            EXPECT_NE(what.find("cpu:bitpacked"), std::string::npos) << what;
        }
        EXPECT_THROW(create_engine(name, test::spec_of(0, 0, Topology::unbounded, "B03/S23")), InputError);
    }
    auto e = create_engine("cpu:hashlife", plane());
    const EngineDescription d = e->describe();
    EXPECT_EQ(d.name, "cpu:hashlife");
    for (const char* key : {"nodes", "leaves", "bytes", "collections", "step exponent", "root level"}) {
        bool found = false;
        for (const auto& [k, v] : d.properties) found = found || k == key;
        EXPECT_TRUE(found) << key;
    }
}

// ---------------------------------------------------------------------------------------------
// cpu:auto

std::string running(const Engine& e, const std::string& key = "running") {
    for (const auto& [k, v] : e.describe().properties)
        if (k == key) return std::get<std::string>(v);
    return "?";
}

TEST(Auto, PicksHashlifeForSparsePatternsAndLongRuns) {
    register_builtin_engines();
    EngineOptions one;
    one.threads = 1;
    // Sparse: HashLife from the start.
    auto a = hashlife::make_auto(plane(), one);
    a->set_cells(kGun);
    a->step(1000);
    EXPECT_EQ(running(*a, "started on"), "cpu:hashlife");
    // Dense and short: cpu:bitpacked.
    auto b = hashlife::make_auto(plane(), one);
    b->set_cells(test::soup(200, 200, 0.4, 1));
    b->step(50);
    EXPECT_EQ(running(*b, "started on"), "cpu:bitpacked");
    // Dense and long: HashLife (its one-off cost of the chaos beats stepping the area that long).
    auto c = hashlife::make_auto(plane(), one);
    c->set_cells(test::soup(200, 200, 0.4, 1));
    c->step(100000);
    EXPECT_EQ(running(*c, "started on"), "cpu:hashlife");
    // The same cells on each, whatever ran them.
    auto h = hashlife();
    h->set_cells(test::soup(200, 200, 0.4, 1));
    h->step(50);
    EXPECT_CELLS(h->live_cells(), b->live_cells());
    h->step(100000 - 50);
    EXPECT_CELLS(h->live_cells(), c->live_cells());
}

TEST(Auto, SwitchingMidRunKeepsTheCellsExact) {
    register_builtin_engines();
    hashlife::AutoTuning eager;
    eager.always_try = true;
    EngineOptions one;
    one.threads = 1;
    auto a = hashlife::make_auto(plane(), one, eager);
    auto ref = create_engine("cpu:reference", plane());
    const Cells start = test::soup(120, 100, 0.4, 31, -40, -10);  // dense: starts on cpu:bitpacked
    a->set_cells(start);
    ref->set_cells(start);
    for (std::int64_t n : {10, 77, 100, 5}) {
        a->step(n);
        ref->step(n);
        ASSERT_EQ(a->generation(), ref->generation());
        EXPECT_CELLS(ref->live_cells(), a->live_cells());
    }
    EXPECT_EQ(running(*a), "cpu:hashlife");
    EXPECT_EQ(running(*a, "started on"), "cpu:bitpacked");
}

// While cpu:bitpacked runs, HashLife's trials get a quarter of the budget (the board the rest): the
// two never reserve more than the whole. HashLife alone gets all of it.
TEST(Auto, TrialsShareTheBudgetWithTheBoard) {
    register_builtin_engines();
    const std::int64_t budget = std::int64_t{64} << 20;
    auto hashlife_budget = [](const Engine& e) {
        for (const auto& [k, v] : e.describe().properties)
            if (k == "cpu:hashlife memory budget bytes") return std::get<std::int64_t>(v);
        return std::int64_t{-1};
    };
    EngineOptions opt;
    opt.threads = 1;
    opt.max_bytes = budget;
    hashlife::AutoTuning eager;
    eager.always_try = true;
    auto a = hashlife::make_auto(plane(), opt, eager);
    a->set_cells(test::soup(120, 100, 0.4, 31));  // dense: starts on cpu:bitpacked, a trial takes over
    a->step(200);
    ASSERT_EQ(running(*a), "cpu:hashlife");
    ASSERT_EQ(running(*a, "started on"), "cpu:bitpacked");
    EXPECT_EQ(hashlife_budget(*a), budget / 4);
    auto sparse = hashlife::make_auto(plane(), opt);
    sparse->set_cells(kGun);
    sparse->step(100);
    EXPECT_EQ(hashlife_budget(*sparse), budget);
    auto chosen = hashlife::make_auto(plane(), opt);  // dense and long: HashLife at the first step
    chosen->set_cells(test::soup(200, 200, 0.4, 1));
    chosen->step(100000);
    ASSERT_EQ(running(*chosen, "started on"), "cpu:hashlife");
    EXPECT_EQ(hashlife_budget(*chosen), budget);
}

TEST(Auto, TreesStayTrees) {
    register_builtin_engines();
    Quadtree t = Quadtree::from_cells(kGun);
    auto a = create_engine("cpu:auto", plane());
    ASSERT_TRUE(a->load_quadtree(t));
    a->step(1000003);
    auto h = hashlife();
    h->set_cells(kGun);
    h->step(1000003);
    EXPECT_EQ(running(*a), "cpu:hashlife");
    ASSERT_TRUE(a->quadtree());
    EXPECT_EQ(a->population(), h->population());
    EXPECT_EQ(a->extent(), h->extent());
}

}  // namespace
}  // namespace tilelife
