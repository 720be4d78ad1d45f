// Rule and topology parsing. Accepts what Golly accepts for 2-state Moore outer-totalistic rules and
// its bounded-grid suffixes :T and :P; refuses the rest with a reason.
#include "tilelife/rule.hpp"

#include <cctype>
#include <algorithm>
#include <charconv>
#include <vector>

#include "tilelife/error.hpp"
#include "core/edit_distance.hpp"

namespace tilelife {

std::string_view to_string(Topology t) {
    switch (t) {
        case Topology::unbounded: return "unbounded";
        case Topology::torus: return "torus";
        case Topology::plane: return "plane";
    }
    return "?";
}

std::optional<Topology> parse_topology(std::string_view text) {
    if (text == "unbounded") return Topology::unbounded;
    if (text == "torus") return Topology::torus;
    if (text == "plane") return Topology::plane;
    return std::nullopt;
}

namespace {

std::string digits_of(std::uint16_t mask) {
    std::string s;
    for (int n = 0; n <= 8; ++n)
        if ((mask >> n) & 1u) s += static_cast<char>('0' + n);
    return s;
}

[[noreturn]] void bad(std::string_view text, const std::string& why) {
    throw InputError("bad rule '" + std::string(text) + "': " + why);
}

// Neighbour counts 0..8, each at most once.
std::uint16_t parse_counts(std::string_view whole, std::string_view digits) {
    std::uint16_t mask = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') bad(whole, std::string("unexpected character '") + c + "'");
        if (c == '9') bad(whole, "neighbour count 9 is impossible (at most 8 neighbours)");
        const std::uint16_t bit = static_cast<std::uint16_t>(1u << (c - '0'));
        if (mask & bit) bad(whole, std::string("neighbour count ") + c + " repeated");
        mask |= bit;
    }
    return mask;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The names Golly's help (Help/Algorithms/QuickLife.html) and LifeWiki's list of Life-like cellular
// automata give to Life-like rules.
struct NamedRule {
    const char* name;  // as Golly / LifeWiki spell it; matched through name_key()
    const char* rule;
};
constexpr NamedRule kNamedRules[] = {
    {"Life", "B3/S23"},
    {"Conway's Life", "B3/S23"},
    {"Game of Life", "B3/S23"},
    {"HighLife", "B36/S23"},
    {"Day & Night", "B3678/S34678"},
    {"DayNight", "B3678/S34678"},
    {"Seeds", "B2/S"},
    {"Live Free or Die", "B2/S0"},
    {"Serviettes", "B234/S"},
    {"Persian Rug", "B234/S"},
    {"Persian Rugs", "B234/S"},
    {"Life without Death", "B3/S012345678"},
    {"Replicator", "B1357/S1357"},
    {"Fredkin", "B1357/S02468"},
    {"2x2", "B36/S125"},
    {"Diamoeba", "B35678/S5678"},
    {"Maze", "B3/S12345"},
    {"Mazectric", "B3/S1234"},
    {"Coral", "B3/S45678"},
    {"Morley", "B368/S245"},
    {"Move", "B368/S245"},
    {"Anneal", "B4678/S35678"},
    {"Twisted Majority", "B4678/S35678"},
    {"34 Life", "B34/S34"},
    {"LongLife", "B345/S5"},
    {"Walled Cities", "B45678/S2345"},
    {"Vote", "B5678/S45678"},
    {"Majority", "B5678/S45678"},
    {"Stains", "B3678/S235678"},
    {"Coagulations", "B378/S235678"},
    {"Amoeba", "B357/S1358"},
    {"Bacteria", "B34/S456"},
    {"Assimilation", "B345/S4567"},
    {"Holstein", "B35678/S4678"},
    {"Gnarl", "B1/S1"},
    {"DotLife", "B3/S023"},
    {"EightLife", "B3/S238"},
    {"Pedestrian Life", "B38/S23"},
    {"DryLife", "B37/S23"},
    {"HoneyLife", "B38/S238"},
    {"Pseudo Life", "B357/S238"},
    {"Iceballs", "B25678/S5678"},  // Golly's Life-Like/ice-nine.rle: "an iceball forms"
};

// Names of rules that are not Life-like, so that they get a precise refusal rather than "unknown".
struct OtherRule {
    const char* key;
    const char* what;
};
constexpr OtherRule kOtherRules[] = {
    // Golly's Help/Algorithms/Generations.html.
    {"banners", "the Generations rule 2367/3457/5"},
    {"bloomerang", "the Generations rule 234/34678/24"},
    {"briansbrain", "the Generations rule /2/3"},
    {"caterpillars", "the Generations rule 124567/378/4"},
    {"cooties", "the Generations rule 23/2/8"},
    {"fireworks", "the Generations rule 2/13/21"},
    {"frogs", "the Generations rule 12/34/3"},
    {"lava", "the Generations rule 12345/45678/8"},
    {"lines", "the Generations rule 012345/458/3"},
    {"starwars", "the Generations rule 345/2/4"},
    {"sticks", "the Generations rule 3456/2/6"},
    {"transers", "the Generations rule 345/26/5"},
    {"xtasy", "the Generations rule 1456/2356/16"},
    // Golly's Help/Algorithms/Larger_than_Life.html.
    {"boscosrule", "the Larger than Life rule R5,C0,M1,S34..58,B34..45,NM"},
    {"bugs", "the Larger than Life rule R5,C0,M1,S34..58,B34..45,NM"},
    {"bugsmovie", "the Larger than Life rule R10,C0,M1,S123..212,B123..170,NM"},
    {"globe", "the Larger than Life rule R8,C0,M0,S163..223,B74..252,NM"},
    {"majorly", "the Larger than Life rule R7,C0,M1,S113..225,B113..225,NM"},
    {"modernart", "the Larger than Life rule R10,C255,M1,S2..3,B3..3,NM"},
    // Rule tables in Golly's Rules folder.
    {"lifehistory", "a multi-state rule table (Golly's LifeHistory.rule)"},
    {"wireworld", "a multi-state rule table (Golly's WireWorld.rule)"},
    {"langtonsloops", "a multi-state rule table (Golly's Langtons-Loops.rule)"},
    {"langtonsant", "a multi-state rule table (Golly's Langtons-Ant.rule)"},
    {"codd", "a multi-state rule table (Golly's Codd.rule)"},
    {"evoloop", "a multi-state rule table (Golly's Evoloop.rule)"},
    {"bylloop", "a multi-state rule table (Golly's Byl-Loop.rule)"},
    {"jvn29", "a multi-state von Neumann rule (Golly's JvN algorithm)"},
    {"nobili32", "a multi-state von Neumann rule (Golly's JvN algorithm)"},
    {"hutton32", "a multi-state von Neumann rule (Golly's JvN algorithm)"},
};

// "Day & Night", "day&night", "DayAndNight" and "Conway's Life" all become one key: lower case,
// '&' spelled "and", blanks and punctuation dropped.
std::string name_key(std::string_view text) {
    std::string key;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) key += static_cast<char>(std::tolower(u));
        else if (c == '&') key += "and";
        else if (c != ' ' && c != '\t' && c != '\'' && c != '-' && c != '_' && c != '.') return {};  // not a name
    }
    return key;
}

