// opencl:bitpacked with activity tracking (parameter activity) must equal cpu:reference exactly
// while it skips settled tiles: patterns that wake sleeping tiles (a glider hitting a block, a glider
// through a tile corner, spaceships across many tiles and the torus seam), oscillators whose period
// does or does not divide 2K (the tracking compares with the board two launches back), writes into
// sleeping tiles, soups that settle; torus, plane and unbounded; odd and even K, chunks that are not
// multiples of K. Small tiles (--wg 4xS: 64 cells wide, 16-22 rows) give many tiles on small boards.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "support/opencl_fixture.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife {
namespace {

constexpr const char* kEngine = "opencl:bitpacked";
constexpr int kRows = 8;

class Activity : public testing_support::OpenCLTest {};

// Tiles of 2 words (64 cells) by 16-22 rows: work-group 4xS with 8 rows per work-item, S*8 >= 2K + 16;
// activity tracking `mode`.
EngineOptions small_tiles(int k, const char* mode = "on") {
    EngineOptions o;
    o.steps_per_launch = k;
    o.wg_width = 4;
    o.wg_height = (2 * k + 16 + kRows - 1) / kRows;
    o.params["rows"] = std::to_string(kRows);
    o.params["activity"] = mode;
    return o;
}

// What the engine's description says about its activity tracking.
struct ActivityCounts {
    std::string mode;
    std::uint64_t tiles = 0, last_run = 0;
    std::int64_t launches = 0, listed_launches = 0;
};
ActivityCounts activity_of(const Engine& e) {
    const EngineDescription d = e.describe();
    using testing_support::property;
    return {property<std::string>(d, "activity"), static_cast<std::uint64_t>(property<std::int64_t>(d, "tiles")),
            static_cast<std::uint64_t>(property<std::int64_t>(d, "tiles-last-launch")),
            property<std::int64_t>(d, "launches"), property<std::int64_t>(d, "listed-launches")};
}
int tile_rows(int k) { return small_tiles(k).wg_height * kRows - 2 * k; }

std::vector<Cell> shifted(const std::vector<Cell>& cells, std::int64_t dx, std::int64_t dy) {
    std::vector<Cell> out;
    for (const Cell& c : cells) out.push_back(Cell{c.x + dx, c.y + dy});
    return out;
}
void append(std::vector<Cell>& to, const std::vector<Cell>& cells) { to.insert(to.end(), cells.begin(), cells.end()); }

const std::vector<Cell> kGliderSE = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};  // +1,+1 every 4 generations
const std::vector<Cell> kGliderNW = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 2}};  // -1,-1 every 4 generations
const std::vector<Cell> kBlock = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
const std::vector<Cell> kBlinker = {{0, 0}, {1, 0}, {2, 0}};
const std::vector<Cell> kBeehive = {{1, 0}, {2, 0}, {0, 1}, {3, 1}, {1, 2}, {2, 2}};

std::vector<Cell> pattern_cells(const char* file) {
    return read_pattern(std::string(TILELIFE_SOURCE_DIR) + "/patterns/" + file).cells;
}

// Both engines from the same cells; after each chunk the boards (live cells), population and
// generation must agree. Returns the device engine for activity checks.
std::unique_ptr<Engine> expect_same(const BoardSpec& spec, const std::vector<Cell>& cells,
                                    const std::vector<std::int64_t>& chunks, const EngineOptions& options) {
    auto ref = create_engine("cpu:reference", spec);
    auto dev = create_engine(kEngine, spec, options);
    ref->set_cells(cells);
    dev->set_cells(cells);
    for (std::int64_t n : chunks) {
        ref->step(n);
        dev->step(n);
        const auto want = ref->live_cells();
        const bool same = dev->live_cells() == want;
        EXPECT_TRUE(same) << "after generation " << ref->generation();
        EXPECT_EQ(dev->population(), static_cast<std::int64_t>(want.size()));
        EXPECT_EQ(dev->generation(), ref->generation());
        if (!same) break;
    }
    return dev;
}

