// Every opencl:* kernel must equal cpu:reference exactly: all rules, both bounded topologies and the
// growing unbounded board, odd sizes, several work-group shapes; population by both reductions.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "opencl/api.hpp"
#include "support/opencl_fixture.hpp"
#include "opencl/runtime.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

const char* const kKernels[] = {"opencl:naive", "opencl:local", "opencl:local-strided"};

class OpenCL : public testing_support::OpenCLTest {
protected:
};

using testing_support::board_of;
using testing_support::count;
using testing_support::random_cells;

// Runs `kernel` and cpu:reference from the same random board, comparing after each chunk of
// generations (so errors are caught near where they start).
void expect_same(const std::string& kernel, std::int64_t w, std::int64_t h, Topology topology, const std::string& rule,
                 const std::vector<std::int64_t>& chunks, EngineOptions options = {}, std::uint64_t seed = 1) {
    SCOPED_TRACE(kernel + " " + std::to_string(w) + "x" + std::to_string(h) + " " + std::string(to_string(topology)) +
                 " " + rule + " wg " + std::to_string(options.wg_width) + "x" + std::to_string(options.wg_height));
    const BoardSpec spec{w, h, topology, parse_rule(rule).rule};
    auto ref = create_engine("cpu:reference", spec);
    auto dev = create_engine(kernel, spec, options);
    const auto cells = random_cells(w, h, seed + static_cast<std::uint64_t>(w * 7919 + h));
    ref->write_region(Box{0, 0, w, h}, cells.data());
    dev->write_region(Box{0, 0, w, h}, cells.data());
    ASSERT_EQ(board_of(*dev), cells);
    for (std::int64_t n : chunks) {
        ref->step(n);
        dev->step(n);
        const auto want = board_of(*ref);
        ASSERT_EQ(board_of(*dev), want) << "after generation " << ref->generation();
        ASSERT_EQ(dev->population(), count(want));
        ASSERT_EQ(dev->generation(), ref->generation());
    }
}

const std::vector<std::pair<std::int64_t, std::int64_t>> kSizes = {
    {1, 1}, {1, 37}, {37, 1}, {2, 2}, {17, 5}, {63, 65}, {200, 150}, {300, 200}, {263, 141}};
// B0 (births on empty neighbourhoods) is legal on bounded boards and stresses the plane's dead edge.
const char* const kRules[] = {"B3/S23", "B36/S23", "B3678/S34678", "B2/S", "B1357/S1357", "B0358/S1237"};

TEST_F(OpenCL, EveryKernelRuleTopologyAndSizeEqualsReference) {
    for (const char* kernel : kKernels)
        for (const char* rule : kRules)
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : kSizes) expect_same(kernel, w, h, t, rule, {1, 4, 9});
}

TEST_F(OpenCL, WorkGroupShapes) {
    const std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> shapes = {
        {"opencl:naive", {{1, 1}, {8, 4}, {5, 3}, {16, 16}}},
        {"opencl:local", {{3, 3}, {5, 7}, {18, 18}, {34, 6}}},
        {"opencl:local-strided", {{1, 1}, {4, 2}, {3, 5}, {8, 8}, {32, 8}}},
    };
    for (const auto& [kernel, list] : shapes)
        for (auto [wx, wy] : list)
            for (Topology t : {Topology::torus, Topology::plane})
                for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {17, 5}, {63, 65}, {141, 99}}) {
                    EngineOptions o;
                    o.wg_width = wx;
                    o.wg_height = wy;
                    expect_same(kernel, w, h, t, "B3/S23", {2, 7}, o);
                }
}

TEST_F(OpenCL, RuleTableInConstantAndLocalMemory) {
    for (auto storage : {opencl::RuleStorage::constant_table, opencl::RuleStorage::local_table}) {
        opencl::Tuning t = saved_;
        t.rule_storage = storage;
        opencl::set_tuning(t);
        for (const char* kernel : kKernels)
            for (const char* rule : {"B3/S23", "B3678/S34678"})
                for (Topology topo : {Topology::torus, Topology::plane}) expect_same(kernel, 63, 65, topo, rule, {3, 5});
    }
}

