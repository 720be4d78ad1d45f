// The one JSON shape of `--json` (docs/json.md, docs/tilelife.schema.json): every document is an
// object that starts with {"tilelife": VERSION, "command": NAME}; engines, boards and patterns appear
// as the same objects in every command (and in Python's describe(), engines(), devices()); absent
// values are null; keys are snake_case; strings are valid UTF-8.
#pragma once
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

using Json = nlohmann::ordered_json;

// {"tilelife": VERSION, "command": command}
Json json_document(std::string_view command);
// One line on `out`. Bytes that are not UTF-8 (file names and comments may be in any encoding) are
// replaced by U+FFFD, so the document is always valid JSON.
void print_json(const Json& document, std::FILE* out = stdout);

// Whether the command line asks for --json (before a `--`): errors are then a JSON object too.
bool json_requested(int argc, char** argv);
// {"tilelife", "command": COMMAND or null, "error": {"message", "exit_code"}} on standard error.
void print_json_error(int exit_code, const std::string& message, const std::string& command);

// An engine's or a device's property name as a JSON key: snake_case ("memory budget bytes" ->
// "memory_budget_bytes", "rule-storage" -> "rule_storage", "cpu:hashlife nodes" -> "cpu_hashlife_nodes").
// The text reports keep the engines' wording; every JSON key of a property goes through here.
std::string json_key(std::string_view name);

// null for an empty string / a zero count ("not applicable" in EngineDescription).
Json string_or_null(const std::string& s);
Json count_or_null(std::int64_t n);

// {"key": value, ...} of an engine's or a device's properties, in order.
Json properties_json(const std::vector<std::pair<std::string, DescriptionValue>>& properties);
Json box_json(const Box& b);                             // {"x","y","width","height"}; null when empty
Json board_json(const BoardSpec& spec, const Box& extent);  // {"topology","rule","width","height"}
Json engine_json(const EngineDescription& d);            // what the engine is and chose
Json engine_info_json(const EngineInfo& info);           // what the registry says about it
Json device_json(const DeviceInfo& d);                   // {"backend","id","name","type","properties"}
// {"device","work_group","threads","steps_per_launch","params"}: options asked for (bench, autotune).
Json options_json(const EngineOptions& o);
// {"path","format","name","rule","generation","population","bounding_box","authors","comments"}:
// the rule in its canonical spelling (null when the file gives none; the caller has checked it).
Json pattern_json(const std::string& path, const Pattern& p);
// The same for a pattern whose cells were not kept (LoadedBoard): their number and bounding box.
Json pattern_json(const std::string& path, const Pattern& p, std::int64_t population, const Box& bounding_box);

}  // namespace tilelife::cli
