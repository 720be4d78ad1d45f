// PNG output is exact: every live cell is S x S pixels of the live colour, every dead one dead
// colour, for odd sizes and scales 1..4 - through the library, `run -o`, `run --region` and `convert`.
#include <random>

#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "viewer/image_support.hpp"

namespace tilelife::imgtest {
namespace {

constexpr std::uint32_t kLivePx = 0x000000, kDeadPx = 0xFFFFFF;

// Checks that `img` shows `cells` (w x h, one byte each) at `scale`, pixel by pixel.
void expect_exact(const Image& img, const std::vector<std::uint8_t>& cells, std::int64_t w, std::int64_t h, int scale) {
    ASSERT_EQ(img.width, w * scale);
    ASSERT_EQ(img.height, h * scale);
    std::int64_t wrong = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const bool live = cells[(y / scale) * w + x / scale] != 0;
            if (img.at(x, y) != (live ? kLivePx : kDeadPx) && ++wrong <= 5)
                ADD_FAILURE() << "pixel " << x << "," << y << " of cell " << x / scale << "," << y / scale << " is "
                              << std::hex << img.at(x, y) << ", want " << (live ? "live" : "dead");
        }
    EXPECT_EQ(wrong, 0);
}

std::vector<std::uint8_t> read_all(const Engine& e, const Box& box) {
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(box.width * box.height));
    e.read_region(box, cells.data());
    return cells;
}

TEST(Png, LibraryEveryCellIsScaleSquare) {
    TempDir dir;
    std::mt19937 rng(5);
    for (auto [w, h] : {std::pair{1, 1}, {7, 5}, {13, 11}, {31, 3}, {3, 17}})
        for (int scale = 1; scale <= 4; ++scale) {
            std::vector<Cell> live;
            std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if ((cells[y * w + x] = rng() % 2)) live.push_back(Cell{100 + x, -50 + y});
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " scale " + std::to_string(scale));
            const std::string out = dir / "lib.png";
            image::write_board_png(out, Box{100, -50, w, h}, scale, image::cells_from_list(live));
            expect_exact(read_png(out), cells, w, h, scale);
        }
}

TEST(Png, RunWritesTheFinalTorusBoard) {
    TempDir dir;
    for (int scale = 1; scale <= 4; ++scale) {
        const std::string out = dir / ("run" + std::to_string(scale) + ".png");
        const Result r = run(cli() + " run random:13x9:0.45:7 -t torus -s 15x11 -g 5 -q --scale " +
                             std::to_string(scale) + " -o " + out);
        ASSERT_EQ(r.rc, 0) << r.out;
        BoardOverrides ov;
        ov.topology = Topology::torus;
        ov.width = 15;
        ov.height = 11;
        const auto e = expected_board("random:13x9:0.45:7", ov, 5);
        SCOPED_TRACE("scale " + std::to_string(scale));
        expect_exact(read_png(out), read_all(*e, Box{0, 0, 15, 11}), 15, 11, scale);
    }
}

TEST(Png, RunRegionAndUnboundedBoundingBox) {
    TempDir dir;
    // A region of a plane board, in board cells.
    const std::string part = dir / "part.png";
    Result r = run(cli() + " run random:21x15:0.5:3 -t plane -s 25x19 -g 3 -q --scale 3 --region 4,5,9,7 -o " + part);
    ASSERT_EQ(r.rc, 0) << r.out;
    BoardOverrides ov;
    ov.topology = Topology::plane;
    ov.width = 25;
    ov.height = 19;
    auto e = expected_board("random:21x15:0.5:3", ov, 3);
    expect_exact(read_png(part), read_all(*e, Box{4, 5, 9, 7}), 9, 7, 3);

    // Unbounded without --region: the live cells' bounding box and a one-cell margin (no cell
    // touches the border).
    const std::string whole = dir / "whole.png";
    const std::string pattern = std::string(TILELIFE_SOURCE_DIR) + "/patterns/r-pentomino.rle";
    r = run(cli() + " run " + pattern + " -g 30 -q --scale 2 -o " + whole);
    ASSERT_EQ(r.rc, 0) << r.out;
    e = expected_board(pattern, {}, 30);
    Box bb;
    for (const Cell& c : e->live_cells()) bb = unite(bb, Box{c.x, c.y, 1, 1});
    bb = grow(bb, 1);
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(bb.width * bb.height));
    image::cells_from_engine(*e)(bb, cells.data());
    expect_exact(read_png(whole), cells, bb.width, bb.height, 2);
}

