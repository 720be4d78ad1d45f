// cpu:hashlife with threads: long queues of a large enough root's step run as tasks sharing one store.
// The cells must be those of the single-threaded engine (itself checked against cpu:reference and
// bgolly), with 2 and 4 threads (4 on this 2-core machine interleaves them), the smallest task level
// (many small tasks racing for the same squares) and a store so small that it is collected in the
// middle of parallel steps.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "hashlife/hashlife.hpp"
#include "support/test_support.hpp"
#include "tilelife/board.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

using test::Cells;

BoardSpec plane(const std::string& rule = "B3/S23") { return test::spec_of(0, 0, Topology::unbounded, rule); }

std::int64_t property(const Engine& e, const std::string& key) {
    for (const auto& [k, v] : e.describe().properties)
        if (k == key) return std::get<std::int64_t>(v);
    ADD_FAILURE() << "no property " << key;
    return -1;
}

const std::string kGolly = "/usr/share/golly/Patterns/HashLife/";

// One of Golly's macrocells, read as a tree (its cells not listed).
Pattern golly_tree(const std::string& file) {
    ReadLimits limits;
    limits.list_tree_cells = false;
    return read_pattern(kGolly + file, limits);
}

// Many small tasks and a store that collects every few hundred kilobytes, on the threads.
hashlife::Tuning racy(bool tiny_store = true) {
    hashlife::Tuning t;
    t.task_squares = 2;
    t.gc_squares_per_thread = 0;  // every collection and table rebuild on all the threads
    if (tiny_store) t.initial_bytes = t.soft_limit_bytes = 256 << 10;
    return t;
}

std::unique_ptr<Engine> threaded(int threads, const std::string& rule = "B3/S23", bool tiny_store = true,
                                 std::int64_t budget = 0) {
    EngineOptions o;
    o.threads = threads;
    o.max_bytes = budget;
    return hashlife::make_hashlife(plane(rule), o, racy(tiny_store));
}

std::unique_ptr<Engine> single(const std::string& rule = "B3/S23") {
    EngineOptions o;
    o.threads = 1;
    return hashlife::make_hashlife(plane(rule), o);
}

// Runs `e` and a single-threaded engine from `start` for `gens` generations: the same cells.
void expect_as_one_thread(Engine& e, const Cells& start, std::int64_t gens) {
    auto one = single();
    e.set_cells(start);
    one->set_cells(start);
    e.step(gens);
    one->step(gens);
    EXPECT_CELLS(one->live_cells(), e.live_cells());
}

TEST(HashlifeThreads, SoupsMatchOneThreadAndTheReferenceWithCollectionsMidStep) {
    register_builtin_engines();
    for (int threads : {2, 4}) {
        std::int64_t mid_step_collections = 0;
        for (const std::string rule : {"B3/S23", "B36/S23", "B3678/S34678"}) {
            SCOPED_TRACE(rule + ", " + std::to_string(threads) + " threads");
            const Cells start = test::soup(96, 80, 0.4, 11 + threads, -40, 17);
            auto one = single(rule), many = threaded(threads, rule, true, 8 << 20);
            auto ref = create_engine("cpu:reference", plane(rule));
            one->set_cells(start);
            many->set_cells(start);
            ref->set_cells(start);
            for (std::int64_t n : {std::int64_t{1000}, std::int64_t{1}, std::int64_t{777}}) {
                one->step(n);
                many->step(n);
                ref->step(n);
                ASSERT_EQ(many->generation(), one->generation());
                EXPECT_CELLS(ref->live_cells(), many->live_cells());
                ASSERT_EQ(hashlife::check_store(*many), "");
            }
            for (std::int64_t n : {std::int64_t{65536}, std::int64_t{100003}}) {
                one->step(n);
                many->step(n);
                EXPECT_CELLS(one->live_cells(), many->live_cells());
                ASSERT_EQ(hashlife::check_store(*many), "");
            }
            EXPECT_GT(property(*many, "parallel steps"), 0);
            mid_step_collections += property(*many, "parallel collections");
            EXPECT_EQ(property(*many, "collector threads"), threads);  // the collections' team
            EXPECT_LE(property(*many, "bytes"), 8 << 20);
            EXPECT_EQ(many->describe().threads, threads);
        }
        EXPECT_GE(mid_step_collections, 1) << "no collections during parallel steps with " << threads << " threads";
    }
}

