// What the CLI (devices, bench) and the tests need from the OpenCL part, without OpenCL headers.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilelife/engine.hpp"

namespace tilelife::opencl {

struct DeviceDescription {
    int platform = 0, device = 0;  // "--device P:D"
    int flat_index = 0;            // "--device N": position over all platforms' devices
    std::string platform_name;
    std::string name;
    std::string type;              // "GPU", "CPU", "accelerator", ...
    std::string version;           // CL_DEVICE_VERSION
    std::string opencl_c_version;  // highest OpenCL C the device compiles ("OpenCL C 3.0")
    unsigned compute_units = 0;
    std::size_t max_work_group_size = 0;
    std::uint64_t local_mem_size = 0;
    bool local_mem_dedicated = false;  // CL_LOCAL (on-chip) rather than CL_GLOBAL (emulated)
    std::uint64_t global_mem_size = 0;
    bool work_group_collectives = false;  // work_group_reduce_add usable by the kernels
    bool sub_groups = false;              // sub_group_reduce_add usable by the kernels
};

// Every device of every platform. Throws RuntimeError (with an installation hint) when there is no
// OpenCL platform at all.
std::vector<DeviceDescription> list_devices();

// How population() reduces, and other knobs for tests and tuning. Engines read these when created.
enum class Reduction { automatic, tree, work_group, sub_group };
enum class RuleStorage { bits, constant_table, local_table };
struct Tuning {
    Reduction reduction = Reduction::automatic;  // automatic: collectives if the device has them
    RuleStorage rule_storage = RuleStorage::bits;
    int rows_per_item = 0;  // local-strided: rows per work-item; 0 = default
};
// Defaults come from the environment: TILELIFE_OPENCL_REDUCTION=auto|tree|work-group|sub-group,
// TILELIFE_OPENCL_RULE=bits|constant|local, TILELIFE_OPENCL_ROWS=N.
Tuning tuning();
void set_tuning(const Tuning& t);
std::string to_string(Reduction r);
std::string to_string(RuleStorage r);

// What an opencl:* engine chose; nullopt for other engines.
struct EngineDetails {
    std::string device;         // "P:D name"
    int wg_width = 0, wg_height = 0;
    int cells_per_item = 1;
    std::string reduction;      // path population() uses: "tree", "work-group", "sub-group"
    std::string build_options;  // of the cell kernel
};
std::optional<EngineDetails> details(const Engine& engine);

// Runs `generations` steps and returns device time from profiling events: the sum of the kernels'
// own durations and the span from the first kernel's start to the last one's end (which adds launch
// gaps). nullopt (and nothing run) for engines that are not opencl:*.
struct StepTiming {
    double kernel_seconds = 0;
    double span_seconds = 0;
};
std::optional<StepTiming> timed_step(Engine& engine, std::int64_t generations);

}  // namespace tilelife::opencl
