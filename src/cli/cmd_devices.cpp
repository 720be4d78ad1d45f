// tilelife devices: every backend's devices (for --backend B --device ID), as each backend lists them.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

// A bool property "default" marks the device the backend takes without --device.
bool is_default(const DeviceInfo& d) {
    for (const auto& [key, value] : d.properties)
        if (key == "default" && std::holds_alternative<bool>(value)) return std::get<bool>(value);
    return false;
}

struct Listing {
    const BackendInfo* backend;
    std::vector<DeviceInfo> devices;
    std::string error;  // the backend found no devices at all (RuntimeError with its hint)
};

}  // namespace

void add_devices(CLI::App& app, int& exit_code) {
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("devices", "list every backend's devices (for --backend B --device ID)");
    cmd->add_flag("--json", *json, "print one JSON object (docs/json.md)");
    cmd->callback([json, &exit_code] {
        const std::vector<BackendInfo> backends = registered_backends();
        if (backends.empty())
            throw RuntimeError("this build of tilelife has no device backend (its CPU engines run on this machine's "
                               "cores; OpenCL needs ocl-icd-opencl-dev and opencl-clhpp-headers at build time)");
        std::vector<Listing> listings;
        for (const BackendInfo& b : backends) {
            Listing l{&b, {}, {}};
            try {
                l.devices = b.devices();
            } catch (const RuntimeError& e) {
                l.error = e.what();
            }
            listings.push_back(std::move(l));
        }
        // No backend with a device: the command failed, with each backend's reason (and hint).
        std::string why;
        bool any = false;
        for (const Listing& l : listings) {
            any = any || !l.devices.empty();
            why += (why.empty() ? "" : "; ") + (l.error.empty() ? l.backend->name + ": no devices" : l.error);
        }
        if (!any) throw RuntimeError(why);
        if (*json) {
            Json doc = json_document("devices");
            Json list = Json::array();
            for (const Listing& l : listings) {
                Json devices = Json::array();
                for (const DeviceInfo& d : l.devices) devices.push_back(device_json(d));
                list.push_back(Json{{"name", l.backend->name},
                                    {"description", l.backend->description},
                                    {"devices", devices},
                                    {"error", string_or_null(l.error)}});
            }
            doc["backends"] = list;
            print_json(doc);
        } else {
            for (const Listing& l : listings) {
                std::printf("backend %s: %s\n", l.backend->name.c_str(), l.backend->description.c_str());
                if (!l.error.empty()) std::printf("  no devices: %s\n", l.error.c_str());
                for (const DeviceInfo& d : l.devices) {
                    std::printf("  device %s%s: %s%s\n", d.id.c_str(), is_default(d) ? " [default]" : "", d.name.c_str(),
                                d.type.empty() ? "" : (" (" + d.type + ")").c_str());
                    for (const auto& [key, value] : d.properties)
                        if (key != "default") std::printf("    %s: %s\n", key.c_str(), value_text(value).c_str());
                }
            }
        }
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
