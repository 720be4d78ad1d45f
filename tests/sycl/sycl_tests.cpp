// Every sycl:* engine must equal cpu:reference exactly: all rules (B0 on bounded boards included), both
// bounded topologies and the growing unbounded board, odd sizes, several work-group shapes, the three
// population paths; and the generic interface (describe, step_timed, devices, bench) must report what
// the engine does. Runs on the SYCL runtime's default device (a GPU when there is one, else the CPU).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <random>
#include <regex>
#include <string>
#include <variant>
#include <vector>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

const char* const kEngines[] = {"sycl:hierarchical", "sycl:halo-tile", "sycl:halo-tile-strided", "sycl:bitpacked"};
const char* const kPaths[] = {"sycl-reduction", "reduce-over-group", "tree"};

class Sycl : public ::testing::Test {
protected:
    void SetUp() override { register_builtin_engines(); }
};

std::vector<std::uint8_t> random_cells(std::int64_t w, std::int64_t h, std::uint64_t seed, double density = 0.4) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution alive(density);
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
    for (auto& c : cells) c = alive(rng) ? 1 : 0;
    return cells;
}

std::vector<std::uint8_t> board_of(const Engine& e) {
    const Box b = e.extent();
    std::vector<std::uint8_t> out(static_cast<std::size_t>(b.width * b.height));
    e.read_region(b, out.data());
    return out;
}

std::int64_t count(const std::vector<std::uint8_t>& cells) {
    std::int64_t n = 0;
    for (auto c : cells) n += c;
    return n;
}

std::string text_of(const EngineOptions& o) {
    std::string s = "wg " + std::to_string(o.wg_width) + "x" + std::to_string(o.wg_height) + " K " +
                    std::to_string(o.steps_per_launch);
    for (const auto& [k, v] : o.params) s += " " + k + "=" + v;
    return s;
}

// Runs `engine` and cpu:reference from the same random board, comparing the whole board, the
// population and the generation after each chunk of generations.
void expect_same(const std::string& engine, std::int64_t w, std::int64_t h, Topology topology, const std::string& rule,
                 const std::vector<std::int64_t>& chunks, const EngineOptions& options = {}, std::uint64_t seed = 1) {
    SCOPED_TRACE(engine + " " + std::to_string(w) + "x" + std::to_string(h) + " " + std::string(to_string(topology)) +
                 " " + rule + " " + text_of(options));
    const BoardSpec spec{w, h, topology, parse_rule(rule).rule};
    auto ref = create_engine("cpu:reference", spec);
    auto dev = create_engine(engine, spec, options);
    const auto cells = random_cells(w, h, seed + static_cast<std::uint64_t>(w * 7919 + h));
    ref->write_region(Box{0, 0, w, h}, cells.data());
    dev->write_region(Box{0, 0, w, h}, cells.data());
    ASSERT_EQ(board_of(*dev), cells);
    for (std::int64_t n : chunks) {
        ref->step(n);
        dev->step(n);
        const auto want = board_of(*ref);
        ASSERT_EQ(board_of(*dev), want) << "after generation " << ref->generation();
        ASSERT_EQ(dev->population(), count(want));
        ASSERT_EQ(dev->generation(), ref->generation());
    }
}

EngineOptions with(int wx, int wy, std::initializer_list<std::pair<const std::string, std::string>> params = {},
                   int steps = 0) {
    EngineOptions o;
    o.wg_width = wx;
    o.wg_height = wy;
    o.steps_per_launch = steps;
    for (const auto& p : params) o.params.insert(p);
    return o;
}

// Widths off multiples of 8, 32 and 64 (and on them), 1xN, Nx1, non-square.
const std::vector<std::pair<std::int64_t, std::int64_t>> kSizes = {
    {1, 1}, {1, 37}, {37, 1}, {2, 2}, {17, 5}, {63, 65}, {64, 33}, {200, 150}, {263, 141}, {97, 300}};
