// cpu:hashlife and cpu:auto through the built `tilelife` binary: hostile macrocell files exit 2 with
// one line naming the file, astronomically large trees are counted, run and refused where they
// cannot be listed, runs up to 2^63 - 1 generations and runs that leave the plane, the --json
// fields, the default engine on the unbounded plane, and macrocell round trips through bgolly.
#include <gtest/gtest.h>

#include "support/test_support.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::CommandResult;
using test::shell_quote;

class HashlifeCli : public ::testing::Test {
protected:
    void SetUp() override {
        register_builtin_engines();
        if (!test::file_exists(TILELIFE_CLI)) GTEST_FAIL() << "CLI not built: " << TILELIFE_CLI;
    }
    CommandResult tl(const std::string& args) const {
        return test::run_command("cd " + shell_quote(dir.path()) + " && " + shell_quote(TILELIFE_CLI) + " " + args);
    }
    std::string path(const std::string& name) const { return dir / name; }
    void write(const std::string& name, const std::string& text) const { test::write_text(path(name), text); }
    // A refusal: exit 2, one line on stderr holding every fragment, no file written.
    // Exit 2 (bad input) or `code` (1: a runtime limit), one line naming `fragments`, no file written.
    void expect_refused(const std::string& args, const std::vector<std::string>& fragments, int code = 2) const {
        const auto before = dir.files();
        const CommandResult r = tl(args);
        EXPECT_EQ(r.exit_code, code) << args << "\n" << r.out << r.err;
        std::string err = r.err;
        while (!err.empty() && err.back() == '\n') err.pop_back();
        EXPECT_EQ(err.find('\n'), std::string::npos) << args << ": more than one line: " << r.err;
        for (const std::string& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << args << ": no '" << f << "' in " << r.err;
        EXPECT_EQ(dir.files(), before) << args << ": files were written";
    }
    test::TempDir dir;
};

// A chain of nodes from one leaf up to `top`, each with its child in quarter `q` (0 = nw ... 3 = se),
// or in all four quarters when q < 0 (every square full of copies).
std::string chain(const std::string& leaf, int top, int q) {
    std::string out = "[M2]\n#R B3/S23\n" + leaf + "\n";
    for (int level = 4, k = 1; level <= top; ++level, ++k) {
        std::string kids[4] = {"0", "0", "0", "0"};
        for (int i = 0; i < 4; ++i)
            if (q < 0 || i == q) kids[i] = std::to_string(k);
        out += std::to_string(level) + " " + kids[0] + " " + kids[1] + " " + kids[2] + " " + kids[3] + "\n";
    }
    return out;
}
const std::string kFullLeaf = "********$********$********$********$********$********$********$********$";

TEST_F(HashlifeCli, HostileMacrocellFilesExitTwoNamingTheFileAndLine) {
    struct Bad {
        std::string name, text, fragment;
    };
    const std::vector<Bad> bad = {
        {"forward.mc", "[M2]\n4 2 0 0 0\n*$\n", "forward.mc:2"},             // names a later node
        {"self.mc", "[M2]\n*$\n4 2 0 0 0\n", "self.mc:3"},                   // names itself (a cycle)
        {"cycle.mc", "[M2]\n*$\n4 1 0 0 0\n4 3 0 0 0\n", "cycle.mc:4"},     // names itself, past a good node
        {"badlevel.mc", "[M2]\n*$\n4 1 0 0 0\n5 1 0 0 0\n", "badlevel.mc:4"},  // a child of the wrong level
        {"zero.mc", "[M2]\n*$\n4 0 0 0 9\n", "zero.mc:3"},                   // a node that does not exist
        {"level64.mc", "[M2]\n64 0 0 0 0\n", "level64.mc:2"},               // beyond 64-bit coordinates
        {"level-huge.mc", "[M2]\n99999999999999999999 0 0 0 0\n", "level-huge.mc:2"},
        {"negative.mc", "[M2]\n*$\n4 -1 0 0 0\n", "negative.mc:3"},
        {"edge.mc", chain("*$", 63, 0), "edge.mc"},  // a cell at (-2^62, -2^62 + 1)
        {"leaf9.mc", "[M2]\n*********$\n", "leaf9.mc:2"},
        {"notroot.mc", "[M2]\n*$\n5 0 0 0 0\n4 1 0 0 0\n", "notroot.mc:4"},
    };
    for (const Bad& b : bad) {
        SCOPED_TRACE(b.name);
        write(b.name, b.text);
        expect_refused("run " + b.name + " --gens 1000 -o out.mc", {b.fragment});
        expect_refused("run " + b.name + " --kernel hashlife --gens 1000 -o out.mc", {b.fragment});
        expect_refused("convert " + b.name + " out.rle", {b.fragment});
        expect_refused("info " + b.name, {b.fragment});
    }
}

TEST_F(HashlifeCli, AstronomicalTreesAreCountedRunOrRefusedNeverListed) {
    // 2^124 live cells (a full square of side 2^62): counted; beyond the plane cpu:hashlife runs.
    write("full62.mc", chain(kFullLeaf, 62, -1));
    CommandResult r = tl("info full62.mc");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("21267647932558653966460912964485513216"), std::string::npos) << r.out;
    expect_refused("run full62.mc --gens 1 -o out.mc", {"full62.mc", "2^60"});
    // 2^80 live cells (side 2^40): HashLife runs it (the inside dies at once, the edges burn
    // inwards); cpu:bitpacked and the listed formats refuse it at once.
    write("full40.mc", chain(kFullLeaf, 40, -1));
    r = tl("run full40.mc --gens 1000 -o out.mc --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"running\":\"cpu:hashlife\""), std::string::npos) << r.out;
    ReadLimits keep_tree;
    keep_tree.list_tree_cells = false;
    const Pattern out = read_pattern(path("out.mc"), keep_tree);
    ASSERT_TRUE(out.tree);
    EXPECT_EQ(out.generation, 1000);
    EXPECT_GT(out.tree->population(), CellCount{1} << 40);  // the four burning edges
    std::remove(path("out.mc").c_str());
    expect_refused("run full40.mc --gens 1 --kernel bitpacked -o out.rle", {"full40.mc", "live cells"});
    expect_refused("convert full40.mc out.rle", {"out.rle", "rows of live cells", "macrocell"});
    expect_refused("convert full40.mc out.cells", {"full40.mc", "live cells"});
    expect_refused("run full40.mc --gens 2 -o out.rle", {"out.rle", "macrocell"});
    // One row of 2^40 cells: too wide to list as RLE.
    write("row.mc", [] {
        std::string t = "[M2]\n********$\n";
        for (int level = 4, k = 1; level <= 40; ++level, ++k)
            t += std::to_string(level) + " " + std::to_string(k) + " " + std::to_string(k) + " 0 0\n";
        return t;
    }());
    expect_refused("convert row.mc out.rle", {"out.rle", "too wide", "macrocell"});
    ASSERT_EQ(tl("convert full40.mc copy.mc").exit_code, 0);
    EXPECT_EQ(test::read_text(path("copy.mc")).substr(test::read_text(path("copy.mc")).find('\n')),
              test::read_text(path("full40.mc")).substr(test::read_text(path("full40.mc")).find('\n')));
}

