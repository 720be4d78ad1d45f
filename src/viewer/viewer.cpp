// The SDL2 side of the viewer: window, events, the per-frame texture upload, text and files.
#include "viewer/viewer.hpp"

#include <SDL.h>
#ifdef TILELIFE_HAVE_TTF
#include <SDL_ttf.h>
#endif

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <random>
#include <vector>

#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"
#include "viewer/view.hpp"

namespace tilelife::viewer {
namespace {

using Clock = std::chrono::steady_clock;

bool inside(const Box& inner, const Box& outer) { return intersect(inner, outer) == inner; }

std::string human(double v) {
    char buf[32];
    if (v >= 1e12) std::snprintf(buf, sizeof buf, "%.2fT", v / 1e12);
    else if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
    else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
    else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
    else std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

// Bounding box of the live cells, scanning the engine's extent a strip at a time.
Box live_box(const Engine& engine) {
    const Box e = engine.extent();
    if (e.empty()) return Box{};
    const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / e.width);
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(std::min(strip, e.height) * e.width));
    std::int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = INT64_MIN, y1 = INT64_MIN;
    for (std::int64_t s = 0; s < e.height; s += strip) {
        const std::int64_t rows = std::min(strip, e.height - s);
        engine.read_region(Box{e.x, e.y + s, e.width, rows}, cells.data());
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::uint8_t* row = cells.data() + r * e.width;
            const auto first = std::find(row, row + e.width, std::uint8_t{1});
            if (first == row + e.width) continue;
            const std::int64_t last = e.width - 1 - (std::find(std::make_reverse_iterator(row + e.width),
                                                               std::make_reverse_iterator(row), std::uint8_t{1}) -
                                                     std::make_reverse_iterator(row + e.width));
            x0 = std::min(x0, e.x + (first - row));
            x1 = std::max(x1, e.x + last + 1);
            y0 = std::min(y0, e.y + s + r);
            y1 = std::max(y1, e.y + s + r + 1);
        }
    }
    if (x0 == INT64_MAX) return Box{};
    return Box{x0, y0, x1 - x0, y1 - y0};
}

// Writes `value` (0 or 1, or random with `density` when rng is given) over `box` in strips.
void fill(Engine& engine, const Box& box, std::mt19937_64* rng, double density) {
    if (box.empty()) return;
    const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / box.width);
    std::vector<std::uint8_t> cells;
    std::bernoulli_distribution alive(density);
    for (std::int64_t s = 0; s < box.height; s += strip) {
        const std::int64_t rows = std::min(strip, box.height - s);
        cells.assign(static_cast<std::size_t>(rows * box.width), 0);
        if (rng)
            for (auto& c : cells) c = alive(*rng) ? 1 : 0;
        engine.write_region(Box{box.x, box.y + s, box.width, rows}, cells.data());
    }
}

const char* const kHelp[] = {
    "Space      pause / run",
    "N, Right   one generation",
    "+ / -      faster / slower (gens per frame, then a frame-rate cap)",
    "Wheel      zoom about the cursor",
    "R/M drag   pan (right or middle button)",
    "F          fit the pattern (and follow its growth)",
    "L drag     draw cells; Shift+drag erases",
    "R          random fill of the visible board",
    "C          clear the board",
    "T          work-group tile overlay",
    "G          cell grid (when zoomed in)",
    "P          screenshot (PNG)",
    "Ctrl+S     save the board as RLE",
    "H, ?       this help",
    "Esc, Q     quit",
};

class Window {
public:
    Window(Engine& engine, const Options& o) : engine_(engine), o_(o) {
        if (SDL_Init(SDL_INIT_VIDEO) != 0)
            throw RuntimeError(std::string("cannot open a window: ") + SDL_GetError() +
                               " (no display? run under xvfb-run, or set SDL_VIDEODRIVER=offscreen)");
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "0");  // nearest: cells stay sharp
        window_ = SDL_CreateWindow(o.title.c_str(), SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, o.width, o.height,
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
        bounded_ = engine_.topology() != Topology::unbounded;
        board_ = engine_.extent();
        paused_ = o.paused;
        gpf_ = std::max<std::int64_t>(1, o.gens_per_frame);
        tiles_ = o.tiles;
        grid_ = o.grid;
        output_size();
        const Box lb = live_box(engine_);
        if (o.zoom_set) {
            const Box c = lb.empty() ? board_ : lb;
            const double cx = c.x + c.width / 2.0, cy = c.y + c.height / 2.0;
            cam_.set(o.zoom_log, std::llround(cx * std::ldexp(1.0, o.zoom_log) - w_ / 2.0),
                     std::llround(cy * std::ldexp(1.0, o.zoom_log) - view_h() / 2.0));
            follow_ = false;
        } else {
            cam_.fit(lb.empty() ? board_ : lb, w_, view_h());
        }
    }

