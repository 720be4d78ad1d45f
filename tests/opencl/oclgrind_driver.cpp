// Runs one opencl:* kernel on small odd boards (both topologies, a tile-multiple-free size, several
// work-group shapes) and compares with cpu:reference; run under `oclgrind --data-races
// --uninitialized`, which reports out-of-bounds accesses, races and uninitialised reads.
//   oclgrind_driver ENGINE [NAME=VALUE ...]   engine parameters for every board
//   oclgrind_driver ENGINE --defaults         only the engine's own choices (shape, rows, ...) for the
//                                             device, e.g. one that Oclgrind makes small
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

using namespace tilelife;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: oclgrind_driver opencl:KERNEL [--defaults | NAME=VALUE ...]\n";
        return 2;
    }
    const std::string kernel = argv[1];
    bool defaults = false;
    EngineOptions base;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--defaults") {
            defaults = true;
        } else if (const auto eq = a.find('='); eq != std::string::npos) {
            base.params[a.substr(0, eq)] = a.substr(eq + 1);
        } else {
            std::cerr << "unknown argument " << a << "\n";
            return 2;
        }
    }
    register_builtin_engines();
    std::vector<std::pair<int, int>> shapes = {{0, 0}};
    if (!defaults) shapes.push_back(kernel == "opencl:halo-tile" ? std::pair{5, 4} : std::pair{3, 2});
    int failures = 0;
    // Engines stay alive to the end: Oclgrind 21.10's uninitialised-value tracking mistakes a new
    // buffer at a released buffer's address for uninitialised memory.
    std::vector<std::unique_ptr<Engine>> keep;
    try {
        for (auto [wx, wy] : shapes)
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {13, 7}, {37, 29}}) {
                    EngineOptions o = base;
                    o.wg_width = wx;
                    o.wg_height = wy;
                    // Default shapes are large: keep the interpreter's work small but exercise interior
                    // tiles too (unless the defaults themselves are under test).
                    if (!defaults && wx == 0 && kernel == "opencl:halo-tile-strided") o.params["rows"] = "2";
                    const BoardSpec spec{w, h, t, Rule::life()};
                    auto ref = create_engine("cpu:reference", spec);
                    auto dev = create_engine(kernel, spec, o);
                    std::mt19937 rng(static_cast<unsigned>(w * 31 + h));
                    std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
                    for (auto& c : cells) c = rng() % 3 == 0;
                    ref->write_region(Box{0, 0, w, h}, cells.data());
                    dev->write_region(Box{0, 0, w, h}, cells.data());
                    ref->step(3);
                    dev->step(3);
                    std::vector<std::uint8_t> a(cells.size()), b(cells.size());
                    ref->read_region(Box{0, 0, w, h}, a.data());
                    dev->read_region(Box{0, 0, w, h}, b.data());
                    if (a != b || ref->population() != dev->population()) {
                        std::cerr << "MISMATCH " << kernel << " " << w << "x" << h << " " << to_string(t) << "\n";
                        ++failures;
                    }
                    if (w == 1) {  // once per shape: what the engine chose
                        const auto d = dev->describe();
                        std::cout << kernel << " on " << d.device << ": work-group " << d.wg_width << "x" << d.wg_height
                                  << (d.tiles ? ", " + d.tiles->text : std::string()) << "\n";
                    }
                    keep.push_back(std::move(dev));
                }
    } catch (const std::exception& e) {
        std::cerr << "failed: " << e.what() << "\n";
        return 1;
    }
    std::cout << kernel << ": " << (failures ? "mismatches" : "all boards equal cpu:reference") << "\n";
    return failures ? 1 : 0;
}
