// cpu:hashlife against Golly's own HashLife (bgolly -a HashLife) on Golly's pattern collection:
// every file of Patterns/HashLife/ and of Patterns/Life/{Guns,Puffers,Breeders,Methuselahs}, each
// run from generation 0 to large and odd generation counts (tests/hashlife/golly_cases.txt) by
// both. The results are compared as macrocell text (tilelife's writer on both trees): equal text is
// the same cells at the same absolute positions, and Golly's minimal root, without listing cells
// (some results hold 10^9 of them). One CLI run per file checks the bytes `tilelife run -o X.mc`
// writes against bgolly's own file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>

#include "support/test_support.hpp"
#include "tilelife/board.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

namespace fs = std::filesystem;
const std::string kCollection = "/usr/share/golly/Patterns";
const char* const kFolders[] = {"HashLife", "Life/Guns", "Life/Puffers", "Life/Breeders", "Life/Methuselahs"};

struct Case {
    int line = 0;
    std::string file;                  // under kCollection
    std::vector<std::int64_t> counts;  // empty: skipped
    std::string skip_reason;
};

std::int64_t parse_count(const std::string& t) {
    // "1000003", "2^40", "2^40+3"
    const auto caret = t.find('^');
    if (caret == std::string::npos) return std::stoll(t);
    const auto plus = t.find_first_of("+-", caret);
    const std::int64_t p = std::int64_t{1} << std::stoi(t.substr(caret + 1, plus - caret - 1));
    return plus == std::string::npos ? p : p + std::stoll(t.substr(plus));
}

std::vector<Case> load_cases() {
    std::vector<Case> out;
    std::istringstream in(test::read_text(test::source_dir() + "/tests/hashlife/golly_cases.txt"));
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream f(line);
        Case c;
        c.line = n;
        std::string counts;
        if (!(f >> c.file >> counts)) continue;
        if (counts == "skip") {
            std::getline(f, c.skip_reason);
        } else {
            std::istringstream g(counts);
            std::string tok;
            while (std::getline(g, tok, ',')) c.counts.push_back(parse_count(tok));
        }
        out.push_back(c);
    }
    return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << "golly_cases.txt:" << c.line << " " << c.file; }

// bgolly -a HashLife -m COUNT -o OUT FILE; returns the .mc text, or "" with `error` set.
std::string run_bgolly(const std::string& file, std::int64_t count, const std::string& out, std::string& error) {
    const test::CommandResult r =
        test::run_command("timeout 600 " + test::shell_quote(test::bgolly_path()) + " -a HashLife -q -q -m " +
                          std::to_string(count) + " -o " + test::shell_quote(out) + " " + test::shell_quote(file));
    if (r.exit_code != 0 || !test::file_exists(out)) {
        error = "bgolly failed (exit " + std::to_string(r.exit_code) + "): " + r.out + r.err;
        return {};
    }
    return test::read_text(out);
}

std::string after_first_line(const std::string& text) {
    const auto nl = text.find('\n');
    return nl == std::string::npos ? std::string() : text.substr(nl + 1);
}

// What differs, briefly: populations and bounding boxes of both texts.
std::string describe_difference(const std::string& golly, const std::string& ours) {
    auto summary = [](const std::string& text) {
        ReadLimits limits;
        limits.list_tree_cells = false;
        const Pattern p = parse_pattern(text, "mc", limits);
        const Box b = p.bounding_box();
        return to_string_count(p.tree ? p.tree->population() : p.cells.size()) + " cells in x=" +
               std::to_string(b.x) + " y=" + std::to_string(b.y) + " " + std::to_string(b.width) + "x" +
               std::to_string(b.height);
    };
    return "golly: " + summary(golly) + "; tilelife: " + summary(ours);
}

class GollyHashlife : public ::testing::TestWithParam<Case> {};

