// Writers: RLE byte-identical to what Golly 3.3 saves (plus our "#CXRLE" position line and the
// pattern's name, authors and comments), plaintext .cells, and the output format chosen by name.
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/detail.hpp"
#include "tilelife/error.hpp"
#include "tilelife/formats.hpp"
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

// A growing text buffer written through a pointer: the writers below append a few bytes per run, and
// std::string's per-append checks and size updates cost more than the bytes.
class TextOut {
public:
    explicit TextOut(std::string& s) : s_(s), size_(s.size()) {}
    ~TextOut() { s_.resize(size_); }
    // Room for `n` more bytes; the returned pointer is valid until the next reserve().
    char* reserve(std::size_t n) {
        if (s_.size() - size_ < n) s_.resize(std::max(2 * s_.size(), size_ + n + 4096));
        return s_.data() + size_;
    }
    void advance(std::size_t n) { size_ += n; }
    void put(char c) {
        *reserve(1) = c;
        ++size_;
    }
    void put(std::string_view text) {
        std::memcpy(reserve(text.size()), text.data(), text.size());
        size_ += text.size();
    }
    std::size_t size() const { return size_; }

private:
    std::string& s_;
    std::size_t size_;
};

// Golly's line filling: a run ("<count><char>", the count left out when 1) goes on a new line when
// it would take the current line past 70 characters (`line`: the current line's length). Writes at
// most kRunBytes bytes at `p` and returns how many of them are text: the run is formatted after a
// line break, then copied with or without it (fixed-size copies, no library call per run).
constexpr std::size_t kRunBytes = 32;
[[gnu::always_inline]] inline std::size_t put_run(char* p, std::size_t& line, std::int64_t count, char c) {
    char buf[kRunBytes];
    buf[0] = '\n';
    char* q = buf + 1;
    if (count > 1) {
        if (count < 10) {
            *q++ = static_cast<char>('0' + count);
        } else if (count < 100) {
            *q++ = static_cast<char>('0' + count / 10);
            *q++ = static_cast<char>('0' + count % 10);
        } else {
            q = std::to_chars(q, buf + sizeof buf - 1, count).ptr;
        }
    }
    *q++ = c;
    const auto len = static_cast<std::size_t>(q - (buf + 1));
    if (line + len > 70) {
        std::memcpy(p, buf, sizeof buf);
        line = len;
        return len + 1;
    }
    std::memcpy(p, buf + 1, sizeof buf - 1);
    line += len;
    return len;
}

// put_run onto a TextOut.
class RunWriter {
public:
    explicit RunWriter(TextOut& out) : out_(out) {}
    void put(std::int64_t count, char c) { out_.advance(put_run(out_.reserve(kRunBytes), line_len_, count, c)); }

private:
    TextOut& out_;
    std::size_t line_len_ = 0;
};

// One metadata line: `prefix` and the text, which must stay on its one line.
void add_line(std::string& out, std::string_view prefix, std::string_view text) {
    out += prefix;
    for (char c : text) out += c == '\n' || c == '\r' ? ' ' : c;
    out += '\n';
}

// Golly writes the canonical spelling ("23/3" -> "B3/S23", suffix kept as ":T64,32").
std::string canonical_rule(const PatternMeta& meta) {
    return meta.rule.empty() ? Rule::life().to_string() : parse_rule(meta.rule).to_string();
}

// Everything before the cells: "#CXRLE" first (Golly reads it only before the header), the metadata
// Golly keeps there, the header over `box`. An empty box is an empty pattern: "x = 0, y = 0" and "!".
std::string rle_preamble(const Box& box, const PatternMeta& meta, const std::string& rule_text) {
    std::string out;
    const auto metadata = [&] {
        if (!meta.name.empty()) add_line(out, "#N ", meta.name);
        for (const std::string& a : meta.authors) add_line(out, "#O ", a);
        for (const std::string& c : meta.comments) add_line(out, c.empty() ? "#C" : "#C ", c);
    };
    if (box.empty()) {
        // Golly writes an empty pattern as "x = 0, y = 0, rule = R" and "!"; there is no position.
        if (meta.generation != 0) out += "#CXRLE Gen=" + std::to_string(meta.generation) + "\n";
        metadata();
        out += "x = 0, y = 0, rule = " + rule_text + "\n!\n";
        return out;
    }
    out += "#CXRLE Pos=" + std::to_string(box.x) + "," + std::to_string(box.y);
    if (meta.generation != 0) out += " Gen=" + std::to_string(meta.generation);
    out += "\n";
    metadata();
    out += "x = " + std::to_string(box.width) + ", y = " + std::to_string(box.height) + ", rule = " + rule_text + "\n";
    return out;
}

