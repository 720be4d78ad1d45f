// `tilelife run` at the scale users work at: hundreds of GIF frames and checkpoints, long runs,
// terminals, outputs checked before the work.
#include <gtest/gtest.h>

#ifdef TILELIFE_TEST_HAVE_GIF
#include <gif_lib.h>
#endif

#include <algorithm>
#include <cmath>
#include <thread>

#include "cli/cli_support.hpp"
#include "cli/terminal.hpp"
#include "tilelife/board.hpp"

namespace tilelife {
namespace {

// Frames of a GIF file, read back with giflib.
[[maybe_unused]] int gif_frames(const std::string& path) {
#ifdef TILELIFE_TEST_HAVE_GIF
    int err = 0;
    GifFileType* gif = DGifOpenFileName(path.c_str(), &err);
    if (!gif) return -1;
    const int frames = DGifSlurp(gif) == GIF_OK ? gif->ImageCount : -1;
    DGifCloseFile(gif, &err);
    return frames;
#else
    (void)path;
    return -1;
#endif
}

TEST_F(Cli, HundredsOfGifFramesFinish) {
#ifndef TILELIFE_TEST_HAVE_GIF
    GTEST_SKIP() << "giflib not found: GIF output is not built";
#else
    // 64 frames or more used to double the step chunk on every frame until it overflowed.
    const CommandResult r = tl_within(120, "run " + shell_quote(pattern_path("gosper-glider-gun.rle")) +
                                                  " --gens 300 --gif g.gif --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(gif_frames(path("g.gif")), 301);
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["generation"], 300);
    EXPECT_EQ((*js)["population"], 86);
    EXPECT_EQ((*js)["gif"]["frames"], 301);
#endif
}

TEST_F(Cli, HundredsOfCheckpointsFinish) {
    const CommandResult r = tl_within(120, "run " + shell_quote(pattern_path("gosper-glider-gun.rle")) +
                                                  " --gens 650 --checkpoint c.rle --every 2 -o out.rle --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Pattern ck = read_pattern(path("c.rle"));
    EXPECT_EQ(ck.generation, 650);
    const Pattern out = read_pattern(path("out.rle"));
    EXPECT_EQ(out.generation, 650);
    EXPECT_CELLS(out.cells, ck.cells);
}

// ---------------------------------------------------------------------------------------------
// Terminals: the progress display never stays on screen and nothing is glued to it

// Generations of `job` that take about `seconds` here (measured, so the bar surely shows: it
// appears after one second).
std::int64_t gens_for_seconds(const Cli& cli, const std::string& job, double seconds) {
    const CommandResult r = cli.tl_within(120, "run " + job + " --gens 40 --json");
    const auto js = parse_json(r.out, "run");
    if (!js) return 0;
    const double per_gen = std::max(1e-6, (*js)["seconds"].get<double>() / 40);
    return static_cast<std::int64_t>(std::ceil(seconds / per_gen));
}

bool shows_progress(const std::vector<std::string>& screen) {
    for (const std::string& l : screen)
        if (l.find("gens/s") != std::string::npos || l.find("ETA") != std::string::npos) return true;
    return false;
}

const std::string kSlowJob = "random:600x600:0.4:3 --topology torus --kernel reference";

TEST_F(Cli, ProgressBarIsClearedBeforeTheReport) {
    // Long enough for the bar to show even when the calibration ran on a loaded machine and the run
    // does not (3 s was seen too short under load).
    const std::int64_t gens = gens_for_seconds(*this, kSlowJob, 6.0);
    ASSERT_GT(gens, 0);
    std::vector<std::string> argv{kCli, "run"};
    for (const char* a : {"random:600x600:0.4:3", "--topology", "torus", "--kernel", "reference", "--log-every"})
        argv.push_back(a);
    argv.push_back(std::to_string(std::max<std::int64_t>(1, gens / 3)));
    argv.push_back("--gens");
    argv.push_back(std::to_string(gens));
    const test::PtyResult r = test::run_on_pty(argv, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.bytes;
    EXPECT_NE(r.bytes.find("gens/s"), std::string::npos) << "no progress bar was shown: " << r.bytes;
    const auto screen = test::screen_lines(r.bytes);
    EXPECT_FALSE(shows_progress(screen)) << r.bytes;
    // Every report and log line starts a line of its own.
    int report_lines = 0, log_lines = 0;
    for (const std::string& l : screen) {
        for (const char* key : {"pattern  ", "engine  ", "generation  ", "population  ", "seconds  ", "cell-updates/s  "})
            report_lines += l.rfind(key, 0) == 0;
        log_lines += std::regex_match(l, std::regex("generation [0-9]+  population [0-9]+"));
    }
    EXPECT_EQ(report_lines, 6) << r.bytes;
    EXPECT_EQ(log_lines, 4) << r.bytes;
}

TEST_F(Cli, InterruptedRunSaysSoOnALineOfItsOwn) {
    std::vector<std::string> argv{kCli, "run", "random:600x600:0.4:3", "--topology", "torus", "--kernel", "reference",
                                  "--gens", "1e12", "--checkpoint", "ck.rle"};
    // Interrupted once the progress bar has been shown (after 1 s of running), not after a fixed
    // time: on a loaded machine 2.5 s were seen to pass before it.
    const test::PtyResult r = test::run_on_pty(argv, dir.path(), 1.5, 60, "gens/s");
    EXPECT_EQ(r.exit_code, 130) << r.bytes;
    EXPECT_NE(r.bytes.find("gens/s"), std::string::npos) << "no progress bar was shown: " << r.bytes;
    const auto screen = test::screen_lines(r.bytes);
    EXPECT_FALSE(shows_progress(screen)) << r.bytes;
    const auto line = std::find_if(screen.begin(), screen.end(),
                                   [](const std::string& l) { return l.rfind("tilelife: interrupted at generation ", 0) == 0; });
    EXPECT_NE(line, screen.end()) << r.bytes;
    EXPECT_GT(read_pattern(path("ck.rle")).generation, 0);
}

TEST_F(Cli, LongBenchShowsProgressAndClearsIt) {
    std::vector<std::string> argv{kCli, "bench", "--kernel", "reference,reference,reference", "--size", "700x700",
                                  "--gens", "3"};
    // Three engines of about a second each: the display appears after half a second.
    const std::int64_t gens = gens_for_seconds(*this, kSlowJob, 1.0);
    argv.back() = std::to_string(std::max<std::int64_t>(3, gens));
    const test::PtyResult r = test::run_on_pty(argv, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.bytes;
    EXPECT_NE(r.bytes.find("bench 2/3: cpu:reference"), std::string::npos) << r.bytes;
    const auto screen = test::screen_lines(r.bytes);
    for (const std::string& l : screen) EXPECT_FALSE(std::regex_search(l, std::regex("bench [0-9]+/[0-9]+"))) << l;
    EXPECT_NE(std::find_if(screen.begin(), screen.end(), [](const std::string& l) { return l.rfind("board 700x700", 0) == 0; }),
              screen.end())
        << r.bytes;
    EXPECT_EQ(std::count_if(screen.begin(), screen.end(),
                            [](const std::string& l) { return l.rfind("cpu:reference ", 0) == 0; }),
              3)
        << r.bytes;
}

// ---------------------------------------------------------------------------------------------
// Outputs are checked before any work: each of these would have run 10^12 generations first

TEST_F(Cli, OutputProblemsAreFoundBeforeTheRun) {
    std::filesystem::create_directory(path("a-directory"));
    struct Case {
        std::string output;
        int exit_code;
        std::string fragment;
    };
    const std::vector<Case> cases = {
        {"-o nodir/x.rle", 1, "nodir"},
        {"-o a-directory", 2, "a-directory: is a directory"},
        {"-o nodir/x.png", 1, "nodir"},
        {"--gif nodir/x.gif", 1, "nodir"},
        {"--checkpoint nodir/x.rle", 1, "nodir"},
        {"--checkpoint a-directory", 2, "is a directory"},
        {"-o x.lif", 2, "unsupported extension '.lif'"},
        {"-o ''", 2, "-o was given an empty file name"},
        {"--gif ''", 2, "--gif was given an empty file name"},
    };
    for (const Case& c : cases) {
        const CommandResult r = tl_within(30, "run " + shell_quote(pattern_path("glider.rle")) + " --gens 1e12 " + c.output);
        EXPECT_EQ(r.exit_code, c.exit_code) << c.output << ": " << r.err;
        EXPECT_NE(r.err.find(c.fragment), std::string::npos) << c.output << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(dir.files(), std::vector<std::string>{"a-directory"});
}

TEST_F(Cli, UnwritableDirectoryIsFoundBeforeTheRun) {
    // A read-only directory; root writes into those, but not into sysfs.
    std::string target = "ro/x.rle";
    if (::geteuid() == 0) {
        if (!std::filesystem::is_directory("/sys")) GTEST_SKIP() << "root, and no /sys to be refused by";
        target = "/sys/x.rle";
    } else {
        std::filesystem::create_directory(path("ro"));
        std::filesystem::permissions(path("ro"), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    }
    const CommandResult r = tl_within(30, "run " + shell_quote(pattern_path("glider.rle")) + " --gens 1e12 -o " + target);
    if (std::filesystem::exists(path("ro"))) std::filesystem::permissions(path("ro"), std::filesystem::perms::owner_all);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(target), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

// A HashLife run of the gun to 2^40 has 183251938004 live cells: listing them (16 bytes each) for a
// .cells file, a GIF frame or an image thrashed for minutes and died out of memory. Each is refused
// from the tree's counts (exit 2, one line, the real sizes), before anything is listed or written.
TEST_F(Cli, HugeResultsAreRefusedBeforeTheirCellsAreListed) {
    const std::string gun = shell_quote(pattern_path("gosper-glider-gun.rle"));
    for (const auto& [args, fragment] :
         {std::pair<std::string, std::string>{"-o gun.cells", "gun.cells: writing plaintext would list the 183251938004 live cells"},
          {"-o gun.cells.gz --max-memory 64G", "over the memory budget of 64.0 GiB; write .mc or .rle instead"},
          {"--gif g.gif --gif-every 2^40", "g.gif: after 1099511627776 generations this unbounded run has 183251938004 live cells"},
          {"-o big.png", "big.png: after 65458 of the 1099511627776 generations the live cells (with a one-cell margin) already span 16385x16371 cells"}}) {
        const CommandResult r = tl_within(60, "run " + gun + " --gens 2^40 " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
        EXPECT_NE(r.err.find(fragment), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(dir.files().empty()) << args;
    }
    // The same outputs of a smaller result are written.
    const CommandResult ok = tl_within(60, "run " + gun + " --gens 3000 -o gun.cells -q");
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(read_pattern(path("gun.cells")).cells.size(), 536u);
}

// Images of an unbounded pattern without --region keep a one-cell margin around the live cells:
// the GIF over every frame's cells, the PNG over the last one's.
TEST_F(Cli, ImagesOfUnboundedPatternsKeepAOneCellMargin) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    ASSERT_EQ(tl("run " + glider + " --gens 8 --scale 3 -o g.png -q").exit_code, 0);
    const std::string png = test::read_text(path("g.png"));
    ASSERT_GE(png.size(), 24u);
    const auto be32 = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(png[at])) << 24) | (std::uint32_t(std::uint8_t(png[at + 1])) << 16) |
               (std::uint32_t(std::uint8_t(png[at + 2])) << 8) | std::uint32_t(std::uint8_t(png[at + 3]));
    };
    EXPECT_EQ(be32(16), 15u);  // (3 + 2) cells of 3 pixels
    EXPECT_EQ(be32(20), 15u);
#ifdef TILELIFE_TEST_HAVE_GIF
    ASSERT_EQ(tl("run " + glider + " --gens 8 --gif g.gif -q").exit_code, 0);
    int err = 0;
    GifFileType* gif = DGifOpenFileName(path("g.gif").c_str(), &err);
    ASSERT_NE(gif, nullptr);
    // The glider moves 2 cells down and right in 8 generations: 5x5 cells, and the margin.
    EXPECT_EQ(gif->SWidth, 7);
    EXPECT_EQ(gif->SHeight, 7);
    DGifCloseFile(gif, &err);
#endif
}

TEST_F(Cli, TooLargeImageOfAnUnboundedPatternIsFoundEarly) {
    // Seeds (B2/S) spreads at the speed of light: at --scale 64 its image passes 16384 pixels after
    // about 128 generations, long before 10^12.
    write("seeds.rle", "x = 2, y = 2, rule = B2/S\n2o$bo!\n");
    for (const std::string& out : {std::string("--gens 1e12 -o s.png"), std::string("--gens 5000 --gif s.gif")}) {
        const CommandResult r = tl_within(60, "run seeds.rle --scale 64 " + out);
        EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
        EXPECT_NE(r.err.find("--region"), std::string::npos) << out << ": " << r.err;
    }
    // Too large from the start: refused before the first generation.
    write("wide.rle", "x = 300, y = 1\no298bo!\n");
    const CommandResult r = tl_within(60, "run wide.rle --gens 1e12 --scale 64 -o w.png");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("w.png"), std::string::npos) << r.err;
    // A pattern that stays small runs to the end and writes its image.
    const CommandResult ok = tl_within(60, "run " + shell_quote(pattern_path("pulsar.rle")) + " --gens 3000 --scale 64 -o p.png");
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(dir.files(), (std::vector<std::string>{"p.png", "seeds.rle", "wide.rle"}));
}

// ---------------------------------------------------------------------------------------------
// The memory budget prices what each engine allocates (not 2 bytes a cell)

TEST_F(Cli, MemoryBudgetCountsWhatTheEngineNeeds) {
    register_builtin_engines();
    if (!engine_exists("cpu:bitpacked")) GTEST_SKIP() << "no cpu:bitpacked in this build";
    const BoardSpec spec = test::spec_of(6000, 5000, Topology::torus);
    const std::int64_t need = engine_host_bytes("cpu:bitpacked", spec);
    const std::int64_t budget = need + (std::int64_t{1} << 20);
    ASSERT_GT(2 * spec.width * spec.height, budget) << "2 bytes a cell would refuse this board";
    const std::string job = "run " + shell_quote(pattern_path("glider.rle")) + " --topology torus --size 6000x5000 --gens 8 "
                            "--kernel bitpacked --json --max-memory ";
    const CommandResult r = tl(job + std::to_string(budget));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse_json(r.out, "run").value_or(nlohmann::json::object())["population"], 5) << r.out;
    // Just below what it needs: refused before anything is allocated, naming the flag.
    const CommandResult low = tl(job + std::to_string(need - 1));
    EXPECT_EQ(low.exit_code, 2) << low.err;
    EXPECT_NE(low.err.find("memory budget"), std::string::npos) << low.err;
    EXPECT_NE(low.err.find("--max-memory"), std::string::npos) << low.err;
}

TEST_F(Cli, UnboundedBitpackedGrowsPastWhatTwoBytesACellAllowed) {
    register_builtin_engines();
    if (!engine_exists("cpu:bitpacked")) GTEST_SKIP() << "no cpu:bitpacked in this build";
    // Two gliders flying apart: after 16000 generations their board is over 8000 cells a side,
    // 128 MB at 2 bytes a cell, about 8 MB bit-packed.
    write("apart.rle", "x = 23, y = 23\n3o$o$bo17$21bo$22bo$20b3o!\n");
    const CommandResult r = tl_within(300, "run apart.rle --kernel bitpacked --gens 16000 --max-memory 64M --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["population"], 10);
    const std::int64_t w = (*js)["board"]["width"], h = (*js)["board"]["height"];
    EXPECT_GT(2 * w * h, std::int64_t{64} << 20) << w << "x" << h;
    // A budget the growing board does pass ends the run with a runtime failure naming the flag.
    const CommandResult low = tl_within(300, "run apart.rle --kernel bitpacked --gens 16000 --max-memory 2M");
    EXPECT_EQ(low.exit_code, 1) << low.err;
    EXPECT_NE(low.err.find("--max-memory"), std::string::npos) << low.err;
}

// ---------------------------------------------------------------------------------------------
// Generations are absolute (the file's generation plus those run)

TEST_F(Cli, ResumedRunReportsAbsoluteGenerations) {
    const std::string gun = shell_quote(pattern_path("gosper-glider-gun.rle"));
    // A checkpoint at generation 300 of a 400-generation run.
    ASSERT_EQ(tl("run " + gun + " --gens 300 -q -o at300.rle").exit_code, 0);
    const Pattern at300 = read_pattern(path("at300.rle"));
    PatternMeta meta = meta_of(at300);
    meta.comments.insert(meta.comments.begin(), "tilelife-checkpoint start=0 gens=400");
    write("resume.rle", format_rle(at300.cells, meta));
    const CommandResult r = tl("run --resume resume.rle -o out.rle --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["generation"], 400);
    EXPECT_EQ((*js)["generations_run"], 100);
    EXPECT_EQ((*js)["pattern"]["generation"], 300);
    EXPECT_EQ(read_pattern(path("out.rle")).generation, 400);
    const CommandResult t = tl("run --resume resume.rle");
    EXPECT_EQ(key_values(t.out)["generation"], "400") << t.out;
    // A file at Gen=42 run 8 generations is at 50.
    write("g42.rle", "#CXRLE Gen=42\nx = 3, y = 3\nbo$2bo$3o!\n");
    EXPECT_EQ(key_values(tl("run g42.rle --gens 8").out)["generation"], "50");
}

// ---------------------------------------------------------------------------------------------
// Flags

TEST_F(Cli, GenerationCountsTakeExponentsAndPowers) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    for (const auto& [text, value] : std::vector<std::pair<std::string, int>>{{"1e3", 1000}, {"2^10", 1024}, {"1E2", 100}, {"0", 0}}) {
        const CommandResult r = tl("run " + glider + " --gens " + text + " --json");
        ASSERT_EQ(r.exit_code, 0) << text << ": " << r.err;
        EXPECT_EQ(parse_json(r.out, "run").value_or(nlohmann::json::object())["generation"], value) << text;
    }
    for (const std::string bad : {"1.5e3", "2^63", "9223372036854775808", "1e19", "-1", "1e", "^2", "ten", "1,000"}) {
        const CommandResult r = tl("run " + glider + " --gens " + bad);
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("--gens"), std::string::npos) << bad << ": " << r.err;
    }
    // The largest count parses (this run is then refused for its output format, before it starts);
    // from generation 1 the run could not end.
    const CommandResult largest = tl("run " + glider + " --gens 9223372036854775807 -o x.lif");
    EXPECT_EQ(largest.exit_code, 2) << largest.err;
    EXPECT_NE(largest.err.find("'.lif'"), std::string::npos) << largest.err;
    write("g1.rle", "#CXRLE Gen=1\nx = 1, y = 1\no!\n");
    const CommandResult beyond = tl("run g1.rle --gens 9223372036854775807");
    EXPECT_EQ(beyond.exit_code, 2) << beyond.err;
    EXPECT_NE(beyond.err.find("beyond generation 2^63 - 1"), std::string::npos) << beyond.err;
}

TEST_F(Cli, SizeOnAnUnboundedBoardIsRefused) {
    const std::string glider = shell_quote(pattern_path("glider.rle"));
    const CommandResult r = tl("run " + glider + " --size 100x100");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unbounded"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--size"), std::string::npos) << r.err;
    EXPECT_EQ(tl("run " + glider + " --size 100x100 --topology torus").exit_code, 0);
    EXPECT_EQ(tl("run " + glider + " --size 100x100 --rule B3/S23:P10,10").exit_code, 0);
}

TEST_F(Cli, UnknownSubcommandAndSubcommandHelp) {
    const CommandResult r = tl("runn x");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown subcommand 'runn'"), std::string::npos) << r.err;
    for (const char* sub : {"run", "convert", "info", "engines", "devices", "bench", "view"})
        EXPECT_NE(r.err.find(sub), std::string::npos) << sub << ": " << r.err;
    const CommandResult inside = tl("run x --frobnicate");
    EXPECT_EQ(inside.exit_code, 2);
    EXPECT_NE(inside.err.find("tilelife run --help"), std::string::npos) << inside.err;
    const CommandResult bench = tl("bench --nope");
    EXPECT_NE(bench.err.find("tilelife bench --help"), std::string::npos) << bench.err;
}

TEST_F(Cli, EngineParametersByName) {
    register_builtin_engines();
    if (!engine_exists("cpu:bitpacked")) GTEST_SKIP() << "no cpu:bitpacked in this build";
    const std::string job = "run " + shell_quote(pattern_path("acorn.rle")) + " --gens 500 --kernel bitpacked --json ";
    const CommandResult on = tl(job);
    const CommandResult off = tl(job + "--param activity=off --param simd=baseline");
    ASSERT_EQ(on.exit_code, 0) << on.err;
    ASSERT_EQ(off.exit_code, 0) << off.err;
    const auto a = parse_json(on.out, "run"), b = parse_json(off.out, "run");
    ASSERT_TRUE(a && b);
    EXPECT_EQ((*a)["population"], (*b)["population"]);
    EXPECT_EQ((*b)["engine"]["properties"]["activity"], false) << (*b)["engine"];
    EXPECT_EQ((*b)["engine"]["properties"]["simd"], "baseline") << (*b)["engine"];
    const CommandResult unknown = tl(job + "--param nonesuch=1");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("nonesuch"), std::string::npos) << unknown.err;
    EXPECT_NE(unknown.err.find("--param"), std::string::npos) << unknown.err;
    EXPECT_EQ(tl(job + "--param activity=maybe").exit_code, 2);
    EXPECT_EQ(tl(job + "--param activity").exit_code, 2);
}

TEST_F(Cli, ReportNamesTheEngineAndWhatItChose) {
    const CommandResult r = tl("run " + shell_quote(pattern_path("glider.rle")) + " --gens 4");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    register_builtin_engines();
    const EngineDescription d = create_engine(default_engine("cpu", Topology::unbounded),
                                              test::spec_of(0, 0, Topology::unbounded))->describe();
    const std::string line = key_values(r.out)["engine"];
    EXPECT_EQ(line.rfind(d.name, 0), 0u) << line;
    for (const auto& [key, value] : d.properties)
        EXPECT_NE(line.find(key + ": "), std::string::npos) << key << " missing from " << line;
}

// --log-every: the population time series, exact
TEST_F(Cli, LogEveryGivesThePopulationSeries) {
    const std::string in = pattern_path("r-pentomino.rle");
    const CommandResult r = tl("run " + shell_quote(in) + " --gens 1000 --log-every 250 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "run");
    ASSERT_TRUE(js) << r.out;
    const auto& log = (*js)["log"];
    ASSERT_EQ(log.size(), 5u) << log;
    auto e = create_engine("cpu:reference", test::spec_of(0, 0, Topology::unbounded));
    e->set_cells(read_pattern(in).cells);
    for (std::size_t i = 0; i < log.size(); ++i) {
        EXPECT_EQ(log[i]["generation"], 250 * static_cast<std::int64_t>(i));
        EXPECT_EQ(log[i]["population"], e->population()) << "generation " << 250 * i;
        e->step(250);
    }
    const CommandResult t = tl("run " + shell_quote(in) + " --gens 1000 --log-every 500 -q");
    EXPECT_EQ(t.out, "generation 0  population 5\ngeneration 500  population " +
                         std::to_string(log[2]["population"].get<std::int64_t>()) +
                         "\ngeneration 1000  population " + std::to_string(log[4]["population"].get<std::int64_t>()) +
                         "\n");
}

// --gif-every and --checkpoint-every apart; --every still sets both
TEST_F(Cli, SeparateIntervalsForFramesAndCheckpoints) {
#ifndef TILELIFE_TEST_HAVE_GIF
    GTEST_SKIP() << "giflib not found";
#else
    const std::string gun = shell_quote(pattern_path("gosper-glider-gun.rle"));
    CommandResult r = tl("run " + gun + " --gens 300 --gif g.gif --gif-every 3 --checkpoint c.rle --checkpoint-every 7 "
                         "--json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(gif_frames(path("g.gif")), 101);
    EXPECT_EQ(read_pattern(path("c.rle")).generation, 294);  // the last multiple of 7
    r = tl("run " + gun + " --gens 300 --gif e.gif --every 30 --checkpoint e.rle -q");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(gif_frames(path("e.gif")), 11);
    EXPECT_EQ(read_pattern(path("e.rle")).generation, 300);
    // The frame delay is what was asked for.
    ASSERT_EQ(tl("run " + gun + " --gens 5 --gif d.gif --gif-delay 250 -q").exit_code, 0);
    int err = 0;
    GifFileType* gif = DGifOpenFileName(path("d.gif").c_str(), &err);
    ASSERT_NE(gif, nullptr);
    ASSERT_EQ(DGifSlurp(gif), GIF_OK);
    GraphicsControlBlock gcb{};
    ASSERT_EQ(DGifSavedExtensionToGCB(gif, 1, &gcb), GIF_OK);
    EXPECT_EQ(gcb.DelayTime, 25);
    DGifCloseFile(gif, &err);
    for (const char* bad : {"0", "25", "-10", "1000000"}) {
        const CommandResult r = tl("run " + gun + " --gif x.gif --gif-delay " + std::string(bad));
        EXPECT_EQ(r.exit_code, 2) << bad;
        EXPECT_NE(r.err.find("--gif-delay"), std::string::npos) << bad << ": " << r.err;
    }
    // Colours: a theme for images, ages for GIF frames.
    ASSERT_EQ(tl("run " + gun + " --gens 30 --gif aged.gif --ages --theme dark -q").exit_code, 0);
    EXPECT_EQ(gif_frames(path("aged.gif")), 31);
    ASSERT_EQ(tl("run " + gun + " --gens 30 --gif plain.gif --theme dark -q").exit_code, 0);
    EXPECT_NE(test::read_text(path("aged.gif")), test::read_text(path("plain.gif")));
    const CommandResult no_gif = tl("run " + gun + " --ages");
    EXPECT_EQ(no_gif.exit_code, 2);
    EXPECT_NE(no_gif.err.find("--gif"), std::string::npos) << no_gif.err;
    const CommandResult bad_theme = tl("run " + gun + " --theme nope -o x.png");
    EXPECT_EQ(bad_theme.exit_code, 2);
    EXPECT_NE(bad_theme.err.find("--theme"), std::string::npos) << bad_theme.err;
#endif
}

// ---------------------------------------------------------------------------------------------
// Standard streams and compressed output

TEST_F(Cli, StandardInputAndOutput) {
    const std::string glider = pattern_path("glider.rle");
    CommandResult r = tl("run - --gens 4 -o - --format rle < " + shell_quote(glider));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Pattern out = parse_pattern(r.out, "stdout");
    EXPECT_EQ(out.generation, 4);
    EXPECT_CELLS(translated(read_pattern(glider).cells, 1, 1), out.cells);
    EXPECT_NE(r.err.find("pattern         -"), std::string::npos) << "the report goes to stderr: " << r.err;
    r = tl("run - --gens 4 -o - --format cells --json < " + shell_quote(glider));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse_pattern(r.out, "stdout").format, PatternFormat::plaintext);
    EXPECT_TRUE(parse_json(r.err, "run")) << r.err;
    r = tl("convert - - --format cells < " + shell_quote(glider));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("!Name: Glider", 0), 0u) << r.out;
    r = tl("info - --json < " + shell_quote(glider));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ((*parse_json(r.out, "info"))["pattern"]["population"], 5);
    // Without --format, standard output takes RLE.
    const CommandResult plain = tl("run - --gens 4 -o - < " + shell_quote(glider));
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(plain.out, tl("run - --gens 4 -o - --format rle < " + shell_quote(glider)).out);
    EXPECT_EQ(parse_pattern(plain.out, "stdout").format, PatternFormat::rle);
    r = tl("run - < /dev/null");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("stdin:1: empty file"), std::string::npos) << r.err;
#ifdef TILELIFE_TEST_HAVE_PNG
    r = tl("run " + shell_quote(glider) + " --gens 4 -o - --format png --scale 2");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    const CommandResult dark = tl("run " + shell_quote(glider) + " --gens 4 -o - --format png --scale 2 --theme dark");
    ASSERT_EQ(dark.exit_code, 0) << dark.err;
    EXPECT_NE(dark.out, r.out) << "the theme changes the colours";
#endif
}

