// Rule and topology parsing. Accepts what Golly accepts for 2-state Moore outer-totalistic rules and
// its bounded-grid suffixes :T and :P; refuses the rest with a reason.
#include "tilelife/rule.hpp"

#include <cctype>
#include <charconv>

#include "tilelife/error.hpp"

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

Rule parse_body(std::string_view whole, std::string_view body) {
    const std::string s = lower(body);
    if (s.empty()) bad(whole, "empty rule");
    if (s == "life" || s == "conway's life") return Rule::life();
    if (s.find_first_of("bs") == std::string::npos) {
        // Old S/B form "23/3": survival digits, slash, birth digits.
        const auto slash = s.find('/');
        if (slash == std::string::npos) bad(whole, "not a Life-like rule (expected B../S.. or S/B digits)");
        if (s.find('/', slash + 1) != std::string::npos)
            bad(whole, "multi-state (Generations) rules are not supported");
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
            if (letter == 'c' || letter == 'g') bad(whole, "multi-state (Generations) rules are not supported");
            if (letter == 'h' || letter == 'v') bad(whole, "only the Moore neighbourhood is supported");
            bad(whole, "not a Life-like rule (expected B../S..)");
        }
        std::size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j])) && s[j] != 'b' && s[j] != 's') {
            if (s[j] == 'h' || s[j] == 'v') bad(whole, "only the Moore neighbourhood is supported");
            bad(whole, "non-totalistic (Hensel) rules are not supported");
        }
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
    for (char c : t)
        if (std::isspace(static_cast<unsigned char>(c))) bad(text, "blanks inside the rule");
    RuleSpec spec;
    const auto colon = t.find(':');
    spec.rule = parse_body(text, t.substr(0, colon));
    if (colon != std::string_view::npos) spec.grid = parse_suffix(text, t.substr(colon + 1));
    return spec;
}

}  // namespace tilelife
