// Differential tests against bgolly: the cases in tests/golly/cases.txt on every engine, plus
// checks that Golly's and tilelife's coordinates agree (macrocell reading, RLE placement) and that
// Golly's QuickLife agrees with HashLife on a bounded grid (so HashLife's grid is a fair oracle).
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "golly/golly_harness.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::translated;

struct DiffCase {
    int line = 0;
    std::string input, rule, topology, size;
    std::vector<std::int64_t> gens;
    std::string label;
};

std::vector<DiffCase> load_cases() {
    std::vector<DiffCase> out;
    std::istringstream in(test::read_text(test::source_dir() + "/tests/golly/cases.txt"));
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream f(line);
        DiffCase c;
        c.line = n;
        std::string gens;
        if (!(f >> c.input >> c.rule >> c.topology >> c.size >> gens)) continue;  // blank-ish line
        std::istringstream g(gens);
        std::string tok;
        while (std::getline(g, tok, ',')) c.gens.push_back(std::stoll(tok));
        std::string base = c.input.substr(c.input.find_last_of('/') + 1);
        c.label = "L" + std::to_string(n) + "_" + test::param_name(base) + "_" + c.topology;
        out.push_back(c);
    }
    return out;
}

std::pair<std::int64_t, std::int64_t> parse_wh(const std::string& s) {
    const auto x = s.find('x');
    return {std::stoll(s.substr(0, x)), std::stoll(s.substr(x + 1))};
}

void PrintTo(const DiffCase& c, std::ostream* os) {
    *os << "cases.txt:" << c.line << " " << c.input << " " << c.rule << " " << c.topology << " " << c.size;
}

class GollyDiff : public ::testing::TestWithParam<DiffCase> {};

TEST_P(GollyDiff, EveryEngineMatchesBgolly) {
    const DiffCase& c = GetParam();
    if (test::bgolly_path().empty()) GTEST_SKIP() << "bgolly not found: install golly to run the differential tests";
    SCOPED_TRACE("tests/golly/cases.txt:" + std::to_string(c.line));
    const Topology topo = *parse_topology(c.topology);
    std::int64_t W = 0, H = 0;
    if (topo != Topology::unbounded) std::tie(W, H) = parse_wh(c.size);
    const std::string suffix =
        topo == Topology::unbounded ? "" : (topo == Topology::torus ? ":T" : ":P") + std::to_string(W) + "," + std::to_string(H);

    // The one input file both sides read.
    test::TempDir dir;
    std::string text;
    if (c.input.rfind("soup:", 0) == 0) {
        // soup:WxH:DENSITY:SEED
        std::istringstream s(c.input.substr(5));
        std::string wh, dens, seed;
        std::getline(s, wh, ':');
        std::getline(s, dens, ':');
        std::getline(s, seed, ':');
        const auto [sw, sh] = parse_wh(wh);
        const Cells cells = test::soup(sw, sh, std::stod(dens), std::stoull(seed));
        if (topo == Topology::unbounded) text = golly::encode_rle(cells, sw, sh, c.rule, Cell{-sw / 2, -sh / 2});
        else text = golly::encode_rle(cells, sw, sh, c.rule + suffix);
    } else {
        const std::string original = test::read_text(test::source_dir() + "/" + c.input);
        ASSERT_FALSE(original.empty()) << c.input;
        std::string rule = c.rule;
        if (rule == "-") {
            const Pattern p = read_pattern(test::source_dir() + "/" + c.input);
            rule = p.rule ? *p.rule : "B3/S23";
        }
        if (topo == Topology::unbounded) text = golly::rewrite_rle(original, rule, Cell{0, 0});
        else text = golly::rewrite_rle(original, rule + suffix, std::nullopt);
    }
    const std::string input = dir / "input.rle";
    test::write_text(input, text);

    std::vector<std::int64_t> gens = {0};
    gens.insert(gens.end(), c.gens.begin(), c.gens.end());
    // Golly runs in the background while tilelife computes.
    auto golly_future = std::async(std::launch::async, [&] {
        std::vector<golly::GollyResult> r;
        for (std::int64_t g : gens) r.push_back(golly::run_bgolly(input, g, dir.path(), std::to_string(g)));
        return r;
    });

    Pattern p;
    try {
        p = read_pattern(input);
    } catch (const std::exception& e) {
        golly_future.wait();
        FAIL() << "tilelife cannot read the input: " << e.what() << "\n" << text;
    }
    ASSERT_TRUE(p.rule.has_value()) << text;
    const RuleSpec spec = parse_rule(*p.rule);
    if (topo == Topology::unbounded) {
        EXPECT_FALSE(spec.grid.has_value());
    } else {
        ASSERT_TRUE(spec.grid.has_value()) << *p.rule;
        EXPECT_EQ(spec.grid->topology, topo);
        EXPECT_EQ(spec.grid->width, W);
        EXPECT_EQ(spec.grid->height, H);
    }

    struct EngineResult {
        std::string engine, skipped;
        std::vector<Cells> cells;
    };
    std::vector<EngineResult> results;
    std::int64_t max_gen = gens.back();
    for (const std::string& name : test::engine_names()) {
        EngineResult r{name, {}, {}};
        if (test::is_opencl(name) && (W * H > 256 * 256 || (topo == Topology::unbounded && max_gen > 600))) {
            r.skipped = "too large for an OpenCL check";
        } else {
            r.cells = golly::run_tilelife(name, p, spec.rule, topo, W, H, gens, &r.skipped);
        }
        results.push_back(std::move(r));
    }

    const std::vector<golly::GollyResult> golly = golly_future.get();
    for (std::size_t i = 0; i < gens.size(); ++i) {
        ASSERT_TRUE(golly[i].ok) << "generation " << gens[i] << ": " << golly[i].error;
        if (gens[i] > 0 && !golly[i].cells.empty()) EXPECT_EQ(golly[i].generation, gens[i]);
        const Cells want = topo == Topology::unbounded ? golly[i].cells : translated(golly[i].cells, W / 2, H / 2);
        for (const EngineResult& r : results) {
            if (r.cells.empty()) continue;  // skipped (no device / too large)
            const std::string d = test::diff(want, r.cells[i]);
            EXPECT_TRUE(d.empty()) << r.engine << ", " << c.input << " " << c.rule << " " << c.topology << " " << c.size
                                   << ", generation " << gens[i] << ": " << d;
        }
    }
    for (const EngineResult& r : results)
        if (!r.skipped.empty()) std::printf("  [%s skipped: %s]\n", r.engine.c_str(), r.skipped.c_str());
}

