// The `tilelife` subcommands. Each add_* registers one subcommand on the app; its callback may throw
// InputError (main exits 2) or RuntimeError (main exits 1) and otherwise sets `exit_code`.
#pragma once
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilelife/board.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void add_run(CLI::App& app, int& exit_code);       // cmd_run.cpp
void add_convert(CLI::App& app, int& exit_code);   // cmd_convert.cpp
void add_info(CLI::App& app, int& exit_code);      // cmd_info.cpp
void add_engines(CLI::App& app, int& exit_code);   // cmd_info.cpp: list registered engines
void add_devices(CLI::App& app, int& exit_code);   // cmd_devices.cpp
void add_bench(CLI::App& app, int& exit_code);     // cmd_bench.cpp
void add_view(CLI::App& app, int& exit_code);      // cmd_view.cpp: the SDL2 viewer

// Engine selection shared by run, bench and view: --backend, --kernel, --device, --wg, --threads,
// --steps-per-launch, --param.
struct EngineChoice {
    std::string backend = "cpu";
    std::string kernel;  // empty: the backend's default for the topology; "backend:kernel" or an alias
    std::string device;
    std::string wg;      // "WxH"
    int threads = 0;
    int steps_per_launch = 0;
    std::vector<std::string> params;  // "NAME=VALUE", the engine's declared parameters
};
void add_engine_options(CLI::App& cmd, EngineChoice& choice);
// The choice as the board layer takes it (resolve_engine): --kernel as "backend:kernel" or an
// alias, else --backend:--kernel, else --backend (its default for the board's topology).
std::string engine_choice(const EngineChoice& choice);
// resolve_engine(engine_choice(choice), topology) (torus when not known yet).
std::string engine_name(const EngineChoice& choice, std::optional<Topology> topology = std::nullopt);
// The common options and --param NAME=VALUE pairs (checked against the engine by create_engine).
EngineOptions engine_options(const EngineChoice& choice);

// --rule, --topology and --size as given (empty: not given), checked; InputError otherwise.
BoardOverrides board_overrides(const std::string& rule, const std::string& topology, const std::string& size);

// "WxH" -> (W, H), both >= 1; InputError naming `what` otherwise.
std::pair<std::int64_t, std::int64_t> parse_size(const std::string& text, const std::string& what);

// A count of generations (issue 12): "1000", "1e12", "2^40" (exact integers only: no fractions,
// nothing beyond 2^63 - 1), at least `min`; InputError naming `what` otherwise.
std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t min = 0);

// "4096", "512M", "8G" (powers of 1024) -> bytes; InputError naming `what` otherwise.
std::int64_t parse_bytes(const std::string& text, const std::string& what);
// A description value as text: "yes"/"no", numbers, words.
std::string value_text(const DescriptionValue& value);
// "work-group 16x8, 2 threads, simd: avx2, activity: yes": what an engine chose, in a few words.
std::string engine_summary(const EngineDescription& d);

// Adds the flag a library message is about (" (see --max-memory)") when `command` has that flag:
// library messages name no flags, so the CLI adds them here, in one place.
std::string with_flag_hint(const std::string& message, const CLI::App* command);

}  // namespace tilelife::cli
