// The SDL2 shell of the viewer: window, event pump, the per-frame texture upload, text and files.
#include "viewer/viewer.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "image/image.hpp"
#include "viewer/window.hpp"

namespace tilelife::viewer {

// The drivers SDL would try, less `skip`, as SDL's driver hint (a comma-separated list), unless the
// user chose drivers (SDL_VIDEODRIVER, which SDL's hint reads too).
static void skip_video_drivers(const std::vector<std::string>& skip) {
    const char* chosen = SDL_GetHint(SDL_HINT_VIDEODRIVER);
    if (skip.empty() || (chosen && *chosen)) return;
    std::string list;
    for (int i = 0; i < SDL_GetNumVideoDrivers(); ++i) {
        const std::string name = SDL_GetVideoDriver(i);
        if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
        list += (list.empty() ? "" : ",") + name;
    }
    if (!list.empty()) SDL_SetHint(SDL_HINT_VIDEODRIVER, list.c_str());
}

Window::Window(Engine& engine, const Options& options) : o_(options) {
    skip_video_drivers(o_.skip_video_drivers);
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        throw NoDisplay(std::string("cannot open a window: ") + SDL_GetError() + " (no display?)");
    const char* driver = SDL_GetCurrentVideoDriver();
    driver_ = driver ? driver : "";
    // Without a display SDL falls back to drivers that draw nowhere: an interactive session there
    // would run invisibly for ever.
    if (o_.frames == 0 && (driver_ == "offscreen" || driver_ == "dummy")) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        throw NoDisplay("cannot open a window: no display (SDL's video driver is '" + driver_ +
                        "', which shows nothing)");
    }
    SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "0");  // nearest: cells stay sharp
    window_ = SDL_CreateWindow(o_.title.c_str(), SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, o_.width, o_.height,
                               SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!window_) fail("cannot create the window");
    renderer_ = SDL_CreateRenderer(window_, -1, SDL_RENDERER_ACCELERATED);
    if (!renderer_) renderer_ = SDL_CreateRenderer(window_, -1, SDL_RENDERER_SOFTWARE);
    if (!renderer_) fail("cannot create a renderer");
#ifdef TILELIFE_HAVE_TTF
    if (TTF_Init() == 0) {
        ttf_ = true;
        font_ = TTF_OpenFont(TILELIFE_FONT, 14);
    }
#endif
    SDL_StartTextInput();  // keys that type characters arrive as text: layout-independent < > ? + -
    output_size();
    if (o_.frames == 0 && o_.frame_budget_ms <= 0) o_.frame_budget_ms = 600.0 / std::max(1, o_.fps);
    viewer_ = std::make_unique<Viewer>(engine, o_, w_, std::max(1, h_ - status_h()));
    viewer_->resize(w_, std::max(1, h_ - status_h()), scale_x_, scale_y_);
}

