// Loading the command line's modules (modules.hpp): dlopen from beside the executable, one entry
// point each, its stamp checked against this executable's.
#include "cli/modules.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

std::string executable_dir() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : self.parent_path().string();
}

std::vector<std::string> module_dirs() {
    const std::string dir = executable_dir();
    return {dir + "/" TILELIFE_MODULE_INSTALL_DIR, dir + "/lib/tilelife"};
}

// Loads `file` from the first directory that has it and returns the table its entry point gives.
// `global`: the module's libraries must see each other's symbols (Open MPI loads plugins of its own).
template <class Table>
const Table& load(const char* file, const char* entry, const char* purpose, bool global) {
    std::string path;
    for (const std::string& dir : module_dirs()) {
        path = dir + "/" + file;
        if (::access(path.c_str(), F_OK) == 0) break;
        path.clear();
    }
    const std::string what = std::string("the ") + purpose + " module " + file;
    if (path.empty()) throw RuntimeError("cannot find " + what + " (looked in " + module_search_path() + ")");
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (!handle) throw RuntimeError("cannot load " + what + ": " + ::dlerror());
    // Never closed: its code may still run from destructors at exit.
    using Entry = const Table* (*)();
    const auto get = reinterpret_cast<Entry>(::dlsym(handle, entry));
    if (!get) throw RuntimeError("cannot load " + what + ": " + path + " has no " + entry);
    const Table* table = get();
    if (table->stamp.interface != kModuleInterface || std::strcmp(table->stamp.version, TILELIFE_VERSION) != 0)
        throw RuntimeError(path + ": " + what + " belongs to tilelife " + table->stamp.version +
                           ", not to this tilelife " TILELIFE_VERSION " (reinstall)");
    return *table;
}

}  // namespace

std::string module_search_path() {
    std::string out;
    for (const std::string& d : module_dirs()) out += (out.empty() ? "" : ", ") + std::filesystem::path(d).lexically_normal().string();
    return out;
}

const ImageModule& image_module() {
    static const ImageModule& m = load<ImageModule>("tilelife-image.so", "tilelife_image_module", "PNG and GIF output", false);
    return m;
}

const ViewerModule& viewer_module() {
    static const ViewerModule& m = load<ViewerModule>("tilelife-viewer.so", "tilelife_viewer_module", "viewer", false);
    return m;
}

const MpiModule& mpi_module() {
    static const MpiModule& m = load<MpiModule>("tilelife-mpi.so", "tilelife_mpi_module", "MPI", true);
    return m;
}

}  // namespace tilelife::cli
