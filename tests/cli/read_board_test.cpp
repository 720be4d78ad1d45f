// Issue 12: `run` reads an RLE file for a bounded board straight into the board's rows of bits
// (src/cli/board_reader.cpp); standard input (read once) still goes through the cell list. The two
// must give the same board, report, outputs and refusals: every case runs both ways.
#include <gtest/gtest.h>

#include "cli/cli_support.hpp"

namespace tilelife {
namespace {

class ReadBoard : public Cli {
protected:
    // `run FILE ARGS` and `run - ARGS < FILE`: exit codes, outputs and stderr equal, the JSON equal
    // but for the pattern's path. Returns the file run's JSON.
    nlohmann::json same_both_ways(const std::string& file, const std::string& args) {
        const CommandResult a = tl("run " + shell_quote(path(file)) + " " + args + " -o a.rle --json");
        const CommandResult b = tl("run - " + args + " -o b.rle --json < " + shell_quote(path(file)));
        EXPECT_EQ(a.exit_code, b.exit_code) << a.err << b.err;
        if (a.exit_code != 0 || b.exit_code != 0) {
            // The same message, naming the file or standard input.
            const auto named = [](std::string text, const std::string& name) {
                for (std::size_t at; (at = text.find(name)) != std::string::npos;) text.replace(at, name.size(), "SOURCE");
                return text;
            };
            std::string from_stdin = named(b.err, "stdin");  // read errors name "stdin", board errors "-"
            if (from_stdin.rfind("tilelife: -:", 0) == 0) from_stdin = "tilelife: SOURCE:" + from_stdin.substr(12);
            // With --json the same message is a JSON object on stderr (docs/json.md).
            for (std::size_t at; (at = from_stdin.find("\"message\":\"-:")) != std::string::npos;)
                from_stdin.replace(at, 13, "\"message\":\"SOURCE:");
            EXPECT_EQ(named(a.err, path(file)), from_stdin) << "file: " << a.err << "stdin: " << b.err;
            return {};
        }
        EXPECT_EQ(test::read_text(path("a.rle")), test::read_text(path("b.rle"))) << file << " " << args;
        auto ja = parse_json(a.out, "run"), jb = parse_json(b.out, "run");
        EXPECT_TRUE(ja && jb) << a.out << b.out;
        if (!ja || !jb) return {};
        (*ja)["pattern"].erase("path");
        (*jb)["pattern"].erase("path");
        for (auto* j : {&*ja, &*jb})
            for (const char* k : {"seconds", "cell_updates_per_second", "output"}) j->erase(k);
        EXPECT_EQ(*ja, *jb) << file << " " << args;
        return *ja;
    }
};

TEST_F(ReadBoard, SameBoardAsTheCellList) {
    // Soups on tori and planes (from the rule's suffix, or --topology/--size), centred or at a
    // #CXRLE position, across the board's seams: the text is the list path's, cell for cell.
    // Golly's bounded grids have (0, 0) in their middle: positioned files (#CXRLE Pos) keep their
    // coordinates there, others are centred.
    const Cells soup = test::soup(300, 200, 0.45, 3);
    write("t.rle", format_rle(translated(soup, -150, -100), "B3/S23:T301,207", 0));
    write("p.rle", format_rle(translated(soup, -150, -100), "B36/S23:P300,200", 7));
    std::string centred = format_rle(soup, "B3/S23:T333,201", 0);
    write("c.rle", centred.substr(centred.find('\n') + 1));
    write("gun.rle", test::read_text(pattern_path("gosper-glider-gun.rle")));
    for (const auto& [file, args] : std::vector<std::pair<std::string, std::string>>{
             {"t.rle", "--gens 0"},
             {"t.rle", "--gens 40"},
             {"p.rle", "--gens 25"},
             {"c.rle", "--gens 25"},
             {"t.rle", "--gens 9 -t plane -s 401x300"},
             {"t.rle", "--gens 9 -r B2/S:T1000,999"},
             {"gun.rle", "--gens 60 -t torus -s 80x64"},
             {"gun.rle", "--gens 60"}}) {
        const nlohmann::json j = same_both_ways(file, args);
        if (file == "t.rle" && args == "--gens 0") {
            EXPECT_EQ(j["pattern"]["population"], static_cast<std::int64_t>(soup.size()));
            EXPECT_EQ(j["population"], static_cast<std::int64_t>(soup.size()));
        }
    }
}

// The refusals are the list path's: a pattern that does not fit its board (the whole pattern's
// size in the message), a bad rule in the file, a bad byte after thousands of cells.
TEST_F(ReadBoard, SameRefusals) {
    write("big.rle", format_rle(test::soup(50, 40, 0.5, 1), "B3/S23:T30,30", 0));
    same_both_ways("big.rle", "--gens 1");
    const CommandResult r = tl("run big.rle --gens 1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("(50x40) does not fit the 30x30 torus board"), std::string::npos) << r.err;
    write("rule.rle", "x = 3, y = 3, rule = B9/S23:T10,10\nbo$2bo$3o!\n");
    same_both_ways("rule.rle", "--gens 1");
    std::string bad = format_rle(test::soup(100, 100, 0.5, 2), "B3/S23:T100,100", 0);
    bad.insert(bad.size() - 10, "\x01");
    write("bad.rle", bad);
    same_both_ways("bad.rle", "--gens 1");
    EXPECT_EQ(tl("run bad.rle --gens 1").exit_code, 2);
}

// A rule line below the cells ("#r", which the reader takes anywhere) changes the board after the
// cells were placed: the run reads the file again as a list, and agrees with standard input.
TEST_F(ReadBoard, RuleLineAfterTheCells) {
    write("late.rle", "x = 3, y = 3, rule = B3/S23:T20,20\nbo$2bo$\n#r B36/S23:T31,29\n3o!\n");
    const nlohmann::json j = same_both_ways("late.rle", "--gens 8");
    EXPECT_EQ(j["board"]["width"], 31);
    EXPECT_EQ(j["board"]["rule"], "B36/S23");
}

}  // namespace
}  // namespace tilelife