Window::~Window() {
    viewer_.reset();
#ifdef TILELIFE_HAVE_TTF
    for (auto& t : text_cache_) SDL_DestroyTexture(t.texture);
    if (font_) TTF_CloseFont(font_);
    if (ttf_) TTF_Quit();
#endif
    if (texture_) SDL_DestroyTexture(texture_);
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (window_) SDL_DestroyWindow(window_);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

void Window::fail(const std::string& what) {
    const std::string msg = what + ": " + SDL_GetError();
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (window_) SDL_DestroyWindow(window_);
    renderer_ = nullptr;
    window_ = nullptr;
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    throw RuntimeError(msg);
}

// The status bar: two text lines under the board.
int Window::status_h() const {
#ifdef TILELIFE_HAVE_TTF
    if (font_) return 2 * TTF_FontLineSkip(font_) + 4;
#endif
    return 0;
}

void Window::output_size() {
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(renderer_, &w, &h);
    int ww = 0, wh = 0;
    SDL_GetWindowSize(window_, &ww, &wh);
    scale_x_ = ww > 0 ? static_cast<double>(w) / ww : 1.0;
    scale_y_ = wh > 0 ? static_cast<double>(h) / wh : 1.0;
    w_ = std::max(1, w);
    h_ = std::max(1, h);
}

int Window::text_width(const std::string& s) const {
#ifdef TILELIFE_HAVE_TTF
    int tw = 0;
    if (font_ && TTF_SizeUTF8(font_, s.c_str(), &tw, nullptr) == 0) return tw;
#endif
    (void)s;
    return 0;
}

void Window::text(const std::string& s, int x, int y, image::Rgb color) {
#ifdef TILELIFE_HAVE_TTF
    if (!font_ || s.empty()) return;
    auto it = std::find_if(text_cache_.begin(), text_cache_.end(),
                           [&](const CachedText& t) { return t.text == s && t.color == color; });
    SDL_Texture* tex = nullptr;
    if (it != text_cache_.end()) {
        tex = it->texture;
    } else {
        SDL_Surface* surf = TTF_RenderUTF8_Blended(font_, s.c_str(), SDL_Color{color.r, color.g, color.b, 255});
        if (!surf) return;
        tex = SDL_CreateTextureFromSurface(renderer_, surf);
        SDL_FreeSurface(surf);
        if (!tex) return;
        text_cache_.push_back({s, color, tex});
        // Status text changes every frame: keep only the recent renderings (and the help's).
        if (text_cache_.size() > 160) {
            SDL_DestroyTexture(text_cache_.front().texture);
            text_cache_.erase(text_cache_.begin());
        }
    }
    int tw = 0, th = 0;
    SDL_QueryTexture(tex, nullptr, nullptr, &tw, &th);
    SDL_Rect dst{x, y, tw, th};
    SDL_RenderCopy(renderer_, tex, nullptr, &dst);
#else
    (void)s, (void)x, (void)y, (void)color;
#endif
}

// The keys in as many columns as the window takes.
void Window::draw_help() {
#ifdef TILELIFE_HAVE_TTF
    if (!font_) return;
    const auto& keys = Viewer::keys();
    const int skip = TTF_FontLineSkip(font_);
    int kw = 0, aw = 0;
    for (const auto& [k, a] : keys) {
        kw = std::max(kw, text_width(k));
        aw = std::max(aw, text_width(a));
    }
    const int col_w = kw + 16 + aw + 24;
    const int avail_w = std::max(1, w_ - 40), avail_h = std::max(skip, viewer_->height() - 56 - skip);
    const int n = static_cast<int>(keys.size());
    // As few columns as the height allows (easier to read), as many as the width takes.
    const int max_cols = std::clamp(avail_w / col_w, 1, n);
    int cols = 1;
    while (cols < max_cols && ((n + cols - 1) / cols) * skip > avail_h) ++cols;
    const int rows = (n + cols - 1) / cols;
    const int fit_rows = std::max(1, std::min(rows, avail_h / skip));
    const image::Colors& c = viewer_->colors();
    SDL_SetRenderDrawBlendMode(renderer_, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(renderer_, c.panel.r, c.panel.g, c.panel.b, 225);
    SDL_Rect box{20, 20, std::min(w_ - 40, cols * col_w + 16), (fit_rows + 1) * skip + 20};
    SDL_RenderFillRect(renderer_, &box);
    text("tilelife view: Golly's keys (all in docs/viewer.md)", 32, 28, c.text);
    for (int i = 0; i < n; ++i) {
        const int col = i / rows, row = i % rows;
        if (row >= fit_rows) continue;
        const int x = 32 + col * col_w, y = 28 + (1 + row) * skip;
        // A window too small for every key says where the rest are.
        if (row == fit_rows - 1 && rows > fit_rows && col == cols - 1) {
            text("... (window too small: see docs/viewer.md)", x, y, c.text);
            continue;
        }
        text(keys[i].first, x, y, c.tile);
        text(keys[i].second, x + kw + 16, y, c.text);
    }
#endif
}

void Window::screenshot(const std::string& path, bool required) {
    // The window as drawn, before it is presented (the back buffer is undefined after).
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w_) * h_ * 3);
    if (SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_RGB24, rgb.data(), w_ * 3) != 0) {
        if (required) fail("cannot read the window back for the screenshot");
        viewer_->show(std::string("screenshot failed: ") + SDL_GetError());
        return;
    }
