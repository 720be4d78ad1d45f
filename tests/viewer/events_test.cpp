// The viewer driven as a user drives it: synthesised SDL events (keys, typed characters, mouse) fed
// to a Viewer, checking the cells, the camera, the selection and the clipboard after each. SDL's
// offscreen driver by default; `TILELIFE_TEST_VIDEO=x11` under xvfb-run uses a real X server and its
// clipboard (CTest runs both).
#include <SDL.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"
#include "viewer/image_support.hpp"
#include "viewer/key_events.hpp"
#include "viewer/session.hpp"
#include "viewer/window.hpp"

namespace tilelife::viewer {
namespace {

// SDL video for the whole binary: the clipboard and the modifier state need it. X11's clipboard
// belongs to a window, so a hidden one is kept open.
class Video : public ::testing::Environment {
public:
    void SetUp() override {
        const char* d = std::getenv("TILELIFE_TEST_VIDEO");
        setenv("SDL_VIDEODRIVER", d && *d ? d : "offscreen", 1);
        ASSERT_EQ(SDL_InitSubSystem(SDL_INIT_VIDEO), 0) << SDL_GetError();
        window_ = SDL_CreateWindow("tilelife tests", 0, 0, 64, 64, SDL_WINDOW_HIDDEN);
        ASSERT_NE(window_, nullptr) << SDL_GetError();
    }
    void TearDown() override {
        if (window_) SDL_DestroyWindow(window_);
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    }

private:
    SDL_Window* window_ = nullptr;
};
[[maybe_unused]] ::testing::Environment* const kVideo = ::testing::AddGlobalTestEnvironment(new Video);

std::vector<Cell> sorted(std::vector<Cell> v) {
    std::sort(v.begin(), v.end(), [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    return v;
}

std::vector<Cell> shift(std::vector<Cell> v, std::int64_t dx, std::int64_t dy) {
    for (Cell& c : v) c = Cell{c.x + dx, c.y + dy};
    return sorted(v);
}

// An R-pentomino and a blinker: asymmetric, so every flip and rotation shows.
const std::vector<Cell> kShape = sorted({{11, 10}, {12, 10}, {10, 11}, {11, 11}, {11, 12}, {30, 20}, {31, 20}, {32, 20}});

class Events : public ::testing::Test {
protected:
    void SetUp() override {
        register_builtin_engines();
        SDL_SetModState(KMOD_NONE);
        SDL_SetClipboardText("");
    }
    void TearDown() override { SDL_SetModState(KMOD_NONE); }

    // A stopped viewer at 1:8 (8 pixels a cell) on a 640 x 480 board area, cell (0, 0) at the
    // top-left corner, on `cells` of a 64 x 48 torus (or another spec).
    Viewer& open(const std::vector<Cell>& cells = kShape, BoardSpec spec = {64, 48, Topology::torus, Rule::life()},
                 Options o = {}, const std::string& engine = "cpu:bitpacked") {
        spec_ = spec;
        start_ = sorted(cells);
        engine_ = create_engine(engine, spec);
        engine_->set_cells(start_);
        o.paused = true;
        if (!o.zoom_log) o.zoom_log = 3;
        viewer_ = std::make_unique<Viewer>(*engine_, o, 640, 480);
        // Cell (0, 0) at pixel (0, 0): pan by what the centring put there.
        const Camera& cam = viewer_->camera();
        const auto dx = cam.pixel_x(0), dy = cam.pixel_y(0);
        move_camera(-dx, -dy);
        return *viewer_;
    }
    Viewer& v() { return *viewer_; }
    std::vector<Cell> cells() const { return engine_->live_cells(); }
    // The board cpu:reference computes from the starting cells after `gens` generations.
    std::vector<Cell> expected(std::int64_t gens, std::vector<Cell> from = {}) const {
        auto e = create_engine("cpu:reference", spec_);
        e->set_cells(from.empty() ? start_ : sorted(from));
        e->step(gens);
        return e->live_cells();
    }
    // Pixel at the centre of cell c (at the current camera).
    std::pair<int, int> px(Cell c) const {
        const Camera& cam = viewer_->camera();
        const std::int64_t half = std::max<std::int64_t>(0, std::llround(cam.zoom()) / 2);
        return {static_cast<int>(cam.pixel_x(c.x) + half), static_cast<int>(cam.pixel_y(c.y) + half)};
    }

    void send(SDL_Event e) { viewer_->handle(e); }
    // Keys as SDL reports them (viewer/key_events.hpp).
    void key(SDL_Keycode sym, Uint16 mod = KMOD_NONE) { keys::press([this](SDL_Event e) { send(e); }, sym, mod); }
    void type(char c) { keys::type([this](SDL_Event e) { send(e); }, c); }
    void button(Uint32 type, Cell c, Uint8 b) {
        const auto [x, y] = px(c);
        SDL_Event e{};
        e.type = type;
        e.button.button = b;
        e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
        e.button.x = x;
        e.button.y = y;
        send(e);
        mouse_ = {x, y};
    }
    void move_to(int x, int y) {
        SDL_Event e{};
        e.type = SDL_MOUSEMOTION;
        e.motion.x = x;
        e.motion.y = y;
        e.motion.xrel = x - mouse_.first;
        e.motion.yrel = y - mouse_.second;
        send(e);
        mouse_ = {x, y};
    }
    void move(Cell c) {
        const auto [x, y] = px(c);
        move_to(x, y);
    }
    // Press at a, move through b, release at b (with modifiers held throughout).
    void drag(Cell a, Cell b, Uint8 btn = SDL_BUTTON_LEFT, Uint16 mod = KMOD_NONE) {
        SDL_SetModState(static_cast<SDL_Keymod>(mod));
        move(a);
        button(SDL_MOUSEBUTTONDOWN, a, btn);
        move(b);
        button(SDL_MOUSEBUTTONUP, b, btn);
        SDL_SetModState(KMOD_NONE);
    }
    void click(Cell c, Uint16 mod = KMOD_NONE) { drag(c, c, SDL_BUTTON_LEFT, mod); }
    void wheel(int x, int y, int clicks) {
        SDL_Event e{};
        e.type = SDL_MOUSEWHEEL;
        e.wheel.y = clicks;
        e.wheel.mouseX = x;
        e.wheel.mouseY = y;
        e.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
        send(e);
    }
    void frames(int n) {
        for (int i = 0; i < n; ++i) v().frame();
    }
    void move_camera(std::int64_t dx, std::int64_t dy) {
        // Right-drag by (dx, dy) pixels: the camera pans; no cell changes.
        SDL_Event e{};
        e.type = SDL_MOUSEBUTTONDOWN;
        e.button.button = SDL_BUTTON_RIGHT;
        e.button.x = 320;
        e.button.y = 240;
        send(e);
        mouse_ = {320, 240};
        move_to(static_cast<int>(320 + dx), static_cast<int>(240 + dy));
        e.type = SDL_MOUSEBUTTONUP;
        send(e);
    }
    std::string clipboard() const {
        char* t = SDL_GetClipboardText();
        std::string s = t ? t : "";
        SDL_free(t);
        return s;
    }

    BoardSpec spec_;
    std::vector<Cell> start_;
    std::unique_ptr<Engine> engine_;
    std::unique_ptr<Viewer> viewer_;
    std::pair<int, int> mouse_{0, 0};
};

// --- Generating -------------------------------------------------------------------------------

TEST_F(Events, ReturnStartsAndStopsGenerating) {
    open();
    EXPECT_FALSE(v().generating());
    frames(3);
    EXPECT_EQ(v().generation(), 0);
    key(SDLK_RETURN);
    EXPECT_TRUE(v().generating());
    frames(5);
    EXPECT_EQ(v().generation(), 5);
    EXPECT_EQ(cells(), expected(5));
    key(SDLK_RETURN);
    EXPECT_FALSE(v().generating());
    frames(3);
    EXPECT_EQ(v().generation(), 5);
    key(SDLK_KP_ENTER);
    frames(1);
    EXPECT_EQ(v().generation(), 6);
}

TEST_F(Events, SpaceAndNRunOneGeneration) {
    open();
    key(SDLK_SPACE);
    frames(1);
    EXPECT_EQ(v().generation(), 1);
    EXPECT_EQ(cells(), expected(1));
    type('n');
    frames(1);
    EXPECT_EQ(v().generation(), 2);
    EXPECT_EQ(cells(), expected(2));
    // While generating, Space stops and steps once.
    key(SDLK_RETURN);
    frames(2);
    key(SDLK_SPACE);
    EXPECT_FALSE(v().generating());
    frames(3);
    EXPECT_EQ(v().generation(), 5);
    EXPECT_EQ(cells(), expected(5));
}

TEST_F(Events, PlusMinusSetTheStepExponentAndTabSteps) {
    open();
    EXPECT_EQ(v().step_exponent(), 0);
    type('+');
    type('=');
    type('+');
    EXPECT_EQ(v().step_size(), 8);
    EXPECT_EQ(v().step_exponent(), 3);
    key(SDLK_TAB);
    frames(1);
    EXPECT_EQ(v().generation(), 8);
    EXPECT_EQ(cells(), expected(8));
    type('-');
    type('_');
    EXPECT_EQ(v().step_size(), 2);
    key(SDLK_TAB);
    frames(1);
    EXPECT_EQ(v().generation(), 10);
    // Generating runs a step a frame.
    key(SDLK_RETURN);
    frames(3);
    key(SDLK_RETURN);
    EXPECT_EQ(v().generation(), 16);
    EXPECT_EQ(cells(), expected(16));
    // Below 2^0: a delay, one generation every 2^d frames.
    type('-');
    type('-');
    type('-');
    EXPECT_EQ(v().step_size(), 1);
    EXPECT_EQ(v().step_exponent(), -2);
    key(SDLK_RETURN);
    frames(16);
    key(SDLK_RETURN);
    EXPECT_EQ(v().generation(), 20);
    type('+');
    type('+');
    EXPECT_EQ(v().step_exponent(), 0);
}

// Golly: the step is a power of two; --speed 5 starts at 5 and +/- move to the powers around it.
TEST_F(Events, OddStartingStepMovesToPowersOfTwo) {
    Options o;
    o.step = 5;
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    key(SDLK_TAB);
    frames(1);
    EXPECT_EQ(v().generation(), 5);
    type('+');
    EXPECT_EQ(v().step_size(), 8);
    o.step = 5;
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    type('-');
    EXPECT_EQ(v().step_size(), 4);
}

TEST_F(Events, HyperspeedDoublesTheStepEvery64Steps) {
    open();
    type('H');
    EXPECT_TRUE(v().hyperspeed());
    key(SDLK_RETURN);
    frames(64);
    EXPECT_EQ(v().generation(), 64);
    EXPECT_EQ(v().step_size(), 2);
    frames(64);
    EXPECT_EQ(v().generation(), 64 + 128);
    EXPECT_EQ(v().step_size(), 4);
    key(SDLK_RETURN);
    EXPECT_EQ(cells(), expected(192));
    type('H');
    EXPECT_FALSE(v().hyperspeed());
}

// An engine that counts its step() calls: the viewer must hand a step of 2^k to the engine whole
// (HashLife makes big power-of-two steps cheap), and spread it over frames only when a frame budget
// is set and the engine is slow.
class CountingEngine : public Engine {
public:
    explicit CountingEngine(std::unique_ptr<Engine> e) : e_(std::move(e)) {}
    std::string name() const override { return "test:counting"; }
    Topology topology() const override { return e_->topology(); }
    Rule rule() const override { return e_->rule(); }
    Box extent() const override { return e_->extent(); }
    void write_region(const Box& b, const std::uint8_t* c) override { e_->write_region(b, c); }
    void read_region(const Box& b, std::uint8_t* c) const override { e_->read_region(b, c); }
    void step(std::int64_t n) override {
        calls.push_back(n);
        e_->step(n);
    }
    std::int64_t population() const override { return e_->population(); }
    std::int64_t generation() const override { return e_->generation(); }
    std::vector<Cell> live_cells_in(const Box& b) const override { return e_->live_cells_in(b); }
    EngineDescription describe() const override {
        EngineDescription d = e_->describe();
        d.name = name();
        d.tiles = tiles;
        return d;
    }
    std::vector<std::int64_t> calls;
    std::optional<TileGeometry> tiles;

private:
    std::unique_ptr<Engine> e_;
};

TEST_F(Events, BigStepsReachTheEngineWhole) {
    register_builtin_engines();
    const BoardSpec spec{64, 64, Topology::unbounded, Rule::life()};
    auto inner = create_engine("cpu:bitpacked", spec);
    inner->set_cells(read_pattern(std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle").cells);
    CountingEngine e(std::move(inner));
    Options o;
    o.paused = true;
    o.step = std::int64_t{1} << 20;
    Viewer viewer(e, o, 640, 480);
    SDL_Event t{};
    t.type = SDL_KEYDOWN;
    t.key.keysym.sym = SDLK_TAB;
    viewer.handle(t);
    viewer.frame();
    EXPECT_EQ(e.calls, (std::vector<std::int64_t>{std::int64_t{1} << 20}));
    EXPECT_EQ(viewer.generation(), std::int64_t{1} << 20);
    EXPECT_EQ(e.population(), 5);
    // With a frame budget a step starts small and doubles while calls stay quick: exact in total.
    o.frame_budget_ms = 1000;
    Viewer budgeted(e, o, 640, 480);
    e.calls.clear();
    budgeted.handle(t);
    for (int i = 0; i < 100 && budgeted.generation() < (std::int64_t{1} << 20); ++i) budgeted.frame();
    EXPECT_EQ(budgeted.generation(), std::int64_t{1} << 20);
    std::int64_t sum = 0;
    for (auto n : e.calls) sum += n;
    EXPECT_EQ(sum, std::int64_t{1} << 20);
    EXPECT_EQ(e.calls.front(), 1);
}

// --- Undo, redo, reset ----------------------------------------------------------------------------

TEST_F(Events, UndoRedoGenerations) {
    open();
    key(SDLK_SPACE);
    frames(1);
    key(SDLK_TAB);
    frames(1);
    type('+');
    key(SDLK_TAB);
    frames(1);  // generation 4
    type('-');
    key(SDLK_RETURN);
    frames(6);
    key(SDLK_RETURN);  // generation 10: one entry for the whole run
    EXPECT_EQ(v().generation(), 10);
    EXPECT_EQ(v().undo_depth(), 4u);
    type('z');
    EXPECT_EQ(v().generation(), 4);
    EXPECT_EQ(cells(), expected(4));
    key(SDLK_z, KMOD_LCTRL);
    EXPECT_EQ(v().generation(), 2);
    EXPECT_EQ(cells(), expected(2));
    type('z');
    type('z');
    EXPECT_EQ(v().generation(), 0);
    EXPECT_EQ(cells(), start_);
    type('z');  // nothing left
    EXPECT_EQ(v().generation(), 0);
    type('Z');
    EXPECT_EQ(v().generation(), 1);
    EXPECT_EQ(cells(), expected(1));
    key(SDLK_y, KMOD_LCTRL);
    key(SDLK_z, KMOD_LCTRL | KMOD_LSHIFT);
    key(SDLK_y, KMOD_LCTRL);
    EXPECT_EQ(v().generation(), 10);
    EXPECT_EQ(cells(), expected(10));
    // Undo while generating stops and undoes the run so far.
    key(SDLK_RETURN);
    frames(3);
    type('z');
    EXPECT_FALSE(v().generating());
    EXPECT_EQ(v().generation(), 10);
    EXPECT_EQ(cells(), expected(10));
}

TEST_F(Events, ResetRestoresTheStartAndCanBeUndone) {
    Options o;
    o.generation0 = 100;  // the file's generation
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    EXPECT_EQ(v().generation(), 100);
    key(SDLK_RETURN);
    frames(7);
    key(SDLK_RETURN);
    click(Cell{50, 40});  // an edit after generating
    const std::vector<Cell> before = cells();
    type('r');
    EXPECT_EQ(v().generation(), 100);
    EXPECT_EQ(cells(), start_);
    type('z');
    EXPECT_EQ(v().generation(), 107);
    EXPECT_EQ(cells(), before);
    key(SDLK_r, KMOD_LCTRL);
    EXPECT_EQ(cells(), start_);
    type('Z');  // nothing to redo after a new change
    EXPECT_EQ(cells(), start_);
}

// The starting pattern is kept for reset only within the undo budget (a huge soup is not copied).
TEST_F(Events, ResetNeedsTheStartWithinTheBudget) {
    Options o;
    o.history_bytes = 64;  // 4 cells; the shape has 8
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    key(SDLK_SPACE);
    frames(1);
    const auto after = cells();
    type('r');
    EXPECT_EQ(v().generation(), 1);
    EXPECT_EQ(cells(), after);
    EXPECT_NE(v().message().find("cannot reset"), std::string::npos) << v().message();
}

TEST_F(Events, DrawEraseAndTheirUndo) {
    open();
    // A click on a dead cell draws it; a drag draws a line.
    click(Cell{40, 5});
    EXPECT_TRUE(engine_->get_cell(40, 5));
    drag(Cell{40, 8}, Cell{44, 8});
    for (int x = 40; x <= 44; ++x) EXPECT_TRUE(engine_->get_cell(x, 8)) << x;
    // Golly: a drag that starts on a live cell erases.
    drag(Cell{41, 8}, Cell{43, 8});
    EXPECT_TRUE(engine_->get_cell(40, 8));
    for (int x = 41; x <= 43; ++x) EXPECT_FALSE(engine_->get_cell(x, 8)) << x;
    EXPECT_TRUE(engine_->get_cell(44, 8));
    // Shift+drag erases, starting anywhere.
    drag(Cell{9, 11}, Cell{12, 11}, SDL_BUTTON_LEFT, KMOD_LSHIFT);
    EXPECT_FALSE(engine_->get_cell(10, 11));
    EXPECT_FALSE(engine_->get_cell(11, 11));
    EXPECT_EQ(v().undo_depth(), 4u);
    type('z');
    EXPECT_TRUE(engine_->get_cell(10, 11));
    type('z');
    type('z');
    type('z');
    EXPECT_EQ(cells(), start_);
    type('Z');
    type('Z');
    std::vector<Cell> want = start_;
    want.push_back({40, 5});
    for (int x = 40; x <= 44; ++x) want.push_back({x, 8});
    EXPECT_EQ(cells(), sorted(want));
    // Drawing outside a bounded board does nothing.
    const std::size_t depth = v().undo_depth();
    move_camera(100, 100);
    click(Cell{-3, -3});
    EXPECT_EQ(v().undo_depth(), depth);
}

TEST_F(Events, DrawingWhileGeneratingIsItsOwnUndoStep) {
    open();
    key(SDLK_RETURN);
    frames(3);
    // A blinker, drawn while generating; frames pass while the button is down.
    move(Cell{50, 40});
    button(SDL_MOUSEBUTTONDOWN, Cell{50, 40}, SDL_BUTTON_LEFT);
    frames(2);
    move(Cell{52, 40});
    frames(1);
    button(SDL_MOUSEBUTTONUP, Cell{52, 40}, SDL_BUTTON_LEFT);
    frames(2);
    key(SDLK_RETURN);
    EXPECT_EQ(v().generation(), 5);
    std::vector<Cell> mid = expected(3);
    mid.push_back({50, 40});
    mid.push_back({51, 40});
    mid.push_back({52, 40});
    EXPECT_EQ(cells(), expected(2, mid));
    type('z');  // the two generations after the stroke
    EXPECT_EQ(v().generation(), 3);
    EXPECT_EQ(cells(), sorted(mid));
    type('z');  // the stroke
    EXPECT_EQ(cells(), expected(3));
    type('z');  // the first three generations
    EXPECT_EQ(cells(), start_);
    EXPECT_EQ(v().generation(), 0);
}

TEST_F(Events, HistoryKeepsTheNewestWithinItsLimit) {
    Options o;
    o.history_bytes = 4000;  // a few entries
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    for (int i = 0; i < 40; ++i) click(Cell{i + 1, 30});
    EXPECT_LE(v().history_bytes(), 4000);
    EXPECT_LT(v().undo_depth(), 40u);
    EXPECT_GT(v().undo_depth(), 3u);
    const std::size_t depth = v().undo_depth();
    for (std::size_t i = 0; i < depth; ++i) type('z');
    // The newest strokes were undone, the oldest (dropped from the history) stay.
    EXPECT_FALSE(engine_->get_cell(40, 30));
    EXPECT_TRUE(engine_->get_cell(1, 30));
    EXPECT_FALSE(engine_->get_cell(static_cast<std::int64_t>(40 - depth + 1), 30));
    EXPECT_TRUE(engine_->get_cell(static_cast<std::int64_t>(40 - depth), 30));
}

// --- View -------------------------------------------------------------------------------------

TEST_F(Events, ArrowKeysPan) {
    open();
    const Cell c = v().camera().cell_at(320, 240);
    key(SDLK_RIGHT);
    EXPECT_EQ(v().camera().cell_at(320, 240), (Cell{c.x + 10, c.y}));  // an eighth of 640 px at 8 px a cell
    key(SDLK_DOWN);
    EXPECT_EQ(v().camera().cell_at(320, 240), (Cell{c.x + 10, c.y + 7}));  // 480 / 8 = 60 px -> 7 cells
    key(SDLK_LEFT);
    key(SDLK_UP);
    EXPECT_EQ(v().camera().cell_at(320, 240), c);
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, BracketsAndDigitsSetTheScale) {
    open();
    const Cell centre = v().camera().cell_at(320, 240);
    type(']');
    EXPECT_EQ(v().camera().zoom_log(), 4);
    type('[');
    type('[');
    EXPECT_EQ(v().camera().zoom_log(), 2);
    for (auto [c, log] : {std::pair{'1', 0}, {'2', 1}, {'4', 2}, {'8', 3}, {'6', 4}, {'3', 5}}) {
        type(c);
        EXPECT_EQ(v().camera().zoom_log(), log) << c;
        const Cell now = v().camera().cell_at(320, 240);  // zooms keep the centre
        EXPECT_LE(std::llabs(now.x - centre.x), 1) << c;
        EXPECT_LE(std::llabs(now.y - centre.y), 1) << c;
    }
    // Scales are Golly's: 1:32 is 32 pixels a cell.
    EXPECT_EQ(v().camera().pixel_x(1) - v().camera().pixel_x(0), 32);
    for (int i = 0; i < 30; ++i) type('[');
    EXPECT_EQ(v().camera().zoom_log(), Camera::kMinLog);
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, WheelZoomsAboutTheCursor) {
    open();
    const auto [x, y] = px(Cell{30, 20});
    wheel(x, y, 1);
    EXPECT_EQ(v().camera().zoom_log(), 4);
    EXPECT_EQ(v().camera().cell_at(x, y), (Cell{30, 20}));
    wheel(x, y, -3);
    EXPECT_EQ(v().camera().zoom_log(), 1);
    EXPECT_EQ(v().camera().cell_at(x, y), (Cell{30, 20}));
}

TEST_F(Events, FitMiddleAndAutoFit) {
    open();
    move_camera(3000, 2000);
    EXPECT_TRUE(intersect(v().camera().visible(640, 480), Box{10, 10, 23, 11}).empty());
    type('f');
    const Box vis = v().camera().visible(640, 480);
    EXPECT_EQ(intersect(vis, Box{10, 10, 23, 11}), (Box{10, 10, 23, 11}));
    EXPECT_EQ(v().camera().zoom_log(), 4);  // 23 x 11 cells fit at 1:16
    // M: Golly's origin in the middle. A 64 x 48 torus has it at board cell (32, 24).
    Options o;
    o.golly_offset = Cell{-32, -24};
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    type('m');
    EXPECT_EQ(v().camera().cell_at(320, 240), (Cell{32, 24}));
    // T toggles auto fit; an unbounded pattern opened without --zoom is followed.
    type('t');
    EXPECT_TRUE(v().auto_fit());
    type('t');
    EXPECT_FALSE(v().auto_fit());
    Options fitted;
    fitted.zoom_log.reset();
    register_builtin_engines();
    auto e = create_engine("cpu:bitpacked", BoardSpec{64, 64, Topology::unbounded, Rule::life()});
    e->set_cells(read_pattern(std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle").cells);
    fitted.paused = false;
    Viewer follow(*e, fitted, 640, 480);
    EXPECT_TRUE(follow.auto_fit());
    for (int i = 0; i < 400; ++i) follow.frame();
    const Box lb = bounding_box(e->live_cells());
    EXPECT_EQ(intersect(follow.camera().visible(640, 480), lb), lb);
}

// --- Mouse modes and selection ----------------------------------------------------------------------

TEST_F(Events, SelectWithTheMouse) {
    open();
    // Ctrl+drag selects in draw mode.
    drag(Cell{5, 6}, Cell{9, 8}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    ASSERT_TRUE(v().selection());
    EXPECT_EQ(*v().selection(), (Box{5, 6, 5, 3}));
    EXPECT_EQ(cells(), start_);
    // F4: select mode; dragging up-left works too.
    key(SDLK_F4);
    EXPECT_EQ(v().mode(), Mode::select);
    drag(Cell{20, 15}, Cell{12, 9});
    EXPECT_EQ(*v().selection(), (Box{12, 9, 9, 7}));
    // Shift+click extends it (Golly).
    click(Cell{25, 20}, KMOD_LSHIFT);
    EXPECT_EQ(*v().selection(), (Box{12, 9, 14, 12}));
    // A click without a drag removes it.
    click(Cell{3, 3});
    EXPECT_FALSE(v().selection());
    // On a bounded board the selection stays on the board.
    drag(Cell{60, 44}, Cell{70, 50});
    EXPECT_EQ(*v().selection(), (Box{60, 44, 4, 4}));
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, CursorModesAndPanning) {
    open();
    key(SDLK_F5);
    EXPECT_EQ(v().mode(), Mode::move);
    const Camera before = v().camera();
    drag(Cell{10, 10}, Cell{14, 13});  // move mode: the view follows the mouse
    EXPECT_EQ(v().camera().origin_px(), before.origin_px() - 32);
    EXPECT_EQ(v().camera().origin_py(), before.origin_py() - 24);
    EXPECT_EQ(cells(), start_);
    key(SDLK_F2);
    EXPECT_EQ(v().mode(), Mode::draw);
    type('c');
    EXPECT_EQ(v().mode(), Mode::select);
    type('c');
    EXPECT_EQ(v().mode(), Mode::move);
    type('c');
    EXPECT_EQ(v().mode(), Mode::draw);
    // Right and middle drags pan in any mode.
    const Camera c0 = v().camera();
    drag(Cell{10, 10}, Cell{11, 10}, SDL_BUTTON_RIGHT);
    EXPECT_EQ(v().camera().origin_px(), c0.origin_px() - 8);
    drag(Cell{10, 10}, Cell{10, 12}, SDL_BUTTON_MIDDLE);
    EXPECT_EQ(v().camera().origin_py(), c0.origin_py() - 16);
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, SelectAllRemoveAndShrink) {
    open();
    type('a');
    ASSERT_TRUE(v().selection());
    EXPECT_EQ(*v().selection(), (Box{10, 10, 23, 11}));
    type('k');
    EXPECT_FALSE(v().selection());
    key(SDLK_a, KMOD_LCTRL);
    EXPECT_TRUE(v().selection());
    key(SDLK_k, KMOD_LCTRL);
    EXPECT_FALSE(v().selection());
    // S shrinks to the live cells inside and fits them.
    drag(Cell{2, 2}, Cell{20, 20}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    type('s');
    EXPECT_EQ(*v().selection(), (Box{10, 10, 3, 3}));
    const Box vis = v().camera().visible(640, 480);
    EXPECT_EQ(intersect(vis, Box{10, 10, 3, 3}), (Box{10, 10, 3, 3}));
    // Shift+F fits the selection; Ctrl+F fits the pattern.
    move_camera(5000, 0);
    type('F');
    EXPECT_FALSE(intersect(v().camera().visible(640, 480), Box{10, 10, 3, 3}).empty());
    move_camera(5000, 0);
    key(SDLK_f, KMOD_LCTRL);
    EXPECT_EQ(intersect(v().camera().visible(640, 480), Box{10, 10, 23, 11}), (Box{10, 10, 23, 11}));
}

TEST_F(Events, RandomFillOnFiveFillsTheSelectionOnly) {
    open();
    drag(Cell{40, 30}, Cell{59, 44}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    type('5');
    EXPECT_EQ(v().undo_depth(), 1u);  // one fill, though SDL reports the key and the text
    const Box sel{40, 30, 20, 15};
    std::vector<Cell> outside, inside;
    for (const Cell& c : cells()) (sel.contains(c) ? inside : outside).push_back(c);
    EXPECT_EQ(outside, start_);
    EXPECT_GT(inside.size(), 300u * 3 / 10);  // about half of 300
    EXPECT_LT(inside.size(), 300u * 7 / 10);
    type('z');
    EXPECT_EQ(cells(), start_);
    key(SDLK_5, KMOD_LCTRL);  // Golly's own shortcut
    EXPECT_GT(cells().size(), start_.size());
    // R no longer fills: it resets.
    type('r');
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, DeleteClearsInsideAndShiftDeleteOutside) {
    open();
    drag(Cell{9, 9}, Cell{13, 13}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    key(SDLK_DELETE);
    EXPECT_EQ(cells(), (std::vector<Cell>{{30, 20}, {31, 20}, {32, 20}}));
    type('z');
    EXPECT_EQ(cells(), start_);
    key(SDLK_DELETE, KMOD_LSHIFT);
    EXPECT_EQ(cells(), (std::vector<Cell>{{11, 10}, {12, 10}, {10, 11}, {11, 11}, {11, 12}}));
    type('z');
    EXPECT_EQ(cells(), start_);
    key(SDLK_BACKSPACE);
    EXPECT_EQ(cells().size(), 3u);
    // Nothing happens without a selection (C no longer clears the board).
    type('k');
    type('z');
    key(SDLK_DELETE);
    type('c');
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, CopyCutAndPasteThroughTheClipboard) {
    open();
    drag(Cell{9, 9}, Cell{13, 13}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    key(SDLK_c, KMOD_LCTRL);
    const std::string rle = clipboard();
    EXPECT_EQ(rle.find("#CXRLE"), std::string::npos) << rle;
    const Pattern p = parse_pattern(rle, "clipboard");
    EXPECT_EQ(p.cells, (std::vector<Cell>{{1, 0}, {2, 0}, {0, 1}, {1, 1}, {1, 2}}));
    EXPECT_EQ(cells(), start_);
    // Paste: V, then the pattern follows the mouse until a click places it (top-left at the cursor).
    type('v');
    EXPECT_TRUE(v().pasting());
    move(Cell{40, 30});
    EXPECT_EQ(v().paste_box(), (Box{40, 30, 3, 3}));
    click(Cell{40, 30});
    EXPECT_FALSE(v().pasting());
    std::vector<Cell> want = start_;
    for (const Cell& c : p.cells) want.push_back({40 + c.x, 30 + c.y});
    EXPECT_EQ(cells(), sorted(want));
    type('z');
    EXPECT_EQ(cells(), start_);
    // Ctrl+X cuts: the clipboard gets the cells, the board loses them.
    key(SDLK_x, KMOD_LCTRL);
    EXPECT_EQ(parse_pattern(clipboard(), "clipboard").cells, p.cells);
    EXPECT_EQ(cells(), (std::vector<Cell>{{30, 20}, {31, 20}, {32, 20}}));
    key(SDLK_v, KMOD_LCTRL);
    click(Cell{10, 10});
    EXPECT_EQ(cells(), start_);
    // Text from elsewhere: any pattern format (plaintext here); Esc cancels a paste.
    SDL_SetClipboardText("!Name: domino\nOO\n");
    type('v');
    key(SDLK_ESCAPE);
    EXPECT_FALSE(v().pasting());
    EXPECT_FALSE(v().quit());
    type('v');
    click(Cell{0, 0});
    EXPECT_TRUE(engine_->get_cell(0, 0));
    EXPECT_TRUE(engine_->get_cell(1, 0));
    // Garbage is refused with a message, nothing changes.
    SDL_SetClipboardText("this is not a pattern {");
    const auto before = cells();
    type('v');
    EXPECT_FALSE(v().pasting());
    EXPECT_NE(v().message().find("cannot paste"), std::string::npos) << v().message();
    EXPECT_EQ(cells(), before);
}

TEST_F(Events, PasteModesAndLocations) {
    open();
    SDL_SetClipboardText("x = 3, y = 1, rule = B3/S23\no1bo!\n");  // o.o
    // Copy mode: the rectangle is replaced; Xor: cells toggle; Or (default): cells added.
    engine_->set_cell(41, 30, true);
    engine_->set_cell(40, 30, true);
    type('M');
    EXPECT_EQ(v().paste_mode(), PasteMode::copy);
    type('v');
    click(Cell{40, 30});
    EXPECT_TRUE(engine_->get_cell(40, 30));
    EXPECT_FALSE(engine_->get_cell(41, 30));
    EXPECT_TRUE(engine_->get_cell(42, 30));
    type('M');
    EXPECT_EQ(v().paste_mode(), PasteMode::xorr);
    type('v');
    click(Cell{40, 30});
    EXPECT_FALSE(engine_->get_cell(40, 30));
    EXPECT_FALSE(engine_->get_cell(41, 30));
    EXPECT_FALSE(engine_->get_cell(42, 30));
    type('M');
    EXPECT_EQ(v().paste_mode(), PasteMode::orr);
    // Locations: the cursor at the paste's top-right, bottom-right, bottom-left, middle.
    type('v');
    move(Cell{20, 30});
    const Box tl{20, 30, 3, 1};
    EXPECT_EQ(v().paste_box(), tl);
    type('L');
    EXPECT_EQ(v().paste_box(), (Box{18, 30, 3, 1}));
    type('L');
    EXPECT_EQ(v().paste_box(), (Box{18, 30, 3, 1}));
    type('L');
    EXPECT_EQ(v().paste_box(), (Box{20, 30, 3, 1}));
    type('L');
    EXPECT_EQ(v().paste_box(), (Box{19, 30, 3, 1}));
    click(Cell{20, 30});
    EXPECT_TRUE(engine_->get_cell(19, 30));
    EXPECT_TRUE(engine_->get_cell(21, 30));
}

TEST_F(Events, FlipAndRotateTheSelection) {
    open();
    const std::vector<Cell> r = {{11, 10}, {12, 10}, {10, 11}, {11, 11}, {11, 12}};  // in box (10, 10, 3, 3)
    const std::vector<Cell> blinker = {{30, 20}, {31, 20}, {32, 20}};
    auto with_blinker = [&](std::vector<Cell> v) {
        v.insert(v.end(), blinker.begin(), blinker.end());
        return sorted(v);
    };
    drag(Cell{10, 10}, Cell{12, 12}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    type('x');  // left-right
    EXPECT_EQ(cells(), with_blinker({{10, 10}, {11, 10}, {11, 11}, {12, 11}, {11, 12}}));
    type('z');
    type('y');  // top-bottom
    EXPECT_EQ(cells(), with_blinker({{11, 10}, {10, 11}, {11, 11}, {11, 12}, {12, 12}}));
    type('z');
    type('>');  // clockwise: (x, y) -> (2 - y, x)
    EXPECT_EQ(cells(), with_blinker({{11, 10}, {10, 11}, {11, 11}, {12, 11}, {12, 12}}));
    type('z');
    type('<');  // anticlockwise: (x, y) -> (y, 2 - x)
    EXPECT_EQ(cells(), with_blinker({{10, 10}, {10, 11}, {11, 11}, {12, 11}, {11, 12}}));
    type('z');
    EXPECT_EQ(cells(), start_);
    // A non-square selection turns about its centre, and the selection turns with it.
    drag(Cell{29, 20}, Cell{33, 20}, SDL_BUTTON_LEFT, KMOD_LCTRL);  // 5 x 1
    type('>');
    EXPECT_EQ(*v().selection(), (Box{31, 18, 1, 5}));
    EXPECT_EQ(cells(), sorted({{11, 10}, {12, 10}, {10, 11}, {11, 11}, {11, 12}, {31, 19}, {31, 20}, {31, 21}}));
    type('z');
    EXPECT_EQ(*v().selection(), (Box{29, 20, 5, 1}));
    EXPECT_EQ(cells(), start_);
    // Cells the turned rectangle covers outside the selection are kept, not cleared.
    engine_->set_cell(31, 17, true);  // just above the turned rectangle (31, 18, 1, 5), and one in it
    engine_->set_cell(31, 22, true);
    drag(Cell{29, 20}, Cell{33, 20}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    type('>');
    EXPECT_TRUE(engine_->get_cell(31, 22));
    EXPECT_TRUE(engine_->get_cell(31, 17));
    EXPECT_TRUE(engine_->get_cell(31, 19));
    type('z');
    EXPECT_TRUE(engine_->get_cell(31, 22));
    EXPECT_TRUE(engine_->get_cell(30, 20));
    EXPECT_FALSE(engine_->get_cell(31, 19));
    // Off the board: refused.
    drag(Cell{0, 47}, Cell{5, 47}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    const std::size_t depth = v().undo_depth();
    type('>');
    EXPECT_EQ(v().undo_depth(), depth);
    EXPECT_NE(v().message().find("leave the board"), std::string::npos) << v().message();
}

TEST_F(Events, FlipAndRotateThePaste) {
    open();
    SDL_SetClipboardText("x = 2, y = 3, rule = B3/S23\noo$o$o!\n");  // an L: (0,0) (1,0) (0,1) (0,2)
    type('v');
    move(Cell{40, 30});
    type('>');
    EXPECT_EQ(v().paste_box(), (Box{40, 30, 3, 2}));
    EXPECT_EQ(sorted(v().paste_cells()), sorted({{40, 30}, {41, 30}, {42, 30}, {42, 31}}));
    type('x');
    EXPECT_EQ(sorted(v().paste_cells()), sorted({{40, 30}, {41, 30}, {42, 30}, {40, 31}}));
    type('y');
    EXPECT_EQ(sorted(v().paste_cells()), sorted({{40, 31}, {41, 31}, {42, 31}, {40, 30}}));
    type('<');
    EXPECT_EQ(v().paste_box(), (Box{40, 30, 2, 3}));
    click(Cell{40, 30});
    std::vector<Cell> want = start_;
    for (const Cell& c : std::vector<Cell>{{41, 30}, {41, 31}, {41, 32}, {40, 32}}) want.push_back(c);
    EXPECT_EQ(cells(), sorted(want));
}

// --- Looks and the rest ----------------------------------------------------------------------------

TEST_F(Events, ToggleKeys) {
    open();
    EXPECT_FALSE(v().grid());
    type('l');
    EXPECT_TRUE(v().grid());
    type('g');
    EXPECT_FALSE(v().grid());
    type('w');
    EXPECT_TRUE(v().tiles());
    EXPECT_EQ(v().theme(), "dark");
    type('b');
    EXPECT_EQ(v().theme(), "light");
    type('b');
    EXPECT_EQ(v().theme(), "dark");
    type('B');
    EXPECT_TRUE(v().ages());
    type('h');
    EXPECT_TRUE(v().help());
    type('?');
    EXPECT_FALSE(v().help());
    key(SDLK_F1);
    EXPECT_TRUE(v().help());
    type('p');
    EXPECT_TRUE(v().take_screenshot_request());
    EXPECT_FALSE(v().take_screenshot_request());
    EXPECT_EQ(cells(), start_);
}

TEST_F(Events, QuitKeys) {
    open();
    key(SDLK_RETURN);
    key(SDLK_ESCAPE);  // Esc stops generating first
    EXPECT_FALSE(v().generating());
    EXPECT_FALSE(v().quit());
    key(SDLK_ESCAPE);
    EXPECT_TRUE(v().quit());
    open();
    type('q');
    EXPECT_TRUE(v().quit());
    open();
    key(SDLK_q, KMOD_LCTRL);
    EXPECT_TRUE(v().quit());
    open();
    SDL_Event e{};
    e.type = SDL_QUIT;
    send(e);
    EXPECT_TRUE(v().quit());
}

TEST_F(Events, EscapeCancelsASelectionDrag) {
    open();
    key(SDLK_F4);
    move(Cell{5, 5});
    button(SDL_MOUSEBUTTONDOWN, Cell{5, 5}, SDL_BUTTON_LEFT);
    move(Cell{9, 9});
    ASSERT_TRUE(v().selection());
    key(SDLK_ESCAPE);
    EXPECT_FALSE(v().selection());
    EXPECT_FALSE(v().quit());
    move(Cell{12, 12});  // the drag is over: moving selects nothing
    button(SDL_MOUSEBUTTONUP, Cell{12, 12}, SDL_BUTTON_LEFT);
    EXPECT_FALSE(v().selection());
}

TEST_F(Events, ResizeKeepsTheCentre) {
    open();
    const Cell c = v().camera().cell_at(320, 240);
    v().resize(1000, 700);
    EXPECT_EQ(v().camera().cell_at(500, 350), c);
    v().resize(200, 100);
    EXPECT_EQ(v().camera().cell_at(100, 50), c);
    EXPECT_EQ(v().width(), 200);
}

TEST_F(Events, StatusShowsTheCursorAndSelection) {
    Options o;
    o.golly_offset = Cell{-32, -24};  // Golly's coordinates on a 64 x 48 torus
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    move(Cell{40, 30});
    drag(Cell{5, 6}, Cell{9, 8}, SDL_BUTTON_LEFT, KMOD_LCTRL);
    move(Cell{40, 30});
    std::string all;
    for (const auto& l : v().status(200, 2)) all += l + "\n";
    EXPECT_NE(all.find("xy 8,6"), std::string::npos) << all;
    EXPECT_NE(all.find("sel 5x3"), std::string::npos) << all;
    EXPECT_NE(all.find("scale 1:8"), std::string::npos) << all;
    EXPECT_NE(all.find("gen 0"), std::string::npos) << all;
    for (int width : {8, 20, 40, 80, 120}) {
        const auto lines = v().status(width, 2);
        ASSERT_LE(lines.size(), 2u);
        for (const auto& l : lines) EXPECT_LE(static_cast<int>(l.size()), width) << l;
    }
}

TEST_F(Events, SaveWritesGollyRle) {
    imgtest::TempDir dir;
    Options o;
    o.stem = dir / "saved";
    o.golly_offset = Cell{-32, -24};
    open(kShape, {64, 48, Topology::torus, Rule::life()}, o);
    key(SDLK_SPACE);
    frames(1);
    key(SDLK_s, KMOD_LCTRL);
    const std::string path = dir / "saved-gen1.rle";
    ASSERT_TRUE(std::filesystem::exists(path)) << v().message();
    const Pattern p = read_pattern(path);
    EXPECT_EQ(p.generation, 1);
    EXPECT_EQ(p.cells, shift(expected(1), -32, -24));
}

// Interactively an engine error (an unbounded board reaching the memory budget) stops generating
// and shows the reason; the board stays (headless runs exit 1 instead: window_test).
TEST_F(Events, EngineErrorsStopGenerating) {
    register_builtin_engines();
    EngineOptions eo;
    eo.max_bytes = 100 << 10;
    auto e = create_engine("cpu:bitpacked", BoardSpec{64, 64, Topology::unbounded, Rule::life()}, eo);
    e->set_cells(read_pattern(std::string(TILELIFE_SOURCE_DIR) + "/patterns/gosper-glider-gun.rle").cells);
    Options o;
    o.step = 64;
    Viewer viewer(*e, o, 640, 480);
    for (int i = 0; i < 200 && viewer.generating(); ++i) viewer.frame();
    EXPECT_FALSE(viewer.generating());
    EXPECT_NE(viewer.message().find("memory budget"), std::string::npos) << viewer.message();
    EXPECT_GT(e->population(), 0);
}

// --- The tile overlay comes from Engine::describe() --------------------------------------------------

std::unique_ptr<CountingEngine> tiled(BoardSpec spec, std::optional<TileGeometry> t) {
    register_builtin_engines();
    auto e = std::make_unique<CountingEngine>(create_engine("cpu:reference", spec));
    e->tiles = t;
    return e;
}

int count(const std::vector<std::uint32_t>& px, std::uint32_t c) { return static_cast<int>(std::count(px.begin(), px.end(), c)); }

TEST_F(Events, TileOverlayIsTheEnginesDescription) {
    TileGeometry t;
    t.width = 20;
    t.height = 10;
    t.halo_x = 2;
    t.halo_y = 1;
    t.origin = Cell{0, 0};
    t.text = "test tiles";
    auto e = tiled(BoardSpec{60, 40, Topology::torus, Rule::life()}, t);
    Options o;
    o.paused = true;
    o.zoom_log = 2;  // 4 px a cell
    o.tiles = true;
    Viewer viewer(*e, o, 640, 480);
    std::vector<std::uint32_t> px;
    const RenderStats st = viewer.render(px);
    EXPECT_TRUE(st.tiles_drawn);
    const Palette pal = Palette::of(image::theme("dark"), false);
    // Vertical lines at board columns 0, 20, 40 (the board is 240 px wide, centred).
    const Camera& cam = viewer.camera();
    const int row = static_cast<int>(cam.pixel_y(5));
    for (std::int64_t x = 0; x < 60; ++x)
        EXPECT_EQ(px[row * 640 + cam.pixel_x(x)] == pal.tile, x % 20 == 0) << x;
    std::string status;
    for (const auto& l : viewer.status(300, 2)) status += l;
    EXPECT_NE(status.find("tiles 20x10 halo 2,1 (test tiles)"), std::string::npos) << status;
    // The halo of the tile under the cursor.
    SDL_Event m{};
    m.type = SDL_MOUSEMOTION;
    m.motion.x = static_cast<int>(cam.pixel_x(25));
    m.motion.y = static_cast<int>(cam.pixel_y(15));
    viewer.handle(m);
    viewer.render(px);
    // Tile (20, 10)-(39, 19) with a halo of 2 columns and 1 row: the ring's top is cell row 9, its
    // left side cell column 18, its right side the last pixel of column 41.
    EXPECT_EQ(px[cam.pixel_y(9) * 640 + cam.pixel_x(30)], pal.halo);
    EXPECT_EQ(px[cam.pixel_y(15) * 640 + cam.pixel_x(18)], pal.halo);
    EXPECT_EQ(px[cam.pixel_y(15) * 640 + cam.pixel_x(41) + 3], pal.halo);
    EXPECT_NE(px[cam.pixel_y(15) * 640 + cam.pixel_x(19)], pal.halo);
    EXPECT_EQ(count(px, pal.halo), 2 * 24 * 4 + 2 * (12 * 4 - 2));
    // Zoomed out until tiles are under 8 px: none drawn, and the status says so.
    SDL_Event w{};
    w.type = SDL_MOUSEWHEEL;
    w.wheel.y = -2;
    w.wheel.mouseX = 320;
    w.wheel.mouseY = 240;
    viewer.handle(w);  // 1 px a cell: 20 x 10 px tiles
    EXPECT_TRUE(viewer.render(px).tiles_drawn);
    viewer.handle(w);  // 4 cells a pixel: 5 x 2.5 px
    EXPECT_FALSE(viewer.render(px).tiles_drawn);
    EXPECT_EQ(count(px, pal.tile), 0);
    status.clear();
    for (const auto& l : viewer.status(300, 2)) status += l;
    EXPECT_NE(status.find("hidden at this scale"), std::string::npos) << status;
}

TEST_F(Events, NoTilesNoOverlay) {
    auto e = tiled(BoardSpec{60, 40, Topology::torus, Rule::life()}, std::nullopt);
    Options o;
    o.paused = true;
    o.zoom_log = 3;
    o.tiles = true;
    Viewer viewer(*e, o, 640, 480);
    std::vector<std::uint32_t> px;
    EXPECT_FALSE(viewer.render(px).tiles_drawn);
    EXPECT_EQ(count(px, Palette::of(image::theme("dark"), false).tile), 0);
    std::string status;
    for (const auto& l : viewer.status(300, 2)) status += l;
    EXPECT_NE(status.find("no tiles"), std::string::npos) << status;
}

// A long tile description (an OpenCL engine's shape, rows, K, device ...) once hid the whole second
// status line: wider than the line, it fitted nowhere and every second-line field was dropped with it.
TEST_F(Events, LongTileTextKeepsBothStatusLines) {
    TileGeometry t;
    t.width = 20;
    t.height = 10;
    t.halo_x = 32;
    t.halo_y = 12;
    t.origin = Cell{0, 0};
    t.text = "work-group 32x8, 32 rows per work-item, 12 generations per launch, activity tracking auto, "
             "on a device with a rather long name and many compute units";
    auto e = tiled(BoardSpec{60, 40, Topology::torus, Rule::life()}, t);
    Options o;
    o.paused = true;
    o.zoom_log = 3;
    o.tiles = true;
    Viewer viewer(*e, o, 640, 480);
    std::vector<std::uint32_t> px;
    ASSERT_TRUE(viewer.render(px).tiles_drawn);
    for (int width : {60, 100, 140}) {
        const auto lines = viewer.status(width, 2);
        ASSERT_EQ(lines.size(), 2u) << width;
        for (const auto& l : lines) EXPECT_LE(static_cast<int>(l.size()), width) << l;
        EXPECT_NE(lines[0].find("gen 0"), std::string::npos) << lines[0];
        EXPECT_NE(lines[1].find("tiles 20x10 halo 32,12 (work-group 32x8"), std::string::npos) << width << ": " << lines[1];
    }
}

// On an unbounded board the tiles repeat from the inner engine's origin, which the growing board
// moves with every re-layout; the overlay follows it.
TEST_F(Events, UnboundedTilesFollowTheGrowingBoard) {
    TileGeometry t;
    t.width = 16;
    t.height = 16;
    t.origin = Cell{0, 0};
    register_builtin_engines();
    EngineFactory factory = [t](const BoardSpec& s, const EngineOptions&) -> std::unique_ptr<Engine> {
        auto e = std::make_unique<CountingEngine>(create_engine("cpu:reference", s));
        e->tiles = t;
        return e;
    };
    auto board = make_unbounded("test:tiled", factory, BoardSpec{32, 32, Topology::unbounded, Rule::life()}, {},
                                [](const BoardSpec& s, const EngineOptions&) { return 2 * s.width * s.height; });
    board->set_cells(read_pattern(std::string(TILELIFE_SOURCE_DIR) + "/patterns/glider.rle").cells);
    Options o;
    o.paused = true;
    o.zoom_log = 2;
    o.tiles = true;
    Viewer viewer(*board, o, 640, 480);
    const Palette pal = Palette::of(image::theme("dark"), false);
    for (int round = 0; round < 4; ++round) {
        const auto d = board->describe();
        ASSERT_TRUE(d.tiles);
        std::vector<std::uint32_t> px;
        ASSERT_TRUE(viewer.render(px).tiles_drawn);
        const Camera& cam = viewer.camera();
        // A column on a tile boundary is a line from top to bottom of the window; one beside is not.
        const Cell o = d.tiles->origin;
        const std::int64_t first = o.x + ((cam.cell_x(0) - o.x) / 16 + 2) * 16;
        const std::int64_t mid_row = o.y + ((cam.cell_y(0) - o.y) / 16 + 2) * 16 + 8;  // inside a tile
        const auto col = cam.pixel_x(first), row = cam.pixel_y(mid_row);
        ASSERT_TRUE(col >= 0 && col + 4 < 640 && row >= 0 && row < 480) << col << " " << row;
        EXPECT_EQ(px[row * 640 + col], pal.tile) << "round " << round;
        EXPECT_NE(px[row * 640 + col + 4], pal.tile) << "round " << round;
        EXPECT_EQ(px[cam.pixel_y(mid_row - 8) * 640 + col + 4], pal.tile) << "round " << round;
        board->step(200);  // the glider travels; the board re-lays out
    }
}

// Every registered engine (the OpenCL kernels too, when built) gets exactly the tiles it describes,
// with nothing in the viewer knowing its name; engines without tiles get none.
TEST_F(Events, OverlayOfEveryEngineIsItsDescription) {
    register_builtin_engines();
    const Palette pal = Palette::of(image::theme("dark"), false);
    for (const EngineInfo& info : registered_engines()) {
        if (!info.bounded) continue;
        SCOPED_TRACE(info.name);
        auto e = create_engine(info.name, BoardSpec{2048, 256, Topology::torus, Rule::life()});
        const std::optional<TileGeometry> t = e->describe().tiles;
        Options o;
        o.paused = true;
        o.zoom_log = 0;  // one pixel a cell: the whole board in the window, cell x at pixel x
        o.tiles = true;
        Viewer viewer(*e, o, 2048, 256);
        std::vector<std::uint32_t> px;
        const RenderStats st = viewer.render(px);
        ASSERT_EQ(viewer.camera().pixel_x(0), 0);
        ASSERT_EQ(viewer.camera().pixel_y(0), 0);
        const bool legible = t && t->width >= 8 && t->height >= 8;
        EXPECT_EQ(st.tiles_drawn, legible);
        if (!legible) {
            EXPECT_EQ(count(px, pal.tile), 0);
            continue;
        }
        // A row inside the tiles (not on a horizontal line): vertical lines exactly at the tile columns.
        std::int64_t row = 1;
        while (((row - t->origin.y) % t->height + t->height) % t->height == 0) ++row;
        int wrong = 0;
        for (std::int64_t x = 0; x < 2048; ++x) {
            const bool line = ((x - t->origin.x) % t->width + t->width) % t->width == 0;
            wrong += (px[row * 2048 + x] == pal.tile) != line;
        }
        EXPECT_EQ(wrong, 0) << "tiles " << t->width << "x" << t->height << " from " << t->origin.x << "," << t->origin.y;
    }
}

// Ages: newly born, alive and died cells get the theme's colours, exactly.
TEST_F(Events, AgeColours) {
    open(std::vector<Cell>{{10, 10}, {11, 10}, {12, 10}});  // a blinker
    type('B');
    std::vector<std::uint32_t> px;
    v().render(px);
    const Palette pal = Palette::of(image::theme("dark"), true);
    key(SDLK_SPACE);
    frames(1);
    v().render(px);
    const auto pix = [&](Cell c) { return px[static_cast<std::size_t>(v().camera().pixel_y(c.y) + 4) * 640 + v().camera().pixel_x(c.x) + 4]; };
    EXPECT_EQ(pix(Cell{11, 9}), pal.state[image::kBornCell]);
    EXPECT_EQ(pix(Cell{11, 11}), pal.state[image::kBornCell]);
    EXPECT_EQ(pix(Cell{11, 10}), pal.state[image::kLiveCell]);
    EXPECT_EQ(pix(Cell{10, 10}), pal.state[image::kDiedCell]);
    EXPECT_EQ(pix(Cell{12, 10}), pal.state[image::kDiedCell]);
    EXPECT_EQ(pix(Cell{20, 20}), pal.dead());
    key(SDLK_SPACE);
    frames(1);
    v().render(px);
    EXPECT_EQ(pix(Cell{10, 10}), pal.state[image::kBornCell]);  // born again
    EXPECT_EQ(pix(Cell{11, 9}), pal.state[image::kDiedCell]);
    key(SDLK_SPACE);
    frames(1);
    v().render(px);
    EXPECT_EQ(pix(Cell{10, 10}), pal.state[image::kDiedCell]);
    EXPECT_EQ(pix(Cell{11, 9}), pal.state[image::kBornCell]);
    // A paused view redrawn keeps its colours; a drawn cell is plainly alive.
    v().render(px);
    EXPECT_EQ(pix(Cell{11, 9}), pal.state[image::kBornCell]);
    click(Cell{30, 30});
    v().render(px);
    EXPECT_EQ(pix(Cell{30, 30}), pal.state[image::kLiveCell]);
}

// --- The window around the viewer --------------------------------------------------------------

std::unique_ptr<Engine> board_with(const std::vector<Cell>& cells) {
    register_builtin_engines();
    auto e = create_engine("cpu:bitpacked", BoardSpec{40, 30, Topology::torus, Rule::life()});
    e->set_cells(cells);
    return e;
}

void push_text(char c) {
    SDL_Event t{};
    t.type = SDL_TEXTINPUT;
    t.text.text[0] = c;
    ASSERT_EQ(SDL_PushEvent(&t), 1) << SDL_GetError();
}

TEST(ViewerWindow, PWritesAScreenshot) {
    imgtest::TempDir dir;
    auto e = board_with(kShape);
    Options o;
    o.frames = 1;  // headless: allowed on the offscreen driver
    o.paused = true;
    o.zoom_log = 3;
    o.width = 400;
    o.height = 300;
    o.stem = dir / "shot";
    Window win(*e, o);
    push_text('p');
    ASSERT_TRUE(win.frame());
    const std::string path = dir / "shot-gen0.png";
    ASSERT_TRUE(std::filesystem::exists(path)) << win.viewer().message();
    const imgtest::Image img = imgtest::read_png(path);
    EXPECT_EQ(img.width, 400);
    EXPECT_EQ(img.height, 300);
    const std::uint32_t live = argb(image::theme("dark").live) & 0xFFFFFF;
    int n = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) n += img.at(x, y) == live;
    EXPECT_EQ(n, static_cast<int>(kShape.size()) * 64);
    // Q quits: frame() says so.
    push_text('q');
    EXPECT_FALSE(win.frame());
}

#ifdef TILELIFE_HAVE_TTF
// H shows the help over the board; the board's live cells disappear under it.
TEST(ViewerWindow, HelpOverlayCoversTheBoard) {
    imgtest::TempDir dir;
    std::vector<Cell> many;
    for (int y = 0; y < 30; y += 2)
        for (int x = 0; x < 40; x += 2) many.push_back({x, y});
    auto e = board_with(many);
    Options o;
    o.frames = 1;
    o.paused = true;
    o.zoom_log = 3;
    o.width = 400;
    o.height = 300;
    Window win(*e, o);
    const std::uint32_t live = argb(image::theme("dark").live) & 0xFFFFFF;
    auto live_in_corner = [&](const std::string& path) {
        const imgtest::Image img = imgtest::read_png(path);
        int n = 0;
        for (int y = 40; y < 120; ++y)
            for (int x = 40; x < 200; ++x) n += img.at(x, y) == live;
        return n;
    };
    ASSERT_TRUE(win.frame(dir / "a.png"));
    EXPECT_GT(live_in_corner(dir / "a.png"), 1000);
    push_text('h');
    ASSERT_TRUE(win.frame(dir / "b.png"));
    EXPECT_TRUE(win.viewer().help());
    EXPECT_LT(live_in_corner(dir / "b.png"), 50);
}
#endif

// Issue 10: an interactive window on a driver that shows nothing is refused.
TEST(ViewerWindow, NoInteractiveWindowWithoutADisplay) {
    auto e = board_with(kShape);
    Options o;
    o.frames = 0;
    const std::string driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
    if (driver == "offscreen" || driver == "dummy") {
        EXPECT_THROW(Window(*e, o), NoDisplay);
    } else {
        EXPECT_NO_THROW(Window(*e, o));  // a real display (x11 under xvfb-run)
    }
}

}  // namespace
}  // namespace tilelife::viewer
