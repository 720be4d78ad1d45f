// Google Benchmark micro-benchmarks: one generation of every registered CPU engine on random tori,
// reported as cell-updates per second. `tilelife bench` is the user-facing benchmark; these exist for
// quick A/B comparisons while changing an engine (run build/bench/tilelife_micro).
#include <benchmark/benchmark.h>

#include <random>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"

namespace {

void step_engine(benchmark::State& state, const std::string& name) {
    tilelife::register_builtin_engines();
    const std::int64_t n = state.range(0);
    auto engine = tilelife::create_engine(name, {n, n, tilelife::Topology::torus, tilelife::Rule::life()});
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(n * n));
    std::mt19937_64 rng(1);
    for (auto& c : cells) c = static_cast<std::uint8_t>(rng() & 1);
    engine->write_region({0, 0, n, n}, cells.data());
    for (auto _ : state) {
        engine->step(1);
        benchmark::DoNotOptimize(engine->generation());
    }
    state.counters["cell-updates/s"] =
        benchmark::Counter(static_cast<double>(n * n), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_reference(benchmark::State& s) { step_engine(s, "cpu:reference"); }
void BM_bitpacked(benchmark::State& s) { step_engine(s, "cpu:bitpacked"); }

}  // namespace

BENCHMARK(BM_reference)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_bitpacked)->Arg(256)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
