// SYCL devices and the process-wide cache of queues. The unbounded board re-creates plane engines as
// the pattern grows, so the queue (in-order, profiling enabled) is made once per device.
#pragma once
#include <sycl/sycl.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilelife/engine.hpp"

namespace tilelife::sycl_backend {

struct DeviceDescription {
    int platform = 0, device = 0;  // "--device P:D" (a platform is one SYCL backend: OpenMP, CUDA, ...)
    int flat_index = 0;            // "--device N": position over all platforms' devices
    std::string platform_name;
    std::string name;
    std::string type;  // "GPU", "CPU", "accelerator"
    unsigned compute_units = 0;
    std::size_t max_work_group_size = 0;
    // Local memory per work-group; 0 when the device does not bound it (AdaptiveCpp's OpenMP device
    // reports SIZE_MAX: its local memory is ordinary host memory).
    std::uint64_t local_mem_size = 0;
    bool local_mem_dedicated = false;  // on-chip (info::local_mem_type::local)
    std::uint64_t global_mem_size = 0;
    std::uint64_t max_alloc = 0;
    std::vector<std::size_t> sub_group_sizes;
    bool is_gpu() const { return type == "GPU"; }
    std::string id() const { return std::to_string(platform) + ":" + std::to_string(device); }
};

// Every SYCL device. Throws RuntimeError when the SYCL runtime finds none.
std::vector<DeviceDescription> list_devices();

struct DeviceRuntime {
    sycl::device device;
    sycl::queue queue;  // in-order, profiling enabled
    DeviceDescription info;
    // Device faults reported asynchronously (a kernel that failed to launch); sync() turns the first
    // into a RuntimeError.
    std::shared_ptr<std::vector<std::string>> async_errors;

    // Waits for everything submitted; throws RuntimeError for any error the device reported.
    void sync(const char* doing);
    // Does `bytes` of local memory fit a work-group on this device?
    bool local_fits(std::uint64_t bytes) const {
        return info.local_mem_size == 0 || bytes <= info.local_mem_size;
    }
};

// The device named by EngineOptions::device ("" = first GPU, else the first device; "P:D"; flat
// index). InputError for a malformed or unknown name, RuntimeError when there is no device.
std::shared_ptr<DeviceRuntime> runtime_for(const std::string& spec);

// Device time of finished kernels from their profiling events.
StepTiming timing_of(const std::vector<sycl::event>& events);

// A sycl::exception as the RuntimeError the CLI turns into exit code 1.
[[noreturn]] void throw_runtime(const sycl::exception& e, const std::string& doing);

// Registers the "sycl" backend's device lister (`tilelife devices`).
void register_sycl_backend();

}  // namespace tilelife::sycl_backend