// How many tiles a launch of K runs once the history allows the list: three more launches of K (after
// a chunk that ended in a shorter launch, the second launch of K runs every tile).
std::uint64_t tiles_running_now(Engine& dev, int k) {
    dev.step(3 * k);
    return activity_of(dev).last_run;
}

std::string trace(const BoardSpec& spec, int k) {
    return std::to_string(spec.width) + "x" + std::to_string(spec.height) + " " + std::string(to_string(spec.topology)) +
           " K=" + std::to_string(k);
}

const int kOddAndEven[] = {1, 2, 3, 4, 5, 8};

TEST_F(Activity, GliderHitsABlock) {
    // The block's tiles have long been asleep when the glider arrives (about generation 300).
    std::vector<Cell> cells = shifted(kGliderSE, 10, 12);
    append(cells, shifted(kBlock, 90, 93));
    const std::vector<std::int64_t> chunks = {1, 50, 100, 37, 200, 212};
    for (int k : kOddAndEven)
        for (Topology t : {Topology::torus, Topology::plane, Topology::unbounded}) {
            const BoardSpec spec{250, 190, t, Rule::life()};
            SCOPED_TRACE(trace(spec, k));
            auto dev = expect_same(spec, cells, chunks, small_tiles(k));
            if (t == Topology::unbounded) continue;  // the growing board wraps the engine
            const auto a = activity_of(*dev);
            EXPECT_GT(a.listed_launches, a.launches / 2);
            EXPECT_LT(tiles_running_now(*dev, k), a.tiles / 2);  // the debris covers a few tiles only
        }
}

TEST_F(Activity, GliderThroughATileCorner) {
    // Tiles are 64 cells wide and tile_rows(K) tall: the glider's diagonal passes through the corner
    // shared by tiles (0,1), (1,1), (0,2), (1,2). Compared every 7 generations (launches of K and
    // 7 mod K alternate).
    for (int k : kOddAndEven)
        for (Topology t : {Topology::torus, Topology::plane}) {
            const BoardSpec spec{200, 5 * tile_rows(k) + 3, t, Rule::life()};
            SCOPED_TRACE(trace(spec, k));
            const std::int64_t cx = 64, cy = 2 * tile_rows(k);
            std::vector<Cell> cells = shifted(kGliderSE, cx - 30, cy - 30);
            append(cells, shifted(kBeehive, 150, 3 * tile_rows(k)));
            auto dev = expect_same(spec, cells, std::vector<std::int64_t>(36, 7), small_tiles(k));
            EXPECT_GT(activity_of(*dev).listed_launches, 0);
        }
}

TEST_F(Activity, PeriodTwoAshSleepsForOddAndEvenK) {
    // Blinkers beside blocks and beehives in neighbouring tiles: everything repeats every 2
    // generations, which divides 2K for every K, so after a few launches no tile runs.
    std::vector<Cell> cells;
    for (int i = 0; i < 6; ++i) {
        append(cells, shifted(kBlinker, 20 + 41 * i, 10 + 23 * i));
        append(cells, shifted(kBlock, 25 + 41 * i, 14 + 23 * i));
        append(cells, shifted(kBeehive, 60 + 30 * i, 130 - 20 * i));
    }
    append(cells, shifted(kBlinker, 62, 0));  // on the plane's top edge / across the torus seam
    append(cells, shifted(kBlinker, 0, 60));
    for (int k : kOddAndEven)
        for (Topology t : {Topology::torus, Topology::plane}) {
            const BoardSpec spec{257, 150, t, Rule::life()};
            SCOPED_TRACE(trace(spec, k));
            auto dev = expect_same(spec, cells, {1, 6 * k, 13, 6 * k}, small_tiles(k));
            EXPECT_EQ(tiles_running_now(*dev, k), 0u);
        }
}

