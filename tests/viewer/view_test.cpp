// The viewer's camera and rasteriser, without a window: exact pixels at every zoom.
#include <algorithm>
#include <cmath>
#include <random>

#include "viewer/view.hpp"
#include "viewer/image_support.hpp"

namespace tilelife::viewer {
namespace {

TEST(Camera, ZoomKeepsTheCellUnderTheCursor) {
    Camera cam;
    cam.set(0, -300, -200);
    for (int steps : {1, 2, -1, -3, -4, 5, 1}) {
        const double px = 317, py = 141;
        const Cell before = cam.cell_at(px, py);
        cam.zoom_about(px, py, steps);
        const Cell after = cam.cell_at(px, py);
        if (cam.zoom_log() >= 0) {
            EXPECT_EQ(after, before) << "zoom 2^" << cam.zoom_log();
        } else {  // a pixel holds 2^-log cells: the cell must be among them
            const std::int64_t k = std::int64_t{1} << -cam.zoom_log();
            EXPECT_TRUE(before.x >= after.x - k && before.x < after.x + 2 * k) << before.x << " " << after.x;
        }
    }
}

TEST(Camera, FitCentresAndPansByWholePixels) {
    Camera cam;
    cam.fit(Box{10, 20, 30, 10}, 800, 600, 4);
    EXPECT_EQ(cam.zoom_log(), 4);  // 30 cells * 16 px fit in 800
    const Box v = cam.visible(800, 600);
    EXPECT_LE(v.x, 10);
    EXPECT_GE(v.right(), 40);
    EXPECT_EQ(cam.pixel_x(25), 400);  // the box's centre (cell 25) starts at the window's centre
    EXPECT_EQ(cam.pixel_y(25), 300);
    cam.fit(Box{0, 0, 5000, 100}, 800, 600, 4);
    EXPECT_EQ(cam.zoom_log(), -3);  // 5000 / 8 = 625 <= 792
    const Cell c = cam.cell_at(100, 100);
    cam.pan_pixels(3, -2);
    EXPECT_EQ(cam.cell_at(103, 98), c);
}

// Render a random board at each zoom and check every pixel against the cells it shows.
TEST(Render, EveryPixelShowsItsCells) {
    const Box board{0, 0, 57, 43};
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(board.width * board.height));
    std::mt19937 rng(1);
    for (auto& c : cells) c = rng() % 3 == 0;
    auto at = [&](std::int64_t x, std::int64_t y) { return board.contains(Cell{x, y}) && cells[y * board.width + x]; };
    const std::function<void(const Box&, std::uint8_t*)> read = [&](const Box& b, std::uint8_t* out) {
        ASSERT_TRUE(b.x >= 0 && b.y >= 0 && b.right() <= board.width && b.bottom() <= board.height);
        for (std::int64_t y = 0; y < b.height; ++y)
            for (std::int64_t x = 0; x < b.width; ++x) out[y * b.width + x] = cells[(b.y + y) * board.width + b.x + x];
    };
    const Palette pal = Palette::of(image::theme("dark"), false);
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    CellReader reader;
    reader.read = read;
    for (int log = -2; log <= 3; ++log) {
        Camera cam;
        cam.set(log, -37, -11);  // the board's corner is inside the window: the border shows
        const int w = 320, h = 200;
        std::vector<std::uint32_t> px;
        render(px, w, h, cam, board, reader, ov, pal);
        int wrong = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const std::uint32_t got = px[y * w + x];
                const Cell c0 = cam.cell_at(x, y);
                const std::int64_t k = log >= 0 ? 1 : std::int64_t{1} << -log;
                bool live = false, in = false;
                for (std::int64_t dy = 0; dy < k; ++dy)
                    for (std::int64_t dx = 0; dx < k; ++dx) {
                        live |= at(c0.x + dx, c0.y + dy);
                        in |= board.contains(Cell{c0.x + dx, c0.y + dy});
                    }
                std::uint32_t want = live ? pal.live() : in ? pal.dead() : pal.outside;
                // The border is the ring of pixels just outside the board.
                const bool ring = !in && (board.contains(cam.cell_at(x + 1, y)) || board.contains(cam.cell_at(x - 1, y)) ||
                                          board.contains(cam.cell_at(x, y + 1)) || board.contains(cam.cell_at(x, y - 1)) ||
                                          board.contains(cam.cell_at(x + 1, y + 1)) || board.contains(cam.cell_at(x - 1, y - 1)) ||
                                          board.contains(cam.cell_at(x + 1, y - 1)) || board.contains(cam.cell_at(x - 1, y + 1)));
                if (ring) want = pal.border;
                if (got != want && ++wrong <= 5)
                    ADD_FAILURE() << "zoom 2^" << log << " pixel " << x << "," << y << " cell " << c0.x << "," << c0.y
                                  << std::hex << " got " << got << " want " << want;
            }
        EXPECT_EQ(wrong, 0) << "zoom 2^" << log;
    }
}

