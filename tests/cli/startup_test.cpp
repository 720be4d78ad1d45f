// Issue 12: a `tilelife run` process starts without the viewer's and images' libraries and without
// Open MPI; those come with the modules (src/cli/modules.hpp), loaded only by the commands that
// need them. The dynamic loader itself says what a process loaded (LD_DEBUG=files lists every
// object it maps, at start-up and by dlopen).
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "cli/cli_support.hpp"

namespace tilelife {
namespace {

// What the big libraries' file names look like: SDL2 and SDL2_ttf (and what they bring: X11,
// PulseAudio, ...), libpng, giflib, Open MPI and hwloc, and the modules themselves.
const std::regex kHeavy(R"(SDL|png|gif|X11|pulse|mpi|open-pal|open-rte|hwloc|tilelife-(image|viewer|mpi)\.so)");

struct Loaded {
    CommandResult result;
    std::set<std::string> objects;  // file names (no directories) the loader mapped
    bool has(const std::string& part) const {
        for (const std::string& o : objects)
            if (o.find(part) != std::string::npos) return true;
        return false;
    }
    std::string heavy() const {
        std::string out;
        for (const std::string& o : objects)
            if (std::regex_search(o, kHeavy)) out += o + " ";
        return out;
    }
};

// Runs `env ENV tilelife ARGS` in `dir` with LD_DEBUG=files; the loader's lines go to a file of their own.
Loaded loaded_by(const std::string& cli, const std::string& dir, const std::string& args, const std::string& env = "") {
    const std::string log = dir + "/ld-debug";
    Loaded l;
    l.result = test::run_command("cd " + shell_quote(dir) + " && env " + env + " LD_DEBUG=files LD_DEBUG_OUTPUT=" +
                                 shell_quote(log) + " " + shell_quote(cli) + " " + args);
    // glibc writes LOG.PID, one file per process.
    const std::regex file_line(R"(file=(\S+))");
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("ld-debug.", 0) != 0) continue;
        const std::string text = test::read_text(entry.path().string());
        for (std::sregex_iterator m(text.begin(), text.end(), file_line), end; m != end; ++m)
            l.objects.insert(std::filesystem::path((*m)[1].str()).filename().string());
        std::filesystem::remove(entry.path());
    }
    return l;
}

// `env ENV CLI ARGS` in `dir`.
CommandResult run_in(const std::string& dir, const std::string& cli, const std::string& args, const std::string& env = "") {
    return test::run_command("cd " + shell_quote(dir) + " && env " + env + " " + shell_quote(cli) + " " + args);
}

TEST_F(Cli, RunStartsWithoutViewerImageOrMpiLibraries) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    for (const std::string& args : {"run " + glider + " --gens 1 -q", "run " + glider + " --gens 4 -o out.rle --json",
                                   "convert " + glider + " out.cells", "info " + glider, std::string("engines")}) {
        const Loaded l = loaded_by(kCli, dir.path(), args);
        EXPECT_EQ(l.result.exit_code, 0) << args << ": " << l.result.err;
        // The loader's log is really read: the C library is always in it.
        EXPECT_TRUE(l.has("libc.so")) << args << ": no loader log read";
        EXPECT_EQ(l.heavy(), "") << args;
        // The C++ library is linked into the executable (issue 23: the loader's symbol lookups and
        // relocations of libstdc++.so were half of an empty process's start-up). The unwinder,
        // libgcc_s, stays shared: the modules' exceptions must meet the same one.
        // (Under AddressSanitizer its runtime, libasan, loads libstdc++.so itself; in a SYCL build,
        // the SYCL runtime does.)
#if !defined(__SANITIZE_ADDRESS__) && !defined(TILELIFE_TEST_HAVE_SYCL)
        EXPECT_FALSE(l.has("libstdc++")) << args;
#endif
        // libgomp and zlib are linked in from their archives where the build found them (issue 23:
        // with PIE off, 8% off a small job's process).
#ifdef TILELIFE_TEST_STATIC_GOMP
        EXPECT_FALSE(l.has("libgomp")) << args;
#endif
#ifdef TILELIFE_TEST_STATIC_ZLIB
        EXPECT_FALSE(l.has("libz.so")) << args;
#endif
        // ... and libm (0.27 ms a process on dev-epyc, docs/benchmarks.md), which libasan and the
        // SYCL runtime load themselves, as they load libstdc++.so.
#if defined(TILELIFE_TEST_STATIC_LIBM) && !defined(__SANITIZE_ADDRESS__) && !defined(TILELIFE_TEST_HAVE_SYCL)
        EXPECT_FALSE(l.has("libm.so")) << args;
#endif
    }
}

