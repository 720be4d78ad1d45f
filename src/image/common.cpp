// The parts of the image library that need neither libpng nor giflib: atomic files, size limits,
// cell sources.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "image/image.hpp"
#include "tilelife/error.hpp"

namespace tilelife::image {

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string tmpl = (slash == std::string::npos ? std::string("./") : dir) + "." + base + ".tmp.XXXXXX";
    fd_ = mkstemp(tmpl.data());
    if (fd_ < 0) throw RuntimeError(path + ": cannot create a file in " + dir + ": " + std::strerror(errno));
    fchmod(fd_, 0644);
    temp_ = tmpl;
}

AtomicFile::~AtomicFile() {
    if (done_) return;
    if (fd_ >= 0) close(fd_);
    unlink(temp_.c_str());
}

void AtomicFile::commit(bool already_closed) {
    if (!already_closed && fd_ >= 0) {
        const bool synced = fsync(fd_) == 0;
        const bool closed = close(fd_) == 0;
        fd_ = -1;
        if (!synced || !closed) throw RuntimeError(path_ + ": write failed: " + std::strerror(errno));
    }
    fd_ = -1;
    if (std::rename(temp_.c_str(), path_.c_str()) != 0)
        throw RuntimeError(path_ + ": cannot rename the finished file into place: " + std::strerror(errno));
    done_ = true;
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
                                   [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
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