INSTANTIATE_TEST_SUITE_P(Cases, GollyDiff, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<DiffCase>& info) { return info.param.label; });

// ---------------------------------------------------------------------------------------------
// Coordinates: tilelife's readers and writer agree with Golly's absolute positions.

class GollyCoordinates : public ::testing::Test {
protected:
    void SetUp() override {
        register_builtin_engines();
        if (test::bgolly_path().empty()) GTEST_SKIP() << "bgolly not found";
    }
    test::TempDir dir;
};

TEST_F(GollyCoordinates, MacrocellReaderGivesGollysAbsoluteCoordinates) {
    // Life 1.06 gives absolute coordinates in Golly; bgolly writes them back as macrocell.
    const Cells cells = {{-3, -9}, {0, 0}, {1, 0}, {2, 0}, {5, 7}, {-40, 33}, {100, -1}, {-1, -100}};
    std::string text = "#Life 1.06\n";
    for (const Cell& c : cells) text += std::to_string(c.x) + " " + std::to_string(c.y) + "\n";
    const std::string input = dir / "cells.lif";
    test::write_text(input, text);
    const golly::GollyResult g = golly::run_bgolly(input, 0, dir.path(), "lif");
    ASSERT_TRUE(g.ok) << g.error;
    EXPECT_CELLS(cells, g.cells);
    // And tilelife reads the Life 1.06 file at the same coordinates.
    EXPECT_CELLS(cells, read_pattern(input).cells);
}

TEST_F(GollyCoordinates, RleWithPosIsPlacedWhereGollyPlacesIt) {
    const Cells shape = test::picture({".OO.O", "O...O", "..OO."});
    for (const Cell pos : {Cell{0, 0}, Cell{-7, 3}, Cell{12, -25}}) {
        const std::string input = dir / "pos.rle";
        test::write_text(input, golly::encode_rle(shape, 5, 3, "B3/S23", pos));
        const golly::GollyResult g = golly::run_bgolly(input, 0, dir.path(), "pos");
        ASSERT_TRUE(g.ok) << g.error;
        EXPECT_CELLS(translated(shape, pos.x, pos.y), g.cells);
        EXPECT_CELLS(translated(shape, pos.x, pos.y), read_pattern(input).cells);
    }
}

