// Rule and grid-suffix parsing: what Golly accepts for 2-state Moore outer-totalistic rules is
// accepted, everything else is refused with an InputError that says why.
#include <gtest/gtest.h>

#include "support/test_support.hpp"
#include "tilelife/error.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {
namespace {

std::uint16_t mask(std::initializer_list<int> counts) {
    std::uint16_t m = 0;
    for (int c : counts) m |= static_cast<std::uint16_t>(1u << c);
    return m;
}

struct ValidCase {
    const char* text;
    std::uint16_t birth, survival;
    const char* canonical;  // RuleSpec::to_string()
};

void PrintTo(const ValidCase& c, std::ostream* os) { *os << "'" << c.text << "'"; }

class ValidRule : public ::testing::TestWithParam<ValidCase> {};

TEST_P(ValidRule, ParsesToMasksAndCanonicalText) {
    const ValidCase& c = GetParam();
    RuleSpec spec;
    ASSERT_NO_THROW(spec = parse_rule(c.text)) << c.text;
    EXPECT_EQ(spec.rule.birth, c.birth) << c.text;
    EXPECT_EQ(spec.rule.survival, c.survival) << c.text;
    EXPECT_EQ(spec.to_string(), c.canonical) << c.text;
    // The canonical form parses back to the same thing.
    const RuleSpec again = parse_rule(spec.to_string());
    EXPECT_EQ(again.rule, spec.rule);
    EXPECT_EQ(again.grid, spec.grid);
    EXPECT_EQ(again.to_string(), spec.to_string());
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ValidRule,
    ::testing::Values(ValidCase{"B3/S23", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"b3s23", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"b3/s23", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"B3S23", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"S23/B3", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"B36/S23", mask({3, 6}), mask({2, 3}), "B36/S23"},
                      ValidCase{"B63/S32", mask({3, 6}), mask({2, 3}), "B36/S23"},
                      ValidCase{"B2/S", mask({2}), 0, "B2/S"},
                      ValidCase{"B/S23", 0, mask({2, 3}), "B/S23"},
                      // Golly takes either part alone (Golly's own Life-Like/persian-rugs.lif: "#R B234").
                      ValidCase{"B234", mask({2, 3, 4}), 0, "B234/S"},
                      ValidCase{"S23", 0, mask({2, 3}), "B/S23"},
                      ValidCase{"b3", mask({3}), 0, "B3/S"},
                      ValidCase{"B3678/S34678", mask({3, 6, 7, 8}), mask({3, 4, 6, 7, 8}), "B3678/S34678"},
                      ValidCase{"B012345678/S012345678", 0x1ff, 0x1ff, "B012345678/S012345678"},
                      ValidCase{"23/3", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"/2", mask({2}), 0, "B2/S"},
                      ValidCase{"1357/1357", mask({1, 3, 5, 7}), mask({1, 3, 5, 7}), "B1357/S1357"},
                      ValidCase{"Life", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"  B3/S23  ", mask({3}), mask({2, 3}), "B3/S23"},
                      ValidCase{"B3/S23:T64,32", mask({3}), mask({2, 3}), "B3/S23:T64,32"},
                      ValidCase{"B3/S23:t64,32", mask({3}), mask({2, 3}), "B3/S23:T64,32"},
                      ValidCase{"b36/s23:p10,20", mask({3, 6}), mask({2, 3}), "B36/S23:P10,20"},
                      ValidCase{"B3/S23:P10,20", mask({3}), mask({2, 3}), "B3/S23:P10,20"},
                      ValidCase{"23/3:T1,1", mask({3}), mask({2, 3}), "B3/S23:T1,1"},
                      ValidCase{"B2/S:T1,100", mask({2}), 0, "B2/S:T1,100"}));

TEST(Rule, SuffixGivesTopologyAndSize) {
    const RuleSpec t = parse_rule("B3/S23:T64,32");
    ASSERT_TRUE(t.grid.has_value());
    EXPECT_EQ(t.grid->topology, Topology::torus);
    EXPECT_EQ(t.grid->width, 64);
    EXPECT_EQ(t.grid->height, 32);
    const RuleSpec p = parse_rule("B3/S23:P10,20");
    ASSERT_TRUE(p.grid.has_value());
    EXPECT_EQ(p.grid->topology, Topology::plane);
    EXPECT_EQ(p.grid->width, 10);
    EXPECT_EQ(p.grid->height, 20);
    const RuleSpec p2 = parse_rule("b3s23:p7,9");
    ASSERT_TRUE(p2.grid.has_value());
    EXPECT_EQ(p2.grid->topology, Topology::plane);
    EXPECT_EQ((std::pair{p2.grid->width, p2.grid->height}), (std::pair<std::int64_t, std::int64_t>{7, 9}));
    EXPECT_FALSE(parse_rule("B3/S23").grid.has_value());
}

TEST(Rule, CanonicalPrinting) {
    EXPECT_EQ(Rule::life().to_string(), "B3/S23");
    EXPECT_EQ((Rule{mask({2}), 0}).to_string(), "B2/S");
    EXPECT_EQ((Rule{0, mask({2, 3})}).to_string(), "B/S23");
    EXPECT_EQ((Rule{0, 0}).to_string(), "B/S");
    EXPECT_EQ((Rule{mask({0, 8}), mask({8, 0})}).to_string(), "B08/S08");
}

TEST(Rule, NextFollowsMasks) {
    const Rule life = Rule::life();
    for (int n = 0; n <= 8; ++n) {
        EXPECT_EQ(life.next(false, n), n == 3) << n;
        EXPECT_EQ(life.next(true, n), n == 2 || n == 3) << n;
    }
}

TEST(Topology, NamesRoundTrip) {
    for (Topology t : {Topology::unbounded, Topology::torus, Topology::plane}) {
        const auto back = parse_topology(to_string(t));
        ASSERT_TRUE(back.has_value());
        EXPECT_EQ(*back, t);
    }
    EXPECT_EQ(to_string(Topology::unbounded), "unbounded");
    EXPECT_EQ(to_string(Topology::torus), "torus");
    EXPECT_EQ(to_string(Topology::plane), "plane");
    EXPECT_FALSE(parse_topology("klein").has_value());
    EXPECT_FALSE(parse_topology("Torus").has_value());
    EXPECT_FALSE(parse_topology("").has_value());
}

struct InvalidCase {
    const char* text;
    const char* fragment;  // must appear in the message (lower-cased comparison)
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << "'" << c.text << "'"; }

class InvalidRule : public ::testing::TestWithParam<InvalidCase> {};

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

TEST_P(InvalidRule, ThrowsInputErrorWithReason) {
    const InvalidCase& c = GetParam();
    try {
        const RuleSpec spec = parse_rule(c.text);
        ADD_FAILURE() << "'" << c.text << "' was accepted as " << spec.to_string();
    } catch (const InputError& e) {
        const std::string msg = e.what();
        // One line, quoting the rule text, with a reason.
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::string("'") + c.text + "'"), std::string::npos) << "message does not quote the rule: " << msg;
        EXPECT_NE(lower(msg).find(lower(c.fragment)), std::string::npos)
            << "message for '" << c.text << "' lacks '" << c.fragment << "': " << msg;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "'" << c.text << "' threw a non-InputError: " << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, InvalidRule,
    ::testing::Values(InvalidCase{"B39/S23", "9"},
                      InvalidCase{"B3/S239", "9"},
                      InvalidCase{"239/3", "9"},
                      InvalidCase{"B33/S23", "repeated"},
                      InvalidCase{"B3/S232", "repeated"},
                      InvalidCase{"B3/S23/B3", "twice"},
                      InvalidCase{"", "empty"},
                      InvalidCase{"xyz", "life-like"},
                      InvalidCase{"B3/Q23", "life-like"},
                      InvalidCase{"B3!S23", "life-like"},
                      InvalidCase{"B3/S2 3", "blank"},
                      InvalidCase{"B3/", "trailing"},
                      InvalidCase{"LifeHistory", "life-like"},
                      InvalidCase{"B2/S/C3", "multi-state"},
                      InvalidCase{"23/3/2", "multi-state"},
                      InvalidCase{"B2a/S12", "hensel"},
                      InvalidCase{"B3/S23ak", "hensel"},
                      InvalidCase{"B2/S13H", "moore"},
                      InvalidCase{"B2/S13V", "moore"},
                      InvalidCase{"B3/S23:K10,10", "klein"},
                      InvalidCase{"B3/S23:C10,10", ":c"},
                      InvalidCase{"B3/S23:S10", "sphere"},
                      InvalidCase{"B3/S23:T10+2,10", "shifted"},
                      InvalidCase{"B3/S23:T10,10-3", "shifted"},
                      InvalidCase{"B3/S23:T10*,10", "twisted"},
                      InvalidCase{"B3/S23:T0,68", "not supported"},
                      InvalidCase{"B3/S23:T68,0", "not supported"},
                      InvalidCase{"B3/S23:T10", "height"},
                      InvalidCase{"B3/S23:T10,", "missing"},
                      InvalidCase{"B3/S23:T,10", "missing"},
                      InvalidCase{"B3/S23:", "suffix"},
                      InvalidCase{"B3/S23:X10,10", "unknown"},
                      InvalidCase{"B3/S23:Tab,10", "dimension"},
                      InvalidCase{"B3/S23:T-5,10", "range"},
                      InvalidCase{"B3/S23:T3000000000,10", "range"}));