TEST_F(Activity, PulsarNextToAsh) {
    // Period 3: its tiles sleep when 3 divides 2K (K = 3, 6) and keep running otherwise.
    std::vector<Cell> cells = shifted(pattern_cells("pulsar.rle"), 58, 20);
    append(cells, shifted(kBlock, 80, 25));     // in the next tile column
    append(cells, shifted(kBlinker, 50, 40));   // in the previous one
    append(cells, shifted(kBeehive, 100, 60));
    for (int k : {1, 3, 4, 6})
        for (Topology t : {Topology::torus, Topology::plane}) {
            const BoardSpec spec{190, 100, t, Rule::life()};
            SCOPED_TRACE(trace(spec, k));
            auto dev = expect_same(spec, cells, {2, 10 * k, 5, 10 * k, 11}, small_tiles(k));
            const std::uint64_t running = tiles_running_now(*dev, k), tiles = activity_of(*dev).tiles;
            if (k % 3 == 0) {
                EXPECT_EQ(running, 0u);
            } else {
                EXPECT_GT(running, 0u);
                EXPECT_LT(running, tiles);
            }
        }
}

TEST_F(Activity, SpaceshipsAcrossManyTilesAndTheSeam) {
    // A lightweight spaceship along a row and gliders along diagonals, across every tile column and
    // the torus seam (a width that is not a multiple of 32, and one whose last tile column is
    // narrower than K), with a block in their way on the plane.
    const auto lwss = pattern_cells("lwss.rle");
    for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{{301, 97}, {197, 71}})
        for (int k : {1, 4, 5, 8})
            for (Topology t : {Topology::torus, Topology::plane}) {
                const BoardSpec spec{w, h, t, Rule::life()};
                SCOPED_TRACE(trace(spec, k));
                std::vector<Cell> cells = shifted(lwss, w - 40, h / 2);
                append(cells, shifted(kGliderSE, w - 20, h - 15));
                append(cells, shifted(kGliderNW, 12, 30));
                append(cells, shifted(kBlock, 30, 20));
                auto dev = expect_same(spec, cells, {3, 97, 150, 211, 139}, small_tiles(k));
                EXPECT_GT(activity_of(*dev).listed_launches, 0);
            }
    // Default tiles (30 words wide on a CPU device): a glider across the seam of a 3-tile-wide torus.
    const BoardSpec spec{1990, 80, Topology::torus, Rule::life()};
    std::vector<Cell> cells = shifted(kGliderSE, 1970, 40);
    append(cells, shifted(kBlinker, 5, 5));
    for (int k : {0, 3}) {
        EngineOptions o;
        o.steps_per_launch = k;
        o.params["activity"] = "on";
        SCOPED_TRACE(trace(spec, k));
        expect_same(spec, cells, {100, 51, 100}, o);
    }
}

TEST_F(Activity, TallNeighbourhoodsAcrossSeveralTileRows) {
    // 2-row tiles with K = 8: a tile depends on four tile rows above and below.
    EngineOptions o;
    o.params["rows"] = "6";
    o.params["activity"] = "on";
    o.steps_per_launch = 8;
    o.wg_width = 4;
    o.wg_height = 3;  // 18 local rows: 2 tile rows and 8 halo rows each side
    for (Topology t : {Topology::torus, Topology::plane}) {
        const BoardSpec spec{150, 41, t, Rule::life()};
        SCOPED_TRACE(trace(spec, 8));
        std::vector<Cell> cells = shifted(kGliderNW, 70, 30);
        append(cells, shifted(kGliderSE, 10, 3));
        append(cells, shifted(kBlinker, 120, 20));
        auto dev = expect_same(spec, cells, {16, 40, 80, 64, 13}, o);
        EXPECT_GT(activity_of(*dev).listed_launches, 0);
    }
}

