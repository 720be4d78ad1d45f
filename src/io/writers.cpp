// Writers: RLE byte-identical to what Golly 3.3 saves (plus our "#CXRLE" position line and the
// pattern's name, authors and comments), plaintext .cells, and the output format chosen by name.
#include <cctype>
#include <charconv>
#include <filesystem>
#include <string>

#include "io/detail.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {
namespace {

bool strictly_sorted(const std::vector<Cell>& cells) {
    for (std::size_t i = 1; i < cells.size(); ++i) {
        const Cell& a = cells[i - 1];
        const Cell& b = cells[i];
        if (a.y > b.y || (a.y == b.y && a.x >= b.x)) return false;
    }
    return true;
}

// The cells sorted by (y, x) without duplicates: the caller's vector itself when it already is
// (engine output always is), else a normalised copy kept in `storage`.
const std::vector<Cell>& sorted_view(const std::vector<Cell>& cells, std::vector<Cell>& storage) {
    if (strictly_sorted(cells)) return cells;
    storage = cells;
    io::normalize(storage);
    return storage;
}

// Golly's line filling: a run ("<count><char>", the count left out when 1) goes on a new line when
// it would take the current line past 70 characters. Counts are formatted with to_chars into a
// small buffer and appended to `out` (reserved by the caller): no temporary strings per run.
class RunWriter {
public:
    explicit RunWriter(std::string& out) : out_(out) {}
    void put(std::int64_t count, char c) {
        char buf[24];
        char* end = buf;
        if (count > 1) end = std::to_chars(buf, buf + sizeof buf - 1, count).ptr;
        *end++ = c;
        const auto len = static_cast<std::size_t>(end - buf);
        if (line_len_ + len > 70) {
            out_ += '\n';
            line_len_ = 0;
        }
        out_.append(buf, len);
        line_len_ += len;
    }

private:
    std::string& out_;
    std::size_t line_len_ = 0;
};

// One metadata line: `prefix` and the text, which must stay on its one line.
void add_line(std::string& out, std::string_view prefix, std::string_view text) {
    out += prefix;
    for (char c : text) out += c == '\n' || c == '\r' ? ' ' : c;
    out += '\n';
}

// What an RLE file says before its runs: "#CXRLE" first (Golly reads it only before the header), the
// metadata Golly keeps there, then the header over `box` (an empty pattern has no position).
void rle_preamble(std::string& out, const Box& box, const PatternMeta& meta) {
    // Golly writes the canonical spelling ("23/3" -> "B3/S23", suffix kept as ":T64,32").
    const std::string rule_text = meta.rule.empty() ? Rule::life().to_string() : parse_rule(meta.rule).to_string();
    if (!box.empty()) out += "#CXRLE Pos=" + std::to_string(box.x) + "," + std::to_string(box.y);
    if (meta.generation != 0) out += (box.empty() ? "#CXRLE Gen=" : " Gen=") + std::to_string(meta.generation);
    if (!box.empty() || meta.generation != 0) out += "\n";
    if (!meta.name.empty()) add_line(out, "#N ", meta.name);
    for (const std::string& a : meta.authors) add_line(out, "#O ", a);
    for (const std::string& c : meta.comments) add_line(out, c.empty() ? "#C" : "#C ", c);
    // Golly writes an empty pattern as "x = 0, y = 0, rule = R" and "!".
    out += "x = " + std::to_string(box.width) + ", y = " + std::to_string(box.height) + ", rule = " + rule_text + "\n";
    if (box.empty()) out += "!\n";
}

}  // namespace

PatternMeta meta_of(const Pattern& p) {
    return PatternMeta{p.rule.value_or(Rule::life().to_string()), p.generation, p.name, p.authors, p.comments};
}

std::string format_rle(const std::vector<Cell>& input, const std::string& rule, std::int64_t generation) {
    return format_rle(input, PatternMeta{rule, generation, {}, {}, {}});
}