const NamedRule* find_named(std::string_view key) {
    for (const NamedRule& n : kNamedRules)
        if (key == name_key(n.name)) return &n;
    return nullptr;
}

[[noreturn]] void unknown_name(std::string_view whole, const std::string& key) {
    for (const OtherRule& o : kOtherRules)
        if (key == o.key) bad(whole, "this is " + std::string(o.what) + ", not a Life-like rule; only 2-state Life-like rules are supported");
    const NamedRule* best = nullptr;
    std::size_t best_distance = 3;  // suggest only close names
    for (const NamedRule& n : kNamedRules) {
        const std::size_t d = edit_distance(key, name_key(n.name));
        if (d < best_distance) best_distance = d, best = &n;
    }
    if (best)
        bad(whole, "unknown rule name (did you mean " + std::string(best->name) + ", " + best->rule + "?)");
    bad(whole, "not a Life-like rule name (Life, HighLife, Seeds, Day&Night, ... are; or give B../S..); "
               "Golly's rule tables and other multi-state rules are not supported");
}

// A word rather than notation: it starts with a letter that cannot begin B/S notation ("Seeds",
// "Turmite_121181121020"), or with B or S followed by a letter other than S or B ("Banks-I",
// "BBM-Margolus-emulated"; "BS" is B/S).
// "R5,C0,..." (Larger than Life) and "MAP..." are notation.
bool looks_like_name(std::string_view body) {
    const std::string s = lower(body);
    if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
    if (s[0] == 'r' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))) return false;
    if (s.rfind("map", 0) == 0) return false;
    if (s[0] != 'b' && s[0] != 's') return true;
    const char other = s[0] == 'b' ? 's' : 'b';
    return s.size() > 1 && std::isalpha(static_cast<unsigned char>(s[1])) && s[1] != other;
}