// B0 (births on empty neighbourhoods) is legal on bounded boards and stresses the plane's dead edge.
const char* const kRules[] = {"B3/S23",      "B36/S23",     "B3678/S34678",      "B2/S",
                              "B1357/S1357", "B0358/S1237", "B0123478/S01234678", "B/S012345678"};

TEST_F(Sycl, EveryEngineRuleTopologyAndSizeEqualsReference) {
    for (const char* engine : kEngines)
        for (const char* rule : kRules)
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : kSizes) expect_same(engine, w, h, t, rule, {1, 4, 9});
}

TEST_F(Sycl, WorkGroupShapes) {
    const std::vector<std::pair<std::string, std::vector<EngineOptions>>> shapes = {
        {"sycl:hierarchical", {with(8, 8), with(16, 16), with(32, 8), with(32, 16), with(32, 32)}},
        {"sycl:halo-tile", {with(3, 3), with(5, 7), with(18, 18), with(34, 6), with(32, 32)}},
        {"sycl:halo-tile-strided", {with(1, 1), with(4, 2), with(3, 5), with(8, 8), with(32, 8), with(64, 4)}},
        // Words per local row (halo words included) x strips, rows per work-item, K.
        {"sycl:bitpacked",
         {with(3, 9, {{"rows", "4"}}, 4), with(5, 3, {{"rows", "8"}}, 2), with(32, 4, {{"rows", "8"}}, 4),
          with(8, 2, {{"rows", "16"}}, 7), with(4, 1, {{"rows", "32"}}, 12), with(32, 8, {{"rows", "32"}}, 12)}},
    };
    for (const auto& [engine, list] : shapes)
        for (const EngineOptions& o : list)
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {17, 5}, {63, 65}, {141, 99}, {300, 70}})
                    expect_same(engine, w, h, t, "B3/S23", {2, 7, 13}, o);
}

TEST_F(Sycl, BitpackedGenerationsPerLaunch) {
    // Launches of K and a last, shorter one; tori whose seam falls inside a word, tiny tori where a
    // cell is its own neighbour, planes; chunks that are not multiples of K.
    for (int k : {1, 2, 3, 5, 8, 12, 16, 32})
        for (Topology t : {Topology::torus, Topology::plane})
            for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {2, 2}, {33, 1}, {1, 40}, {70, 45}, {129, 200}})
                expect_same("sycl:bitpacked", w, h, t, k % 2 ? "B36/S23" : "B3/S23", {1, k, 2 * k + 3},
                            with(0, 0, {{"rows", "16"}}, k));
}

TEST_F(Sycl, StridedRowsPerWorkItem) {
    for (int rows : {1, 3, 16, 64})
        for (Topology topo : {Topology::torus, Topology::plane})
            for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 1}, {300, 200}, {263, 141}})
                expect_same("sycl:halo-tile-strided", w, h, topo, "B36/S23", {1, 6}, with(0, 0, {{"rows", std::to_string(rows)}}),
                            static_cast<std::uint64_t>(rows));
    auto e = create_engine("sycl:halo-tile-strided", BoardSpec{8, 8, Topology::torus, Rule::life()}, with(0, 0, {{"rows", "3"}}));
    EXPECT_EQ(e->describe().cells_per_item, 12);
}

TEST_F(Sycl, LongerRunsStayExact) {
    for (const char* engine : kEngines) {
        expect_same(engine, 257, 129, Topology::torus, "B3/S23", {100, 200});
        expect_same(engine, 129, 257, Topology::plane, "B36/S23", {300});
    }
    // The tutorial's setup: a 160x160 board, its 16x16 work-group, 500 generations.
    expect_same("sycl:hierarchical", 160, 160, Topology::torus, "B3/S23", {500}, with(16, 16));
}

