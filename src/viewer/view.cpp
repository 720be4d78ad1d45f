#include "viewer/view.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tilelife::viewer {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Which state wins a zoomed-out pixel: born over alive over the trail (newest first) over dead.
constexpr int priority(std::uint8_t s) {
    return s == image::kBornCell   ? image::kCellStates + 1
           : s == image::kLiveCell ? image::kCellStates
           : s >= image::kDiedCell && s < image::kCellStates ? image::kCellStates - (s - image::kDiedCell) - 1
                                                             : 0;
}

std::uint32_t blend(std::uint32_t a, std::uint32_t b, int b_share_of_256) {
    auto ch = [&](int shift) {
        const int x = (a >> shift) & 0xFF, y = (b >> shift) & 0xFF;
        return static_cast<std::uint32_t>((x * (256 - b_share_of_256) + y * b_share_of_256) >> 8) << shift;
    };
    return 0xFF000000u | ch(16) | ch(8) | ch(0);
}

}  // namespace

double Camera::zoom() const { return std::ldexp(1.0, zoom_log_); }

std::int64_t Camera::first_cell(std::int64_t p) const {
    return zoom_log_ >= 0 ? floor_div(p, std::int64_t{1} << zoom_log_) : p * (std::int64_t{1} << -zoom_log_);
}

std::int64_t Camera::pixel_of(std::int64_t m) const {
    return zoom_log_ >= 0 ? m * (std::int64_t{1} << zoom_log_) : floor_div(m, std::int64_t{1} << -zoom_log_);
}

Box Camera::visible(int w, int h) const {
    const std::int64_t x0 = cell_x(0), y0 = cell_y(0);
    // Magnified: through the cell of the last pixel; else to the first cell past the window.
    const std::int64_t x1 = zoom_log_ >= 0 ? cell_x(w - 1) + 1 : cell_x(w);
    const std::int64_t y1 = zoom_log_ >= 0 ? cell_y(h - 1) + 1 : cell_y(h);
    return Box{x0, y0, x1 - x0, y1 - y0};
}

void Camera::set(int zoom_log, std::int64_t opx, std::int64_t opy) {
    zoom_log_ = std::clamp(zoom_log, kMinLog, kMaxLog);
    opx_ = opx;
    opy_ = opy;
}

void Camera::zoom_about(double px, double py, int steps) {
    const double cx = (opx_ + px) / zoom(), cy = (opy_ + py) / zoom();
    zoom_log_ = std::clamp(zoom_log_ + steps, kMinLog, kMaxLog);
    opx_ = std::llround(cx * zoom() - px);
    opy_ = std::llround(cy * zoom() - py);
}

void Camera::pan_pixels(std::int64_t dx, std::int64_t dy) {
    opx_ -= dx;
    opy_ -= dy;
}

void Camera::fit(const Box& box, int w, int h, int max_log) {
    const Box b = box.empty() ? Box{box.x, box.y, 1, 1} : box;
    int log = std::min(max_log, kMaxLog);
    // A margin of a few pixels keeps the pattern off the window's edge.
    while (log > kMinLog && (b.width * std::ldexp(1.0, log) > w - 8 || b.height * std::ldexp(1.0, log) > h - 8)) --log;
    zoom_log_ = log;
    centre_on(b.x + b.width / 2.0, b.y + b.height / 2.0, w, h);
}

void Camera::centre_on(double x, double y, int w, int h) {
    opx_ = std::llround(x * zoom() - w / 2.0);
    opy_ = std::llround(y * zoom() - h / 2.0);
}

void Camera::resize(int w0, int h0, int w1, int h1) {
    opx_ += (w0 - w1) / 2;
    opy_ += (h0 - h1) / 2;
}

std::string scale_text(int zoom_log) {
    if (zoom_log >= 0) return "1:" + std::to_string(1 << zoom_log);
    if (zoom_log >= -10) return std::to_string(1 << -zoom_log) + ":1";
    return "2^" + std::to_string(-zoom_log) + ":1";
}

std::optional<int> parse_scale(const std::string& text) {
    // A power of two written as N or 2^K -> K.
    auto power = [](std::string_view s) -> std::optional<int> {
        if (s.starts_with("2^")) {
            int k = -1;
            const auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), k);
            if (ec != std::errc() || p != s.data() + s.size() || k < 0 || k > 30) return std::nullopt;
            return k;
        }
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || v < 1 || (v & (v - 1)) != 0 || v > (std::int64_t{1} << 30))
            return std::nullopt;
        int k = 0;
        while ((std::int64_t{1} << k) < v) ++k;
        return k;
    };
    const std::string_view t(text);
    const auto colon = t.find(':');
    std::optional<int> log;
    if (colon == std::string_view::npos) {
        log = power(t);  // N pixels per cell
    } else {
        const auto a = power(t.substr(0, colon)), b = power(t.substr(colon + 1));
        if (a && b && (*a == 0 || *b == 0)) log = *b - *a;  // 1:N magnifies, N:1 shrinks
    }
    if (!log || *log < Camera::kMinLog || *log > Camera::kMaxLog) return std::nullopt;
    return log;
}

