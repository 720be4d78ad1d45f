// Shared by the CLI suites: the built binary run in a temp dir, JSON and "key  value" parsing.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include "support/test_support.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife {

using test::Cells;
using test::CommandResult;
using test::shell_quote;
using test::translated;

inline const std::string kCli = TILELIFE_CLI;

inline std::string pattern_path(const std::string& name) { return test::source_dir() + "/patterns/" + name; }

// One JSON document (one object on one line, as --json prints it) that starts with the envelope every
// command shares: {"tilelife": VERSION, "command": ...}. nullopt for anything else.
inline std::optional<nlohmann::json> parse_json(const std::string& text, const std::string& command) {
    std::string line = text;
    while (!line.empty() && line.back() == '\n') line.pop_back();
    if (line.empty() || line.find('\n') != std::string::npos) return std::nullopt;
    try {
        nlohmann::json j = nlohmann::json::parse(line);
        if (!j.is_object() || j.value("tilelife", "") != TILELIFE_VERSION || j.value("command", "") != command)
            return std::nullopt;
        return j;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

// "key   value" lines of the human output.
inline std::map<std::string, std::string> key_values(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto sp = line.find_first_of(" \t");
        if (sp == std::string::npos) continue;
        const auto v = line.find_first_not_of(" \t", sp);
        out[line.substr(0, sp)] = v == std::string::npos ? "" : line.substr(v);
    }
    return out;
}

class Cli : public ::testing::Test {
public:
    void SetUp() override {
        register_builtin_engines();
        if (!test::file_exists(kCli)) GTEST_FAIL() << "CLI not built: " << kCli;
    }
    // Runs `tilelife ARGS` inside the temp dir.
    CommandResult tl(const std::string& args) const {
        return test::run_command("cd " + shell_quote(dir.path()) + " && " + shell_quote(kCli) + " " + args);
    }
    // The same, killed after `seconds` (exit 124): a hang fails the test instead of the suite.
    CommandResult tl_within(int seconds, const std::string& args) const {
        return test::run_command("cd " + shell_quote(dir.path()) + " && timeout " + std::to_string(seconds) + " " +
                                 shell_quote(kCli) + " " + args);
    }
    std::string path(const std::string& name) const { return dir / name; }
    void write(const std::string& name, const std::string& text) const { test::write_text(path(name), text); }

    // Engine result for a pattern on the unbounded plane, in the file's coordinates.
    static Cells reference_unbounded(const Pattern& p, const std::string& rule, std::int64_t gens) {
        auto e = create_engine("cpu:reference", test::spec_of(0, 0, Topology::unbounded, rule));
        return test::run_cells(*e, p.cells, gens);
    }

    test::TempDir dir;
};

inline std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace tilelife
