// The `tilelife` subcommands. Each add_* registers one subcommand on the app; its callback may throw
// InputError (main exits 2) or RuntimeError (main exits 1) and otherwise sets `exit_code`.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "tilelife/board_setup.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

void add_run(CLI::App& app, int& exit_code);       // cmd_run.cpp
void add_convert(CLI::App& app, int& exit_code);   // cmd_convert.cpp
void add_info(CLI::App& app, int& exit_code);      // cmd_info.cpp
void add_engines(CLI::App& app, int& exit_code);   // cmd_info.cpp: list registered engines
void add_devices(CLI::App& app, int& exit_code);   // cmd_devices.cpp
void add_bench(CLI::App& app, int& exit_code);     // cmd_bench.cpp
void add_view(CLI::App& app, int& exit_code);      // cmd_view.cpp: the SDL2 viewer

// Engine selection shared by run, bench and view: --backend, --kernel, --device, --wg, --threads,
// --steps-per-launch.
struct EngineChoice {
    std::string backend = "cpu";
    std::string kernel;  // empty: the backend's default kernel
    std::string device;
    std::string wg;      // "WxH"
    int threads = 0;
    int steps_per_launch = 0;
    std::vector<std::string> params;  // "NAME=VALUE", the engine's declared parameters
};
void add_engine_options(CLI::App& cmd, EngineChoice& choice);
// "backend:kernel" with the default kernel filled in; InputError for unknown names.
std::string engine_name(const EngineChoice& choice);
EngineOptions engine_options(const EngineChoice& choice);

// --rule, --topology and --size as given (empty: not given), checked; InputError otherwise.
BoardOverrides board_overrides(const std::string& rule, const std::string& topology, const std::string& size);

// "WxH" -> (W, H), both >= 1; InputError naming `what` otherwise.
std::pair<std::int64_t, std::int64_t> parse_size(const std::string& text, const std::string& what);

// A JSON string literal (quoted, escaped).
std::string json_string(std::string_view text);

// "4096", "512M", "8G" (powers of 1024) -> bytes; InputError naming `what` otherwise.
std::int64_t parse_bytes(const std::string& text, const std::string& what);
// Half of the physical memory: the default budget for boards.
std::int64_t default_memory_budget();
// Refuses a bounded board over `budget` bytes (InputError, before anything is allocated) and caps
// an unbounded board's growth to it.
void apply_memory_budget(const BoardSpec& spec, std::int64_t budget, EngineOptions& options);
// Reader limits that keep a pattern file's cells (16 bytes each, plus sorting) and text well inside
// a memory budget, so a hostile file is refused before it can exhaust memory.
ReadLimits read_limits_for(std::int64_t budget);

}  // namespace tilelife::cli
