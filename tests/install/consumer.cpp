// A program built against the installed tilelife package (docs/api.md shows it): load a pattern,
// create an engine, step, read cells, describe the engine, and see an error's one-line reason.
//
//   consumer PATTERN [GENERATIONS]   runs PATTERN on a 32x32 torus and prints what it finds
#include <tilelife/builtin.hpp>
#include <tilelife/engine.hpp>
#include <tilelife/error.hpp>
#include <tilelife/pattern.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: consumer PATTERN [GENERATIONS]\n");
        return 2;
    }
    try {
        tilelife::register_builtin_engines();  // once, before create_engine()

        // Any format the CLI reads; the cells keep the file's coordinates.
        const tilelife::Pattern pattern = tilelife::read_pattern(argv[1]);

        // A 32x32 torus on the CPU's default engine for it (cpu:bitpacked in this build).
        const tilelife::BoardSpec spec{32, 32, tilelife::Topology::torus, tilelife::parse_rule("B3/S23").rule};
        const std::string name = tilelife::default_engine("cpu", spec.topology);
        auto engine = tilelife::create_engine(name, spec);
        engine->set_cells(pattern.cells);  // board coordinates: 0..31, 0..31

        engine->step(argc > 2 ? std::stoll(argv[2]) : 4);

        std::printf("engine %s\n", engine->describe().name.c_str());
        std::printf("generation %lld population %lld\n", static_cast<long long>(engine->generation()),
                    static_cast<long long>(engine->population()));
        for (const tilelife::Cell& c : engine->live_cells())  // sorted by (y, x)
            std::printf("cell %lld %lld\n", static_cast<long long>(c.x), static_cast<long long>(c.y));

        // Bad input is a tilelife::InputError with a one-line reason.
        try {
            tilelife::parse_rule("B9/S23");
        } catch (const tilelife::InputError& e) {
            std::printf("error %s\n", e.what());
        }
        return 0;
    } catch (const tilelife::InputError& e) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "consumer: %s\n", e.what());
        return 1;
    }
}
