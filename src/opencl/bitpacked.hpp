// opencl:bitpacked — one bit per cell in 32-bit words, several generations per launch in local
// memory (kernels/bitpacked_time_tile.cl; design in docs/bitpacked-opencl.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "opencl/api.hpp"
#include "tilelife/engine.hpp"

namespace tilelife::opencl {

// Registers opencl:bitpacked; called from register_opencl_engines().
void register_bitpacked_opencl_engine();

// details() and timed_step() of api.hpp for opencl:bitpacked; nullopt for any other engine.
std::optional<EngineDetails> bitpacked_details(const Engine& engine);
std::optional<StepTiming> bitpacked_timed_step(Engine& engine, std::int64_t generations);

// Activity tracking (TILELIFE_OPENCL_ACTIVITY=0|off, 1|on, auto; default auto), for tests and bench:
// how many tiles the board has and how many the last launch ran (all of them unless it used the
// active-tile list). nullopt for engines other than opencl:bitpacked.
struct BitpackedActivity {
    std::string mode;  // "off", "on", "auto"
    std::uint64_t tiles = 0;
    std::uint64_t last_run = 0;
    std::int64_t launches = 0, listed_launches = 0;  // launches so far; those that ran from the list
};
std::optional<BitpackedActivity> bitpacked_activity(const Engine& engine);

// What opencl:bitpacked chooses by default on a device (bench --autotune sweeps around these):
// work-group LW x S work-items (LW words per local row including the two halo words, S strips),
// ROWS rows per work-item (Tuning::rows_per_item), K generations per launch.
struct BitpackedShape {
    // GPUs: a warp-wide local row (30 tile words), 8 x 32 = 256 local rows (NVIDIA's OpenCL allows
    // this kernel 256 work-items), 12 generations per launch (measured best on an H100).
    int lw = 32, strips = 8, rows = 32, steps = 12;
};
BitpackedShape bitpacked_default_shape(const DeviceDescription& device);

}  // namespace tilelife::opencl
