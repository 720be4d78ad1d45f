// Engine::live_cells_in and Engine::set_cells on every engine: the sparse access the unbounded board
// re-lays patterns with. Engines may override both (cpu:bitpacked does, by words); all must agree
// with the byte regions exactly, for boxes that straddle words, tiles and the board's edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

std::vector<Cell> expected_in(const std::vector<std::uint8_t>& bytes, std::int64_t w, std::int64_t h, const Box& b) {
    std::vector<Cell> out;
    for (std::int64_t y = std::max<std::int64_t>(b.y, 0); y < std::min(b.bottom(), h); ++y)
        for (std::int64_t x = std::max<std::int64_t>(b.x, 0); x < std::min(b.right(), w); ++x)
            if (bytes[static_cast<std::size_t>(y * w + x)]) out.push_back(Cell{x, y});
    return out;
}

TEST(SparseAccess, EveryEngineListsAndSetsCellsExactly) {
    register_builtin_engines();
    std::mt19937_64 rng(11);
    int tested = 0;
    for (const auto& info : registered_engines()) {
        if (!info.bounded) continue;  // unbounded-only engines: tests/hashlife checks their sparse access
        bool engine_tested = false;
        for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {65, 3}, {130, 70}, {200, 129}}) {
            SCOPED_TRACE(info.name + " " + std::to_string(w) + "x" + std::to_string(h));
            std::unique_ptr<Engine> e;
            try {
                e = create_engine(info.name, BoardSpec{w, h, Topology::torus, Rule::life()});
            } catch (const RuntimeError& err) {
                // Only a device engine without a device is passed over, and only that engine: the
                // others are still tested.
                if (info.backend() == "cpu") throw;
                std::printf("  [%s passed over: %s]\n", info.name.c_str(), err.what());
                break;
            }
            engine_tested = true;
            // A sparse set of cells through set_cells, then a few generations to mix things up.
            std::vector<Cell> cells;
            for (int i = 0; i < w * h / 5; ++i)
                cells.push_back(Cell{static_cast<std::int64_t>(rng() % w), static_cast<std::int64_t>(rng() % h)});
            e->set_cells(cells);
            std::vector<std::uint8_t> bytes(static_cast<std::size_t>(w * h));
            e->read_region(Box{0, 0, w, h}, bytes.data());
            for (const Cell& c : cells) ASSERT_EQ(bytes[static_cast<std::size_t>(c.y * w + c.x)], 1);
            ASSERT_EQ(e->population(), std::count(bytes.begin(), bytes.end(), 1));
            e->step(3);
            e->read_region(Box{0, 0, w, h}, bytes.data());
            EXPECT_EQ(e->live_cells(), expected_in(bytes, w, h, Box{0, 0, w, h}));
            for (int t = 0; t < 40; ++t) {
                const std::int64_t x = static_cast<std::int64_t>(rng() % (w + 20)) - 10;
                const std::int64_t y = static_cast<std::int64_t>(rng() % (h + 20)) - 10;
                const Box b{x, y, static_cast<std::int64_t>(rng() % (w + 5)) + 1, static_cast<std::int64_t>(rng() % (h + 5)) + 1};
                EXPECT_EQ(e->live_cells_in(b), expected_in(bytes, w, h, b)) << b.x << "," << b.y << " " << b.width << "x" << b.height;
            }
        }
        tested += engine_tested;
    }
    // Every CPU engine at least (they need no device).
    int cpu = 0;
    for (const auto& info : registered_engines()) cpu += info.backend() == "cpu" && info.bounded;
    EXPECT_GE(tested, cpu);
    EXPECT_GE(tested, 2);
}

}  // namespace
}  // namespace tilelife
