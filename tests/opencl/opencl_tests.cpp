// Every opencl:* kernel must equal cpu:reference exactly: all rules, both bounded topologies and the
// growing unbounded board, odd sizes, several work-group shapes; population by both reductions.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "opencl/api.hpp"
#include "opencl/runtime.hpp"
#include "support/opencl_fixture.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife {
namespace {

const char* const kKernels[] = {"opencl:naive", "opencl:halo-tile", "opencl:halo-tile-strided"};

class OpenCL : public testing_support::OpenCLTest {
protected:
};

using testing_support::board_of;
using testing_support::count;
using testing_support::property;
using testing_support::random_cells;
using testing_support::with_params;

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
        {"opencl:halo-tile", {{3, 3}, {5, 7}, {18, 18}, {34, 6}}},
        {"opencl:halo-tile-strided", {{1, 1}, {4, 2}, {3, 5}, {8, 8}, {32, 8}}},
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
    for (const char* storage : {"constant", "local"})
        for (const char* kernel : kKernels) {
            if (std::string(kernel) == "opencl:naive" && std::string(storage) == "local") continue;  // no local memory
            for (const char* rule : {"B3/S23", "B3678/S34678"})
                for (Topology topo : {Topology::torus, Topology::plane})
                    expect_same(kernel, 63, 65, topo, rule, {3, 5}, with_params({{"rule-storage", storage}}));
            auto e = create_engine(kernel, BoardSpec{8, 8, Topology::torus, Rule::life()},
                                   with_params({{"rule-storage", storage}}));
            const auto d = e->describe();
            EXPECT_EQ(property<std::string>(d, "rule-storage"), storage);
            EXPECT_NE(property<std::string>(d, "build-options").find(std::string("-DRULE_STORAGE=") +
                                                                     (std::string(storage) == "local" ? "2" : "1")),
                      std::string::npos);
        }
}

TEST_F(OpenCL, StridedRowsPerWorkItem) {
    for (int rows : {1, 3, 16}) {
        const EngineOptions o = with_params({{"rows", std::to_string(rows)}});
        for (Topology topo : {Topology::torus, Topology::plane})
            for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 1}, {300, 200}, {263, 141}})
                expect_same("opencl:halo-tile-strided", w, h, topo, "B36/S23", {1, 6}, o, static_cast<std::uint64_t>(rows));
        auto e = create_engine("opencl:halo-tile-strided", BoardSpec{8, 8, Topology::torus, Rule::life()}, o);
        EXPECT_EQ(e->describe().cells_per_item, 4 * rows);
        EXPECT_EQ(property<std::int64_t>(e->describe(), "rows"), rows);
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
    for (const char* path : {"tree", "auto"}) {
        const EngineOptions o = with_params({{"reduction", path}});
        // Sizes around the reduction's groups (256 words of 4 cells, 1024 groups) and far from multiples.
        for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                 {1, 1}, {1, 1000}, {1000, 1}, {17, 5}, {64, 32}, {2048, 1}, {2049, 3}, {1031, 517}, {4099, 1031}}) {
            for (double density : {0.0, 0.3, 1.0}) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " density " + std::to_string(density));
                auto e = create_engine("opencl:halo-tile-strided", BoardSpec{w, h, Topology::torus, Rule::life()}, o);
                const auto cells = random_cells(w, h, 9, density);
                e->write_region(Box{0, 0, w, h}, cells.data());
                EXPECT_EQ(e->population(), count(cells));
            }
        }
        auto e = create_engine("opencl:naive", BoardSpec{5, 5, Topology::torus, Rule::life()}, o);
        const std::string used = property<std::string>(e->describe(), "reduction");
        if (std::string(path) == "tree") EXPECT_EQ(used, "tree");
        else EXPECT_TRUE(used == "tree" || used == "work-group" || used == "sub-group") << used;
    }
}

