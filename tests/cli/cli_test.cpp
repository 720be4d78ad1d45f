// End-to-end tests of the built `tilelife` binary (TILELIFE_CLI): outputs, JSON, exit codes, and
// that every rejection exits 2 with a one-line reason and leaves an existing output file alone.
#include <gtest/gtest.h>

#include "cli/cli_support.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::CommandResult;
using test::shell_quote;
using test::translated;

// ---------------------------------------------------------------------------------------------
// Help, version, engines

TEST_F(Cli, HelpAndVersion) {
    const CommandResult h = tl("--help");
    EXPECT_EQ(h.exit_code, 0) << h.err;
    for (const char* word : {"run", "convert", "info", "engines"}) EXPECT_NE(h.out.find(word), std::string::npos) << word;
    const CommandResult rh = tl("run --help");
    EXPECT_EQ(rh.exit_code, 0);
    for (const char* opt : {"--gens", "--rule", "--topology", "--size", "--backend", "--kernel", "--json", "--quiet",
                            "--max-memory", "-o"})
        EXPECT_NE(rh.out.find(opt), std::string::npos) << opt;
    const CommandResult v = tl("--version");
    EXPECT_EQ(v.exit_code, 0) << v.err;
    EXPECT_NE((v.out + v.err).find(TILELIFE_VERSION), std::string::npos) << v.out << v.err;
    const CommandResult none = tl("");
    EXPECT_EQ(none.exit_code, 2) << "no subcommand is a usage error";
    const CommandResult bad = tl("frobnicate");
    EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(Cli, EnginesListsEveryRegisteredEngine) {
    const CommandResult r = tl("engines");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const std::string& name : test::engine_names())
        EXPECT_TRUE(std::regex_search(r.out, std::regex("(^|\n)" + name + "\\s"))) << name << " missing:\n" << r.out;
}

// ---------------------------------------------------------------------------------------------
// run: human output, JSON, topology and size resolution

TEST_F(Cli, RunPrintsGenerationPopulationSecondsAndRate) {
    const CommandResult r = tl("run " + shell_quote(pattern_path("r-pentomino.rle")) + " --gens 1103");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto kv = key_values(r.out);
    EXPECT_EQ(kv.count("generation") ? kv.at("generation") : "", "1103") << r.out;
    EXPECT_EQ(kv.count("population") ? kv.at("population") : "", "116") << r.out;
    ASSERT_TRUE(kv.count("seconds")) << r.out;
    EXPECT_TRUE(std::regex_match(kv.at("seconds"), std::regex(R"([0-9]+(\.[0-9]+)?)"))) << kv.at("seconds");
    ASSERT_TRUE(kv.count("cell-updates/s")) << r.out;
    EXPECT_TRUE(std::regex_search(kv.at("cell-updates/s"), std::regex("^[0-9]"))) << kv.at("cell-updates/s");
}

TEST_F(Cli, RunDefaultsToOneHundredGenerations) {
    const CommandResult r = tl("run " + shell_quote(pattern_path("glider.rle")) + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["generation"], 100);
    EXPECT_EQ((*js)["population"], 5);
}

