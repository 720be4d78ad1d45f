// The viewer's camera and rasteriser, without a window: exact pixels at every zoom.
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
    const ReadCells read = [&](const Box& b, std::uint8_t* out) {
        ASSERT_TRUE(b.x >= 0 && b.y >= 0 && b.right() <= board.width && b.bottom() <= board.height);
        for (std::int64_t y = 0; y < b.height; ++y)
            for (std::int64_t x = 0; x < b.width; ++x) out[y * b.width + x] = cells[(b.y + y) * board.width + b.x + x];
    };
    const Palette pal;
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    for (int log = -2; log <= 3; ++log) {
        Camera cam;
        cam.set(log, -37, -11);  // the board's corner is inside the window: the border shows
        const int w = 320, h = 200;
        std::vector<std::uint32_t> px;
        render(px, w, h, cam, board, read, ov, pal);
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
                std::uint32_t want = live ? pal.live : in ? pal.dead : pal.outside;
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

TEST(Render, TileLinesFallOnTileBoundaries) {
    const Box board{0, 0, 64, 64};
    const ReadCells read = [](const Box& b, std::uint8_t* out) { std::fill_n(out, b.width * b.height, 0); };
    Overlay ov;
    ov.bounded = true;
    ov.board = board;
    ov.tiles = true;
    ov.tile_w = 16;
    ov.tile_h = 8;
    const Palette pal;
    Camera cam;
    cam.set(2, -4, -4);  // 4 px per cell, board from pixel 4
    std::vector<std::uint32_t> px;
    render(px, 300, 300, cam, board, read, ov, pal);
    for (int x = 4; x < 4 + 256; ++x) {
        const bool boundary = (x - 4) % (16 * 4) == 0;
        EXPECT_EQ(px[101 * 300 + x] == pal.tile, boundary) << x;
    }
    for (int y = 4; y < 4 + 256; ++y) EXPECT_EQ(px[y * 300 + 10] == pal.tile, (y - 4) % 32 == 0) << y;
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
