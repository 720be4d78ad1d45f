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

// Resolves the rule (the override, else the file's, else B3/S23), topology (the override, else the
// rule's suffix, else unbounded) and size (the override, else the suffix's, else the pattern's frame),
// and places the cells as Golly does. Throws InputError naming `source` for a bad rule in the file or
// a pattern that does not fit the board, and InputError for a size given for an unbounded board.
// (A rule with B0 on an unbounded board is refused by create_engine.)
BoardPlan plan_board(const Pattern& pattern, const BoardOverrides& overrides, const std::string& source);
// The same, taking the pattern's cells (moved in, placed in place) instead of copying
// pattern.cells: a large soup's cell list is not duplicated. pattern.cells is not read.
BoardPlan plan_board(const Pattern& pattern, std::vector<Cell> cells, const BoardOverrides& overrides,
                     const std::string& source);

// The rule text to write into an output file: "B3/S23", plus ":Tw,h" / ":Pw,h" for bounded boards.
std::string rule_for_output(const BoardSpec& spec);

// The engine's live cells in Golly's coordinates (engine coordinates + golly_offset), sorted by (y, x).
std::vector<Cell> golly_cells(const Engine& engine, Cell golly_offset);
// The board saved as Golly would save it, so that Golly opens it where it was computed: the live
// cells in Golly's coordinates, the board's rule with its :T/:P suffix (meta.rule is replaced), and
// meta's generation, name, authors and comments. Run outputs, checkpoints and the viewer's saves.
std::string format_board(OutputFormat format, const Engine& engine, const BoardPlan& plan, PatternMeta meta);

}  // namespace tilelife