TEST_P(GollyHashlife, SameCellsAsBgollyAtLargeAndOddCounts) {
    const Case& c = GetParam();
    if (!c.skip_reason.empty()) GTEST_SKIP() << c.file << ":" << c.skip_reason;
    if (test::bgolly_path().empty()) GTEST_SKIP() << "bgolly not found: install golly to run the differential tests";
    register_builtin_engines();
    const std::string path = kCollection + "/" + c.file;
    ASSERT_TRUE(fs::exists(path)) << path;
    ReadLimits limits;
    limits.list_tree_cells = false;
    const Pattern p = read_pattern(path, limits);
    const BoardPlan plan = plan_board(p, BoardOverrides{}, path);
    ASSERT_EQ(plan.spec.topology, Topology::unbounded) << path;
    const std::string rule = rule_for_output(plan.spec);
    test::TempDir dir;

    for (std::size_t i = 0; i < c.counts.size(); ++i) {
        const std::int64_t count = c.counts[i];
        SCOPED_TRACE(c.file + " to generation " + std::to_string(count));
        const std::string out = dir / ("golly-" + std::to_string(count) + ".mc");
        std::string error;
        // bgolly's -m is absolute: it counts on from the file's own generation.
        auto golly =
            std::async(std::launch::async, [&] { return run_bgolly(path, p.generation + count, out, error); });

        auto e = create_engine("cpu:hashlife", plan.spec);
        if (p.tree && plan.cells.empty()) ASSERT_TRUE(e->load_quadtree(*p.tree));
        else e->set_cells(plan.cells);
        e->step(count);
        ASSERT_EQ(e->generation(), count);
        const std::string ours = format_macrocell(*e->quadtree(), rule, p.generation + count);

        const std::string theirs = golly.get();
        ASSERT_FALSE(theirs.empty()) << error;
        const bool same = after_first_line(theirs) == after_first_line(ours);
        EXPECT_TRUE(same) << describe_difference(theirs, ours);
        if (!same) continue;

        // The first count once more through the CLI: the bytes it writes are bgolly's.
        if (i == 0) {
            const std::string mine = dir / "ours.mc";
            const test::CommandResult r =
                test::run_command(test::shell_quote(TILELIFE_CLI) + " run " + test::shell_quote(path) + " --gens " +
                                  std::to_string(count) + " -o " + test::shell_quote(mine) + " -q");
            ASSERT_EQ(r.exit_code, 0) << r.err;
            EXPECT_EQ(after_first_line(test::without_macrocell_metadata(test::read_text(mine))), after_first_line(theirs));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Collection, GollyHashlife, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             return "L" + std::to_string(info.param.line) + "_" + test::param_name(info.param.file);
                         });

// Every file of the folders has a line in golly_cases.txt (run or skipped with its reason), and
// every line names a file that exists: new files in Golly's collection are not silently left out.
TEST(GollyHashlifeCases, EveryFileOfTheFoldersIsListed) {
    if (!fs::exists(kCollection)) GTEST_SKIP() << kCollection << " not found (golly's pattern collection)";
    std::set<std::string> listed;
    int runs = 0;
    for (const Case& c : load_cases()) {
        EXPECT_TRUE(fs::exists(kCollection + "/" + c.file)) << "golly_cases.txt:" << c.line << ": " << c.file;
        EXPECT_TRUE(listed.insert(c.file).second) << "listed twice: " << c.file;
        if (c.skip_reason.empty()) {
            EXPECT_FALSE(c.counts.empty()) << c.file;
            runs += static_cast<int>(c.counts.size());
        }
    }
    for (const char* folder : kFolders)
        for (const auto& e : fs::directory_iterator(kCollection + "/" + folder))
            if (e.is_regular_file()) {
                const std::string rel = std::string(folder) + "/" + e.path().filename().string();
                EXPECT_TRUE(listed.count(rel)) << rel << " has no line in tests/hashlife/golly_cases.txt";
            }
    EXPECT_GE(runs, 100);
}

}  // namespace
}  // namespace tilelife