TEST_F(OpenCL, StridedRowsPerWorkItem) {
    for (int rows : {1, 3, 16}) {
        opencl::Tuning t = saved_;
        t.rows_per_item = rows;
        opencl::set_tuning(t);
        for (Topology topo : {Topology::torus, Topology::plane})
            for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 1}, {300, 200}, {263, 141}})
                expect_same("opencl:local-strided", w, h, topo, "B36/S23", {1, 6}, {}, static_cast<std::uint64_t>(rows));
        auto e = create_engine("opencl:local-strided", BoardSpec{8, 8, Topology::torus, Rule::life()});
        EXPECT_EQ(opencl::details(*e)->cells_per_item, 4 * rows);
    }
}

TEST_F(OpenCL, LongerRunsStayExact) {
    for (const char* kernel : kKernels) {
        expect_same(kernel, 257, 129, Topology::torus, "B3/S23", {100, 200});
        expect_same(kernel, 129, 257, Topology::plane, "B36/S23", {300});
    }
}

TEST_F(OpenCL, UnboundedEqualsReference) {
    for (const char* kernel : kKernels)
        for (const char* rule : {"B3/S23", "B36/S23", "B2/S"}) {
            SCOPED_TRACE(std::string(kernel) + " " + rule);
            const BoardSpec spec{16, 16, Topology::unbounded, parse_rule(rule).rule};
            auto ref = create_engine("cpu:reference", spec);
            auto dev = create_engine(kernel, spec);
            const auto soup = random_cells(20, 20, 42, 0.35);
            ref->write_region(Box{-5, 3, 20, 20}, soup.data());
            dev->write_region(Box{-5, 3, 20, 20}, soup.data());
            // A glider heading away keeps the board growing (and the engine being re-created).
            const std::vector<Cell> glider = {{41, 40}, {42, 41}, {40, 42}, {41, 42}, {42, 42}};
            ref->set_cells(glider);
            dev->set_cells(glider);
            for (std::int64_t n : {1, 10, 50, 139}) {
                ref->step(n);
                dev->step(n);
                ASSERT_EQ(dev->live_cells(), ref->live_cells()) << "generation " << ref->generation();
                ASSERT_EQ(dev->population(), ref->population());
            }
        }
}

TEST_F(OpenCL, PopulationByTreeAndAutomaticReduction) {
    for (auto path : {opencl::Reduction::tree, opencl::Reduction::automatic}) {
        opencl::Tuning t = saved_;
        t.reduction = path;
        opencl::set_tuning(t);
        // Sizes around the reduction's group of 2*256 words (2048 cells) and far from multiples of it.
        for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                 {1, 1}, {1, 1000}, {1000, 1}, {17, 5}, {64, 32}, {2048, 1}, {2049, 3}, {1031, 517}}) {
            for (double density : {0.0, 0.3, 1.0}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " density " + std::to_string(density));
                auto e = create_engine("opencl:local-strided", BoardSpec{w, h, Topology::torus, Rule::life()});
                const auto cells = random_cells(w, h, 9, density);
                e->write_region(Box{0, 0, w, h}, cells.data());
                EXPECT_EQ(e->population(), count(cells));
            }
        }
        auto e = create_engine("opencl:naive", BoardSpec{5, 5, Topology::torus, Rule::life()});
        const std::string used = opencl::details(*e)->reduction;
        if (path == opencl::Reduction::tree) EXPECT_EQ(used, "tree");
        else EXPECT_TRUE(used == "tree" || used == "work-group" || used == "sub-group") << used;
    }
}