TEST_F(Sycl, UnboundedEqualsReference) {
    for (const char* engine : kEngines)
        for (const char* rule : {"B3/S23", "B36/S23", "B2/S"}) {
            SCOPED_TRACE(std::string(engine) + " " + rule);
            const BoardSpec spec{16, 16, Topology::unbounded, parse_rule(rule).rule};
            auto ref = create_engine("cpu:reference", spec);
            auto dev = create_engine(engine, spec);
            const auto soup = random_cells(20, 20, 42, 0.35);
            ref->write_region(Box{-5, 3, 20, 20}, soup.data());
            dev->write_region(Box{-5, 3, 20, 20}, soup.data());
            // A glider heading away keeps the board growing (and the engine being re-created).
            const std::vector<Cell> glider = {{41, 40}, {42, 41}, {40, 42}, {41, 42}, {42, 42}};
            ref->set_cells(glider);
            dev->set_cells(glider);
            for (std::int64_t n : {1, 10, 50, 139}) {
                ref->step(n);
                dev->step(n);
                ASSERT_EQ(dev->live_cells(), ref->live_cells()) << "generation " << ref->generation();
                ASSERT_EQ(dev->population(), ref->population());
            }
        }
}

TEST_F(Sycl, ThreePopulationPathsAgree) {
    for (const char* engine : kEngines)
        for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                 {1, 1}, {1, 1000}, {1000, 1}, {17, 5}, {64, 32}, {2048, 1}, {2049, 3}, {1031, 517}, {4099, 1100}})
            for (double density : {0.0, 0.3, 1.0}) {
                SCOPED_TRACE(std::string(engine) + " " + std::to_string(w) + "x" + std::to_string(h) + " density " +
                             std::to_string(density));
                const auto cells = random_cells(w, h, 9, density);
                for (const char* path : kPaths) {
                    auto e = create_engine(engine, BoardSpec{w, h, Topology::torus, Rule::life()}, with(0, 0, {{"reduction", path}}));
                    e->write_region(Box{0, 0, w, h}, cells.data());
                    EXPECT_EQ(e->population(), count(cells)) << path;
                    const auto& props = e->describe().properties;
                    const auto it = std::find_if(props.begin(), props.end(), [](const auto& p) { return p.first == "reduction"; });
                    ASSERT_NE(it, props.end());
                    EXPECT_EQ(std::get<std::string>(it->second), path);
                }
            }
    // The default is one of the three.
    auto e = create_engine("sycl:bitpacked", BoardSpec{5, 5, Topology::torus, Rule::life()});
    const auto& props = e->describe().properties;
    const auto it = std::find_if(props.begin(), props.end(), [](const auto& p) { return p.first == "reduction"; });
    ASSERT_NE(it, props.end());
    const std::string used = std::get<std::string>(it->second);
    EXPECT_TRUE(used == "sycl-reduction" || used == "reduce-over-group" || used == "tree") << used;
}

TEST_F(Sycl, RegionsAreTransferredExactly) {
    for (const char* engine : kEngines) {
        SCOPED_TRACE(engine);
        auto e = create_engine(engine, BoardSpec{77, 23, Topology::plane, Rule::life()});
        // Boxes at bit offsets that share words with cells outside them (bitpacked read-modify-write).
        std::vector<std::uint8_t> whole = random_cells(77, 23, 4);
        e->write_region(Box{0, 0, 77, 23}, whole.data());
        for (Box b : {Box{25, 15, 11, 7}, Box{31, 0, 2, 23}, Box{0, 5, 77, 1}, Box{40, 2, 37, 9}, Box{76, 22, 1, 1}}) {
            const auto cells = random_cells(b.width, b.height, static_cast<std::uint64_t>(b.x * 31 + b.y));
            std::vector<std::uint8_t> big(cells);
            for (auto& c : big) c = c ? 200 : 0;  // any non-zero byte means alive
            e->write_region(b, big.data());
            for (std::int64_t y = 0; y < b.height; ++y)
                for (std::int64_t x = 0; x < b.width; ++x)
                    whole[static_cast<std::size_t>((b.y + y) * 77 + b.x + x)] = cells[static_cast<std::size_t>(y * b.width + x)];
            std::vector<std::uint8_t> back(cells.size());
            e->read_region(b, back.data());
            EXPECT_EQ(back, cells);
            EXPECT_EQ(board_of(*e), whole) << "cells outside the box changed";
            EXPECT_EQ(e->population(), count(whole));
        }
        std::vector<std::uint8_t> back(8);
        EXPECT_THROW(e->read_region(Box{70, 20, 8, 1}, back.data()), std::out_of_range);
        EXPECT_THROW(e->write_region(Box{-1, 0, 1, 1}, back.data()), std::out_of_range);
    }
}

