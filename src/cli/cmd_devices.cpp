// tilelife devices: the OpenCL platforms and devices, with what the kernels can use on each.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "tilelife/error.hpp"
#ifdef TILELIFE_HAVE_OPENCL
#include "opencl/api.hpp"
#endif

namespace tilelife::cli {

void add_devices(CLI::App& app, int& exit_code) {
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("devices", "list OpenCL platforms and devices (for --backend opencl --device)");
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([json, &exit_code] {
#ifndef TILELIFE_HAVE_OPENCL
        (void)json;
        (void)exit_code;
        throw RuntimeError("this build of tilelife has no OpenCL support (rebuild with OpenCL headers and an ICD "
                           "loader: ocl-icd-opencl-dev opencl-clhpp-headers)");
#else
        const auto devices = opencl::list_devices();
        // The device --backend opencl takes without --device: the first GPU, else the first device.
        int chosen = devices.empty() ? -1 : 0;
        for (const auto& d : devices)
            if (d.type == "GPU") {
                chosen = d.flat_index;
                break;
            }
        auto reduction = [](const opencl::DeviceDescription& d) {
            return d.work_group_collectives ? "work_group_reduce_add" : d.sub_groups ? "sub_group_reduce_add" : "local-memory tree";
        };
        if (*json) {
            std::ostringstream js;
            js << "{\"default\":" << chosen << ",\"devices\":[";
            for (std::size_t i = 0; i < devices.size(); ++i) {
                const auto& d = devices[i];
                js << (i ? "," : "") << "{\"index\":" << d.flat_index << ",\"id\":\"" << d.platform << ":" << d.device
                   << "\",\"platform\":" << json_string(d.platform_name) << ",\"name\":" << json_string(d.name)
                   << ",\"type\":" << json_string(d.type) << ",\"version\":" << json_string(d.version)
                   << ",\"opencl_c\":" << json_string(d.opencl_c_version) << ",\"compute_units\":" << d.compute_units
                   << ",\"max_work_group_size\":" << d.max_work_group_size
                   << ",\"local_mem_bytes\":" << d.local_mem_size
                   << ",\"local_mem_dedicated\":" << (d.local_mem_dedicated ? "true" : "false")
                   << ",\"global_mem_bytes\":" << d.global_mem_size
                   << ",\"work_group_reduce_add\":" << (d.work_group_collectives ? "true" : "false")
                   << ",\"sub_groups\":" << (d.sub_groups ? "true" : "false")
                   << ",\"population_reduction\":" << json_string(reduction(d)) << "}";
            }
            js << "]}";
            std::cout << js.str() << "\n";
        } else {
            int platform = -1;
            for (const auto& d : devices) {
                if (d.platform != platform) {
                    platform = d.platform;
                    std::printf("platform %d: %s\n", d.platform, d.platform_name.c_str());
                }
                std::printf("  device %d:%d (index %d)%s: %s\n", d.platform, d.device, d.flat_index,
                            d.flat_index == chosen ? " [default]" : "", d.name.c_str());
                std::printf("    type %s, %u compute units, max work-group %zu, global memory %llu MiB\n", d.type.c_str(),
                            d.compute_units, d.max_work_group_size,
                            static_cast<unsigned long long>(d.global_mem_size >> 20));
                std::printf("    local memory %llu KiB (%s)\n", static_cast<unsigned long long>(d.local_mem_size >> 10),
                            d.local_mem_dedicated ? "on-chip" : "emulated in global memory");
                std::printf("    %s, %s\n", d.version.c_str(), d.opencl_c_version.c_str());
                std::printf("    work_group_reduce_add: %s, sub-groups: %s; population by %s\n",
                            d.work_group_collectives ? "yes" : "no", d.sub_groups ? "yes" : "no", reduction(d));
            }
        }
        exit_code = 0;
#endif
    });
}

}  // namespace tilelife::cli
