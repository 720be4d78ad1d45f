// Engines are registered by name ("backend:kernel"), as Golly registers its algorithms.
#include <algorithm>
#include <map>
#include <mutex>

#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

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

}  // namespace

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

bool engine_exists(std::string_view name) {
    const auto& t = table();
    return std::any_of(t.begin(), t.end(), [&](const Entry& e) { return e.info.name == name; });
}

std::unique_ptr<Engine> create_engine(std::string_view name, const BoardSpec& spec, const EngineOptions& options) {
    const auto& t = table();
    auto it = std::find_if(t.begin(), t.end(), [&](const Entry& e) { return e.info.name == name; });
    if (it == t.end()) {
        std::string known;
        for (const auto& e : t) known += (known.empty() ? "" : ", ") + e.info.name;
        throw InputError("unknown engine '" + std::string(name) + "' (available: " + known + ")");
    }
    if (spec.topology == Topology::unbounded) {
        if (spec.rule.birth & 1u)
            throw InputError("rule " + spec.rule.to_string() +
                             " has B0 and cannot run on an unbounded board (use --topology torus or plane)");
        return make_unbounded(std::string(name), it->factory, spec, options);
    }
    if (spec.width < 1 || spec.height < 1)
        throw InputError("board size " + std::to_string(spec.width) + "x" + std::to_string(spec.height) +
                         " is invalid (both dimensions must be at least 1)");
    return it->factory(spec, options);
}

}  // namespace tilelife
