// info, engines, devices and bench: their text and the one JSON shape (docs/json.md).
#include <gtest/gtest.h>

#include "cli/cli_support.hpp"

namespace tilelife {
namespace {

TEST_F(Cli, InfoJson) {
    write("p.rle", "#N Named\n#O Author\n#C one\n#CXRLE Pos=-3,4 Gen=9\nx = 2, y = 2, rule = b36s23\no$bo!\n");
    const CommandResult r = tl("info p.rle --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "info");
    ASSERT_TRUE(js) << r.out;
    const auto& p = (*js)["pattern"];
    EXPECT_EQ(p["path"], "p.rle");
    EXPECT_EQ(p["format"], "RLE");
    EXPECT_EQ(p["name"], "Named");
    EXPECT_EQ(p["rule"], "B36/S23");
    EXPECT_EQ(p["generation"], 9);
    EXPECT_EQ(p["population"], 2);
    EXPECT_EQ(p["bounding_box"], (nlohmann::json{{"x", -3}, {"y", 4}, {"width", 2}, {"height", 2}}));
    EXPECT_EQ(p["authors"], nlohmann::json::array({"Author"}));
    EXPECT_EQ(p["comments"], nlohmann::json::array({"one"}));
    // Absent values are null, not empty strings.
    write("bare.rle", "x = 0, y = 0\n!\n");
    const auto bare = parse_json(tl("info bare.rle --json").out, "info");
    ASSERT_TRUE(bare);
    EXPECT_TRUE((*bare)["pattern"]["name"].is_null());
    EXPECT_TRUE((*bare)["pattern"]["rule"].is_null());
    EXPECT_TRUE((*bare)["pattern"]["bounding_box"].is_null());
}

TEST_F(Cli, EnginesListParametersAndAliases) {
    register_builtin_engines();
    const CommandResult r = tl("engines --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "engines");
    ASSERT_TRUE(js) << r.out;
    const auto& list = (*js)["engines"];
    ASSERT_EQ(list.size(), registered_engines().size());
    const CommandResult text = tl("engines");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const EngineInfo info = registered_engines()[i];
        EXPECT_EQ(list[i]["name"], info.name);
        EXPECT_EQ(list[i]["backend"], info.backend());
        EXPECT_EQ(list[i]["aliases"].size(), info.aliases.size());
        ASSERT_EQ(list[i]["parameters"].size(), info.parameters.size());
        for (std::size_t k = 0; k < info.parameters.size(); ++k) {
            const ParameterSpec& p = info.parameters[k];
            EXPECT_EQ(list[i]["parameters"][k]["name"], p.name);
            EXPECT_NE(text.out.find("--param " + p.name + "="), std::string::npos) << p.name << " not listed:\n" << text.out;
        }
        for (const std::string& a : info.aliases) EXPECT_NE(text.out.find(a), std::string::npos) << a;
    }
}

TEST_F(Cli, DevicesListsEveryBackendOrSaysThereIsNone) {
    register_builtin_engines();
    const CommandResult r = tl("devices --json");
    if (registered_backends().empty()) {
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        EXPECT_NE(r.err.find("no device backend"), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        return;
    }
    if (r.exit_code == 1) GTEST_SKIP() << "no backend found a device: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "devices");
    ASSERT_TRUE(js) << r.out;
    ASSERT_EQ((*js)["backends"].size(), registered_backends().size());
    for (const auto& b : (*js)["backends"])
        for (const auto& d : b["devices"]) {
            EXPECT_TRUE(d["id"].is_string()) << d;
            EXPECT_TRUE(d["properties"].is_object()) << d;
        }
}

TEST_F(Cli, BenchJsonComparesEnginesOnOneBoard) {
    register_builtin_engines();
    std::string kernels;
    for (const EngineInfo& e : registered_engines())
        if (e.backend() == "cpu" && e.bounded) kernels += (kernels.empty() ? "" : ",") + e.name;
    const CommandResult r = tl("bench --kernel " + kernels + " --size 67x45 --gens 2^4 --warmup 3 --json --autotune");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto js = parse_json(r.out, "bench");
    ASSERT_TRUE(js) << r.out;
    EXPECT_EQ((*js)["board"], (nlohmann::json{{"topology", "torus"}, {"rule", "B3/S23"}, {"width", 67}, {"height", 45}}));
    EXPECT_EQ((*js)["generations"], 16);
    EXPECT_EQ((*js)["warmup"], 3);
    const auto& results = (*js)["results"];
    ASSERT_GE(results.size(), 1u);
    // Every engine computed the same board: cpu:reference's population after 19 generations.
    std::vector<std::uint8_t> cells;
    auto ref = create_engine("cpu:reference", test::spec_of(67, 45, Topology::torus));
    for (const auto& res : results) {
        EXPECT_TRUE(res["error"].is_null()) << res;
        EXPECT_EQ(res["timing"], "wall clock") << res;
        EXPECT_TRUE(res["span_seconds"].is_null()) << res;
        EXPECT_GT(res["cell_updates_per_second"].get<double>(), 0) << res;
        EXPECT_EQ(res["population"], results[0]["population"]) << res;
        EXPECT_TRUE(res["engine"]["properties"].is_object()) << res;
    }
    // CPU engines offer no option sets to tune: each is listed with no runs.
    ASSERT_EQ((*js)["autotune"].size(), results.size());
    for (const auto& t : (*js)["autotune"]) {
        EXPECT_TRUE(t["runs"].empty()) << t;
        EXPECT_TRUE(t["best"].is_null()) << t;
    }
    EXPECT_TRUE((*js)["seed_setup"].is_null());
    // The text table has a row per engine.
    const CommandResult text = tl("bench --kernel " + kernels + " --size 67x45 --gens 4");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    for (const auto& res : results)
        EXPECT_NE(text.out.find("\n" + res["engine"]["name"].get<std::string>() + " "), std::string::npos) << text.out;
    // Bad counts are refused like run's.
    EXPECT_EQ(tl("bench --gens 0").exit_code, 2);
    EXPECT_EQ(tl("bench --gens 1.5").exit_code, 2);
}

}  // namespace
}  // namespace tilelife
