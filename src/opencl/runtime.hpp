// Device discovery and the process-wide cache of contexts, queues and built programs. The unbounded
// board re-creates plane engines as the pattern grows, so everything expensive is made once per
// process: one context and queue per device, one program per (device, kernel files, build options).
#pragma once
#include <CL/opencl.hpp>
#include <memory>
#include <string>
#include <vector>

#include "opencl/api.hpp"

namespace tilelife::opencl {

struct DeviceRuntime {
    cl::Device device;
    cl::Context context;
    cl::CommandQueue queue;  // in-order, profiling enabled (bench reads kernel times from events)
    DeviceDescription info;
    std::uint64_t max_alloc = 0;
    // "-cl-std=..." that enables each collective path, empty when the device lacks it.
    std::string work_group_std, sub_group_std;
};

// The device named by EngineOptions::device ("" = first GPU, else first device; "P:D"; flat index).
// InputError for a malformed or unknown name, RuntimeError when there is no platform or device.
std::shared_ptr<const DeviceRuntime> runtime_for(const std::string& spec);

// kernels/<files...> concatenated and built with `options`; cached. Throws RuntimeError with the
// build log when the build fails.
cl::Program program_for(const DeviceRuntime& rt, const std::vector<std::string>& files, const std::string& options);
// The compiler's remarks from building a cached program (empty when it said nothing or failed).
std::string build_log(const DeviceRuntime& rt, const std::vector<std::string>& files, const std::string& options);
// Same as program_for, but a failed build gives an empty Program (for optional paths that fall back).
cl::Program try_program_for(const DeviceRuntime& rt, const std::vector<std::string>& files,
                            const std::string& options);

// Device time of finished kernels from their profiling events: the sum of their own durations, and
// the span from the first one's start to the last one's end (which adds the launch gaps).
StepTiming timing_of(const std::vector<cl::Event>& events);

// "CL_OUT_OF_RESOURCES (-5)" and friends.
std::string error_name(cl_int code);
// A cl::Error as the RuntimeError the CLI turns into exit code 1.
[[noreturn]] void throw_runtime(const cl::Error& e, const std::string& doing);

}  // namespace tilelife::opencl
