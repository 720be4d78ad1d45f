// The pattern and image formats in one table: for each its name, file extensions, detector, reader,
// writers and an estimate of its output's size. Readers, writers, output_target(), format_pattern()
// and the messages and help texts that list formats all come from it; adding a format is its own
// file and one row (src/io/formats.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {

// What is known of a result before any cell is listed: from an engine (population, a tree's bounding
// box and nodes) or from a list of cells.
struct OutputShape {
    CellCount population = 0;
    Box box;                      // the live cells' bounding box, or a box holding them when !box_exact
    bool box_exact = true;        // false: `box` is an engine's extent (its board, larger than the cells)
    std::int64_t tree_nodes = 0;  // distinct nodes of its quadtree; 0 when unknown
    // Rows that hold a live cell, at least (a lower bound from a tree); 0: unknown, counted as one
    // row per box.width live cells.
    std::uint64_t live_rows = 0;
};
// The shape of a tree (linear in its nodes) and of a list of cells (linear in the cells).
OutputShape shape_of(const Quadtree& tree);
OutputShape shape_of(const std::vector<Cell>& cells);

struct FormatInfo {
    std::string_view name;                 // "rle": --format, messages
    std::string_view title;                // "RLE": reports
    std::optional<PatternFormat> read_as;  // a format read_pattern() detects
    std::optional<OutputFormat> write_as;  // a format -o writes
    std::vector<std::string_view> extensions;  // output extensions, lower case (".rle"); the first is the usual one
    bool gzip = false;   // also written as EXT.gz (any input may be gzip-compressed)
    bool image = false;  // a picture of a board (written by the image module), not a pattern text
    // The first non-blank line of a file says it is this format. Tried in the table's order.
    bool (*detect)(std::string_view first_line) = nullptr;
    Pattern (*read)(std::string_view text, const std::string& source, const ReadLimits& limits,
                    CellSink* sink) = nullptr;
    // Writers: from a list of live cells (sorted or not), from a board's rows of bits (a band at a
    // time, pieces of text to the sink: memory for a band, not for the board), from a quadtree
    // (never listing its cells, text to the sink; InputError past max_bytes of text).
    std::string (*from_cells)(const std::vector<Cell>& cells, const PatternMeta& meta) = nullptr;
    void (*from_rows)(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink) = nullptr;
    void (*from_tree)(const Quadtree& tree, const PatternMeta& meta, std::int64_t max_bytes, const TextSink& sink) = nullptr;
    // At least this many bytes of output for a result of this shape (metadata not counted; images:
    // the uncompressed pixels at one pixel per cell). A lower bound, so a refusal built on it is
    // never wrong.
    std::int64_t (*estimate)(const OutputShape& shape) = nullptr;

    bool streams() const { return from_rows != nullptr; }  // a bounded board is written band by band
};

// Every format, in the order their detectors are tried.
std::span<const FormatInfo> formats();
const FormatInfo& format_info(OutputFormat f);
const FormatInfo* format_info(PatternFormat f);  // nullptr for random: specs
// "rle, cells, mc or png": the names -o/--format take, in OutputFormat order.
std::string output_format_names();
// ".rle, .cells, .mc, .png, and .rle.gz, .cells.gz, .mc.gz": the extensions -o takes.
std::string output_extensions();

// Memory that writing a result of this shape takes when its cells must be listed (16 bytes a cell)
// and its text is built whole (from_cells): saturates at INT64_MAX.
std::int64_t listing_bytes(const FormatInfo& format, const OutputShape& shape);

}  // namespace tilelife
