// Internal helpers shared by the pattern readers and writers (not part of the public API).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <string_view>
#include <vector>

#include "tilelife/error.hpp"
#include "core/huge_pages.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::io {

// Every cell a reader produces has |x|, |y| < 2^62, so the width of any box of cells fits in
// int64 (at most 2^63 - 1) and sums of a coordinate and a size cannot overflow.
inline constexpr std::int64_t kMaxCoord = std::int64_t{1} << 62;
inline bool in_range(std::int64_t v) { return v > -kMaxCoord && v < kMaxCoord; }

// Splits text into lines without copying. A line ends at "\n", "\r\n" or a lone "\r";
// the terminator is not part of the line. Numbers are 1-based.
class Lines {
public:
    explicit Lines(std::string_view text) : text_(text) {}
    bool next(std::string_view& line);
    std::int64_t number() const { return number_; }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
    std::int64_t number_ = 0;
    // Positions of the next '\n' and '\r' at or after pos_ (text size when none), looked
    // up again once passed.
    std::size_t next_nl_ = 0, next_cr_ = 0;
};

[[noreturn]] inline void fail(const std::string& source, std::int64_t line, const std::string& reason) {
    throw InputError(located(source, line, reason));
}

std::string_view trim(std::string_view s);
bool is_blank(std::string_view s);
// A byte that can only come from a binary or corrupt file (control characters other than
// blanks, or non-ASCII), described for an error message. Inline: the RLE reader asks per byte.
inline bool is_garbage(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || u == 0x7f) return true;
    return u < 0x20 && c != '\t' && c != '\f' && c != '\v';
}
std::string describe_byte(char c);

// Whole-string signed decimal integer (optional leading '+'/'-'), nullopt-like via bool.
bool parse_int(std::string_view text, std::int64_t& out);

// Validates `text` with parse_rule and returns it trimmed; a bad rule becomes an InputError
// naming the file and line.
std::string checked_rule(std::string_view text, const std::string& source, std::int64_t line);

// Adds one live cell after checking the cell limit (refused before growing the vector).
inline void add_cell(std::vector<Cell>& cells, Cell c, const ReadLimits& limits, const std::string& source,
                     std::int64_t line) {
    if (static_cast<std::int64_t>(cells.size()) >= limits.max_cells)
        fail(source, line, "more than " + std::to_string(limits.max_cells) + " live cells (limit)");
    cells.push_back(c);
}

// Sorts by (y, x) and removes duplicates.
void normalize(std::vector<Cell>& cells);

// Refuses an output path that names a directory (InputError: the user named a folder, not a file).
void refuse_directory_output(const std::string& path);

Pattern parse_rle(std::string_view text, const std::string& source, const ReadLimits& limits, CellSink* sink = nullptr);
Pattern parse_life105(std::string_view text, const std::string& source, const ReadLimits& limits);
Pattern parse_life106(std::string_view text, const std::string& source, const ReadLimits& limits);
Pattern parse_plaintext(std::string_view text, const std::string& source, const ReadLimits& limits);
Pattern parse_macrocell(std::string_view text, const std::string& source, const ReadLimits& limits);
Pattern make_random(std::string_view spec, const ReadLimits& limits);

// Macrocell text pieces shared by the tree writer and the rows writer (macrocell.cpp): the lines
// before the nodes, and one leaf's line (8 rows of '.'/'*' ended by '$', trailing empty rows left off).
std::string macrocell_header(const PatternMeta& meta);
void append_macrocell_leaf(std::string& out, std::uint64_t bits);
// One node's line: its level and its four children's numbers.
void append_macrocell_node(std::string& out, int level, const std::array<std::uint32_t, 4>& kids);

bool is_gzip(std::string_view data);
// Decompressed gzip data, in memory of its own (huge pages when large).
struct Inflated {
    ZeroedBytes bytes;
    std::size_t size = 0;
    std::string_view text() const { return {static_cast<const char*>(bytes.data()), size}; }
};
Inflated gunzip(std::string_view data, const std::string& source, const ReadLimits& limits);

// A macrocell node line by its level and its children's numbers: what both macrocell writers (from a
// tree, src/io/macrocell.cpp; from rows, src/io/writers.cpp) key their tables of numbered nodes on, so
// that identical squares get one number.
struct MacrocellNode {
    int level;
    std::array<std::uint32_t, 4> kids;
    bool operator==(const MacrocellNode&) const = default;
};
struct MacrocellNodeHash {
    std::size_t operator()(const MacrocellNode& k) const {
        std::uint64_t h = static_cast<std::uint64_t>(k.level);
        for (std::uint32_t i : k.kids) h = (h ^ i) * 0x9E3779B97F4A7C15ull;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

}  // namespace tilelife::io
