// Life-like (2-state, outer-totalistic, Moore neighbourhood) rules and board topologies.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilelife {

enum class Topology {
    unbounded,  // infinite plane (a board that grows with the pattern)
    torus,      // both edges wrap (Golly :T)
    plane,      // bounded, outside cells permanently dead (Golly :P)
};

std::string_view to_string(Topology t);
// "unbounded" | "torus" | "plane"; nullopt otherwise.
std::optional<Topology> parse_topology(std::string_view text);

struct Rule {
    // Bit n (0..8) set: a dead cell with n live neighbours is born / a live one survives.
    std::uint16_t birth = 0;
    std::uint16_t survival = 0;

    bool next(bool alive, int neighbours) const {
        return ((alive ? survival : birth) >> neighbours) & 1u;
    }
    // Canonical "B3/S23" (empty sets print as "B/S23", "B2/S").
    std::string to_string() const;
    static Rule life() { return Rule{1u << 3, (1u << 2) | (1u << 3)}; }
    friend bool operator==(const Rule&, const Rule&) = default;
};

// A bounded grid given by a rule suffix such as ":T64,32" or ":P100,80".
struct GridSuffix {
    Topology topology = Topology::torus;  // torus or plane
    std::int64_t width = 0;
    std::int64_t height = 0;
    friend bool operator==(const GridSuffix&, const GridSuffix&) = default;
};

struct RuleSpec {
    Rule rule;
    std::optional<GridSuffix> grid;
    // "B3/S23" or "B3/S23:T64,32" (Golly's spelling of the suffix).
    std::string to_string() const;
};

// Parses "B3/S23", "b3s23", "B36/S23", "B2/S", "B3_S23", "23/3" (S/B), and the names Golly and LifeWiki
// give Life-like rules ("Life", "HighLife", "Day & Night", "Seeds", ..., case-insensitive; README.md
// lists them), optionally with ":Tw,h" / ":Pw,h". Throws InputError("bad rule 'TEXT': reason") for
// anything else, naming what it is when it is a known kind (Generations, Larger than Life, Hensel
// non-totalistic, von Neumann / hexagonal, MAP, rule tables) and the Golly topologies we do not
// support (:K, :C, :S, shifted tori, zero dimensions).
RuleSpec parse_rule(std::string_view text);

}  // namespace tilelife