TEST_F(Cli, ImageOutputLoadsTheImageModuleOnly) {
#ifndef TILELIFE_TEST_HAVE_PNG
    GTEST_SKIP() << "libpng not found: PNG output is not built";
#else
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    const Loaded l = loaded_by(kCli, dir.path(), "run " + glider + " --gens 4 -o out.png -q");
    EXPECT_EQ(l.result.exit_code, 0) << l.result.err;
    EXPECT_TRUE(test::file_exists(path("out.png")));
    EXPECT_TRUE(l.has("tilelife-image.so")) << l.heavy();
    EXPECT_TRUE(l.has("libpng")) << l.heavy();
    EXPECT_FALSE(l.has("SDL")) << l.heavy();
    EXPECT_FALSE(l.has("mpi")) << l.heavy();
#endif
#ifdef TILELIFE_TEST_HAVE_GIF
    const Loaded g = loaded_by(kCli, dir.path(), "run " + glider + " --gens 4 --gif out.gif -q");
    EXPECT_EQ(g.result.exit_code, 0) << g.result.err;
    EXPECT_TRUE(g.has("libgif")) << g.heavy();
    EXPECT_FALSE(g.has("SDL")) << g.heavy();
#endif
}

TEST_F(Cli, ViewLoadsTheViewerModule) {
#ifndef TILELIFE_TEST_HAVE_VIEWER
    GTEST_SKIP() << "SDL2 not found: the viewer is not built";
#else
    const Loaded l = loaded_by(kCli, dir.path(), "view " + shell_quote(pattern_path("glider.rle")) + " --frames 4 --screenshot shot.png",
                               "-u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=offscreen");
    EXPECT_EQ(l.result.exit_code, 0) << l.result.err;
    EXPECT_NE(l.result.out.find("generation 4"), std::string::npos) << l.result.out;
    EXPECT_TRUE(test::file_exists(path("shot.png")));
    EXPECT_TRUE(l.has("tilelife-viewer.so")) << l.heavy();
    EXPECT_TRUE(l.has("libSDL2")) << l.heavy();
    EXPECT_FALSE(l.has("mpi")) << l.heavy();
#endif
}

// The executable alone (copied without its modules): everything but images, the viewer and mpirun
// works; those fail with one line naming the module (exit 1), before any work.
TEST_F(Cli, AMissingModuleIsOneLineNamingIt) {
    const std::string alone = path("tilelife");
    std::filesystem::copy_file(kCli, alone);
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    CommandResult r = run_in(dir.path(), alone, "run " + glider + " --gens 4 -o out.rle -q");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto one_line_naming = [](const CommandResult& c, const std::string& module) {
        EXPECT_EQ(c.exit_code, 1) << c.err;
        EXPECT_NE(c.err.find(module), std::string::npos) << c.err;
        EXPECT_EQ(c.err.rfind("tilelife: ", 0), 0u) << c.err;
        EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
    };
#ifdef TILELIFE_TEST_HAVE_PNG
    r = run_in(dir.path(), alone, "run " + glider + " --gens 4 -o out.png -q");
    one_line_naming(r, "tilelife-image.so");
    EXPECT_FALSE(test::file_exists(path("out.png")));
    one_line_naming(run_in(dir.path(), alone, "convert " + glider + " out.png"), "tilelife-image.so");
#endif
#ifdef TILELIFE_TEST_HAVE_GIF
    one_line_naming(run_in(dir.path(), alone, "run " + glider + " --gens 4 --gif out.gif -q"), "tilelife-image.so");
#endif
#ifdef TILELIFE_TEST_HAVE_VIEWER
    one_line_naming(run_in(dir.path(), alone, "view " + glider + " --frames 1"), "tilelife-viewer.so");
#endif
#ifdef TILELIFE_TEST_HAVE_MPI
    // As mpirun's ranks see it (Open MPI sets OMPI_COMM_WORLD_SIZE): the MPI module is needed.
    one_line_naming(run_in(dir.path(), alone, "run " + glider + " --gens 4 -q", "OMPI_COMM_WORLD_SIZE=1"), "tilelife-mpi.so");
#endif
}