TEST_F(HashlifeCli, RunsToTheLastGenerationAndRefusesRunsLeavingThePlane) {
    write("still.rle", "#CXRLE Pos=-1,-1\nx = 7, y = 2, rule = B3/S23\n2o2b3o$2o!\n");  // a block and a blinker
    CommandResult r = tl("run still.rle --gens 9223372036854775807 -o out.rle");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("running: cpu:hashlife"), std::string::npos) << r.out;  // which engine ran
    const Pattern p = read_pattern(path("out.rle"));
    EXPECT_EQ(p.generation, 9223372036854775807);
    EXPECT_CELLS(test::united(test::picture({"OO", "OO"}, -1, -1), test::picture({"O", "O", "O"}, 4, -2)), p.cells);
    // The gun's gliders would pass x = 2^60 (a valid count beyond the plane the engine runs: exit
    // 1), at the generation the message names: refused, nothing written. The gun's first glider
    // has its front cell at x = 2^60 - 1 at generation G and the next step takes it over, so
    // runs to G pass and runs to G + 1 are refused naming G + 1.
    std::remove(path("out.rle").c_str());
    const std::string gun = shell_quote(test::source_dir() + "/patterns/gosper-glider-gun.rle");
    expect_refused("run " + gun + " --gens 2^62 -o out.rle", {"gosper-glider-gun.rle", "2^60", "at generation "}, 1);
    expect_refused("run " + gun + " --kernel hashlife --gens 9223372036854775807 -o out.mc", {"2^60"}, 1);
    const CommandResult g = tl("run " + gun + " --gens 2^62 -o out.rle");
    const auto at = g.err.find("at generation ");
    ASSERT_NE(at, std::string::npos) << g.err;
    const std::int64_t off = std::stoll(g.err.substr(at + 14));
    EXPECT_GT(off, std::int64_t{1} << 61);
    EXPECT_LT(off, std::int64_t{1} << 62);
    r = tl("run " + gun + " --gens " + std::to_string(off - 1) + " -o last.mc --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ReadLimits tree_only;
    tree_only.list_tree_cells = false;
    const Pattern last = read_pattern(path("last.mc"), tree_only);
    ASSERT_TRUE(last.tree);
    const Box box = last.tree->bounding_box();
    EXPECT_EQ(std::max(box.x + box.width, box.y + box.height) - 1, (std::int64_t{1} << 60) - 1)
        << "the glider is not at the edge one generation before";
    std::remove(path("last.mc").c_str());
    expect_refused("run " + gun + " --gens " + std::to_string(off) + " -o out.mc",
                   {"at generation " + std::to_string(off) + " "}, 1);
    // A glider to 2^63 - 1 likewise; from a file at Gen=N the message says where the engine began.
    write("glider-g7.rle", "#CXRLE Gen=7\nx = 3, y = 3\nbo$2bo$3o!\n");
    expect_refused("run glider-g7.rle --gens 9223372036854775800 -o out.mc", {"at generation ", "started at generation 7"}, 1);
}

