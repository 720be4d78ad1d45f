#include "opencl/runtime.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <tuple>

#include "opencl/kernel_sources.hpp"
#include "tilelife/error.hpp"

namespace tilelife::opencl {
namespace {

const char* const kNoPlatformHint =
    "no OpenCL platform found: install an OpenCL driver (pocl-opencl-icd for CPUs, or the GPU vendor's "
    "driver) and check /etc/OpenCL/vendors";

// (major, minor) from "OpenCL 3.0 ..." or "OpenCL C 1.2 ...".
std::pair<int, int> parse_version(const std::string& text) {
    const auto pos = text.find_first_of("0123456789");
    if (pos == std::string::npos) return {0, 0};
    int major = 0, minor = 0;
    std::size_t i = pos;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) major = major * 10 + (text[i++] - '0');
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
            minor = minor * 10 + (text[i++] - '0');
    }
    return {major, minor};
}

std::string type_name(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    if (t & CL_DEVICE_TYPE_CUSTOM) return "custom";
    return "other";
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}

struct Found {
    cl::Device device;
    DeviceDescription info;
    std::string work_group_std, sub_group_std;
};

// Reads what the kernels care about. Collective functions: mandatory in OpenCL C 2.x, an optional
// feature (__opencl_c_work_group_collective_functions, __opencl_c_subgroups) in 3.0.
Found describe(const cl::Device& d, int p, int i, int flat, const std::string& platform_name) {
    Found f;
    f.device = d;
    DeviceDescription& info = f.info;
    info.platform = p;
    info.device = i;
    info.flat_index = flat;
    info.platform_name = trim(platform_name);
    info.name = trim(d.getInfo<CL_DEVICE_NAME>());
    info.type = type_name(d.getInfo<CL_DEVICE_TYPE>());
    info.version = trim(d.getInfo<CL_DEVICE_VERSION>());
    info.compute_units = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    info.max_work_group_size = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    info.max_work_item_sizes = d.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
    info.local_mem_size = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    info.local_mem_dedicated = d.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>() == CL_LOCAL;
    info.global_mem_size = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();

    const std::string c_version = trim(d.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
    auto [cmaj, cmin] = parse_version(c_version);
    const std::string extensions = d.getInfo<CL_DEVICE_EXTENSIONS>();
    bool wg_feature = false, sg_feature = false;
    const auto dev_version = parse_version(info.version);
    if (dev_version.first >= 3) {
        try {
            for (const cl_name_version& v : d.getInfo<CL_DEVICE_OPENCL_C_ALL_VERSIONS>()) {
                const int maj = CL_VERSION_MAJOR(v.version), min = CL_VERSION_MINOR(v.version);
                if (std::tie(maj, min) > std::tie(cmaj, cmin)) cmaj = maj, cmin = min;
            }
            for (const cl_name_version& v : d.getInfo<CL_DEVICE_OPENCL_C_FEATURES>()) {
                const std::string name = v.name;
                if (name == "__opencl_c_work_group_collective_functions") wg_feature = true;
                if (name == "__opencl_c_subgroups") sg_feature = true;
            }
        } catch (const cl::Error&) {
            // A 3.0 device that fails these queries simply gets the OpenCL C 1.2 paths.
        }
    }
    info.opencl_c_version = "OpenCL C " + std::to_string(cmaj) + "." + std::to_string(cmin);
    if (cmaj == 2) {
        f.work_group_std = "-cl-std=CL2.0";
        if (extensions.find("cl_khr_subgroups") != std::string::npos) f.sub_group_std = "-cl-std=CL2.0";
    }
    if (cmaj >= 3) {
        if (wg_feature) f.work_group_std = "-cl-std=CL3.0";
        if (sg_feature) f.sub_group_std = "-cl-std=CL3.0";
    }
    info.work_group_collectives = !f.work_group_std.empty();
    info.sub_groups = !f.sub_group_std.empty();
    return f;
}

std::vector<Found> enumerate() {
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error&) {
        platforms.clear();  // ocl-icd reports "no platform" as an error
    }
    if (platforms.empty()) throw RuntimeError(kNoPlatformHint);
    std::vector<Found> out;
    int flat = 0;
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        std::vector<cl::Device> devices;
        try {
            platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
        } catch (const cl::Error&) {
            continue;  // CL_DEVICE_NOT_FOUND: a platform without devices
        }
        std::string pname;
        try {
            pname = platforms[p].getInfo<CL_PLATFORM_NAME>();
        } catch (const cl::Error&) {
        }
        for (std::size_t i = 0; i < devices.size(); ++i)
            out.push_back(describe(devices[i], static_cast<int>(p), static_cast<int>(i), flat++, pname));
    }
    return out;
}

std::mutex& cache_mutex() {
    static std::mutex m;
    return m;
}

struct ProgramEntry {
    cl::Program program;  // empty when the build failed
    std::string log;
};

}  // namespace

