// cpu:hashlife — Gosper's HashLife on the unbounded plane, and cpu:auto, which picks it or
// cpu:bitpacked by the job. Internal header: the engines register themselves; tests use
// make_hashlife() with small tables to force collections. Design notes: docs/hashlife.md.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>

#include "cpu/bitpacked.hpp"
#include "tilelife/engine.hpp"

namespace tilelife {

void register_hashlife_engines();  // called from register_builtin_engines()

namespace hashlife {

// How the node store grows and collects. The defaults suit real runs; tests shrink them.
// Parallel steps: the fewest squares of one level in a task, by default (--param task-squares).
inline constexpr int kDefaultTaskSquares = 16;

struct Tuning {
    // Bytes the store may use before its first collection; each collection doubles it, up to
    // soft_limit_bytes (the engine's memory budget caps both). Past the soft limit the store grows
    // only when a collection frees less than half of it. The soft limit keeps a whole process
    // within Golly's default of 256 MB on the patterns that fill it; runs whose working set is
    // larger still get the room (up to the budget) instead of collecting without end.
    std::int64_t initial_bytes = std::int64_t{4} << 20;
    std::int64_t soft_limit_bytes = std::int64_t{240} << 20;
    // The level-6 leaf kernel's instruction set: 0 = the best this CPU has, 1 = baseline, 2 = AVX2,
    // 3 = AVX-512 (tests run each supported one).
    int simd = 0;
    // Parallel steps (more than one thread): a level's queue of squares to evaluate is split into
    // tasks of at least this many squares once it holds twice as many. 0: kDefaultTaskSquares. Tests
    // lower it to make many small tasks racing for the same squares.
    int task_squares = 0;
    // ... and a shorter queue of at least twice idle_squares is split into pieces of at least that
    // many while a thread has nothing to run. 0: never.
    int idle_squares = 8;
    // Steps as tasks even on one thread (for large enough roots): the task graph run serially, for
    // its work and span (describe()) and for tests.
    bool always_tasks = false;
    // Long queues are cut in two pieces for each of this many threads; 0: the threads that run.
    // With always_tasks on one thread, the graph that many threads would run, for its work / span.
    int cut_for = 0;
    // With more than one thread, collections and table rebuilds run on a thread for each this many
    // squares (nodes and leaves) in the store, up to the engine's threads (0: all of them, as the
    // tests run them).
    std::int64_t gc_squares_per_thread = std::int64_t{1} << 17;
};

std::unique_ptr<Engine> make_hashlife(const BoardSpec& spec, const EngineOptions& options, const Tuning& tuning = {});

// cpu:auto (auto.cpp). Tests force its HashLife trials (every chunk, no time limit) to check that
// a switch mid-run keeps the cells exact.
struct AutoTuning {
    bool always_try = false;
};
std::unique_ptr<Engine> make_auto(const BoardSpec& spec, const EngineOptions& options, const AutoTuning& tuning = {});

// Replaces every cell of a cpu:hashlife engine by `cells`, keeping its store of squares and results
// (cpu:auto's trials reuse what earlier ones computed).
void replace_cells(Engine& hashlife_engine, const std::vector<Cell>& cells);

// Tests: "" when every square of a cpu:hashlife engine's store is stored once and found by its
// contents, its counts are right and its results name live squares; else what is wrong.
std::string check_store(const Engine& hashlife_engine);

// What cpu:auto weighs before its StreamLife probe exports a cpu:hashlife engine's pattern: the
// bytes of the store, and a bound on what the exported tree and the probe's arrays take beside it.
struct ExportCost {
    std::int64_t store_bytes = 0, export_bytes = 0;
};
ExportCost export_cost(const Engine& hashlife_engine);

// A time limit for the steps of a cpu:hashlife engine (cpu:auto's trials): past it, step() returns
// early as when interrupted (generation() says how far it got). A default time_point: none.
void set_deadline(Engine& hashlife_engine, std::chrono::steady_clock::time_point deadline);

// The leaf kernel: 64 rows of 64 cells (bit x of rows[y] = cell (x, y)) run `gens` (1..16)
// generations of a rule given as cpu:bitpacked's masks (`life`: B3/S23, masks unused); rows
// 16..47, bits 16..47 are then exact (the rest is scratch).
using LeafKernel = void (*)(std::uint64_t* rows, int gens, const bitpacked::RuleMasks& rule, bool life);
bitpacked::RuleMasks rule_masks(const Rule& rule);
LeafKernel leaf_kernel(int simd);  // simd as in Tuning; throws RuntimeError when unsupported
int best_leaf_simd();

}  // namespace hashlife
}  // namespace tilelife
