// Runs opencl:bitpacked on small odd boards (both topologies, seams inside words, several tile
// shapes, steps per launch, a remainder launch, a generic rule, launches from the active-tile list)
// and compares with cpu:reference;
// run under `oclgrind --data-races --uninitialized`, which reports out-of-bounds accesses, races
// between work-items and reads of uninitialised memory.
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "opencl/api.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

using namespace tilelife;

int main() {
    register_builtin_engines();
    setenv("TILELIFE_OPENCL_ACTIVITY", "on", 1);  // every launch compares; the list kernel runs too
    struct Shape {
        int lw, strips, rows, steps;
    };
    int failures = 0;
    try {
        for (Shape s : {Shape{4, 3, 2, 2}, Shape{3, 5, 1, 2}, Shape{6, 2, 4, 3}})
            for (Topology t : {Topology::torus, Topology::plane})
                for (const char* rule : {"B3/S23", "B36/S125"})
                    for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {13, 7}, {70, 9}}) {
                        opencl::Tuning tune = opencl::tuning();
                        tune.rows_per_item = s.rows;
                        opencl::set_tuning(tune);
                        EngineOptions o;
                        o.wg_width = s.lw;
                        o.wg_height = s.strips;
                        o.steps_per_launch = s.steps;
                        const BoardSpec spec{w, h, t, parse_rule(rule).rule};
                        auto ref = create_engine("cpu:reference", spec);
                        auto dev = create_engine("opencl:bitpacked", spec, o);
                        std::mt19937 rng(static_cast<unsigned>(w * 31 + h));
                        std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
                        for (auto& c : cells) c = rng() % 3 == 0;
                        ref->write_region(Box{0, 0, w, h}, cells.data());
                        dev->write_region(Box{0, 0, w, h}, cells.data());
                        ref->step(s.steps + 1);  // a full launch and a shorter one
                        dev->step(s.steps + 1);
                        ref->step(3 * s.steps);  // the second and third of these run from the list
                        dev->step(3 * s.steps);
                        std::vector<std::uint8_t> a(cells.size()), b(cells.size());
                        ref->read_region(Box{0, 0, w, h}, a.data());
                        dev->read_region(Box{0, 0, w, h}, b.data());
                        if (a != b || ref->population() != dev->population()) {
                            std::cerr << "MISMATCH " << w << "x" << h << " " << to_string(t) << " " << rule << "\n";
                            ++failures;
                        }
                    }
    } catch (const std::exception& e) {
        std::cerr << "failed: " << e.what() << "\n";
        return 1;
    }
    std::cout << "opencl:bitpacked: " << (failures ? "mismatches" : "all boards equal cpu:reference") << "\n";
    return failures ? 1 : 0;
}