    ~Window() {
#ifdef TILELIFE_HAVE_TTF
        for (auto& [text, tex] : text_cache_) SDL_DestroyTexture(tex);
        if (font_) TTF_CloseFont(font_);
        if (ttf_) TTF_Quit();
#endif
        if (texture_) SDL_DestroyTexture(texture_);
        if (renderer_) SDL_DestroyRenderer(renderer_);
        if (window_) SDL_DestroyWindow(window_);
        SDL_Quit();
    }

    int loop() {
        std::int64_t frame = 0;
        const bool headless = o_.frames > 0;
        const auto frame_time = std::chrono::microseconds(1000000 / std::max(1, o_.fps));
        while (!quit_) {
            const auto t0 = Clock::now();
            events();
            if (quit_) break;
            ++frame;
            if (!paused_ && frame % frames_per_gen_ == 0) step(gpf_);
            follow();
            draw(headless && frame >= o_.frames && !o_.screenshot.empty() ? o_.screenshot : std::string());
            if (headless && frame >= o_.frames) break;
            if (!headless) {
                const auto spent = Clock::now() - t0;
                if (spent < frame_time)
                    SDL_Delay(static_cast<Uint32>(std::chrono::duration_cast<std::chrono::milliseconds>(frame_time - spent).count()));
            }
        }
        if (headless)
            std::printf("frames %" PRId64 "  generation %" PRId64 "  population %" PRId64 "\n", frame,
                        engine_.generation(), engine_.population());
        return 0;
    }

private:
    [[noreturn]] void fail(const std::string& what) { throw RuntimeError(what + ": " + SDL_GetError()); }

    // Height of the board area: the status bar takes the bottom two text lines.
    int view_h() const { return std::max(1, h_ - status_h()); }
    int status_h() const {
#ifdef TILELIFE_HAVE_TTF
        if (font_) return 2 * TTF_FontLineSkip(font_) + 4;
#endif
        return 0;
    }

    void output_size() {
        int w = 0, h = 0;
        SDL_GetRendererOutputSize(renderer_, &w, &h);
        int ww = 0, wh = 0;
        SDL_GetWindowSize(window_, &ww, &wh);
        scale_x_ = ww > 0 ? static_cast<double>(w) / ww : 1.0;
        scale_y_ = wh > 0 ? static_cast<double>(h) / wh : 1.0;
        w_ = std::max(1, w);
        h_ = std::max(1, h);
    }

    Cell cell_under(int mx, int my) const {
        return cam_.cell_at(static_cast<std::int64_t>(mx * scale_x_), static_cast<std::int64_t>(my * scale_y_));
    }

    void step(std::int64_t n) {
        engine_.step(n);
        const Box e = engine_.extent();
        history_.push_back({Clock::now(), engine_.generation(), static_cast<double>(n) * e.width * e.height});
        while (history_.size() > 2 && history_.back().t - history_.front().t > std::chrono::seconds(1))
            history_.pop_front();
    }

    void set_cells(Cell a, Cell b, bool alive) {
        for (const Cell& c : line_cells(a, b)) {
            if (bounded_ && !board_.contains(c)) continue;
            engine_.set_cell(c.x, c.y, alive);
        }
    }

    void message(std::string text) {
        message_ = std::move(text);
        message_until_ = Clock::now() + std::chrono::seconds(4);
    }

    void fit() {
        const Box lb = live_box(engine_);
        if (!lb.empty() || bounded_) cam_.fit(lb.empty() ? board_ : lb, w_, view_h());
        follow_ = true;
    }

    // Unbounded boards: while following, zoom out when live cells leave the view. The extent (which
    // holds every live cell) is free to ask; the cells are scanned only when it pokes out, twice a second.
    void follow() {
        if (bounded_ || !follow_) return;
        const Box vis = cam_.visible(w_, view_h());
        if (inside(engine_.extent(), vis)) return;
        if (Clock::now() - last_follow_ < std::chrono::milliseconds(500) && o_.frames == 0) return;
        last_follow_ = Clock::now();
        const Box lb = live_box(engine_);
        if (!lb.empty() && !inside(lb, vis)) cam_.fit(lb, w_, view_h(), cam_.zoom_log());
    }