#ifdef TILELIFE_HAVE_PNG
    try {
        image::write_png_rgb(path, w_, h_, rgb.data(), static_cast<std::size_t>(w_) * 3);
        viewer_->show("screenshot " + path);
    } catch (const std::exception& e) {
        if (required) throw;
        viewer_->show(std::string("screenshot failed: ") + e.what());
    }
#else
    if (required) throw RuntimeError("this build of tilelife has no PNG support (install libpng-dev)");
    viewer_->show("screenshots need PNG support (libpng) in this build");
    (void)path;
#endif
}

bool Window::frame(const std::string& screenshot_path) {
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) {
        if (ev.type == SDL_WINDOWEVENT && ev.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
            output_size();
            viewer_->resize(w_, std::max(1, h_ - status_h()), scale_x_, scale_y_);
        } else {
            viewer_->handle(ev);
        }
    }
    if (viewer_->quit()) return false;
    viewer_->frame();

    const int vh = viewer_->height();
    if (!texture_ || tex_w_ != w_ || tex_h_ != vh) {
        if (texture_) SDL_DestroyTexture(texture_);
        texture_ = SDL_CreateTexture(renderer_, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, w_, vh);
        if (!texture_) fail("cannot create the board texture");
        tex_w_ = w_;
        tex_h_ = vh;
    }
    viewer_->render(pixels_);
    SDL_UpdateTexture(texture_, nullptr, pixels_.data(), w_ * 4);
    const image::Colors& c = viewer_->colors();
    SDL_SetRenderDrawColor(renderer_, c.panel.r, c.panel.g, c.panel.b, 255);
    SDL_RenderClear(renderer_);
    SDL_Rect dst{0, 0, w_, vh};
    SDL_RenderCopy(renderer_, texture_, nullptr, &dst);

    const int char_w = std::max(1, text_width("M"));
    if (status_h() > 0) {
#ifdef TILELIFE_HAVE_TTF
        const int skip = TTF_FontLineSkip(font_);
        const auto lines = viewer_->status(std::max(1, (w_ - 12) / char_w), 2);
        for (std::size_t i = 0; i < lines.size(); ++i) text(lines[i], 6, vh + 2 + static_cast<int>(i) * skip, c.text);
        if (viewer_->help()) draw_help();
#endif
    } else if (SDL_GetTicks() - last_title_ > 250) {
        last_title_ = SDL_GetTicks();
        const auto lines = viewer_->status(400, 1);
        SDL_SetWindowTitle(window_, (o_.title + " - " + (lines.empty() ? "" : lines[0])).c_str());
    }
    if (!screenshot_path.empty()) screenshot(screenshot_path, true);
    if (viewer_->take_screenshot_request()) screenshot(viewer_->filename(".png"), false);
    SDL_RenderPresent(renderer_);
    return true;
}

int Window::loop() {
    using Clock = std::chrono::steady_clock;
    const bool headless = o_.frames > 0;
    const auto frame_time = std::chrono::microseconds(1000000 / std::max(1, o_.fps));
    std::int64_t frame_no = 0;
    for (;;) {
        const auto t0 = Clock::now();
        const bool last = headless && frame_no + 1 >= o_.frames;
        if (!frame(last ? o_.screenshot : std::string())) break;
        ++frame_no;
        if (last) break;
        if (!headless) {
            const auto spent = Clock::now() - t0;
            if (spent < frame_time)
                SDL_Delay(static_cast<Uint32>(std::chrono::duration_cast<std::chrono::milliseconds>(frame_time - spent).count()));
        }
    }
    if (headless)
        std::printf("frames %" PRId64 "  generation %" PRId64 "  population %" PRId64 "  engine %s\n", frame_no,
                    viewer_->generation(), viewer_->engine().population(), viewer_->engine().describe().name.c_str());
    return 0;
}

int run(Engine& engine, const Options& options) {
    Window window(engine, options);
    return window.loop();
}

}  // namespace tilelife::viewer