std::string format_rle(const std::vector<Cell>& input, const PatternMeta& meta) {
    std::vector<Cell> storage;
    const std::vector<Cell>& cells = sorted_view(input, storage);
    std::string out;
    const Box box = bounding_box(cells);
    rle_preamble(out, box, meta);
    if (cells.empty()) return out;
    // A soup takes about 1.5 bytes per live cell; a little more saves a late doubling.
    out.reserve(out.size() + cells.size() * 2 + 64);
    RunWriter w(out);
    std::int64_t row = box.y, col = box.x;
    std::size_t i = 0;
    while (i < cells.size()) {
        // One run of consecutive live cells.
        std::size_t j = i + 1;
        while (j < cells.size() && cells[j].y == cells[i].y && cells[j].x == cells[j - 1].x + 1) ++j;
        if (cells[i].y != row) {
            // Row ends are only written before live cells, so trailing empty rows vanish.
            w.put(cells[i].y - row, '$');
            row = cells[i].y;
            col = box.x;
        }
        if (cells[i].x > col) w.put(cells[i].x - col, 'b');
        w.put(static_cast<std::int64_t>(j - i), 'o');
        col = cells[j - 1].x + 1;
        i = j;
    }
    w.put(1, '!');
    out += '\n';
    return out;
}

std::string format_rle_tree(const Quadtree& tree, const PatternMeta& meta, std::int64_t max_bytes) {
    const Box box = tree.bounding_box();
    std::string out;
    rle_preamble(out, box, meta);
    if (box.empty()) return out;
    // Refused at once when the text is certainly too large: every row holding a live cell costs at
    // least 2 bytes, and a square has at least as many such rows as the taller of its halves' own
    // (a bound computed in one pass: children come before parents).
    {
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
        if (rows[tree.root()] > static_cast<std::uint64_t>(max_bytes / 2))
            throw InputError("its RLE text would be over " + std::to_string(max_bytes >> 20) + " MiB (at least " +
                             std::to_string(rows[tree.root()]) + " rows of live cells); write macrocell (.mc) instead");
    }
    // The runs of format_rle above, from the tree's rows: a run of live cells may cross pieces, so
    // it is only written when a dead cell (or the row's end) closes it.
    RunWriter w(out);
    std::int64_t row = box.y;
    const auto too_large = [&] {
        return InputError("its RLE text is over " + std::to_string(max_bytes >> 20) + " MiB; write macrocell (.mc) instead");
    };
    // The bands of pieces are bounded too: a row can cross 2^57 nonempty squares. 2^20 of them (a
    // band of rows over 8 million cells wide, nearly all live) take 16 MiB to list.
    const std::size_t max_pieces = static_cast<std::size_t>(std::clamp<std::int64_t>(max_bytes / 64, 1 << 16, 1 << 20));
    try {
    tree.for_each_row([&](std::int64_t y, const std::vector<Quadtree::RowPiece>& pieces) {
        if (static_cast<std::int64_t>(out.size()) > max_bytes) throw too_large();
        if (y != row) w.put(y - row, '$');
        row = y;
        std::int64_t col = box.x, run_start = 0, run_end = 0;  // [run_start, run_end): pending live run
        bool open = false;
        for (const Quadtree::RowPiece& p : pieces) {
            for (unsigned b = p.bits; b != 0;) {
                const int start = __builtin_ctz(b);
                const int len = __builtin_ctz(~(b >> start));
                const std::int64_t x0 = p.x + start;
                if (open && x0 == run_end) {
                    run_end += len;
                } else {
                    if (open) {
                        if (run_start > col) w.put(run_start - col, 'b');
                        w.put(run_end - run_start, 'o');
                        col = run_end;
                    }
                    run_start = x0;
                    run_end = x0 + len;
                    open = true;
                }
                b = len + start >= 8 ? 0u : (b >> (start + len)) << (start + len);
            }
        }
        if (open) {
            if (run_start > col) w.put(run_start - col, 'b');
            w.put(run_end - run_start, 'o');
        }
    }, nullptr, max_pieces);
    } catch (const InputError&) {
        throw InputError("a band of its rows crosses more than " + std::to_string(max_pieces) +
                         " nonempty 8x8 squares (too wide to list as RLE); write macrocell (.mc) instead");
    }
    if (static_cast<std::int64_t>(out.size()) > max_bytes) throw too_large();
    w.put(1, '!');
    out += '\n';
    return out;
}