// Rows [y, y + rows) of a byte board as the packed layout (Engine::read_rows_packed): ceil(w / 64)
// words per row, cell x at bit x % 64 of word x / 64, bits past the width 0.
std::vector<std::uint64_t> packed_rows(const std::vector<std::uint8_t>& cells, std::int64_t w, std::int64_t y,
                                       std::int64_t rows) {
    const std::int64_t nw = (w + 63) / 64;
    std::vector<std::uint64_t> out(static_cast<std::size_t>(rows * nw), 0);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t x = 0; x < w; ++x)
            if (cells[static_cast<std::size_t>((y + r) * w + x)])
                out[static_cast<std::size_t>(r * nw + x / 64)] |= std::uint64_t{1} << (x % 64);
    return out;
}

// Random packed rows with the bits past the width 0.
std::vector<std::uint64_t> random_rows(std::int64_t w, std::int64_t rows, std::mt19937_64& rng) {
    const std::int64_t nw = (w + 63) / 64;
    std::vector<std::uint64_t> out(static_cast<std::size_t>(rows * nw));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t i = 0; i < nw; ++i)
            out[static_cast<std::size_t>(r * nw + i)] = rng() & (i == nw - 1 && w % 64 ? (std::uint64_t{1} << (w % 64)) - 1 : ~0ull);
    return out;
}

std::int64_t packed_copies(const Engine& e) {
    for (const auto& [k, v] : e.describe().properties)
        if (k == "packed row copies") return std::get<std::int64_t>(v);
    return -1;
}

const std::int64_t kRowWidths[] = {1, 31, 33, 63, 64, 65, 100, 1000};

// sycl:bitpacked moves packed rows as they are on the device (its rows padded to whole 64-bit words):
// what read_rows_packed reads is the board's rows (top, bottom, middle, one row, all), what
// write_rows_packed writes lands exactly (also once the caller has reused its memory, the write
// being in flight) and the next launches compute from it, on widths around 32 and 64 bits.
TEST_F(Sycl, BitpackedPackedRowsAreTheBoardsRows) {
    for (std::int64_t w : kRowWidths)
        for (Topology t : {Topology::torus, Topology::plane}) {
            SCOPED_TRACE("width " + std::to_string(w) + " " + std::string(to_string(t)));
            const std::int64_t h = 37, nw = (w + 63) / 64;
            const BoardSpec spec{w, h, t, Rule::life()};
            auto e = create_engine("sycl:bitpacked", spec);
            auto ref = create_engine("cpu:reference", spec);
            const auto cells = random_cells(w, h, static_cast<std::uint64_t>(w) * 3 + 1);
            e->write_region(Box{0, 0, w, h}, cells.data());
            ref->write_region(Box{0, 0, w, h}, cells.data());
            e->step(5);  // rows the kernel wrote
            ref->step(5);
            const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {{0, 1}, {0, 5}, {h - 5, 5}, {h - 1, 1}, {17, 3}, {0, h}};
            const std::int64_t copies = packed_copies(*e);
            EXPECT_GE(copies, 0);
            for (auto [y, rows] : ranges) {
                std::vector<std::uint64_t> got(static_cast<std::size_t>(rows * nw), ~0ull);
                e->read_rows_packed(y, rows, got.data());
                EXPECT_EQ(got, packed_rows(board_of(*ref), w, y, rows)) << "rows " << y << "+" << rows;
            }
            EXPECT_EQ(packed_copies(*e), copies + static_cast<std::int64_t>(ranges.size()));
            std::mt19937_64 rng(static_cast<std::uint64_t>(w));
            for (auto [y, rows] : ranges) {
                auto mine = random_rows(w, rows, rng);
                ref->write_rows_packed(y, rows, mine.data());
                e->write_rows_packed(y, rows, mine.data());
                std::fill(mine.begin(), mine.end(), ~0ull);  // the caller's memory is its own again
                ASSERT_EQ(board_of(*e), board_of(*ref)) << "after writing rows " << y << "+" << rows;
                e->step(3);
                ref->step(3);
                ASSERT_EQ(board_of(*e), board_of(*ref)) << "3 generations after writing rows " << y << "+" << rows;
            }
            EXPECT_EQ(e->population(), count(board_of(*ref)));
        }
}