TEST_F(GollyCoordinates, FormatRleIsReadByGollyAtTheSameCells) {
    const Cells cells = test::soup(23, 11, 0.4, 77, -13, 5);
    const std::string input = dir / "formatted.rle";
    test::write_text(input, format_rle(cells, "B3/S23", 0));
    const golly::GollyResult g = golly::run_bgolly(input, 0, dir.path(), "fmt");
    ASSERT_TRUE(g.ok) << g.error;
    EXPECT_CELLS(test::sorted(cells), g.cells);
    // Golly runs it the same as tilelife would.
    const golly::GollyResult g50 = golly::run_bgolly(input, 50, dir.path(), "fmt50");
    ASSERT_TRUE(g50.ok) << g50.error;
    auto e = create_engine("cpu:reference", test::spec_of(0, 0, Topology::unbounded));
    EXPECT_CELLS(g50.cells, test::run_cells(*e, cells, 50));
}

TEST_F(GollyCoordinates, BoundedGridPlacementMatchesGolly) {
    // An RLE smaller than the grid: Golly centres it at (-w/2, -h/2) on a grid whose top-left is
    // (-W/2, -H/2); tilelife at (W/2 - w/2, H/2 - h/2). Odd and even sizes.
    const Cells shape = test::picture({"O..O", ".OO.", "O...", "...O", ".O.."});
    for (const auto& [W, H] : std::vector<std::pair<int, int>>{{9, 9}, {10, 10}, {11, 8}, {37, 23}, {5, 5}, {4, 6}}) {
        const std::string rule = "B3/S23:T" + std::to_string(W) + "," + std::to_string(H);
        const std::string input = dir / "grid.rle";
        test::write_text(input, golly::encode_rle(shape, 4, 5, rule));
        const golly::GollyResult g = golly::run_bgolly(input, 0, dir.path(), "grid");
        ASSERT_TRUE(g.ok) << g.error;
        const Pattern p = read_pattern(input);
        EXPECT_CELLS(translated(g.cells, W / 2, H / 2), golly::place_bounded(p, W, H)) << W << "x" << H;
        EXPECT_CELLS(translated(shape, W / 2 - 2, H / 2 - 2), translated(g.cells, W / 2, H / 2)) << W << "x" << H;
    }
}

TEST_F(GollyCoordinates, PositionedRleOnABoundedGridKeepsItsCoordinates) {
    // "#CXRLE Pos" on a bounded grid: Golly puts the cells at their absolute coordinates.
    const Cells shape = test::picture({"OOO", "..O"});
    for (const Cell pos : {Cell{-2, 1}, Cell{0, 0}, Cell{-4, -3}}) {
        const std::string input = dir / "gridpos.rle";
        test::write_text(input, golly::encode_rle(shape, 3, 2, "B3/S23:P9,7", pos));
        const golly::GollyResult g = golly::run_bgolly(input, 0, dir.path(), "gridpos");
        ASSERT_TRUE(g.ok) << g.error;
        EXPECT_CELLS(translated(shape, pos.x, pos.y), g.cells);
        const Pattern p = read_pattern(input);
        EXPECT_TRUE(p.positioned);
        EXPECT_CELLS(translated(g.cells, 9 / 2, 7 / 2), golly::place_bounded(p, 9, 7));
    }
}

// Golly's QuickLife (RLE output, shape only) agrees with HashLife and tilelife on a bounded grid.
TEST_F(GollyCoordinates, QuickLifeAgreesWithHashLifeOnBoundedGrids) {
    for (const std::string topo : {"T", "P"}) {
        const Cells start = test::soup(37, 23, 0.4, 4242);
        const std::string rule = "B3/S23:" + topo + "37,23";
        const std::string input = dir / "ql.rle";
        test::write_text(input, golly::encode_rle(start, 37, 23, rule));
        const golly::GollyResult hl = golly::run_bgolly(input, 250, dir.path(), "hl");
        const golly::GollyResult ql = golly::run_bgolly(input, 250, dir.path(), "ql", "QuickLife");
        ASSERT_TRUE(hl.ok) << hl.error;
        ASSERT_TRUE(ql.ok) << ql.error;
        ASSERT_FALSE(hl.cells.empty());
        EXPECT_CELLS(test::normalised(hl.cells), test::normalised(ql.cells)) << topo;
        auto e = create_engine("cpu:reference", test::spec_of(37, 23, topo == "T" ? Topology::torus : Topology::plane));
        const Cells mine = test::run_cells(*e, start, 250);
        EXPECT_CELLS(test::normalised(ql.cells), test::normalised(mine)) << topo;
        EXPECT_CELLS(translated(hl.cells, 37 / 2, 23 / 2), mine) << topo;
    }
}

}  // namespace
}  // namespace tilelife
