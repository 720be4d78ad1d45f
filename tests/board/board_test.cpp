// The board layer (tilelife/board.hpp): one front door from a pattern source to an engine holding
// it, and back to a file. Every entry point goes through it, so these tests pin down what they share:
// sources (file, text, pattern, random:), placement, engine choice, trees handed to tree engines, the
// budget, saving in every pattern format; and the engine capabilities it relies on
// (bounding_box, load_quadtree, wants_whole_runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "support/test_support.hpp"
#include "tilelife/board.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

using test::Cells;

constexpr const char* kGlider = "x = 3, y = 3, rule = B3/S23\nbob$2bo$3o!\n";

std::string pattern_path(const std::string& name) { return test::source_dir() + "/patterns/" + name; }

BoardRequest request_for(PatternSource source, std::string engine = "") {
    BoardRequest r;
    r.source = std::move(source);
    r.engine = std::move(engine);
    return r;
}

TEST(BoardLayer, TextFileAndPatternGiveTheSameBoard) {
    register_builtin_engines();
    const std::string path = pattern_path("gosper-glider-gun.rle");
    const LoadedBoard from_file = load_board(request_for(PatternSource{path, std::nullopt, std::nullopt}));
    const LoadedBoard from_text =
        load_board(request_for(PatternSource{"<string>", test::read_text(path), std::nullopt}));
    const LoadedBoard from_pattern =
        load_board(request_for(PatternSource{"<pattern>", std::nullopt, read_pattern(path)}));
    EXPECT_EQ(from_file.population, 36);
    EXPECT_CELLS(from_file.engine->live_cells(), from_text.engine->live_cells());
    EXPECT_CELLS(from_file.engine->live_cells(), from_pattern.engine->live_cells());
    EXPECT_EQ(from_file.engine->name(), "cpu:auto");  // the unbounded plane's default
    EXPECT_EQ(from_file.meta.name, from_text.meta.name);
    EXPECT_EQ(from_file.meta.rule, "B3/S23");
}

TEST(BoardLayer, EngineChoices) {
    register_builtin_engines();
    EXPECT_EQ(resolve_engine("", Topology::unbounded), "cpu:auto");
    EXPECT_EQ(resolve_engine("auto", Topology::torus), default_engine("cpu", Topology::torus));
    EXPECT_EQ(resolve_engine("cpu", Topology::torus), default_engine("cpu", Topology::torus));
    EXPECT_EQ(resolve_engine("cpu:reference", Topology::torus), "cpu:reference");
    EXPECT_THROW(resolve_engine("nosuch", Topology::torus), InputError);
    EXPECT_THROW(resolve_engine("cpu:nosuch", Topology::torus), InputError);
    // Refused before the file is read: a missing file would be the other error.
    try {
        open_board(request_for(PatternSource{"/nonexistent.rle", std::nullopt, std::nullopt}, "cpu:nosuch"));
        FAIL() << "accepted an unknown engine";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cpu:nosuch"), std::string::npos) << e.what();
    }
}

