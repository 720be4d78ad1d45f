// tilelife-image.so: PNG and GIF output (libpng, giflib) for the command line (modules.hpp).
#include "cli/modules.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

#ifdef TILELIFE_HAVE_GIF
class Gif final : public GifFrames {
public:
    Gif(const std::string& path, const Box& box, int scale, int delay_cs, const image::Style& style)
        : writer_(path, box, scale, delay_cs, style) {}
    void add_frame(const image::CellSource& source) override { writer_.add_frame(source); }
    void finish() override { writer_.finish(); }

private:
    image::GifWriter writer_;
};
#endif

void write_board_png(const std::string& path, const Box& box, int scale, const image::CellSource& source,
                     const image::Style& style) {
#ifdef TILELIFE_HAVE_PNG
    image::write_board_png(path, box, scale, source, style);
#else
    (void)box, (void)scale, (void)source, (void)style;
    throw InputError(path + ": PNG output is not available in this build (install libpng-dev and rebuild)");
#endif
}

std::unique_ptr<GifFrames> open_gif(const std::string& path, const Box& box, int scale, int delay_cs,
                                    const image::Style& style) {
#ifdef TILELIFE_HAVE_GIF
    return std::make_unique<Gif>(path, box, scale, delay_cs, style);
#else
    (void)box, (void)scale, (void)delay_cs, (void)style;
    throw InputError(path + ": GIF output is not available in this build (install libgif-dev and rebuild)");
#endif
}

}  // namespace
}  // namespace tilelife::cli

extern "C" __attribute__((visibility("default"))) const tilelife::cli::ImageModule* tilelife_image_module() {
    static const tilelife::cli::ImageModule table{{}, &tilelife::cli::write_board_png, &tilelife::cli::open_gif};
    return &table;
}
