// cpu:streamlife — HashLife over two layers (StreamLife): pairs of squares whose layers provably
// never meet within a step are stepped as two one-layer results. Internal header: the engine
// registers itself; tests use make_streamlife() with small stores and a broken independence test.
// Design notes: docs/streamlife.md.
#pragma once
#include <cstdint>
#include <memory>

#include "tilelife/engine.hpp"

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

}  // namespace streamlife
}  // namespace tilelife
