// The real window: `tilelife view --frames N --screenshot` under Xvfb (xvfb-run) and under SDL's
// offscreen driver, checked pixel by pixel against the board cpu:reference computes.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "viewer/image_support.hpp"
#include "image/image.hpp"
#include "viewer/view.hpp"

namespace tilelife::imgtest {
namespace {

const viewer::Palette kPal = viewer::Palette::of(image::theme("dark"), false);
constexpr std::uint32_t rgb(std::uint32_t argb) { return argb & 0xFFFFFF; }

class Window : public ::testing::TestWithParam<std::string> {
protected:
    // Runs `view ARGS` headless on this parameter's display (xvfb is one of the project's Debian
    // packages: a display that cannot be started is a failure, not a skip).
    void view(const std::string& args, Result& r) {
        std::string prefix;
        if (GetParam() == "xvfb") {
            if (run("command -v xvfb-run").rc != 0) GTEST_SKIP() << "xvfb-run not installed (apt-get install xvfb xauth)";
            prefix = "xvfb-run -a -s '-screen 0 1024x768x24' ";
        } else {
            prefix = "SDL_VIDEODRIVER=offscreen ";
        }
        r = run(prefix + cli() + " view " + args);
    }
    TempDir dir;
};

// Pixels of the live colour, as (x, y).
std::set<std::pair<int, int>> live_pixels(const Image& img) {
    std::set<std::pair<int, int>> out;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            if (img.at(x, y) == rgb(kPal.live())) out.insert({x, y});
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

// Issue 10: engines without work-group tiles got a made-up 16x16 grid. Now: no overlay (the status
// line says why).
TEST_P(Window, NoTileOverlayForEnginesWithoutTiles) {
    const std::string shot = dir / "tiles.png";
    Result r;
    view("random:8x8:0:1 -t torus -s 64x32 --paused --tiles --zoom 1:4 --frames 1 --window 400x300 --screenshot " + shot, r);
    ASSERT_EQ(r.rc, 0) << r.out;
    const Image img = read_png(shot);
    int tile = 0, border = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            tile += img.at(x, y) == rgb(kPal.tile);
            border += img.at(x, y) == rgb(kPal.border);
        }
    EXPECT_GT(border, 0);  // the board is drawn
    EXPECT_EQ(tile, 0);
}

// Issue 13: Golly's scale notation - 1:8 is 8 pixels per cell (it used to mean 8 cells per pixel).
TEST_P(Window, ZoomUsesGollyNotation) {
    const std::string pattern = dir / "shape.rle";
    std::ofstream(pattern) << "x = 6, y = 4, rule = B3/S23\n2o2bo$bo3bo$o$3b3o!\n";
    const std::string shot = dir / "z.png";
    Result r;
    view(pattern + " --paused --zoom 1:8 --frames 1 --window 300x200 --screenshot " + shot, r);
    ASSERT_EQ(r.rc, 0) << r.out;
    expect_cells(read_png(shot), read_pattern(pattern).cells, 8);
    view(pattern + " --paused --zoom 1:3 --frames 1 --window 300x200 --screenshot " + shot, r);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("Golly"), std::string::npos) << r.out;
}

// Themes and age colours reach the window.
TEST_P(Window, LightThemeAndAges) {
    const std::string pattern = std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle";
    const std::string shot = dir / "light.png";
    Result r;
    view(pattern + " --paused --theme light --zoom 1:8 --frames 1 --window 300x200 --screenshot " + shot, r);
    ASSERT_EQ(r.rc, 0) << r.out;
    const image::Colors& light = image::theme("light");
    const std::uint32_t live = rgb(viewer::argb(light.live)), dead = rgb(viewer::argb(light.dead));
    Image img = read_png(shot);
    int n_live = 0, n_dead = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) n_live += img.at(x, y) == live, n_dead += img.at(x, y) == dead;
    EXPECT_EQ(n_live, 5 * 64);  // a glider's 5 cells
    EXPECT_GT(n_dead, 200 * 100);
    // With ages, after a generation: cells born, alive and died each show their colour, one cell each
    // 8x8 square; a glider's phase 1 has 2 born, 3 alive, 2 died.
    view(pattern + " --ages --zoom 1:8 --frames 2 --window 300x200 --screenshot " + shot, r);
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("generation 2"), std::string::npos) << r.out;
    img = read_png(shot);
    const image::Colors& dark = image::theme("dark");
    std::map<std::uint32_t, int> count;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) ++count[img.at(x, y)];
    // Frame 1 ran generation 1 and frame 2 generation 2: the ages compare generations 1 and 2.
    const auto b1 = expected_board(pattern, {}, 1), b2 = expected_board(pattern, {}, 2);
    int born = 0, alive = 0, died = 0;
    for (std::int64_t y = -5; y < 10; ++y)
        for (std::int64_t x = -5; x < 10; ++x) {
            const bool was = b1->get_cell(x, y), is = b2->get_cell(x, y);
            born += is && !was, alive += is && was, died += was && !is;
        }
    EXPECT_EQ(count[rgb(viewer::argb(dark.born))], born * 64);
    EXPECT_EQ(count[rgb(viewer::argb(dark.aged))], alive * 64);
    EXPECT_EQ(count[rgb(viewer::argb(dark.died[0]))], died * 64);
}