// With the default minimum teams, two threads mark and sweep together (a team of two) but
// rebuild the tables on one; the cells stay those of one thread and the reference. A team for every
// store of at least one square makes every collection take the team there is.
TEST(HashlifeThreads, TwoThreadsCollectTogetherMidStep) {
    register_builtin_engines();
    const Cells start = test::soup(96, 80, 0.4, 5, -40, 17);
    hashlife::Tuning t;
    t.task_squares = 2;
    t.gc_squares_per_thread = 1;
    t.initial_bytes = t.soft_limit_bytes = 256 << 10;
    EngineOptions o;
    o.threads = 2;
    o.max_bytes = 8 << 20;
    auto two = hashlife::make_hashlife(plane(), o, t);
    auto ref = create_engine("cpu:reference", plane());
    two->set_cells(start);
    ref->set_cells(start);
    for (std::int64_t n : {std::int64_t{1000}, std::int64_t{777}}) {
        two->step(n);
        ref->step(n);
        EXPECT_CELLS(ref->live_cells(), two->live_cells());
        ASSERT_EQ(hashlife::check_store(*two), "");
    }
    EXPECT_GE(property(*two, "parallel collections"), 1);
    EXPECT_EQ(property(*two, "collector threads"), 2);
}

// Golly's HashLife patterns: the exported trees (what run -o writes) equal the single-threaded
// engine's, whose equality with bgolly's golly_hashlife_test checks.
TEST(HashlifeThreads, GollyPatternsGiveTheSameTreesAsOneThread) {
    register_builtin_engines();
    if (!std::filesystem::exists(kGolly + "metapixel-galaxy.mc.gz")) GTEST_SKIP() << "Golly's patterns are not installed";
    struct Job {
        const char* file;
        std::int64_t gens;
    };
    for (const Job& j : {Job{"metapixel-galaxy.mc.gz", 4097}, Job{"broken-lines.mc", 100003},
                         Job{"hexadecimal.mc.gz", 1025}, Job{"catacryst.mc", 65537}}) {
        SCOPED_TRACE(j.file);
        const Pattern p = golly_tree(j.file);
        ASSERT_TRUE(p.tree);
        const BoardPlan plan = plan_board(p, BoardOverrides{}, j.file);
        for (int threads : {2, 4}) {
            EngineOptions o;
            o.threads = threads;
            o.max_bytes = 512 << 20;
            hashlife::Tuning t = racy();
            t.initial_bytes = t.soft_limit_bytes = 8 << 20;
            auto many = hashlife::make_hashlife(plan.spec, o, t);
            auto one = single(plan.spec.rule.to_string());
            ASSERT_TRUE(many->load_quadtree(*p.tree));
            ASSERT_TRUE(one->load_quadtree(*p.tree));
            one->step(j.gens);
            many->step(j.gens);
            EXPECT_EQ(many->population(), one->population());
            EXPECT_EQ(hashlife::check_store(*many), "");
            EXPECT_EQ(format_macrocell(*many->quadtree(), "B3/S23", 0), format_macrocell(*one->quadtree(), "B3/S23", 0))
                << threads << " threads";
            EXPECT_GT(property(*many, "parallel steps"), 0);
        }
    }
}

// Queues shorter than 2 x task-squares are split when a thread has nothing to run (idle-squares):
// which ones depends on timing, so every run is a different set of pieces; the trees and the store
// must not notice. Golly's patterns (soups this small open no parallel section at the default task
// squares), pieces of two squares for idle threads, a store that is collected mid-step.
TEST(HashlifeThreads, PiecesSplitForIdleThreadsGiveTheSameTrees) {
    register_builtin_engines();
    if (!std::filesystem::exists(kGolly + "metapixel-galaxy.mc.gz")) GTEST_SKIP() << "Golly's patterns are not installed";
    std::int64_t idle_splits = 0, collections = 0;
    for (const auto& [file, gens] : {std::pair{"metapixel-galaxy.mc.gz", 4097}, std::pair{"hexadecimal.mc.gz", 1025}}) {
        const Pattern p = golly_tree(file);
        ASSERT_TRUE(p.tree);
        const BoardPlan plan = plan_board(p, BoardOverrides{}, file);
        auto one = single();
        ASSERT_TRUE(one->load_quadtree(*p.tree));
        one->step(gens);
        const std::string want = format_macrocell(*one->quadtree(), "B3/S23", 0);
        for (int threads : {2, 4}) {
            SCOPED_TRACE(std::string(file) + ", " + std::to_string(threads) + " threads");
            hashlife::Tuning t;
            t.idle_squares = 2;
            t.initial_bytes = t.soft_limit_bytes = 8 << 20;
            EngineOptions o;
            o.threads = threads;
            o.max_bytes = 512 << 20;
            auto many = hashlife::make_hashlife(plan.spec, o, t);
            ASSERT_TRUE(many->load_quadtree(*p.tree));
            many->step(gens);
            EXPECT_EQ(hashlife::check_store(*many), "");
            EXPECT_EQ(format_macrocell(*many->quadtree(), "B3/S23", 0), want);
            EXPECT_GT(property(*many, "parallel steps"), 0);
            EXPECT_EQ(property(*many, "idle squares"), 2);
            idle_splits += property(*many, "idle splits");
            collections += property(*many, "parallel collections");
        }
    }
    EXPECT_GT(idle_splits, 0) << "no thread ever waited for a piece";
    EXPECT_GT(collections, 0) << "no collection during a parallel step";
}

