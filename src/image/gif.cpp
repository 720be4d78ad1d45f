// Animated GIF writing through giflib: a global palette (two colours, or one per CellState with ages),
// a NETSCAPE2.0 loop block and one full frame per add_frame().
#include <gif_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "tilelife/output_file.hpp"

namespace tilelife::image {

struct GifWriter::State {
    std::string path;
    OutputFile file;
    GifFileType* gif = nullptr;
    std::vector<std::uint8_t> cells, pixels;
    AgeTracker ages;  // with ages: the box's states over the frames so far
    explicit State(const std::string& p) : path(p), file(p) {}
    ~State() {
        if (gif) {
            int err = 0;
            EGifCloseFile(gif, &err);  // unfinished: the OutputFile removes its temp file
        }
    }
    void check(int rc, const char* what) {
        if (rc == GIF_ERROR) throw RuntimeError(path + ": GIF write failed (" + what + "): " + GifErrorString(gif->Error));
    }
};

GifWriter::GifWriter(const std::string& path, const Box& box, int scale, int delay_cs, const Style& style)
    : s_(std::make_unique<State>(path)), box_(box), scale_(scale), delay_cs_(delay_cs), ages_(style.ages) {
    check_gif_size(box, scale, 1, path);
    if (delay_cs < 1 || delay_cs > 65535) throw InputError(path + ": GIF frame delay must be 1..65535 hundredths of a second");
    int err = 0;
    const int fd = s_->file.release_fd();  // giflib closes it; the OutputFile keeps its own
    s_->gif = EGifOpenFileHandle(fd, &err);
    if (!s_->gif) {
        close(fd);
        throw RuntimeError(path + ": cannot start the GIF: " + GifErrorString(err));
    }
    EGifSetGifVersion(s_->gif, true);
    // GIF colour tables hold a power of two entries: 2 without ages, 8 with (the 7 states and a spare).
    const int states = ages_ ? kCellStates : 2, size = ages_ ? 8 : 2;
    GifColorType colors[8] = {};
    for (int i = 0; i < size; ++i) {
        const Rgb c = style.colors.of(static_cast<std::uint8_t>(i < states ? i : 0), ages_);
        colors[i] = GifColorType{c.r, c.g, c.b};
    }
    ColorMapObject* map = GifMakeMapObject(size, colors);
    if (!map) throw RuntimeError(path + ": out of memory starting the GIF");
    const int rc = EGifPutScreenDesc(s_->gif, static_cast<int>(box.width * scale), static_cast<int>(box.height * scale),
                                     ages_ ? 3 : 1, 0, map);
    GifFreeMapObject(map);
    s_->check(rc, "screen");
    // Loop forever.
    static const unsigned char netscape[] = "NETSCAPE2.0";
    static const unsigned char loop[] = {1, 0, 0};
    s_->check(EGifPutExtensionLeader(s_->gif, APPLICATION_EXT_FUNC_CODE), "loop");
    s_->check(EGifPutExtensionBlock(s_->gif, 11, netscape), "loop");
    s_->check(EGifPutExtensionBlock(s_->gif, 3, loop), "loop");
    s_->check(EGifPutExtensionTrailer(s_->gif), "loop");
    const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / box.width);
    // With ages the whole box is read at once (the tracker compares whole frames); the size limits
    // keep it at most 16384^2 cells.
    s_->cells.resize(static_cast<std::size_t>((ages_ ? box.height : std::min(strip, box.height)) * box.width));
    s_->pixels.resize(static_cast<std::size_t>(box.width * scale));
}

GifWriter::~GifWriter() = default;

void GifWriter::add_frame(const CellSource& source) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_DO_NOT;
    gcb.UserInputFlag = false;
    gcb.DelayTime = delay_cs_;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    const std::size_t len = EGifGCBToExtension(&gcb, ext);
    s_->check(EGifPutExtension(s_->gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(len), ext), "frame timing");
    const int w = static_cast<int>(box_.width * scale_), h = static_cast<int>(box_.height * scale_);
    s_->check(EGifPutImageDesc(s_->gif, 0, 0, w, h, false, nullptr), "frame");
    auto put_rows = [&](const std::uint8_t* values, std::int64_t rows) {
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::uint8_t* c = values + r * box_.width;
            for (std::int64_t x = 0; x < box_.width; ++x)
                std::fill_n(s_->pixels.data() + x * scale_, scale_,
                            static_cast<GifPixelType>(ages_ ? c[x] : c[x] != 0));
            for (int k = 0; k < scale_; ++k) s_->check(EGifPutLine(s_->gif, s_->pixels.data(), w), "pixels");
        }
    };
    if (ages_) {
        source(box_, s_->cells.data());
        if (frames_ == 0) s_->ages.refresh(box_, s_->cells.data());  // the first frame has no past
        else s_->ages.step(box_, s_->cells.data());
        put_rows(s_->ages.states().data(), box_.height);
    } else {
        // Strips of rows: few reads from the engine (each may be a device transfer), bounded memory.
        const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / box_.width);
        for (std::int64_t y0 = 0; y0 < box_.height; y0 += strip) {
            const std::int64_t rows = std::min(strip, box_.height - y0);
            source(Box{box_.x, box_.y + y0, box_.width, rows}, s_->cells.data());
            put_rows(s_->cells.data(), rows);
        }
    }
    ++frames_;
}

void GifWriter::finish() {
    int err = 0;
    GifFileType* gif = std::exchange(s_->gif, nullptr);
    if (EGifCloseFile(gif, &err) == GIF_ERROR) throw RuntimeError(s_->path + ": GIF write failed: " + GifErrorString(err));
    s_->file.commit();
}

}  // namespace tilelife::image