// Packed rows over the staging's 16 MiB (a whole board loaded or saved) are copied straight to and
// from the caller's memory: written and read back whole, in ranges through the staging, as bytes,
// and by step_reading_rows (which then steps and reads as the Engine default does).
TEST_F(Sycl, BitpackedLargeRowTransfers) {
    const std::int64_t w = 4100, h = 40000, nw = (w + 63) / 64;  // 129 32-bit words a row: padded
    auto e = create_engine("sycl:bitpacked", BoardSpec{w, h, Topology::plane, parse_rule("B/S012345678").rule});
    std::mt19937_64 rng(3);
    auto rows = random_rows(w, h, rng);
    e->write_rows_packed(0, h, rows.data());
    std::vector<std::uint64_t> back(rows.size(), ~0ull);
    e->read_rows_packed(0, h, back.data());
    EXPECT_TRUE(back == rows);
    // Rows [y0, h), over 16 MiB, written and read from a row inside the board.
    const std::int64_t y0 = 5000;
    const auto tail = random_rows(w, h - y0, rng);
    ASSERT_GT(tail.size() * 8, std::size_t{16} << 20);
    e->write_rows_packed(y0, h - y0, tail.data());
    std::copy(tail.begin(), tail.end(), rows.begin() + y0 * nw);
    std::vector<std::uint64_t> tail_back(tail.size(), ~0ull);
    e->read_rows_packed(y0, h - y0, tail_back.data());
    EXPECT_TRUE(tail_back == tail);
    e->read_rows_packed(0, h, back.data());
    EXPECT_TRUE(back == rows);
    for (std::int64_t y : {std::int64_t{0}, y0 - 2, h / 2, h - 3}) {
        std::vector<std::uint64_t> part(static_cast<std::size_t>(3 * nw));
        e->read_rows_packed(y, 3, part.data());
        EXPECT_TRUE(std::equal(part.begin(), part.end(), rows.begin() + y * nw)) << "rows " << y << "+3";
        std::vector<std::uint8_t> cells(static_cast<std::size_t>(3 * w));
        e->read_region(Box{0, y, w, 3}, cells.data());
        std::vector<std::uint8_t> want(cells.size());
        for (std::int64_t r = 0; r < 3; ++r)
            for (std::int64_t x = 0; x < w; ++x)
                want[static_cast<std::size_t>(r * w + x)] = (rows[static_cast<std::size_t>((y + r) * nw + x / 64)] >> (x % 64)) & 1;
        EXPECT_EQ(cells, want) << "rows " << y << "+3 as bytes";
    }
    // B/S012345678: nothing is born, every live cell stays, so the board after a step is the board.
    std::vector<std::uint64_t> buf(rows.size(), ~0ull);
    std::vector<std::uint64_t> got;
    e->step_reading_rows(2, {{0, h, buf.data()}}, [&](const std::vector<const std::uint64_t*>& where) {
        ASSERT_EQ(where.size(), 1u);
        got.assign(where[0], where[0] + h * nw);
    });
    EXPECT_TRUE(got == rows);
    EXPECT_EQ(e->generation(), 2);
}