TileGeometry tiles(std::int64_t w, std::int64_t h, std::int64_t hx = 0, std::int64_t hy = 0, Cell origin = {}) {
    TileGeometry t;
    t.width = w;
    t.height = h;
    t.halo_x = hx;
    t.halo_y = hy;
    t.origin = origin;
    return t;
}

CellReader empty_reader() {
    CellReader r;
    r.read = [](const Box& b, std::uint8_t* out) { std::fill_n(out, b.width * b.height, 0); };
    return r;
}

TEST(Render, TileLinesFallOnTileBoundaries) {
    const Box board{0, 0, 64, 64};
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    ov.tiles = tiles(16, 8);
    const Palette pal = Palette::of(image::theme("dark"), false);
    Camera cam;
    cam.set(2, -4, -4);  // 4 px per cell, board from pixel 4
    std::vector<std::uint32_t> px;
    EXPECT_TRUE(render(px, 300, 300, cam, board, empty_reader(), ov, pal).tiles_drawn);
    for (int x = 4; x < 4 + 256; ++x) {
        const bool boundary = (x - 4) % (16 * 4) == 0;
        EXPECT_EQ(px[101 * 300 + x] == pal.tile, boundary) << x;
    }
    for (int y = 4; y < 4 + 256; ++y) EXPECT_EQ(px[y * 300 + 10] == pal.tile, (y - 4) % 32 == 0) << y;
}

// Tiles repeat from the engine's origin, not the board's corner (the unbounded board moves it).
TEST(Render, TileLinesStartAtTheTileOrigin) {
    const Box board{0, 0, 64, 64};
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    ov.tiles = tiles(16, 16, 0, 0, Cell{5, -3});
    const Palette pal = Palette::of(image::theme("dark"), false);
    Camera cam;
    cam.set(2, -4, -4);
    std::vector<std::uint32_t> px;
    render(px, 300, 300, cam, board, empty_reader(), ov, pal);
    for (int x = 4; x < 4 + 256; ++x) EXPECT_EQ(px[101 * 300 + x] == pal.tile, ((x - 4) / 4 - 5) % 16 == 0 && (x - 4) % 4 == 0) << x;
    for (int y = 4; y < 4 + 256; ++y) EXPECT_EQ(px[y * 300 + 10] == pal.tile, ((y - 4) / 4 + 3) % 16 == 0 && (y - 4) % 4 == 0) << y;
}

// Issue 10: at 1:4 (four cells a pixel) 16x16 tiles were lines every 4 pixels - a red board. Lines
// closer than kMinTilePixels are not drawn at all.
TEST(Render, TileLinesOnlyWhereLegible) {
    const Box board{0, 0, 512, 512};
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    ov.tiles = tiles(16, 16);
    const Palette pal = Palette::of(image::theme("dark"), false);
    for (int log = -3; log <= 2; ++log) {
        Camera cam;
        cam.set(log, -2, -2);
        std::vector<std::uint32_t> px;
        const RenderStats st = render(px, 200, 200, cam, board, empty_reader(), ov, pal);
        const std::int64_t red = std::count(px.begin(), px.end(), pal.tile);
        const bool legible = 16 * std::ldexp(1.0, log) >= 8;  // 1:2 and closer; not 1:1 = 2:1 ... (issue 10)
        EXPECT_EQ(st.tiles_drawn, legible) << "zoom 2^" << log;
        EXPECT_EQ(red > 0, legible) << "zoom 2^" << log;
        // Where drawn, lines never cover more than a quarter of the board.
        EXPECT_LE(red, 200 * 200 / 4) << "zoom 2^" << log;
    }
}

