// Runs opencl:bitpacked on small odd boards (both topologies, seams inside words, several tile
// shapes, steps per launch, a remainder launch, a generic rule, launches from the active-tile list)
// and compares with cpu:reference; run under `oclgrind --data-races`, which reports out-of-bounds
// accesses and races between work-items.
//   opencl_bitpacked_oclgrind             the shapes below, activity tracking on
//   opencl_bitpacked_oclgrind --defaults  the engine's own choices for the device (work-group, rows,
//                                         K, activity), e.g. a 32 KiB or a small one Oclgrind makes
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

using namespace tilelife;

int main(int argc, char** argv) {
    const bool defaults = argc == 2 && std::string(argv[1]) == "--defaults";
    if (argc > 2 || (argc == 2 && !defaults)) {
        std::cerr << "usage: opencl_bitpacked_oclgrind [--defaults]\n";
        return 2;
    }
    register_builtin_engines();
    struct Shape {
        int lw, strips, rows, steps;
    };
    std::vector<Shape> shapes = {Shape{4, 3, 2, 2}, Shape{3, 5, 1, 2}, Shape{6, 2, 4, 3}};
    std::vector<const char*> rules = {"B3/S23", "B36/S125"};
    std::vector<std::pair<std::int64_t, std::int64_t>> sizes = {{1, 1}, {13, 7}, {70, 9}};
    if (defaults) {  // a default launch is long under the interpreter: fewer boards
        shapes = {Shape{0, 0, 0, 0}};
        rules = {"B3/S23"};
        sizes = {{13, 7}, {70, 9}};
    }
    int failures = 0;
    try {
        for (Shape s : shapes)
            for (Topology t : {Topology::torus, Topology::plane})
                for (const char* rule : rules)
                    for (auto [w, h] : sizes) {
                        EngineOptions o;
                        if (!defaults) {
                            o.wg_width = s.lw;
                            o.wg_height = s.strips;
                            o.steps_per_launch = s.steps;
                            o.params["rows"] = std::to_string(s.rows);
                            o.params["activity"] = "on";  // every launch compares; the list kernel runs too
                        }
                        const BoardSpec spec{w, h, t, parse_rule(rule).rule};
                        auto ref = create_engine("cpu:reference", spec);
                        auto dev = create_engine("opencl:bitpacked", spec, o);
                        const int k = dev->describe().steps_per_launch;
                        std::mt19937 rng(static_cast<unsigned>(w * 31 + h));
                        std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
                        for (auto& c : cells) c = rng() % 3 == 0;
                        ref->write_region(Box{0, 0, w, h}, cells.data());
                        dev->write_region(Box{0, 0, w, h}, cells.data());
                        ref->step(k + 1);  // a full launch and a shorter one
                        dev->step(k + 1);
                        if (!defaults) {
                            ref->step(3 * k);  // the second and third of these run from the list
                            dev->step(3 * k);
                        }
                        std::vector<std::uint8_t> a(cells.size()), b(cells.size());
                        ref->read_region(Box{0, 0, w, h}, a.data());
                        dev->read_region(Box{0, 0, w, h}, b.data());
                        if (a != b || ref->population() != dev->population()) {
                            std::cerr << "MISMATCH " << w << "x" << h << " " << to_string(t) << " " << rule << "\n";
                            ++failures;
                        }
                        if (defaults && w == 13) {
                            const auto d = dev->describe();
                            std::cout << "opencl:bitpacked on " << d.device << ": " << d.tiles->text << "\n";
                        }
                    }
    } catch (const std::exception& e) {
        std::cerr << "failed: " << e.what() << "\n";
        return 1;
    }
    std::cout << "opencl:bitpacked: " << (failures ? "mismatches" : "all boards equal cpu:reference") << "\n";
    return failures ? 1 : 0;
}
