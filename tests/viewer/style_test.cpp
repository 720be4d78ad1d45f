// Image styles (issue 10/13): themes and age colours in PNG and GIF files exactly as the viewer shows
// them, cell ages over successive boards, and the GIF frame delay.
#include <gif_lib.h>

#include <random>
#include <set>

#include "tilelife/builtin.hpp"

#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "viewer/image_support.hpp"

namespace tilelife::imgtest {
namespace {

std::uint32_t rgb(image::Rgb c) { return (std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b; }

// The age state a cell has after `history` (oldest first; the last entry is now), as the themes
// define them: born = alive now and dead one step before; alive = alive both; died i steps ago =
// dead since, alive i steps before, for i <= kTrailSteps; dead otherwise. With one entry: no past.
std::uint8_t age_of(const std::vector<bool>& history) {
    const std::size_t n = history.size();
    if (history[n - 1]) return n >= 2 && !history[n - 2] ? image::kBornCell : image::kLiveCell;
    for (std::size_t i = 1; i <= static_cast<std::size_t>(image::kTrailSteps) && i < n; ++i)
        if (history[n - 1 - i]) return static_cast<std::uint8_t>(image::kDiedCell + i - 1);
    return image::kDeadCell;
}

TEST(Themes, NamesAndRefusal) {
    EXPECT_EQ(image::theme_names(), (std::vector<std::string>{"print", "dark", "light"}));
    EXPECT_EQ(image::theme("print").live, image::kLive);
    EXPECT_EQ(image::theme("print").dead, image::kDead);
    try {
        image::theme("neon", "--theme");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("print, dark, light"), std::string::npos) << e.what();
    }
    // Every theme's states are told apart (a file's colours decode back to states).
    for (const std::string& name : image::theme_names()) {
        const image::Colors& c = image::theme(name);
        std::set<std::uint32_t> seen;
        for (int s = 0; s < image::kCellStates; ++s) seen.insert(rgb(c.of(static_cast<std::uint8_t>(s), true)));
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(image::kCellStates)) << name;
        EXPECT_NE(rgb(c.live), rgb(c.dead)) << name;
    }
}

// A random board advanced by cpu:reference, tracked step by step, box moving: every state exact.
TEST(Ages, TrackerMatchesTheDefinition) {
    register_builtin_engines();
    auto e = create_engine("cpu:reference", BoardSpec{40, 30, Topology::torus, Rule::life()});
    std::mt19937 rng(3);
    std::vector<Cell> soup;
    for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 40; ++x)
            if (rng() % 3 == 0) soup.push_back({x, y});
    e->set_cells(soup);
    std::vector<std::vector<std::uint8_t>> boards;
    image::AgeTracker t;
    const Box whole{0, 0, 40, 30};
    for (int g = 0; g < 12; ++g) {
        std::vector<std::uint8_t> cells(40 * 30);
        e->read_region(whole, cells.data());
        boards.push_back(cells);
        // The tracked box moves each step; cells new to it count as unchanged.
        const Box box{g % 5, g % 3, 32, 24};
        std::vector<std::uint8_t> part(32 * 24);
        image::cells_from_engine(*e)(box, part.data());
        if (g == 0) t.refresh(box, part.data());
        else t.step(box, part.data());
        ASSERT_EQ(t.box(), box);
        int wrong = 0;
        for (std::int64_t y = box.y; y < box.bottom(); ++y)
            for (std::int64_t x = box.x; x < box.right(); ++x) {
                // The tracker knows a cell's history from the step it last came into the box (it
                // then counts as unchanged: a history of one board).
                int k0 = 0;
                for (int k = 1; k <= g; ++k)
                    if (!Box{(k - 1) % 5, (k - 1) % 3, 32, 24}.contains(Cell{x, y})) k0 = k;
                std::vector<bool> h;
                for (int k = k0; k <= g; ++k) h.push_back(boards[k][y * 40 + x] != 0);
                const std::uint8_t want = age_of(h);
                const std::uint8_t got = t.states()[(y - box.y) * 32 + (x - box.x)];
                if (got != want && ++wrong <= 5) ADD_FAILURE() << "gen " << g << " cell " << x << "," << y << " got " << int(got) << " want " << int(want);
            }
        ASSERT_EQ(wrong, 0) << "gen " << g;
        e->step(1);
    }
}

TEST(Ages, RefreshKeepsStatesAndTakesEdits) {
    image::AgeTracker t;
    const Box b{0, 0, 3, 1};
    std::uint8_t c0[3] = {1, 0, 0}, c1[3] = {0, 1, 0}, c2[3] = {0, 1, 1};
    t.refresh(b, c0);
    t.step(b, c1);
    EXPECT_EQ(t.states(), (std::vector<std::uint8_t>{image::kDiedCell, image::kBornCell, image::kDeadCell}));
    t.refresh(b, c1);  // the same board again: nothing ages
    EXPECT_EQ(t.states(), (std::vector<std::uint8_t>{image::kDiedCell, image::kBornCell, image::kDeadCell}));
    t.refresh(b, c2);  // a cell drawn by hand is plainly alive, not born
    EXPECT_EQ(t.states(), (std::vector<std::uint8_t>{image::kDiedCell, image::kBornCell, image::kLiveCell}));
    for (int i = 1; i < image::kTrailSteps; ++i) {
        t.step(b, c2);
        EXPECT_EQ(t.states()[0], image::kDiedCell + i);
    }
    t.step(b, c2);
    EXPECT_EQ(t.states()[0], image::kDeadCell);  // the trail has faded
}