TEST(BoardLayer, BoundedBoardsAreStreamedAndPlacedAsGolly) {
    register_builtin_engines();
    // An RLE file going onto a torus: read into rows of bits, placed with its frame centred.
    BoardRequest r = request_for(PatternSource{"<string>", std::string(kGlider), std::nullopt}, "cpu:reference");
    r.overrides.topology = Topology::torus;
    r.overrides.width = 10, r.overrides.height = 8;
    LoadedBoard b = load_board(r);
    EXPECT_EQ(b.plan.golly_offset, (Cell{-5, -4}));
    EXPECT_CELLS(test::translated(test::rle_cells("bob$2bo$3o!"), 5 - 1, 4 - 1), b.engine->live_cells());
    // Too small a board: refused naming the source, before any engine exists.
    r.overrides.width = 2, r.overrides.height = 2;
    try {
        open_board(r);
        FAIL() << "a 3x3 pattern fit a 2x2 board";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("<string>"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
    }
}

// A board read in bands (BoardRequest::load_rows, what MPI ranks do): open_board's pass keeps no
// rows but counts as the whole read does, and read_board_rows gives every band exactly the rows
// of the board read whole: soups (their draws skipped, not made), RLE and macrocell files (plain and
// gzipped), on a torus and placed inside larger boards at odd offsets, in bands of any height.
TEST(BoardLayer, BandsAreTheRowsOfTheWholeBoard) {
    register_builtin_engines();
    test::TempDir tmp;
    const std::string rle = tmp / "soup.rle";
    // The same soup as macrocell trees: each band is cut from the tree, never from a list of cells.
    const std::string mc = tmp / "soup.mc", mcgz = tmp / "soup.mc.gz";
    {
        BoardRequest torus = request_for(PatternSource{"random:77x51:0.45:5", std::nullopt, std::nullopt});
        torus.overrides.topology = Topology::torus;
        const LoadedBoard soup = load_board(torus);
        save_board(output_target(rle), *soup.engine, soup.plan, soup.meta);
        save_board(output_target(mc), *soup.engine, soup.plan, soup.meta);
        save_board(output_target(mcgz), *soup.engine, soup.plan, soup.meta);
    }
    struct Case {
        std::string source;
        BoardOverrides overrides;
    };
    const std::vector<Case> cases = {
        {"random:77x51:0.45:5", {std::nullopt, Topology::torus, std::nullopt, std::nullopt}},
        {"random:77x51:0.45:5", {std::nullopt, Topology::plane, 130, 67}},
        {"random:1x9:0.5:2", {std::nullopt, Topology::torus, std::nullopt, std::nullopt}},
        {rle, {std::nullopt, Topology::plane, 200, 100}},
        {rle, {}},  // its rule's :T suffix
        {mc, {}},
        {mc, {std::nullopt, Topology::plane, 200, 100}},
        {mc, {std::nullopt, Topology::torus, 131, 67}},  // odd offsets (65, 33)
        {mcgz, {std::nullopt, Topology::plane, 129, 53}},
    };
    for (const Case& c : cases) {
        BoardRequest whole = request_for(PatternSource{c.source, std::nullopt, std::nullopt}, "cpu:reference");
        whole.overrides = c.overrides;
        whole.options.max_bytes = std::int64_t{1} << 30;
        OpenedBoard opened = open_board(whole);
        ASSERT_FALSE(opened.banded());
        const BoardSpec spec = opened.spec();
        const std::int64_t nw = (spec.width + 63) / 64, h = spec.height;
        const auto engine = opened.create_engine();
        std::vector<std::uint64_t> want(static_cast<std::size_t>(nw * h));
        engine->read_rows_packed(0, h, want.data());

        BoardRequest banded = whole;
        std::optional<BandedSource> source;
        // The count of the whole board, as the ranks' counts add up.
        banded.load_rows = [&](Engine&, const BandedSource& s) {
            source = s;
            std::vector<std::uint64_t> all(static_cast<std::size_t>(nw * h));
            BandCount sum;
            for (std::int64_t y = 0; y < h; y += 5) {
                const BandCount part = read_board_rows(s, y, std::min<std::int64_t>(5, h - y), all.data() + y * nw);
                sum.population += part.population;
                sum.bounding_box = unite(sum.bounding_box, part.bounding_box);
            }
            return sum;
        };
        OpenedBoard counted = open_board(banded);
        EXPECT_TRUE(counted.banded()) << c.source;
        EXPECT_EQ(counted.plan().offset, opened.plan().offset) << c.source;
        (void)counted.create_engine();
        ASSERT_TRUE(source) << c.source;
        EXPECT_EQ(counted.population(), opened.population()) << c.source;
        EXPECT_EQ(counted.bounding_box(), opened.bounding_box()) << c.source;
        for (std::int64_t band : {std::int64_t{1}, std::int64_t{7}, (h + 3) / 4, h}) {
            for (std::int64_t y = 0; y < h; y += band) {
                const std::int64_t n = std::min(band, h - y);
                std::vector<std::uint64_t> got(static_cast<std::size_t>(nw * n), ~std::uint64_t{0});
                read_board_rows(*source, y, n, got.data());
                ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin() + y * nw))
                    << c.source << ": rows " << y << ".." << y + n - 1;
            }
        }
    }
}

