// The CLI at its limits (issue 19): memory limits set by the system (ulimit -v, as batch systems
// do), the signals schedulers send (SIGTERM, SIGHUP as Ctrl+C), checkpoints of HashLife-scale runs
// in macrocell, memory estimates of huge boards, and the log's absolute generations.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "cli_support.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/quadtree.hpp"

extern char** environ;

namespace tilelife {
namespace {

using Clock = std::chrono::steady_clock;

// `tilelife ARGS` started in `dir` with SIGINT, SIGTERM and SIGHUP at their default disposition (a
// background job of a shell inherits SIGINT ignored), stdout and stderr to files beside the dir.
class Child {
public:
    Child(const std::string& dir, const std::vector<std::string>& args, const std::string& log_prefix)
        : out_(log_prefix + ".out"), err_(log_prefix + ".err") {
        std::vector<std::string> argv{kCli};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> cargv;
        for (std::string& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        sigset_t def, none;
        sigemptyset(&def);
        for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&def, s);
        sigemptyset(&none);
        posix_spawnattr_setsigdefault(&attr, &def);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
        const std::string cwd = std::filesystem::current_path().string();
        std::filesystem::current_path(dir);
        const int rc = posix_spawn(&pid_, kCli.c_str(), &fa, &attr, cargv.data(), environ);
        std::filesystem::current_path(cwd);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        if (rc != 0) pid_ = -1;
    }
    ~Child() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    bool started() const { return pid_ > 0; }
    long pid() const { return pid_; }
    void signal(int sig) const { ::kill(pid_, sig); }
    // The exit status (128 + signal when killed by one), or -1 after `seconds`.
    int wait(double seconds) {
        const auto end = Clock::now() + std::chrono::duration<double>(seconds);
        while (Clock::now() < end) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return -1;
    }
    std::string err() const { return test::read_text(err_); }

private:
    pid_t pid_ = -1;
    std::string out_, err_;
};

// Waits up to `seconds` for `ready`; false when it never came.
template <class F>
bool wait_for(double seconds, F ready) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

class Limits : public Cli {
public:
    // `tilelife ARGS` under `ulimit -v KIB` (a subshell, as a batch system would set it).
    CommandResult tl_ulimit(long kib, const std::string& args) const {
        return test::run_command("cd " + shell_quote(dir.path()) + " && (ulimit -v " + std::to_string(kib) + " && " +
                                 shell_quote(kCli) + " " + args + ")");
    }
    test::TempDir logs;
};

// ---------------------------------------------------------------------------------------------
// The memory budget comes from the limits the process runs under

TEST_F(Limits, RunsUnderAnAddressSpaceLimit) {
    const std::string gun = shell_quote(pattern_path("gosper-glider-gun.rle"));
    // The default engine reserved four times a budget of half the RAM: "out of memory" at once.
    for (long kib : {16000000L, 4000000L}) {
        SCOPED_TRACE("ulimit -v " + std::to_string(kib));
        CommandResult r = tl_ulimit(kib, "run " + gun + " -g 1000 --json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto js = parse_json(r.out, "run");
        ASSERT_TRUE(js) << r.out;
        EXPECT_EQ((*js)["population"], 213);  // the gun at generation 1000 (30 gliders and the gun)
        // The budget is half of what the process may use: the limit, unless RAM or a cgroup is less,
        // less the stacks of a thread a core but one (--threads 0: an engine may start them).
        MemoryLimits m = memory_limits();
        m.address_space = std::int64_t{kib} << 10;
        const std::int64_t budget = m.budget(0);
        if (usable_cores() > 1 && m.available() == std::int64_t{kib} << 10) {
            EXPECT_LT(budget, m.available() / 2);
        }
        EXPECT_NE(r.out.find("memory_budget_bytes\":" + std::to_string(budget)), std::string::npos)
            << "the budget is not " << budget << ": " << r.out;
        // An unbounded random soup (cpu:auto) too.
        r = tl_ulimit(kib, "run random:300x300:0.5:7 -g 300 -q");
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
#ifdef TILELIFE_TEST_HAVE_VIEWER
    // The viewer's headless mode takes the same budget ("out of memory" before).
    const CommandResult v = tl_ulimit(4000000, "view " + gun + " --frames 3");
    EXPECT_EQ(v.exit_code, 0) << v.err;
    EXPECT_NE((v.out + v.err).find("frames 3  generation 3  population 48"), std::string::npos) << v.out << v.err;
#endif
    // A budget given above what the limit allows fails cleanly, naming the flag.
    const CommandResult r = tl_ulimit(1000000, "run " + gun + " -g 1000 --max-memory 4G");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("out of memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--max-memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ulimit -v"), std::string::npos) << r.err;
}

// HashLife's helper threads under an address-space limit: their stacks (8 MiB each) took the
// address space the store's budget counted on, and 16 threads under 195 MiB stopped "out of memory"
// where one thread ran. The budget now leaves the threads' stacks room (up to half of the limit) and
// cpu:hashlife starts no more threads than that room holds.
TEST_F(Limits, HashlifeThreadsFitAnAddressSpaceLimit) {
    const std::string galaxy = "/usr/share/golly/Patterns/HashLife/metapixel-galaxy.mc.gz";
    ASSERT_TRUE(std::filesystem::exists(galaxy)) << "make deps installs golly";
    const std::string run = "run " + shell_quote(galaxy) + " -g 65536 --kernel cpu:hashlife --json ";
    CommandResult one = tl_ulimit(200000, run + "--threads 1 -o one.mc");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    for (int threads : {16, 1000}) {
        SCOPED_TRACE(threads);
        std::string out = "t";  // appended, not "t" + ...: GCC 12 warns of a bogus overlap there
        out += std::to_string(threads) + ".mc";
        const CommandResult r = tl_ulimit(200000, run + "--threads " + std::to_string(threads) + " -o " + out);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto js = parse_json(r.out, "run");
        ASSERT_TRUE(js) << r.out;
        const auto& engine = (*js)["engine"];
        const int used = engine["threads"].get<int>();
        EXPECT_GT(used, 1);
        EXPECT_LT(used, 16);  // 8 MiB stacks in half of 195 MiB: 13 threads
        EXPECT_GT(engine["properties"]["parallel_steps"].get<std::int64_t>(), 0);
        EXPECT_GT(engine["properties"]["collections"].get<std::int64_t>(), 0);  // the store filled its budget
        EXPECT_EQ(test::read_text(dir.path() + "/" + out), test::read_text(dir.path() + "/one.mc"));
    }
}

// glibc's malloc arenas: malloc_info() lists one <heap> for each.
int malloc_arenas() {
    char* text = nullptr;
    std::size_t size = 0;
    FILE* f = ::open_memstream(&text, &size);
    if (!f) return -1;
    ::malloc_info(0, f);
    std::fclose(f);
    int arenas = 0;
    for (const char* p = text; (p = std::strstr(p, "<heap nr=")) != nullptr; ++p) ++arenas;
    std::free(text);
    return arenas;
}

// In a child process, under `ulimit -v` of `kib` (0: none), share_malloc_arena_...() and then
// four threads that allocate at once: the exit code is the arenas added (at most 100). (New threads
// take the arenas of joined ones first: cli_tests starts no threads in its own process.)
int arenas_four_threads_add(long kib) {
    const pid_t pid = ::fork();
    if (pid != 0) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (kib > 0) {
        rlimit r{};
        ::getrlimit(RLIMIT_AS, &r);
        r.rlim_cur = static_cast<rlim_t>(kib) << 10;
        if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(101);
    }
    const int before = malloc_arenas();
    share_malloc_arena_under_address_space_limit();
    std::atomic<int> allocated{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&allocated] {
            void* volatile p = std::malloc(1000);
            ++allocated;
            while (allocated < 4) std::this_thread::yield();  // all four hold a block at once
            std::free(p);
        });
    for (auto& t : threads) t.join();
    ::_exit(std::min(100, std::max(0, malloc_arenas() - before)));
}

// Under an address-space limit, threads allocate from malloc's one arena: an arena of each thread's
// own reserves 64 MiB of address space that no budget counts, and HashLife's three helpers on
// Golly's demonoid under `ulimit -v 400000` took the room the store's budget counted on ("out of
// memory" where one thread ran, in some runs: when the arenas are taken decides). Without a
// limit, arenas are glibc's choice, and four threads here add some (the check that this test can
// tell).
TEST_F(Limits, ThreadsShareOneMallocArenaUnderAnAddressSpaceLimit) {
    EXPECT_GT(arenas_four_threads_add(0), 0);
    EXPECT_EQ(arenas_four_threads_add(4L << 20), 0);
}

// A store of 4 x 2^17 squares or more collects on a team of threads (docs/hashlife.md, "Threads"),
// but not under an address-space limit: each team thread that allocates takes a malloc arena, 64
// MiB of address space the budget does not count, and Golly's caterpillar.mc.gz on 4 threads under
// `ulimit -v 700000` ran out of memory where the serial collector ran. The limit here, 400000, is
// also where the helpers' own malloc arenas ran it out of memory in some runs (timing decides; the
// test of that is ThreadsShareOneMallocArena... above).
TEST_F(Limits, HashlifeCollectsOnOneThreadUnderAnAddressSpaceLimit) {
    const std::string demonoid = "/usr/share/golly/Patterns/HashLife/demonoid-c512-hashlife-friendly.mc.gz";
    ASSERT_TRUE(std::filesystem::exists(demonoid)) << "make deps installs golly";
    const std::string run = "run " + shell_quote(demonoid) + " -g 65536 --kernel cpu:hashlife --threads 4 --json ";
    const CommandResult free =
        test::run_command("cd " + shell_quote(dir.path()) + " && " + shell_quote(kCli) + " " + run + "-o free.mc");
    ASSERT_EQ(free.exit_code, 0) << free.err;
    const CommandResult limited = tl_ulimit(400000, run + "-o limited.mc");
    ASSERT_EQ(limited.exit_code, 0) << limited.err;
    for (const CommandResult* r : {&free, &limited}) {
        auto js = parse_json(r->out, "run");
        ASSERT_TRUE(js) << r->out;
        const auto& engine = (*js)["engine"];
        ASSERT_EQ(engine["threads"].get<int>(), 4);
        EXPECT_EQ(engine["properties"]["collector_threads"].get<std::int64_t>(), r == &free ? 4 : 1);
    }
    EXPECT_EQ(test::read_text(dir.path() + "/free.mc"), test::read_text(dir.path() + "/limited.mc"));
}

// ---------------------------------------------------------------------------------------------
// SIGTERM and SIGHUP stop a run as Ctrl+C does

TEST_F(Limits, StopSignalsCheckpointAndLeaveNoTemporaryFiles) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        SCOPED_TRACE(std::string("signal ") + strsignal(sig));
        test::TempDir run;
        // A torus on cpu:reference: slow enough to be caught mid-run; every output open.
        std::vector<std::string> args{"run", "random:400x400:0.4:3", "--topology", "torus", "--kernel", "reference",
                                      "--gens", "1e12", "--checkpoint", "ck.rle", "--checkpoint-every", "20",
                                      "-o", "out.rle"};
#ifdef TILELIFE_TEST_HAVE_GIF
        for (const char* a : {"--gif", "run.gif", "--gif-every", "1e9"}) args.push_back(a);
#endif
        Child child(run.path(), args, logs / "child");
        ASSERT_TRUE(child.started());
        // Stepping once the first checkpoint is there.
        ASSERT_TRUE(wait_for(30, [&] { return test::file_exists(run / "ck.rle"); })) << child.err();
        child.signal(sig);
        ASSERT_EQ(child.wait(30), 128 + sig) << child.err();
        const std::string err = child.err();
        const auto at = err.find("interrupted at generation ");
        ASSERT_NE(at, std::string::npos) << err;
        const std::int64_t stopped = std::stoll(err.substr(at + 26));
        EXPECT_EQ(run.files(), std::vector<std::string>{"ck.rle"}) << "no temporary file or output may be left";
        // The checkpoint is the board at the generation the run stopped at.
        const Pattern ck = read_pattern(run / "ck.rle");
        EXPECT_EQ(ck.generation, stopped);
        ASSERT_EQ(tl("run random:400x400:0.4:3 --topology torus -q --gens " + std::to_string(stopped) + " -o ref.rle")
                      .exit_code,
                  0);
        EXPECT_CELLS(read_pattern(path("ref.rle")).cells, ck.cells);
    }
}