TEST(Png, ThemeAndAgeColours) {
    TempDir dir;
    const Box box{-3, 2, 9, 4};
    std::vector<std::uint8_t> states(9 * 4);
    for (std::size_t i = 0; i < states.size(); ++i) states[i] = static_cast<std::uint8_t>(i % image::kCellStates);
    const image::CellSource source = [&](const Box& b, std::uint8_t* out) {
        for (std::int64_t y = 0; y < b.height; ++y)
            for (std::int64_t x = 0; x < b.width; ++x) out[y * b.width + x] = states[(b.y - box.y + y) * 9 + (b.x - box.x + x)];
    };
    for (const std::string& name : image::theme_names())
        for (bool ages : {false, true}) {
            image::Style style;
            style.colors = image::theme(name);
            style.ages = ages;
            const std::string out = dir / (name + ".png");
            image::write_board_png(out, box, 2, source, style);
            const Image img = read_png(out);
            ASSERT_EQ(img.width, 18);
            int wrong = 0;
            for (int y = 0; y < img.height; ++y)
                for (int x = 0; x < img.width; ++x) {
                    const std::uint8_t s = states[(y / 2) * 9 + x / 2];
                    const std::uint32_t want = rgb(style.colors.of(ages ? s : s != 0, ages));
                    wrong += img.at(x, y) != want;
                }
            EXPECT_EQ(wrong, 0) << name << (ages ? " ages" : "");
        }
}

TEST(Gif, DelayColoursAndAgesOfEveryFrame) {
    TempDir dir;
    register_builtin_engines();
    auto e = create_engine("cpu:reference", BoardSpec{12, 10, Topology::torus, Rule::life()});
    e->set_cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}, {7, 6}, {8, 6}, {9, 6}});  // a glider and a blinker
    const std::string out = dir / "ages.gif";
    image::Style style;
    style.colors = image::theme("dark");
    style.ages = true;
    const int frames = 7;
    std::vector<std::vector<std::uint8_t>> boards;
    {
        image::GifWriter gif(out, Box{0, 0, 12, 10}, 2, image::gif_delay_cs(70, out), style);
        for (int f = 0; f < frames; ++f) {
            std::vector<std::uint8_t> cells(120);
            e->read_region(Box{0, 0, 12, 10}, cells.data());
            boards.push_back(cells);
            gif.add_frame(image::cells_from_engine(*e));
            e->step(1);
        }
        gif.finish();
    }
    int err = 0;
    GifFileType* gif = DGifOpenFileName(out.c_str(), &err);
    ASSERT_NE(gif, nullptr) << GifErrorString(err);
    ASSERT_EQ(DGifSlurp(gif), GIF_OK);
    ASSERT_EQ(gif->ImageCount, frames);
    const ColorMapObject* map = gif->SColorMap;
    ASSERT_NE(map, nullptr);
    for (int f = 0; f < frames; ++f) {
        GraphicsControlBlock gcb{};
        ASSERT_EQ(DGifSavedExtensionToGCB(gif, f, &gcb), GIF_OK);
        EXPECT_EQ(gcb.DelayTime, 7) << f;
        const SavedImage& img = gif->SavedImages[f];
        int wrong = 0;
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 24; ++x) {
                std::vector<bool> h;
                for (int k = 0; k <= f; ++k) h.push_back(boards[k][(y / 2) * 12 + x / 2] != 0);
                const GifColorType c = map->Colors[img.RasterBits[y * 24 + x]];
                const image::Rgb want = style.colors.of(age_of(h), true);
                wrong += c.Red != want.r || c.Green != want.g || c.Blue != want.b;
            }
        EXPECT_EQ(wrong, 0) << "frame " << f;
    }
    DGifCloseFile(gif, &err);
}

TEST(Gif, DelayInMilliseconds) {
    EXPECT_EQ(image::gif_delay_cs(50, "x.gif"), 5);
    EXPECT_EQ(image::gif_delay_cs(20, "x.gif"), 2);
    EXPECT_EQ(image::gif_delay_cs(655350, "x.gif"), 65535);
    for (std::int64_t bad : {0, 10, 19, 25, 655360, -50}) EXPECT_THROW(image::gif_delay_cs(bad, "x.gif"), InputError) << bad;
    try {
        image::gif_delay_cs(33, "x.gif");
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("use 30 or 40"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace tilelife::imgtest
