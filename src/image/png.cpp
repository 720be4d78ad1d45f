// PNG writing through libpng's own API. libpng reports errors by longjmp; every call into it sits in
// a small member function that sets the jump point and turns a jump into a RuntimeError, so no C++
// object is ever skipped by a longjmp.
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <vector>

#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "tilelife/output_file.hpp"

namespace tilelife::image {
namespace {

class PngFile {
public:
    explicit PngFile(const std::string& path) : path_(path), file_(path) {
        out_ = file_.stream();
        png_ = png_create_write_struct(PNG_LIBPNG_VER_STRING, this, &PngFile::on_error, &PngFile::on_warning);
        if (png_) info_ = png_create_info_struct(png_);
        if (!png_ || !info_) throw RuntimeError(path + ": out of memory starting the PNG");
    }
    ~PngFile() { png_destroy_write_struct(&png_, &info_); }  // unfinished: the OutputFile removes its temp file

    // Palette image when `palette` is given (pixels are indices, one byte each), else 8-bit RGB.
    void header(int width, int height, const std::vector<Rgb>* palette) {
        if (setjmp(png_jmpbuf(png_))) fail();
        png_init_io(png_, out_);
        png_set_compression_level(png_, 6);
        if (palette) {
            const int depth = palette->size() <= 2 ? 1 : palette->size() <= 16 ? 4 : 8;
            png_set_IHDR(png_, info_, width, height, depth, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                         PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
            png_color colors[256];
            for (std::size_t i = 0; i < palette->size(); ++i)
                colors[i] = png_color{(*palette)[i].r, (*palette)[i].g, (*palette)[i].b};
            png_set_PLTE(png_, info_, colors, static_cast<int>(palette->size()));
        } else {
            png_set_IHDR(png_, info_, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                         PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        }
        png_write_info(png_, info_);
        if (palette) png_set_packing(png_);  // rows stay one byte per pixel; libpng packs to 1 bit
    }
    void row(const std::uint8_t* pixels) {
        if (setjmp(png_jmpbuf(png_))) fail();
        png_write_row(png_, const_cast<png_bytep>(pixels));
    }
    void finish() {
        if (setjmp(png_jmpbuf(png_))) fail();
        png_write_end(png_, info_);
        png_destroy_write_struct(&png_, &info_);
        out_ = nullptr;
        file_.commit();  // flushes, renames; RuntimeError naming the path on failure
    }

private:
    [[noreturn]] void fail() { throw RuntimeError(path_ + ": PNG write failed: " + message_); }
    static void on_error(png_structp png, png_const_charp msg) {
        static_cast<PngFile*>(png_get_error_ptr(png))->message_ = msg;
        longjmp(png_jmpbuf(png), 1);
    }
    static void on_warning(png_structp, png_const_charp) {}

    std::string path_;
    OutputFile file_;
    FILE* out_ = nullptr;
    png_structp png_ = nullptr;
    png_infop info_ = nullptr;
    std::string message_;
};

}  // namespace

void write_png_rgb(const std::string& path, int width, int height, const std::uint8_t* pixels, std::size_t stride) {
    PngFile png(path);
    png.header(width, height, nullptr);
    for (int y = 0; y < height; ++y) png.row(pixels + static_cast<std::size_t>(y) * stride);
    png.finish();
}

void write_board_png(const std::string& path, const Box& box, int scale, const CellSource& source,
                     const Style& style) {
    check_image_size(box, scale, path);
    // Palette index = cell value: 0/1, or the CellState with ages.
    const int colours = style.ages ? kCellStates : 2;
    std::vector<Rgb> palette;
    for (int i = 0; i < colours; ++i) palette.push_back(style.colors.of(static_cast<std::uint8_t>(i), style.ages));
    PngFile png(path);
    png.header(static_cast<int>(box.width * scale), static_cast<int>(box.height * scale), &palette);
    // Strips of rows keep memory at about 16 MiB of cells whatever the board.
    const std::int64_t strip = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / std::max<std::int64_t>(box.width, 1));
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(std::min(strip, box.height) * box.width));
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(box.width * scale));
    for (std::int64_t y0 = 0; y0 < box.height; y0 += strip) {
        const std::int64_t rows = std::min(strip, box.height - y0);
        source(Box{box.x, box.y + y0, box.width, rows}, cells.data());
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::uint8_t* c = cells.data() + r * box.width;
            for (std::int64_t x = 0; x < box.width; ++x) {
                const std::uint8_t v = style.ages ? (c[x] < kCellStates ? c[x] : 0) : (c[x] != 0);
                std::fill_n(pixels.data() + x * scale, scale, v);
            }
            for (int k = 0; k < scale; ++k) png.row(pixels.data());
        }
    }
    png.finish();
}

}  // namespace tilelife::image