// SIGKILL (the OOM killer, a scheduler's last word) cannot be caught: a run's final outputs are
// therefore only checked when the run starts and created when they are written, so a run killed
// outright mid-run leaves its last complete checkpoint and nothing else.
TEST_F(Limits, KilledOutrightMidRunLeavesOnlyTheLastCheckpoint) {
    test::TempDir run;
    Child child(run.path(),
                {"run", "random:400x400:0.4:3", "--topology", "torus", "--kernel", "reference", "--gens", "1e12",
                 "--checkpoint", "ck.rle", "--checkpoint-every", "20", "-o", "out.rle.gz"},
                logs / "child");
    ASSERT_TRUE(child.started());
    ASSERT_TRUE(wait_for(30, [&] { return test::file_exists(run / "ck.rle"); })) << child.err();
    child.signal(SIGKILL);
    child.wait(30);
    EXPECT_EQ(run.files(), std::vector<std::string>{"ck.rle"}) << "no temporary file or output may be left";
    EXPECT_GT(read_pattern(run / "ck.rle").generation, 0);
}

TEST_F(Limits, SignalWhileWritingAnOutputRemovesItsTemporaryFileAtOnce) {
    for (int sig : {SIGTERM, SIGINT}) {
        SCOPED_TRACE(std::string("signal ") + strsignal(sig));
        test::TempDir run;
        // A board whose compressed text takes a while to write.
        Child child(run.path(), {"run", "random:5000x5000:0.5:1", "--topology", "torus", "--gens", "1", "-o", "big.cells.gz"},
                    logs / "child");
        ASSERT_TRUE(child.started());
        // Writing once the temporary file has bytes.
        const bool writing = wait_for(60, [&] {
            for (std::int64_t size : test::files_being_written(child.pid(), run.path()))
                if (size > 0) return true;
            return false;
        });
        ASSERT_TRUE(writing) << "never saw the output being written: " << child.err();
        const auto t0 = Clock::now();
        child.signal(sig);
        EXPECT_EQ(child.wait(30), 128 + sig) << child.err();
        EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 2.0) << "it finished writing first";
        EXPECT_EQ(run.files(), std::vector<std::string>{}) << "a temporary file (or the output) was left";
        EXPECT_NE(child.err().find("interrupted"), std::string::npos) << child.err();
    }
}

