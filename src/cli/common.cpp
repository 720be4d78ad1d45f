// What every subcommand shares: engine selection, sizes, counts, the memory budget, and the one
// place where library messages get the flag they are about.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <variant>

#include "cli/commands.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"

namespace tilelife::cli {

void add_engine_options(CLI::App& cmd, EngineChoice& c) {
    cmd.add_option("--backend", c.backend, "engine backend (`tilelife engines` lists them)")->default_val("cpu");
    cmd.add_option("--kernel", c.kernel,
                   "kernel of the backend, or backend:kernel, or an alias (`tilelife engines`); "
                   "default: the backend's fastest for the topology");
    cmd.add_option("--device", c.device, "the backend's device: P:D or a flat index (`tilelife devices`)");
    cmd.add_option("--wg", c.wg, "work-group shape WxH (default: the engine's choice for the device)");
    cmd.add_option("--threads", c.threads, "CPU threads (default: the engine's choice)")->check(CLI::NonNegativeNumber);
    cmd.add_option("--steps-per-launch", c.steps_per_launch, "generations per kernel launch where supported")
        ->check(CLI::NonNegativeNumber);
    cmd.add_option("--param", c.params,
                   "engine parameter NAME=VALUE, repeatable (`tilelife engines` lists each engine's)");
}

std::string engine_choice(const EngineChoice& c) {
    if (c.kernel.find(':') != std::string::npos) return c.kernel;
    return c.kernel.empty() ? c.backend : c.backend + ":" + c.kernel;
}

std::string engine_name(const EngineChoice& c, std::optional<Topology> topology) {
    return resolve_engine(engine_choice(c), topology.value_or(Topology::torus));
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

std::int64_t parse_count(const std::string& text, const std::string& what, std::int64_t min) {
    const auto bad = [&](const std::string& why) { return InputError(what + " '" + text + "' " + why); };
    const std::string kForms = " (e.g. 1000, 1e12, 2^40)";
    // A run of decimal digits as a whole; `overflow` says it was digits but beyond 2^63 - 1.
    bool overflow = false;
    const auto digits = [&](std::string_view s, std::int64_t& v) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        overflow = overflow || ec == std::errc::result_out_of_range;
        return ec == std::errc() && p == s.data() + s.size();
    };
    const std::string_view t = text;
    if (!t.empty() && t[0] == '-') throw bad("is negative: give " + std::to_string(min) + " or more");
    if (t.find('.') != std::string_view::npos) throw bad("is not a whole number (no fractions)" + kForms);
    const auto op = t.find_first_of("eE^");
    std::int64_t value = 0;
    if (op == std::string_view::npos) {
        if (!digits(t, value)) throw overflow ? bad("is beyond 2^63 - 1") : bad("is not a whole number" + kForms);
    } else {
        std::int64_t base = 0, exponent = 0;
        if (!digits(t.substr(0, op), base) || !digits(t.substr(op + 1), exponent))
            throw overflow ? bad("is beyond 2^63 - 1") : bad("is not a whole number" + kForms);
        // N^K = N multiplied K times; NeK = N times 10, K times. Radix 0 and 1 end at once.
        const bool power = t[op] == '^';
        const std::int64_t radix = power ? base : 10;
        value = power ? 1 : base;
        for (std::int64_t i = 0; i < exponent && value != 0 && radix != 1; ++i)
            if (__builtin_mul_overflow(value, radix, &value)) throw bad("is beyond 2^63 - 1");
    }
    if (value < min) throw bad("is less than " + std::to_string(min));
    return value;
}

}  // namespace tilelife::cli

namespace tilelife::cli {

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

std::string value_text(const DescriptionValue& value) {
    return std::visit(
        [](const auto& x) -> std::string {
            using V = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<V, bool>) return x ? "yes" : "no";
            else if constexpr (std::is_same_v<V, std::string>) return x;
            else if constexpr (std::is_same_v<V, std::nullptr_t>) return "none";
            else return std::to_string(x);
        },
        value);
}

std::string engine_summary(const EngineDescription& d) {
    std::string out;
    const auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
    if (d.wg_width > 0) add("work-group " + std::to_string(d.wg_width) + "x" + std::to_string(d.wg_height));
    if (d.cells_per_item > 0) add(std::to_string(d.cells_per_item) + " cells per item");
    if (d.steps_per_launch > 0) add(std::to_string(d.steps_per_launch) + " generations per launch");
    if (d.threads > 0) add(std::to_string(d.threads) + (d.threads == 1 ? " thread" : " threads"));
    for (const auto& [key, value] : d.properties) add(key + ": " + value_text(value));
    return out;
}

std::string with_flag_hint(const std::string& message, const CLI::App* command) {
    // Library phrase -> the flag that sets what it is about.
    static const std::pair<const char*, const char*> kHints[] = {
        {"memory budget", "--max-memory"},
        {"parameter", "--param"},
        {"board size", "--size"},
        {"work-group", "--wg"},
        {"steps per launch", "--steps-per-launch"},
        {"device '", "--device"},
    };
    if (!command || message.find(" --") != std::string::npos || message.rfind("--", 0) == 0) return message;
    for (const auto& [phrase, flag] : kHints)
        if (message.find(phrase) != std::string::npos && command->get_option_no_throw(flag))
            return message + " (" + flag + ")";
    return message;
}

}  // namespace tilelife::cli
