#include <algorithm>
#include <charconv>

#include "cli/commands.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {

void add_engine_options(CLI::App& cmd, EngineChoice& c) {
    cmd.add_option("--backend", c.backend, "cpu or opencl")->default_val("cpu");
    cmd.add_option("--kernel", c.kernel,
                   "kernel of the backend (cpu: bitpacked, reference; opencl: naive, local, local-strided, ...); "
                   "default: the backend's fastest");
    cmd.add_option("--device", c.device, "OpenCL device: P:D (platform:device) or a flat index");
    cmd.add_option("--wg", c.wg, "OpenCL work-group shape WxH (default: from the device)");
    cmd.add_option("--threads", c.threads, "CPU threads (default: all cores)")->check(CLI::NonNegativeNumber);
    cmd.add_option("--steps-per-launch", c.steps_per_launch, "generations per kernel launch where supported")
        ->check(CLI::NonNegativeNumber);
    cmd.add_option("--param", c.params, "engine parameter NAME=VALUE, repeatable (e.g. rows=16)");
}

std::string engine_name(const EngineChoice& c) {
    if (c.kernel.find(':') != std::string::npos) {
        if (!engine_exists(c.kernel)) throw InputError("unknown engine '" + c.kernel + "' (see `tilelife engines`)");
        return c.kernel;
    }
    std::string kernel = c.kernel;
    if (kernel.empty()) {
        // The fastest kernel this build has for the backend.
        for (const char* k : {"bitpacked", "local-strided", "local", "naive", "reference"})
            if (engine_exists(c.backend + ":" + k)) {
                kernel = k;
                break;
            }
    }
    const std::string name = c.backend + ":" + kernel;
    if (!engine_exists(name)) {
        std::string known;
        for (const auto& e : registered_engines()) known += (known.empty() ? "" : ", ") + e.name;
        if (c.backend == "opencl" && known.find("opencl:") == std::string::npos)
            throw InputError("this build of tilelife has no OpenCL backend (available: " + known + ")");
        throw InputError("unknown backend/kernel '" + name + "' (available: " + known + ")");
    }
    return name;
}

EngineOptions engine_options(const EngineChoice& c) {
    EngineOptions o;
    o.device = c.device;
    if (!c.wg.empty()) {
        const auto [w, h] = parse_size(c.wg, "--wg");
        if (w > 4096 || h > 4096) throw InputError("--wg " + c.wg + " is larger than any device allows");
        o.wg_width = static_cast<int>(w);
        o.wg_height = static_cast<int>(h);
    }
    o.threads = c.threads;
    o.steps_per_launch = c.steps_per_launch;
    for (const std::string& p : c.params) {
        const auto eq = p.find('=');
        if (eq == std::string::npos || eq == 0) throw InputError("--param '" + p + "' is not NAME=VALUE");
        o.params[p.substr(0, eq)] = p.substr(eq + 1);
    }
    return o;
}

BoardOverrides board_overrides(const std::string& rule, const std::string& topology, const std::string& size) {
    BoardOverrides ov;
    if (!rule.empty()) ov.rule = rule;
    if (!topology.empty()) {
        ov.topology = parse_topology(topology);
        if (!ov.topology) throw InputError("--topology '" + topology + "' is not unbounded, torus or plane");
    }
    if (!size.empty()) {
        const auto [w, h] = parse_size(size, "--size");
        ov.width = w;
        ov.height = h;
    }
    return ov;
}

std::pair<std::int64_t, std::int64_t> parse_size(const std::string& text, const std::string& what) {
    const auto x = text.find_first_of("xX");
    auto number = [&](std::string_view s) {
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 1 || v > 4000000000LL)
            throw InputError(what + " '" + text + "' is not WxH with whole numbers from 1 to 4000000000");
        return v;
    };
    if (x == std::string::npos) throw InputError(what + " '" + text + "' is not WxH (e.g. 1024x768)");
    return {number(std::string_view(text).substr(0, x)), number(std::string_view(text).substr(x + 1))};
}

}  // namespace tilelife::cli

#include <unistd.h>

namespace tilelife::cli {

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out + "\"";
}

std::int64_t parse_bytes(const std::string& text, const std::string& what) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, v);
    int shift = 0;
    if (p != end && p + 1 == end) {
        switch (*p) {
            case 'k': case 'K': shift = 10; break;
            case 'm': case 'M': shift = 20; break;
            case 'g': case 'G': shift = 30; break;
            case 't': case 'T': shift = 40; break;
            default: shift = -1;
        }
    } else if (p != end) {
        shift = -1;
    }
    if (text.empty() || ec != std::errc() || shift < 0 || v < 1 || v > (INT64_MAX >> shift))
        throw InputError(what + " '" + text + "' is not a size in bytes (e.g. 4096, 512M, 8G)");
    return v << shift;
}

std::int64_t default_memory_budget() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::int64_t{1} << 32;
    return static_cast<std::int64_t>(pages) * page / 2;
}

void apply_memory_budget(const BoardSpec&, std::int64_t budget, EngineOptions& options) {
    // create_engine refuses a bounded board over it (the engine says what it needs); unbounded boards
    // stop growing at it.
    options.max_bytes = budget;
}

ReadLimits read_limits_for(std::int64_t budget) {
    ReadLimits limits;
    limits.max_cells = std::clamp<std::int64_t>(budget / 64, 1 << 20, limits.max_cells);
    limits.max_file_bytes = std::clamp<std::int64_t>(budget / 8, 1 << 24, limits.max_file_bytes);
    return limits;
}

}  // namespace tilelife::cli
