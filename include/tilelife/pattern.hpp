// Pattern files: reading (RLE, Life 1.05, Life 1.06, plaintext, Golly macrocell, gzip of any of them,
// and "random:WxH[:density[:seed]]") and writing (RLE, plaintext), kept apart from simulation.
#pragma once
#include <cstdint>
#include <memory>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilelife/geometry.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife {

enum class PatternFormat { rle, life105, life106, plaintext, macrocell, random };
std::string_view to_string(PatternFormat f);  // "RLE", "Life 1.05", "Life 1.06", "plaintext", ...

struct Pattern {
    PatternFormat format = PatternFormat::rle;
    // Live cells in the file's own coordinates: RLE/plaintext cells relative to the top-left of the
    // pattern (moved by "#CXRLE Pos=x,y" when present), Life 1.05/1.06 and macrocell in their own
    // coordinates. Sorted by (y, x), no duplicates.
    std::vector<Cell> cells;
    // The rectangle the file says the pattern occupies: RLE header x/y at Pos, plaintext's lines;
    // for the other formats the bounding box of the cells. Used to centre the pattern on a bounded
    // board exactly as Golly does (top-left at board_size/2 - frame_size/2).
    Box frame;
    // True when the cells carry absolute positions (RLE with "#CXRLE Pos", Life 1.05/1.06,
    // macrocell): Golly then puts them at their coordinates on a bounded grid instead of centring.
    bool positioned = false;
    std::optional<std::string> rule;  // rule text as written in the file, suffix included
    std::int64_t generation = 0;      // "#CXRLE Gen=" / macrocell "#G"
    std::string name;                   // "#N" line or plaintext "!Name:"
    std::vector<std::string> authors;   // "#O" lines or plaintext "!Author:"
    std::vector<std::string> comments;  // "#C"/"#D" lines, plaintext "!" lines
    // Macrocell input: the file's tree (its cells also in `cells` unless the reader was told not
    // to list them, ReadLimits::list_tree_cells). Huge patterns are counted, bounded, run by tree
    // engines and written from it without ever being listed.
    std::shared_ptr<const Quadtree> tree;

    Box bounding_box() const;  // of the live cells (from the tree when it has one); empty box when none
};

// Limits that keep a hostile file from exhausting memory or time before any large allocation.
struct ReadLimits {
    std::int64_t max_cells = std::int64_t{1} << 31;         // live cells stored
    std::int64_t max_file_bytes = std::int64_t{1} << 30;    // after decompression
    // Macrocell: also list the tree's cells in Pattern::cells (checked against max_cells). False:
    // only Pattern::tree, for callers that count, convert or run the tree itself.
    bool list_tree_cells = true;
};

// Live cells along a row: (x, y), (x + 1, y), ..., (x + length - 1, y).
struct CellRun {
    std::int64_t x = 0, y = 0, length = 0;
};

// Where a reader can hand over the cells as it reads them instead of storing them in
// Pattern::cells (16 bytes per live cell): for a large pattern going onto a board. RLE files with
// a header stream their cells; other formats and header-less RLE never call start() and store
// their cells as usual.
class CellSink {
public:
    virtual ~CellSink() = default;
    // Before the first cell: the pattern as known so far (the header's frame and rule, the position
    // and generation of "#CXRLE", the name and comments above the cells; no cells). True: hand the
    // cells to add(); false: store them in Pattern::cells as usual.
    virtual bool start(const Pattern& header) = 0;
    // Runs in (y, x) order, none overlapping, in the file's coordinates, in batches.
    virtual void add(const CellRun* runs, std::size_t count) = 0;
};

// Reads a file (gzip detected by its magic bytes), standard input ("-", named "stdin" in messages)
// or a "random:WxH[:density[:seed]]" spec. The format is detected from the content. Throws InputError
// naming the file (and line). With a sink whose start() accepted the cells, the returned pattern has
// none (and its `rule`, `frame`, `positioned` and `generation` may still differ from start()'s if
// lines after the cells changed them: a caller checks).
Pattern read_pattern(const std::string& path_or_spec, const ReadLimits& limits = {}, CellSink* sink = nullptr);
// Parses text already in memory; `source` names it in error messages.
Pattern parse_pattern(std::string_view text, const std::string& source, const ReadLimits& limits = {},
                      CellSink* sink = nullptr);

// What a written pattern carries besides its cells.
struct PatternMeta {
    std::string rule;                   // any spelling parse_rule reads, suffix included; empty: B3/S23
    std::int64_t generation = 0;
    std::string name;
    std::vector<std::string> authors;
    std::vector<std::string> comments;  // one line each
};
// A read pattern's metadata: its name, authors, comments, generation, and its rule (B3/S23 when the
// file gives none).
PatternMeta meta_of(const Pattern& pattern);