TEST_F(Cli, RunJsonHasEveryKey) {
    const CommandResult r = tl("run " + shell_quote(pattern_path("gosper-glider-gun.rle")) + " --gens 300 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << "not one JSON document: " << r.out;
    for (const char* key : {"pattern", "board", "engine", "generation", "generations_run", "population", "seconds",
                            "cell_updates", "cell_updates_per_second", "output", "gif", "checkpoint", "log"})
        EXPECT_TRUE(js->contains(key)) << "missing key " << key << " in " << r.out;
    const auto& j = *js;
    EXPECT_EQ(j["pattern"]["path"], pattern_path("gosper-glider-gun.rle"));
    EXPECT_EQ(j["pattern"]["format"], "RLE");
    EXPECT_EQ(j["pattern"]["name"], "Gosper glider gun");
    EXPECT_EQ(j["pattern"]["population"], 36);
    EXPECT_TRUE(engine_exists(j["engine"]["name"].get<std::string>())) << j["engine"];
    EXPECT_EQ(j["engine"]["backend"], "cpu");
    EXPECT_TRUE(j["engine"]["device"].is_null());
    EXPECT_TRUE(j["engine"]["properties"].is_object());
    EXPECT_EQ(j["board"]["rule"], "B3/S23");
    EXPECT_EQ(j["board"]["topology"], "unbounded");
    EXPECT_GT(j["board"]["width"].get<std::int64_t>(), 0);
    EXPECT_EQ(j["generation"], 300);
    EXPECT_EQ(j["generations_run"], 300);
    // 36 cells of gun + 10 gliders (5 each) at gen 300 (bgolly: 86).
    EXPECT_EQ(j["population"], 86);
    EXPECT_TRUE(j["output"].is_null());
    EXPECT_TRUE(j["gif"].is_null());
    EXPECT_TRUE(j["checkpoint"].is_null());
    EXPECT_TRUE(j["log"].is_null()) << "no --log-every: log is null (a key is never left out)";
    EXPECT_GT(j["cell_updates"].get<std::int64_t>(), 0);
    EXPECT_GE(j["seconds"].get<double>(), 0.0);
    EXPECT_GE(j["cell_updates_per_second"].get<double>(), 0.0);
}

// --json failures: one error object on stderr (docs/json.md), the text line's reason and exit code.
TEST_F(Cli, JsonErrorsAreOneObjectOnStderr) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    const struct {
        std::string args, command;
        int code;
    } cases[] = {
        {"run nonesuch.rle --gens 1", "run", 2},
        {"run " + glider + " --gens ten", "run", 2},
        {"info " + glider + " --nonesuch", "info", 2},
        {"runn " + glider, "", 2},
        {"run " + shell_quote(pattern_path("gosper-glider-gun.rle")) + " --kernel hashlife --gens 2^40 --max-memory 64K", "run", 1},
    };
    for (const auto& c : cases) {
        const CommandResult text = tl(c.args);
        const CommandResult r = tl(c.args + " --json");
        EXPECT_EQ(r.exit_code, c.code) << c.args << ": " << r.err;
        EXPECT_EQ(text.exit_code, c.code) << c.args << ": " << text.err;
        EXPECT_TRUE(r.out.empty()) << c.args << ": " << r.out;
        ASSERT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << ": " << r.err;
        nlohmann::json j;
        ASSERT_NO_THROW(j = nlohmann::json::parse(r.err)) << c.args << ": " << r.err;
        EXPECT_EQ(j["tilelife"], TILELIFE_VERSION);
        if (c.command.empty()) EXPECT_TRUE(j["command"].is_null()) << r.err;
        else EXPECT_EQ(j["command"], c.command) << r.err;
        EXPECT_EQ(j["error"]["exit_code"], c.code) << r.err;
        EXPECT_EQ("tilelife: " + j["error"]["message"].get<std::string>() + "\n", text.err) << c.args;
    }
    // After `--` the word is an argument, not the flag: the text line.
    const CommandResult after = tl("info -- --json");
    EXPECT_EQ(after.exit_code, 2);
    EXPECT_EQ(after.err.rfind("tilelife: ", 0), 0u) << after.err;
}

TEST_F(Cli, RunTopologyAndSizeResolution) {
    struct Case {
        std::string args, topology, width, height, rule;
    };
    write("plane.rle", "x = 3, y = 3, rule = B36/S23:P20,10\nbo$2bo$3o!\n");
    write("plain.rle", "x = 7, y = 5, rule = B3/S23\nbo$2bo$3o!\n");
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    const std::vector<Case> cases = {
        {glider, "unbounded", "", "", "B3/S23"},
        {glider + " --topology torus --size 37x23", "torus", "37", "23", "B3/S23"},
        {glider + " --rule B3/S23:T20,10", "torus", "20", "10", "B3/S23"},
        {glider + " --rule B3/S23:T20,10 --size 30x40", "torus", "30", "40", "B3/S23"},
        {glider + " --rule B3/S23:T20,10 --topology plane", "plane", "20", "10", "B3/S23"},
        {glider + " --rule b36s23", "unbounded", "", "", "B36/S23"},
        {glider + " --rule 23/3", "unbounded", "", "", "B3/S23"},
        {"plane.rle", "plane", "20", "10", "B36/S23"},
        {"plane.rle --topology torus", "torus", "20", "10", "B36/S23"},
        {"plane.rle --rule B3/S23", "unbounded", "", "", "B3/S23"},
        {"plane.rle --topology unbounded", "unbounded", "", "", "B36/S23"},
        {"plain.rle --topology torus", "torus", "7", "5", "B3/S23"},  // the RLE frame's size
        {"plain.rle --topology plane --size 9x1000", "plane", "9", "1000", "B3/S23"},
    };
    for (const Case& c : cases) {
        const CommandResult r = tl("run " + c.args + " --gens 8 --json");
        ASSERT_EQ(r.exit_code, 0) << c.args << ": " << r.err;
        const auto js = parse_json(r.out, "run");
        ASSERT_TRUE(js) << r.out;
        const auto& board = (*js)["board"];
        EXPECT_EQ(board["topology"], c.topology) << c.args;
        EXPECT_EQ(board["rule"], c.rule) << c.args;
        EXPECT_EQ((*js)["generation"], 8) << c.args;
        if (!c.width.empty()) {
            EXPECT_EQ(board["width"], std::stoll(c.width)) << c.args;
            EXPECT_EQ(board["height"], std::stoll(c.height)) << c.args;
        }
    }
}