std::string plaintext_preamble(const PatternMeta& meta) {
    std::string out;
    add_line(out, meta.name.empty() ? "!Name:" : "!Name: ", meta.name);
    for (const std::string& a : meta.authors) add_line(out, "!Author: ", a);
    for (const std::string& c : meta.comments) add_line(out, "!", c);
    return out;
}

// ---- rows of bits (PackedRows) ----

// Reads a board's rows in bands of a few hundred KiB: the writers below pass over the board twice
// (bounding box, then text) holding one band, never a byte or a cell per cell.
class Bands {
public:
    explicit Bands(const PackedRows& rows)
        : rows_(rows), nw_(static_cast<std::size_t>((rows.width + 63) / 64)),
          band_(std::max<std::int64_t>(1, std::min<std::int64_t>(rows.height, (std::int64_t{1} << 15) /
                                                                              static_cast<std::int64_t>(nw_)))),
          words_(nw_ * static_cast<std::size_t>(band_)) {}
    std::size_t words_per_row() const { return nw_; }
    // Calls f(y, row words) for rows [y0, y1), in order.
    template <class F>
    void each(std::int64_t y0, std::int64_t y1, F&& f) {
        for (std::int64_t y = y0; y < y1; y += band_) {
            const std::int64_t n = std::min(band_, y1 - y);
            rows_.read(y, n, words_.data());
            for (std::int64_t r = 0; r < n; ++r) f(y + r, words_.data() + static_cast<std::size_t>(r) * nw_);
        }
    }

private:
    const PackedRows& rows_;
    std::size_t nw_;
    std::int64_t band_;
    std::vector<std::uint64_t> words_;
};

