// The real window: `tilelife view --frames N --screenshot` under Xvfb (xvfb-run) and under SDL's
// offscreen driver, checked pixel by pixel against the board cpu:reference computes.
#include <fstream>
#include <set>

#include "viewer/image_support.hpp"
#include "viewer/view.hpp"

namespace tilelife::imgtest {
namespace {

const viewer::Palette kPal;
constexpr std::uint32_t rgb(std::uint32_t argb) { return argb & 0xFFFFFF; }

class Window : public ::testing::TestWithParam<std::string> {
protected:
    // Runs `view ARGS` headless on this parameter's display; skips when no display can be had.
    void view(const std::string& args, Result& r) {
        std::string prefix;
        if (GetParam() == "xvfb") {
            if (run("command -v xvfb-run").rc != 0) GTEST_SKIP() << "xvfb-run not installed (apt-get install xvfb xauth)";
            prefix = "xvfb-run -a -s '-screen 0 1024x768x24' ";
        } else {
            prefix = "SDL_VIDEODRIVER=offscreen ";
        }
        r = run(prefix + cli() + " view " + args);
        if (r.rc != 0 && (r.out.find("cannot open a window") != std::string::npos ||
                          r.out.find("xvfb-run: error") != std::string::npos))
            GTEST_SKIP() << "no X server / video driver could be started: " << r.out;
    }
    TempDir dir;
};

// Pixels of the live colour, as (x, y).
std::set<std::pair<int, int>> live_pixels(const Image& img) {
    std::set<std::pair<int, int>> out;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            if (img.at(x, y) == rgb(kPal.live)) out.insert({x, y});
    return out;
}

// The image must show exactly `cells`, each as a zoom x zoom square, somewhere in the window.
void expect_cells(const Image& img, std::vector<Cell> cells, int zoom) {
    ASSERT_FALSE(cells.empty());
    const auto got = live_pixels(img);
    ASSERT_FALSE(got.empty()) << "no live pixels in the screenshot";
    std::int64_t minx = INT64_MAX, miny = INT64_MAX;
    for (const Cell& c : cells) minx = std::min(minx, c.x), miny = std::min(miny, c.y);
    int px0 = INT32_MAX, py0 = INT32_MAX;
    for (auto [x, y] : got) px0 = std::min(px0, x), py0 = std::min(py0, y);
    std::set<std::pair<int, int>> want;
    // The top-left live pixel belongs to the leftmost cell's column and the topmost cell's row.
    for (const Cell& c : cells)
        for (int j = 0; j < zoom; ++j)
            for (int i = 0; i < zoom; ++i)
                want.insert({px0 + static_cast<int>(c.x - minx) * zoom + i, py0 + static_cast<int>(c.y - miny) * zoom + j});
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want) << "live pixels differ from the cells drawn at zoom " << zoom;
}

TEST_P(Window, ShowsThePatternCellByCell) {
    // An asymmetric still-life-free shape: any flip, shift or mis-scaling shows.
    const std::string pattern = dir / "shape.rle";
    std::ofstream(pattern) << "x = 6, y = 4, rule = B3/S23\n2o2bo$bo3bo$o$3b3o!\n";
    const std::string shot = dir / "shot.png";
    Result r;
    view(pattern + " --paused --zoom 8 --frames 2 --window 400x300 --screenshot " + shot, r);
    if (IsSkipped()) return;
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("generation 0"), std::string::npos) << r.out;
    const Image img = read_png(shot);
    ASSERT_EQ(img.width, 400);
    ASSERT_EQ(img.height, 300);
    expect_cells(img, read_pattern(pattern).cells, 8);
}

TEST_P(Window, RunsTheEngineEachFrame) {
    const std::string pattern = std::string(TILELIFE_SOURCE_DIR) + "/patterns/r-pentomino.rle";
    const std::string shot = dir / "run.png";
    Result r;
    view(pattern + " --zoom 4 --frames 9 --window 480x360 --screenshot " + shot, r);
    if (IsSkipped()) return;
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("generation 9"), std::string::npos) << r.out;
    const auto e = expected_board(pattern, {}, 9);
    expect_cells(read_png(shot), e->live_cells(), 4);
}

TEST_P(Window, DrawsTheTorusBorder) {
    const std::string shot = dir / "torus.png";
    Result r;
    view("random:6x4:0.5:1 -t torus -s 20x10 --paused --zoom 8 --frames 1 --window 400x300 --screenshot " + shot, r);
    if (IsSkipped()) return;
    ASSERT_EQ(r.rc, 0) << r.out;
    const Image img = read_png(shot);
    int n = 0, x0 = INT32_MAX, x1 = -1, y0 = INT32_MAX, y1 = -1;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            if (img.at(x, y) == rgb(kPal.border)) {
                ++n;
                x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
            }
    // A one-pixel ring just outside the 160 x 80 pixel board.
    EXPECT_EQ(x1 - x0 + 1, 20 * 8 + 2);
    EXPECT_EQ(y1 - y0 + 1, 10 * 8 + 2);
    EXPECT_EQ(n, 2 * (20 * 8 + 2) + 2 * (10 * 8));
}

TEST_P(Window, TileOverlayUsesTheTileSize) {
    const std::string shot = dir / "tiles.png";
    Result r;
    view("random:8x8:0:1 -t torus -s 64x32 --paused --tiles --zoom 4 --frames 1 --window 400x300 --screenshot " + shot, r);
    if (IsSkipped()) return;
    ASSERT_EQ(r.rc, 0) << r.out;
    const Image img = read_png(shot);
    // cpu engines have no work-group tiles: the default 16 x 16 grid, 4 columns x 2 rows of tiles.
    std::set<int> cols, rows;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            if (img.at(x, y) == rgb(kPal.tile)) {
                if (img.at(x, y + 1) == rgb(kPal.tile) && img.at(x, y + 2) == rgb(kPal.tile)) cols.insert(x);
                if (x + 2 < img.width && img.at(x + 1, y) == rgb(kPal.tile) && img.at(x + 2, y) == rgb(kPal.tile)) rows.insert(y);
            }
    ASSERT_EQ(cols.size(), 4u);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(*std::next(cols.begin()) - *cols.begin(), 16 * 4);
    EXPECT_EQ(*std::next(rows.begin()) - *rows.begin(), 16 * 4);
}

INSTANTIATE_TEST_SUITE_P(Display, Window, ::testing::Values("xvfb", "offscreen"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tilelife::imgtest