std::string format_plaintext(const std::vector<Cell>& input, const std::string& name) {
    return format_plaintext(input, PatternMeta{"", 0, name, {}, {}});
}

std::string format_plaintext(const std::vector<Cell>& input, const PatternMeta& meta) {
    std::vector<Cell> storage;
    const std::vector<Cell>& cells = sorted_view(input, storage);
    std::string out;
    add_line(out, meta.name.empty() ? "!Name:" : "!Name: ", meta.name);
    for (const std::string& a : meta.authors) add_line(out, "!Author: ", a);
    for (const std::string& c : meta.comments) add_line(out, "!", c);
    if (cells.empty()) return out;
    const Box box = bounding_box(cells);
    std::int64_t row = box.y, col = box.x;
    for (const Cell& c : cells) {
        // Rows end at their last live cell (trailing dots dropped); empty rows are empty lines.
        for (; row < c.y; ++row) {
            out += '\n';
            col = box.x;
        }
        out.append(static_cast<std::size_t>(c.x - col), '.');
        out += 'O';
        col = c.x + 1;
    }
    out += '\n';
    return out;
}

std::string_view to_string(OutputFormat f) {
    switch (f) {
        case OutputFormat::rle: return "rle";
        case OutputFormat::plaintext: return "cells";
        case OutputFormat::macrocell: return "mc";
        case OutputFormat::png: return "png";
    }
    return "?";
}

std::optional<OutputFormat> output_format_named(std::string_view word) {
    for (OutputFormat f : {OutputFormat::rle, OutputFormat::plaintext, OutputFormat::macrocell, OutputFormat::png})
        if (word == to_string(f)) return f;
    return std::nullopt;
}

void io::refuse_directory_output(const std::string& path) {
    std::error_code ec;
    if (path.empty()) throw InputError("an empty output file name");
    if (path != "-" && std::filesystem::is_directory(path, ec))
        throw InputError(path + ": is a directory; name an output file");
}

OutputTarget output_target(const std::string& path, std::optional<OutputFormat> format) {
    io::refuse_directory_output(path);
    OutputTarget t{path, OutputFormat::rle, false};
    const auto lower_ext = [](const std::filesystem::path& p) {
        std::string ext = p.extension().string();
        for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return ext;
    };
    std::filesystem::path name(path);
    std::string ext = lower_ext(name);
    if (ext == ".gz") {
        t.gzip = true;
        ext = lower_ext(name.stem());
    }
    if (format) {
        t.format = *format;
    } else if (t.standard_output()) {
        throw InputError("standard output ('-') needs an output format (rle, cells, mc or png)");
    } else if (auto by_ext = output_format_named(ext.empty() ? ext : ext.substr(1))) {
        t.format = *by_ext;
    } else {
        throw InputError(located(path, 0,
                                 (ext.empty() ? std::string("no file extension") : "unsupported extension '" + ext + "'") +
                                     " for an output pattern (supported: .rle, .cells, .mc, .png, and .rle.gz, "
                                     ".cells.gz, .mc.gz)"));
    }
    if (t.gzip && t.format == OutputFormat::png) throw InputError(path + ": a PNG is not gzip-compressed");
#ifndef TILELIFE_HAVE_ZLIB
    if (t.gzip) throw InputError(path + ": gzip output needs zlib, which this build lacks (install zlib1g-dev and rebuild)");
#endif
    return t;
}

OutputFormat output_format_for(const std::string& path) { return output_target(path).format; }

std::string format_pattern(OutputFormat format, const std::vector<Cell>& cells, const PatternMeta& meta) {
    switch (format) {
        case OutputFormat::rle: return format_rle(cells, meta);
        case OutputFormat::plaintext: return format_plaintext(cells, meta);
        case OutputFormat::macrocell: return format_macrocell(Quadtree::from_cells(cells), meta.rule, meta.generation);
        case OutputFormat::png: break;
    }
    throw InputError("a PNG is an image of a board, not a pattern text");
}

}  // namespace tilelife