// The executable's code is mapped whole before main (src/cli/startup.cpp), in one madvise instead
// of a page fault for each window a run touches (issue 23). A process waiting for its pattern on
// stdin has its constructors behind it: its code mapping must be resident in full (without the
// advice, a run maps 2.1 of its 2.7 MB by faults), and so must the heap's first piece, glibc's
// 128 KiB pad and more (without it, 68 KiB of the heap were resident at that point).
TEST_F(Cli, TheCodeAndTheHeapsFirstPieceAreMappedBeforeMain) {
    {
        // The kernel must know the advice (Linux 5.14); otherwise the executable faults as before.
        const auto page = reinterpret_cast<std::uintptr_t>(&pattern_path) & ~std::uintptr_t{4095};
        if (::madvise(reinterpret_cast<void*>(page), 4096, MADV_POPULATE_READ) != 0 && errno == EINVAL)
            GTEST_SKIP() << "this kernel has no MADV_POPULATE_READ (Linux < 5.14)";
    }
    int in[2];
    ASSERT_EQ(::pipe(in), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    std::string a0 = kCli, a1 = "run", a2 = "-", a3 = "--gens", a4 = "1", a5 = "-q";
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), a5.data(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, kCli.c_str(), &fa, nullptr, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    const std::string exe = std::filesystem::canonical(kCli).string();
    const auto ends_with = [](const std::string& line, const std::string& tail) {
        return line.size() >= tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
    };
    // A mapping's Size and Rss (KiB) from /proc/PID/smaps, the mapping picked by its header line;
    // {0, 0} until it is mapped.
    const auto mapping = [&](const auto& picks) {
        std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
        std::string line;
        bool in = false;
        std::pair<long, long> sr{0, 0};
        while (std::getline(smaps, line)) {
            if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < line.find(' ')) {
                in = picks(line);
            } else if (in && line.rfind("Size:", 0) == 0) {
                sr.first = std::stol(line.substr(5));
            } else if (in && line.rfind("Rss:", 0) == 0) {
                sr.second = std::stol(line.substr(4));
            }
        }
        return sr;
    };
    const auto code = [&] {
        return mapping([&](const std::string& line) {
            return line.find(" r-xp ") != std::string::npos && ends_with(line, exe);
        });
    };
    const auto heap_of = [&] { return mapping([&](const std::string& line) { return ends_with(line, "[heap]"); }); };
#if !defined(__SANITIZE_ADDRESS__)
    constexpr long kHeapKiB = 128;
#else
    constexpr long kHeapKiB = 0;  // AddressSanitizer's allocator has no brk heap to fill
#endif
    // It blocks reading stdin, and stays so: wait for the whole code mapping and then the heap
    // (the constructor fills them in that order), at most 10 s.
    std::pair<long, long> sr{0, 0}, heap{0, 0};
    for (int i = 0; i < 200; ++i) {
        sr = code();
        heap = heap_of();
        if (sr.first > 0 && sr.second == sr.first && heap.second >= kHeapKiB) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::close(in[1]);  // end of input: the run stops (an empty pattern)
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_GT(sr.first, 0) << "no code mapping of " << exe << " found";
    EXPECT_EQ(sr.second, sr.first) << "resident KiB of the code mapping against its size";
    EXPECT_GE(heap.second, kHeapKiB) << "resident KiB of the heap (" << heap.first << " KiB mapped)";
}

}  // namespace
}  // namespace tilelife