// convert, too: its output is open (a temporary file) while it waits for its input, here a named
// pipe nobody writes; a stop signal then must leave nothing behind.
TEST_F(Limits, StopSignalsDuringConvertLeaveNoTemporaryFiles) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        SCOPED_TRACE(std::string("signal ") + strsignal(sig));
        test::TempDir run;
        ASSERT_EQ(::mkfifo((run / "in.rle").c_str(), 0644), 0);
        Child child(run.path(), {"convert", "in.rle", "out.mc.gz"}, logs / "child");
        ASSERT_TRUE(child.started());
        ASSERT_TRUE(wait_for(30, [&] { return !test::files_being_written(child.pid(), run.path()).empty(); }))
            << "no temporary output: " << child.err();
        child.signal(sig);
        EXPECT_EQ(child.wait(30), 128 + sig) << child.err();
        EXPECT_EQ(run.files(), std::vector<std::string>{"in.rle"}) << "a temporary file (or the output) was left";
        EXPECT_NE(child.err().find("interrupted"), std::string::npos) << child.err();
    }
}

// ---------------------------------------------------------------------------------------------
// Checkpoints in macrocell: HashLife-scale runs

TEST_F(Limits, MacrocellCheckpointsOfAHashlifeScaleRunResumeToTheSameResult) {
    const std::string gun = shell_quote(pattern_path("gosper-glider-gun.rle"));
    // The whole run, and the same run stopped at 2^38 with a checkpoint every 2^36.
    CommandResult r = tl("run " + gun + " --gens 2^40 -q -o whole.mc");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = tl("run " + gun + " --gens 2^38 --checkpoint-every 2^36 --checkpoint st.mc -q");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string ck = test::read_text(path("st.mc"));
    EXPECT_EQ(ck.rfind("[M2]", 0), 0u) << ck.substr(0, 200);
    EXPECT_NE(ck.find("\n#C tilelife-checkpoint start=0 gens=274877906944\n"), std::string::npos) << ck.substr(0, 300);
    EXPECT_NE(ck.find("\n#G 274877906944\n"), std::string::npos) << ck.substr(0, 300);
    // A checkpoint is what -o writes at its generation (one writer, the board layer's), plus its line.
    ASSERT_EQ(tl("run " + gun + " --gens 2^38 -q -o at38.mc").exit_code, 0);
    const std::string tag = "#C tilelife-checkpoint start=0 gens=274877906944\n";
    std::string ck_plain = ck;
    if (const auto at = ck_plain.find(tag); at != std::string::npos) ck_plain.erase(at, tag.size());
    const std::string at38 = test::read_text(path("at38.mc"));
    EXPECT_TRUE(ck_plain == at38) << "checkpoint:\n" << ck_plain.substr(0, 300) << "\n-o:\n" << at38.substr(0, 300);
    // Resumed with the whole run's length: the same final board, byte for byte.
    r = tl("run --resume st.mc --gens 2^40 -o resumed.mc --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["generation"], std::int64_t{1} << 40);
    EXPECT_EQ((*js)["generations_run"], (std::int64_t{1} << 40) - (std::int64_t{1} << 38));
    EXPECT_EQ(test::read_text(path("resumed.mc")), test::read_text(path("whole.mc")));
    // Gzipped and RLE checkpoints still resume; a bounded board's checkpoint is RLE only.
    ASSERT_EQ(tl("run " + gun + " --gens 2^38 --checkpoint-every 2^36 --checkpoint st.mc.gz -q").exit_code, 0);
    ASSERT_EQ(tl("run --resume st.mc.gz --gens 2^40 -o resumed2.mc -q").exit_code, 0);
    EXPECT_EQ(test::read_text(path("resumed2.mc")), test::read_text(path("whole.mc")));
    ASSERT_EQ(tl("run " + gun + " --gens 300 --checkpoint-every 100 --checkpoint st.rle -q").exit_code, 0);
    ASSERT_EQ(tl("run --resume st.rle --gens 1000 -o resumed3.rle -q").exit_code, 0);
    ASSERT_EQ(tl("run " + gun + " --gens 1000 -o whole.rle -q").exit_code, 0);
    EXPECT_EQ(test::read_text(path("resumed3.rle")), test::read_text(path("whole.rle")));
    r = tl("run " + gun + " --topology torus --size 100x100 --checkpoint t.mc -q");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("t.mc: a torus board is checkpointed as RLE"), std::string::npos) << r.err;
    EXPECT_FALSE(test::file_exists(path("t.mc")));
}