TEST_F(Cli, QuietPrintsNothing) {
    const CommandResult r = tl("run " + shell_quote(pattern_path("glider.rle")) + " --gens 10 --quiet -o q.rle");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(test::file_exists(path("q.rle")));
}

TEST_F(Cli, EveryEngineGivesTheSameResult) {
    // Unbounded on the CPU kernels; a small torus on every engine (OpenCL included when it has a device).
    struct Job {
        std::string args, tag;
        bool cpu_only;
    };
    const std::vector<Job> jobs = {
        {shell_quote(pattern_path("acorn.rle")) + " --gens 700", "acorn", true},
        {"random:64x48:0.35:5 --topology torus --gens 300", "soup", false},
    };
    for (const Job& job : jobs) {
        std::string first, first_engine;
        for (const std::string& name : test::engine_names()) {
            if (job.cpu_only && name.rfind("cpu:", 0) != 0) continue;
            const std::string out = job.tag + "-" + test::param_name(name) + ".rle";
            const CommandResult r = tl("run " + job.args + " --kernel " + name + " --json -o " + out);
            if (test::is_opencl(name) && r.exit_code == 1) {
                std::printf("  [%s skipped: %s]\n", name.c_str(), r.err.c_str());
                continue;  // no usable OpenCL device
            }
            if (!job.cpu_only && !find_engine(name)->bounded) {
                // Engines of the unbounded plane alone refuse the torus, naming those that run it.
                EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
                EXPECT_NE(r.err.find("only the unbounded plane"), std::string::npos) << r.err;
                continue;
            }
            ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
            const auto js = parse_json(r.out, "run");
            ASSERT_TRUE(js) << r.out;
            EXPECT_EQ((*js)["engine"]["name"], name);
            const std::string text = test::read_text(path(out));
            if (first.empty()) {
                first = text;
                first_engine = name;
            } else {
                EXPECT_EQ(text, first) << job.tag << ": " << name << " wrote a different result from " << first_engine;
            }
        }
        EXPECT_FALSE(first.empty());
    }
}

// ---------------------------------------------------------------------------------------------
// run -o: the written pattern is the engine's result

