// The OpenCL devices, without OpenCL headers (the backend's device lister and the tests use it; engines
// describe themselves through Engine::describe()).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilelife/engine.hpp"

namespace tilelife::opencl {

struct DeviceDescription {
    int platform = 0, device = 0;  // EngineOptions::device "P:D"
    int flat_index = 0;            // EngineOptions::device "N": position over all platforms' devices
    std::string platform_name;
    std::string name;
    std::string type;              // "GPU", "CPU", "accelerator", ...
    std::string version;           // CL_DEVICE_VERSION
    std::string opencl_c_version;  // highest OpenCL C the device compiles ("OpenCL C 3.0")
    unsigned compute_units = 0;
    std::size_t max_work_group_size = 0;
    std::vector<std::size_t> max_work_item_sizes;  // per dimension
    std::uint64_t local_mem_size = 0;
    bool local_mem_dedicated = false;  // CL_LOCAL (on-chip) rather than CL_GLOBAL (emulated)
    std::uint64_t global_mem_size = 0;
    bool work_group_collectives = false;  // work_group_reduce_add usable by the kernels
    bool sub_groups = false;              // sub_group_reduce_add usable by the kernels

    std::string id() const { return std::to_string(platform) + ":" + std::to_string(device); }
};

// Every device of every platform. Throws RuntimeError (with an installation hint) when there is no
// OpenCL platform at all.
std::vector<DeviceDescription> list_devices();

}  // namespace tilelife::opencl
