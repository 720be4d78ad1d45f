// The format table (include/tilelife/formats.hpp): one row per format, pointing at its reader and
// writers in their own files.
#include "tilelife/formats.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "io/detail.hpp"

namespace tilelife {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// a + b and a * b, saturating at INT64_MAX (sizes of astronomically large patterns).
std::int64_t sat(CellCount v) { return v > static_cast<CellCount>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(v); }
std::int64_t sat_add(std::int64_t a, std::int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// Rows holding a live cell: the tree's bound when known, else one per box.width live cells.
std::uint64_t live_rows(const OutputShape& s) {
    if (s.live_rows > 0 || s.population == 0) return s.live_rows;
    const auto w = static_cast<CellCount>(std::max<std::int64_t>(s.box.width, 1));
    return static_cast<std::uint64_t>(std::min<CellCount>((s.population + w - 1) / w, CellCount{1} << 62));
}

// ---- detectors ----

// A header-less line Golly reads as RLE: only RLE data characters, and at least one run count,
// row end or terminator (Golly reads "obo" or "bob" as a picture instead).
bool looks_like_headerless_rle(std::string_view line) {
    bool marker = false;
    for (char c : line) {
        if ((c >= '0' && c <= '9') || c == '$' || c == '!') marker = true;
        else if (c != 'b' && c != 'o' && c != ' ' && c != '\t') return false;
    }
    return marker;
}
// Golly reads any file whose first line opens with '[' as a macrocell: "[M2]" as Golly writes it, and
// "[M1]" as Rokicki's hlife did (Golly's own caterpillar.mc.gz starts so).
bool is_macrocell(std::string_view l) { return l[0] == '['; }
// Golly reads a file that opens with a "#P x y" block as Life 1.05.
bool is_life105(std::string_view l) { return starts_with(l, "#Life 1.05") || starts_with(l, "#P"); }
bool is_life106(std::string_view l) { return starts_with(l, "#Life 1.06"); }
bool is_plaintext(std::string_view l) { return l[0] == '!' || l[0] == '.' || l[0] == 'O' || l[0] == '*'; }
// Comments ("#N", "#CXRLE", ...) but not another "#Life" version, a header, or header-less runs.
bool is_rle(std::string_view l) {
    return (l[0] == '#' && !starts_with(l, "#Life")) || l[0] == 'x' || looks_like_headerless_rle(l);
}

// ---- readers (src/io/rle.cpp, life.cpp, plaintext.cpp, macrocell.cpp) ----

Pattern read_rle(std::string_view t, const std::string& s, const ReadLimits& l, CellSink* sink) {
    return io::parse_rle(t, s, l, sink);
}
Pattern read_life105(std::string_view t, const std::string& s, const ReadLimits& l, CellSink*) {
    return io::parse_life105(t, s, l);
}
Pattern read_life106(std::string_view t, const std::string& s, const ReadLimits& l, CellSink*) {
    return io::parse_life106(t, s, l);
}
Pattern read_plaintext(std::string_view t, const std::string& s, const ReadLimits& l, CellSink*) {
    return io::parse_plaintext(t, s, l);
}
Pattern read_macrocell(std::string_view t, const std::string& s, const ReadLimits& l, CellSink*) {
    return io::parse_macrocell(t, s, l);
}

// ---- writers (src/io/writers.cpp, macrocell.cpp) ----

std::string rle_from_cells(const std::vector<Cell>& c, const PatternMeta& m) { return format_rle(c, m); }
void rle_from_tree(const Quadtree& t, const PatternMeta& m, std::int64_t max_bytes, const TextSink& sink) {
    write_rle_tree(t, m, max_bytes, sink);
}
std::string cells_from_cells(const std::vector<Cell>& c, const PatternMeta& m) { return format_plaintext(c, m); }
std::string mc_from_cells(const std::vector<Cell>& c, const PatternMeta& m) {
    return format_macrocell(Quadtree::from_cells(c), m);
}
void mc_from_tree(const Quadtree& t, const PatternMeta& m, std::int64_t, const TextSink& sink) { write_macrocell(t, m, sink); }

// ---- estimates: lower bounds of the bytes ----

// Every row with a live cell takes at least a run ("o") and its end ("$" or "!").
std::int64_t rle_estimate(const OutputShape& s) { return sat_mul(2, static_cast<std::int64_t>(std::min<std::uint64_t>(live_rows(s), INT64_MAX / 2))); }
// An 'O' per live cell and a line end per row of the bounding box (trailing dots are dropped).
std::int64_t cells_estimate(const OutputShape& s) {
    return s.population == 0 ? 0 : sat_add(sat(s.population), s.box_exact ? s.box.height : 1);
}
// One node line (at least "4 1 0 0 0\n", 10 bytes) per level between the leaves and a root over the
// box: identical squares are written once, so the node count itself bounds nothing from below.
std::int64_t mc_estimate(const OutputShape& s) {
    if (s.population == 0) return 0;
    if (!s.box_exact) return 10;
    const auto side = static_cast<std::uint64_t>(std::max(s.box.width, s.box.height));
    const int levels = std::max(1, static_cast<int>(std::bit_width(side - 1)) - 2);
    return 10 * levels;
}
// Pixels at one per cell (images are checked against their own limits).
std::int64_t png_estimate(const OutputShape& s) {
    return s.population == 0 || !s.box_exact ? 1 : sat_mul(s.box.width, s.box.height);
}

const std::array<FormatInfo, 6>& table() {
    static const std::array<FormatInfo, 6> rows{{
        {"mc", "macrocell", PatternFormat::macrocell, OutputFormat::macrocell, {".mc"}, true, false, is_macrocell,
         read_macrocell, mc_from_cells, write_macrocell, mc_from_tree, mc_estimate},
        {"life105", "Life 1.05", PatternFormat::life105, std::nullopt, {}, false, false, is_life105, read_life105,
         nullptr, nullptr, nullptr, nullptr},
        {"life106", "Life 1.06", PatternFormat::life106, std::nullopt, {}, false, false, is_life106, read_life106,
         nullptr, nullptr, nullptr, nullptr},
        {"cells", "plaintext", PatternFormat::plaintext, OutputFormat::plaintext, {".cells"}, true, false, is_plaintext,
         read_plaintext, cells_from_cells, write_plaintext, nullptr, cells_estimate},
        {"rle", "RLE", PatternFormat::rle, OutputFormat::rle, {".rle"}, true, false, is_rle, read_rle, rle_from_cells,
         write_rle, rle_from_tree, rle_estimate},
        {"png", "PNG", std::nullopt, OutputFormat::png, {".png"}, false, true, nullptr, nullptr, nullptr, nullptr,
         nullptr, png_estimate},
    }};
    return rows;
}

constexpr std::array<OutputFormat, 4> kOutputOrder{OutputFormat::rle, OutputFormat::plaintext, OutputFormat::macrocell,
                                                   OutputFormat::png};

}  // namespace

std::span<const FormatInfo> formats() { return table(); }

const FormatInfo& format_info(OutputFormat f) {
    for (const FormatInfo& row : table())
        if (row.write_as == f) return row;
    throw RuntimeError("internal error: output format without a row in the format table");
}

const FormatInfo* format_info(PatternFormat f) {
    for (const FormatInfo& row : table())
        if (row.read_as == f) return &row;
    return nullptr;
}

std::string output_format_names() {
    std::string out;
    for (std::size_t i = 0; i < kOutputOrder.size(); ++i) {
        if (i > 0) out += i + 1 == kOutputOrder.size() ? " or " : ", ";
        out += format_info(kOutputOrder[i]).name;
    }
    return out;
}

std::string output_extensions() {
    std::string plain, gz;
    for (OutputFormat f : kOutputOrder)
        for (std::string_view ext : format_info(f).extensions) {
            plain += (plain.empty() ? "" : ", ") + std::string(ext);
            if (format_info(f).gzip) gz += (gz.empty() ? "" : ", ") + std::string(ext) + ".gz";
        }
    return gz.empty() ? plain : plain + ", and " + gz;
}

OutputShape shape_of(const Quadtree& tree) {
    OutputShape s;
    s.population = tree.population();
    s.box = tree.bounding_box();
    s.tree_nodes = static_cast<std::int64_t>(tree.nodes().size());
    // Rows with a live cell: a square has at least as many as the taller of its halves' own (one
    // pass: children come before parents).
    std::vector<std::uint64_t> rows(tree.nodes().size() + 1, 0);
    for (Quadtree::Index i = 1; i <= tree.nodes().size(); ++i) {
        const Quadtree::Node& n = tree.node(i);
        if (n.level == Quadtree::leaf_level) {
            for (int r = 0; r < 8; ++r) rows[i] += ((n.bits >> (8 * r)) & 0xffu) != 0;
        } else {
            const auto& k = n.kids;
            rows[i] = std::min<std::uint64_t>(std::max(rows[k[0]], rows[k[1]]) + std::max(rows[k[2]], rows[k[3]]),
                                              std::uint64_t{1} << 62);
        }
    }
    s.live_rows = rows[tree.root()];
    return s;
}

OutputShape shape_of(const std::vector<Cell>& cells) {
    OutputShape s;
    s.population = cells.size();
    s.box = bounding_box(cells);
    return s;
}

std::int64_t listing_bytes(const FormatInfo& format, const OutputShape& shape) {
    const std::int64_t list = sat_mul(sat(shape.population), static_cast<std::int64_t>(sizeof(Cell)));
    return format.image || !format.estimate ? list : sat_add(list, format.estimate(shape));
}

}  // namespace tilelife
