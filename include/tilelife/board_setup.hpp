// From a pattern file and the user's overrides to a board: rule, topology, size and where the cells go.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {

struct BoardOverrides {
    std::optional<std::string> rule;            // --rule (may carry a :T/:P suffix)
    std::optional<Topology> topology;           // --topology
    std::optional<std::int64_t> width, height;  // --size
};

struct BoardPlan {
    BoardSpec spec;          // rule, topology, size (unbounded: an initial size hint)
    std::vector<Cell> cells; // live cells in engine coordinates (board indices when bounded)
    // Engine coordinate -> Golly's coordinate: Golly's bounded grid has its top-left cell at
    // (-W/2, -H/2), so bounded boards write positions shifted by this; unbounded ones by 0.
    Cell golly_offset;
};

// Resolves the rule (--rule, else the file's, else B3/S23), topology (--topology, else the rule's
// suffix, else unbounded) and size (--size, else the suffix's, else the pattern's frame), and places
// the cells as Golly does. Throws InputError naming `source` for a bad rule or a pattern that does
// not fit the board.
BoardPlan plan_board(const Pattern& pattern, const BoardOverrides& overrides, const std::string& source);
// The same, taking the pattern's cells (moved in, placed in place) instead of copying
// pattern.cells: a large soup's cell list is not duplicated. pattern.cells is not read.
BoardPlan plan_board(const Pattern& pattern, std::vector<Cell> cells, const BoardOverrides& overrides,
                     const std::string& source);

// The rule text to write into an output file: "B3/S23", plus ":Tw,h" / ":Pw,h" for bounded boards.
std::string rule_for_output(const BoardSpec& spec);

}  // namespace tilelife
