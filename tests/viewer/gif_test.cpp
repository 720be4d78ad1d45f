// Animated GIF output: one exact frame every K generations, refused up front when too large.
#include <gif_lib.h>

#include "image/image.hpp"
#include "viewer/image_support.hpp"

namespace tilelife::imgtest {
namespace {

TEST(Gif, RunWritesOneExactFrameEveryK) {
    TempDir dir;
    const std::string out = dir / "run.gif";
    const int scale = 3;
    const Result r = run(cli() + " run random:11x7:0.5:9 -t torus -s 13x9 -g 7 -q --every 2 --scale 3 --gif " + out);
    ASSERT_EQ(r.rc, 0) << r.out;
    int err = 0;
    GifFileType* gif = DGifOpenFileName(out.c_str(), &err);
    ASSERT_NE(gif, nullptr) << GifErrorString(err);
    ASSERT_EQ(DGifSlurp(gif), GIF_OK);
    ASSERT_EQ(gif->ImageCount, 4);  // generations 0, 2, 4, 6
    EXPECT_EQ(gif->SWidth, 13 * scale);
    EXPECT_EQ(gif->SHeight, 9 * scale);
    const ColorMapObject* map = gif->SColorMap;
    ASSERT_NE(map, nullptr);
    BoardOverrides ov;
    ov.topology = Topology::torus;
    ov.width = 13;
    ov.height = 9;
    for (int f = 0; f < gif->ImageCount; ++f) {
        const auto e = expected_board("random:11x7:0.5:9", ov, 2 * f);
        const SavedImage& img = gif->SavedImages[f];
        ASSERT_EQ(img.ImageDesc.Width, 13 * scale);
        ASSERT_EQ(img.ImageDesc.Height, 9 * scale);
        int wrong = 0;
        for (int y = 0; y < 9 * scale; ++y)
            for (int x = 0; x < 13 * scale; ++x) {
                const GifColorType c = map->Colors[img.RasterBits[y * 13 * scale + x]];
                const bool live = e->get_cell(x / scale, y / scale);
                const int want = live ? 0 : 255;
                if ((c.Red != want || c.Green != want || c.Blue != want) && ++wrong <= 5)
                    ADD_FAILURE() << "frame " << f << " pixel " << x << "," << y;
            }
        EXPECT_EQ(wrong, 0) << "frame " << f;
    }
    DGifCloseFile(gif, &err);
}

TEST(Gif, TooManyFramesOrPixelsRefusedBeforeRunning) {
    TempDir dir;
    const std::string out = dir / "big.gif";
    Result r = run(cli() + " run random:10x10 -t torus -s 20x20 -g 200000 -q --gif " + out);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("frames"), std::string::npos) << r.out;
    r = run(cli() + " run random:10x10 -t torus -s 4000x4000 -g 2000 --every 10 -q --gif " + out);
    EXPECT_EQ(r.rc, 2) << r.out;  // 201 frames of 16 MPixel
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace tilelife::imgtest
