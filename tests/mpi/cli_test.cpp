// `mpirun -np N tilelife run ...` against the same command without MPI on cpu:reference: output
// files, one report from rank 0, bad input, checkpoints resumed on another number of ranks.
#include <filesystem>
#include <regex>

#include "support/test_support.hpp"

namespace tilelife {
namespace {

using test::read_text;
using test::run_command;
using test::shell_quote;
using test::TempDir;
using test::write_text;

std::string cli() { return shell_quote(TILELIFE_CLI); }
std::string mpirun(int n) {
    return std::string("env " TILELIFE_MPI_ENV " ") + shell_quote(TILELIFE_MPIEXEC) + " -np " + std::to_string(n) + " --oversubscribe --bind-to none " + cli();
}

int count_lines(const std::string& text, const std::string& prefix) {
    int n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
    return n;
}

// The RLE body (header and comments dropped), which holds every cell.
std::string cells_of(const std::string& rle_path) {
    std::istringstream in(read_text(rle_path));
    std::string out;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') out += line + "\n";
    return out;
}

struct Job {
    std::string args;  // pattern and options, without -o
    std::string name;
};

// Each job on 1..4 ranks (cpu:bitpacked per rank) gives the file that cpu:reference gives alone.
TEST(MpiCli, RunMatchesOneProcess) {
    TempDir tmp;
    const std::vector<Job> jobs = {
        {"random:61x47:0.4:3 --topology torus --gens 100", "torus"},
        {"random:70x33:0.35:4 --topology plane --rule B36/S23 --gens 77", "plane"},
        {"random:9x5:0.5:5 --topology torus --rule B0123478/S01234678 --gens 31", "b0"},
        {TILELIFE_SOURCE_DIR "/patterns/glider.rle --topology torus --size 30x23 --gens 500", "glider"},
    };
    for (const Job& j : jobs) {
        const std::string want = tmp / (j.name + "-ref.rle");
        const auto ref = run_command(cli() + " run " + j.args + " --backend cpu --kernel reference -q -o " + want);
        ASSERT_EQ(ref.exit_code, 0) << ref.err;
        for (int n = 1; n <= 4; ++n) {
            const std::string got = tmp / (j.name + "-" + std::to_string(n) + ".rle");
            const auto r = run_command(mpirun(n) + " run " + j.args + " -q -o " + got);
            ASSERT_EQ(r.exit_code, 0) << j.name << " on " << n << " ranks: " << r.err;
            EXPECT_EQ(cells_of(got), cells_of(want)) << j.name << " on " << n << " ranks";
            EXPECT_EQ(read_text(got), read_text(want)) << j.name << " on " << n << " ranks";
        }
    }
}

// Only rank 0 prints; the report is the usual one.
TEST(MpiCli, OneReport) {
    const auto r = run_command(mpirun(3) + " run random:40x40:0.3:1 --topology torus --gens 20");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_lines(r.out, "population"), 1) << r.out;
    EXPECT_EQ(count_lines(r.out, "engine          mpi:") + count_lines(r.out, "engine          cpu:"), 1) << r.out;
    const auto js = run_command(mpirun(2) + " run random:40x40:0.3:1 --topology torus --gens 20 --json");
    ASSERT_EQ(js.exit_code, 0) << js.err;
    EXPECT_EQ(count_lines(js.out, "{"), 1) << js.out;
    const auto one = run_command(cli() + " run random:40x40:0.3:1 --topology torus --gens 20 --json");
    std::smatch a, b;
    const std::regex pop("\"population\":([0-9]+)");
    ASSERT_TRUE(std::regex_search(js.out, a, pop));
    ASSERT_TRUE(std::regex_search(one.out, b, pop));
    EXPECT_EQ(a[1], b[1]);
}

// Bad input: exit 2 on every rank, one message (from rank 0).
TEST(MpiCli, BadInputOneMessageExitTwo) {
    TempDir tmp;
    for (const std::string& args : {std::string("run ") + (tmp / "missing.rle"), std::string("run random:10x10 --gens -4"),
                                    std::string("run random:10x10 --topology torus --kernel nonesuch")}) {
        const auto r = run_command(mpirun(3) + " " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
        EXPECT_EQ(count_lines(r.err, "tilelife:"), 1) << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << args;
    }
    // Several ranks refuse the unbounded plane; one rank runs it as usual.
    const auto many = run_command(mpirun(2) + " run " TILELIFE_SOURCE_DIR "/patterns/glider.rle --gens 10");
    EXPECT_EQ(many.exit_code, 2);
    EXPECT_EQ(count_lines(many.err, "tilelife: unbounded boards do not run across 2 MPI ranks"), 1) << many.err;
    const auto one = run_command(mpirun(1) + " run " TILELIFE_SOURCE_DIR "/patterns/glider.rle --gens 10 -q");
    EXPECT_EQ(one.exit_code, 0) << one.err;
}

// A checkpoint written on 3 ranks resumes on 2 (and 4) to the same end as one uninterrupted run.
TEST(MpiCli, CheckpointResumesOnOtherRankCounts) {
    TempDir tmp;
    const std::string pattern = "random:57x44:0.4:9 --topology torus --rule B36/S23";
    const std::string want = tmp / "want.rle";
    ASSERT_EQ(run_command(cli() + " run " + pattern + " --gens 60 --backend cpu --kernel reference -q -o " + want).exit_code, 0);
    const std::string ck = tmp / "ck.rle";
    auto r = run_command(mpirun(3) + " run " + pattern + " --gens 30 --checkpoint " + ck + " --every 7 -q");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(read_text(ck).find("#CXRLE Pos="), std::string::npos);
    EXPECT_NE(read_text(ck).find("Gen=28"), std::string::npos) << read_text(ck).substr(0, 200);
    for (int n : {2, 4}) {
        const std::string got = tmp / ("got" + std::to_string(n) + ".rle");
        r = run_command(mpirun(n) + " run --resume " + ck + " --gens 60 -q -o " + got);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(cells_of(got), cells_of(want)) << n << " ranks";
    }
}

// OpenCL per rank (PoCL on CPUs here), when the build and the machine have it.
TEST(MpiCli, OpenCLRanks) {
    const auto devices = run_command(cli() + " devices");
    if (devices.exit_code != 0 || devices.out.find("device 0:0") == std::string::npos) GTEST_SKIP() << "no OpenCL device";
    TempDir tmp;
    const std::string args = "random:83x51:0.4:2 --topology torus --gens 45";
    const std::string want = tmp / "want.rle", got = tmp / "got.rle";
    ASSERT_EQ(run_command(cli() + " run " + args + " --backend cpu --kernel reference -q -o " + want).exit_code, 0);
    const auto r = run_command(mpirun(2) + " run " + args + " --backend opencl --kernel bitpacked -q -o " + got);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(cells_of(got), cells_of(want));
}

#ifdef TILELIFE_TEST_HAVE_SYCL
// SYCL per rank, in builds that have it (CI has no SYCL compiler; named so that `ctest -R sycl` runs
// it): sycl:halo-tile through the distributed engine's default paths (bytes converted on the host),
// sycl:bitpacked through its own packed row copies (malloc_host staging), which its exchanges use:
// rank 0's count of them grows with the generations run.
TEST(MpiCli, sycl_RanksMatchOneProcess) {
    TempDir tmp;
    for (const char* kernel : {"sycl:bitpacked", "sycl:halo-tile"}) {
        for (const char* topology : {"torus", "plane"}) {
            SCOPED_TRACE(std::string(kernel) + " " + topology);
            const std::string board = std::string("random:83x51:0.4:2 --topology ") + topology, args = board + " --gens 45";
            const std::string want = tmp / "want.rle", got = tmp / "got.rle";
            ASSERT_EQ(run_command(cli() + " run " + args + " --kernel cpu:reference -q -o " + want).exit_code, 0);
            const auto r = run_command(mpirun(3) + " run " + args + " --kernel " + kernel + " -q -o " + got);
            ASSERT_EQ(r.exit_code, 0) << r.err;
            EXPECT_EQ(cells_of(got), cells_of(want));
            if (std::string(kernel) != "sycl:bitpacked") continue;
            std::int64_t copies[2] = {-1, -1};
            for (int k = 0; k < 2; ++k) {
                const auto js = run_command(mpirun(3) + " run " + (k == 0 ? board + " --gens 0" : args) + " --kernel " + kernel + " --json");
                ASSERT_EQ(js.exit_code, 0) << js.err;
                std::smatch m;
                ASSERT_TRUE(std::regex_search(js.out, m, std::regex("\"packed_row_copies\":([0-9]+)"))) << js.out;
                copies[k] = std::stoll(m[1]);
            }
            EXPECT_GT(copies[1], copies[0]) << "the exchanges did not go through sycl:bitpacked's packed rows";
        }
    }
}
#endif

// One process within `budget` refuses the job; 4 ranks within it write the same output and
// checkpoint, byte for byte, as one process given `plenty`.
void expect_ranks_within_budget_match_one_process(const TempDir& tmp, const Job& j, const std::string& budget,
                                                  const std::string& plenty) {
    SCOPED_TRACE(j.name);
    const std::string want = tmp / (j.name + "-want.rle"), got = tmp / (j.name + "-got.rle");
    const std::string want_ck = tmp / (j.name + "-want-ck.rle"), got_ck = tmp / (j.name + "-got-ck.rle");
    const auto refused = run_command(cli() + " run " + j.args + budget + " -q -o " + (tmp / "never.rle"));
    EXPECT_EQ(refused.exit_code, 2) << "one process within the budget: " << refused.err;
    const auto one = run_command(cli() + " run " + j.args + plenty + " --checkpoint " + want_ck +
                                 " --checkpoint-every 25 -q -o " + want);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto r = run_command(mpirun(4) + " run " + j.args + budget + " --checkpoint " + got_ck +
                               " --checkpoint-every 25 -q -o " + got);
    ASSERT_EQ(r.exit_code, 0) << "on 4 ranks: " << r.err;
    EXPECT_TRUE(read_text(got) == read_text(want)) << "the outputs differ";
    EXPECT_TRUE(read_text(got_ck) == read_text(want_ck)) << "the checkpoints differ";
}

// A board larger than each rank's --max-memory: one process with that budget refuses it; 4 ranks
// with it run it, each reading its own band (a soup drawn band by band, an RLE file parsed by every
// rank keeping its rows) and rank 0 writing the output and checkpoints a band at a time, to the
// same bytes as one process allowed the memory. Rank 0 used to hold the pattern's cells or the
// whole board's rows, and refused both inputs at this budget.
TEST(MpiCli, BoardLargerThanEachRanksBudget) {
    TempDir tmp;
    // cpu:bitpacked needs about 4.1 MiB for 4096x4096 (two generations of bits), 1.1 MiB for a band
    // of 1024 rows and its ghost rows: 3 MiB is enough for a band, not for the board.
    const std::string budget = " --max-memory 3M", plenty = " --max-memory 1G";
    const std::string soup = tmp / "soup.rle";
    ASSERT_EQ(run_command(cli() + " run random:4096x4096:0.5:7 --topology torus --gens 0 -q -o " + soup + plenty).exit_code, 0);
    const std::vector<Job> jobs = {
        {"random:4096x4096:0.5:7 --topology torus --gens 40", "random"},
        {soup + " --gens 40", "rle"},  // the rule's :T4096,4096 suffix makes it a torus
        // Placed inside a larger board (Golly's centring), and a band boundary inside the pattern.
        {"random:3001x2003:0.4:8 --topology plane --size 4096x4000 --rule B36/S23 --gens 30", "random-plane"},
        {soup + " --topology plane --size 4100x4500 --gens 30", "rle-plane"},
    };
    for (const Job& j : jobs) expect_ranks_within_budget_match_one_process(tmp, j, budget, plenty);
    // The report counts the pattern as one process does (rank 0 counts a file without keeping it;
    // the ranks count a soup's bands as they draw them, placed inside a larger board here).
    const auto pattern_of = [](const std::string& json) {  // the "pattern" object, braces matched
        const std::size_t at = json.find("\"pattern\":{");
        if (at == std::string::npos) return std::string();
        int depth = 0;
        for (std::size_t i = json.find('{', at); i < json.size(); ++i) {
            depth += json[i] == '{' ? 1 : json[i] == '}' ? -1 : 0;
            if (depth == 0) return json.substr(at, i + 1 - at);
        }
        return std::string();
    };
    for (const std::string& args : {soup, std::string("random:3001x2003:0.4:8 --topology plane --size 4096x4000")}) {
        const auto js = run_command(mpirun(3) + " run " + args + " --gens 0 --json" + budget);
        const auto one = run_command(cli() + " run " + args + " --gens 0 --json" + plenty);
        ASSERT_EQ(js.exit_code, 0) << js.err;
        EXPECT_NE(pattern_of(one.out).find("\"population\":"), std::string::npos) << one.out;
        EXPECT_EQ(pattern_of(js.out), pattern_of(one.out)) << args;
    }
}

// A macrocell file on a board larger than each rank's --max-memory: every rank parses the tree (a
// few nodes here: one 8x8 leaf of R-pentominoes repeated over the board) and cuts only its band's
// rows from it; rank 0 never lists the pattern's cells. Same output, checkpoints and report as one
// process allowed the memory; one process within the budget refuses the board.
TEST(MpiCli, MacrocellLargerThanEachRanksBudget) {
    TempDir tmp;
    const std::string budget = " --max-memory 3M", plenty = " --max-memory 1G";
    // Levels 4..12 each four copies of the level below: 1310720 cells from 10 nodes. Golly's root
    // of level 12 starts at y = -2047, one row below the 4096-row torus's top, so the leaf's cells
    // stay in its rows 1..3 and the bottom row of the root (off the board) is empty.
    std::string text = "[M2] (tilelife)\n#R B3/S23:T4096,4096\n$.**$**$.*$\n";
    for (int level = 4; level <= 12; ++level) {
        const std::string kid = std::to_string(level - 3);
        text += std::to_string(level) + " " + kid + " " + kid + " " + kid + " " + kid + "\n";
    }
    const std::string mc = tmp / "tiles.mc";
    write_text(mc, text);
    const std::vector<Job> jobs = {
        {mc + " --gens 40", "mc"},  // the rule's :T4096,4096 suffix
        // Placed inside a larger board at odd offsets, band boundaries inside the pattern.
        {mc + " --topology plane --size 4101x4503 --gens 30", "mc-plane"},
    };
    for (const Job& j : jobs) expect_ranks_within_budget_match_one_process(tmp, j, budget, plenty);
    // Macrocell output of the bounded board, streamed from the rows a band at a time on rank 0 as in
    // one process (write_macrocell): the same bytes, and read back, the cells of the RLE output.
    {
        const std::string args = mc + " --topology plane --size 4101x4503 --gens 30 -q";
        const std::string want = tmp / "want.mc", got = tmp / "got.mc", back = tmp / "back.rle";
        ASSERT_EQ(run_command(cli() + " run " + args + plenty + " -o " + want).exit_code, 0);
        const auto r = run_command(mpirun(4) + " run " + args + budget + " -o " + got);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_TRUE(read_text(got) == read_text(want)) << "the .mc outputs differ";
        ASSERT_EQ(run_command(cli() + " convert " + got + " " + back).exit_code, 0);
        const std::string rle = read_text(tmp / "mc-plane-want.rle"), from_mc = read_text(back);
        // The same cells: the RLE bodies (after the header lines, which name the source) agree.
        const auto body = [](const std::string& t) { return t.substr(t.find("\nx = ")); };
        EXPECT_TRUE(body(from_mc) == body(rle)) << "the .mc output's cells differ from the RLE output's";
    }
    const auto js = run_command(mpirun(3) + " run " + mc + " --gens 0 --json" + budget);
    const auto one = run_command(cli() + " run " + mc + " --gens 0 --json" + plenty);
    ASSERT_EQ(js.exit_code, 0) << js.err;
    const auto pattern_of = [](const std::string& json) {  // "population" .. the end of "pattern"
        const std::size_t at = json.find("\"pattern\":{");
        return at == std::string::npos ? std::string() : json.substr(at, json.find('}', at) - at);
    };
    EXPECT_NE(pattern_of(one.out).find("\"population\":1310720"), std::string::npos) << one.out;
    EXPECT_EQ(pattern_of(js.out), pattern_of(one.out));
}

// SIGTERM to mpirun (what a scheduler sends) stops the run as in one process: every rank stops at
// the same generation inside a long step, rank 0 writes the checkpoint with the others and says so
// once, no partial output is left; the checkpoint resumes like any other.
TEST(MpiCli, SigtermToMpirunWritesTheCheckpoint) {
    TempDir tmp;
    const std::string ck = tmp / "ck.rle", out = tmp / "out.rle";
    // Open MPI gives the ranks odls_base_sigkill_timeout (1 s) after its SIGTERM before killing them.
    const auto r = run_command("cd " + shell_quote(tmp.path()) + " && { " + mpirun(3) +
                               " run random:300x300:0.45:2 --topology torus --gens 1e15 --checkpoint " + ck +
                               " --checkpoint-every 1e15 -q -o " + out + " & p=$!; sleep 4; kill -TERM $p; wait $p; }");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err, "tilelife: interrupted at generation "), 1) << r.err;
    EXPECT_EQ(count_lines(r.err, "tilelife:"), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
        EXPECT_EQ(entry.path().filename().string(), "ck.rle") << "left behind: " << entry.path();
    std::smatch gen;
    const std::string text = read_text(ck);
    ASSERT_TRUE(std::regex_search(text, gen, std::regex("Gen=([0-9]+)"))) << text.substr(0, 200);
    const long long g = std::stoll(gen[1]);
    EXPECT_GT(g, 0);
    // Ten more generations from the checkpoint on one process and on 2 ranks agree.
    const std::string one = tmp / "one.rle", two = tmp / "two.rle";
    const std::string more = " --gens " + std::to_string(g + 10) + " -q -o ";
    ASSERT_EQ(run_command(cli() + " run --resume " + ck + more + one).exit_code, 0);
    ASSERT_EQ(run_command(mpirun(2) + " run --resume " + ck + more + two).exit_code, 0);
    EXPECT_NE(read_text(one).find("Gen=" + std::to_string(g + 10)), std::string::npos);
    EXPECT_TRUE(read_text(one) == read_text(two));
}

// A rank killed outright (SIGKILL, a crashed node) cannot report anything: mpirun ends the job. What
// is on disk must still be whole: the last complete checkpoint, no output, no temporary file.
TEST(MpiCli, RankKilledOutrightLeavesOnlyTheLastCheckpoint) {
    TempDir tmp;
    const std::string ck = tmp / "ck.rle", out = tmp / "out.rle";
    // The ranks are mpirun's children; the last one is killed once a checkpoint exists.
    const auto r = run_command("cd " + shell_quote(tmp.path()) + " && { " + mpirun(3) +
                               " run random:600x600:0.45:2 --topology torus --gens 1e15 --checkpoint " + ck +
                               " --checkpoint-every 50 -q -o " + out +
                               " & p=$!; for i in $(seq 300); do [ -e " + ck + " ] && break; sleep 0.1; done; "
                               "sleep 0.5; kill -KILL $(pgrep -P $p | tail -n 1); wait $p; }");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_FALSE(std::filesystem::exists(out));
    for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
        EXPECT_EQ(entry.path().filename().string(), "ck.rle") << "left behind: " << entry.path() << "\n" << r.err;
    const std::string text = read_text(ck);
    EXPECT_TRUE(std::regex_search(text, std::regex("Gen=[1-9][0-9]*"))) << text.substr(0, 200);
    EXPECT_EQ(text[text.find_last_not_of("\n")], '!') << "the checkpoint is cut";
}

// Every rank makes its own engine on its own device: a device list whose second entry does not
// exist fails on rank 1, and rank 0 reports rank 1's error.
TEST(MpiCli, EveryRankRunsItsBand) {
    const auto devices = run_command(cli() + " devices");
    if (devices.exit_code != 0 || devices.out.find("device 0:0") == std::string::npos) GTEST_SKIP() << "no OpenCL device";
    const auto r = run_command(mpirun(2) + " run random:40x40 --topology torus --backend opencl --device 0:0,7:7 -q");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err, "tilelife: rank 1: "), 1) << r.err;
    EXPECT_EQ(count_lines(r.err, "tilelife:"), 1) << r.err;
}

}  // namespace
}  // namespace tilelife
