// tilelife-viewer.so: `tilelife view`'s window (SDL2, SDL2_ttf; libpng for screenshots), for the
// command line (modules.hpp).
#include "cli/modules.hpp"
#include "viewer/view.hpp"
#include "viewer/viewer.hpp"
#include "viewer/window.hpp"

namespace tilelife::cli {
namespace {

std::optional<int> run(Engine& engine, const viewer::Options& options, std::string& no_display) {
    try {
        return viewer::run(engine, options);
    } catch (const viewer::NoDisplay& e) {
        no_display = e.what();
        return std::nullopt;
    }
}

}  // namespace
}  // namespace tilelife::cli

extern "C" __attribute__((visibility("default"))) const tilelife::cli::ViewerModule* tilelife_viewer_module() {
    static const tilelife::cli::ViewerModule table{{}, &tilelife::viewer::parse_scale, &tilelife::cli::run};
    return &table;
}
