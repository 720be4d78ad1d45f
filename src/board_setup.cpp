#include "tilelife/board_setup.hpp"

#include "tilelife/error.hpp"

namespace tilelife {

BoardPlan plan_board(const Pattern& pattern, const BoardOverrides& overrides, const std::string& source) {
    return plan_board(pattern, pattern.cells, overrides, source);
}

BoardPlan plan_board(const Pattern& pattern, std::vector<Cell> cells, const BoardOverrides& overrides,
                     const std::string& source) {
    RuleSpec rs;
    try {
        rs = parse_rule(overrides.rule ? *overrides.rule : pattern.rule.value_or("B3/S23"));
    } catch (const InputError& e) {
        throw InputError(overrides.rule ? std::string(e.what()) : located(source, 0, e.what()));
    }
    BoardPlan plan;
    plan.spec.rule = rs.rule;
    plan.spec.topology = overrides.topology ? *overrides.topology
                                            : (rs.grid ? rs.grid->topology : Topology::unbounded);
    const Box frame = pattern.frame.empty() ? bounding_box(cells) : pattern.frame;
    if (overrides.width) {
        plan.spec.width = *overrides.width;
        plan.spec.height = *overrides.height;
    } else if (rs.grid) {
        plan.spec.width = rs.grid->width;
        plan.spec.height = rs.grid->height;
    } else {
        plan.spec.width = std::max<std::int64_t>(1, frame.width);
        plan.spec.height = std::max<std::int64_t>(1, frame.height);
    }

    if (plan.spec.topology == Topology::unbounded) {
        if (plan.spec.rule.birth & 1u)
            throw InputError(located(overrides.rule ? "--rule" : source, 0,
                                     "rule " + plan.spec.rule.to_string() +
                                         " has B0 and cannot run on an unbounded board (use --topology torus or plane)"));
        plan.cells = std::move(cells);  // the file's own coordinates
        return plan;
    }
    const std::int64_t W = plan.spec.width, H = plan.spec.height;
    // Golly: the grid's top-left is (-W/2, -H/2); positioned files keep their coordinates, others put
    // their frame's top-left at (-fw/2, -fh/2) — i.e. centred, and a frame the board's size fills it.
    std::int64_t dx = W / 2, dy = H / 2;
    if (!pattern.positioned) {
        dx -= frame.width / 2 + frame.x;
        dy -= frame.height / 2 + frame.y;
    }
    plan.golly_offset = Cell{-(W / 2), -(H / 2)};
    const Box bb = bounding_box(cells);
    if (!bb.empty() && (bb.x + dx < 0 || bb.y + dy < 0 || bb.right() + dx > W || bb.bottom() + dy > H))
        throw InputError(located(source, 0,
                                 "the pattern (" + std::to_string(bb.width) + "x" + std::to_string(bb.height) +
                                     ") does not fit the " + std::to_string(W) + "x" + std::to_string(H) + " " +
                                     std::string(to_string(plan.spec.topology)) + " board"));
    for (Cell& c : cells) c = Cell{c.x + dx, c.y + dy};
    plan.cells = std::move(cells);
    return plan;
}

std::string rule_for_output(const BoardSpec& spec) {
    RuleSpec rs{spec.rule, std::nullopt};
    if (spec.topology != Topology::unbounded) rs.grid = GridSuffix{spec.topology, spec.width, spec.height};
    return rs.to_string();
}

}  // namespace tilelife