std::uint32_t argb(image::Rgb c) {
    return 0xFF000000u | (std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b;
}

Palette Palette::of(const image::Colors& c, bool ages) {
    Palette p;
    for (int s = 0; s < image::kCellStates; ++s) p.state[s] = argb(c.of(static_cast<std::uint8_t>(s), ages));
    if (!ages)  // plain boards hold only 0 and 1, but draw any non-zero byte as alive
        for (int s = 1; s < image::kCellStates; ++s) p.state[s] = argb(c.live);
    p.outside = argb(c.outside);
    p.border = argb(c.border);
    p.grid = argb(c.grid);
    p.tile = argb(c.tile);
    p.halo = argb(c.halo);
    p.selection = argb(c.selection);
    p.paste = argb(c.paste);
    return p;
}

RenderStats render(std::vector<std::uint32_t>& pixels, int w, int h, const Camera& cam, const Box& readable,
                   const CellReader& reader, const Overlay& ov, const Palette& pal) {
    RenderStats stats;
    pixels.assign(static_cast<std::size_t>(std::max(0, w)) * std::max(0, h), ov.bounded ? pal.outside : pal.dead());
    if (w <= 0 || h <= 0) return stats;
    auto clamp_x = [&](std::int64_t v) { return static_cast<int>(std::clamp<std::int64_t>(v, 0, w)); };
    auto clamp_y = [&](std::int64_t v) { return static_cast<int>(std::clamp<std::int64_t>(v, 0, h)); };
    const std::int64_t cell_px = std::max<std::int64_t>(1, std::llround(cam.zoom()));
    // Pixel rectangle [l, r) x [t, b) of the cells of a box (clamped to the window by the callers).
    struct Rect {
        std::int64_t l, t, r, b;
    };
    auto rect_of = [&](const Box& b) {
        return Rect{cam.pixel_x(b.x), cam.pixel_y(b.y), cam.pixel_x(b.right() - 1) + cell_px,
                    cam.pixel_y(b.bottom() - 1) + cell_px};
    };
    const Box area = ov.bounded ? ov.board : readable;
    const Rect br = rect_of(area);
    if (ov.bounded)
        for (int y = clamp_y(br.t); y < clamp_y(br.b); ++y)
            std::fill(pixels.begin() + static_cast<std::size_t>(y) * w + clamp_x(br.l),
                      pixels.begin() + static_cast<std::size_t>(y) * w + clamp_x(br.r), pal.dead());

    // The state each pixel shows (0: dead), from the visible part of the readable box.
    const Box box = intersect(cam.visible(w, h), readable);
    if (!box.empty()) {
        std::vector<std::uint8_t> hit(static_cast<std::size_t>(w) * h, 0);
        const bool magnified = cam.zoom_log() >= 0;
        auto mark = [&](std::int64_t px, std::int64_t py, std::uint8_t s) {
            if (px < 0 || px >= w || py < 0 || py >= h || s == 0) return;
            std::uint8_t& p = hit[static_cast<std::size_t>(py) * w + px];
            if (priority(s) > priority(p)) p = s;
        };
        const std::int64_t cells = box.width * box.height;  // no overflow: the box is inside a window's view
        const bool huge = box.width > kDenseCells || box.height > kDenseCells || cells > kDenseCells;
        if (huge && reader.list && reader.population >= 0 && reader.population <= kSparseCells) {
            stats.mode = ReadMode::sparse;
            for (const Cell& c : reader.list(box)) mark(cam.pixel_x(c.x), cam.pixel_y(c.y), image::kLiveCell);
            stats.cells_read = reader.population;
        } else if (huge) {
            // One cell row per pixel row (the first row the pixel shows), read in pieces.
            stats.mode = ReadMode::sampled;
            const std::int64_t piece = std::min<std::int64_t>(box.width, std::int64_t{1} << 24);
            std::vector<std::uint8_t> row(static_cast<std::size_t>(piece));
            for (int py = 0; py < h; ++py) {
                const std::int64_t y = cam.cell_y(py);
                if (y < box.y || y >= box.bottom()) continue;
                for (std::int64_t x0 = box.x; x0 < box.right(); x0 += piece) {
                    const Box part{x0, y, std::min(piece, box.right() - x0), 1};
                    reader.read(part, row.data());
                    stats.cells_read += part.width;
                    for (std::int64_t i = 0; i < part.width; ++i)
                        if (row[i]) mark(cam.pixel_x(part.x + i), py, row[i]);
                }
            }
        } else {
            stats.mode = ReadMode::dense;
            const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / box.width);
            std::vector<std::uint8_t> buf(static_cast<std::size_t>(std::min(strip, box.height) * box.width));
            // Cell of each column (magnified) or column of each cell (zoomed out).
            std::vector<std::int64_t> map;
            if (magnified) {
                map.resize(w);
                for (int px = 0; px < w; ++px) {
                    const std::int64_t c = cam.cell_x(px);
                    map[px] = c >= box.x && c < box.right() ? c - box.x : -1;
                }
            } else {
                map.resize(static_cast<std::size_t>(box.width));
                for (std::int64_t x = 0; x < box.width; ++x) map[x] = cam.pixel_x(box.x + x);
            }
            for (std::int64_t y0 = 0; y0 < box.height; y0 += strip) {
                const std::int64_t rows = std::min(strip, box.height - y0);
                const Box part{box.x, box.y + y0, box.width, rows};
                reader.read(part, buf.data());
                stats.cells_read += part.width * part.height;
                if (magnified) {
                    const int py0 = clamp_y(cam.pixel_y(part.y)), py1 = clamp_y(cam.pixel_y(part.bottom()));
                    for (int py = py0; py < py1; ++py) {
                        const std::uint8_t* row = buf.data() + (cam.cell_y(py) - part.y) * box.width;
                        std::uint8_t* out = hit.data() + static_cast<std::size_t>(py) * w;
                        for (int px = 0; px < w; ++px)
                            if (map[px] >= 0) out[px] = row[map[px]];
                    }
                } else {
                    for (std::int64_t r = 0; r < rows; ++r) {
                        const std::int64_t py = cam.pixel_y(part.y + r);
                        const std::uint8_t* row = buf.data() + r * box.width;
                        for (std::int64_t x = 0; x < box.width; ++x)
                            if (row[x]) mark(map[x], py, row[x]);
                    }
                }
            }
        }
        for (std::size_t i = 0; i < hit.size(); ++i)
            if (hit[i]) pixels[i] = pal.state[hit[i] < image::kCellStates ? hit[i] : std::uint8_t{image::kLiveCell}];
    }

    // The selection: tinted, with a one-pixel outline.
    auto outline = [&](const Rect& r, std::uint32_t color) {
        auto put = [&](std::int64_t x, std::int64_t y) {
            if (x >= 0 && x < w && y >= 0 && y < h) pixels[static_cast<std::size_t>(y) * w + x] = color;
        };
        for (std::int64_t x = std::max<std::int64_t>(r.l, -1); x < std::min<std::int64_t>(r.r, w + 1); ++x) {
            put(x, r.t);
            put(x, r.b - 1);
        }
        for (std::int64_t y = std::max<std::int64_t>(r.t, -1); y < std::min<std::int64_t>(r.b, h + 1); ++y) {
            put(r.l, y);
            put(r.r - 1, y);
        }
    };
    if (!ov.selection.empty()) {
        const Rect s = rect_of(ov.selection);
        for (int y = clamp_y(s.t); y < clamp_y(s.b); ++y)
            for (int x = clamp_x(s.l); x < clamp_x(s.r); ++x) {
                std::uint32_t& p = pixels[static_cast<std::size_t>(y) * w + x];
                p = blend(p, pal.selection, 80);
            }
        outline(s, pal.selection);
    }
    // The paste preview: its cells and rectangle in the paste colour.
    if (ov.paste && !ov.paste_box.empty()) {
        for (const Cell& c : *ov.paste) {
            const Rect r = rect_of(Box{c.x, c.y, 1, 1});
            for (int y = clamp_y(r.t); y < clamp_y(r.b); ++y)
                for (int x = clamp_x(r.l); x < clamp_x(r.r); ++x) pixels[static_cast<std::size_t>(y) * w + x] = pal.paste;
        }
        outline(rect_of(ov.paste_box), pal.paste);
    }

    // Lines at every period-th cell boundary counted from (base_x, base_y), one pixel wide, over the
    // board (bounded) or the whole window (unbounded).
    const Box vis = cam.visible(w, h);
    const Box line_area = ov.bounded ? intersect(vis, ov.board) : vis;
    auto lines = [&](std::int64_t period_x, std::int64_t period_y, std::int64_t base_x, std::int64_t base_y,
                     std::uint32_t color) {
        if (line_area.empty()) return;
        const int x0 = ov.bounded ? clamp_x(br.l) : 0, x1 = ov.bounded ? clamp_x(br.r) : w;
        const int y0 = ov.bounded ? clamp_y(br.t) : 0, y1 = ov.bounded ? clamp_y(br.b) : h;
        const std::int64_t fx = base_x + floor_div(line_area.x - base_x + period_x - 1, period_x) * period_x;
        for (std::int64_t m = fx; m < line_area.right(); m += period_x) {
            const std::int64_t px = cam.pixel_x(m);
            if (px >= 0 && px < w)
                for (int y = y0; y < y1; ++y) pixels[static_cast<std::size_t>(y) * w + px] = color;
        }
        const std::int64_t fy = base_y + floor_div(line_area.y - base_y + period_y - 1, period_y) * period_y;
        for (std::int64_t m = fy; m < line_area.bottom(); m += period_y) {
            const std::int64_t py = cam.pixel_y(m);
            if (py >= 0 && py < h) std::fill(pixels.begin() + py * w + x0, pixels.begin() + py * w + x1, color);
        }
    };
    if (ov.grid && cam.zoom_log() >= 2) lines(1, 1, 0, 0, pal.grid);
    if (ov.tiles && ov.tiles->width > 0 && ov.tiles->height > 0 && ov.tiles->width * cam.zoom() >= kMinTilePixels &&
        ov.tiles->height * cam.zoom() >= kMinTilePixels) {
        stats.tiles_drawn = true;
        lines(ov.tiles->width, ov.tiles->height, ov.tiles->origin.x, ov.tiles->origin.y, pal.tile);
        if (!ov.halo_tile.empty() && (ov.tiles->halo_x > 0 || ov.tiles->halo_y > 0)) {
            const Box hb{ov.halo_tile.x - ov.tiles->halo_x, ov.halo_tile.y - ov.tiles->halo_y,
                         ov.halo_tile.width + 2 * ov.tiles->halo_x, ov.halo_tile.height + 2 * ov.tiles->halo_y};
            outline(rect_of(hb), pal.halo);
        }
    }

    // The border, one pixel outside the board.
    if (ov.bounded) outline(Rect{br.l - 1, br.t - 1, br.r + 1, br.b + 1}, pal.border);
    return stats;
}

