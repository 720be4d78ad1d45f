// tilelife info PATTERN and tilelife engines.
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

void add_info(CLI::App& app, int& exit_code) {
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("info", "show a pattern's format, rule, bounding box and population");
    cmd->add_option("pattern", *path, "pattern file or random:WxH[:density[:seed]]")->required();
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([path, json, &exit_code] {
        // Macrocell files are counted and bounded from their tree, never listed (issue 10).
        ReadLimits limits = read_limits_for(default_memory_budget());
        limits.list_tree_cells = false;
        const Pattern p = read_pattern(*path, limits);
        const std::string population = p.tree ? to_string_count(p.tree->population()) : std::to_string(p.cells.size());
        std::string rule = "B3/S23 (no rule given; Golly's default)";
        std::string canonical = "B3/S23";
        if (p.rule) {
            try {
                canonical = rule = parse_rule(*p.rule).to_string();
            } catch (const InputError& e) {
                throw InputError(located(*path, 0, e.what()));
            }
        }
        const Box bb = p.bounding_box();
        if (*json) {
            std::ostringstream js;
            js << "{\"pattern\":" << json_string(*path) << ",\"format\":" << json_string(to_string(p.format))
               << ",\"name\":" << json_string(p.name) << ",\"rule\":" << json_string(canonical)
               << ",\"bounding_box\":{\"x\":" << bb.x << ",\"y\":" << bb.y << ",\"width\":" << bb.width
               << ",\"height\":" << bb.height << "},\"population\":" << population
               << ",\"generation\":" << p.generation << "}";
            std::cout << js.str() << "\n";
        } else {
            std::printf("file            %s\n", path->c_str());
            std::printf("format          %s\n", std::string(to_string(p.format)).c_str());
            if (!p.name.empty()) std::printf("name            %s\n", p.name.c_str());
            std::printf("rule            %s\n", rule.c_str());
            if (bb.empty()) std::printf("bounding box    (empty)\n");
            else
                std::printf("bounding box    x=%" PRId64 " y=%" PRId64 " width=%" PRId64 " height=%" PRId64 "\n", bb.x,
                            bb.y, bb.width, bb.height);
            std::printf("population      %s\n", population.c_str());
            if (p.generation != 0) std::printf("generation      %" PRId64 "\n", p.generation);
        }
        exit_code = 0;
    });
}

void add_engines(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("engines", "list the engines (backend:kernel) this build has");
    cmd->callback([&exit_code] {
        for (const auto& e : registered_engines()) std::printf("%-22s %s\n", e.name.c_str(), e.description.c_str());
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
