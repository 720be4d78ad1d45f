// Shared by the CLI suites: the built binary run in a temp dir, JSON and "key  value" parsing.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <map>
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

// A flat JSON object: key -> value (strings unescaped, everything else as written; nested objects
// kept as raw text). Returns nullopt for anything that is not one well-formed object.
inline std::optional<std::map<std::string, std::string>> parse_json_object(const std::string& text) {
    std::map<std::string, std::string> out;
    std::size_t i = 0;
    auto ws = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    };
    auto str = [&](std::string& s) -> bool {
        if (i >= text.size() || text[i] != '"') return false;
        ++i;
        while (i < text.size() && text[i] != '"') {
            if (text[i] == '\\') {
                if (++i >= text.size()) return false;
                switch (text[i]) {
                    case 'n': s += '\n'; break;
                    case 't': s += '\t'; break;
                    case 'r': s += '\r'; break;
                    case 'u': s += '?'; i += 4; break;
                    default: s += text[i];
                }
                ++i;
            } else if (static_cast<unsigned char>(text[i]) < 0x20) {
                return false;
            } else {
                s += text[i++];
            }
        }
        if (i >= text.size()) return false;
        ++i;
        return true;
    };
    ws();
    if (i >= text.size() || text[i++] != '{') return std::nullopt;
    ws();
    if (i < text.size() && text[i] == '}') return out;
    while (true) {
        ws();
        std::string key, value;
        if (!str(key)) return std::nullopt;
        ws();
        if (i >= text.size() || text[i++] != ':') return std::nullopt;
        ws();
        if (i >= text.size()) return std::nullopt;
        if (text[i] == '"') {
            if (!str(value)) return std::nullopt;
        } else if (text[i] == '{') {
            int depth = 0;
            const std::size_t start = i;
            do {
                if (text[i] == '{') ++depth;
                if (text[i] == '}') --depth;
                ++i;
            } while (i < text.size() && depth > 0);
            if (depth) return std::nullopt;
            value = text.substr(start, i - start);
        } else {
            const std::size_t start = i;
            while (i < text.size() && text[i] != ',' && text[i] != '}' && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
            value = text.substr(start, i - start);
            static const std::regex literal(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?|null|true|false)");
            if (!std::regex_match(value, literal)) return std::nullopt;
        }
        if (out.count(key)) return std::nullopt;
        out[key] = value;
        ws();
        if (i >= text.size()) return std::nullopt;
        if (text[i] == ',') {
            ++i;
            continue;
        }
        if (text[i++] != '}') return std::nullopt;
        ws();
        return i == text.size() ? std::optional(out) : std::nullopt;
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
protected:
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
