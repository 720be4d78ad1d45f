// The parts of the image library that need neither libpng nor giflib: size limits, cell sources,
// themes and ages.

#include <algorithm>
#include <limits>

#include "image/image.hpp"
#include "tilelife/error.hpp"

namespace tilelife::image {

namespace {

constexpr Rgb hex(std::uint32_t v) {
    return Rgb{static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}

// Cells by age look like Golly's LifeHistory rule: live cells green, the cells they leave behind
// blue; newly born cells stand out (white on dark, black on light). The trail fades towards dead.
// A function's static: themes may be asked for during other files' static initialisation.
const std::vector<Colors>& themes() {
    static const std::vector<Colors> kThemes = {
    {"print", hex(0xFFFFFF), hex(0x000000), hex(0x000000), hex(0x008A00),
     {hex(0x2040FF), hex(0x6C88FF), hex(0xA8B8FF), hex(0xDCE2FF)},
     hex(0xC8C8C8), hex(0x808080), hex(0xE0E0E0), hex(0xFF0000), hex(0xFF8000), hex(0x0060FF), hex(0xFF0000),
     hex(0x000000), hex(0xFFFFFF)},
    {"dark", hex(0x14161C), hex(0xF0F0E8), hex(0xFFFFFF), hex(0x00D040),
     {hex(0x2050D0), hex(0x1A3C9A), hex(0x142C6A), hex(0x0E1C40)},
     hex(0x2A2D36), hex(0x7A8599), hex(0x30343E), hex(0xE03030), hex(0xF0A030), hex(0x3FA0FF), hex(0xFF5050),
     hex(0xE6E6E6), hex(0x000000)},
    {"light", hex(0xF7F5EF), hex(0x1C1C1C), hex(0x000000), hex(0x138A36),
     {hex(0x3060E0), hex(0x7090E8), hex(0xA8BCF0), hex(0xD8E0F4)},
     hex(0xD8D6CE), hex(0x8A8A8A), hex(0xE2DFD6), hex(0xD02020), hex(0xD08000), hex(0x2F7FEF), hex(0xE03030),
     hex(0x202020), hex(0xFFFFFF)},
    };
    return kThemes;
}

}  // namespace

Rgb Colors::of(std::uint8_t state, bool ages) const {
    if (!ages) return state ? live : dead;
    switch (state) {
        case kDeadCell: return dead;
        case kLiveCell: return aged;
        case kBornCell: return born;
        default: return state < kCellStates ? died[state - kDiedCell] : dead;
    }
}

const Colors& theme(std::string_view name, const std::string& what) {
    for (const Colors& c : themes())
        if (c.name == name) return c;
    std::string names;
    for (const std::string& n : theme_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError(what + ": unknown theme '" + std::string(name) + "' (themes: " + names + ")");
}

std::vector<std::string> theme_names() {
    std::vector<std::string> out;
    for (const Colors& c : themes()) out.push_back(c.name);
    return out;
}

int gif_delay_cs(std::int64_t ms, const std::string& what) {
    if (ms < 20 || ms > 655350)
        throw InputError(what + ": a GIF frame delay of " + std::to_string(ms) +
                         " ms is outside 20..655350 ms (browsers show shorter delays as 100 ms)");
    if (ms % 10 != 0)
        throw InputError(what + ": GIF frame delays are whole hundredths of a second; " + std::to_string(ms) +
                         " ms is not (use " + std::to_string(ms / 10 * 10) + " or " + std::to_string(ms / 10 * 10 + 10) + ")");
    return static_cast<int>(ms / 10);
}

void AgeTracker::step(const Box& box, const std::uint8_t* cells) { update(box, cells, true); }
void AgeTracker::refresh(const Box& box, const std::uint8_t* cells) { update(box, cells, false); }

void AgeTracker::update(const Box& box, const std::uint8_t* cells, bool step) {
    std::vector<std::uint8_t> next(static_cast<std::size_t>(std::max<std::int64_t>(0, box.width * box.height)));
    const auto alive_state = [](std::uint8_t s) { return s == kLiveCell || s == kBornCell; };
    for (std::int64_t y = 0; y < box.height; ++y) {
        const std::uint8_t* in = cells + y * box.width;
        std::uint8_t* out = next.data() + y * box.width;
        const std::int64_t gy = box.y + y;
        const bool row_known = gy >= box_.y && gy < box_.bottom();
        const std::uint8_t* old = row_known ? states_.data() + (gy - box_.y) * box_.width : nullptr;
        for (std::int64_t x = 0; x < box.width; ++x) {
            const std::int64_t gx = box.x + x;
            const bool live = in[x] != 0;
            // A cell new to the box is taken to be unchanged since the last step.
            const std::uint8_t prev = (old && gx >= box_.x && gx < box_.right()) ? old[gx - box_.x] : std::uint8_t{live ? kLiveCell : kDeadCell};
            std::uint8_t s;
            if (step) {
                if (live) s = alive_state(prev) ? kLiveCell : kBornCell;
                else if (alive_state(prev)) s = kDiedCell;
                else if (prev >= kDiedCell && prev + 1 < kCellStates) s = static_cast<std::uint8_t>(prev + 1);
                else s = kDeadCell;
            } else {
                if (live) s = alive_state(prev) ? prev : std::uint8_t{kLiveCell};
                else s = alive_state(prev) ? std::uint8_t{kDeadCell} : prev;
            }
            out[x] = s;
        }
    }
    box_ = box;
    states_ = std::move(next);
}

CellSource AgeTracker::source() const {
    return [this](const Box& box, std::uint8_t* cells) {
        std::fill_n(cells, box.width * box.height, std::uint8_t{kDeadCell});
        const Box in = intersect(box, box_);
        for (std::int64_t y = in.y; y < in.bottom(); ++y)
            std::copy_n(states_.data() + (y - box_.y) * box_.width + (in.x - box_.x), in.width,
                        cells + (y - box.y) * box.width + (in.x - box.x));
    };
}

void check_image_size(const Box& cells, int scale, const std::string& what) {
    if (scale < 1 || scale > 64) throw InputError(what + ": --scale must be from 1 to 64");
    const std::int64_t w = cells.width * scale, h = cells.height * scale;
    if (w > kMaxSide || h > kMaxSide || w * h > kMaxPixels)
        throw InputError(what + ": the image would be " + std::to_string(w) + "x" + std::to_string(h) +
                         " pixels, over the limit of " + std::to_string(kMaxSide) + " a side and " +
                         std::to_string(kMaxPixels >> 20) + " MPixel; choose a part with --region x,y,w,h " +
                         "(or a smaller --scale)");
}

void check_gif_size(const Box& box, int scale, std::int64_t frames, const std::string& what) {
    if (scale < 1 || scale > 64) throw InputError(what + ": --scale must be from 1 to 64");
    const std::int64_t w = box.width * scale, h = box.height * scale;
    if (w > kMaxGifSide || h > kMaxGifSide)
        throw InputError(what + ": GIF frames would be " + std::to_string(w) + "x" + std::to_string(h) +
                         " pixels, over the limit of " + std::to_string(kMaxGifSide) +
                         " a side; choose a part with --region x,y,w,h or a smaller --scale");
    if (frames > kMaxGifFrames)
        throw InputError(what + ": " + std::to_string(frames) + " frames, over the limit of " +
                         std::to_string(kMaxGifFrames) + "; use a larger --every or fewer --gens");
    if (w * h > kMaxGifTotalPixels / std::max<std::int64_t>(frames, 1))
        throw InputError(what + ": " + std::to_string(frames) + " frames of " + std::to_string(w) + "x" +
                         std::to_string(h) + " pixels are over the limit of " +
                         std::to_string(kMaxGifTotalPixels >> 20) +
                         " MPixel in all; use a larger --every, a smaller --scale or --region");
}

CellSource cells_from_list(const std::vector<Cell>& live) {
    return [&live](const Box& box, std::uint8_t* cells) {
        std::fill_n(cells, box.width * box.height, std::uint8_t{0});
        // The list is sorted by (y, x): start at the box's first row.
        auto it = std::lower_bound(live.begin(), live.end(), Cell{std::numeric_limits<std::int64_t>::min(), box.y},
                                   row_order);
        for (; it != live.end() && it->y < box.bottom(); ++it)
            if (box.contains(*it)) cells[(it->y - box.y) * box.width + (it->x - box.x)] = 1;
    };
}

CellSource cells_from_engine(const Engine& engine) {
    return [&engine](const Box& box, std::uint8_t* cells) {
        const Box e = engine.extent();
        const std::int64_t x0 = std::max(box.x, e.x), y0 = std::max(box.y, e.y);
        const std::int64_t x1 = std::min(box.right(), e.right()), y1 = std::min(box.bottom(), e.bottom());
        if (x0 >= x1 || y0 >= y1) {
            std::fill_n(cells, box.width * box.height, std::uint8_t{0});
            return;
        }
        const Box inside{x0, y0, x1 - x0, y1 - y0};
        if (inside == box) {
            engine.read_region(box, cells);
            return;
        }
        std::fill_n(cells, box.width * box.height, std::uint8_t{0});
        std::vector<std::uint8_t> buf(static_cast<std::size_t>(inside.width * inside.height));
        engine.read_region(inside, buf.data());
        for (std::int64_t y = 0; y < inside.height; ++y)
            std::copy_n(buf.data() + y * inside.width, inside.width,
                        cells + (inside.y - box.y + y) * box.width + (inside.x - box.x));
    };
}

}  // namespace tilelife::image
