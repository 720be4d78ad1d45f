// Hardening: the bad-input catalogue, hostile inputs that must stay fast, fuzz regressions, and
// checkpoint/resume and Ctrl+C giving exactly the uninterrupted result.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tilelife/board.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/rule.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = TILELIFE_SOURCE_DIR;
const std::string kCli = TILELIFE_CLI;

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct Result {
    int exit_code = -1;
    std::string out, err;
};

Result run_cli(const std::string& args, const fs::path& dir) {
    const fs::path o = dir / "stdout.txt", e = dir / "stderr.txt";
    const std::string cmd = quote(kCli) + " " + args + " >" + quote(o) + " 2>" + quote(e);
    const int status = std::system(cmd.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(o);
    r.err = read_file(e);
    return r;
}

class TempDir {
public:
    TempDir() {
        char tmpl[] = "/tmp/tilelife-hardening-XXXXXX";
        path_ = mkdtemp(tmpl);
    }
    ~TempDir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size())) s.replace(i, from.size(), to);
    return s;
}

TEST(BadInputs, CatalogueExitsWithReasonAndLeavesOutputUntouched) {
    const fs::path dir = kSource / "tests" / "bad_inputs";
    std::ifstream cat(dir / "catalogue.tsv");
    ASSERT_TRUE(cat) << "missing catalogue.tsv";
    std::string line;
    int rows = 0;
    while (std::getline(cat, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string args, code, fragment;
        std::getline(fields, args, '\t');
        std::getline(fields, code, '\t');
        std::getline(fields, fragment, '\t');
        TempDir tmp;
        const fs::path out = tmp.path() / "existing-output.rle";
        const std::string sentinel = "#C an existing file the failed run must not touch\nx = 1, y = 1\no!\n";
        write_file(out, sentinel);
        // Each space-separated token is quoted after its placeholders are filled in.
        std::istringstream words(args);
        std::string word, cmd;
        while (words >> word)
            cmd += quote(replace_all(replace_all(word, "{dir}", dir.string()), "{out}", out.string())) + " ";
        const auto t0 = std::chrono::steady_clock::now();
        const Result r = run_cli(cmd, tmp.path());
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        SCOPED_TRACE("tilelife " + args);
        EXPECT_EQ(r.exit_code, std::stoi(code)) << r.err;
        EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
        // One line of reason, not a stack of messages.
        EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(read_file(out), sentinel);
        EXPECT_LT(secs, 30.0);
        ++rows;
    }
    EXPECT_GE(rows, 30);
}

TEST(BadInputs, EveryCatalogueFileIsRefusedInProcessWithoutCrashing) {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(kSource / "tests" / "bad_inputs")) {
        if (entry.path().extension() == ".tsv") continue;
        SCOPED_TRACE(entry.path().string());
        try {
            const tilelife::Pattern p = tilelife::read_pattern(entry.path().string());
            // The files the reader accepts are bad for what a run does with them (B0 unbounded).
            tilelife::register_builtin_engines();
            const tilelife::BoardPlan plan = tilelife::plan_board(p, {}, entry.path().string());
            EXPECT_THROW(tilelife::create_engine("cpu:reference", plan.spec), tilelife::InputError);
        } catch (const tilelife::InputError& e) {
            EXPECT_NE(std::string(e.what()).find(entry.path().filename().string()), std::string::npos) << e.what();
        }
        ++files;
    }
    EXPECT_GE(files, 30);
}

// Inputs that are legal but large or repetitive: each must be read in bounded time (no quadratic
// behaviour) and either work or be refused with exit 2.
TEST(HostileInputs, LargeAndRepetitiveFilesStayFast) {
    TempDir tmp;
    struct Case {
        std::string name, text;
        int expected_exit;
    };
    std::vector<Case> cases;
    cases.push_back({"megabyte-line.rle", "x = 2000000, y = 1\n" + std::string(2000000, 'o') + "!\n", 0});
    {
        std::string t = "#Life 1.05\n";
        for (int i = 0; i < 300000; ++i) t += "#P " + std::to_string(i * 3) + " 0\n*\n";
        cases.push_back({"many-p-blocks.lif", t, 0});
    }
    {
        std::string t = "#Life 1.06\n";
        for (int i = 0; i < 500000; ++i) t += std::to_string(i % 1000) + " " + std::to_string(i / 1000) + "\n";
        cases.push_back({"many-cells.lif", t, 0});
    }
    {
        std::string t = "x = 1, y = 1\n";
        for (int i = 0; i < 500000; ++i) t += "o2$\n";
        cases.push_back({"repeated-runs.rle", t + "!", 0});
    }
    cases.push_back({"huge-declared-size.rle", "x = 4000000000000, y = 4000000000000\no!\n", 0});
    cases.push_back({"many-comments.rle", [] {
                         std::string t;
                         for (int i = 0; i < 200000; ++i) t += "#C comment line " + std::to_string(i) + "\n";
                         return t + "x = 1, y = 1\no!\n";
                     }(),
                     0});
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        write_file(tmp.path() / c.name, c.text);
        const auto t0 = std::chrono::steady_clock::now();
        const Result r = run_cli("info " + quote((tmp.path() / c.name).string()), tmp.path());
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_EQ(r.exit_code, c.expected_exit) << r.err;
        EXPECT_LT(secs, 20.0) << "reading took " << secs << " s";
    }
}