// A task waiting for its pieces runs its own or those of a lower level, so each piece a thread runs
// inside another is of a lower level: a thread holds at most one worker (frames, index batches) a
// level. Before 2026-11-28 a waiting task ran any piece, nesting without bound: 778 workers with
// 57 MB of frames on 2 threads for Golly's caterpillar.mc.gz, and 1598 here.
TEST(HashlifeThreads, AThreadHoldsAWorkerALevelAtMost) {
    if (!std::filesystem::exists(kGolly + "hexadecimal.mc.gz")) GTEST_SKIP() << "Golly's patterns are not installed";
    const Pattern p = golly_tree("hexadecimal.mc.gz");
    ASSERT_TRUE(p.tree);
    const BoardPlan plan = plan_board(p, BoardOverrides{}, "hexadecimal.mc.gz");
    for (int threads : {2, 4}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        EngineOptions o;
        o.threads = threads;
        o.max_bytes = 512 << 20;
        hashlife::Tuning t = racy(false);
        t.idle_squares = 1;
        auto many = hashlife::make_hashlife(plan.spec, o, t);
        ASSERT_TRUE(many->load_quadtree(*p.tree));
        many->step(4096);
        // Levels 6 (the leaf kernel's) up to the root's, grown by two for the step.
        const std::int64_t levels = property(*many, "root level") + 2 - 6 + 1;
        EXPECT_GT(property(*many, "tasks"), 1000);
        EXPECT_LE(property(*many, "workers"), threads * levels + 1);
    }
}

TEST(HashlifeThreads, TasksOnOneThreadAreTheSameSteps) {
    // The task graph run serially (what measures its work and span) gives the same cells.
    hashlife::Tuning t = racy();
    t.always_tasks = true;
    EngineOptions o;
    o.threads = 1;
    auto tasks = hashlife::make_hashlife(plane(), o, t);
    expect_as_one_thread(*tasks, test::soup(64, 64, 0.4, 3), 30001);
    EXPECT_GT(property(*tasks, "parallel steps"), 0);
    EXPECT_GT(property(*tasks, "tasks"), 0);
    double work = 0, span = 0;
    for (const auto& [k, v] : tasks->describe().properties) {
        if (k == "task work seconds") work = std::get<double>(v);
        if (k == "task span seconds") span = std::get<double>(v);
    }
    EXPECT_GT(span, 0);
    EXPECT_GE(work, span * 0.999);
}

// The task graph as 16 threads would cut it (--param cut-for=16), run on one thread for its work /
// span (the projection to many cores): the same trees from other pieces.
TEST(HashlifeThreads, TheGraphCutForMoreThreadsIsTheSameStepInOtherPieces) {
    if (!std::filesystem::exists(kGolly + "hexadecimal.mc.gz")) GTEST_SKIP() << "Golly's patterns are not installed";
    const Pattern p = golly_tree("hexadecimal.mc.gz");
    ASSERT_TRUE(p.tree);
    const BoardPlan plan = plan_board(p, BoardOverrides{}, "hexadecimal.mc.gz");
    std::string tree[2];
    std::int64_t tasks[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        hashlife::Tuning t;
        t.always_tasks = true;
        t.cut_for = i ? 16 : 0;
        EngineOptions o;
        o.threads = 1;
        auto e = hashlife::make_hashlife(plan.spec, o, t);
        ASSERT_TRUE(e->load_quadtree(*p.tree));
        e->step(1025);
        EXPECT_EQ(hashlife::check_store(*e), "");
        EXPECT_EQ(property(*e, "cut for"), i ? 16 : 1);
        EXPECT_GT(property(*e, "parallel steps"), 0);
        tree[i] = format_macrocell(*e->quadtree(), "B3/S23", 0);
        tasks[i] = property(*e, "tasks");
    }
    EXPECT_EQ(tree[1], tree[0]);
    // On one thread the pieces follow from the queues alone (no thread is ever idle), so a different
    // cut shows as a different count of tasks (not always more: pieces of task-squares squares
    // leave queues below them too short to cut again): 6800 for one thread, 7367 for 16.
    EXPECT_NE(tasks[1], tasks[0]);
}

