#include "sycl/runtime.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "tilelife/error.hpp"

namespace tilelife::sycl_backend {
namespace {

const char* const kNoDeviceHint =
    "the SYCL runtime found no device (AdaptiveCpp lists its OpenMP host device when its omp backend "
    "library is installed next to libacpp-rt)";

std::string type_name(const sycl::device& d) {
    if (d.is_gpu()) return "GPU";
    if (d.is_cpu()) return "CPU";
    if (d.is_accelerator()) return "accelerator";
    return "other";
}

struct Found {
    sycl::device device;
    DeviceDescription info;
};

Found describe(const sycl::device& d, int p, int i, int flat, const std::string& platform_name) {
    Found f{d, {}};
    DeviceDescription& info = f.info;
    info.platform = p;
    info.device = i;
    info.flat_index = flat;
    info.platform_name = platform_name;
    info.name = d.get_info<sycl::info::device::name>();
    info.type = type_name(d);
    info.compute_units = d.get_info<sycl::info::device::max_compute_units>();
    info.max_work_group_size = d.get_info<sycl::info::device::max_work_group_size>();
    const std::uint64_t local = d.get_info<sycl::info::device::local_mem_size>();
    info.local_mem_size = local >= (std::uint64_t{1} << 48) ? 0 : local;  // "unbounded" (host memory)
    info.local_mem_dedicated = d.get_info<sycl::info::device::local_mem_type>() == sycl::info::local_mem_type::local;
    info.global_mem_size = d.get_info<sycl::info::device::global_mem_size>();
    info.max_alloc = d.get_info<sycl::info::device::max_mem_alloc_size>();
    info.sub_group_sizes = d.get_info<sycl::info::device::sub_group_sizes>();
    return f;
}

std::vector<Found> enumerate() {
    std::vector<Found> out;
    int flat = 0, p = 0;
    for (const sycl::platform& platform : sycl::platform::get_platforms()) {
        const auto devices = platform.get_devices();
        if (devices.empty()) continue;
        const std::string pname = platform.get_info<sycl::info::platform::name>();
        for (std::size_t i = 0; i < devices.size(); ++i)
            out.push_back(describe(devices[i], p, static_cast<int>(i), flat++, pname));
        ++p;
    }
    return out;
}

std::mutex& cache_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace

void throw_runtime(const sycl::exception& e, const std::string& doing) {
    throw RuntimeError("SYCL: " + doing + " failed: " + e.what());
}

void DeviceRuntime::sync(const char* doing) {
    try {
        queue.wait_and_throw();
    } catch (const sycl::exception& e) {
        throw_runtime(e, doing);
    }
    if (!async_errors->empty()) {
        const std::string first = async_errors->front();
        async_errors->clear();
        throw RuntimeError(std::string("SYCL: ") + doing + " failed: " + first);
    }
}

std::vector<DeviceDescription> list_devices() {
    try {
        std::vector<DeviceDescription> out;
        for (const Found& f : enumerate()) out.push_back(f.info);
        if (out.empty()) throw RuntimeError(kNoDeviceHint);
        return out;
    } catch (const sycl::exception& e) {
        throw_runtime(e, "listing devices");
    }
}

std::shared_ptr<DeviceRuntime> runtime_for(const std::string& spec) {
    std::lock_guard lock(cache_mutex());
    // Never destroyed: releasing device objects from static destructors races the runtime's own
    // teardown at exit.
    static auto& found = *new std::vector<Found>;
    static bool enumerated = false;
    static auto& runtimes = *new std::map<std::pair<int, int>, std::shared_ptr<DeviceRuntime>>;
    try {
        if (!enumerated) {
            found = enumerate();
            enumerated = true;
        }
        if (found.empty()) throw RuntimeError(kNoDeviceHint);
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
                    throw InputError("bad SYCL device '" + spec + "': expected P:D (platform:device) or a device index");
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
                throw InputError("no SYCL device '" + spec + "' (" + std::to_string(found.size()) +
                                 " device(s); see tilelife devices)");
        }
        const auto key = std::make_pair(pick->info.platform, pick->info.device);
        if (auto it = runtimes.find(key); it != runtimes.end()) return it->second;
        auto rt = std::make_shared<DeviceRuntime>();
        rt->device = pick->device;
        rt->info = pick->info;
        rt->async_errors = std::make_shared<std::vector<std::string>>();
        auto errors = rt->async_errors;
        auto handler = [errors](sycl::exception_list list) {
            for (const std::exception_ptr& p : list) {
                try {
                    std::rethrow_exception(p);
                } catch (const std::exception& e) {
                    errors->push_back(e.what());
                }
            }
        };
        rt->queue = sycl::queue(pick->device, handler,
                                sycl::property_list{sycl::property::queue::in_order{},
                                                    sycl::property::queue::enable_profiling{}});
        runtimes.emplace(key, rt);
        return rt;
    } catch (const sycl::exception& e) {
        throw_runtime(e, "opening device '" + spec + "'");
    }
}

StepTiming timing_of(const std::vector<sycl::event>& events) {
    StepTiming t;
    if (events.empty()) return t;
    namespace event_profiling = sycl::info::event_profiling;
    std::uint64_t sum = 0, first = UINT64_MAX, last = 0;
    for (const sycl::event& e : events) {
        const std::uint64_t s = e.get_profiling_info<event_profiling::command_start>();
        const std::uint64_t f = e.get_profiling_info<event_profiling::command_end>();
        sum += f - s;
        first = std::min(first, s);
        last = std::max(last, f);
    }
    t.kernel_seconds = static_cast<double>(sum) * 1e-9;
    t.span_seconds = static_cast<double>(last - first) * 1e-9;
    return t;
}

void register_sycl_backend() {
    BackendInfo b;
    b.name = "sycl";
    b.description = "SYCL devices (AdaptiveCpp: OpenMP host device, CUDA GPUs, ...)";
    b.devices = [] {
        std::vector<DeviceInfo> out;
        const auto devices = list_devices();
        // The device `--backend sycl` takes without --device: the first GPU, else the first device.
        int chosen = 0;
        for (const auto& d : devices)
            if (d.is_gpu()) {
                chosen = d.flat_index;
                break;
            }
        for (const DeviceDescription& d : devices) {
            DeviceInfo i;
            i.backend = "sycl";
            i.id = std::to_string(d.flat_index);
            i.name = d.name;
            i.type = d.type;
            i.properties.emplace_back("platform", d.platform_name);
            i.properties.emplace_back("P:D", d.id());
            i.properties.emplace_back("default", d.flat_index == chosen);
            i.properties.emplace_back("compute units", static_cast<std::int64_t>(d.compute_units));
            i.properties.emplace_back("max work-group", static_cast<std::int64_t>(d.max_work_group_size));
            i.properties.emplace_back("local memory bytes",
                                      d.local_mem_size ? DescriptionValue(static_cast<std::int64_t>(d.local_mem_size))
                                                       : DescriptionValue(nullptr));  // unbounded (host memory)
            i.properties.emplace_back("local memory on-chip", d.local_mem_dedicated);
            i.properties.emplace_back("global memory bytes", static_cast<std::int64_t>(d.global_mem_size));
            std::string sg;
            for (std::size_t s : d.sub_group_sizes) sg += (sg.empty() ? "" : ",") + std::to_string(s);
            i.properties.emplace_back("sub-group sizes", sg);
            out.push_back(std::move(i));
        }
        return out;
    };
    register_backend(b);
}

}  // namespace tilelife::sycl_backend