TEST_F(OpenCL, CollectiveReductionWhereTheDeviceHasIt) {
    const auto devices = opencl::list_devices();
    auto e0 = create_engine("opencl:naive", BoardSpec{1, 1, Topology::torus, Rule::life()});
    const std::string device = opencl::details(*e0)->device;
    const opencl::DeviceDescription* d = nullptr;
    for (const auto& dev : devices)
        if (device == std::to_string(dev.platform) + ":" + std::to_string(dev.device) + " " + dev.name) d = &dev;
    ASSERT_NE(d, nullptr);
    for (auto [path, supported] : {std::pair{opencl::Reduction::work_group, d->work_group_collectives},
                                   std::pair{opencl::Reduction::sub_group, d->sub_groups}}) {
        opencl::Tuning t = saved_;
        t.reduction = path;
        opencl::set_tuning(t);
        auto e = create_engine("opencl:naive", BoardSpec{1031, 517, Topology::torus, Rule::life()});
        const auto cells = random_cells(1031, 517, 3);
        e->write_region(Box{0, 0, 1031, 517}, cells.data());
        if (supported) {
            EXPECT_EQ(e->population(), count(cells));
            EXPECT_EQ(opencl::details(*e)->reduction, opencl::to_string(path));
        } else {
            // Asked for explicitly on a device without it: a clear runtime error, not a wrong count.
            EXPECT_THROW(e->population(), RuntimeError);
        }
    }
}

TEST_F(OpenCL, RegionsAreTransferredExactly) {
    for (const char* kernel : kKernels) {
        auto e = create_engine(kernel, BoardSpec{37, 23, Topology::plane, Rule::life()});
        const auto cells = random_cells(11, 7, 5);
        std::vector<std::uint8_t> big(cells);
        for (auto& c : big) c = c ? 200 : 0;  // any non-zero byte means alive
        e->write_region(Box{25, 15, 11, 7}, big.data());
        std::vector<std::uint8_t> back(cells.size());
        e->read_region(Box{25, 15, 11, 7}, back.data());
        EXPECT_EQ(back, cells);
        EXPECT_EQ(e->population(), count(cells));
        std::uint8_t one = 9;
        e->read_region(Box{0, 0, 1, 1}, &one);
        EXPECT_EQ(one, 0);
        EXPECT_THROW(e->read_region(Box{30, 20, 8, 1}, back.data()), std::out_of_range);
        EXPECT_THROW(e->write_region(Box{-1, 0, 1, 1}, back.data()), std::out_of_range);
    }
}

TEST_F(OpenCL, DeviceAndWorkGroupErrors) {
    const BoardSpec spec{8, 8, Topology::torus, Rule::life()};
    EngineOptions o;
    o.device = "0:0";
    EXPECT_NO_THROW(create_engine("opencl:naive", spec, o));
    o.device = "0";
    EXPECT_NO_THROW(create_engine("opencl:naive", spec, o));
    for (const char* bad : {"99", "7:0", "a:b", "x", "-1"}) {
        o.device = bad;
        EXPECT_THROW(create_engine("opencl:naive", spec, o), InputError) << bad;
    }
    EngineOptions wg;
    wg.wg_width = 4096;
    wg.wg_height = 4096;
    for (const char* kernel : kKernels) EXPECT_THROW(create_engine(kernel, spec, wg), InputError) << kernel;
    wg.wg_width = 2;
    wg.wg_height = 2;
    EXPECT_THROW(create_engine("opencl:local", spec, wg), InputError);
    wg.wg_height = 0;
    EXPECT_THROW(create_engine("opencl:naive", spec, wg), InputError);
}

TEST_F(OpenCL, BuildFailuresShowTheBuildLog) {
    // naive.cl alone lacks common.cl's definitions, so the device compiler rejects it.
    const auto rt = opencl::runtime_for("");
    try {
        opencl::program_for(*rt, {"naive.cl"}, "-DTORUS=1");
        FAIL() << "naive.cl without common.cl built";
    } catch (const RuntimeError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("kernels/naive.cl"), std::string::npos) << what;
        EXPECT_NE(what.find("build log"), std::string::npos) << what;
        EXPECT_NE(what.find("RULE_LOOKUP"), std::string::npos) << what;  // the compiler's own words
    }
    // Cached failures stay failures; the optional path just reports "no program".
    EXPECT_THROW(opencl::program_for(*rt, {"naive.cl"}, "-DTORUS=1"), RuntimeError);
    EXPECT_FALSE(opencl::try_program_for(*rt, {"naive.cl"}, "-DTORUS=1")());
}

