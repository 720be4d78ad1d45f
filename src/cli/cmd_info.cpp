// tilelife info PATTERN and tilelife engines.
#include <cinttypes>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::cli {

void add_info(CLI::App& app, int& exit_code) {
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("info", "show a pattern's format, rule, bounding box and population");
    cmd->add_option("pattern", *path, "pattern file, - for standard input, or random:WxH[:density[:seed]]")->required();
    cmd->add_flag("--json", *json, "print one JSON object (docs/json.md)");
    cmd->callback([path, json, &exit_code] {
        // The board layer reads it as run would (limits from the budget); macrocell files are counted
        // and bounded from their tree, never listed.
        BoardRequest request;
        request.source.name = *path;
        const OpenedBoard board = open_board(request);
        const Pattern& p = board.pattern();
        const std::string population = p.tree ? to_string_count(p.tree->population()) : std::to_string(board.population());
        std::string rule = "B3/S23 (no rule given; Golly's default)";
        if (p.rule) rule = parse_rule(*p.rule).to_string();  // checked by open_board
        if (*json) {
            Json doc = json_document("info");
            doc["pattern"] = p.tree ? pattern_json(*path, p) : pattern_json(*path, p, board.population(), board.bounding_box());
            print_json(doc);
            exit_code = 0;
            return;
        }
        const Box bb = board.bounding_box();
        std::printf("file            %s\n", path->c_str());
        std::printf("format          %s\n", std::string(to_string(p.format)).c_str());
        if (!p.name.empty()) std::printf("name            %s\n", p.name.c_str());
        for (const std::string& a : p.authors) std::printf("author          %s\n", a.c_str());
        std::printf("rule            %s\n", rule.c_str());
        if (bb.empty()) std::printf("bounding box    (empty)\n");
        else
            std::printf("bounding box    x=%" PRId64 " y=%" PRId64 " width=%" PRId64 " height=%" PRId64 "\n", bb.x,
                        bb.y, bb.width, bb.height);
        std::printf("population      %s\n", population.c_str());
        if (p.generation != 0) std::printf("generation      %" PRId64 "\n", p.generation);
        for (const std::string& c : p.comments) std::printf("comment         %s\n", c.c_str());
        exit_code = 0;
    });
}

namespace {

// "on, off (default on)" or "1..64 (default 16)"
std::string allowed_values(const ParameterSpec& p) {
    std::string out;
    if (p.choices.empty()) out = std::to_string(p.min) + ".." + std::to_string(p.max);
    else
        for (const std::string& c : p.choices) out += (out.empty() ? "" : ", ") + c;
    if (!p.default_value.empty()) out += " (default " + p.default_value + ")";
    return out;
}

void print_engine(const EngineInfo& e) {
    std::printf("%-22s %s\n", e.name.c_str(), e.description.c_str());
    std::string notes;
    const auto note = [&](const std::string& s) { notes += (notes.empty() ? "" : "; ") + s; };
    if (!e.aliases.empty()) {
        std::string a;
        for (const std::string& x : e.aliases) a += (a.empty() ? "" : ", ") + x;
        note("also " + a);
    }
    if (!e.default_for.empty()) {
        std::string t;
        for (Topology x : e.default_for) t += (t.empty() ? "" : ", ") + std::string(to_string(x));
        note(e.backend() + "'s default for " + t);
    }
    if (!e.bounded) note("unbounded boards only");
    if (!notes.empty()) std::printf("%-22s (%s)\n", "", notes.c_str());
    for (const ParameterSpec& p : e.parameters)
        std::printf("%-22s --param %s=%s: %s\n", "", p.name.c_str(), allowed_values(p).c_str(), p.description.c_str());
}

}  // namespace

void add_engines(CLI::App& app, int& exit_code) {
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("engines", "list the engines (backend:kernel) this build has, with their parameters");
    cmd->add_flag("--json", *json, "print one JSON object (docs/json.md)");
    cmd->callback([json, &exit_code] {
        if (*json) {
            Json doc = json_document("engines");
            Json list = Json::array();
            for (const EngineInfo& e : registered_engines()) list.push_back(engine_info_json(e));
            doc["engines"] = list;
            print_json(doc);
        } else {
            for (const EngineInfo& e : registered_engines()) print_engine(e);
        }
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
