// cpu:hashlife against the oracle (cpu:reference on the unbounded plane): every Life-like rule the
// plane allows on random soups, every leaf-kernel instruction set, odd and huge step counts, the
// store forced through collections, interruption, the light-cone refusal, trees in and out.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "hashlife/hashlife.hpp"
#include "support/test_support.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {
namespace {

using test::Cells;
using test::picture;
using test::translated;

const Cells kGlider = picture({".O.", "..O", "OOO"});  // (+1, +1) every 4 generations
const Cells kGun = test::rle_cells(
    "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!");

BoardSpec plane(const std::string& rule = "B3/S23") { return test::spec_of(0, 0, Topology::unbounded, rule); }

std::unique_ptr<Engine> hashlife(const std::string& rule = "B3/S23", const EngineOptions& o = {},
                                 const hashlife::Tuning& t = {}) {
    return hashlife::make_hashlife(plane(rule), o, t);
}

std::int64_t property(const Engine& e, const std::string& key) {
    for (const auto& [k, v] : e.describe().properties)
        if (k == key) return std::get<std::int64_t>(v);
    ADD_FAILURE() << "no property " << key;
    return -1;
}

// Steps both engines through the same checkpoints, comparing every one.
void compare_with_reference(const std::string& rule, const Cells& start, const std::vector<std::int64_t>& steps,
                            const hashlife::Tuning& tuning = {}) {
    register_builtin_engines();
    auto ref = create_engine("cpu:reference", plane(rule));
    auto h = hashlife(rule, {}, tuning);
    ref->set_cells(start);
    h->set_cells(start);
    ASSERT_EQ(h->population(), static_cast<std::int64_t>(test::sorted(start).size()));
    for (std::int64_t n : steps) {
        ref->step(n);
        h->step(n);
        ASSERT_EQ(h->generation(), ref->generation());
        const Cells want = ref->live_cells();
        const std::string d = test::diff(want, h->live_cells());
        ASSERT_TRUE(d.empty()) << rule << ", generation " << h->generation() << ": " << d;
        ASSERT_EQ(h->population(), static_cast<std::int64_t>(want.size())) << rule;
        if (!want.empty()) {
            ASSERT_EQ(h->extent(), test::bbox(want)) << rule;
        }
    }
}

// Rules: the named ones of the test plan, light-speed growth (B1, B2), no births at all, and
// every neighbour count.
const std::vector<std::string> kRules = {"B3/S23",      "B36/S23",   "B2/S",       "B1/S1",     "B3678/S34678", "B1357/S1357",
                        "B/S0123",     "B34/S34",   "B35678/S5678", "B2/S2",   "B38/S238",     "B13/S012",
                        "B12345678/S012345678", "B368/S245", "B4/S", "B5678/S45678"};

class Rules : public ::testing::TestWithParam<std::string> {};

TEST_P(Rules, SoupsMatchTheReferenceAtOddCheckpoints) {
    const std::string rule = GetParam();
    const bool fast_growth = rule.find("B1") == 0 || rule.find("B2") == 0;
    const std::vector<std::int64_t> steps =
        fast_growth ? std::vector<std::int64_t>{1, 2, 5, 16, 7} : std::vector<std::int64_t>{1, 2, 5, 16, 31, 64, 100, 3};
    compare_with_reference(rule, test::soup(21, 19, 0.35, 7, -30, -4), steps);
    compare_with_reference(rule, test::soup(37, 5, 0.5, 8, 100, -200), {3, 1, 60});
}

INSTANTIATE_TEST_SUITE_P(Named, Rules, ::testing::ValuesIn(kRules), [](const auto& info) {
    return test::param_name(info.param);
});

TEST(Hashlife, RandomRulesWithoutB0MatchTheReference) {
    std::mt19937_64 gen(20240611);
    for (int i = 0; i < 24; ++i) {
        Rule r;
        r.birth = static_cast<std::uint16_t>(gen() & 0x1fe);  // any births but B0
        r.survival = static_cast<std::uint16_t>(gen() & 0x1ff);
        SCOPED_TRACE(r.to_string());
        const bool fast_growth = r.birth & 0x6;
        compare_with_reference(r.to_string(), test::soup(14, 13, 0.3, 100 + i, -7, 3),
                               fast_growth ? std::vector<std::int64_t>{1, 6, 9} : std::vector<std::int64_t>{1, 6, 9, 32, 17});
    }
}

TEST(Hashlife, EveryLeafKernelThisCpuHasMatchesTheReference) {
    for (int simd = 1; simd <= hashlife::best_leaf_simd(); ++simd) {
        SCOPED_TRACE("simd " + std::to_string(simd));
        hashlife::Tuning t;
        t.simd = simd;
        compare_with_reference("B3/S23", test::soup(40, 40, 0.4, 3, -20, -20), {1, 4, 16, 33, 130}, t);
        compare_with_reference("B36/S23", test::soup(30, 30, 0.4, 4, -20, -20), {1, 4, 16, 33, 130}, t);
    }
}

TEST(Hashlife, LeafKernelsAgreeOnRandomBlocks) {
    // Every instruction set, every generation count 1..16, Life and a general rule: the exact
    // centre (rows 16..47, bits 16..47) of random 64x64 blocks against the naive stepper.
    std::mt19937_64 gen(5);
    for (const char* rule_text : {"B3/S23", "B36/S245"}) {
        const Rule rule = parse_rule(rule_text).rule;
        const auto masks = hashlife::rule_masks(rule);
        for (int trial = 0; trial < 6; ++trial) {
            std::uint64_t rows[64];
            Cells cells;
            for (int y = 0; y < 64; ++y) {
                rows[y] = gen() & gen();
                for (int x = 0; x < 64; ++x)
                    if ((rows[y] >> x) & 1) cells.push_back(Cell{x, y});
            }
            for (int gens = 1; gens <= 16; gens += (trial % 2) + 1) {
                Cells want;
                for (const Cell& c : test::naive_step(cells, 64, 64, Topology::plane, rule, gens))
                    if (c.x >= 16 && c.x < 48 && c.y >= 16 && c.y < 48) want.push_back(c);
                for (int simd = 1; simd <= hashlife::best_leaf_simd(); ++simd) {
                    std::uint64_t work[64];
                    std::copy(rows, rows + 64, work);
                    hashlife::leaf_kernel(simd)(work, gens, masks, rule == Rule::life());
                    Cells got;
                    for (int y = 16; y < 48; ++y)
                        for (int x = 16; x < 48; ++x)
                            if ((work[y] >> x) & 1) got.push_back(Cell{x, y});
                    const std::string d = test::diff(want, got);
                    ASSERT_TRUE(d.empty()) << rule_text << " simd " << simd << " gens " << gens << ": " << d;
                }
            }
        }
    }
}

TEST(Hashlife, SteppingInPiecesEqualsSteppingAtOnce) {
    auto a = hashlife(), b = hashlife();
    const Cells start = test::soup(50, 50, 0.4, 11, -25, -25);
    a->set_cells(start);
    b->set_cells(start);
    a->step(1000003);
    for (std::int64_t n : {1, 2, 1000, 65536, 3, 933461}) b->step(n);
    ASSERT_EQ(b->generation(), 1000003);
    EXPECT_CELLS(a->live_cells(), b->live_cells());
}

TEST(Hashlife, GliderCrossesAstronomicalDistancesExactly) {
    auto e = hashlife();
    e->set_cells(kGlider);
    const std::int64_t g = std::int64_t{1} << 40;
    e->step(g);
    EXPECT_EQ(e->generation(), g);
    EXPECT_CELLS(translated(kGlider, g / 4, g / 4), e->live_cells());
    e->step(4 * 1000001);
    EXPECT_CELLS(translated(kGlider, g / 4 + 1000001, g / 4 + 1000001), e->live_cells());
    EXPECT_EQ(e->population(), 5);
}

TEST(Hashlife, GosperGunMatchesTheReferenceAtOddCounts) {
    register_builtin_engines();
    auto ref = create_engine("cpu:bitpacked", plane());
    auto h = hashlife();
    ref->set_cells(kGun);
    h->set_cells(kGun);
    for (std::int64_t n : {1, 29, 1000, 4097}) {
        ref->step(n);
        h->step(n);
        EXPECT_CELLS(ref->live_cells(), h->live_cells());
    }
    // Much later: the gun has period 30 and sends one 5-cell glider per period, none lost.
    h->step(std::int64_t{30} * 999000 - h->generation());
    const std::int64_t before = h->population();
    h->step(30 * 1000);
    EXPECT_EQ(h->population() - before, 5 * 1000);
    EXPECT_EQ(h->generation(), 30000000);
}

}  // namespace
}  // namespace tilelife