// A macrocell tree that does not fit the board it was given is not read in bands: it is refused
// with the message one process gives (the whole pattern's size), not planned from its corners.
TEST(BoardLayer, MacrocellNotFittingItsBoardIsRefusedAsOneProcessRefusesIt) {
    register_builtin_engines();
    test::TempDir tmp;
    const std::string mc = tmp / "soup.mc";
    {
        const LoadedBoard soup = load_board(request_for(PatternSource{"random:77x51:0.45:5", std::nullopt, std::nullopt}));
        save_board(output_target(mc), *soup.engine, soup.plan, soup.meta);
    }
    const auto message = [&](bool banded) {
        BoardRequest r = request_for(PatternSource{mc, std::nullopt, std::nullopt}, "cpu:reference");
        r.overrides = {std::nullopt, Topology::plane, 60, 60};
        if (banded) r.load_rows = [](Engine&, const BandedSource&) { return BandCount{}; };
        try {
            OpenedBoard opened = open_board(r);
            EXPECT_FALSE(opened.banded());
            (void)opened.create_engine();
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::string one = message(false);
    EXPECT_NE(one.find("does not fit the 60x60 plane board"), std::string::npos) << one;
    EXPECT_EQ(one.rfind(mc + ": ", 0), 0u) << one;
    EXPECT_EQ(one.find(mc, 1), std::string::npos) << "the file is named twice: " << one;
    EXPECT_EQ(message(true), one);
}

TEST(BoardLayer, TreesGoToTreeEnginesWhole) {
    register_builtin_engines();
    // Golly's metacatacryst: a tree engine takes the file's tree as it is.
    const std::filesystem::path mc = "/usr/share/golly/Patterns/HashLife/metacatacryst.mc";
    if (!std::filesystem::exists(mc)) GTEST_SKIP() << mc << " missing: install Debian's golly (make deps)";
    BoardRequest r = request_for(PatternSource{mc.string(), std::nullopt, std::nullopt});
    r.options.max_bytes = std::int64_t{256} << 20;
    OpenedBoard opened = open_board(r);
    ASSERT_TRUE(opened.pattern().tree);
    auto engine = opened.create_engine();
    EXPECT_TRUE(engine->wants_whole_runs());
    EXPECT_EQ(engine->population(), opened.population());
    EXPECT_EQ(engine->bounding_box(), opened.bounding_box());
}

TEST(BoardLayer, LargeTreeIsNotListedForTreeEngines) {
    register_builtin_engines();
    // A tree far larger than the cell limit of the budget: HashLife takes it whole; a brute-force
    // engine refuses it with the limit named, before listing a cell.
    // Node 1: a full 8x8 leaf; then a chain of squares, each four copies of the one below.
    std::string text = "[M2] (test)\n#R B3/S23\n********$********$********$********$********$********$********$********$\n";
    int node = 1;
    for (int level = 4; level <= 20; ++level, ++node)
        text += std::to_string(level) + " " + std::to_string(node) + " " + std::to_string(node) + " " +
                std::to_string(node) + " " + std::to_string(node) + "\n";
    BoardRequest r = request_for(PatternSource{"big.mc", text, std::nullopt});
    r.options.max_bytes = std::int64_t{64} << 20;  // 1M cells at most listed
    const LoadedBoard b = load_board(r);
    EXPECT_EQ(b.population, std::int64_t{1} << 40);
    EXPECT_EQ(b.engine->population(), std::int64_t{1} << 40);
    EXPECT_EQ(b.engine->bounding_box().width, std::int64_t{1} << 20);
    r.engine = "cpu:bitpacked";
    try {
        load_board(r);
        FAIL() << "a brute-force engine listed 2^40 cells";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("live cells"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("big.mc"), std::string::npos) << e.what();
    }
}

TEST(BoardLayer, ListedCellsAreFreedOnceTheEngineHasThem) {
    register_builtin_engines();
    // The reader reserves room by the file's size; a run of hours must not keep that list (or its
    // capacity: `cells = {}` empties a vector and keeps its memory) once the engine holds the cells.
    const std::string path = pattern_path("gosper-glider-gun.rle");
    for (const char* engine : {"", "cpu:hashlife", "cpu:bitpacked"}) {
        OpenedBoard opened = open_board(request_for(PatternSource{path, std::nullopt, std::nullopt}, engine));
        ASSERT_EQ(opened.plan().cells.size(), 36u) << engine;
        auto e = opened.create_engine();
        EXPECT_EQ(e->population(), 36) << engine;
        EXPECT_EQ(opened.plan().cells.capacity(), 0u) << engine;
        EXPECT_EQ(opened.pattern().cells.capacity(), 0u) << engine;
    }
}

// read_source without listing (convert to .mc and .rle) builds an RLE file's tree as it reads:
// the same cells as the file's list. Cells past the header's frame, a negative position and rows
// many bands apart included; a header-less file is listed as before.
TEST(BoardLayer, RleReadAsATreeHoldsTheFilesCells) {
    const std::string text = "#CXRLE Pos=-40,-1000\nx = 5, y = 3, rule = B3/S23\n"
                             "bo$2bo$3o20b2o$199$12o3bo$3$3bo2bo26b3o!\n";
    const Pattern listed = parse_pattern(text, "t.rle");
    ASSERT_EQ(listed.cells.size(), 25u);
    const Pattern as_tree = read_source(PatternSource{"t.rle", text, std::nullopt}, 0, false);
    ASSERT_TRUE(as_tree.tree);
    EXPECT_TRUE(as_tree.cells.empty());
    EXPECT_EQ(as_tree.tree->cells(), listed.cells);
    EXPECT_EQ(as_tree.frame, listed.frame);
    EXPECT_EQ(as_tree.rule, listed.rule);
    const Pattern bare = read_source(PatternSource{"t.rle", "bo$2bo$3o!\n", std::nullopt}, 0, false);
    EXPECT_FALSE(bare.tree);
    EXPECT_EQ(bare.cells.size(), 5u);
}

TEST(BoardLayer, SavesEveryPatternFormat) {
    register_builtin_engines();
    const test::TempDir dir;
    BoardRequest r = request_for(PatternSource{"<string>", "#N glider\n#O someone\n#C a comment\n" + std::string(kGlider),
                                               std::nullopt});
    LoadedBoard b = load_board(r);
    b.engine->step(4);
    PatternMeta m = b.meta;
    m.generation = 4;
    for (const char* name : {"g.rle", "g.cells", "g.mc", "g.rle.gz", "g.mc.gz"}) {
        const std::string out = dir.path() + "/" + name;
        save_board(output_target(out), *b.engine, b.plan, m);
        const Pattern back = read_pattern(out);
        if (back.format == PatternFormat::plaintext) {  // no position in the format: the shape
            EXPECT_CELLS(test::normalised(b.engine->live_cells()), back.cells) << name;
            continue;
        }
        EXPECT_CELLS(b.engine->live_cells(), back.cells) << name;
        EXPECT_EQ(back.generation, 4) << name;
    }
    const Pattern rle = read_pattern(dir.path() + "/g.rle");
    EXPECT_EQ(rle.name, "glider");
    EXPECT_EQ(rle.authors, std::vector<std::string>{"someone"});
    EXPECT_THROW(save_board(output_target(dir.path() + "/g.png"), *b.engine, b.plan, m), InputError);
}

// The live bounding box, one implementation per engine kind: every engine against the cells'
// own box, on odd boards (empty, one cell at each corner, soups), bounded and unbounded.
class BoundingBox : public ::testing::TestWithParam<std::string> {};

TEST_P(BoundingBox, IsTheBoxOfTheLiveCells) {
    const std::string name = GetParam();
    for (Topology t : {Topology::torus, Topology::plane}) {
        for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 77}, {67, 3}, {130, 65}, {200, 129}}) {
            TILELIFE_CREATE_OR_SKIP(e, name, test::spec_of(w, h, t));
            EXPECT_TRUE(e->bounding_box().empty()) << name;
            for (const Cells& cells : {Cells{Cell{w - 1, h - 1}}, Cells{Cell{0, h - 1}}, Cells{Cell{w - 1, 0}},
                                       test::soup(w, h, 0.1, 7)}) {
                e->write_region(Box{0, 0, w, h}, std::vector<std::uint8_t>(static_cast<std::size_t>(w * h), 0).data());
                e->set_cells(cells);
                EXPECT_EQ(e->bounding_box(), bounding_box(e->live_cells())) << name << " " << w << "x" << h;
                EXPECT_EQ(e->bounding_box(), bounding_box(cells)) << name << " " << w << "x" << h;
            }
        }
    }
}

TEST_P(BoundingBox, UnboundedPlane) {
    const std::string name = GetParam();
    std::unique_ptr<Engine> e;
    try {
        e = create_engine(name, test::spec_of(16, 16, Topology::unbounded));
    } catch (const RuntimeError& err) {
        GTEST_SKIP() << err.what();
    }
    EXPECT_TRUE(e->bounding_box().empty());
    const Cells glider = test::translated(test::rle_cells("bob$2bo$3o!"), -1000, 500);
    e->set_cells(glider);
    e->step(40);
    EXPECT_EQ(e->bounding_box(), bounding_box(e->live_cells())) << name;
    EXPECT_EQ(e->bounding_box(), (Box{-1000 + 10, 500 + 10, 3, 3})) << name;
}

INSTANTIATE_TEST_SUITE_P(Engines, BoundingBox, ::testing::ValuesIn(test::engine_names()), test::EngineParamName());

}  // namespace
}  // namespace tilelife