TEST_F(Activity, WritesWakeSleepingTiles) {
    // Ash is written (and cleared) into tiles that sleep, between launches of K (so the list would
    // be allowed if only the step counts mattered), and the launches after must see it; then gliders
    // are written at any phase of the launch history. A lone cell or a domino dies at once, so the
    // first launch after the write ends where the board two launches back was: only a second launch
    // over every tile replaces the written cells in the other buffer.
    const std::vector<std::vector<Cell>> ash = {kBlock, kBlinker, kBeehive, {{0, 0}}, {{0, 0}, {1, 0}}};
    for (int k : {1, 3, 4})
        for (Topology t : {Topology::torus, Topology::plane}) {
            const BoardSpec spec{256, 120, t, Rule::life()};
            SCOPED_TRACE(trace(spec, k));
            auto ref = create_engine("cpu:reference", spec);
            auto dev = create_engine(kEngine, spec, small_tiles(k));
            std::mt19937 rng(static_cast<unsigned>(k));
            for (int round = 0; round < 24; ++round) {
                const bool gliders = round >= 16;
                const std::int64_t n = gliders ? 1 + rng() % 23 : k * (3 + rng() % 3);
                ref->step(n);
                dev->step(n);
                const std::int64_t x = 4 + rng() % 240, y = 4 + rng() % 105;
                if (round % 4 == 3) {  // clear a 6x6 area: often half of some ash, which then moves
                    const std::vector<std::uint8_t> zeros(36, 0);
                    ref->write_region(Box{x - 3, y - 3, 6, 6}, zeros.data());
                    dev->write_region(Box{x - 3, y - 3, 6, 6}, zeros.data());
                } else {
                    const auto& cells = gliders ? (round % 2 ? kGliderSE : kGliderNW) : ash[rng() % ash.size()];
                    ref->set_cells(shifted(cells, x, y));
                    dev->set_cells(shifted(cells, x, y));
                }
                for (int i = 0; i < 3; ++i) {
                    ref->step(k);
                    dev->step(k);
                    ASSERT_EQ(dev->live_cells(), ref->live_cells())
                        << "round " << round << " generation " << ref->generation();
                }
            }
            ref->step(200);
            dev->step(200);
            ASSERT_EQ(dev->live_cells(), ref->live_cells());
            EXPECT_GT(activity_of(*dev).listed_launches, 0);
        }
}

TEST_F(Activity, SoupsSettleExactlyInEveryMode) {
    for (const char* mode : {"on", "auto", "off"})
        for (int k : {1, 3, 4})
            for (Topology t : {Topology::torus, Topology::plane}) {
                const BoardSpec spec{300, 180, t, Rule::life()};
                SCOPED_TRACE(trace(spec, k) + " " + mode);
                std::mt19937_64 rng(static_cast<std::uint64_t>(k * 10 + static_cast<int>(t)));
                std::vector<Cell> cells;
                for (std::int64_t y = 40; y < 140; ++y)
                    for (std::int64_t x = 60; x < 240; ++x)
                        if (rng() % 100 < 35) cells.push_back(Cell{x, y});
                auto dev = expect_same(spec, cells, {5, 95, 300, 600, 201}, small_tiles(k, mode));
                const auto a = activity_of(*dev);
                EXPECT_EQ(a.mode, mode);
                if (std::string(mode) == "off") EXPECT_EQ(a.listed_launches, 0);
                else EXPECT_GT(a.listed_launches, 0);
            }
}