INSTANTIATE_TEST_SUITE_P(Display, Window, ::testing::Values("xvfb", "offscreen"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tilelife::imgtest

namespace tilelife::imgtest {
namespace {

// Issue 10: without a display SDL falls back to its offscreen driver, and `view` ran for ever,
// invisibly. Now it exits 1 unless --frames asked for a headless run. `timeout` turns the old hang
// into a failure (exit 124).
TEST(NoDisplay, InteractiveViewExitsWithAReason) {
    const std::string pattern = std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle";
    for (const std::string env : {"env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER", "env SDL_VIDEODRIVER=offscreen",
                                  "env SDL_VIDEODRIVER=dummy"}) {
        const Result r = run("timeout 30 " + env + " " + cli() + " view " + pattern);
        EXPECT_EQ(r.rc, 1) << env << ": " << r.out;
        EXPECT_NE(r.out.find("cannot open a window"), std::string::npos) << env << ": " << r.out;
        EXPECT_NE(r.out.find("--frames"), std::string::npos) << r.out;
    }
    // Headless runs still work there.
    const Result r = run("timeout 30 env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen " + cli() + " view " +
                         pattern + " --frames 3");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("generation 3"), std::string::npos) << r.out;
}

// Without a display and without XDG_RUNTIME_DIR, SDL's Wayland driver made libwayland print "error:
// XDG_RUNTIME_DIR is invalid or not set in the environment." before tilelife's own line. The error is
// one line on stderr (issue 22).
TEST(NoDisplay, TheErrorIsOneLine) {
    const std::string pattern = std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle";
    const Result r = run("( timeout 30 env -u DISPLAY -u WAYLAND_DISPLAY -u XDG_RUNTIME_DIR -u SDL_VIDEODRIVER " + cli() +
                         " view " + pattern + " 2>&1 >/dev/null )");  // stderr only
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(r.out.rfind("tilelife: cannot open a window", 0), 0u) << r.out;
}

// Issue 10: `view` read the pattern within the default budget, not --max-memory's.
TEST(ViewMemory, MaxMemoryLimitsThePatternAndTheBoard) {
    Result r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view random:1500x1500 --max-memory 1M --frames 1");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("limit"), std::string::npos) << r.out;
    r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view random:100x100 -t torus -s 5000x5000 --max-memory 1M --frames 1");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("memory budget"), std::string::npos) << r.out;
    // A brute-force unbounded board stops growing at the budget: headless, that is an error (exit 1).
    r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view " + std::string(TILELIFE_SOURCE_DIR) +
            "/patterns/gosper-glider-gun.rle --kernel bitpacked --max-memory 100K --speed 64 --frames 3000");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("memory budget"), std::string::npos) << r.out;
}

// Issue 19: `view` of a huge macrocell listed its cells (128M here: over any small budget's cell
// limit) where `run` hands the tree to HashLife; both go through the board layer now.
TEST(ViewMemory, HugeMacrocellStaysATree) {
    const std::string mc = "/usr/share/golly/Patterns/HashLife/metapixel-p216-gun.mc.gz";
    const Result r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view " + mc + " --max-memory 256M --frames 2");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("engine cpu:auto"), std::string::npos) << r.out;
}

// `view` chose its default engine before it knew the board: an unbounded pattern (a .mc from
// Golly's HashLife folder) ran on cpu:bitpacked. Now the topology's default, as for `run`.
TEST(ViewEngine, DefaultIsTheBoardTopologys) {
    const std::string glider = std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle";
    Result r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view " + glider + " --frames 2");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("engine cpu:auto"), std::string::npos) << r.out;
    r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view " + glider + " -t torus -s 20x20 --frames 2");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("engine cpu:bitpacked"), std::string::npos) << r.out;
    r = run("SDL_VIDEODRIVER=offscreen " + cli() + " view " + glider + " --kernel reference --frames 2");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("engine cpu:reference"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tilelife::imgtest