TEST_F(Cli, RunOutputRleReadsBackAsTheEngineResult) {
    const std::string in = pattern_path("r-pentomino.rle");
    const CommandResult r = tl("run " + shell_quote(in) + " --gens 500 -o out.rle --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = test::read_text(path("out.rle"));
    EXPECT_NE(text.find("#CXRLE Pos="), std::string::npos) << text;
    EXPECT_NE(text.find("Gen=500"), std::string::npos) << text;
    EXPECT_NE(text.find("rule = B3/S23"), std::string::npos) << text;
    const Pattern out = read_pattern(path("out.rle"));
    EXPECT_EQ(out.generation, 500);
    EXPECT_CELLS(reference_unbounded(read_pattern(in), "B3/S23", 500), out.cells);
    EXPECT_EQ(dir.files(), (std::vector<std::string>{"out.rle"})) << "temporary files left behind";
}

TEST_F(Cli, RunOutputOnATorusUsesGollyCoordinates) {
    // Bounded boards write positions in Golly's coordinates (grid top-left at (-W/2, -H/2)), with
    // the grid in the rule, so that Golly opens the result where it computed it.
    const Cells start = test::soup(30, 20, 0.4, 31, -15, -10);
    write("soup.rle", format_rle(start, "B3/S23:T37,23", 0));
    const CommandResult r = tl("run soup.rle --gens 150 -o out.rle --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Pattern out = read_pattern(path("out.rle"));
    ASSERT_TRUE(out.rule.has_value());
    EXPECT_EQ(parse_rule(*out.rule).to_string(), "B3/S23:T37,23");
    // The input is positioned (format_rle writes Pos), so it sits at (x + W/2, y + H/2) on the board.
    auto e = create_engine("cpu:reference", test::spec_of(37, 23, Topology::torus));
    const Cells want = test::run_cells(*e, translated(start, 37 / 2, 23 / 2), 150);
    EXPECT_CELLS(want, translated(out.cells, 37 / 2, 23 / 2));

    // And bgolly agrees on the absolute positions.
    if (!test::bgolly_path().empty()) {
        const std::string mc = path("golly.mc");
        const CommandResult g = test::run_command(shell_quote(test::bgolly_path()) + " -a HashLife -q -q -m 150 -o " +
                                                  shell_quote(mc) + " " + shell_quote(path("soup.rle")));
        ASSERT_EQ(g.exit_code, 0) << g.out << g.err;
        EXPECT_CELLS(parse_pattern(test::read_text(mc), mc).cells, out.cells);
    }
}

TEST_F(Cli, PositionedRleOnATorusStaysWhereGollyPutsIt) {
    // "#CXRLE Pos" away from the centre: Golly keeps the absolute position on its bounded grid.
    write("pos.rle", "#CXRLE Pos=-4,-3\nx = 3, y = 3, rule = B3/S23:T9,7\nbo$2bo$3o!\n");
    const CommandResult r = tl("run pos.rle --gens 4 -o out.rle --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Glider cells at (-4..-2, -3..-1) moved (1,1) in Golly's coordinates.
    EXPECT_CELLS(test::picture({".O.", "..O", "OOO"}, -3, -2), read_pattern(path("out.rle")).cells);
    if (!test::bgolly_path().empty()) {
        const std::string mc = path("golly.mc");
        const CommandResult g = test::run_command(shell_quote(test::bgolly_path()) + " -a HashLife -q -q -m 4 -o " +
                                                  shell_quote(mc) + " " + shell_quote(path("pos.rle")));
        ASSERT_EQ(g.exit_code, 0) << g.out << g.err;
        EXPECT_CELLS(parse_pattern(test::read_text(mc), mc).cells, read_pattern(path("out.rle")).cells);
    }
}

TEST_F(Cli, RunOutputCellsHasTheResultShape) {
    const std::string in = pattern_path("acorn.rle");
    const CommandResult r = tl("run " + shell_quote(in) + " --gens 200 -o out.cells --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = test::read_text(path("out.cells"));
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.rfind("!Name:", 0), 0u) << text.substr(0, 80);
    const Pattern out = read_pattern(path("out.cells"));
    EXPECT_EQ(out.format, PatternFormat::plaintext);
    EXPECT_CELLS(test::normalised(reference_unbounded(read_pattern(in), "B3/S23", 200)), test::normalised(out.cells));
}

TEST_F(Cli, RunRandomSoupMatchesTheLibrary) {
    const std::string spec = "random:50x40:0.3:7";
    const CommandResult r = tl("run " + spec + " --topology torus --gens 60 -o out.rle --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["board"]["width"], 50);
    EXPECT_EQ((*js)["board"]["height"], 40);
    const Pattern p = read_pattern(spec);
    EXPECT_EQ(p.format, PatternFormat::random);
    auto e = create_engine("cpu:reference", test::spec_of(50, 40, Topology::torus));
    const Cells want = test::run_cells(*e, test::translated(p.cells, 25 - p.frame.width / 2 - p.frame.x,
                                                                   20 - p.frame.height / 2 - p.frame.y), 60);
    EXPECT_EQ((*js)["population"], want.size());
    EXPECT_CELLS(want, translated(read_pattern(path("out.rle")).cells, 25, 20));
}

TEST_F(Cli, ZeroGenerationsAndExtinction) {
    const std::string glider = pattern_path("glider.rle");
    CommandResult r = tl("run " + shell_quote(glider) + " --gens 0 -o g0.rle --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse_json(r.out, "run").value_or(nlohmann::json::object())["generation"], 0) << r.out;
    EXPECT_CELLS(read_pattern(glider).cells, read_pattern(path("g0.rle")).cells);
    r = tl("run " + shell_quote(pattern_path("diehard.rle")) + " --gens 130 -o dead.rle --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["population"], 0);
    EXPECT_EQ((*js)["output"], "dead.rle");
    const Pattern dead = read_pattern(path("dead.rle"));
    EXPECT_TRUE(dead.cells.empty());
    EXPECT_EQ(dead.generation, 130);
}

TEST_F(Cli, ExistingOutputIsReplacedOnSuccess) {
    write("out.rle", "old content\n");
    const CommandResult r = tl("run " + shell_quote(pattern_path("glider.rle")) + " --gens 4 -o out.rle --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_CELLS(translated(read_pattern(pattern_path("glider.rle")).cells, 1, 1), read_pattern(path("out.rle")).cells);
    EXPECT_EQ(dir.files(), (std::vector<std::string>{"out.rle"}));
}

// ---------------------------------------------------------------------------------------------
// convert and info

TEST_F(Cli, ConvertRoundTrips) {
    // RLE with a position -> RLE keeps the absolute cells, rule and generation.
    const Cells cells = test::soup(17, 9, 0.45, 3, -40, 12);
    write("in.rle", format_rle(cells, "B36/S23", 42));
    CommandResult r = tl("convert in.rle copy.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Pattern copy = read_pattern(path("copy.rle"));
    EXPECT_CELLS(test::sorted(cells), copy.cells);
    ASSERT_TRUE(copy.rule.has_value());
    EXPECT_EQ(parse_rule(*copy.rule).to_string(), "B36/S23");
    EXPECT_EQ(copy.generation, 42);
    // RLE -> .cells -> RLE keeps the shape (plaintext has no position).
    r = tl("convert in.rle shape.cells");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = tl("convert shape.cells back.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_CELLS(test::normalised(cells), test::normalised(read_pattern(path("back.rle")).cells));
    EXPECT_CELLS(test::normalised(cells), test::normalised(read_pattern(path("shape.cells")).cells));
    // Life 1.06 (absolute coordinates) -> RLE keeps them.
    write("abs.lif", "#Life 1.06\n-5 -5\n-4 -5\n-3 -5\n100 7\n");
    r = tl("convert abs.lif abs.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_CELLS((Cells{{-5, -5}, {-4, -5}, {-3, -5}, {100, 7}}), read_pattern(path("abs.rle")).cells);
    // The project's gun, via .cells, keeps its name.
    r = tl("convert " + shell_quote(pattern_path("gosper-glider-gun.rle")) + " gun.cells");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(test::read_text(path("gun.cells")).find("Gosper glider gun"), std::string::npos);
    EXPECT_CELLS(read_pattern(pattern_path("gosper-glider-gun.rle")).cells,
                 test::normalised(read_pattern(path("gun.cells")).cells));
}

TEST_F(Cli, InfoDescribesAPattern) {
    const CommandResult r = tl("info " + shell_quote(pattern_path("gosper-glider-gun.rle")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto kv = key_values(r.out);
    EXPECT_EQ(kv.count("format") ? kv.at("format") : "", "RLE") << r.out;
    EXPECT_EQ(kv.count("rule") ? kv.at("rule") : "", "B3/S23") << r.out;
    EXPECT_EQ(kv.count("population") ? kv.at("population") : "", "36") << r.out;
    EXPECT_EQ(kv.count("name") ? kv.at("name") : "", "Gosper glider gun") << r.out;
    EXPECT_NE(r.out.find("36"), std::string::npos);
    EXPECT_TRUE(std::regex_search(r.out, std::regex("bounding box.*x=0 y=0 width=36 height=9"))) << r.out;

    write("pos.rle", "#CXRLE Pos=-3,4\nx = 2, y = 2, rule = b36s23\no$bo!\n");
    const CommandResult p = tl("info pos.rle");
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_TRUE(std::regex_search(p.out, std::regex("bounding box.*x=-3 y=4 width=2 height=2"))) << p.out;
    EXPECT_TRUE(std::regex_search(p.out, std::regex("rule\\s+B36/S23"))) << p.out;
    EXPECT_TRUE(std::regex_search(p.out, std::regex("population\\s+2"))) << p.out;
}

// ---------------------------------------------------------------------------------------------
// Rejections: exit 2, one line naming the problem, nothing written

struct Rejection {
    std::string label;
    std::string args;      // after "run", with OUT for the output file
    std::string fragment;  // in stderr (case-insensitive)
};

void PrintTo(const Rejection& r, std::ostream* os) { *os << "tilelife " << r.args; }

class CliRejects : public Cli, public ::testing::WithParamInterface<Rejection> {};


TEST_P(CliRejects, ExitsTwoWithAReasonAndWritesNothing) {
    const Rejection& c = GetParam();
    write("badrule.rle", "#N bad\nx = 3, y = 3, rule = B3/S239\nbo$2bo$3o!\n");
    write("multistate.rle", "x = 3, y = 3, rule = B2/S/C3\nbo$2bo$3o!\n");
    write("history.rle", "x = 3, y = 3, rule = LifeHistory\nA$2A$3A!\n");
    write("klein.rle", "x = 3, y = 3, rule = B3/S23:K10,10\nbo$2bo$3o!\n");
    // State B (2) in a 2-state rule. (Unknown letters such as 'q' are live cells to Golly, so not malformed.)
    write("malformed.rle", "#C a comment\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3B!\n");
    write("badheader.rle", "x = three, y = 3\nbo$2bo$3o!\n");
    write("b0.rle", "x = 3, y = 3, rule = B03/S23\nbo$2bo$3o!\n");
    write("glider.rle", "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n");
    // Macrocell files cut short: inside a comment before any node; after a node the root leaves out.
    write("cut.mc", "[M2] (golly 2.0)\n#C By Jason Summers with Gabr");
    write("cutnode.mc", "[M2] (golly 3.3)\n#R B3/S23\n.*$\n*$\n4 2 0 0 0\n");
    const std::string sentinel = "#C do not touch\nx = 1, y = 1\no!\n";
    write("keep.rle", sentinel);
    const auto before = dir.files();

    std::string args = c.args;
    const auto pos = args.find("OUT");
    if (pos != std::string::npos) args.replace(pos, 3, "keep.rle");
    const CommandResult r = tl(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\nstdout: " << r.out << "\nstderr: " << r.err;
    EXPECT_NE(lower(r.err).find(lower(c.fragment)), std::string::npos)
        << args << ": stderr lacks '" << c.fragment << "': " << r.err;
    // One line (a trailing newline allowed).
    std::string err = r.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    EXPECT_FALSE(err.empty());
    EXPECT_EQ(err.find('\n'), std::string::npos) << "more than one line: " << r.err;
    EXPECT_EQ(test::read_text(path("keep.rle")), sentinel) << "the existing output was clobbered";
    EXPECT_EQ(dir.files(), before) << "files were created";
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliRejects,
    ::testing::Values(
        Rejection{"RuleInFileWithDigit9", "run badrule.rle -o OUT", "badrule.rle"},
        Rejection{"RuleInFileNamesTheRule", "run badrule.rle -o OUT", "B3/S239"},
        Rejection{"RuleInFileNamesLine", "run badrule.rle -o OUT", "badrule.rle:2"},
        Rejection{"RuleOnCommandLine", "run glider.rle --rule B3/S2x -o OUT", "B3/S2x"},
        Rejection{"RuleOnCommandLineDigit9", "run glider.rle --rule B9/S23 -o OUT", "9"},
        Rejection{"MultiStateRuleInFile", "run multistate.rle -o OUT", "multi-state"},
        Rejection{"MultiStateRuleOnCommandLine", "run glider.rle --rule 23/3/2 -o OUT", "multi-state"},
        Rejection{"LifeHistory", "run history.rle -o OUT", "history.rle"},
        Rejection{"KleinInFile", "run klein.rle -o OUT", "klein"},
        Rejection{"KleinOnCommandLine", "run glider.rle --rule B3/S23:K10,10 -o OUT", "klein"},
        Rejection{"ShiftedTorus", "run glider.rle --rule B3/S23:T10+1,10 -o OUT", "shifted"},
        Rejection{"B0OnUnbounded", "run glider.rle --rule B03/S23 -o OUT", "B0"},
        Rejection{"B0InFileOnUnbounded", "run b0.rle -o OUT", "B0"},
        Rejection{"MalformedRle", "run malformed.rle -o OUT", "malformed.rle:3"},
        Rejection{"MalformedHeader", "run badheader.rle -o OUT", "badheader.rle:1"},
        Rejection{"MissingFile", "run nonexistent.rle -o OUT", "nonexistent.rle"},
        Rejection{"BadSizeNoX", "run glider.rle --topology torus --size 10 -o OUT", "--size"},
        Rejection{"BadSizeZero", "run glider.rle --topology torus --size 0x5 -o OUT", "--size"},
        Rejection{"BadSizeLetters", "run glider.rle --topology torus --size axb -o OUT", "--size"},
        Rejection{"BadSizeNegative", "run glider.rle --topology plane --size 10x-4 -o OUT", "--size"},
        Rejection{"UnknownKernel", "run glider.rle --kernel nonesuch -o OUT", "nonesuch"},
        Rejection{"UnknownBackend", "run glider.rle --backend quantum -o OUT", "quantum"},
        Rejection{"BadTopology", "run glider.rle --topology klein -o OUT", "klein"},
        Rejection{"OverMaxMemory", "run glider.rle --topology torus --size 100000x100000 --max-memory 1M -o OUT",
                  "memory"},
        Rejection{"OverDefaultMemory", "run glider.rle --topology torus --size 4000000000x4000000000 -o OUT", "memory"},
        Rejection{"BadMaxMemory", "run glider.rle --max-memory lots -o OUT", "--max-memory"},
        Rejection{"NegativeGens", "run glider.rle --gens -5 -o OUT", "gens"},
        Rejection{"PatternLargerThanBoard",
                  "run " + shell_quote(TILELIFE_SOURCE_DIR "/patterns/gosper-glider-gun.rle") +
                      " --topology torus --size 10x10 -o OUT",
                  "gosper-glider-gun.rle"},
        Rejection{"BadOutputExtension", "run glider.rle -o out.txt", "out.txt"},
        Rejection{"UnknownOption", "run glider.rle --frobnicate -o OUT", "frobnicate"},
        Rejection{"BadRandomSpec", "run random:axb -o OUT", "random:axb"},
        Rejection{"ConvertBadInput", "convert malformed.rle OUT", "malformed.rle:3"},
        Rejection{"ConvertMissingInput", "convert nonexistent.rle OUT", "nonexistent.rle"},
        Rejection{"ConvertBadRule", "convert badrule.rle OUT", "badrule.rle"},
        Rejection{"ConvertBadExtension", "convert glider.rle glider.txt", "glider.txt"},
        Rejection{"InfoMissingFile", "info nonexistent.rle", "nonexistent.rle"},
        Rejection{"InfoMalformed", "info malformed.rle", "malformed.rle:3"},
        Rejection{"TruncatedMacrocell", "run cut.mc -o OUT", "cut.mc:2: the file ends inside a line"},
        Rejection{"TruncatedMacrocellNode", "run cutnode.mc -o OUT", "cutnode.mc:3: node 1 is not part"},
        Rejection{"InfoTruncatedMacrocell", "info cut.mc", "truncated"},
        Rejection{"ConvertTruncatedMacrocell", "convert cutnode.mc OUT", "cutnode.mc:3"},
        Rejection{"EmptyOutputName", "run glider.rle -o ''", "-o was given an empty file name"},
        Rejection{"EmptyGifName", "run glider.rle --gif ''", "--gif was given an empty file name"},
        Rejection{"EmptyCheckpointName", "run glider.rle --checkpoint ''", "--checkpoint was given an empty file name"},
        Rejection{"AgesWithoutAnImage", "run glider.rle --ages -o OUT", "--ages"}),
    [](const ::testing::TestParamInfo<Rejection>& info) { return info.param.label; });

// ---------------------------------------------------------------------------------------------
// Runtime failures: exit 1

TEST_F(Cli, UnboundedGrowthBeyondTheBudgetIsARuntimeFailure) {
    // Seeds (B2/S) spreads at the speed of light: the growing board passes a 1 MiB budget.
    write("seeds.rle", "x = 2, y = 2, rule = B2/S\n2o$bo!\n");
    const std::string sentinel = "x = 1, y = 1\no!\n";
    write("keep.rle", sentinel);
    const CommandResult r = tl("run seeds.rle --gens 5000 --max-memory 1M -o keep.rle");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(lower(r.err).find("memory"), std::string::npos) << r.err;
    EXPECT_EQ(test::read_text(path("keep.rle")), sentinel);
}

TEST_F(Cli, UnwritableOutputIsARuntimeFailure) {
    const CommandResult r =
        tl("run " + shell_quote(pattern_path("glider.rle")) + " --gens 4 -o " + shell_quote(path("no/such/dir/out.rle")));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("out.rle"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tilelife
