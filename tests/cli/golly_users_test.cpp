// Issue 22, the command-line parts: rules by name (checked against bgolly), `tilelife help SUB`,
// suggestions for mistyped options and subcommands, and the generated man page and completions.
#include <random>
#include <set>

#include "cli/cli_support.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife {
namespace {

using NamedRulesCli = Cli;

// A one-line error on stderr, nothing on stdout.
void expect_one_line_error(const CommandResult& r, int code) {
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_EQ(r.out, "");
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST_F(NamedRulesCli, RunReportAndInfoPrintTheCanonicalForm) {
    CommandResult r = tl("run " + shell_quote(pattern_path("glider.rle")) + " -g 4 -r HighLife");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(key_values(r.out)["rule"], "B36/S23");
    r = tl("run " + shell_quote(pattern_path("glider.rle")) + " -g 4 -r 'day & night:T20,20'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(key_values(r.out)["rule"], "B3678/S34678");
    EXPECT_EQ(key_values(r.out)["topology"], "torus (board 20x20)");
    write("dn.rle", "x = 3, y = 3, rule = Day&Night\nbo$2bo$3o!\n");
    r = tl("info dn.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(key_values(r.out)["rule"], "B3678/S34678");
}

TEST_F(NamedRulesCli, UnsupportedRulesAreOneLineErrors) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    // `-r ""` was taken for "no rule given".
    CommandResult r = tl("run " + glider + " -g 1 -r ''");
    expect_one_line_error(r, 2);
    EXPECT_EQ(r.err, "tilelife: bad rule '': empty rule\n");
    r = tl("run " + glider + " -g 1 -r Sesame");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("not a Life-like rule name"), std::string::npos) << r.err;
    r = tl("run " + glider + " -g 1 -r 'Brian'\\''s Brain'");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("Generations"), std::string::npos) << r.err;
    // In a file, the error names the file and line.
    write("bad.rle", "x = 3, y = 3, rule = B2n3/S23-q\nbo$2bo$3o!\n");
    r = tl("info bad.rle");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("bad.rle"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Hensel"), std::string::npos) << r.err;
}

// A named rule runs exactly as bgolly runs its B/S string (bgolly -r takes B/S only): a soup under
// HighLife given by -r, and one under Day & Night given by the file's rule line.
TEST_F(NamedRulesCli, NamedRulesMatchBgolly) {
    const std::string bgolly = test::bgolly_path();
    if (bgolly.empty()) GTEST_SKIP() << "bgolly not found";
    std::mt19937 rng(22);
    std::string rows;
    for (int y = 0; y < 24; ++y) {
        for (int x = 0; x < 24; ++x) rows += (rng() & 1) ? 'o' : 'b';
        rows += y + 1 < 24 ? "$\n" : "!\n";
    }
    struct Case {
        const char* file_rule;  // in the file tilelife reads ("" for none)
        const char* flag;       // tilelife's -r ("" for none)
        const char* golly;      // bgolly -r
    };
    for (const Case c : {Case{"", "HighLife", "B36/S23"}, Case{"Day & Night", "", "B3678/S34678"}}) {
        SCOPED_TRACE(c.golly);
        write("soup.rle", std::string("x = 24, y = 24") + (*c.file_rule ? std::string(", rule = ") + c.file_rule : "") +
                              "\n" + rows);
        write("golly-in.rle", "x = 24, y = 24, rule = B3/S23\n" + rows);
        const int gens = 64;
        CommandResult r = tl("run soup.rle -g " + std::to_string(gens) + " -q -o out.rle" +
                             (*c.flag ? std::string(" -r ") + c.flag : ""));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        r = test::run_command("cd " + shell_quote(dir.path()) + " && " + shell_quote(bgolly) + " -a HashLife -q -q -r " +
                              c.golly + " -m " + std::to_string(gens) + " -o golly.mc golly-in.rle");
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        const Pattern ours = read_pattern(path("out.rle"));
        const Pattern golly = read_pattern(path("golly.mc"));
        EXPECT_EQ(parse_rule(golly.rule.value_or("")).to_string(), c.golly);
        ASSERT_FALSE(golly.cells.empty());
        EXPECT_EQ(test::sorted(ours.cells), test::sorted(golly.cells));
    }
}

using HelpCli = Cli;

TEST_F(HelpCli, HelpSubcommandIsRunDashDashHelp) {
    for (const std::string sub : {"run", "convert", "info", "engines", "devices", "bench", "view"}) {
        const CommandResult a = tl("help " + sub);
        const CommandResult b = tl(sub + " --help");
        EXPECT_EQ(a.exit_code, 0) << sub << ": " << a.err;
        EXPECT_EQ(a.exit_code, b.exit_code) << sub;
        EXPECT_EQ(a.out, b.out) << sub;
        EXPECT_NE(a.out.find("tilelife " + sub), std::string::npos) << a.out;
    }
    const CommandResult a = tl("help");
    const CommandResult b = tl("--help");
    EXPECT_EQ(a.exit_code, 0);
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("help"), std::string::npos);
    // The hidden generator is not advertised.
    EXPECT_EQ(a.out.find("generate-docs"), std::string::npos) << a.out;
    const CommandResult typo = tl("help rnu");
    expect_one_line_error(typo, 2);
    EXPECT_NE(typo.err.find("did you mean run?"), std::string::npos) << typo.err;
}

TEST_F(HelpCli, MistypedOptionsAndSubcommandsGetASuggestion) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    CommandResult r = tl("run " + glider + " --gen 5");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("'--gen'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did you mean --gens?"), std::string::npos) << r.err;
    r = tl("run " + glider + " --topolgy=torus");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("did you mean --topology?"), std::string::npos) << r.err;
    r = tl("info " + glider + " --jsn");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("did you mean --json?"), std::string::npos) << r.err;
    r = tl("rnu " + glider);
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("unknown subcommand 'rnu'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did you mean run?"), std::string::npos) << r.err;
    r = tl("convrt " + glider);
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("did you mean convert?"), std::string::npos) << r.err;
    // Nothing close: the list of subcommands / the help, still one line.
    r = tl("zzzzzz");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("subcommands: run"), std::string::npos) << r.err;
    r = tl("run " + glider + " -x");  // one letter: no guess (not "-h")
    expect_one_line_error(r, 2);
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
    r = tl("run " + glider + " --zzzzzzzz");
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("see tilelife run --help"), std::string::npos) << r.err;
}

