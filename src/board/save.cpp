// Saving boards and patterns (tilelife/board.hpp): the one place that decides how a board is
// written: from its tree, from its rows of bits, or from its listed cells.
#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/formats.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {

std::vector<Cell> golly_cells(const Engine& engine, Cell golly_offset) {
    std::vector<Cell> cells = engine.live_cells();
    if (golly_offset != Cell{})
        for (Cell& c : cells) c = Cell{c.x + golly_offset.x, c.y + golly_offset.y};
    return cells;
}

void write_board(OutputFormat format, const Engine& engine, const BoardPlan& plan, PatternMeta meta,
                 const TextSink& sink) {
    meta.rule = rule_for_output(plan.spec);
    // The writers come from the format table (formats.hpp), chosen by what the board has.
    const FormatInfo& writer = format_info(format);
    if (writer.image) throw InputError("a " + std::string(writer.title) + " is an image, not a pattern text");
    // Tree engines (unbounded, so no offset) write straight from their tree: a huge pattern is never
    // listed. RLE no larger than tilelife reads back (beyond it the tree says: write macrocell).
    if (writer.from_tree)
        if (const auto tree = engine.quadtree(); tree && plan.golly_offset.x == 0 && plan.golly_offset.y == 0)
            return writer.from_tree(*tree, meta, ReadLimits{}.max_file_bytes, sink);
    // A bounded board is written from its rows as bits (bit-packed engines hand over their words):
    // no list of cells, 16 bytes each, for a dense board. Unbounded boards can be huge and sparse
    // (a gun's glider stream): their live cells are listed.
    if (plan.spec.topology != Topology::unbounded && writer.from_rows) {
        const Box e = engine.extent();
        const PackedRows rows{e.width, e.height, Cell{e.x + plan.golly_offset.x, e.y + plan.golly_offset.y},
                              [&engine, e](std::int64_t y, std::int64_t n, std::uint64_t* words) {
                                  engine.read_rows_packed(e.y + y, n, words);
                              }};
        return writer.from_rows(rows, meta, sink);
    }
    sink(writer.from_cells(golly_cells(engine, plan.golly_offset), meta));
}

std::string format_board(OutputFormat format, const Engine& engine, const BoardPlan& plan, PatternMeta meta) {
    std::string out;
    write_board(format, engine, plan, std::move(meta), [&out](std::string_view text) { out += text; });
    return out;
}

void save_board(const OutputTarget& target, const Engine& engine, const BoardPlan& plan, PatternMeta meta) {
    if (target.format == OutputFormat::png)
        throw InputError(target.path + ": a PNG is an image of the board, written by the command line (tilelife run -o)");
    OutputFile file(target.path, target.gzip ? OutputFile::Compression::gzip : OutputFile::Compression::none);
    write_board(target.format, engine, plan, std::move(meta), [&file](std::string_view text) { file.write(text); });
    file.commit();
}

void write_pattern(OutputFormat format, const Pattern& pattern, const PatternMeta& meta, const ReadLimits& limits,
                   const TextSink& sink) {
    const FormatInfo& writer = format_info(format);
    if (writer.image) throw InputError("a " + std::string(writer.title) + " is an image, not a pattern text");
    if (pattern.tree && pattern.cells.empty() && writer.from_tree)  // RLE no larger than tilelife reads back
        return writer.from_tree(*pattern.tree, meta, limits.max_file_bytes, sink);
    if (pattern.tree && pattern.cells.empty() && pattern.tree->root() != 0) {
        if (pattern.tree->population() > static_cast<CellCount>(limits.max_cells))
            throw InputError("more than " + std::to_string(limits.max_cells) + " live cells to list for " +
                             std::string(writer.name) + " (macrocell and RLE are written from the tree)");
        return sink(writer.from_cells(pattern.tree->cells(), meta));
    }
    sink(writer.from_cells(pattern.cells, meta));
}

}  // namespace tilelife