// The common rules run compiled into sycl:bitpacked's kernel (as OpenCL compiles every rule in),
// others from run-time masks; every one is exact (EveryEngineRuleTopologyAndSizeEqualsReference).
TEST_F(Sycl, BitpackedCompilesTheCommonRulesIn) {
    const std::pair<const char*, const char*> expected[] = {{"B3/S23", "B3/S23 matcher"},
                                                            {"B36/S23", "compiled in"},
                                                            {"B3678/S34678", "compiled in"},
                                                            {"B2/S", "run-time masks"},
                                                            {"B36/S235", "run-time masks"}};
    for (const auto& [rule, how] : expected) {
        auto e = create_engine("sycl:bitpacked", BoardSpec{64, 64, Topology::torus, parse_rule(rule).rule});
        std::string got;
        for (const auto& [k, v] : e->describe().properties)
            if (k == "rule") got = std::get<std::string>(v);
        EXPECT_EQ(got, how) << rule;
    }
}

// Refused as the user's input, in the library's words: no CLI flag in the message (the CLI adds
// its flag hints itself).
template <class F>
void expect_refused(F&& make, const std::string& what) {
    try {
        (void)make();
        ADD_FAILURE() << what << " was accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
    }
}

TEST_F(Sycl, DeviceWorkGroupAndParameterErrors) {
    const BoardSpec spec{8, 8, Topology::torus, Rule::life()};
    EngineOptions o;
    o.device = "0";
    EXPECT_NO_THROW(create_engine("sycl:halo-tile", spec, o));
    o.device = "0:0";
    EXPECT_NO_THROW(create_engine("sycl:halo-tile", spec, o));
    for (const char* bad : {"99", "7:0", "a:b", "x", "-1"}) {
        o.device = bad;
        expect_refused([&] { return create_engine("sycl:halo-tile", spec, o); }, bad);
    }
    for (const char* engine : kEngines) expect_refused([&] { return create_engine(engine, spec, with(4096, 4096)); }, engine);
    const std::pair<const char*, EngineOptions> refused[] = {
        {"sycl:halo-tile", with(2, 2)},
        {"sycl:hierarchical", with(12, 12)},  // not a built shape
        {"sycl:halo-tile-strided", with(8, 0)},
        {"sycl:bitpacked", with(2, 4)},
        {"sycl:bitpacked", with(0, 0, {}, 33)},
        {"sycl:bitpacked", with(32, 1, {{"rows", "8"}}, 12)},  // 8 rows < 25
        {"sycl:halo-tile", with(0, 0, {{"reduction", "fast"}})},
        {"sycl:halo-tile", with(0, 0, {{"rows", "4"}})},  // not its parameter
        {"sycl:halo-tile-strided", with(0, 0, {{"rows", "0"}})},
        {"sycl:bitpacked", with(0, 0, {{"rows", "5"}})},
        {"sycl:bitpacked", with(0, 0, {{"neighbours", "registers"}})},
    };
    for (std::size_t i = 0; i < std::size(refused); ++i)
        expect_refused([&] { return create_engine(refused[i].first, spec, refused[i].second); },
                       std::string(refused[i].first) + " case " + std::to_string(i));
}

// The default SYCL device's sub-group sizes, as `tilelife devices` lists them.
std::string default_sub_group_sizes() {
    for (const BackendInfo& b : registered_backends()) {
        if (b.name != "sycl") continue;
        for (const DeviceInfo& d : b.devices()) {
            bool chosen = false;
            std::string sizes;
            for (const auto& [key, value] : d.properties) {
                if (key == "default") chosen = std::get<bool>(value);
                if (key == "sub-group sizes") sizes = std::get<std::string>(value);
            }
            if (chosen) return sizes;
        }
    }
    ADD_FAILURE() << "no default sycl device listed";
    return {};
}