bool is_hensel_letter(char c) { return std::string_view("cekainyqjrtwz").find(c) != std::string_view::npos; }

[[noreturn]] void bad_letter_after_counts(std::string_view whole, char c) {
    if (c == 'h') bad(whole, "hexagonal (H) neighbourhoods are not supported, only the Moore neighbourhood");
    if (c == 'v') bad(whole, "von Neumann (V) neighbourhoods are not supported, only the Moore neighbourhood");
    if (c == '-' || is_hensel_letter(c)) bad(whole, "non-totalistic (Hensel) rules are not supported");
    bad(whole, "not a Life-like rule (expected B../S..)");
}

Rule parse_body(std::string_view whole, std::string_view body) {
    std::string s = lower(body);
    if (s.empty()) bad(whole, "empty rule");
    // Golly takes '_' for '/' (Help/Algorithms/QuickLife.html).
    for (char& c : s)
        if (c == '_') c = '/';
    if (s.rfind("map", 0) == 0) bad(whole, "MAP rules (512-entry rule tables) are not supported");
    if (s[0] == 'r' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1])))
        bad(whole, "Larger than Life rules (R..,C..,M..,S..,B..,N..) are not supported");
    if (s.find(',') != std::string::npos) bad(whole, "not a Life-like rule (expected B../S..)");
    if (s.find_first_of("bs") == std::string::npos) {
        // Old S/B form "23/3": survival digits, slash, birth digits.
        const auto slash = s.find('/');
        if (slash == std::string::npos) bad(whole, "not a Life-like rule (expected B../S.. or S/B digits)");
        if (s.find('/', slash + 1) != std::string::npos)
            bad(whole, "multi-state (Generations) rules are not supported (S/B/N has N states)");
        for (std::size_t k = 0; k < s.size(); ++k)
            if (s[k] != '/' && !std::isdigit(static_cast<unsigned char>(s[k])))
                bad_letter_after_counts(whole, s[k]);
        Rule r;
        r.survival = parse_counts(whole, std::string_view(s).substr(0, slash));
        r.birth = parse_counts(whole, std::string_view(s).substr(slash + 1));
        return r;
    }
    // B/S form in either order, with or without '/': "b3/s23", "B3S23", "S23/B3".
    Rule r;
    bool have_b = false, have_s = false;  // each part at most once
    std::size_t i = 0;
    while (i < s.size()) {
        const char letter = s[i++];
        if (letter != 'b' && letter != 's') {
            if (letter == 'c' || letter == 'g')
                bad(whole, "multi-state (Generations) rules are not supported (B../S../C.. has C states)");
            if (letter == 'h' || letter == 'v') bad_letter_after_counts(whole, letter);
            bad(whole, "not a Life-like rule (expected B../S..)");
        }
        std::size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j < s.size() && s[j] != 'b' && s[j] != 's' && s[j] != '/' &&
            (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '-'))
            bad_letter_after_counts(whole, s[j]);
        const std::uint16_t mask = parse_counts(whole, std::string_view(s).substr(i, j - i));
        bool& seen = letter == 'b' ? have_b : have_s;
        if (seen) bad(whole, std::string("'") + static_cast<char>(std::toupper(letter)) + "' given twice");
        seen = true;
        (letter == 'b' ? r.birth : r.survival) = mask;
        i = j;
        if (i < s.size() && s[i] == '/') {
            ++i;
            if (i >= s.size()) bad(whole, "trailing '/'");
        }
    }
    // Golly accepts either part alone: "B234" is B234/S, "S23" is B/S23 (Golly's persian-rugs.lif
    // says "#R B234").
    return r;
}