    std::string filename(const char* ext) const {
        return o_.stem + "-gen" + std::to_string(o_.generation0 + engine_.generation()) + ext;
    }

    void save_rle() {
        const std::string path = filename(".rle");
        try {
            std::vector<Cell> cells = engine_.live_cells();
            for (Cell& c : cells) c = Cell{c.x + o_.golly_offset.x, c.y + o_.golly_offset.y};
            write_file_atomic(path, format_rle(cells, o_.rule_for_output, o_.generation0 + engine_.generation()));
            message("saved " + path);
        } catch (const std::exception& e) {
            message(std::string("save failed: ") + e.what());
        }
    }

    void events() {
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            switch (ev.type) {
                case SDL_QUIT: quit_ = true; break;
                case SDL_WINDOWEVENT:
                    if (ev.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
                        const int w0 = w_, h0 = view_h();
                        output_size();
                        cam_.resize(w0, h0, w_, view_h());
                    }
                    break;
                case SDL_KEYDOWN: key(ev.key.keysym); break;
                case SDL_MOUSEWHEEL: {
                    int mx = 0, my = 0;
                    SDL_GetMouseState(&mx, &my);
                    const int steps = ev.wheel.y > 0 ? 1 : ev.wheel.y < 0 ? -1 : 0;
                    if (steps) cam_.zoom_about(mx * scale_x_, my * scale_y_, steps);
                    follow_ = false;
                    break;
                }
                case SDL_MOUSEBUTTONDOWN:
                    if (ev.button.button == SDL_BUTTON_LEFT) {
                        drawing_ = true;
                        erase_ = (SDL_GetModState() & KMOD_SHIFT) != 0;
                        last_ = cell_under(ev.button.x, ev.button.y);
                        set_cells(last_, last_, !erase_);
                    } else if (ev.button.button == SDL_BUTTON_RIGHT || ev.button.button == SDL_BUTTON_MIDDLE) {
                        panning_ = true;
                        follow_ = false;
                    }
                    break;
                case SDL_MOUSEBUTTONUP:
                    if (ev.button.button == SDL_BUTTON_LEFT) drawing_ = false;
                    else panning_ = false;
                    break;
                case SDL_MOUSEMOTION:
                    if (panning_)
                        cam_.pan_pixels(std::llround(ev.motion.xrel * scale_x_), std::llround(ev.motion.yrel * scale_y_));
                    if (drawing_) {
                        const Cell c = cell_under(ev.motion.x, ev.motion.y);
                        set_cells(last_, c, !erase_);
                        last_ = c;
                    }
                    break;
                default: break;
            }
        }
    }

    void key(const SDL_Keysym& k) {
        const bool shift = (k.mod & KMOD_SHIFT) != 0, ctrl = (k.mod & KMOD_CTRL) != 0;
        switch (k.sym) {
            case SDLK_ESCAPE:
            case SDLK_q: quit_ = true; break;
            case SDLK_SPACE: paused_ = !paused_; break;
            case SDLK_n:
            case SDLK_RIGHT:
                paused_ = true;
                step(1);
                break;
            case SDLK_PLUS:
            case SDLK_EQUALS:
            case SDLK_KP_PLUS:
                if (frames_per_gen_ > 1) frames_per_gen_ /= 2;
                else gpf_ = std::min<std::int64_t>(gpf_ * 2, std::int64_t{1} << 24);
                break;
            case SDLK_MINUS:
            case SDLK_KP_MINUS:
                if (gpf_ > 1) gpf_ /= 2;
                else frames_per_gen_ = std::min<std::int64_t>(frames_per_gen_ * 2, 64);
                break;
            case SDLK_f: fit(); break;
            case SDLK_r: {
                const Box vis = cam_.visible(w_, view_h());
                Box area = bounded_ ? intersect(vis, board_) : vis;
                // An unbounded board is filled only near the view's centre: at most 2048 x 2048.
                if (!bounded_ && (area.width > 2048 || area.height > 2048)) {
                    const std::int64_t fw = std::min<std::int64_t>(area.width, 2048), fh = std::min<std::int64_t>(area.height, 2048);
                    area = Box{area.x + (area.width - fw) / 2, area.y + (area.height - fh) / 2, fw, fh};
                }
                fill(engine_, area, &rng_, 0.3);
                message("random fill " + std::to_string(area.width) + "x" + std::to_string(area.height));
                break;
            }
            case SDLK_c:
                fill(engine_, engine_.extent(), nullptr, 0);
                message("cleared");
                break;
            case SDLK_t: tiles_ = !tiles_; break;
            case SDLK_g: grid_ = !grid_; break;
            case SDLK_p: screenshot_next_ = true; break;
            case SDLK_s:
                if (ctrl) save_rle();
                break;
            case SDLK_h:
            case SDLK_QUESTION: help_ = !help_; break;
            case SDLK_SLASH:
                if (shift) help_ = !help_;
                break;
            default: break;
        }
    }

    std::string status_line1() const {
        double gens_s = 0, cells_s = 0;
        if (history_.size() >= 2 && !paused_) {
            const double dt = std::chrono::duration<double>(history_.back().t - history_.front().t).count();
            double work = 0;
            for (std::size_t i = 1; i < history_.size(); ++i) work += history_[i].cell_updates;
            if (dt > 0) {
                gens_s = (history_.back().generation - history_.front().generation) / dt;
                cells_s = work / dt;
            }
        }
        const Box e = engine_.extent();
        std::string s = "gen " + std::to_string(o_.generation0 + engine_.generation()) + "  pop " +
                        std::to_string(engine_.population()) + "  " + human(gens_s) + " gens/s  " + human(cells_s) +
                        " cell-updates/s  " + engine_.name();
        if (!o_.device.empty())  // long OpenCL names would push the rest off the line
            s += " [" + (o_.device.size() > 36 ? o_.device.substr(0, 33) + "..." : o_.device) + "]";
        s += "  " + std::string(to_string(engine_.topology())) + " " + std::to_string(e.width) + "x" +
             std::to_string(e.height) + "  " + engine_.rule().to_string();
        return s;
    }

    std::string status_line2() const {
        std::string s = paused_ ? "PAUSED" : "running";
        s += frames_per_gen_ > 1 ? "  1 gen / " + std::to_string(frames_per_gen_) + " frames"
                                 : "  " + std::to_string(gpf_) + " gen/frame";
        const int zl = cam_.zoom_log();
        s += zl >= 0 ? "  zoom " + std::to_string(1 << zl) + ":1" : "  zoom 1:" + std::to_string(1 << -zl);
        if (tiles_) s += "  tiles " + std::to_string(o_.tile_w) + "x" + std::to_string(o_.tile_h) + " " + o_.tile_note;
        if (!message_.empty() && Clock::now() < message_until_) s += "  | " + message_;
        else s += "  | H: help";
        return s;
    }

    void text(const std::string& s, int x, int y) {
#ifdef TILELIFE_HAVE_TTF
        if (!font_ || s.empty()) return;
        auto it = std::find_if(text_cache_.begin(), text_cache_.end(), [&](const auto& p) { return p.first == s; });
        SDL_Texture* tex = nullptr;
        if (it != text_cache_.end()) {
            tex = it->second;
        } else {
            SDL_Surface* surf = TTF_RenderUTF8_Blended(font_, s.c_str(), SDL_Color{230, 230, 230, 255});
            if (!surf) return;
            tex = SDL_CreateTextureFromSurface(renderer_, surf);
            SDL_FreeSurface(surf);
            if (!tex) return;
            text_cache_.emplace_back(s, tex);
            // Status text changes every frame: keep only the recent renderings.
            if (text_cache_.size() > 64) {
                SDL_DestroyTexture(text_cache_.front().second);
                text_cache_.erase(text_cache_.begin());
            }
        }
        int tw = 0, th = 0;
        SDL_QueryTexture(tex, nullptr, nullptr, &tw, &th);
        SDL_Rect dst{x, y, tw, th};
        SDL_RenderCopy(renderer_, tex, nullptr, &dst);
#else
        (void)s, (void)x, (void)y;
#endif
    }

    void draw(const std::string& screenshot_path) {
        const int vh = view_h();
        if (!texture_ || tex_w_ != w_ || tex_h_ != vh) {
            if (texture_) SDL_DestroyTexture(texture_);
            texture_ = SDL_CreateTexture(renderer_, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, w_, vh);
            if (!texture_) fail("cannot create the board texture");
            tex_w_ = w_;
            tex_h_ = vh;
        }
        Overlay ov;
        ov.bounded = bounded_;
        ov.board = board_;
        ov.grid = grid_;
        ov.tiles = tiles_;
        ov.tile_w = o_.tile_w;
        ov.tile_h = o_.tile_h;
        // Only the visible part of the board is read back (render() intersects with this box).
        const Box readable = bounded_ ? board_ : engine_.extent();
        render(pixels_, w_, vh, cam_, readable, [&](const Box& b, std::uint8_t* c) { engine_.read_region(b, c); }, ov);
        SDL_UpdateTexture(texture_, nullptr, pixels_.data(), w_ * 4);
        SDL_SetRenderDrawColor(renderer_, 0x10, 0x10, 0x14, 255);
        SDL_RenderClear(renderer_);
        SDL_Rect dst{0, 0, w_, vh};
        SDL_RenderCopy(renderer_, texture_, nullptr, &dst);

        const std::string l1 = status_line1(), l2 = status_line2();
        if (font_ready()) {
#ifdef TILELIFE_HAVE_TTF
            const int skip = TTF_FontLineSkip(font_);
            text(l1, 6, vh + 2);
            text(l2, 6, vh + 2 + skip);
            if (help_) {
                const int n = static_cast<int>(std::size(kHelp));
                SDL_SetRenderDrawBlendMode(renderer_, SDL_BLENDMODE_BLEND);
                SDL_SetRenderDrawColor(renderer_, 0, 0, 0, 200);
                SDL_Rect box{20, 20, std::min(w_ - 40, 70 * skip / 2 + 40), (n + 1) * skip + 20};
                SDL_RenderFillRect(renderer_, &box);
                for (int i = 0; i < n; ++i) text(kHelp[i], 36, 30 + i * skip);
            }
#endif
        } else if (Clock::now() - last_title_ > std::chrono::milliseconds(250)) {
            last_title_ = Clock::now();
            SDL_SetWindowTitle(window_, (o_.title + " - " + l1 + "  " + l2).c_str());
        }

        const bool shot = !screenshot_path.empty() || screenshot_next_;
        if (shot) {
            // The window as drawn, before it is presented (the back buffer is undefined after).
            std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w_) * h_ * 3);
            const std::string path = screenshot_path.empty() ? filename(".png") : screenshot_path;
            screenshot_next_ = false;
            if (SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_RGB24, rgb.data(), w_ * 3) != 0) {
                if (!screenshot_path.empty()) fail("cannot read the window back for the screenshot");
                message(std::string("screenshot failed: ") + SDL_GetError());
            } else {
#ifdef TILELIFE_HAVE_PNG
                try {
                    image::write_png_rgb(path, w_, h_, rgb.data(), static_cast<std::size_t>(w_) * 3);
                    message("screenshot " + path);
                } catch (const std::exception& e) {
                    if (!screenshot_path.empty()) throw;
                    message(std::string("screenshot failed: ") + e.what());
                }
#else
                if (!screenshot_path.empty())
                    throw RuntimeError("this build of tilelife has no PNG support (install libpng-dev)");
                message("screenshots need PNG support (libpng) in this build");
#endif
            }
        }
        SDL_RenderPresent(renderer_);
    }

    bool font_ready() const {
#ifdef TILELIFE_HAVE_TTF
        return font_ != nullptr;
#else
        return false;
#endif
    }

    struct Sample {
        Clock::time_point t;
        std::int64_t generation;
        double cell_updates;
    };

    Engine& engine_;
    Options o_;
    SDL_Window* window_ = nullptr;
    SDL_Renderer* renderer_ = nullptr;
    SDL_Texture* texture_ = nullptr;
    int tex_w_ = 0, tex_h_ = 0;
#ifdef TILELIFE_HAVE_TTF
    bool ttf_ = false;
    TTF_Font* font_ = nullptr;
    std::vector<std::pair<std::string, SDL_Texture*>> text_cache_;
#else
    void* font_ = nullptr;
#endif
    int w_ = 0, h_ = 0;
    double scale_x_ = 1, scale_y_ = 1;
    Camera cam_;
    bool bounded_ = false;
    Box board_;
    bool quit_ = false, paused_ = false, tiles_ = false, grid_ = false, help_ = false, follow_ = true;
    bool drawing_ = false, erase_ = false, panning_ = false, screenshot_next_ = false;
    Cell last_;
    std::int64_t gpf_ = 1, frames_per_gen_ = 1;
    std::deque<Sample> history_;
    std::vector<std::uint32_t> pixels_;
    std::string message_;
    Clock::time_point message_until_{}, last_follow_{}, last_title_{};
    std::mt19937_64 rng_{20240601};
};

}  // namespace

int run(Engine& engine, const Options& options) {
    Window window(engine, options);
    return window.loop();
}

}  // namespace tilelife::viewer
