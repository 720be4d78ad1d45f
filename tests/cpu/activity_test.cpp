// Activity tracking in cpu:bitpacked (docs/activity.md): patterns that wake sleeping tiles, checked
// cell for cell against cpu:reference after every chunk of generations, on every topology, on boards
// whose tile grid does not line up with the board's edge or that are smaller than one tile, with
// the parallel tracked path forced, and with frequent switches between tracked and dense stepping.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cpu/bitpacked.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {
namespace {

using bitpacked::tile_rows;

// Cells of a picture: 'O' alive, anything else dead, rows separated by '\n'.
std::vector<Cell> picture(const std::string& art, std::int64_t dx, std::int64_t dy) {
    std::vector<Cell> out;
    std::int64_t x = 0, y = 0;
    for (char c : art) {
        if (c == '\n') {
            ++y, x = 0;
            continue;
        }
        if (c == 'O') out.push_back(Cell{dx + x, dy + y});
        ++x;
    }
    return out;
}

const std::string glider_se = ".O.\n..O\nOOO";
const std::string glider_nw = "OOO\nO..\n.O.";
const std::string glider_ne = "OOO\n..O\n.O.";
const std::string glider_sw = ".O.\nO..\nOOO";
const std::string block = "OO\nOO";
const std::string blinker = "OOO";
const std::string beehive = ".OO.\nO..O\n.OO.";
const std::string lwss_west = ".O..O\nO....\nO...O\nOOOO.";

std::vector<Cell> pulsar(std::int64_t dx, std::int64_t dy) {
    const Pattern p = read_pattern(std::string(TILELIFE_SOURCE_DIR) + "/patterns/pulsar.rle");
    std::vector<Cell> out;
    for (const Cell& c : p.cells) out.push_back(Cell{c.x + dx, c.y + dy});
    return out;
}

struct Scene {
    std::string name;
    // Cells around an anchor (a tile corner where the board has one), and cells written after the
    // first `write_after` generations (into tiles that have gone to sleep by then).
    std::function<std::vector<Cell>(std::int64_t ax, std::int64_t ay)> cells;
    std::function<std::vector<Cell>(std::int64_t ax, std::int64_t ay)> later;  // cells to toggle
    bool few = false;  // one of many variations: fewer sizes and configurations, to keep the suite fast
};

std::vector<Cell> join(std::vector<std::vector<Cell>> parts) {
    std::vector<Cell> out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

std::vector<Scene> make_scenes();
const std::vector<Scene> scenes = make_scenes();

std::vector<Scene> make_scenes() {
    std::vector<Scene> out = {
    {"glider_hits_block",
     [](std::int64_t ax, std::int64_t ay) { return join({picture(glider_se, ax - 9, ay - 9), picture(block, ax + 3, ay + 2)}); },
     [](std::int64_t ax, std::int64_t ay) { return picture(glider_nw, ax + 14, ay + 14); }},
    {"glider_crosses_tile_corner",
     [](std::int64_t ax, std::int64_t ay) { return picture(glider_se, ax - 2, ay - 2); },
     [](std::int64_t ax, std::int64_t ay) { return picture(block, ax - 10, ay + 5); }},
    {"pulsar_next_to_ash",
     [](std::int64_t ax, std::int64_t ay) {
         return join({pulsar(ax - 16, ay - 6), picture(block, ax - 1, ay - 1), picture(blinker, ax + 2, ay - 8),
                      picture(beehive, ax - 2, ay + 9)});
     },
     [](std::int64_t ax, std::int64_t ay) { return picture(glider_nw, ax + 6, ay + 6); }},
    {"blinker_next_to_still_life",
     [](std::int64_t ax, std::int64_t ay) {
         // A vertical blinker across the tile row boundary, a block across the column boundary.
         return join({picture("O\nO\nO", ax + 2, ay - 1), picture(block, ax - 1, ay + 4),
                      picture(glider_se, ax - 20, ay - 18)});
     },
     [](std::int64_t ax, std::int64_t ay) { return picture(blinker, ax - 6, ay - 1); }},
    {"spaceship_crosses_tiles",
     [](std::int64_t ax, std::int64_t ay) { return join({picture(lwss_west, ax + 40, ay - 2), picture(block, ax - 30, ay + 8)}); },
     [](std::int64_t ax, std::int64_t ay) { return picture(lwss_west, ax + 10, ay + 20); }},
    // A block that loses a cell while asleep: the three cells grow back into the block, so the next
    // generation equals the one two back although the board was written (tiles written must count
    // as changed for two generations).
    {"block_loses_a_cell",
     [](std::int64_t ax, std::int64_t ay) { return join({picture(block, ax - 1, ay - 1), picture(beehive, ax + 5, ay - 20)}); },
     [](std::int64_t ax, std::int64_t ay) { return std::vector<Cell>{Cell{ax, ay}}; }},
    {"blinker_flipped_while_asleep",
     [](std::int64_t ax, std::int64_t ay) { return picture(blinker, ax - 1, ay); },
     [](std::int64_t ax, std::int64_t ay) { return std::vector<Cell>{Cell{ax - 1, ay}, Cell{ax + 1, ay}, Cell{ax, ay - 1}, Cell{ax, ay + 1}}; }},
    };
    // Gliders in each diagonal direction whose paths cross the tile corner at several offsets: a
    // change in a corner cell alone must wake the diagonal neighbour.
    const std::pair<const std::string*, std::pair<int, int>> gliders[] = {
        {&glider_se, {-1, -1}}, {&glider_nw, {1, 1}}, {&glider_ne, {-1, 1}}, {&glider_sw, {1, -1}}};
    for (const auto& [art, dir] : gliders)
        for (int off = -1; off <= 1; ++off) {
            const int sx = dir.first, sy = dir.second;
            out.push_back(Scene{"glider_through_corner",
                                [art, sx, sy, off](std::int64_t ax, std::int64_t ay) {
                                    return picture(*art, ax + sx * 8 + off - 1, ay + sy * 8 - 1);
                                },
                                [](std::int64_t, std::int64_t) { return std::vector<Cell>{}; }, true});
        }
    return out;
}

struct Size {
    std::int64_t w, h;
};

// Tile-aligned, misaligned (tails in both directions), and smaller than one tile.
const Size sizes[] = {{128, 128}, {200, 150}, {97, 71}, {40, 30}, {130, 2 * tile_rows + 3}};

void expect_same(const Engine& ref, const Engine& bp) {
    SCOPED_TRACE("generation " + std::to_string(ref.generation()));
    const auto want = ref.live_cells();
    ASSERT_EQ(bp.live_cells(), want);
    ASSERT_EQ(bp.population(), static_cast<std::int64_t>(want.size()));
}

void write_cells(Engine& e, const std::vector<Cell>& cells, Topology topo) {
    const Box ext = e.extent();
    std::vector<Cell> in;
    for (Cell c : cells) {
        if (topo == Topology::torus) c = Cell{((c.x % ext.width) + ext.width) % ext.width, ((c.y % ext.height) + ext.height) % ext.height};
        if (topo == Topology::unbounded || ext.contains(c)) in.push_back(c);
    }
    e.set_cells(in);
}

void toggle_cells(Engine& e, const std::vector<Cell>& cells, Topology topo) {
    const Box ext = e.extent();
    for (Cell c : cells) {
        if (topo == Topology::torus) c = Cell{((c.x % ext.width) + ext.width) % ext.width, ((c.y % ext.height) + ext.height) % ext.height};
        if (topo != Topology::unbounded && !ext.contains(c)) continue;
        e.set_cell(c.x, c.y, !e.get_cell(c.x, c.y));
    }
}

void run_scene(const Scene& scene, Topology topo, Size size, int threads, const bitpacked::Tuning& tuning) {
    SCOPED_TRACE(scene.name + " " + std::string(to_string(topo)) + " " + std::to_string(size.w) + "x" +
                 std::to_string(size.h) + " threads=" + std::to_string(threads) +
                 " probe_interval=" + std::to_string(tuning.probe_interval));
    EngineOptions opts;
    opts.threads = threads;
    const BoardSpec spec{size.w, size.h, topo, Rule::life()};
    std::unique_ptr<Engine> ref, bp;
    if (topo == Topology::unbounded) {
        ref = create_engine("cpu:reference", spec);
        bp = make_unbounded("cpu:bitpacked",
                            [&](const BoardSpec& s, const EngineOptions& o) {
                                return bitpacked::make_bitpacked(s, o, bitpacked::best_simd(), tuning);
                            },
                            spec, opts);
    } else {
        ref = create_engine("cpu:reference", spec);
        bp = bitpacked::make_bitpacked(spec, opts, bitpacked::best_simd(), tuning);
    }
    // The anchor: the corner of tiles (64, 64) where the board has it, else the middle.
    const std::int64_t ax = size.w > 80 ? 64 : size.w / 2, ay = size.h > 80 ? static_cast<std::int64_t>(tile_rows) : size.h / 2;
    write_cells(*ref, scene.cells(ax, ay), topo);
    write_cells(*bp, scene.cells(ax, ay), topo);
    expect_same(*ref, *bp);
    if (::testing::Test::HasFatalFailure()) return;
    const std::int64_t chunks[] = {1, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 1, 1, 64, 100};
    for (std::size_t k = 0; k < std::size(chunks); ++k) {
        ref->step(chunks[k]);
        bp->step(chunks[k]);
        expect_same(*ref, *bp);
        if (::testing::Test::HasFatalFailure()) return;
        if (k == 8) {  // generation 55: most of the scene sleeps; wake it by writing
            toggle_cells(*ref, scene.later(ax, ay), topo);
            toggle_cells(*bp, scene.later(ax, ay), topo);
            expect_same(*ref, *bp);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

class Activity : public ::testing::TestWithParam<Topology> {
protected:
    void SetUp() override { register_builtin_engines(); }
};

TEST_P(Activity, ScenesMatchTheReference) {
    bitpacked::Tuning frequent;  // switches between tracked and dense stepping often
    frequent.probe_interval = 3;
    bitpacked::Tuning parallel;  // every tracked generation and dense run on the thread team
    parallel.parallel_tiles = 0;
    parallel.parallel_word_generations = 0;
    for (const Scene& scene : scenes)
        for (Size size : sizes) {
            if (GetParam() == Topology::unbounded && size.w != 128) continue;  // the size is only a hint there
            run_scene(scene, GetParam(), size, 1, {});
            if (HasFatalFailure()) return;
            if (scene.few) {
                if (size.w == 97) run_scene(scene, GetParam(), size, 2, parallel);
                if (HasFatalFailure()) return;
                continue;
            }
            run_scene(scene, GetParam(), size, 1, frequent);
            if (HasFatalFailure()) return;
            // Several threads wait for each other on a loaded machine: fewer sizes there.
            if (size.w != 200 && size.w != 40) continue;
            run_scene(scene, GetParam(), size, size.w == 200 ? 2 : 3, parallel);
            if (HasFatalFailure()) return;
        }
}

// A soup that settles into ash while some of it stays busy: long stretches of sparse tracked
// generations, switches to dense stepping and back, writes into sleeping ash, other rules (with B0,
// where the board alternates and only period-2 skipping can save anything).
TEST_P(Activity, SettlingSoupsAndRules) {
    for (const char* rule_text : {"B3/S23", "B36/S23", "B0/S8", "B3678/S34678"}) {
        const Rule rule = parse_rule(rule_text).rule;
        if (rule.next(false, 0) && GetParam() == Topology::unbounded) continue;  // B0 is refused there
        for (int threads : {1, 2}) {
            for (std::int64_t probe : {4, 64}) {
                if (threads > 1 && probe != 4) continue;  // slow on a loaded machine; one case suffices
                SCOPED_TRACE(std::string(rule_text) + " threads=" + std::to_string(threads) +
                             " probe_interval=" + std::to_string(probe));
                bitpacked::Tuning tuning;
                tuning.probe_interval = probe;
                if (threads > 1) tuning.parallel_tiles = 0, tuning.parallel_word_generations = 0;
                EngineOptions opts;
                opts.threads = threads;
                const BoardSpec spec{300, 200, GetParam(), rule};
                auto ref = create_engine("cpu:reference", spec);
                std::unique_ptr<Engine> bp =
                    GetParam() == Topology::unbounded
                        ? make_unbounded("cpu:bitpacked",
                                         [&](const BoardSpec& s, const EngineOptions& o) {
                                             return bitpacked::make_bitpacked(s, o, bitpacked::best_simd(), tuning);
                                         },
                                         spec, opts)
                        : bitpacked::make_bitpacked(spec, opts, bitpacked::best_simd(), tuning);
                std::mt19937_64 gen(7);
                std::vector<std::uint8_t> soup(80 * 70);
                for (auto& c : soup) c = gen() % 100 < 40;
                const Box where{100, 60, 80, 70};
                ref->write_region(where, soup.data());
                bp->write_region(where, soup.data());
                for (std::int64_t chunk : {1, 2, 5, 25, 70, 150, 1, 300}) {
                    ref->step(chunk);
                    bp->step(chunk);
                    expect_same(*ref, *bp);
                    if (HasFatalFailure()) return;
                    // Poke the ash: a cell flipped in a sleeping area, then a cleared row.
                    const Cell c{40 + chunk % 200, 20 + chunk % 150};
                    const bool alive = !ref->get_cell(c.x, c.y);
                    ref->set_cell(c.x, c.y, alive);
                    bp->set_cell(c.x, c.y, alive);
                    const std::vector<std::uint8_t> zeros(120, 0);
                    ref->write_region(Box{90, 100, 120, 1}, zeros.data());
                    bp->write_region(Box{90, 100, 120, 1}, zeros.data());
                    expect_same(*ref, *bp);
                    if (HasFatalFailure()) return;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Topologies, Activity,
                         ::testing::Values(Topology::torus, Topology::plane, Topology::unbounded),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace tilelife