TEST_F(Cli, GzipOutputAndConvertKeepsMetadata) {
    const std::string gun = pattern_path("gosper-glider-gun.rle");
    ASSERT_EQ(tl("run " + shell_quote(gun) + " --gens 120 -o gun.rle.gz -q").exit_code, 0);
    ASSERT_EQ(tl("run " + shell_quote(gun) + " --gens 120 -o gun.rle -q").exit_code, 0);
    const std::string gz = test::read_text(path("gun.rle.gz"));
    ASSERT_GE(gz.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
    EXPECT_EQ(parse_pattern(gz, "gz").cells, read_pattern(path("gun.rle")).cells);
    // convert keeps #N, #O and #C lines, through .cells too.
    write("meta.rle", "#N Name of it\n#O Someone <a@b.c>\n#C first comment\n#D second\nx = 3, y = 3, rule = B36/S23\n"
                      "bo$2bo$3o!\n");
    ASSERT_EQ(tl("convert meta.rle copy.rle").exit_code, 0);
    ASSERT_EQ(tl("convert meta.rle copy.cells.gz").exit_code, 0);
    ASSERT_EQ(tl("convert copy.cells.gz back.rle").exit_code, 0);
    for (const char* f : {"copy.rle", "copy.cells.gz", "back.rle"}) {
        const Pattern p = read_pattern(path(f));
        EXPECT_EQ(p.name, "Name of it") << f;
        EXPECT_EQ(p.authors, std::vector<std::string>{"Someone <a@b.c>"}) << f;
        EXPECT_EQ(p.comments, (std::vector<std::string>{"first comment", "second"})) << f;
    }
    EXPECT_EQ(*read_pattern(path("copy.rle")).rule, "B36/S23");
    // A run's output carries them too.
    ASSERT_EQ(tl("run meta.rle --gens 2 -o ran.rle -q").exit_code, 0);
    EXPECT_EQ(read_pattern(path("ran.rle")).name, "Name of it");
}

// JSON stays valid UTF-8 whatever bytes a file name or comment holds.
TEST_F(Cli, JsonIsValidUtf8ForAnyBytes) {
    const std::string name = std::string("caf\xe9-\xff.rle");  // Latin-1, not UTF-8
    write(name, "#N \xe9t\xe9\n#C \xc3\xa9 ok\nx = 1, y = 1\no!\n");
    const CommandResult r = tl("info " + shell_quote(name) + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "info");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["pattern"]["path"], "caf\xef\xbf\xbd-\xef\xbf\xbd.rle");
    EXPECT_EQ((*js)["pattern"]["name"], "\xef\xbf\xbdt\xef\xbf\xbd");
    EXPECT_EQ((*js)["pattern"]["comments"][0], "\xc3\xa9 ok");
    const CommandResult run = tl("run " + shell_quote(name) + " --gens 1 --json");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(parse_json(run.out, "run")) << run.out;
}

}  // namespace
}  // namespace tilelife