TEST_F(OpenCL, DevicesDescribeTheirFeatures) {
    const auto devices = opencl::list_devices();
    ASSERT_FALSE(devices.empty());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto& d = devices[i];
        EXPECT_EQ(d.flat_index, static_cast<int>(i));
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.compute_units, 0u);
        EXPECT_GT(d.max_work_group_size, 0u);
        EXPECT_GT(d.local_mem_size, 0u);
        EXPECT_EQ(d.opencl_c_version.rfind("OpenCL C ", 0), 0u) << d.opencl_c_version;
    }
}

TEST_F(OpenCL, DetailsReportTheChosenShape) {
    EngineOptions o;
    o.wg_width = 10;
    o.wg_height = 6;
    auto e = create_engine("opencl:local", BoardSpec{50, 50, Topology::torus, Rule::life()}, o);
    const auto d = opencl::details(*e);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->wg_width, 10);
    EXPECT_EQ(d->wg_height, 6);
    EXPECT_NE(d->build_options.find("-DTILE_W=8"), std::string::npos) << d->build_options;
    auto cpu = create_engine("cpu:reference", BoardSpec{5, 5, Topology::torus, Rule::life()});
    EXPECT_FALSE(opencl::details(*cpu));
    EXPECT_FALSE(opencl::timed_step(*cpu, 3));
    EXPECT_EQ(cpu->generation(), 0);
    const auto timing = opencl::timed_step(*e, 3);
    ASSERT_TRUE(timing);
    EXPECT_GT(timing->kernel_seconds, 0.0);
    EXPECT_GE(timing->span_seconds, timing->kernel_seconds * 0.999);
    EXPECT_EQ(e->generation(), 3);
}

// Runs the built tilelife binary; returns (exit code, stdout and stderr).
std::pair<int, std::string> cli(const std::string& args, const std::string& env = "") {
    const std::string command = env + " " + TILELIFE_CLI + " " + args + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    if (!p) return {-1, ""};
    std::string out;
    char buf[4096];
    while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    const int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::vector<std::string> all_matches(const std::string& text, const std::string& pattern) {
    std::vector<std::string> out;
    const std::regex re(pattern);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

TEST_F(OpenCL, CliDevicesAndBench) {
    auto [rc, out] = cli("devices");
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("[default]"), std::string::npos) << out;
    EXPECT_NE(out.find("work_group_reduce_add: "), std::string::npos) << out;

    // The three kernels on one random board agree with each other and with cpu:reference.
    std::tie(rc, out) = cli("bench --backend opencl --kernel naive,local,local-strided --size 67x45 --gens 7 --json");
    ASSERT_EQ(rc, 0) << out;
    const auto pops = all_matches(out, "\"population\":([0-9]+)");
    ASSERT_EQ(pops.size(), 3u) << out;
    EXPECT_EQ(all_matches(out, "\"timing\":\"(profiling events)\"").size(), 3u) << out;
    auto [rc_cpu, out_cpu] = cli("bench --backend cpu --kernel reference --size 67x45 --gens 7 --json");
    ASSERT_EQ(rc_cpu, 0) << out_cpu;
    const auto want = all_matches(out_cpu, "\"population\":([0-9]+)");
    ASSERT_EQ(want.size(), 1u) << out_cpu;
    for (const auto& p : pops) EXPECT_EQ(p, want[0]) << out;

    std::tie(rc, out) = cli("bench --backend opencl --seed-setup --gens 3 --json");
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("\"published_local_us\":18159"), std::string::npos) << out;
    EXPECT_NE(out.find("\"local_kernel_us\":"), std::string::npos) << out;

    std::tie(rc, out) = cli("bench --backend opencl --kernel local --wg 2x2 --size 16x16 --gens 1");
    EXPECT_EQ(rc, 2) << out;  // an impossible work-group is the user's input error
}

TEST_F(OpenCL, CliWithoutAnyPlatformExitsOneWithAHint) {
    // An empty vendor directory: the ICD loader finds no platform.
    for (const char* args : {"devices", "bench --backend opencl --size 8x8 --gens 1"}) {
        auto [rc, out] = cli(args, "OCL_ICD_VENDORS=/nonexistent-tilelife-vendors");
        EXPECT_EQ(rc, 1) << args << ": " << out;
        EXPECT_NE(out.find("pocl-opencl-icd"), std::string::npos) << out;
    }
}

}  // namespace
}  // namespace tilelife