// ---------------------------------------------------------------------------------------------
// Memory estimates of huge boards say their true size

TEST_F(Limits, MemoryEstimateOfAHugeBoardIsItsTrueSize) {
    const CommandResult r =
        tl("run " + shell_quote(pattern_path("glider.rle")) + " --topology torus --size 3000000x3000000 --max-memory 8G");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    // Two buffers of 3000000 x 3000000 bits: 2.25e12 bytes, 2.05 TiB (was "8796093022207 MiB", saturated).
    EXPECT_NE(r.err.find("needs about 2.1 TiB, over the memory budget of 8.0 GiB (--max-memory)"), std::string::npos)
        << r.err;
}

// ---------------------------------------------------------------------------------------------
// --log-every counts absolute generations after --resume and from a file's Gen=N

TEST_F(Limits, LogEveryCountsAbsoluteGenerations) {
    const std::string in = pattern_path("r-pentomino.rle");
    // A checkpoint at generation 300 of a 400-generation run.
    ASSERT_EQ(tl("run " + shell_quote(in) + " --gens 300 -q -o at300.rle").exit_code, 0);
    const Pattern at300 = read_pattern(path("at300.rle"));
    PatternMeta meta = meta_of(at300);
    meta.comments.insert(meta.comments.begin(), "tilelife-checkpoint start=0 gens=400");
    write("resume.rle", format_rle(at300.cells, meta));
    auto e = create_engine("cpu:reference", test::spec_of(0, 0, Topology::unbounded));
    e->set_cells(read_pattern(in).cells);
    std::map<std::int64_t, std::int64_t> population;  // generation -> population
    for (std::int64_t g = 0; g <= 400; g += 10, e->step(10)) population[g] = e->population();

    CommandResult r = tl("run --resume resume.rle --log-every 30 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    const std::vector<std::int64_t> expected{300, 330, 360, 390};
    ASSERT_EQ((*js)["log"].size(), expected.size()) << (*js)["log"];
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ((*js)["log"][i]["generation"], expected[i]);
        EXPECT_EQ((*js)["log"][i]["population"], population[expected[i]]) << "generation " << expected[i];
    }
    r = tl("run --resume resume.rle --log-every 50 -q");
    EXPECT_EQ(r.out, "generation 300  population " + std::to_string(population[300]) + "\ngeneration 350  population " +
                         std::to_string(population[350]) + "\ngeneration 400  population " +
                         std::to_string(population[400]) + "\n");
    // A file at Gen=290 (the same cells as at 300 of the checkpoint): its own generations.
    PatternMeta g290 = meta_of(at300);
    g290.generation = 290;
    write("g290.rle", format_rle(at300.cells, g290));
    r = tl("run g290.rle --gens 20 --log-every 10 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    ASSERT_EQ((*js)["log"].size(), 3u) << (*js)["log"];
    for (std::int64_t i = 0; i < 3; ++i) {
        EXPECT_EQ((*js)["log"][i]["generation"], 290 + 10 * i);
        EXPECT_EQ((*js)["log"][i]["population"], population[300 + 10 * i]);
    }
    r = tl("run g290.rle --gens 20 --log-every 20 -q");
    EXPECT_EQ(r.out, "generation 290  population " + std::to_string(population[300]) + "\ngeneration 310  population " +
                         std::to_string(population[320]) + "\n");
}

}  // namespace
}  // namespace tilelife