TEST_F(HashlifeCli, JsonCarriesTheStoreAndCollectionsAndTheDefaultIsAuto) {
    const std::string gun = shell_quote(test::source_dir() + "/patterns/gosper-glider-gun.rle");
    CommandResult r = tl("run " + gun + " --gens 100000 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"cpu:auto\""), std::string::npos) << r.out;  // the unbounded default
    EXPECT_NE(r.out.find("\"running\":\"cpu:hashlife\""), std::string::npos) << r.out;
    for (const char* key : {"nodes\":", "collections\":", "bytes\":"}) EXPECT_NE(r.out.find(key), std::string::npos) << key;
    // A bounded board keeps cpu:bitpacked; HashLife refuses one naming the engines that run it.
    r = tl("run " + gun + " --topology torus --size 64x64 --gens 10 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"cpu:bitpacked\""), std::string::npos) << r.out;
    expect_refused("run " + gun + " --kernel hashlife --topology torus --size 64x64 --gens 10", {"cpu:bitpacked"});
    // A store far smaller than the run: collections, and the same cells.
    r = tl("run random:500x500:0.4:1 --kernel hashlife --gens 10001 --max-memory 3M --json -o small.mc");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto at = r.out.find("\"collections\":");
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_GT(std::stoll(r.out.substr(at + 14)), 0) << r.out;
    ASSERT_EQ(tl("run random:500x500:0.4:1 --kernel hashlife --gens 10001 -o roomy.mc -q").exit_code, 0);
    EXPECT_EQ(test::read_text(path("small.mc")), test::read_text(path("roomy.mc")));
}

TEST_F(HashlifeCli, MaxMemoryIsWhereTheStoreMayGrowAsGollysDashM) {
    // Named, --max-memory is the budget and where HashLife's store may double to before it only
    // collects (bgolly -M), on cpu:hashlife and on the default engine; unnamed, the store stops
    // doubling at 240 MiB (within Golly's default 256 MB) inside a budget of half the machine's memory.
    const std::string gun = shell_quote(test::source_dir() + "/patterns/gosper-glider-gun.rle");
    auto soft_limit = [&](const std::string& args) -> long long {
        const CommandResult r = tl("run " + gun + " --gens 1000 --json " + args);
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
        const auto at = r.out.find("soft_limit_bytes\":");
        if (at == std::string::npos) {
            ADD_FAILURE() << args << ": no soft limit in " << r.out;
            return -1;
        }
        return std::stoll(r.out.substr(at + 18));
    };
    EXPECT_EQ(soft_limit("--kernel hashlife"), 240ll << 20);
    EXPECT_EQ(soft_limit("--kernel hashlife --max-memory 300M"), 300ll << 20);
    EXPECT_EQ(soft_limit("--max-memory 1G"), 1ll << 30);
    EXPECT_EQ(soft_limit("--kernel hashlife --max-memory 100M"), 100ll << 20);
}

TEST_F(HashlifeCli, MacrocellRoundTripsThroughBgolly) {
    if (test::bgolly_path().empty()) GTEST_SKIP() << "bgolly not found";
    const std::string bg = shell_quote(test::bgolly_path());
    // tilelife writes a run's result as .mc and as .rle; bgolly reads each and runs on from there,
    // tilelife runs on from its own file: the same bytes after the header line.
    const std::string start = shell_quote("/usr/share/golly/Patterns/Life/Breeders/breeder.lif");
    ASSERT_EQ(tl("run " + start + " --gens 30011 -o mid.mc -q").exit_code, 0);
    ASSERT_EQ(tl("convert mid.mc mid.rle").exit_code, 0);
    ASSERT_EQ(tl("run mid.mc --gens 1001 -o ours.mc -q").exit_code, 0);
    for (const char* in : {"mid.mc", "mid.rle"}) {
        SCOPED_TRACE(in);
        // Both files carry generation 30011 (#G, #CXRLE Gen=); bgolly's -m is absolute.
        const CommandResult g = test::run_command("cd " + shell_quote(dir.path()) + " && " + bg +
                                                  " -a HashLife -q -q -m 31012 -o golly.mc " + in);
        ASSERT_EQ(g.exit_code, 0) << g.out << g.err;
        const std::string theirs = test::read_text(path("golly.mc")), kept = test::read_text(path("ours.mc"));
        ASSERT_NE(kept.find("#G 31012\n"), std::string::npos);
        // The breeder's comments are kept (bgolly drops them); the tree is bgolly's byte for byte.
        ASSERT_NE(kept.find("\n#C "), std::string::npos) << kept.substr(0, 200);
        const std::string ours = test::without_macrocell_metadata(kept);
        EXPECT_EQ(theirs.substr(theirs.find('\n')), ours.substr(ours.find('\n')));
    }
    // And bgolly's own .mc read back by tilelife and written again: the same bytes.
    ASSERT_EQ(tl("convert golly.mc again.mc").exit_code, 0);
    const std::string g = test::read_text(path("golly.mc")), a = test::read_text(path("again.mc"));
    EXPECT_EQ(g.substr(g.find('\n')), a.substr(a.find('\n')));
}

}  // namespace
}  // namespace tilelife
