// `tilelife run` at the scale users work at: hundreds of GIF frames and checkpoints, long runs,
// terminals, outputs checked before the work.
#include <gtest/gtest.h>

#ifdef TILELIFE_TEST_HAVE_GIF
#include <gif_lib.h>
#endif

#include "cli/cli_support.hpp"

namespace tilelife {
namespace {

// Frames of a GIF file, read back with giflib.
[[maybe_unused]] int gif_frames(const std::string& path) {
#ifdef TILELIFE_TEST_HAVE_GIF
    int err = 0;
    GifFileType* gif = DGifOpenFileName(path.c_str(), &err);
    if (!gif) return -1;
    const int frames = DGifSlurp(gif) == GIF_OK ? gif->ImageCount : -1;
    DGifCloseFile(gif, &err);
    return frames;
#else
    (void)path;
    return -1;
#endif
}

TEST_F(Cli, HundredsOfGifFramesFinish) {
#ifndef TILELIFE_TEST_HAVE_GIF
    GTEST_SKIP() << "giflib not found: GIF output is not built";
#else
    // 64 frames or more used to double the step chunk on every frame until it overflowed.
    const CommandResult r = tl_within(120, "run " + shell_quote(pattern_path("gosper-glider-gun.rle")) +
                                                  " --gens 300 --gif g.gif --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(gif_frames(path("g.gif")), 301);
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["generation"], 300);
    EXPECT_EQ((*js)["population"], 86);
    EXPECT_EQ((*js)["gif"]["frames"], 301);
#endif
}

TEST_F(Cli, HundredsOfCheckpointsFinish) {
    const CommandResult r = tl_within(120, "run " + shell_quote(pattern_path("gosper-glider-gun.rle")) +
                                                  " --gens 650 --checkpoint c.rle --every 2 -o out.rle --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Pattern ck = read_pattern(path("c.rle"));
    EXPECT_EQ(ck.generation, 650);
    const Pattern out = read_pattern(path("out.rle"));
    EXPECT_EQ(out.generation, 650);
    EXPECT_CELLS(out.cells, ck.cells);
}

}  // namespace
}  // namespace tilelife
