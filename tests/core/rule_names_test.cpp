// Rule names (issue 22): the names Golly's help and LifeWiki's list of Life-like cellular automata
// give Life-like rules parse to their B/S masks in any case and spelling, with the grid suffix, and
// what is really unsupported (Generations, Larger than Life, Hensel, von Neumann / hexagonal, MAP,
// rule tables, an empty rule) is refused with a reason that says which it is.
#include <gtest/gtest.h>

#include <cctype>

#include "tilelife/error.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {
namespace {

struct NameCase {
    const char* name;
    const char* rule;  // canonical B/S, from Golly's Help/Algorithms/QuickLife.html or LifeWiki
};

void PrintTo(const NameCase& c, std::ostream* os) { *os << "'" << c.name << "'"; }

class NamedRule : public ::testing::TestWithParam<NameCase> {};

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

TEST_P(NamedRule, ParsesToItsBSRuleInAnyCaseAndWithASuffix) {
    const NameCase& c = GetParam();
    const Rule expected = parse_rule(c.rule).rule;
    ASSERT_EQ(expected.to_string(), c.rule) << "the table's rule is not canonical";
    for (const std::string& spelling : {std::string(c.name), upper(c.name), lower(c.name)}) {
        RuleSpec spec;
        ASSERT_NO_THROW(spec = parse_rule(spelling)) << spelling;
        EXPECT_EQ(spec.to_string(), c.rule) << spelling;
        EXPECT_FALSE(spec.grid.has_value());
        // In a file's "rule =" line the reader trims; a suffix follows the name as it follows B/S.
        ASSERT_NO_THROW(spec = parse_rule(" " + spelling + ":T64,32 ")) << spelling;
        EXPECT_EQ(spec.to_string(), std::string(c.rule) + ":T64,32") << spelling;
        ASSERT_NO_THROW(spec = parse_rule(spelling + ":p10,20")) << spelling;
        EXPECT_EQ(spec.to_string(), std::string(c.rule) + ":P10,20") << spelling;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Names, NamedRule,
    ::testing::Values(
        // Golly's Help/Algorithms/QuickLife.html names these.
        NameCase{"Life", "B3/S23"}, NameCase{"HighLife", "B36/S23"}, NameCase{"Day & Night", "B3678/S34678"},
        NameCase{"Diamoeba", "B35678/S5678"}, NameCase{"Seeds", "B2/S"}, NameCase{"Serviettes", "B234/S"},
        NameCase{"Persian Rug", "B234/S"}, NameCase{"LongLife", "B345/S5"},
        // Other spellings of those.
        NameCase{"Conway's Life", "B3/S23"}, NameCase{"Game of Life", "B3/S23"}, NameCase{"Day&Night", "B3678/S34678"},
        NameCase{"DayAndNight", "B3678/S34678"}, NameCase{"Day_and_Night", "B3678/S34678"},
        NameCase{"DayNight", "B3678/S34678"}, NameCase{"PersianRugs", "B234/S"}, NameCase{"Long Life", "B345/S5"},
        // LifeWiki's list of Life-like cellular automata.
        NameCase{"Live Free or Die", "B2/S0"}, NameCase{"LifeWithoutDeath", "B3/S012345678"},
        NameCase{"Life without Death", "B3/S012345678"}, NameCase{"Replicator", "B1357/S1357"},
        NameCase{"Fredkin", "B1357/S02468"}, NameCase{"2x2", "B36/S125"}, NameCase{"Maze", "B3/S12345"},
        NameCase{"Mazectric", "B3/S1234"}, NameCase{"Coral", "B3/S45678"}, NameCase{"Morley", "B368/S245"},
        NameCase{"Move", "B368/S245"}, NameCase{"Anneal", "B4678/S35678"},
        NameCase{"Twisted Majority", "B4678/S35678"}, NameCase{"34Life", "B34/S34"}, NameCase{"34 Life", "B34/S34"},
        NameCase{"Walled Cities", "B45678/S2345"}, NameCase{"Vote", "B5678/S45678"},
        NameCase{"Majority", "B5678/S45678"}, NameCase{"Stains", "B3678/S235678"},
        NameCase{"Coagulations", "B378/S235678"}, NameCase{"Amoeba", "B357/S1358"}, NameCase{"Bacteria", "B34/S456"},
        NameCase{"Assimilation", "B345/S4567"}, NameCase{"Holstein", "B35678/S4678"}, NameCase{"Gnarl", "B1/S1"},
        NameCase{"DotLife", "B3/S023"}, NameCase{"EightLife", "B3/S238"}, NameCase{"Pedestrian Life", "B38/S23"},
        NameCase{"DryLife", "B37/S23"}, NameCase{"HoneyLife", "B38/S238"}, NameCase{"PseudoLife", "B357/S238"},
        NameCase{"Pseudo Life", "B357/S238"}, NameCase{"Iceballs", "B25678/S5678"}));

struct Refusal {
    const char* text;
    const char* fragment;  // must appear in the message (lower-cased comparison)
};

void PrintTo(const Refusal& c, std::ostream* os) { *os << "'" << c.text << "'"; }

class UnsupportedRule : public ::testing::TestWithParam<Refusal> {};

TEST_P(UnsupportedRule, RefusedWithWhatItIs) {
    const Refusal& c = GetParam();
    try {
        const RuleSpec spec = parse_rule(c.text);
        ADD_FAILURE() << "'" << c.text << "' was accepted as " << spec.to_string();
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::string("'") + c.text + "'"), std::string::npos) << msg;
        EXPECT_NE(lower(msg).find(lower(c.fragment)), std::string::npos)
            << "message for '" << c.text << "' lacks '" << c.fragment << "': " << msg;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, UnsupportedRule,
    ::testing::Values(
        Refusal{"", "empty rule"}, Refusal{"   ", "empty rule"}, Refusal{":T10,10", "empty rule"},
        // Generations, by notation and by name (Golly's Help/Algorithms/Generations.html).
        Refusal{"B2/S/C3", "generations"}, Refusal{"/2/3", "generations"}, Refusal{"345/2/4", "generations"},
        Refusal{"Brian's Brain", "generations rule /2/3"}, Refusal{"BriansBrain", "generations"},
        Refusal{"Star Wars", "generations rule 345/2/4"}, Refusal{"Xtasy", "generations"},
        // Larger than Life, by notation and by name.
        Refusal{"R2,C0,M1,S2..3,B3..3,NM", "larger than life"}, Refusal{"r5,c0,m1,s34..58,b34..45,nm", "larger than life"},
        Refusal{"Bosco's Rule", "larger than life"}, Refusal{"ModernArt", "larger than life"},
        // Hensel non-totalistic.
        Refusal{"B2n3/S23-q", "hensel"}, Refusal{"B3/S23-q", "hensel"}, Refusal{"B2-a/S12", "hensel"},
        Refusal{"B2cekin/S12", "hensel"},
        // Other neighbourhoods.
        Refusal{"B2/S34H", "hexagonal"}, Refusal{"B13/S012V", "von neumann"}, Refusal{"B2/S013v", "von neumann"},
        Refusal{"23/3H", "hexagonal"},
        // MAP rules and rule tables.
        Refusal{"MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA", "map"},
        Refusal{"WireWorld", "rule table"}, Refusal{"LifeHistory", "rule table"},
        // Unknown names: a close one is suggested, others are told what is accepted.
        Refusal{"Sesame", "not a life-like rule name"}, Refusal{"HighLfe", "did you mean HighLife"},
        Refusal{"Seed", "did you mean Seeds"}, Refusal{"Life2", "did you mean Life"},
        Refusal{"Turmite_121181121020", "rule tables"}, Refusal{"Banks-I", "rule tables"}, Refusal{"BBM-Margolus-emulated", "rule tables"},
        Refusal{"Worm-1040512", "rule tables"}, Refusal{"JvN29", "multi-state von neumann"}));

// What the issue reported as refused or misreported.
TEST(RuleNames, IssueExamples) {
    EXPECT_EQ(parse_rule("Seeds").to_string(), "B2/S");
    EXPECT_EQ(parse_rule("HighLife").to_string(), "B36/S23");
    EXPECT_EQ(parse_rule("Day&Night").to_string(), "B3678/S34678");
    EXPECT_EQ(parse_rule("DayAndNight").to_string(), "B3678/S34678");
    EXPECT_EQ(parse_rule("LifeWithoutDeath").to_string(), "B3/S012345678");
    EXPECT_EQ(parse_rule("HighLife:T100,80").to_string(), "B36/S23:T100,80");
    EXPECT_THROW(parse_rule("Sesame"), InputError);
    EXPECT_THROW(parse_rule(""), InputError);
}

// Golly writes '_' for '/' in some places and accepts it (Help/Algorithms/QuickLife.html).
TEST(RuleNames, UnderscoreForSlash) {
    EXPECT_EQ(parse_rule("B3_S23").to_string(), "B3/S23");
    EXPECT_EQ(parse_rule("b36_s23:T10,10").to_string(), "B36/S23:T10,10");
}

}  // namespace
}  // namespace tilelife
