#include "cli/json.hpp"

#include <cctype>
#include <cstring>
#include <limits>
#include <variant>

#include "tilelife/quadtree.hpp"

namespace tilelife::cli {

Json json_document(std::string_view command) {
    Json doc;
    doc["tilelife"] = TILELIFE_VERSION;
    doc["command"] = command;
    return doc;
}

void print_json(const Json& document, std::FILE* out) {
    const std::string text = document.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
    std::fprintf(out, "%s\n", text.c_str());
    std::fflush(out);
}

bool json_requested(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) return false;
        if (std::strcmp(argv[i], "--json") == 0) return true;
    }
    return false;
}

void print_json_error(int exit_code, const std::string& message, const std::string& command) {
    Json doc;
    doc["tilelife"] = TILELIFE_VERSION;
    doc["command"] = string_or_null(command);
    doc["error"] = Json{{"message", message}, {"exit_code", exit_code}};
    print_json(doc, stderr);
}

std::string json_key(std::string_view name) {
    std::string key;
    bool gap = false;
    for (const char c : name) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) {
            if (gap && !key.empty()) key += '_';
            key += static_cast<char>(std::tolower(u));
            gap = false;
        } else {
            gap = true;  // spaces, '-', ':', '/', ...: one '_' between words
        }
    }
    return key;
}

Json string_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json count_or_null(std::int64_t n) { return n == 0 ? Json(nullptr) : Json(n); }

Json properties_json(const std::vector<std::pair<std::string, DescriptionValue>>& properties) {
    Json j = Json::object();
    for (const auto& [key, value] : properties) std::visit([&](const auto& v) { j[json_key(key)] = v; }, value);
    return j;
}

Json box_json(const Box& b) {
    if (b.empty()) return nullptr;
    return Json{{"x", b.x}, {"y", b.y}, {"width", b.width}, {"height", b.height}};
}

Json board_json(const BoardSpec& spec, const Box& extent) {
    return Json{{"topology", to_string(spec.topology)},
                {"rule", spec.rule.to_string()},
                {"width", extent.width},
                {"height", extent.height}};
}

Json engine_json(const EngineDescription& d) {
    Json j;
    j["name"] = d.name;
    j["backend"] = d.backend;
    j["device"] = string_or_null(d.device);
    j["work_group"] = d.wg_width > 0 ? Json{{"width", d.wg_width}, {"height", d.wg_height}} : Json(nullptr);
    j["cells_per_item"] = count_or_null(d.cells_per_item);
    j["steps_per_launch"] = count_or_null(d.steps_per_launch);
    j["threads"] = count_or_null(d.threads);
    if (d.tiles) {
        const TileGeometry& t = *d.tiles;
        j["tiles"] = Json{{"width", t.width},   {"height", t.height}, {"halo_x", t.halo_x},
                          {"halo_y", t.halo_y}, {"origin", Json{{"x", t.origin.x}, {"y", t.origin.y}}},
                          {"text", string_or_null(t.text)}};
    } else {
        j["tiles"] = nullptr;
    }
    j["host_bytes"] = count_or_null(d.host_bytes);
    j["device_bytes"] = count_or_null(d.device_bytes);
    j["properties"] = properties_json(d.properties);
    return j;
}

Json engine_info_json(const EngineInfo& info) {
    Json params = Json::array();
    for (const ParameterSpec& p : info.parameters) {
        Json j{{"name", p.name}, {"description", p.description}};
        if (p.choices.empty()) {
            j["choices"] = nullptr;
            j["min"] = p.min;
            j["max"] = p.max;
        } else {
            j["choices"] = p.choices;
            j["min"] = nullptr;
            j["max"] = nullptr;
        }
        j["default"] = string_or_null(p.default_value);
        params.push_back(j);
    }
    Json defaults = Json::array();
    for (Topology t : info.default_for) defaults.push_back(to_string(t));
    return Json{{"name", info.name},
                {"backend", info.backend()},
                {"description", info.description},
                {"aliases", info.aliases},
                {"parameters", params},
                {"default_for", defaults},
                {"bounded", info.bounded},
                {"native_unbounded", info.native_unbounded}};
}

Json device_json(const DeviceInfo& d) {
    return Json{{"backend", d.backend},
                {"id", d.id},
                {"name", d.name},
                {"type", string_or_null(d.type)},
                {"properties", properties_json(d.properties)}};
}

Json options_json(const EngineOptions& o) {
    Json params = Json::object();
    for (const auto& [k, v] : o.params) params[k] = v;
    return Json{{"device", string_or_null(o.device)},
                {"work_group", o.wg_width > 0 ? Json{{"width", o.wg_width}, {"height", o.wg_height}} : Json(nullptr)},
                {"threads", count_or_null(o.threads)},
                {"steps_per_launch", count_or_null(o.steps_per_launch)},
                {"params", params}};
}

// A live-cell count: exact up to 2^64 - 1, beyond that (macrocell trees can hold more) the nearest double.
Json count_json(CellCount n) {
    if (n <= std::numeric_limits<std::uint64_t>::max()) return Json(static_cast<std::uint64_t>(n));
    return Json(static_cast<double>(n));
}

Json pattern_json(const std::string& path, const Pattern& p) {
    Json doc = pattern_json(path, p, static_cast<std::int64_t>(p.cells.size()), p.bounding_box());
    if (p.tree) doc["population"] = count_json(p.tree->population());  // a macrocell file's, from its tree
    return doc;
}

Json pattern_json(const std::string& path, const Pattern& p, std::int64_t population, const Box& bounding_box) {
    return Json{{"path", path},
                {"format", to_string(p.format)},
                {"name", string_or_null(p.name)},
                {"rule", p.rule ? Json(parse_rule(*p.rule).to_string()) : Json(nullptr)},
                {"generation", p.generation},
                {"population", population},
                {"bounding_box", box_json(bounding_box)},
                {"authors", p.authors},
                {"comments", p.comments}};
}

}  // namespace tilelife::cli