TEST_F(Sycl, SubGroupNeighboursExactlyWhereSubGroupsAreOneRowOfWords) {
    // The sub-group path needs sub-groups of exactly one local row of 32 words (NVIDIA: warps). On such
    // a device it is the default and is checked like the rest; on any other it is refused.
    const BoardSpec spec{64, 64, Topology::torus, Rule::life()};
    auto e = create_engine("sycl:bitpacked", spec);
    const auto& props = e->describe().properties;
    const auto it = std::find_if(props.begin(), props.end(), [](const auto& p) { return p.first == "neighbours"; });
    ASSERT_NE(it, props.end());
    if (default_sub_group_sizes() != "32") {
        EXPECT_EQ(std::get<std::string>(it->second), "local-memory");
        EXPECT_THROW(create_engine("sycl:bitpacked", spec, with(32, 8, {{"neighbours", "sub-group"}, {"rows", "32"}})),
                     InputError);
        return;
    }
    EXPECT_EQ(std::get<std::string>(it->second), "sub-group");
    EXPECT_THROW(create_engine("sycl:bitpacked", spec, with(16, 16, {{"neighbours", "sub-group"}, {"rows", "32"}})),
                 InputError);  // 16 words per row: a sub-group would span two strips
    for (const char* rows : {"16", "32"})
        for (int k : {1, 5, 12})
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 7}, {1000, 300}, {3000, 777}}) {
                    const EngineOptions sg = with(32, std::string(rows) == "16" ? 16 : 8,
                                                  {{"neighbours", "sub-group"}, {"rows", rows}}, k);
                    expect_same("sycl:bitpacked", w, h, t, k == 5 ? "B36/S23" : "B3/S23", {1, k, 3 * k + 2, 100}, sg);
                    EngineOptions local = sg;
                    local.params["neighbours"] = "local-memory";
                    expect_same("sycl:bitpacked", w, h, t, "B3/S23", {k, 50}, local);
                }
}

TEST_F(Sycl, DescribeAndDeviceTiming) {
    for (const char* engine : kEngines) {
        SCOPED_TRACE(engine);
        auto e = create_engine(engine, BoardSpec{50, 40, Topology::torus, Rule::life()});
        const EngineDescription d = e->describe();
        EXPECT_EQ(d.name, engine);
        EXPECT_EQ(d.backend, "sycl");
        EXPECT_FALSE(d.device.empty());
        EXPECT_GT(d.wg_width, 0);
        EXPECT_GT(d.wg_height, 0);
        ASSERT_TRUE(d.tiles.has_value());
        EXPECT_GT(d.tiles->width, 0);
        EXPECT_GT(d.tiles->halo_x, 0);
        EXPECT_GT(d.device_bytes, 0);
        ASSERT_FALSE(d.autotune.empty());
        // The first and last candidates are complete options the engine accepts.
        for (const EngineOptions* o : {&d.autotune.front(), &d.autotune.back()}) {
            auto t = create_engine(engine, BoardSpec{100, 90, Topology::torus, Rule::life()}, *o);
            EXPECT_EQ(t->describe().wg_width, o->wg_width);
        }
        const auto timing = e->step_timed(3);
        ASSERT_TRUE(timing.has_value());
        EXPECT_GT(timing->kernel_seconds, 0.0);
        EXPECT_GE(timing->span_seconds, timing->kernel_seconds * 0.999);
        EXPECT_EQ(e->generation(), 3);
    }
    // A chosen shape is reported as chosen.
    auto s = create_engine("sycl:halo-tile", BoardSpec{50, 50, Topology::torus, Rule::life()}, with(10, 6));
    EXPECT_EQ(s->describe().wg_width, 10);
    EXPECT_EQ(s->describe().tiles->width, 8);
    EXPECT_EQ(s->describe().tiles->height, 4);
    auto b = create_engine("sycl:bitpacked", BoardSpec{500, 500, Topology::torus, Rule::life()},
                           with(16, 4, {{"rows", "8"}}, 3));
    EXPECT_EQ(b->describe().steps_per_launch, 3);
    EXPECT_EQ(b->describe().tiles->width, 32 * 14);
    EXPECT_EQ(b->describe().tiles->height, 4 * 8 - 2 * 3);
}

