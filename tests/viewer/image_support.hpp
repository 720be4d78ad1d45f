// Helpers of the image and viewer tests: a PNG decoder on libpng's simplified API (independent of
// the writer under test), temp dirs, running the CLI, and expected boards from cpu:reference.
#pragma once
#include <gtest/gtest.h>
#include <png.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tilelife/board.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::imgtest {

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;  // 3 bytes per pixel
    std::uint32_t at(int x, int y) const {
        const std::uint8_t* p = rgb.data() + (static_cast<std::size_t>(y) * width + x) * 3;
        return (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
    }
};

inline Image read_png(const std::string& path) {
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path.c_str())) {
        ADD_FAILURE() << path << ": " << img.message;
        return {};
    }
    img.format = PNG_FORMAT_RGB;
    Image out;
    out.width = static_cast<int>(img.width);
    out.height = static_cast<int>(img.height);
    out.rgb.resize(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, nullptr, out.rgb.data(), 0, nullptr)) {
        ADD_FAILURE() << path << ": " << img.message;
        return {};
    }
    return out;
}

class TempDir {
public:
    TempDir() {
        std::string t = (std::filesystem::temp_directory_path() / "tilelife-viewer-XXXXXX").string();
        path_ = mkdtemp(t.data());
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

struct Result {
    int rc = -1;
    std::string out;  // stdout and stderr together
};

inline Result run(const std::string& command) {
    Result r;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

inline std::string cli() { return TILELIFE_CLI; }

// The board `run` would build for this pattern and these overrides, on cpu:reference, after `gens`.
inline std::unique_ptr<Engine> expected_board(const std::string& pattern, const BoardOverrides& ov, std::int64_t gens) {
    register_builtin_engines();
    const BoardPlan plan = plan_board(read_pattern(pattern), ov, pattern);
    auto e = create_engine("cpu:reference", plan.spec);
    e->set_cells(plan.cells);
    e->step(gens);
    return e;
}

}  // namespace tilelife::imgtest