std::string error_name(cl_int code) {
    static const std::map<cl_int, const char*> names = {
        {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
        {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
        {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
        {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
        {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
        {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
        {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
        {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
        {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
        {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
        {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
        {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
        {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE"},
        {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
        {CL_PLATFORM_NOT_FOUND_KHR, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    const auto it = names.find(code);
    return std::string(it != names.end() ? it->second : "OpenCL error") + " (" + std::to_string(code) + ")";
}

void throw_runtime(const cl::Error& e, const std::string& doing) {
    throw RuntimeError("OpenCL: " + doing + " failed: " + e.what() + ": " + error_name(e.err()));
}

std::vector<DeviceDescription> list_devices() {
    try {
        std::vector<DeviceDescription> out;
        for (const Found& f : enumerate()) out.push_back(f.info);
        return out;
    } catch (const cl::Error& e) {
        throw_runtime(e, "listing devices");
    }
}

std::shared_ptr<const DeviceRuntime> runtime_for(const std::string& spec) {
    std::lock_guard lock(cache_mutex());
    // Never destroyed: releasing driver objects from static destructors races the driver's own
    // teardown at exit (the OS frees everything anyway).
    static auto& found = *new std::vector<Found>;
    static bool enumerated = false;
    static auto& runtimes = *new std::map<std::pair<int, int>, std::shared_ptr<const DeviceRuntime>>;
    try {
        if (!enumerated) {
            found = enumerate();
            enumerated = true;
        }
        if (found.empty()) throw RuntimeError(std::string(kNoPlatformHint) + " (platforms exist but report no device)");
        const Found* pick = nullptr;
        if (spec.empty()) {
            for (const Found& f : found)
                if (f.info.type == "GPU") {
                    pick = &f;
                    break;
                }
            if (!pick) pick = &found.front();
        } else {
            const auto colon = spec.find(':');
            auto number = [&](const std::string& s) {
                if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
                    throw InputError("bad OpenCL device '" + spec +
                                     "': expected P:D (platform:device) or a flat device index");
                return std::stoi(s);
            };
            if (colon == std::string::npos) {
                const int n = number(spec);
                for (const Found& f : found)
                    if (f.info.flat_index == n) pick = &f;
            } else {
                const int p = number(spec.substr(0, colon)), d = number(spec.substr(colon + 1));
                for (const Found& f : found)
                    if (f.info.platform == p && f.info.device == d) pick = &f;
            }
            if (!pick)
                throw InputError("no OpenCL device '" + spec + "' (this machine has " + std::to_string(found.size()) +
                                 " device(s), flat indices 0.." + std::to_string(found.size() - 1) + ")");
        }
        const auto key = std::make_pair(pick->info.platform, pick->info.device);
        if (auto it = runtimes.find(key); it != runtimes.end()) return it->second;
        auto rt = std::make_shared<DeviceRuntime>();
        rt->device = pick->device;
        rt->info = pick->info;
        rt->work_group_std = pick->work_group_std;
        rt->sub_group_std = pick->sub_group_std;
        rt->max_alloc = pick->device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
        rt->context = cl::Context(pick->device);
        rt->queue = cl::CommandQueue(rt->context, pick->device, CL_QUEUE_PROFILING_ENABLE);
        runtimes.emplace(key, rt);
        return rt;
    } catch (const cl::Error& e) {
        throw_runtime(e, "opening device '" + spec + "'");
    }
}

namespace {
const ProgramEntry& build_cached(const DeviceRuntime& rt, const std::vector<std::string>& files,
                                 const std::string& options) {
    std::lock_guard lock(cache_mutex());
    static auto& programs = *new std::map<std::tuple<cl_device_id, std::string, std::string>, ProgramEntry>;  // never destroyed (see runtime_for)
    std::string names, source;
    for (const std::string& f : files) {
        const std::string_view text = kernel_source(f);
        if (text.empty()) throw std::logic_error("no embedded kernel file " + f);
        names += (names.empty() ? "" : "+") + f;
        source += "#line 1 \"" + f + "\"\n";
        source += text;
        source += '\n';
    }
    const auto key = std::make_tuple(rt.device(), names, options);
    if (auto it = programs.find(key); it != programs.end()) return it->second;
    ProgramEntry entry;
    cl::Program program(rt.context, source);
    try {
        program.build(std::vector<cl::Device>{rt.device}, options.c_str());
        entry.program = program;
        // Compiler remarks (register spills, warnings): engines report them in describe().
        entry.log = trim(program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(rt.device));
    } catch (const cl::Error& e) {
        std::string log;
        try {
            log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(rt.device);
        } catch (const cl::Error&) {
        }
        entry.log = "building kernels/" + names + " for " + rt.info.name + " with '" + options + "' failed (" +
                    error_name(e.err()) + "); build log:\n" + trim(log);
    }
    return programs.emplace(key, std::move(entry)).first->second;
}
}  // namespace

cl::Program program_for(const DeviceRuntime& rt, const std::vector<std::string>& files, const std::string& options) {
    try {
        const ProgramEntry& e = build_cached(rt, files, options);
        if (!e.program()) throw RuntimeError("OpenCL: " + e.log);
        return e.program;
    } catch (const cl::Error& e) {
        throw_runtime(e, "creating a program");
    }
}

std::string build_log(const DeviceRuntime& rt, const std::vector<std::string>& files, const std::string& options) {
    try {
        const ProgramEntry& e = build_cached(rt, files, options);
        return e.program() ? e.log : std::string();
    } catch (const cl::Error&) {
        return {};
    }
}

cl::Program try_program_for(const DeviceRuntime& rt, const std::vector<std::string>& files,
                            const std::string& options) {
    try {
        return build_cached(rt, files, options).program;
    } catch (const cl::Error&) {
        return cl::Program();
    }
}

StepTiming timing_of(const std::vector<cl::Event>& events) {
    StepTiming t;
    if (events.empty()) return t;
    cl_ulong sum = 0;
    for (const cl::Event& e : events)
        sum += e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    t.kernel_seconds = static_cast<double>(sum) * 1e-9;
    t.span_seconds = static_cast<double>(events.back().getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                                         events.front().getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
                     1e-9;
    return t;
}

}  // namespace tilelife::opencl
