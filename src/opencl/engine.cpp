// The OpenCL backend: its engines and its device lister.
#include <algorithm>

#include "opencl/api.hpp"
#include "opencl/bitpacked.hpp"
#include "opencl/byte_engines.hpp"
#include "tilelife/engine.hpp"

namespace tilelife {
namespace {

std::vector<DeviceInfo> opencl_devices() {
    std::vector<DeviceInfo> out;
    for (const opencl::DeviceDescription& d : opencl::list_devices()) {
        DeviceInfo info;
        info.backend = "opencl";
        info.id = d.id();
        info.name = d.name;
        info.type = d.type;
        auto& p = info.properties;
        p.emplace_back("platform", d.platform_name);
        p.emplace_back("flat-index", std::int64_t{d.flat_index});
        p.emplace_back("version", d.version);
        p.emplace_back("opencl-c", d.opencl_c_version);
        p.emplace_back("compute-units", std::int64_t{d.compute_units});
        p.emplace_back("max-work-group-size", static_cast<std::int64_t>(d.max_work_group_size));
        p.emplace_back("local-memory-bytes", static_cast<std::int64_t>(d.local_mem_size));
        p.emplace_back("local-memory", std::string(d.local_mem_dedicated ? "on-chip" : "emulated in global memory"));
        p.emplace_back("global-memory-bytes", static_cast<std::int64_t>(d.global_mem_size));
        p.emplace_back("work-group-collectives", d.work_group_collectives);
        p.emplace_back("sub-groups", d.sub_groups);
        out.push_back(std::move(info));
    }
    // The device engines take without a device named: the first GPU, else the first device
    // (`tilelife devices` marks it).
    auto chosen = std::find_if(out.begin(), out.end(), [](const DeviceInfo& d) { return d.type == "GPU"; });
    if (chosen == out.end()) chosen = out.begin();
    if (chosen != out.end()) chosen->properties.emplace_back("default", true);
    return out;
}

}  // namespace

void register_opencl_engines() {
    opencl::register_byte_engines();
    opencl::register_bitpacked_engine();
    register_backend({"opencl", "OpenCL devices (GPUs, or CPUs through PoCL)", opencl_devices});
}

}  // namespace tilelife