std::vector<Cell> line_cells(Cell a, Cell b) {
    std::vector<Cell> out;
    const std::int64_t dx = std::llabs(b.x - a.x), dy = -std::llabs(b.y - a.y);
    const std::int64_t sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1;
    std::int64_t err = dx + dy;
    for (;;) {
        out.push_back(a);
        if (a == b) break;
        const std::int64_t e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            a.x += sx;
        }
        if (e2 <= dx) {
            err += dx;
            a.y += sy;
        }
    }
    return out;
}

std::vector<std::string> fit_status(const std::vector<StatusField>& fields, int width, int lines) {
    if (width <= 0 || lines <= 0) return {};
    std::vector<bool> keep(fields.size(), true);
    for (std::size_t i = 0; i < fields.size(); ++i) keep[i] = !fields[i].text.empty();
    // A field wider than a line (a long --tiles description, say) is cut to the width: whole, it fits
    // no line, so the loop below would drop field after field until only one line was left.
    std::vector<std::string> texts(fields.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
        texts[i] = fields[i].text;
        if (static_cast<int>(texts[i].size()) > width)
            texts[i] = width >= 3 ? texts[i].substr(0, width - 3) + "..." : texts[i].substr(0, width);
    }
    auto layout = [&](std::vector<std::string>& out) {
        out.assign(1, std::string());
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (!keep[i]) continue;
            const std::string& t = texts[i];
            if (out.back().empty()) {
                out.back() = t;
            } else if (static_cast<int>(out.back().size() + 2 + t.size()) <= width) {
                out.back() += "  " + t;
            } else {
                out.push_back(t);
            }
        }
        if (static_cast<int>(out.size()) > lines) return false;
        for (const auto& l : out)
            if (static_cast<int>(l.size()) > width) return false;
        return true;
    };
    std::vector<std::string> out;
    while (!layout(out)) {
        // Drop the lowest-priority field still shown (the last of equals); keep at least one.
        int worst = -1;
        int shown = 0;
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (keep[i]) {
                ++shown;
                if (worst < 0 || fields[i].priority <= fields[worst].priority) worst = static_cast<int>(i);
            }
        if (shown <= 1) break;
        keep[worst] = false;
    }
    if (static_cast<int>(out.size()) > lines) out.resize(lines);
    for (auto& l : out)
        if (static_cast<int>(l.size()) > width) l = width >= 3 ? l.substr(0, width - 3) + "..." : l.substr(0, width);
    return out;
}

}  // namespace tilelife::viewer