TEST_F(Sycl, InterruptStopsALongStep) {
    std::atomic<bool> stop{true};
    EngineOptions o;
    o.interrupt = &stop;
    auto e = create_engine("sycl:halo-tile", BoardSpec{40, 40, Topology::torus, Rule::life()}, o);
    e->step(2000);
    EXPECT_GE(e->generation(), 1);
    EXPECT_LT(e->generation(), 2000);
}

// Runs the built tilelife binary; returns (exit code, stdout and stderr).
std::pair<int, std::string> cli(const std::string& args) {
    const std::string command = std::string(TILELIFE_CLI) + " " + args + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    if (!p) return {-1, ""};
    std::string out;
    char buf[4096];
    while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    const int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::vector<std::string> all_matches(const std::string& text, const std::string& pattern) {
    std::vector<std::string> out;
    const std::regex re(pattern);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

TEST_F(Sycl, CliEnginesDevicesAndBench) {
    auto [rc, out] = cli("engines");
    EXPECT_EQ(rc, 0) << out;
    for (const char* engine : kEngines) EXPECT_NE(out.find(engine), std::string::npos) << out;

    std::tie(rc, out) = cli("devices");  // every backend's devices, the SYCL ones in their own section
    EXPECT_EQ(rc, 0) << out;
    const auto section = out.find("backend sycl:");
    ASSERT_NE(section, std::string::npos) << out;
    EXPECT_NE(out.find("[default]", section), std::string::npos) << out;

    // The four engines on one random board agree with each other and with cpu:reference, timed by the
    // device's clock.
    std::tie(rc, out) = cli("bench --backend sycl --kernel hierarchical,halo-tile,halo-tile-strided,bitpacked "
                            "--size 67x45 --gens 7 --json");
    ASSERT_EQ(rc, 0) << out;
    const auto pops = all_matches(out, "\"population\":([0-9]+)");
    ASSERT_EQ(pops.size(), 4u) << out;
    EXPECT_EQ(all_matches(out, "\"timing\":\"(device clock)\"").size(), 4u) << out;
    auto [rc_cpu, out_cpu] = cli("bench --backend cpu --kernel reference --size 67x45 --gens 7 --json");
    ASSERT_EQ(rc_cpu, 0) << out_cpu;
    const auto want = all_matches(out_cpu, "\"population\":([0-9]+)");
    ASSERT_EQ(want.size(), 1u) << out_cpu;
    for (const auto& p : pops) EXPECT_EQ(p, want[0]) << out;

    std::tie(rc, out) = cli("bench --backend sycl --kernel halo-tile --wg 2x2 --size 16x16 --gens 1");
    EXPECT_EQ(rc, 2) << out;  // an impossible work-group is the user's input error
    EXPECT_NE(out.find("(--wg)"), std::string::npos) << out;  // the CLI names its flag
    std::tie(rc, out) = cli("bench --backend sycl --kernel halo-tile --device 99 --size 16x16 --gens 1");
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("(--device)"), std::string::npos) << out;
    std::tie(rc, out) = cli("bench --backend sycl --kernel bitpacked --steps-per-launch 99 --size 64x64 --gens 1");
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("(--steps-per-launch)"), std::string::npos) << out;
}

}  // namespace
}  // namespace tilelife