// `run -o x.png --ages` colours the last generation's cells by age, as a GIF frame with --ages does:
// born in the last step, alive longer, died 1..kTrailSteps steps ago; on an unbounded board with its
// margin, on a torus over the whole board.
TEST(Png, AgesShowTheLastGenerations) {
    TempDir dir;
    const std::string pattern = std::string(TILELIFE_SOURCE_DIR) + "/patterns/r-pentomino.rle";
    const image::Colors& colors = image::theme("dark");
    for (const std::string topology : {"", " -t torus -s 40x30"}) {
        const std::string out = dir / "ages.png";
        const Result r = run(cli() + " run " + pattern + " -g 50 -q --ages --theme dark --scale 3" + topology + " -o " + out);
        ASSERT_EQ(r.rc, 0) << r.out;
        BoardOverrides ov;
        if (!topology.empty()) ov = BoardOverrides{std::nullopt, Topology::torus, 40, 30};
        // The states of the last kTrailSteps + 1 boards, tracked as the run does.
        image::AgeTracker ages;
        Box box;
        for (std::int64_t g = 50 - image::kTrailSteps; g <= 50; ++g) {
            const auto e = expected_board(pattern, ov, g);
            if (box.empty()) box = topology.empty() ? grow(e->extent(), 8) : e->extent();
            ages.step(box, read_all(*e, box).data());
        }
        const auto last = expected_board(pattern, ov, 50);
        Box area = last->extent();
        if (topology.empty()) {
            Box bb;
            for (const Cell& c : last->live_cells()) bb = unite(bb, Box{c.x, c.y, 1, 1});
            area = grow(bb, 1);
        }
        std::vector<std::uint8_t> states(static_cast<std::size_t>(area.width * area.height));
        ages.source()(area, states.data());
        const Image img = read_png(out);
        ASSERT_EQ(img.width, area.width * 3);
        ASSERT_EQ(img.height, area.height * 3);
        std::int64_t wrong = 0, born = 0, died = 0;
        for (std::int64_t y = 0; y < area.height; ++y)
            for (std::int64_t x = 0; x < area.width; ++x) {
                const std::uint8_t st = states[static_cast<std::size_t>(y * area.width + x)];
                born += st == image::kBornCell;
                died += st >= image::kDiedCell;
                const image::Rgb want = colors.of(st, true);
                const std::uint32_t px = img.at(static_cast<int>(x * 3 + 1), static_cast<int>(y * 3 + 1));
                if (px != ((std::uint32_t{want.r} << 16) | (std::uint32_t{want.g} << 8) | want.b) && ++wrong <= 5)
                    ADD_FAILURE() << "cell " << x << "," << y << " state " << int(st) << " pixel " << std::hex << px;
            }
        EXPECT_EQ(wrong, 0) << topology;
        EXPECT_GT(born, 0);
        EXPECT_GT(died, 0);
    }
}

TEST(Png, TooLargeIsRefusedBeforeRunning) {
    TempDir dir;
    const std::string out = dir / "big.png";
    Result r = run(cli() + " run random:10x10 -t torus -s 20000x20 -g 1 -q -o " + out);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("--region"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out));
    r = run(cli() + " run random:10x10 -t torus -s 9000x9000 -g 1 -q --scale 2 -o " + out);
    EXPECT_EQ(r.rc, 2) << r.out;
    r = run(cli() + " run random:10x10 -t torus -s 20x20 -g 1 -q --region 15,15,10,10 -o " + out);
    EXPECT_EQ(r.rc, 2) << r.out;  // region leaves the board
    EXPECT_FALSE(std::filesystem::exists(out));
    // Only the temp-file-then-rename leaves the directory: nothing else was created.
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Png, ConvertWritesThePatternFrame) {
    TempDir dir;
    for (int scale : {1, 4}) {
        const std::string out = dir / "conv.png";
        const Result r = run(cli() + " convert random:9x7:0.5:11 " + out + " --scale " + std::to_string(scale));
        ASSERT_EQ(r.rc, 0) << r.out;
        const Pattern p = read_pattern("random:9x7:0.5:11");
        std::vector<std::uint8_t> cells(static_cast<std::size_t>(p.frame.width * p.frame.height));
        image::cells_from_list(p.cells)(p.frame, cells.data());
        expect_exact(read_png(out), cells, p.frame.width, p.frame.height, scale);
    }
}

}  // namespace
}  // namespace tilelife::imgtest
