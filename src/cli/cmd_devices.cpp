// tilelife devices: the OpenCL platforms and devices, with what the kernels can use on each, then the
// devices of every other backend that registered a lister (register_backend: sycl).
#include <cstdio>
#include <iostream>
#include <sstream>
#include <variant>
#include <vector>

#include "cli/commands.hpp"
#include "tilelife/error.hpp"
#ifdef TILELIFE_HAVE_OPENCL
#include "opencl/api.hpp"
#endif

namespace tilelife::cli {
namespace {

std::string value_text(const DescriptionValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
    return std::get<std::string>(v);
}

std::string value_json(const DescriptionValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (std::holds_alternative<std::string>(v)) return json_string(std::get<std::string>(v));
    return value_text(v);
}

// The devices of a registered backend other than OpenCL (whose listing below predates the registry).
void list_backend(const BackendInfo& b, bool json, std::ostringstream& js) {
    const auto devices = b.devices();
    if (json) {
        js << json_string(b.name) << ":[";
        for (std::size_t i = 0; i < devices.size(); ++i) {
            const DeviceInfo& d = devices[i];
            js << (i ? "," : "") << "{\"id\":" << json_string(d.id) << ",\"name\":" << json_string(d.name)
               << ",\"type\":" << json_string(d.type);
            for (const auto& [key, value] : d.properties) js << "," << json_string(key) << ":" << value_json(value);
            js << "}";
        }
        js << "]";
        return;
    }
    std::printf("backend %s: %s\n", b.name.c_str(), b.description.c_str());
    for (const DeviceInfo& d : devices) {
        bool chosen = false;
        for (const auto& [key, value] : d.properties)
            if (key == "default" && std::holds_alternative<bool>(value)) chosen = std::get<bool>(value);
        std::printf("  device %s%s: %s (%s)\n", d.id.c_str(), chosen ? " [default]" : "", d.name.c_str(), d.type.c_str());
        std::string line;
        for (const auto& [key, value] : d.properties)
            if (key != "default") line += (line.empty() ? "" : ", ") + key + " " + value_text(value);
        std::printf("    %s\n", line.c_str());
    }
}

}  // namespace

void add_devices(CLI::App& app, int& exit_code) {
    auto json = std::make_shared<bool>(false);
    auto backend = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("devices", "list OpenCL platforms and devices, and those of other device backends "
                                                  "(for --backend B --device)");
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->add_option("--backend", *backend, "list only this backend's devices (opencl, sycl)");
    cmd->callback([json, backend, &exit_code] {
        std::vector<BackendInfo> others;
        for (const BackendInfo& b : registered_backends())
            if (b.name != "opencl" && (backend->empty() || *backend == b.name)) others.push_back(b);
        if (!backend->empty() && *backend != "opencl" && others.empty())
            throw InputError("--backend '" + *backend + "' has no device listing in this build");
        if (*backend != "opencl" && !others.empty()) {
#ifdef TILELIFE_HAVE_OPENCL
            const bool with_opencl = backend->empty();
#else
            const bool with_opencl = false;
#endif
            if (!with_opencl) {
                std::ostringstream js;
                js << "{";
                for (std::size_t i = 0; i < others.size(); ++i) {
                    if (*json && i) js << ",";
                    list_backend(others[i], *json, js);
                }
                js << "}";
                if (*json) std::cout << js.str() << "\n";
                exit_code = 0;
                return;
            }
        }
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
            js << "]";
            for (const BackendInfo& b : others) {
                js << ",";
                list_backend(b, true, js);
            }
            js << "}";
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
            std::ostringstream unused;
            for (const BackendInfo& b : others) list_backend(b, false, unused);
        }
        exit_code = 0;
#endif
    });
}

}  // namespace tilelife::cli
