// Runs one opencl:* kernel on small odd boards (both topologies, a tile-multiple-free size, several
// work-group shapes) and compares with cpu:reference; run under `oclgrind --data-races
// --uninitialized`, which reports out-of-bounds accesses, races and uninitialised reads.
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "opencl/api.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

using namespace tilelife;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: oclgrind_driver opencl:KERNEL\n";
        return 2;
    }
    const std::string kernel = argv[1];
    register_builtin_engines();
    std::vector<std::pair<int, int>> shapes = {{0, 0}};
    if (kernel == "opencl:local") shapes.push_back({5, 4});
    else shapes.push_back({3, 2});
    int failures = 0;
    // Engines stay alive to the end: Oclgrind 21.10's uninitialised-value tracking mistakes a new
    // buffer at a released buffer's address for uninitialised memory.
    std::vector<std::unique_ptr<Engine>> keep;
    try {
        for (auto [wx, wy] : shapes)
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {13, 7}, {37, 29}}) {
                    EngineOptions o;
                    o.wg_width = wx;
                    o.wg_height = wy;
                    if (wx == 0) {  // default shapes are large; keep the interpreter's work small but
                        opencl::Tuning tune = opencl::tuning();  // exercise interior tiles too
                        tune.rows_per_item = 2;
                        opencl::set_tuning(tune);
                    }
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
                    keep.push_back(std::move(dev));
                }
    } catch (const std::exception& e) {
        std::cerr << "failed: " << e.what() << "\n";
        return 1;
    }
    std::cout << kernel << ": " << (failures ? "mismatches" : "all boards equal cpu:reference") << "\n";
    return failures ? 1 : 0;
}