TEST_F(OpenCL, CollectiveReductionWhereTheDeviceHasIt) {
    const auto devices = opencl::list_devices();
    const std::string device = create_engine("opencl:naive", BoardSpec{1, 1, Topology::torus, Rule::life()})->describe().device;
    const opencl::DeviceDescription* d = nullptr;
    for (const auto& dev : devices)
        if (device == dev.id() + " " + dev.name) d = &dev;
    ASSERT_NE(d, nullptr) << device;
    for (auto [path, supported] : {std::pair{"work-group", d->work_group_collectives}, std::pair{"sub-group", d->sub_groups}}) {
        const EngineOptions o = with_params({{"reduction", path}});
        const BoardSpec spec{1031, 517, Topology::torus, Rule::life()};
        if (!supported) {
            // Asked for explicitly on a device without it: a clear runtime error, not a wrong count.
            EXPECT_THROW(create_engine("opencl:naive", spec, o), RuntimeError);
            EXPECT_THROW(create_engine("opencl:bitpacked", spec, o), RuntimeError);
            continue;
        }
        for (const char* kernel : {"opencl:naive", "opencl:bitpacked"}) {
            auto e = create_engine(kernel, spec, o);
            const auto cells = random_cells(1031, 517, 3);
            e->write_region(Box{0, 0, 1031, 517}, cells.data());
            EXPECT_EQ(e->population(), count(cells));
            EXPECT_EQ(property<std::string>(e->describe(), "reduction"), path);
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
    EXPECT_THROW(create_engine("opencl:halo-tile", spec, wg), InputError);
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

TEST_F(OpenCL, DescribeReportsTheChosenShapeAndStepTimedUsesTheDeviceClock) {
    EngineOptions o;
    o.wg_width = 10;
    o.wg_height = 6;
    auto e = create_engine("opencl:halo-tile", BoardSpec{50, 50, Topology::torus, Rule::life()}, o);
    const auto d = e->describe();
    EXPECT_EQ(d.name, "opencl:halo-tile");
    EXPECT_EQ(d.backend, "opencl");
    EXPECT_EQ(d.wg_width, 10);
    EXPECT_EQ(d.wg_height, 6);
    EXPECT_EQ(d.steps_per_launch, 1);
    EXPECT_NE(property<std::string>(d, "build-options").find("-DTILE_W=8"), std::string::npos);
    auto cpu = create_engine("cpu:reference", BoardSpec{5, 5, Topology::torus, Rule::life()});
    EXPECT_FALSE(cpu->describe().tiles);
    EXPECT_FALSE(cpu->step_timed(3));  // no device clock: it runs the generations, the caller times them
    EXPECT_EQ(cpu->generation(), 3);
    const auto timing = e->step_timed(3);
    ASSERT_TRUE(timing);
    EXPECT_GT(timing->kernel_seconds, 0.0);
    EXPECT_GE(timing->span_seconds, timing->kernel_seconds * 0.999);
    EXPECT_EQ(e->generation(), 3);
}

const char* const kAllEngines[] = {"opencl:naive", "opencl:halo-tile", "opencl:halo-tile-strided", "opencl:bitpacked"};

TEST_F(OpenCL, OldNamesAreAliases) {
    for (auto [old_name, name] : {std::pair{"opencl:local", "opencl:halo-tile"},
                                  std::pair{"opencl:local-strided", "opencl:halo-tile-strided"}}) {
        const auto info = find_engine(old_name);
        ASSERT_TRUE(info) << old_name;
        EXPECT_EQ(info->name, name);
        auto e = create_engine(old_name, BoardSpec{17, 5, Topology::torus, Rule::life()});
        EXPECT_EQ(e->name(), name);
        EXPECT_EQ(e->describe().name, name);
    }
}

TEST_F(OpenCL, ParametersAreDeclaredAndValidated) {
    const BoardSpec spec{17, 5, Topology::torus, Rule::life()};
    const std::vector<std::pair<std::string, std::vector<std::pair<const char*, std::string>>>> bad = {
        {"opencl:naive", {{"rule-storage", "local"}, {"rule-storage", "table"}, {"rows", "4"}, {"reduction", "fast"}}},
        {"opencl:halo-tile", {{"rule-storage", "Local"}, {"activity", "on"}, {"reduction", ""}}},
        {"opencl:halo-tile-strided", {{"rows", "0"}, {"rows", "65"}, {"rows", "abc"}, {"rows", "8x"}, {"reduction", "Tree"}}},
        {"opencl:bitpacked", {{"rows", "0"}, {"rows", "33"}, {"activity", "1"}, {"activity", "banana"}, {"rule-storage", "bits"}}},
    };
    for (const auto& [engine, cases] : bad)
        for (const auto& [key, value] : cases) {
            EngineOptions o;
            o.params[key] = value;
            EXPECT_THROW(create_engine(engine, spec, o), InputError) << engine << " " << key << "=" << value;
        }
    for (const char* engine : kAllEngines) {
        const auto info = find_engine(engine);
        ASSERT_TRUE(info);
        std::vector<std::string> names;
        for (const ParameterSpec& p : info->parameters) names.push_back(p.name);
        EXPECT_NE(std::find(names.begin(), names.end(), "reduction"), names.end()) << engine;
    }
    // Messages speak of the engine's options, not of a command line.
    EngineOptions o;
    o.wg_width = 2;
    o.wg_height = 2;
    try {
        create_engine("opencl:halo-tile", spec, o);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
    }
}

TEST_F(OpenCL, EnvironmentVariablesAreNotRead) {
    // What the engines read before they declared parameters: now ignored, whatever the value.
    const char* vars[] = {"TILELIFE_OPENCL_ROWS", "TILELIFE_OPENCL_ACTIVITY", "TILELIFE_OPENCL_REDUCTION",
                          "TILELIFE_OPENCL_RULE"};
    for (const char* v : vars) setenv(v, "3", 1);
    setenv("TILELIFE_OPENCL_RULE", "local", 1);
    setenv("TILELIFE_OPENCL_ACTIVITY", "banana", 1);
    for (const char* engine : kAllEngines) {
        auto e = create_engine(engine, BoardSpec{40, 40, Topology::torus, Rule::life()});
        const auto d = e->describe();
        if (std::string(engine) != "opencl:naive" && std::string(engine) != "opencl:halo-tile") {
            EXPECT_NE(property<std::int64_t>(d, "rows"), 3) << engine;
        }
        if (std::string(engine) == "opencl:bitpacked") {
            EXPECT_EQ(property<std::string>(d, "activity"), "auto");
        } else {
            EXPECT_EQ(property<std::string>(d, "rule-storage"), "bits") << engine;
        }
    }
    for (const char* v : vars) unsetenv(v);
}

// The tile geometry an engine describes is the one its kernel runs: the work-groups of the launch
// (global / local size) times the cells each writes cover the board, and one group fewer would not.
TEST_F(OpenCL, TilesMatchTheLaunchRanges) {
    struct Case {
        const char* engine;
        int wx, wy, k;
        const char* rows;
    };
    const Case cases[] = {
        {"opencl:naive", 0, 0, 0, nullptr},           {"opencl:naive", 5, 3, 0, nullptr},
        {"opencl:halo-tile", 0, 0, 0, nullptr},       {"opencl:halo-tile", 7, 4, 0, nullptr},
        {"opencl:halo-tile-strided", 0, 0, 0, nullptr}, {"opencl:halo-tile-strided", 3, 5, 0, "3"},
        {"opencl:bitpacked", 0, 0, 0, nullptr},       {"opencl:bitpacked", 0, 0, 7, nullptr},
        {"opencl:bitpacked", 5, 3, 2, "3"},           {"opencl:bitpacked", 34, 2, 8, "16"},
    };
    for (const Case& c : cases)
        for (auto [w, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {37, 29}, {300, 200}, {1000, 77}}) {
            EngineOptions o;
            o.wg_width = c.wx;
            o.wg_height = c.wy;
            o.steps_per_launch = c.k;
            if (c.rows) o.params["rows"] = c.rows;
            SCOPED_TRACE(std::string(c.engine) + " " + std::to_string(w) + "x" + std::to_string(h) + " wg " +
                         std::to_string(c.wx) + "x" + std::to_string(c.wy));
            auto e = create_engine(c.engine, BoardSpec{w, h, Topology::torus, Rule::life()}, o);
            const auto d = e->describe();
            ASSERT_TRUE(d.tiles);
            const TileGeometry& t = *d.tiles;
            if (c.wx) {
                EXPECT_EQ(d.wg_width, c.wx);
            }
            if (c.k) {
                EXPECT_EQ(d.steps_per_launch, c.k);
            }
            EXPECT_EQ(t.origin, (Cell{0, 0}));
            EXPECT_FALSE(t.text.empty());
            auto dims = [](const std::string& s) {
                const auto x = s.find('x');
                return std::pair<std::int64_t, std::int64_t>{std::stoll(s.substr(0, x)), std::stoll(s.substr(x + 1))};
            };
            const auto [gx, gy] = dims(property<std::string>(d, "global-size"));
            const auto [lx, ly] = dims(property<std::string>(d, "local-size"));
            EXPECT_EQ(lx, d.wg_width);
            EXPECT_EQ(ly, d.wg_height);
            const std::int64_t cols = (w + t.width - 1) / t.width, rows = (h + t.height - 1) / t.height;
            if (std::string(c.engine) == "opencl:bitpacked") {
                // One work-group per tile, numbered row by row along dimension 0.
                EXPECT_EQ(gx / lx, cols * rows);
                EXPECT_EQ(gy, ly);
                EXPECT_EQ(property<std::int64_t>(d, "tiles"), cols * rows);
                EXPECT_EQ(t.width, 32 * (d.wg_width - 2));
                EXPECT_EQ(t.halo_x, 32);
                EXPECT_EQ(t.halo_y, d.steps_per_launch);
                EXPECT_EQ(t.height, d.wg_height * d.cells_per_item / 32 - 2 * d.steps_per_launch);
            } else {
                EXPECT_EQ(gx / lx, cols);
                EXPECT_EQ(gy / ly, rows);
                EXPECT_EQ(t.width * t.height, static_cast<std::int64_t>(d.wg_width) * d.wg_height * d.cells_per_item -
                                                  (std::string(c.engine) == "opencl:halo-tile"
                                                       ? 2 * (d.wg_width + d.wg_height) - 4
                                                       : 0));
            }
            // The board needs its buffers on the device; the host keeps none of it.
            EXPECT_GE(d.device_bytes, 2 * w * h / (std::string(c.engine) == "opencl:bitpacked" ? 32 : 1));
            EXPECT_EQ(d.host_bytes, 0);
        }
}

// Defaults must fit the device they run on: the work-group within its size, the local memory (the
// kernel's own __local variables included) within what it has.
TEST_F(OpenCL, DefaultsFitTheDevice) {
    const auto devices = opencl::list_devices();
    for (const char* engine : kAllEngines) {
        auto e = create_engine(engine, BoardSpec{300, 200, Topology::plane, Rule::life()});
        const auto d = e->describe();
        const opencl::DeviceDescription* dev = nullptr;
        for (const auto& x : devices)
            if (d.device == x.id() + " " + x.name) dev = &x;
        ASSERT_NE(dev, nullptr) << d.device;
        EXPECT_LE(static_cast<std::size_t>(d.wg_width) * d.wg_height, dev->max_work_group_size) << engine;
        const auto local = property<std::int64_t>(d, "local-bytes");
        EXPECT_LE(static_cast<std::uint64_t>(local), dev->local_mem_size) << engine;
        if (std::string(engine) != "opencl:naive") {
            EXPECT_GT(local, 0) << engine;
        }
    }
}

// Every option set autotuning would try is one the engine accepts, and runs exactly.
TEST_F(OpenCL, AutotuneCandidatesAreValidAndExact) {
    for (const char* engine : kAllEngines) {
        const BoardSpec spec{70, 45, Topology::torus, Rule::life()};
        const auto candidates = create_engine(engine, spec)->describe().autotune;
        ASSERT_GE(candidates.size(), 4u) << engine;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const EngineOptions& o = candidates[i];
            EXPECT_GT(o.wg_width, 0);
            EXPECT_GT(o.wg_height, 0);
            for (std::size_t j = 0; j < i; ++j)
                EXPECT_FALSE(o.wg_width == candidates[j].wg_width && o.wg_height == candidates[j].wg_height &&
                             o.params == candidates[j].params && o.steps_per_launch == candidates[j].steps_per_launch)
                    << engine << " candidate " << i << " repeats " << j;
            // Building every variant takes PoCL a while: every fifth is run against the reference.
            if (i % 5 == 0) expect_same(engine, spec.width, spec.height, spec.topology, "B3/S23", {5}, o);
        }
    }
}

TEST_F(OpenCL, TheBackendListsItsDevices) {
    const auto backends = registered_backends();
    const auto it = std::find_if(backends.begin(), backends.end(), [](const BackendInfo& b) { return b.name == "opencl"; });
    ASSERT_NE(it, backends.end());
    const auto listed = it->devices();
    const auto devices = opencl::list_devices();
    ASSERT_EQ(listed.size(), devices.size());
    for (std::size_t i = 0; i < listed.size(); ++i) {
        EXPECT_EQ(listed[i].backend, "opencl");
        EXPECT_EQ(listed[i].id, devices[i].id());
        EXPECT_EQ(listed[i].name, devices[i].name);
        EXPECT_EQ(listed[i].type, devices[i].type);
        EngineDescription as_description;  // property() reads a description's properties
        as_description.properties = listed[i].properties;
        EXPECT_EQ(property<std::int64_t>(as_description, "local-memory-bytes"),
                  static_cast<std::int64_t>(devices[i].local_mem_size));
        EXPECT_EQ(property<std::int64_t>(as_description, "max-work-group-size"),
                  static_cast<std::int64_t>(devices[i].max_work_group_size));
        EXPECT_EQ(property<std::int64_t>(as_description, "compute-units"), devices[i].compute_units);
        EXPECT_EQ(property<std::string>(as_description, "opencl-c"), devices[i].opencl_c_version);
        EXPECT_EQ(property<bool>(as_description, "work-group-collectives"), devices[i].work_group_collectives);
        EXPECT_EQ(property<bool>(as_description, "sub-groups"), devices[i].sub_groups);
        // The id is what EngineOptions::device takes.
        EngineOptions o;
        o.device = listed[i].id;
        EXPECT_EQ(create_engine("opencl:naive", BoardSpec{4, 4, Topology::torus, Rule::life()}, o)->describe().device,
                  listed[i].id + " " + listed[i].name);
    }
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
    EXPECT_NE(out.find("work-group-collectives: "), std::string::npos) << out;

    // The three kernels on one random board agree with each other and with cpu:reference.
    std::tie(rc, out) = cli("bench --backend opencl --kernel naive,local,local-strided --size 67x45 --gens 7 --json");
    ASSERT_EQ(rc, 0) << out;
    const auto pops = all_matches(out, "\"population\":([0-9]+)");
    ASSERT_EQ(pops.size(), 3u) << out;
    EXPECT_EQ(all_matches(out, "\"timing\":\"(device clock)\"").size(), 3u) << out;
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

    // Engine parameters from the command line.
    std::tie(rc, out) = cli("bench --backend opencl --kernel halo-tile-strided --param rows=3 --size 67x45 --gens 7 --json");
    ASSERT_EQ(rc, 0) << out;
    EXPECT_EQ(all_matches(out, "\"cells_per_item\":([0-9]+)"), std::vector<std::string>{"12"}) << out;
    EXPECT_EQ(all_matches(out, "\"population\":([0-9]+)"), want) << out;
    std::tie(rc, out) = cli("bench --backend opencl --kernel halo-tile-strided --param rows=0 --size 67x45 --gens 7");
    EXPECT_EQ(rc, 2) << out;
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