TEST_F(Activity, AutomaticModeGoesDenseAndBack) {
    // A board full of soup (every tile active) runs dense launches that skip the compare and the
    // list; once the board is cleared but for a blinker, the next look at the list's length brings
    // tracking back. K = 1 gives many launches.
    const BoardSpec spec{256, 128, Topology::torus, Rule::life()};
    std::mt19937_64 rng(5);
    std::vector<Cell> soup;
    for (std::int64_t y = 0; y < 128; ++y)
        for (std::int64_t x = 0; x < 256; ++x)
            if (rng() % 100 < 40) soup.push_back(Cell{x, y});
    auto ref = create_engine("cpu:reference", spec);
    auto dev = create_engine(kEngine, spec, small_tiles(1, "auto"));
    ref->set_cells(soup);
    dev->set_cells(soup);
    ref->step(150);
    dev->step(150);
    ASSERT_EQ(dev->live_cells(), ref->live_cells());
    const auto dense = activity_of(*dev);
    EXPECT_EQ(dense.launches, 150);
    EXPECT_LE(dense.listed_launches, 150 - 100);  // mostly dense launches

    const std::vector<std::uint8_t> zeros(256 * 128, 0);
    ref->write_region(Box{0, 0, 256, 128}, zeros.data());
    dev->write_region(Box{0, 0, 256, 128}, zeros.data());
    ref->set_cells(shifted(kBlinker, 100, 50));
    dev->set_cells(shifted(kBlinker, 100, 50));
    ref->step(100);
    dev->step(100);
    ASSERT_EQ(dev->live_cells(), ref->live_cells());
    const auto settled = activity_of(*dev);
    EXPECT_GE(settled.listed_launches - dense.listed_launches, 100 - 40);  // at most one more dense phase
    EXPECT_EQ(tiles_running_now(*dev, 1), 0u);
}

TEST_F(Activity, BadModeIsAnInputError) {
    for (const char* mode : {"banana", "1", "0", "ON", ""})
        EXPECT_THROW(create_engine(kEngine, BoardSpec{40, 40, Topology::torus, Rule::life()}, small_tiles(2, mode)),
                     InputError)
            << mode;
}

// The tiles the engine describes are the ones it runs: a period-3 oscillator astride the boundary
// between two described tiles keeps exactly those two tiles stamped, so with K = 1 the launches from
// the list run them and their neighbours: 4 x 3 tiles. Were the boundary elsewhere, it would sit inside
// one tile and 3 x 3 would run. Torus and plane, default and small shapes.
TEST_F(Activity, DescribedTilesAreTheTilesThatRun) {
    const auto pulsar = pattern_cells("pulsar.rle");  // 13x13, period 3
    std::vector<EngineOptions> shapes = {small_tiles(1)};
    EngineOptions wide;
    wide.steps_per_launch = 1;
    wide.params["activity"] = "on";
    shapes.push_back(wide);  // the device's default work-group and rows
    EngineOptions odd = small_tiles(1);
    odd.wg_width = 5;
    odd.wg_height = 3;
    odd.params["rows"] = "7";
    shapes.push_back(odd);
    for (const EngineOptions& o : shapes)
        for (Topology t : {Topology::torus, Topology::plane}) {
            auto probe = create_engine(kEngine, BoardSpec{64, 64, t, Rule::life()}, o);
            const TileGeometry tile = probe->describe().tiles.value();
            // 6 x 5 tiles; the pulsar straddles the vertical boundary between tile columns 2 and 3 in
            // tile row 2, well away from the tile rows above and below.
            const BoardSpec spec{6 * tile.width, 5 * tile.height, t, Rule::life()};
            SCOPED_TRACE(trace(spec, 1) + " tile " + std::to_string(tile.width) + "x" + std::to_string(tile.height));
            ASSERT_GE(tile.height, 15);
            const std::vector<Cell> cells = shifted(pulsar, 3 * tile.width - 6, 2 * tile.height + (tile.height - 13) / 2);
            auto dev = expect_same(spec, cells, {6, 9}, o);
            EXPECT_EQ(activity_of(*dev).tiles, 30u);
            for (int i = 0; i < 3; ++i) EXPECT_EQ(tiles_running_now(*dev, 1), 12u) << "round " << i;
        }
}

}  // namespace
}  // namespace tilelife
