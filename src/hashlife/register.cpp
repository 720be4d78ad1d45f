// Registration of cpu:hashlife and cpu:auto.
#include "hashlife/hashlife.hpp"
#include "tilelife/error.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {

void register_hashlife_engines() {
    using namespace hashlife;
    EngineInfo info;
    info.name = "cpu:hashlife";
    info.description = "Gosper's HashLife: memoised quadtree, huge generation counts on the unbounded plane (" +
                       std::string(best_leaf_simd() == 3 ? "avx512" : best_leaf_simd() == 2 ? "avx2" : "baseline") +
                       " leaf kernel)";
    info.native_unbounded = true;
    info.bounded = false;
    info.parameters = {
        {"simd", "widest instruction set of the leaf kernel (capped by what this CPU has)",
         {"auto", "avx512", "avx2", "baseline"}, 0, 0, "auto"},
        {"task-squares", "parallel steps (--threads above 1): fewest squares of one level in a task", {}, 1, 4096,
         std::to_string(kDefaultTaskSquares)},
        {"idle-squares",
         "parallel steps: fewest squares of one level in a piece split because a thread has nothing to run (0: never)",
         {}, 0, 4096, "8"},
        {"tasks", "run steps as tasks: auto (with more than one thread, on large roots), always (also on one thread: "
                  "measures the task graph's work and span)",
         {"auto", "always"}, 0, 0, "auto"},
        {"cut-for", "parallel steps: cut long queues as for N threads, two pieces each (0: the threads that run; with "
                    "tasks=always on one thread, the task graph N threads would run)",
         {}, 0, 4096, "0"},
    };
    // What the store starts with; it grows inside the memory budget as the pattern needs.
    info.host_bytes = [](const BoardSpec&, const EngineOptions&) -> std::int64_t { return std::int64_t{1} << 20; };
    register_engine(info, [](const BoardSpec& spec, const EngineOptions& options) -> std::unique_ptr<Engine> {
        Tuning tuning;
        const std::string simd = options.param("simd", "auto");
        const int cap = simd == "baseline" ? 1 : simd == "avx2" ? 2 : 3;
        tuning.simd = std::min(cap, best_leaf_simd());
        tuning.task_squares = static_cast<int>(options.param_int("task-squares", 0));
        tuning.idle_squares = static_cast<int>(options.param_int("idle-squares", tuning.idle_squares));
        tuning.always_tasks = options.param("tasks", "auto") == "always";
        tuning.cut_for = static_cast<int>(options.param_int("cut-for", 0));
        return make_hashlife(spec, options, tuning);
    });

    EngineInfo autoinfo;
    autoinfo.name = "cpu:auto";
    autoinfo.description =
        "the unbounded plane on cpu:hashlife or cpu:bitpacked, whichever the job suits; switches to HashLife once a "
        "dense chaotic phase settles";
    autoinfo.default_for = {Topology::unbounded};
    autoinfo.native_unbounded = true;
    autoinfo.bounded = false;
    autoinfo.host_bytes = info.host_bytes;
    register_engine(autoinfo, [](const BoardSpec& spec, const EngineOptions& options) -> std::unique_ptr<Engine> {
        return make_auto(spec, options);
    });
}

}  // namespace tilelife
