// `run`'s pattern and board (prepare() in cmd_run.cpp). An RLE file going onto a bounded board is
// read straight into the board's rows as bits (CellSink): one bit per board cell instead of 16
// bytes per live cell, and no sorting, moving or listing of cells; the engine takes the rows with
// write_rows_packed. Anything else (other formats, unbounded boards, boards too large for bits)
// is read into a cell list as before; both ways give the same board, errors and report.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/huge_pages.hpp"
#include "tilelife/board_setup.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

struct LoadedBoard {
    Pattern pattern;              // its cells moved into `plan` (or never stored: see `rows`)
    std::int64_t population = 0;  // of the pattern as read
    Box bounding_box;             // of the pattern's cells, in the file's coordinates
    BoardPlan plan;               // plan.cells empty when the rows hold the cells

    // The board's rows [first_row, first_row + rows) as bits (Engine::read_rows_packed's layout),
    // when the cells were read that way.
    struct Rows {
        ZeroedBytes words;  // the whole board's rows
        std::int64_t first_row = 0, rows = 0, words_per_row = 0;
    };
    std::optional<Rows> rows;

    // Puts the cells on the engine made for `plan` (set_cells or write_rows_packed) and lets go of them.
    void put_on(Engine& engine);
};

// Reads `source` and plans its board. `budget`: the memory budget; the bits of a board are only
// used when they take at most a quarter of it.
LoadedBoard load_board(const std::string& source, const ReadLimits& limits, const BoardOverrides& overrides,
                       std::int64_t budget);

}  // namespace tilelife::cli