TEST(Rule, B0RefusedOnUnboundedBoardsOnly) {
    const std::vector<std::string> engines = test::engine_names();
    ASSERT_FALSE(engines.empty());
    const Rule b0 = parse_rule("B03/S23").rule;
    for (const std::string& name : engines) {
        try {
            create_engine(name, BoardSpec{16, 16, Topology::unbounded, b0});
            ADD_FAILURE() << name << ": B0 accepted on an unbounded board";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("B0"), std::string::npos) << e.what();
        }
        // Bounded boards take B0 (the background simply flips); OpenCL may lack a device; engines
        // of the unbounded plane alone refuse them (tests/support try_create checks that).
        if (test::is_opencl(name) || !find_engine(name)->bounded) continue;
        auto torus = create_engine(name, BoardSpec{5, 4, Topology::torus, b0});
        torus->step(1);  // empty torus under B0: every cell is born
        EXPECT_EQ(torus->population(), 20) << name;
        auto plane = create_engine(name, BoardSpec{5, 4, Topology::plane, parse_rule("B0/S").rule});
        plane->step(1);
        EXPECT_EQ(plane->population(), 20) << name;
        plane->step(1);  // all alive, no survival: all die
        EXPECT_EQ(plane->population(), 0) << name;
    }
}

TEST(Rule, UnknownEngineAndBadSizesAreInputErrors) {
    test::engine_names();
    EXPECT_THROW(create_engine("cpu:nonesuch", test::spec_of(8, 8, Topology::torus)), InputError);
    EXPECT_THROW(create_engine("nonesuch", test::spec_of(8, 8, Topology::torus)), InputError);
    for (const std::string& name : test::engine_names()) {
        EXPECT_THROW(create_engine(name, test::spec_of(0, 8, Topology::torus)), InputError) << name;
        EXPECT_THROW(create_engine(name, test::spec_of(8, 0, Topology::plane)), InputError) << name;
        EXPECT_THROW(create_engine(name, test::spec_of(-3, 8, Topology::plane)), InputError) << name;
    }
}

}  // namespace
}  // namespace tilelife
