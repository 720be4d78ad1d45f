// The SDL2 window around a Viewer: opens the window, feeds it events, uploads its pixels as one
// streaming texture per frame, draws the status line and help, and takes screenshots. Exposed for
// tests, which push events with SDL_PushEvent and run frames one at a time.
#pragma once
#include <SDL.h>

#include <memory>
#include <string>
#include <vector>

#include "tilelife/error.hpp"
#include "viewer/session.hpp"
#include "viewer/viewer.hpp"

#ifdef TILELIFE_HAVE_TTF
#include <SDL_ttf.h>
#endif

namespace tilelife::viewer {

// No window can be shown: no display, or only SDL's offscreen/dummy drivers (which draw nowhere)
// for an interactive session.
struct NoDisplay : RuntimeError {
    using RuntimeError::RuntimeError;
};

class Window {
public:
    Window(Engine& engine, const Options& options);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    // One frame: pending events, generations, drawing; writes the window to `screenshot` (PNG) when
    // given, and to STEM-genG.png when the user asked (P). False once the user has quit.
    bool frame(const std::string& screenshot = {});
    // Frames until the user quits (interactive) or Options::frames frames (headless). Exit code.
    int loop();
    Viewer& viewer() { return *viewer_; }
    const std::string& video_driver() const { return driver_; }

private:
    [[noreturn]] void fail(const std::string& what);
    int status_h() const;
    void output_size();
    void text(const std::string& s, int x, int y, image::Rgb color);
    int text_width(const std::string& s) const;
    void draw_help();
    void screenshot(const std::string& path, bool required);

    Options o_;
    std::string driver_;
    SDL_Window* window_ = nullptr;
    SDL_Renderer* renderer_ = nullptr;
    SDL_Texture* texture_ = nullptr;
    int tex_w_ = 0, tex_h_ = 0;
#ifdef TILELIFE_HAVE_TTF
    bool ttf_ = false;
    TTF_Font* font_ = nullptr;
    struct CachedText {
        std::string text;
        image::Rgb color;
        SDL_Texture* texture;
    };
    std::vector<CachedText> text_cache_;
#endif
    int w_ = 0, h_ = 0;
    double scale_x_ = 1, scale_y_ = 1;
    std::unique_ptr<Viewer> viewer_;
    std::vector<std::uint32_t> pixels_;
    std::uint32_t last_title_ = 0;
};

}  // namespace tilelife::viewer