std::int64_t parse_dimension(std::string_view whole, std::string_view text) {
    if (text.empty()) bad(whole, "missing grid dimension");
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
        if (text.find_first_of("+-") != std::string_view::npos)
            bad(whole, "shifted tori are not supported");
        if (text.find('*') != std::string_view::npos) bad(whole, "twisted edges are not supported");
        bad(whole, "bad grid dimension '" + std::string(text) + "'");
    }
    if (v == 0) bad(whole, "a grid dimension of 0 (tube / infinite strip) is not supported");
    if (v < 0 || v > 2000000000) bad(whole, "grid dimension out of range 1..2000000000");
    return v;
}

GridSuffix parse_suffix(std::string_view whole, std::string_view suffix) {
    if (suffix.empty()) bad(whole, "empty grid suffix after ':'");
    const char kind = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    GridSuffix g;
    if (kind == 'T') g.topology = Topology::torus;
    else if (kind == 'P') g.topology = Topology::plane;
    else if (kind == 'K') bad(whole, "Klein bottle topology (:K) is not supported");
    else if (kind == 'C') bad(whole, "cross-surface topology (:C) is not supported");
    else if (kind == 'S') bad(whole, "sphere topology (:S) is not supported");
    else bad(whole, std::string("unknown grid topology ':") + suffix[0] + "'");
    const std::string_view dims = suffix.substr(1);
    const auto comma = dims.find(',');
    if (comma == std::string_view::npos) bad(whole, "grid suffix needs a width and a height (e.g. :T64,64)");
    g.width = parse_dimension(whole, dims.substr(0, comma));
    g.height = parse_dimension(whole, dims.substr(comma + 1));
    return g;
}

}  // namespace

std::string Rule::to_string() const { return "B" + digits_of(birth) + "/S" + digits_of(survival); }

std::string RuleSpec::to_string() const {
    std::string s = rule.to_string();
    if (grid) {
        s += grid->topology == Topology::torus ? ":T" : ":P";
        s += std::to_string(grid->width) + "," + std::to_string(grid->height);
    }
    return s;
}

RuleSpec parse_rule(std::string_view text) {
    // Surrounding blanks are tolerated (RLE headers often have them); inner blanks are not.
    std::size_t a = 0, b = text.size();
    while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
    const std::string_view t = text.substr(a, b - a);
    RuleSpec spec;
    const auto colon = t.find(':');
    // A name ("HighLife", "Day & Night", "Conway's Life"), blanks allowed, then the usual suffix.
    const std::string_view body = t.substr(0, colon);
    const std::string key = name_key(body);
    if (!key.empty()) {
        if (const NamedRule* named = find_named(key)) {
            spec.rule = parse_body(text, named->rule);
            if (colon != std::string_view::npos) spec.grid = parse_suffix(text, t.substr(colon + 1));
            return spec;
        }
        if (looks_like_name(body)) unknown_name(text, key);
    }
    for (char c : t)
        if (std::isspace(static_cast<unsigned char>(c))) bad(text, "blanks inside the rule");
    spec.rule = parse_body(text, t.substr(0, colon));
    if (colon != std::string_view::npos) spec.grid = parse_suffix(text, t.substr(colon + 1));
    return spec;
}

}  // namespace tilelife
