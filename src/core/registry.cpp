// Engines are registered by name ("backend:kernel"), as Golly registers its algorithms; options are
// validated here, once, against what each engine declares.
#include <algorithm>
#include <charconv>
#include <climits>

#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"

namespace tilelife {
namespace {

struct Entry {
    EngineInfo info;
    EngineFactory factory;
};

std::vector<Entry>& table() {
    static std::vector<Entry> t;
    return t;
}

std::vector<BackendInfo>& backends() {
    static std::vector<BackendInfo> b;
    return b;
}

const Entry* lookup(std::string_view name) {
    for (const Entry& e : table())
        if (e.info.name == name) return &e;
    for (const Entry& e : table())
        if (std::find(e.info.aliases.begin(), e.info.aliases.end(), name) != e.info.aliases.end()) return &e;
    return nullptr;
}

std::string names_of(const std::vector<Entry>& t, const auto& keep) {
    std::string out;
    for (const Entry& e : t)
        if (keep(e)) out += (out.empty() ? "" : ", ") + e.info.name;
    return out;
}

std::optional<std::int64_t> whole_number(std::string_view s) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

void validate_params(const EngineInfo& info, const EngineOptions& options) {
    for (const auto& [key, value] : options.params) {
        const auto spec = std::find_if(info.parameters.begin(), info.parameters.end(),
                                       [&](const ParameterSpec& p) { return p.name == key; });
        if (spec == info.parameters.end()) {
            std::string known;
            for (const ParameterSpec& p : info.parameters) known += (known.empty() ? "" : ", ") + p.name;
            throw InputError(info.name + " has no parameter '" + key + "'" +
                             (known.empty() ? std::string(" (it takes none)") : " (it takes: " + known + ")"));
        }
        if (!spec->choices.empty()) {
            if (std::find(spec->choices.begin(), spec->choices.end(), value) == spec->choices.end()) {
                std::string allowed;
                for (const std::string& c : spec->choices) allowed += (allowed.empty() ? "" : ", ") + c;
                throw InputError(info.name + " parameter " + key + "='" + value + "' is not one of " + allowed);
            }
        } else {
            const auto v = whole_number(value);
            if (!v || *v < spec->min || *v > spec->max)
                throw InputError(info.name + " parameter " + key + "='" + value + "' is not a whole number from " +
                                 std::to_string(spec->min) + " to " + std::to_string(spec->max));
        }
    }
}

std::int64_t two_bytes_per_cell(const BoardSpec& spec, const EngineOptions&) {
    const std::int64_t w = std::max<std::int64_t>(spec.width, 1), h = std::max<std::int64_t>(spec.height, 1);
    if (w > (INT64_MAX / 2) / h) return INT64_MAX;
    return 2 * w * h;
}

}  // namespace

std::string EngineOptions::param(std::string_view name, std::string_view fallback) const {
    const auto it = params.find(name);
    return it == params.end() ? std::string(fallback) : it->second;
}

std::int64_t EngineOptions::param_int(std::string_view name, std::int64_t fallback) const {
    const auto it = params.find(name);
    if (it == params.end()) return fallback;
    return whole_number(it->second).value_or(fallback);
}

void register_engine(const EngineInfo& info, EngineFactory factory) {
    auto& t = table();
    auto it = std::find_if(t.begin(), t.end(), [&](const Entry& e) { return e.info.name == info.name; });
    if (it != t.end()) *it = Entry{info, std::move(factory)};
    else t.push_back(Entry{info, std::move(factory)});
}

std::vector<EngineInfo> registered_engines() {
    std::vector<EngineInfo> out;
    for (const auto& e : table()) out.push_back(e.info);
    return out;
}

std::optional<EngineInfo> find_engine(std::string_view name) {
    if (const Entry* e = lookup(name)) return e->info;
    return std::nullopt;
}

bool engine_exists(std::string_view name) { return lookup(name) != nullptr; }

std::string default_engine(std::string_view backend, Topology topology) {
    const auto& t = table();
    for (const Entry& e : t)
        if (e.info.backend() == backend &&
            std::find(e.info.default_for.begin(), e.info.default_for.end(), topology) != e.info.default_for.end())
            return e.info.name;
    // No declared default: the backend's first engine that can run the topology.
    for (const Entry& e : t)
        if (e.info.backend() == backend && (topology == Topology::unbounded || e.info.bounded)) return e.info.name;
    std::string known;
    for (const Entry& e : t) {
        const std::string b = e.info.backend();
        if (known.find(b) == std::string::npos) known += (known.empty() ? "" : ", ") + b;
    }
    throw InputError("this build of tilelife has no '" + std::string(backend) + "' backend (it has: " + known + ")");
}

std::int64_t engine_host_bytes(std::string_view name, const BoardSpec& spec, const EngineOptions& options) {
    const Entry* e = lookup(name);
    if (e && e->info.host_bytes) return e->info.host_bytes(spec, options);
    return two_bytes_per_cell(spec, options);
}

std::unique_ptr<Engine> create_engine(std::string_view name, const BoardSpec& spec, const EngineOptions& options) {
    const Entry* e = lookup(name);
    if (!e)
        throw InputError("unknown engine '" + std::string(name) +
                         "' (available: " + names_of(table(), [](const Entry&) { return true; }) + ")");
    const EngineInfo& info = e->info;
    validate_params(info, options);
    const auto host_bytes = info.host_bytes ? info.host_bytes : two_bytes_per_cell;
    if (spec.topology == Topology::unbounded) {
        if (spec.rule.birth & 1u)
            throw InputError("rule " + spec.rule.to_string() +
                             " has B0 and cannot run on an unbounded board (run it on a torus or a bounded plane)");
        if (info.native_unbounded) return e->factory(spec, options);
        return make_unbounded(info.name, e->factory, spec, options, host_bytes);
    }
    if (!info.bounded)
        throw InputError(info.name + " runs only the unbounded plane; a " + std::string(to_string(spec.topology)) +
                         " runs on " + names_of(table(), [](const Entry& x) { return x.info.bounded; }));
    if (spec.width < 1 || spec.height < 1)
        throw InputError("board size " + std::to_string(spec.width) + "x" + std::to_string(spec.height) +
                         " is invalid (both dimensions must be at least 1)");
    if (options.max_bytes > 0) {
        const std::int64_t need = host_bytes(spec, options);
        if (need > options.max_bytes)
            throw InputError("a " + std::to_string(spec.width) + "x" + std::to_string(spec.height) + " board on " +
                             info.name + " needs about " + bytes_text(need) + ", over the memory budget of " +
                             bytes_text(options.max_bytes));
    }
    return e->factory(spec, options);
}

void register_backend(const BackendInfo& info) {
    auto& b = backends();
    auto it = std::find_if(b.begin(), b.end(), [&](const BackendInfo& x) { return x.name == info.name; });
    if (it != b.end()) *it = info;
    else b.push_back(info);
}

std::vector<BackendInfo> registered_backends() { return backends(); }

}  // namespace tilelife