// Replays what the fuzzers keep (tests/fuzz_regressions/<target>/, crash inputs of `make fuzz`) and
// their seed corpus (fuzz/corpus/<target>/) through each target's entry point: every input is read
// or refused with InputError, nothing else. The count is asserted, so an empty or moved folder fails.
TEST(FuzzRegressions, EveryKeptCrashInputIsHandled) {
    int files = 0, replayed = 0;
    for (const fs::path& dir : {kSource / "tests" / "fuzz_regressions", kSource / "fuzz" / "corpus"}) {
        if (!fs::exists(dir)) continue;
        for (const auto& target : fs::directory_iterator(dir))
            for (const auto& f : fs::directory_iterator(target.path())) {
                ++files;
                const std::string bytes = read_file(f.path());
                const std::string name = target.path().filename().string();
                SCOPED_TRACE(f.path().string());
                try {
                    if (name == "fuzz_rule") (void)tilelife::parse_rule(bytes);
                    else if (name == "fuzz_gzip") (void)tilelife::read_pattern(f.path().string());
                    else (void)tilelife::parse_pattern(bytes, f.path().filename().string());
                } catch (const tilelife::InputError&) {
                }
                ++replayed;
            }
    }
    std::cout << "replayed " << replayed << " fuzz inputs\n";
    EXPECT_EQ(replayed, files);  // nothing escaped but InputError
    // fuzz/corpus holds 23 seeds over 7 targets.
    EXPECT_GE(replayed, 23) << "the fuzz corpus was not found under " << (kSource / "fuzz" / "corpus");
}

// A run interrupted by its checkpoints and resumed ends with the same file as one straight run.
TEST(Checkpoint, ResumeGivesTheUninterruptedResult) {
    const std::vector<std::string> setups = {
        "random:67x45:0.4:9 --topology torus", "random:50x61:0.5:4 --topology plane --rule B36/S23",
        quote((kSource / "patterns" / "gosper-glider-gun.rle").string())};
    for (const std::string& setup : setups) {
        SCOPED_TRACE(setup);
        TempDir tmp;
        const std::string straight = quote((tmp.path() / "straight.rle").string());
        const std::string part = quote((tmp.path() / "part.rle").string());
        const std::string ck = quote((tmp.path() / "ck.rle").string());
        const std::string resumed = quote((tmp.path() / "resumed.rle").string());
        ASSERT_EQ(run_cli("run " + setup + " --gens 230 -q -o " + straight, tmp.path()).exit_code, 0);
        // First leg: 230 planned, stopped early by --gens on the resume (checkpoints every 40).
        ASSERT_EQ(run_cli("run " + setup + " --gens 230 -q --checkpoint " + ck + " --every 40 -o " + part, tmp.path())
                      .exit_code,
                  0);
        const std::string ck_text = read_file(tmp.path() / "ck.rle");
        EXPECT_NE(ck_text.find("Gen=200"), std::string::npos) << ck_text.substr(0, 200);
        const Result r = run_cli("run -q --resume " + ck + " -o " + resumed, tmp.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(read_file(tmp.path() / "resumed.rle"), read_file(tmp.path() / "straight.rle"));
        EXPECT_EQ(read_file(tmp.path() / "part.rle"), read_file(tmp.path() / "straight.rle"));
    }
}

TEST(Checkpoint, CtrlCStopsCleanlyAndResumeIsExact) {
    TempDir tmp;
    const std::string ck = (tmp.path() / "ck.rle").string();
    const std::string out = (tmp.path() / "never.rle").string();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(kCli.c_str(), kCli.c_str(), "run", "random:300x300:0.5:2", "--topology", "torus", "--kernel", "reference",
              "--gens", "100000000", "--checkpoint", ck.c_str(), "--every", "1000000", "-o", out.c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    // Wait until the run is surely stepping, then interrupt it.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_FALSE(fs::exists(out)) << "an interrupted run must not write its result";
    const tilelife::Pattern saved = tilelife::read_pattern(ck);
    ASSERT_GT(saved.generation, 0);
    // Resume for a few more generations and compare with a straight run to the same generation.
    const std::int64_t target = saved.generation + 7;
    const Result r = run_cli("run -q --resume " + quote(ck) + " --gens " + std::to_string(target) + " -o " +
                                 quote((tmp.path() / "resumed.rle").string()),
                             tmp.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(run_cli("run -q random:300x300:0.5:2 --topology torus --gens " + std::to_string(target) + " -o " +
                          quote((tmp.path() / "straight.rle").string()),
                      tmp.path())
                  .exit_code,
              0);
    EXPECT_EQ(read_file(tmp.path() / "resumed.rle"), read_file(tmp.path() / "straight.rle"));
}

}  // namespace