// Subcommands and their options as `--help` prints them: read independently of the generator.
std::map<std::string, std::set<std::string>> options_from_help(const Cli& cli) {
    std::map<std::string, std::set<std::string>> out;
    const CommandResult top = cli.tl("--help");
    std::istringstream in(top.out);
    std::string line;
    bool in_subcommands = false;
    std::vector<std::string> subs;
    while (std::getline(in, line)) {
        if (line.rfind("Subcommands:", 0) == 0) {
            in_subcommands = true;
            continue;
        }
        std::smatch m;
        if (in_subcommands && std::regex_search(line, m, std::regex("^  ([a-z-]+)"))) subs.push_back(m[1]);
    }
    for (const std::string& sub : subs) {
        const CommandResult h = cli.tl(sub + " --help");
        std::istringstream hin(h.out);
        std::set<std::string>& names = out[sub];
        while (std::getline(hin, line)) {
            std::smatch m;
            if (!std::regex_search(line, m, std::regex("^  (-[^ ]+)"))) continue;
            std::string spec = m[1];
            std::stringstream parts(spec);
            std::string name;
            while (std::getline(parts, name, ',')) names.insert(name);
        }
    }
    return out;
}

const std::string kManPage = TILELIFE_MAN_PAGE;
const std::string kBashCompletion = TILELIFE_BASH_COMPLETION;
const std::string kZshCompletion = TILELIFE_ZSH_COMPLETION;