// The halo of one tile is outlined: a ring halo cells outside the tile.
TEST(Render, HaloOutlineAroundOneTile) {
    const Box board{0, 0, 64, 64};
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    ov.tiles = tiles(16, 8, 2, 1);
    ov.halo_tile = Box{16, 8, 16, 8};
    const Palette pal = Palette::of(image::theme("dark"), false);
    Camera cam;
    cam.set(2, 0, 0);  // 4 px per cell, cell (0,0) at pixel (0,0)
    std::vector<std::uint32_t> px;
    render(px, 300, 300, cam, board, empty_reader(), ov, pal);
    // The ring spans cells 14..33 x 7..16: pixels 56..135 x 28..67.
    EXPECT_EQ(px[28 * 300 + 80], pal.halo);
    EXPECT_EQ(px[67 * 300 + 80], pal.halo);
    EXPECT_EQ(px[40 * 300 + 56], pal.halo);
    EXPECT_EQ(px[40 * 300 + 135], pal.halo);
    EXPECT_NE(px[40 * 300 + 57], pal.halo);
    EXPECT_NE(px[27 * 300 + 80], pal.halo);
}

// Huge views of a few cells are drawn from the engine's list of live cells (a HashLife universe or
// a grown board at 4096:1 is far too large to read cell by cell).
TEST(Render, HugeSparseViewsUseTheCellList) {
    const Box readable{-(std::int64_t{1} << 40), -(std::int64_t{1} << 40), std::int64_t{1} << 41, std::int64_t{1} << 41};
    const std::vector<Cell> live = {{-1000000, 3}, {0, 0}, {123456789, -2000000}};
    CellReader r;
    r.read = [](const Box& b, std::uint8_t*) { ADD_FAILURE() << "dense read of " << b.width << "x" << b.height; };
    r.list = [&](const Box& b) {
        std::vector<Cell> out;
        for (const Cell& c : live)
            if (b.contains(c)) out.push_back(c);
        return out;
    };
    r.population = 3;
    Camera cam;
    cam.set(-12, -400, -300);  // 4096 cells a pixel, cell (0,0) at pixel (400,300)
    const Palette pal = Palette::of(image::theme("dark"), false);
    std::vector<std::uint32_t> px;
    const RenderStats st = render(px, 800, 600, cam, readable, r, Overlay{}, pal);
    EXPECT_EQ(st.mode, ReadMode::sparse);
    std::vector<std::pair<int, int>> lit;
    for (int y = 0; y < 600; ++y)
        for (int x = 0; x < 800; ++x)
            if (px[y * 800 + x] == pal.live()) lit.push_back({x, y});
    // Cell -1000000 is in pixel column floor(-1000000 / 4096) + 400 = 155; the third cell is off the view.
    EXPECT_EQ(lit, (std::vector<std::pair<int, int>>{{155, 300}, {400, 300}}));
}

// Zoomed out, a pixel shows the most prominent state of its cells: born over alive over the trail.
TEST(Render, ZoomedOutPixelsShowTheMostProminentAge) {
    const Box board{0, 0, 4, 1};
    const std::uint8_t states[4] = {image::kDiedCell + 1, image::kLiveCell, image::kBornCell, image::kDiedCell};
    CellReader r;
    r.read = [&](const Box& b, std::uint8_t* out) {
        for (std::int64_t i = 0; i < b.width; ++i) out[i] = states[b.x + i];
    };
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    const Palette pal = Palette::of(image::theme("dark"), true);
    for (int log : {0, -1, -2}) {
        Camera cam;
        cam.set(log, -10, -10);
        std::vector<std::uint32_t> px;
        render(px, 40, 40, cam, board, r, ov, pal);
        if (log == 0) {
            for (int i = 0; i < 4; ++i) EXPECT_EQ(px[10 * 40 + 10 + i], pal.state[states[i]]) << i;
        } else if (log == -1) {
            EXPECT_EQ(px[10 * 40 + 10], pal.state[image::kLiveCell]);  // died-2 + alive
            EXPECT_EQ(px[10 * 40 + 11], pal.state[image::kBornCell]);  // born + died-1
        } else {
            EXPECT_EQ(px[10 * 40 + 10], pal.state[image::kBornCell]);
        }
    }
}

