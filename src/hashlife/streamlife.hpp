// cpu:streamlife — HashLife over two layers (StreamLife): pairs of squares whose layers provably
// never meet within a step are stepped as two one-layer results. Internal header: the engine
// registers itself; tests use make_streamlife() with small stores and a broken independence test.
// Design notes: docs/streamlife.md.
#pragma once
#include <cstdint>
#include <memory>

#include "tilelife/engine.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {

void register_streamlife_engine();  // called from register_builtin_engines()

namespace streamlife {

struct Tuning {
    // Bytes the store may use before its first collection; it doubles (inside the memory budget)
    // when a collected store is still too small for a step.
    std::int64_t initial_bytes = std::int64_t{256} << 20;
    // Tests only: treat any two streams as independent, whatever their lanes (unsound), to check
    // that the tests see the difference.
    bool trust_streams = false;
};

std::unique_ptr<Engine> make_streamlife(const BoardSpec& spec, const EngineOptions& options, const Tuning& tuning = {});

// What cpu:auto looks at before choosing cpu:streamlife: the live cells of a pattern's 64x64 squares
// that are streams moving "forward" (east, south, south-east or north-east, and no other way) and
// "backward" (the opposite four), against all its live cells. Streams moving both ways are what
// the two layers keep apart; docs/streamlife.md has the measurements.
struct StreamShare {
    std::int64_t forward = 0, backward = 0, population = 0;
    // Stream cells (of either way) whose lanes, on the axis they move along, keep the independence
    // test's distance from every lane of a stream moving the other way and of every cell that is not
    // a stream: streams that pass each other and run into nothing. Counted only when each way has
    // at least a quarter of the population (0 otherwise): it lists every cell.
    std::int64_t apart = 0;
};
// Read from the tree (its squares as the engine would hold them once loaded).
StreamShare stream_share(const Quadtree& tree, const Rule& rule);
// A quick look before stream_share(): whether, of a sample of `cells` live cells (each as likely
// as any other, drawn with a fixed seed), at least `share` lie in squares moving forward and as
// many in squares moving backward. It classifies at most `cells` squares, where stream_share()
// classifies every distinct one.
bool sampled_both_ways(const Quadtree& tree, const Rule& rule, double share, int cells = 512);

}  // namespace streamlife
}  // namespace tilelife