// The live cells' bounding box in board coordinates (empty when there are none).
Box packed_bounding_box(Bands& bands, const PackedRows& rows) {
    const std::size_t nw = bands.words_per_row();
    std::vector<std::uint64_t> columns(nw, 0);
    std::int64_t y0 = -1, y1 = -1;
    bands.each(0, rows.height, [&](std::int64_t y, const std::uint64_t* w) {
        std::uint64_t any = 0;
        for (std::size_t i = 0; i < nw; ++i) {
            columns[i] |= w[i];
            any |= w[i];
        }
        if (!any) return;
        if (y0 < 0) y0 = y;
        y1 = y;
    });
    if (y0 < 0) return Box{};
    // Bits past the width are 0 (the layout's promise); masked anyway.
    if (rows.width % 64) columns[nw - 1] &= (std::uint64_t{1} << (rows.width % 64)) - 1;
    std::size_t first = 0, last = nw - 1;
    while (!columns[first]) ++first;
    while (!columns[last]) --last;
    const std::int64_t x0 = 64 * static_cast<std::int64_t>(first) + std::countr_zero(columns[first]);
    const std::int64_t x1 = 64 * static_cast<std::int64_t>(last) + 63 - std::countl_zero(columns[last]);
    return Box{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

// The streaming writers hand their text over in pieces of about this many bytes.
constexpr std::size_t kChunk = std::size_t{64} << 10;

// Bit k of the index -> byte k of the value (0 or 1): eight cells' characters at once.
constexpr std::array<std::uint64_t, 256> kSpread = [] {
    std::array<std::uint64_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
        for (unsigned k = 0; k < 8; ++k)
            if (b >> k & 1u) t[b] |= std::uint64_t{1} << (8 * k);
    return t;
}();

}  // namespace

PatternMeta meta_of(const Pattern& p) {
    return PatternMeta{p.rule.value_or(Rule::life().to_string()), p.generation, p.name, p.authors, p.comments};
}

std::string format_rle(const std::vector<Cell>& input, const std::string& rule, std::int64_t generation) {
    return format_rle(input, PatternMeta{rule, generation, {}, {}, {}});
}

std::string format_rle(const std::vector<Cell>& input, const PatternMeta& meta) {
    const std::string rule_text = canonical_rule(meta);
    std::vector<Cell> storage;
    const std::vector<Cell>& cells = sorted_view(input, storage);
    const Box box = bounding_box(cells);
    std::string out = rle_preamble(box, meta, rule_text);
    if (cells.empty()) return out;
    // A soup takes about 1.5 bytes per live cell; a little more saves a late doubling.
    out.reserve(out.size() + cells.size() * 2 + 64);
    TextOut text(out);
    RunWriter w(text);
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
    text.put('\n');
    return out;
}

// The runs of an RLE body through a buffer of kChunk bytes, handed to `sink` whenever it fills:
// `body(put)` writes them with put(count, char), then "!" and the line end close the text. Before
// each piece goes, `before(bytes)` may refuse it (a limit). The write position and line length are
// locals of this function (stores of chars could alias anything held in memory).
template <class Before, class Body>
void rle_runs_in_pieces(const TextSink& sink, const Before& before, const Body& body) {
    const std::unique_ptr<char[]> chunk(new char[kChunk + 64]);
    char* const begin = chunk.get();
    char* const limit = begin + kChunk;
    char* p = begin;
    std::size_t line = 0;
    const auto hand_over = [&] {
        before(static_cast<std::size_t>(p - begin));
        sink(std::string_view(begin, static_cast<std::size_t>(p - begin)));
        p = begin;
    };
    const auto put = [&](std::int64_t count, char c) __attribute__((always_inline)) {
        p += put_run(p, line, count, c);
        if (p >= limit) hand_over();
    };
    body(put);
    put(1, '!');
    *p++ = '\n';
    hand_over();
}

void write_rle(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink) {
    const std::string rule_text = canonical_rule(meta);
    Bands bands(rows);
    const Box box = packed_bounding_box(bands, rows);
    const Box written = box.empty() ? box : Box{box.x + rows.origin.x, box.y + rows.origin.y, box.width, box.height};
    sink(rle_preamble(written, meta, rule_text));
    if (box.empty()) return;
    const std::int64_t i0 = box.x / 64, i1 = (box.right() - 1) / 64;
    std::int64_t pending_rows = 0;  // row ends not yet written: only before live cells, as Golly does
    rle_runs_in_pieces(sink, [](std::size_t) {}, [&](const auto& put) __attribute__((always_inline)) {
        bands.each(box.y, box.bottom(), [&](std::int64_t, const std::uint64_t* words) {
            // Runs end where a cell differs from the one before it: the set bits of w ^ (w << 1), with
            // the carry from the word before. Runs alternate dead, live, ... from the box's left edge;
            // bits outside the box are 0 in every row (it is the bounding box).
            std::int64_t last = box.x;
            bool live = false, any = false;
            std::uint64_t carry = 0;
            for (std::int64_t i = i0; i <= i1; ++i) {
                const std::uint64_t w = words[i];
                std::uint64_t t = w ^ ((w << 1) | carry);
                carry = w >> 63;
                while (t) {
                    const std::int64_t x = 64 * i + std::countr_zero(t);
                    t &= t - 1;
                    if (!any) {
                        if (pending_rows) put(pending_rows, '$');
                        pending_rows = 0;
                        any = true;
                    }
                    if (x > last) put(x - last, live ? 'o' : 'b');
                    last = x;
                    live = !live;
                }
            }
            if (live) put(64 * (i1 + 1) - last, 'o');  // a run to the last column (the carry's edge)
            ++pending_rows;
        });
    });
}

std::string format_rle(const PackedRows& rows, const PatternMeta& meta) {
    std::string out;
    write_rle(rows, meta, [&out](std::string_view text) { out += text; });
    return out;
}

void write_rle_tree(const Quadtree& tree, const PatternMeta& meta, std::int64_t max_bytes, const TextSink& sink) {
    // Refused at once when the text is certainly too large: every row holding a live cell costs at
    // least 2 bytes (the format table's estimate, from the tree's rows). The shape holds the box.
    const OutputShape shape = shape_of(tree);
    const Box box = shape.box;
    std::string preamble = rle_preamble(box, meta, canonical_rule(meta));
    if (box.empty()) return sink(preamble);
    if (format_info(OutputFormat::rle).estimate(shape) > max_bytes)
        throw InputError("its RLE text would be over " + std::to_string(max_bytes >> 20) + " MiB (at least " +
                         std::to_string(shape.live_rows) + " rows of live cells); write macrocell (.mc) instead");
    std::int64_t written = static_cast<std::int64_t>(preamble.size());
    sink(preamble);
    preamble = std::string();
    const auto too_large = [&] {
        return InputError("its RLE text is over " + std::to_string(max_bytes >> 20) + " MiB; write macrocell (.mc) instead");
    };
    // A run of live cells may cross pieces, so it is only written when a dead cell (or the row's
    // end) closes it. The text goes out in pieces (it was held whole: for utm.rle that and its
    // doublings were 1.3 MB), counted against max_bytes as they go.
    const auto count = [&](std::size_t bytes) {
        written += static_cast<std::int64_t>(bytes);
        if (written > max_bytes) throw too_large();
    };
    std::int64_t row = box.y;
    // The bands of pieces are bounded too: a row can cross 2^57 nonempty squares. 2^20 of them (a
    // band of rows over 8 million cells wide, nearly all live) take 16 MiB to list.
    const std::size_t max_pieces = static_cast<std::size_t>(std::clamp<std::int64_t>(max_bytes / 64, 1 << 16, 1 << 20));
    try {
    rle_runs_in_pieces(sink, count, [&](const auto& put) {
        tree.for_each_row([&](std::int64_t y, const std::vector<Quadtree::RowPiece>& pieces) {
            if (y != row) put(y - row, '$');
            row = y;
            std::int64_t col = box.x, run_start = 0, run_end = 0;  // [run_start, run_end): pending live run
            bool open = false;
            for (const Quadtree::RowPiece& piece : pieces) {
                for (unsigned b = piece.bits; b != 0;) {
                    const int start = __builtin_ctz(b);
                    const int len = __builtin_ctz(~(b >> start));
                    const std::int64_t x0 = piece.x + start;
                    if (open && x0 == run_end) {
                        run_end += len;
                    } else {
                        if (open) {
                            if (run_start > col) put(run_start - col, 'b');
                            put(run_end - run_start, 'o');
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
                if (run_start > col) put(run_start - col, 'b');
                put(run_end - run_start, 'o');
            }
        }, nullptr, max_pieces);
    });
    } catch (const InputError&) {
        if (written > max_bytes) throw;
        throw InputError("a band of its rows crosses more than " + std::to_string(max_pieces) +
                         " nonempty 8x8 squares (too wide to list as RLE); write macrocell (.mc) instead");
    }
}

std::string format_rle_tree(const Quadtree& tree, const PatternMeta& meta, std::int64_t max_bytes) {
    std::string out;
    write_rle_tree(tree, meta, max_bytes, [&out](std::string_view text) { out += text; });
    return out;
}

std::string format_plaintext(const std::vector<Cell>& input, const std::string& name) {
    return format_plaintext(input, PatternMeta{"", 0, name, {}, {}});
}

std::string format_plaintext(const std::vector<Cell>& input, const PatternMeta& meta) {
    std::vector<Cell> storage;
    const std::vector<Cell>& cells = sorted_view(input, storage);
    std::string out = plaintext_preamble(meta);
    if (cells.empty()) return out;
    const Box box = bounding_box(cells);
    TextOut text(out);
    std::int64_t row = box.y, col = box.x;
    for (const Cell& c : cells) {
        // Rows end at their last live cell (trailing dots dropped); empty rows are empty lines.
        for (; row < c.y; ++row) {
            text.put('\n');
            col = box.x;
        }
        const auto dots = static_cast<std::size_t>(c.x - col);
        char* p = text.reserve(dots + 1);
        std::memset(p, '.', dots);
        p[dots] = 'O';
        text.advance(dots + 1);
        col = c.x + 1;
    }
    text.put('\n');
    return out;
}

void write_plaintext(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink) {
    sink(plaintext_preamble(meta));
    Bands bands(rows);
    const Box box = packed_bounding_box(bands, rows);
    if (box.empty()) return;
    std::string out;
    out.reserve(kChunk + 64);
    const std::int64_t x0 = box.x, x1 = box.right();
    const std::size_t nw = bands.words_per_row();
    bands.each(box.y, box.bottom(), [&](std::int64_t, const std::uint64_t* words) {
        // The row up to its last live cell, eight cells at a time.
        std::int64_t last = x0;
        for (std::int64_t i = (x1 - 1) / 64; i >= x0 / 64; --i)
            if (words[i]) {
                last = 64 * i + 64 - std::countl_zero(words[i]);
                break;
            }
        if (last > x0) {
            const auto n = static_cast<std::size_t>(last - x0);
            const std::size_t at = out.size();
            out.resize(at + n + 8);
            char* p = out.data() + at;
            for (std::int64_t x = x0; x < last; x += 8) {
                const std::size_t i = static_cast<std::size_t>(x / 64);
                const int b = static_cast<int>(x % 64);
                std::uint64_t bits = words[i] >> b;
                if (b > 56 && i + 1 < nw) bits |= words[i + 1] << (64 - b);
                // Bytes past `last` are written but not kept.
                const std::uint64_t chars = 0x2e2e2e2e2e2e2e2eULL + kSpread[bits & 0xff] * ('O' - '.');
                std::memcpy(p + (x - x0), &chars, 8);
            }
            out.resize(at + n);
        }
        out += '\n';
        if (out.size() >= kChunk) {
            sink(out);
            out.clear();
        }
    });
    sink(out);
}

std::string format_plaintext(const PackedRows& rows, const PatternMeta& meta) {
    std::string out;
    write_plaintext(rows, meta, [&out](std::string_view text) { out += text; });
    return out;
}

std::string_view to_string(OutputFormat f) { return format_info(f).name; }

std::optional<OutputFormat> output_format_named(std::string_view word) {
    for (const FormatInfo& row : formats())
        if (row.write_as && word == row.name) return row.write_as;
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
        t.format = OutputFormat::rle;  // as other tools of the field write to a pipe
    } else {
        const FormatInfo* found = nullptr;
        for (const FormatInfo& row : formats())
            if (row.write_as && std::find(row.extensions.begin(), row.extensions.end(), ext) != row.extensions.end())
                found = &row;
        if (!found)
            throw InputError(located(path, 0,
                                     (ext.empty() ? std::string("no file extension") : "unsupported extension '" + ext + "'") +
                                         " for an output pattern (supported: " + output_extensions() + ")"));
        t.format = *found->write_as;
    }
    if (t.gzip && !format_info(t.format).gzip)
        throw InputError(path + ": a " + std::string(format_info(t.format).title) + " is not gzip-compressed");
#ifndef TILELIFE_HAVE_ZLIB
    if (t.gzip) throw InputError(path + ": gzip output needs zlib, which this build lacks (install zlib1g-dev and rebuild)");
#endif
    return t;
}

OutputFormat output_format_for(const std::string& path) { return output_target(path).format; }

std::string format_pattern(OutputFormat format, const std::vector<Cell>& cells, const PatternMeta& meta) {
    const FormatInfo& f = format_info(format);
    if (!f.from_cells) throw InputError("a " + std::string(f.title) + " is an image of a board, not a pattern text");
    return f.from_cells(cells, meta);
}

void write_macrocell(const PackedRows& rows, const PatternMeta& meta, const TextSink& sink) {
    Bands bands(rows);
    const Box box = packed_bounding_box(bands, rows);  // board coordinates
    std::string out = io::macrocell_header(meta);
    if (box.empty()) return sink(out);
    const Box cells{box.x + rows.origin.x, box.y + rows.origin.y, box.width, box.height};  // the file's
    const int top = root_level_for(cells);
    if (top == 0) throw InputError("cells beyond the coordinate range a macrocell root holds");
    // Quadtree's placement: the root of level L starts at (-2^(L-1), 1 - 2^(L-1)).
    const std::int64_t rx = -(std::int64_t{1} << (top - 1)), ry = 1 - (std::int64_t{1} << (top - 1));
    const std::size_t nw = bands.words_per_row();

    // The rows of the box, in order, a band at a time.
    std::vector<std::uint64_t> band;
    std::int64_t band_y = 0, band_n = 0;  // board rows [band_y, band_y + band_n) are in `band`
    const std::int64_t band_rows = std::max<std::int64_t>(8, (std::int64_t{1} << 15) / static_cast<std::int64_t>(nw));
    const auto row = [&](std::int64_t y) -> const std::uint64_t* {  // board row y, y increasing
        if (y >= band_y + band_n) {
            band_y = y;
            band_n = std::min(band_rows, box.bottom() - y);
            band.resize(nw * static_cast<std::size_t>(band_n));
            rows.read(band_y, band_n, band.data());
        }
        return band.data() + static_cast<std::size_t>(y - band_y) * nw;
    };
    // Eight cells of a row from board column x (x may start left of the board: those are dead).
    const auto eight = [&](const std::uint64_t* w, std::int64_t x) -> std::uint64_t {
        if (x < 0) return (w[0] << -x) & 0xffu;
        const auto i = static_cast<std::size_t>(x / 64);
        const unsigned off = static_cast<unsigned>(x % 64);
        std::uint64_t v = i < nw ? w[i] >> off : 0;
        if (off > 56 && i + 1 < nw) v |= w[i + 1] << (64 - off);
        return v & 0xffu;
    };

    // Node numbers, each node written once it has a number; identical nodes share one while the
    // table has room.
    using Key = io::MacrocellNode;
    constexpr std::size_t kShared = std::size_t{1} << 18;
    std::unordered_map<std::uint64_t, std::uint32_t> leaves;
    std::unordered_map<Key, std::uint32_t, io::MacrocellNodeHash> nodes;
    std::uint32_t next = 0;
    const auto flush = [&] {
        if (out.size() >= kChunk) {
            sink(out);
            out.clear();
        }
    };
    const auto room = [&] {
        if (leaves.size() + nodes.size() >= kShared) leaves.clear(), nodes.clear();
    };
    const auto leaf = [&](std::uint64_t bits) -> std::uint32_t {
        if (bits == 0) return 0;
        room();
        auto [it, fresh] = leaves.try_emplace(bits, next + 1);
        if (fresh) {
            if (next == UINT32_MAX - 1) throw InputError("more than 2^32 - 2 macrocell nodes");
            ++next;
            io::append_macrocell_leaf(out, bits);
            flush();
        }
        return it->second;
    };
    const auto node = [&](int level, const std::array<std::uint32_t, 4>& kids) -> std::uint32_t {
        if (kids == std::array<std::uint32_t, 4>{}) return 0;
        room();
        auto [it, fresh] = nodes.try_emplace(Key{level, kids}, next + 1);
        if (fresh) {
            if (next == UINT32_MAX - 1) throw InputError("more than 2^32 - 2 macrocell nodes");
            ++next;
            io::append_macrocell_node(out, level, kids);
            flush();
        }
        return it->second;
    };
    // The columns of squares of a level that the box crosses: [first(level), last(level)].
    const auto first = [&](int level) { return (cells.x - rx) >> level; };
    const auto last = [&](int level) { return (cells.right() - 1 - rx) >> level; };
    // The numbers of a band of squares of `level` whose top row is y (the file's), over the box's
    // columns; empty when the band misses the box. Work only for bands crossing the box; memory:
    // one row of numbers per level on the way down.
    const auto build = [&](const auto& self, int level, std::int64_t y) -> std::vector<std::uint32_t> {
        const std::int64_t side = std::int64_t{1} << level;
        if (y >= cells.bottom() || y + side <= cells.y) return {};
        const std::int64_t c0 = first(level), c1 = last(level);
        std::vector<std::uint32_t> ids(static_cast<std::size_t>(c1 - c0 + 1), 0);
        if (level == Quadtree::leaf_level) {
            std::vector<std::uint64_t> bits(ids.size(), 0);
            for (std::int64_t r = 0; r < 8; ++r) {
                const std::int64_t by = y + r - rows.origin.y;  // board row
                if (by < box.y || by >= box.bottom()) continue;
                const std::uint64_t* w = row(by);
                for (std::int64_t c = c0; c <= c1; ++c)
                    bits[static_cast<std::size_t>(c - c0)] |= eight(w, rx + 8 * c - rows.origin.x) << (8 * r);
            }
            for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = leaf(bits[i]);
            return ids;
        }
        const std::vector<std::uint32_t> north = self(self, level - 1, y);
        const std::vector<std::uint32_t> south = self(self, level - 1, y + side / 2);
        const std::int64_t k0 = first(level - 1);
        const auto kid = [&](const std::vector<std::uint32_t>& v, std::int64_t c) -> std::uint32_t {
            return c >= k0 && c - k0 < static_cast<std::int64_t>(v.size()) ? v[static_cast<std::size_t>(c - k0)] : 0;
        };
        for (std::int64_t c = c0; c <= c1; ++c)
            ids[static_cast<std::size_t>(c - c0)] =
                node(level, {kid(north, 2 * c), kid(north, 2 * c + 1), kid(south, 2 * c), kid(south, 2 * c + 1)});
        return ids;
    };
    (void)build(build, top, ry);  // the root is the last node written
    sink(out);
}

}  // namespace tilelife