TEST(Scale, GollyNotation) {
    EXPECT_EQ(parse_scale("1:8"), 3);    // 8 pixels per cell
    EXPECT_EQ(parse_scale("8:1"), -3);   // 8 cells per pixel
    EXPECT_EQ(parse_scale("1:1"), 0);
    EXPECT_EQ(parse_scale("16"), 4);     // a bare N: pixels per cell
    EXPECT_EQ(parse_scale("4096:1"), -12);
    EXPECT_EQ(parse_scale("2^12:1"), -12);
    EXPECT_EQ(parse_scale("1:64"), 6);
    for (const char* bad : {"1:3", "3:1", "0", "1:128", "8192:1", "2:2", "x", "1:", ":1", "-4", "1:8:1"})
        EXPECT_FALSE(parse_scale(bad).has_value()) << bad;
    for (int log = Camera::kMinLog; log <= Camera::kMaxLog; ++log) EXPECT_EQ(parse_scale(scale_text(log)), log) << log;
    EXPECT_EQ(scale_text(3), "1:8");
    EXPECT_EQ(scale_text(-2), "4:1");
}

TEST(Status, FitsAnyWidth) {
    std::vector<StatusField> f = {{"gen 123456", 100}, {"pop 4567", 98}, {"generating", 96}, {"step 2^3", 90},
                                  {"scale 1:8", 88}, {"xy -12,345", 94}, {"sel 30x20", 93},
                                  {"| a long message about something that happened", 92},
                                  {"B3/S23", 60}, {"cpu:bitpacked", 56}, {"torus 4096x4096", 52},
                                  {"12.3k gens/s", 50}, {"4.56G cell-updates/s", 48}, {"H: help", 30}};
    for (int width = 1; width <= 400; ++width)
        for (int lines = 1; lines <= 3; ++lines) {
            const auto out = fit_status(f, width, lines);
            ASSERT_LE(out.size(), static_cast<std::size_t>(lines));
            ASSERT_FALSE(out.empty());
            for (const auto& l : out) ASSERT_LE(static_cast<int>(l.size()), width) << width << " '" << l << "'";
            std::string all;
            for (const auto& l : out) all += l + "\n";
            // The most important fields stay while they fit.
            if (width >= 10) {
                EXPECT_NE(all.find("gen 123456"), std::string::npos) << width;
            }
            if (width >= 30 && lines >= 2) {
                EXPECT_NE(all.find("xy -12,345"), std::string::npos) << width;
            }
            if (width >= 400 && lines >= 2) {
                EXPECT_NE(all.find("H: help"), std::string::npos) << width;
            }
        }
    // Order on screen is the fields' order.
    const auto wide = fit_status(f, 1000, 1);
    EXPECT_LT(wide[0].find("gen"), wide[0].find("pop"));
    EXPECT_LT(wide[0].find("B3/S23"), wide[0].find("H: help"));
}

TEST(Lines, ConnectWithoutGaps) {
    const auto cells = line_cells(Cell{0, 0}, Cell{7, -3});
    EXPECT_EQ(cells.front(), (Cell{0, 0}));
    EXPECT_EQ(cells.back(), (Cell{7, -3}));
    for (std::size_t i = 1; i < cells.size(); ++i) {
        EXPECT_LE(std::abs(cells[i].x - cells[i - 1].x), 1);
        EXPECT_LE(std::abs(cells[i].y - cells[i - 1].y), 1);
    }
    EXPECT_EQ(cells.size(), 8u);
}

}  // namespace
}  // namespace tilelife::viewer
