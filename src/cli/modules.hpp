// The command line's shared modules (docs/design.md, "Start-up and modules"): the parts that need
// large libraries are built as modules beside the executable and loaded with dlopen only when a
// command needs them, so that `tilelife run` starts without SDL, libpng, giflib or Open MPI:
//   tilelife-image.so   PNG and GIF output (libpng, giflib)
//   tilelife-viewer.so  `tilelife view` (SDL2, SDL2_ttf, libpng for screenshots)
//   tilelife-mpi.so     runs under mpirun (Open MPI)
// A module's code calls the executable's own tilelife functions (the executable exports the
// tilelife namespace), so the engine registry, the readers and the writers exist once. Each module
// hands back one table of typed function pointers; a module from another version is refused.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "image/image.hpp"
#include "tilelife/engine.hpp"

namespace tilelife {
struct BandedSource;
struct BandCount;
}

namespace tilelife::viewer {
struct Options;
}

namespace tilelife::cli {

// Changes whenever a table below or a type it passes changes (with the version, it must match).
inline constexpr int kModuleInterface = 2;

struct ModuleStamp {
    int interface = kModuleInterface;
    const char* version = TILELIFE_VERSION;
};

// An animated GIF being written (image::GifWriter behind a virtual interface: the executable
// calls it without linking giflib).
class GifFrames {
public:
    virtual ~GifFrames() = default;
    virtual void add_frame(const image::CellSource& source) = 0;
    virtual void finish() = 0;
};

struct ImageModule {
    ModuleStamp stamp;
    void (*write_board_png)(const std::string& path, const Box& box, int scale, const image::CellSource& source,
                            const image::Style& style);
    std::unique_ptr<GifFrames> (*open_gif)(const std::string& path, const Box& box, int scale, int delay_cs,
                                           const image::Style& style);
};

struct ViewerModule {
    ModuleStamp stamp;
    std::optional<int> (*parse_scale)(const std::string& text);
    // viewer::run; when no window can be opened, returns nullopt with the reason in `no_display`.
    std::optional<int> (*run)(Engine& engine, const viewer::Options& options, std::string& no_display);
};

struct MpiModule {
    ModuleStamp stamp;
    // MPI_Init_thread (funneled) and this process's rank and the number of ranks.
    void (*init)(int& argc, char**& argv, int& rank, int& size);
    void (*finalize)();
    // mpi::follow / mpi::release / mpi::lead on MPI_COMM_WORLD.
    int (*follow)();
    void (*release)(int exit_code);
    std::unique_ptr<Engine> (*lead)(const std::string& name, const BoardSpec& spec, const EngineOptions& options);
    // mpi::fill_rows: each rank reads its band of a board read in bands.
    BandCount (*fill_rows)(Engine& engine, const BandedSource& source);
};

// Each loads its module on first use (RuntimeError naming the module's file and what it is for when
// it cannot be loaded) and returns its table.
const ImageModule& image_module();
const ViewerModule& viewer_module();
const MpiModule& mpi_module();

// Where the modules are looked for, in order: `<dir of the executable>/<relative install dir>`
// (an installed tilelife: bin/ -> lib/tilelife) and `<dir of the executable>/lib/tilelife` (the
// build tree).
std::string module_search_path();

}  // namespace tilelife::cli

// Each module defines its entry point, named so (C linkage: found with dlsym).
extern "C" {
const tilelife::cli::ImageModule* tilelife_image_module();
const tilelife::cli::ViewerModule* tilelife_viewer_module();
const tilelife::cli::MpiModule* tilelife_mpi_module();
}