// Golly-identical RLE text: "#CXRLE Pos=x,y[ Gen=g]" line, then "#N", "#O" and "#C" lines for the
// metadata, header "x = W, y = H, rule = RULE" (the canonical spelling) over the cells' bounding box,
// runs wrapped at 70 characters, "!" at the end.
std::string format_rle(const std::vector<Cell>& cells, const PatternMeta& meta);
std::string format_rle(const std::vector<Cell>& cells, const std::string& rule, std::int64_t generation);
// The same RLE written from a tree, row by row: never lists the cells or builds a board. A tree can
// describe more text than any memory holds (a 2^40-cell square: 2^40 rows): past `max_bytes` of
// text it stops and throws InputError.
std::string format_rle_tree(const Quadtree& tree, const PatternMeta& meta, std::int64_t max_bytes = INT64_MAX);
// Plaintext .cells: "!Name: NAME", "!Author: A" and "!" comment lines, then rows of 'O' and '.' over
// the cells' bounding box (no position, rule or generation: the format has none).
std::string format_plaintext(const std::vector<Cell>& cells, const PatternMeta& meta);
std::string format_plaintext(const std::vector<Cell>& cells, const std::string& name);
// Golly macrocell ([M2]) text, the same bytes as bgolly 3.3 writes for this tree from the second
// line on (the first names tilelife): "#R rule", "#G gen" when not 0, then the nodes, each once,
// children first, numbered from 1, leaves as 8 rows of '.'/'*' ended by '$'. The root is the tree's.
std::string format_macrocell(const Quadtree& tree, const std::string& rule, std::int64_t generation);
// The same with the metadata: "#N name", "#O author" and "#C comment" lines after "#R"/"#G", where
// Golly writes a pattern's comment lines (read back by read_pattern and by Golly).
std::string format_macrocell(const Quadtree& tree, const PatternMeta& meta);

// A board's rows as bits, for writing it without listing its cells: read(y, rows, words) fills rows
// [y, y + rows) of the width x height board, ceil(width / 64) words per row, cell x at bit x % 64 of
// word x / 64, bits past the width 0 (Engine::read_rows_packed's layout). `origin` is where the
// board's top-left cell goes in the file.
struct PackedRows {
    std::int64_t width = 0, height = 0;
    Cell origin;
    std::function<void(std::int64_t y, std::int64_t rows, std::uint64_t* words)> read;
};
// The same text as format_rle / format_plaintext of the board's live cells (moved by `origin`),
// written from the rows a band at a time: memory for one band, not for the cells. The write_
// forms hand the text to `sink` in pieces of about 64 KiB instead of returning it whole.
using TextSink = std::function<void(std::string_view text)>;
std::string format_rle(const PackedRows& rows, const PatternMeta& meta);
std::string format_plaintext(const PackedRows& rows, const PatternMeta& meta);
void write_rle(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink);
void write_plaintext(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink);
// Macrocell from the rows, a band at a time: the same cells and root (the smallest of level >= 4
// holding the live cells, placed as Quadtree places roots) as format_macrocell of their tree, but
// the nodes in the order the rows make them (leaves of 8 rows, then each level once the rows below
// it are done), not Golly's depth-first order. Memory: a band, one row of node numbers per level
// (O(width)) and a table sharing identical nodes, cleared when it holds 2^18 of them (repeated
// nodes are valid macrocell; only the file grows).
void write_macrocell(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink);
// format_macrocell's text handed to `sink` in pieces of about 64 KiB: memory for a piece, not the file.
void write_macrocell(const Quadtree& tree, const PatternMeta& meta, const TextSink& sink);
// format_rle_tree's text handed to `sink` in pieces of about 64 KiB; past `max_bytes` it throws
// InputError with part of the text already handed over (the caller drops the file).
void write_rle_tree(const Quadtree& tree, const PatternMeta& meta, std::int64_t max_bytes, const TextSink& sink);

// Output formats: pattern files and board images.
enum class OutputFormat { rle, plaintext, macrocell, png };
std::string_view to_string(OutputFormat f);                        // "rle", "cells", "mc", "png"
std::optional<OutputFormat> output_format_named(std::string_view word);  // the inverse; nullopt otherwise

// Where an output goes and how: the format from `format` when given, else from the name's extension
// (".rle", ".cells", ".mc", ".png", each pattern format also as ".gz"); "-" is standard output and
// needs `format`. InputError naming the path otherwise.
struct OutputTarget {
    std::string path;
    OutputFormat format = OutputFormat::rle;
    bool gzip = false;
    bool standard_output() const { return path == "-"; }
};
OutputTarget output_target(const std::string& path, std::optional<OutputFormat> format = std::nullopt);
// output_target(path).format.
OutputFormat output_format_for(const std::string& path);

// The text of a pattern in a pattern format (RLE, plaintext). This version writes no macrocell
// (InputError naming the format); PNG is an image, not text (InputError).
std::string format_pattern(OutputFormat format, const std::vector<Cell>& cells, const PatternMeta& meta);

// Writes text to `path` atomically (OutputFile: temp file in the same directory, then rename).
// Throws RuntimeError on I/O failure; an existing file is left untouched then.
void write_file_atomic(const std::string& path, std::string_view text);

}  // namespace tilelife
