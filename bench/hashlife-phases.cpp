// The phases of one HashLife run timed inside the process: reading a pattern file, loading its tree
// into cpu:hashlife, the steps, the export of the tree that comes out and its macrocell text (what
// `tilelife run FILE --gens G -o OUT.mc` does, less the file's write). Whole processes hide these
// behind the steps' noise; the start and the end run on one thread whatever --threads says.
//
//   build/bench/tilelife_hashlife_phases FILE THREADS GENERATIONS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main(int argc, char** argv) {
    using namespace tilelife;
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s FILE THREADS GENERATIONS\n", argv[0]);
        return 2;
    }
    const int threads = std::atoi(argv[2]);
    const long long gens = std::atoll(argv[3]);
    register_builtin_engines();
    const double t0 = now();
    ReadLimits limits;
    limits.list_tree_cells = false;
    const Pattern p = read_pattern(argv[1], limits);
    if (!p.tree) {
        std::fprintf(stderr, "%s: not a macrocell file\n", argv[1]);
        return 2;
    }
    const double t1 = now();
    BoardSpec spec;
    spec.topology = Topology::unbounded;
    spec.rule = p.rule ? parse_rule(*p.rule).rule : Rule::life();
    EngineOptions options;
    options.threads = threads;
    auto engine = create_engine("cpu:hashlife", spec, options);
    if (!engine->load_quadtree(*p.tree)) return 1;
    const double t2 = now();
    engine->step(gens);
    const double t3 = now();
    const auto tree = engine->quadtree();
    const double t4 = now();
    const std::string text = format_macrocell(*tree, spec.rule.to_string(), gens);
    const double t5 = now();
    std::printf("read %.1f ms, load %.1f ms, step %.1f ms, export %.1f ms, text %.1f ms (%zu bytes)\n",
                (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3, text.size());
    return 0;
}