std::string troff_escaped(const std::string& option) {
    std::string out;
    for (char c : option) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

using DocsCli = Cli;

TEST_F(DocsCli, ManPageAndCompletionsListEveryOptionOfEverySubcommand) {
    const auto options = options_from_help(*this);
    ASSERT_GE(options.size(), 7u);
    ASSERT_TRUE(options.count("run"));
    ASSERT_TRUE(options.at("run").count("--gens"));
    const std::string man = test::read_text(kManPage);
    const std::string bash = test::read_text(kBashCompletion);
    const std::string zsh = test::read_text(kZshCompletion);
    for (const auto& [sub, names] : options) {
        EXPECT_NE(man.find(".SS \"tilelife " + troff_escaped(sub) + "\""), std::string::npos) << sub;
        if (sub == "help") continue;  // completes subcommand names, has no options of its own
        EXPECT_NE(bash.find(" " + sub + ")"), std::string::npos) << sub;
        for (const std::string& name : names) {
            EXPECT_NE(man.find("\\fB" + troff_escaped(name) + "\\fR"), std::string::npos) << sub << " " << name;
            // In the subcommand's own list of the bash script.
            const auto at = bash.find("        " + sub + ") opts='");
            ASSERT_NE(at, std::string::npos) << sub;
            const auto from = bash.find('\'', at) + 1;
            const std::string list = " " + bash.substr(from, bash.find('\'', from) - from) + " ";
            EXPECT_NE(list.find(" " + name + " "), std::string::npos) << sub << " " << name << ": " << list;
            EXPECT_NE(zsh.find("'" + name + "["), std::string::npos) << sub << " " << name;
        }
    }
    // The hidden generator is not offered.
    EXPECT_EQ(man.find("tilelife generate\\-docs\""), std::string::npos);
    EXPECT_EQ(bash.find("generate-docs)"), std::string::npos);
    EXPECT_EQ(bash.find(" generate-docs "), std::string::npos);
}

TEST_F(DocsCli, ManPageRendersWithoutWarnings) {
    const std::string man = test::read_text(kManPage);
    ASSERT_EQ(man.rfind(".\\\"", 0), 0u);
    EXPECT_NE(man.find("\n.TH TILELIFE 1 "), std::string::npos);
    for (const char* section : {"\n.SH NAME\ntilelife \\- ", "\n.SH SYNOPSIS\n", "\n.SH DESCRIPTION\n", "\n.SH SUBCOMMANDS\n",
                                "\n.SH \"EXIT STATUS\"\n"})
        EXPECT_NE(man.find(section), std::string::npos) << section;
    // Only ASCII reaches troff (other characters are \[uXXXX]).
    for (char c : man) EXPECT_LT(static_cast<unsigned char>(c), 0x80u);
    if (test::run_command("command -v man").exit_code == 0) {
        const CommandResult r = test::run_command("MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l " +
                                                  shell_quote(kManPage) + " 2>&1 >/dev/null");
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_EQ(r.out, "") << "man warns:\n" << r.out;
        const CommandResult text = test::run_command("MANWIDTH=80 LC_ALL=C.UTF-8 man -E UTF-8 -l " + shell_quote(kManPage));
        EXPECT_NE(text.out.find("--gens"), std::string::npos) << text.out.substr(0, 2000);
    }
    if (test::run_command("command -v groff").exit_code == 0) {
        const CommandResult r = test::run_command("groff -man -ww -z -Tutf8 " + shell_quote(kManPage) + " 2>&1");
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_EQ(r.out, "") << "groff warns:\n" << r.out;
    }
}

// What bash offers for `tilelife WORDS...` (the last word being completed).
std::string bash_completes(const std::string& words) {
    const std::string script = "source " + shell_quote(kBashCompletion) + "; COMP_WORDS=(" + words +
                               "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tilelife; echo \"${COMPREPLY[*]}\"";
    return test::run_command("bash -c " + shell_quote(script)).out;
}

TEST_F(DocsCli, BashCompletionCompletes) {
    ASSERT_EQ(test::run_command("bash -n " + shell_quote(kBashCompletion)).exit_code, 0);
    EXPECT_EQ(bash_completes("tilelife ru"), "run\n");
    EXPECT_EQ(bash_completes("tilelife run x.rle --ge"), "--gens\n");
    EXPECT_EQ(bash_completes("tilelife help con"), "convert\n");
    EXPECT_NE(bash_completes("tilelife info --").find("--json"), std::string::npos);
    if (test::run_command("command -v zsh").exit_code == 0) {
        EXPECT_EQ(test::run_command("zsh -n " + shell_quote(kZshCompletion)).exit_code, 0);
    }
}

}  // namespace
}  // namespace tilelife
