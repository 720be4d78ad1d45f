// From a pattern and the user's overrides to a board, in named steps: the rule, the topology, the
// size, where the cells go (as Golly places them).
#include "tilelife/board.hpp"

#include "tilelife/error.hpp"

namespace tilelife {
namespace {

// The override, else the file's rule, else B3/S23; a bad rule in the file names the file.
RuleSpec resolve_rule(const Pattern& pattern, const BoardOverrides& overrides, const std::string& source) {
    try {
        return parse_rule(overrides.rule ? *overrides.rule : pattern.rule.value_or("B3/S23"));
    } catch (const InputError& e) {
        throw InputError(overrides.rule ? std::string(e.what()) : located(source, 0, e.what()));
    }
}

// The override, else the rule's suffix, else the unbounded plane.
Topology resolve_topology(const RuleSpec& rs, const BoardOverrides& overrides) {
    if (overrides.topology) return *overrides.topology;
    return rs.grid ? rs.grid->topology : Topology::unbounded;
}

// The override, else the suffix's grid, else the pattern's frame. An unbounded board takes no size
// (it grows as it needs); its spec keeps the frame as an initial hint.
void resolve_size(BoardSpec& spec, const RuleSpec& rs, const BoardOverrides& overrides, const Box& frame) {
    if (overrides.width) {
        if (spec.topology == Topology::unbounded)
            throw InputError("a board size " + std::to_string(*overrides.width) + "x" + std::to_string(*overrides.height) +
                             " was given for an unbounded board, which grows as it needs: choose a torus or a plane, "
                             "or give no size");
        spec.width = *overrides.width;
        spec.height = *overrides.height;
    } else if (rs.grid) {
        spec.width = rs.grid->width;
        spec.height = rs.grid->height;
    } else {
        spec.width = std::max<std::int64_t>(1, frame.width);
        spec.height = std::max<std::int64_t>(1, frame.height);
    }
}

// Golly: the grid's top-left is (-W/2, -H/2); positioned files keep their coordinates, others put
// their frame's top-left at (-fw/2, -fh/2), i.e. centred, and a frame the board's size fills it.
// Moves the cells to board indices; InputError naming `source` when they do not fit.
void place_on_bounded_board(BoardPlan& plan, const Pattern& pattern, const Box& frame, std::vector<Cell>& cells,
                            const std::string& source) {
    const std::int64_t W = plan.spec.width, H = plan.spec.height;
    std::int64_t dx = W / 2, dy = H / 2;
    if (!pattern.positioned) {
        dx -= frame.width / 2 + frame.x;
        dy -= frame.height / 2 + frame.y;
    }
    plan.golly_offset = Cell{-(W / 2), -(H / 2)};
    plan.offset = Cell{dx, dy};
    // One pass moves the cells and checks them (a large soup is read once, not twice); the bounding
    // box is measured only for the message.
    bool outside = false;
    for (Cell& c : cells) {
        c = Cell{c.x + dx, c.y + dy};
        outside |= static_cast<std::uint64_t>(c.x) >= static_cast<std::uint64_t>(W) ||
                   static_cast<std::uint64_t>(c.y) >= static_cast<std::uint64_t>(H);
    }
    if (outside) {
        const Box bb = bounding_box(cells);
        throw InputError(located(source, 0,
                                 "the pattern (" + std::to_string(bb.width) + "x" + std::to_string(bb.height) +
                                     ") does not fit the " + std::to_string(W) + "x" + std::to_string(H) + " " +
                                     std::string(to_string(plan.spec.topology)) + " board"));
    }
}

}  // namespace

BoardPlan plan_board(const Pattern& pattern, const BoardOverrides& overrides, const std::string& source) {
    return plan_board(pattern, pattern.cells, overrides, source);
}

BoardPlan plan_board(const Pattern& pattern, std::vector<Cell> cells, const BoardOverrides& overrides,
                     const std::string& source) {
    const RuleSpec rs = resolve_rule(pattern, overrides, source);
    BoardPlan plan;
    plan.spec.rule = rs.rule;
    plan.spec.topology = resolve_topology(rs, overrides);
    const Box frame = pattern.frame.empty() ? bounding_box(cells) : pattern.frame;
    resolve_size(plan.spec, rs, overrides, frame);
    // Unbounded boards keep the file's own coordinates (rules with B0 are refused by create_engine).
    if (plan.spec.topology != Topology::unbounded) place_on_bounded_board(plan, pattern, frame, cells, source);
    plan.cells = std::move(cells);
    return plan;
}

std::string rule_for_output(const BoardSpec& spec) {
    RuleSpec rs{spec.rule, std::nullopt};
    if (spec.topology != Topology::unbounded) rs.grid = GridSuffix{spec.topology, spec.width, spec.height};
    return rs.to_string();
}

}  // namespace tilelife
