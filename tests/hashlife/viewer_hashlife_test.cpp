// The viewer on cpu:hashlife and cpu:auto (issue 12's viewer part): + and - set the step
// exponent, Tab runs one step of 2^exponent generations handed to the engine whole, Return runs a
// step a frame, Shift+H hyperspeed doubles the step every 64 steps; every result exact against an
// engine stepped directly. SDL's offscreen driver: no display needed.
#include <SDL.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "support/test_support.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/pattern.hpp"
#include "viewer/key_events.hpp"
#include "viewer/session.hpp"

namespace tilelife::viewer {
namespace {

class Video : public ::testing::Environment {
public:
    void SetUp() override {
        setenv("SDL_VIDEODRIVER", "offscreen", 1);
        ASSERT_EQ(SDL_InitSubSystem(SDL_INIT_VIDEO), 0) << SDL_GetError();
    }
    void TearDown() override { SDL_QuitSubSystem(SDL_INIT_VIDEO); }
};
[[maybe_unused]] ::testing::Environment* const kVideo = ::testing::AddGlobalTestEnvironment(new Video);

class ViewerOnHashlife : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        register_builtin_engines();
        start_ = read_pattern(test::source_dir() + "/patterns/gosper-glider-gun.rle").cells;
        engine_ = create_engine(GetParam(), spec_);
        engine_->set_cells(start_);
        Options o;
        o.paused = true;
        viewer_ = std::make_unique<Viewer>(*engine_, o, 640, 480);
    }
    Viewer& v() { return *viewer_; }
    void key(SDL_Keycode sym) { keys::press([this](SDL_Event e) { v().handle(e); }, sym); }
    void type(char c) { keys::type([this](SDL_Event e) { v().handle(e); }, c); }
    void frames(int n) {
        for (int i = 0; i < n; ++i) v().frame();
    }
    // The gun after `gens` generations, from an engine stepped directly: cpu:bitpacked on the
    // growing board for counts it does quickly, cpu:hashlife (tested against Golly) beyond.
    std::vector<Cell> expected(std::int64_t gens) const {
        auto e = create_engine(gens <= 20000 ? "cpu:bitpacked" : "cpu:hashlife", spec_);
        e->set_cells(start_);
        e->step(gens);
        return e->live_cells();
    }

    const BoardSpec spec_{0, 0, Topology::unbounded, Rule::life()};
    std::vector<Cell> start_;
    std::unique_ptr<Engine> engine_;
    std::unique_ptr<Viewer> viewer_;
};

TEST_P(ViewerOnHashlife, StepExponentTabReturnAndHyperspeedAreExact) {
    for (int i = 0; i < 10; ++i) type('+');
    EXPECT_EQ(v().step_exponent(), 10);
    key(SDLK_TAB);
    frames(1);
    EXPECT_EQ(v().generation(), 1024);
    EXPECT_CELLS(expected(1024), engine_->live_cells());
    // 2^20 in one Tab.
    for (int i = 0; i < 10; ++i) type('+');
    EXPECT_EQ(v().step_size(), std::int64_t{1} << 20);
    key(SDLK_TAB);
    frames(1);
    EXPECT_EQ(v().generation(), 1024 + (std::int64_t{1} << 20));
    EXPECT_EQ(engine_->population(), static_cast<std::int64_t>(expected(1024 + (std::int64_t{1} << 20)).size()));
    // Back down to 2^3; Return runs a step a frame.
    for (int i = 0; i < 17; ++i) type('-');
    EXPECT_EQ(v().step_size(), 8);
    key(SDLK_RETURN);
    frames(5);
    key(SDLK_RETURN);
    const std::int64_t g = v().generation();
    EXPECT_EQ(g, 1024 + (std::int64_t{1} << 20) + 40);
    EXPECT_CELLS(expected(g), engine_->live_cells());
    // Hyperspeed: 64 steps of 8, then 64 of 16.
    type('H');
    EXPECT_TRUE(v().hyperspeed());
    key(SDLK_RETURN);
    frames(128);
    key(SDLK_RETURN);
    EXPECT_EQ(v().generation(), g + 64 * 8 + 64 * 16);
    EXPECT_CELLS(expected(v().generation()), engine_->live_cells());
}

INSTANTIATE_TEST_SUITE_P(Engines, ViewerOnHashlife, ::testing::Values("cpu:hashlife", "cpu:auto"),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace tilelife::viewer