TEST(HashlifeThreads, AStepWithNoLongQueueOpensNoThreads) {
    // A glider's steps, on a root of level 12 and more, never queue 2 x task-squares squares of
    // one level: they stay on one thread (a thread team that opened for every large root cost small
    // jobs 4-10 ms). The soups above check that long queues do open them.
    EngineOptions o;
    o.threads = 2;
    auto e = hashlife::make_hashlife(plane(), o);
    expect_as_one_thread(*e, {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}, 1000003);  // a glider
    EXPECT_GE(property(*e, "root level"), 12);
    EXPECT_EQ(property(*e, "parallel steps"), 0);
    EXPECT_EQ(property(*e, "tasks"), 0);
}

TEST(HashlifeThreads, TheDefaultIsAThreadACoreUpToEight) {
    // --threads 0 (the engine's choice): the cores this process may run on, at most 8; helper
    // threads start only for a step with a queue to share (a glider opens none, above).
    EngineOptions o;
    auto e = hashlife::make_hashlife(plane(), o);
    EXPECT_EQ(e->describe().threads, std::min(usable_cores(), 8));
    expect_as_one_thread(*e, test::soup(300, 300, 0.45, 5), 4096);
    if (usable_cores() > 1) {
        EXPECT_GT(property(*e, "parallel steps"), 0);
    }
}

TEST(HashlifeThreads, InterruptAndDeadlineStopAParallelStepAtAnExactState) {
    std::atomic<bool> stop{false};
    EngineOptions o;
    o.threads = 4;
    o.interrupt = &stop;
    auto e = hashlife::make_hashlife(plane("B2/S"), o, racy());
    const Cells start = test::soup(16, 16, 0.3, 9);
    e->set_cells(start);
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop = true;
    });
    e->step((std::int64_t{1} << 20) - 1);
    stopper.join();
    const std::int64_t g = e->generation();
    ASSERT_GT(g, 0);
    ASSERT_LT(g, (std::int64_t{1} << 20) - 1);
    // Every task unwound its marks (the export numbers nodes in them): the tree a checkpoint
    // would write now is a fresh run's.
    EXPECT_EQ(hashlife::check_store(*e), "");
    auto fresh = single("B2/S");
    fresh->set_cells(start);
    fresh->step(g);
    EXPECT_EQ(format_macrocell(*e->quadtree(), "B2/S", g), format_macrocell(*fresh->quadtree(), "B2/S", g));
    EXPECT_EQ(e->population(), fresh->population());
    EXPECT_EQ(e->extent(), fresh->extent());
    stop = false;
    e->step(3);
    fresh->step(3);
    EXPECT_CELLS(fresh->live_cells(), e->live_cells());

    // cpu:auto's trials: a deadline in the past stops the next step before it changes anything.
    auto d = hashlife::make_hashlife(plane("B2/S"), o, racy());
    d->set_cells(start);
    hashlife::set_deadline(*d, std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
    d->step((std::int64_t{1} << 20) - 1);
    ASSERT_LT(d->generation(), (std::int64_t{1} << 20) - 1);
    auto f2 = single("B2/S");
    f2->set_cells(start);
    f2->step(d->generation());
    EXPECT_EQ(d->population(), f2->population());
}

TEST(HashlifeThreads, APatternOverTheBudgetIsARuntimeErrorWithThreadsToo) {
    auto e = threaded(4, "B3/S23", false, 200 << 10);
    e->set_cells(test::soup(300, 300, 0.45, 5));
    EXPECT_THROW(e->step(4096), RuntimeError);
}

TEST(HashlifeThreads, AutoPassesItsThreadsToItsHashlife) {
    register_builtin_engines();
    EngineOptions o;
    o.threads = 3;
    auto a = create_engine("cpu:auto", plane(), o);
    a->set_cells(test::soup(20, 20, 0.4, 1));  // sparse: HashLife from the start
    a->step(1 << 16);
    EXPECT_EQ(a->describe().threads, 3);
    auto h = create_engine("cpu:hashlife", plane(), o);
    EXPECT_EQ(h->describe().threads, 3);
}

}  // namespace
}  // namespace tilelife
