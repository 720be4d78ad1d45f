// RLE reader (Golly's extended RLE). Follows what Golly 3.3 does with odd input, checked with
// bgolly: run counts carry across line breaks, any other character resets a pending count, 'b'
// and '.' are dead, 'o' and 'A' are live, the multi-state prefixes 'p'..'y' not followed by 'A'..'X'
// count as a live cell, states 2 and up are refused (2-state rules only), other letters and
// punctuation are skipped, and everything after '!' is ignored.
#include <algorithm>
#include <new>
#include <string>

#include "io/detail.hpp"

namespace tilelife::io {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

class RleReader {
public:
    RleReader(const std::string& source, const ReadLimits& limits, CellSink* sink)
        : source_(source), limits_(limits), sink_(sink) {
        pattern_.format = PatternFormat::rle;
    }

    Pattern run(std::string_view text) {
        text_size_ = text.size();
        Lines lines(text);
        std::string_view line;
        while (!done_ && lines.next(line)) {
            line_ = lines.number();
            if (!line.empty() && line[0] == '#') {
                comment(line);
                continue;
            }
            if (!started_) {
                if (is_blank(line)) continue;
                started_ = true;
                x_ = pos_x_;
                y_ = pos_y_;
                if (is_header(line)) {
                    header(line);
                    continue;
                }
            } else if (have_header_ && is_header(line)) {
                // Golly would read a second header as cells ('x' and 'y' count as live); it can
                // only be a mistake (two files pasted together), so say so.
                fail(source_, line_, "second RLE header line (first one on line " +
                                         std::to_string(header_line_) + ")");
            }
            if (sink_ && !sink_asked_) {
                // The cells start here. Only a header's frame says where they go before they are
                // all read: header-less files keep them (their frame is the cells' bounding box).
                sink_asked_ = true;
                streaming_ = have_header_ && !pattern_.frame.empty() && sink_->start(pattern_);
                if (streaming_) runs_.resize(kRunBatch);
                else if (have_header_) reserve_cells(header_w_, header_h_);
            }
            data(line);
        }
        if (streaming_) flush();
        // No normalize(): cells come out strictly increasing in (y, x) by construction (x only grows
        // along a row, '$' moves down at least one row and back to the left edge), so they are
        // already sorted without duplicates.
        if (!have_header_) pattern_.frame = bounding_box(pattern_.cells);
        return std::move(pattern_);
    }

private:
    static bool is_header(std::string_view line) {
        return line.size() >= 2 && line[0] == 'x' && (line[1] == ' ' || line[1] == '=' || line[1] == '\t');
    }

    void comment(std::string_view line) {
        const char tag = line.size() > 1 ? line[1] : '\0';
        const std::string_view rest = trim(line.substr(std::min<std::size_t>(2, line.size())));
        if (starts_with(line, "#CXRLE")) {
            // Golly honours #CXRLE only before the header; later ones are plain comments to it.
            if (!started_) cxrle(line.substr(6));
            return;
        }
        switch (tag) {
            case 'N': pattern_.name = std::string(rest); break;
            case 'C': case 'c': case 'D': pattern_.comments.emplace_back(rest); break;
            case 'O': pattern_.authors.emplace_back(rest); break;
            case 'r': pattern_.rule = checked_rule(rest, source_, line_); break;
            default: break;  // "#R x y" / "#P x y" positions of old RLE writers: Golly ignores them
        }
    }

    void cxrle(std::string_view rest) {
        std::size_t i = 0;
        while (i < rest.size()) {
            while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
            std::size_t j = i;
            while (j < rest.size() && rest[j] != ' ' && rest[j] != '\t') ++j;
            const std::string_view token = rest.substr(i, j - i);
            i = j;
            if (starts_with(token, "Pos=")) {
                const std::string_view v = token.substr(4);
                const auto comma = v.find(',');
                std::int64_t px = 0, py = 0;
                if (comma == std::string_view::npos || !parse_int(v.substr(0, comma), px) ||
                    !parse_int(v.substr(comma + 1), py))
                    fail(source_, line_, "bad #CXRLE position '" + std::string(token) + "' (expected Pos=X,Y)");
                if (!in_range(px) || !in_range(py))
                    fail(source_, line_, "#CXRLE position out of range (|x|, |y| < 2^62)");
                pos_x_ = px;
                pos_y_ = py;
                pattern_.positioned = true;  // Golly keeps these coordinates on a bounded grid too
            } else if (starts_with(token, "Gen=")) {
                std::int64_t g = 0;
                if (!parse_int(token.substr(4), g) || g < 0)
                    fail(source_, line_, "bad #CXRLE generation '" + std::string(token) +
                                             "' (expected Gen=N, 0 <= N < 2^63)");
                pattern_.generation = g;
            }
            // Other keys are ignored, as Golly does.
        }
    }

    // "x = W, y = H, rule = R" with blanks anywhere between tokens. The rule comes last and may
    // itself contain a comma (":T64,32"), so it takes the rest of the line.
    void header(std::string_view line) {
        have_header_ = true;
        header_line_ = line_;
        bool have_x = false, have_y = false;
        std::int64_t w = 0, h = 0;
        std::string_view rest = line;
        while (!is_blank(rest)) {
            const auto eq = rest.find('=');
            if (eq == std::string_view::npos)
                fail(source_, line_, "bad RLE header: expected 'key = value' in '" + std::string(trim(rest)) + "'");
            const std::string_view key = trim(rest.substr(0, eq));
            rest = rest.substr(eq + 1);
            if (key == "rule") {
                pattern_.rule = checked_rule(rest, source_, line_);
                break;
            }
            const auto comma = rest.find(',');
            const std::string_view value = trim(rest.substr(0, comma));
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
            if (key == "x" || key == "y") {
                std::int64_t v = 0;
                if (!parse_int(value, v))
                    fail(source_, line_, "bad RLE header: " + std::string(key) + " = '" + std::string(value) +
                                             "' is not a number");
                if (v < 0) fail(source_, line_, "bad RLE header: negative pattern size " + std::string(key) +
                                                    " = " + std::to_string(v));
                std::int64_t end = 0;
                if (__builtin_add_overflow(v, key == "x" ? pos_x_ : pos_y_, &end) || end > kMaxCoord)
                    fail(source_, line_, "bad RLE header: pattern size " + std::string(key) + " = " + std::to_string(v) +
                                             " goes beyond the coordinate range (|x|, |y| < 2^62)");
                (key == "x" ? w : h) = v;
                (key == "x" ? have_x : have_y) = true;
            } else if (key.empty()) {
                fail(source_, line_, "bad RLE header: missing key before '='");
            }
            // Unknown keys are ignored (Golly ignores everything but the rule).
        }
        if (!have_x || !have_y) fail(source_, line_, "bad RLE header: it needs both 'x = W' and 'y = H'");
        pattern_.frame = Box{pos_x_, pos_y_, w, h};
        header_w_ = w;
        header_h_ = h;
        if (!sink_) reserve_cells(w, h);
    }

    // Room for the cells up front, so a big soup is not copied while the vector doubles. The header
    // area bounds the cells of a well-formed file; the cell limit and the file's size cap the hint
    // (a soup has under one live cell per byte), so a lying header cannot make it large.
    void flush() {
        if (runs_used_) sink_->add(runs_.data(), runs_used_);
        runs_used_ = 0;
    }

    void reserve_cells(std::int64_t w, std::int64_t h) {
        std::int64_t area = 0;
        if (__builtin_mul_overflow(w, h, &area)) area = INT64_MAX;
        const std::int64_t hint = std::min({area, limits_.max_cells, static_cast<std::int64_t>(text_size_)});
        try {
            pattern_.cells.reserve(static_cast<std::size_t>(hint));
            // A bound (a cell a byte): its end is seldom reached, and its pages mapped at once
            // were resident unwritten (2 MiB of megacell-OFF.rle's 16 MiB).
            advise_huge_pages(pattern_.cells, Populate::head);
        } catch (const std::bad_alloc&) {
            // Only a hint: the vector grows as it would have without it.
        }
    }

    // Error paths out of line, so that the per-byte loop below keeps its state in registers.
    [[noreturn, gnu::cold, gnu::noinline]] void fail_here(const std::string& reason) const {
        fail(source_, line_, reason);
    }
    [[noreturn, gnu::cold, gnu::noinline]] void fail_cell_limit() const {
        fail_here("more than " + std::to_string(limits_.max_cells) + " live cells (limit)");
    }
    [[noreturn, gnu::cold, gnu::noinline]] void fail_state(char c, char next) const {
        if (next == '\0')
            fail_here("cell state " + std::to_string(c - 'A' + 1) + " ('" + c + "') is out of range for a 2-state rule");
        fail_here("cell state " + std::to_string(24 * (c - 'p' + 1) + (next - 'A' + 1)) + " ('" + c + next +
                  "') is out of range for a 2-state rule");
    }

    // One pass over the bytes of a data line; the position and pending count live in locals and
    // are stored back at the end of the line (or at '!').
    void data(std::string_view line) {
        std::vector<Cell>& cells = pattern_.cells;
        const std::int64_t max_cells = limits_.max_cells;
        std::int64_t x = x_, y = y_, count = count_;
        // Streaming: runs go into runs_ (kRunBatch of them, sized in run()) through a local pointer.
        const bool streaming = streaming_;
        std::int64_t streamed = streamed_;
        CellRun* run_at = runs_.data() + runs_used_;
        CellRun* const run_end = runs_.data() + runs_.size();
        const auto advance = [&](std::int64_t& coord, std::int64_t n, const char* what) {
            if (coord > kMaxCoord - n) fail_here(std::string(what) + " goes beyond the coordinate range (|x|, |y| < 2^62)");
            coord += n;
        };
        const auto live = [&](std::int64_t n) __attribute__((always_inline)) {
            if (x > kMaxCoord - n || y >= kMaxCoord) fail_here("cells beyond the coordinate range (|x|, |y| < 2^62)");
            if (streaming) {
                // The same cell limit, counted instead of stored.
                if (n > max_cells - streamed) fail_cell_limit();
                streamed += n;
                *run_at++ = CellRun{x, y, n};
                if (run_at == run_end) [[unlikely]] {
                    sink_->add(runs_.data(), kRunBatch);
                    run_at = runs_.data();
                }
                x += n;
                return;
            }
            if (n > max_cells - static_cast<std::int64_t>(cells.size())) fail_cell_limit();
            // At most one growth step for a long run; then push_back never reallocates.
            if (static_cast<std::size_t>(n) > cells.capacity() - cells.size())
                cells.reserve(std::max(cells.size() + static_cast<std::size_t>(n), 2 * cells.capacity()));
            for (std::int64_t i = 0; i < n; ++i) cells.push_back(Cell{x + i, y});
            x += n;
        };
        const char* const end = line.data() + line.size();
        for (const char* p = line.data(); p != end; ++p) {
            const char c = *p;
            if (static_cast<unsigned char>(c - '0') <= 9) {
                const int d = c - '0';
                // The exact overflow test (a division) only for counts near the limit.
                if (count >= (INT64_MAX - 9) / 10 && count > (INT64_MAX - d) / 10)
                    fail_here("run count too large (beyond 2^63)");
                count = count * 10 + d;
                continue;
            }
            // Any other character ends a pending count (a count of 0 means 1, as in Golly).
            const std::int64_t n = count == 0 ? 1 : count;
            count = 0;
            // The common characters first: 'o', 'b', '$'.
            if (c == 'o') {
                live(n);
            } else if (c == 'b') {
                advance(x, n, "row");
            } else if (c == '$') {
                advance(y, n, "pattern");
                x = pos_x_;
            } else if (is_garbage(c)) {
                fail_here(describe_byte(c));
            } else if (c == '.') {
                advance(x, n, "row");
            } else if (c == '!') {
                done_ = true;
                break;
            } else if (c == 'A') {
                live(n);
            } else if (c >= 'B' && c <= 'X') {
                fail_state(c, '\0');
            } else if (c >= 'p' && c <= 'y') {
                const char next = p + 1 != end ? p[1] : '\0';
                if (next >= 'A' && next <= 'X') fail_state(c, next);
                live(n);  // Golly's fallback for a lone prefix letter is state 1
            }
            // Anything else (blanks, other letters, punctuation) is skipped, as Golly does.
        }
        x_ = x;
        y_ = y;
        count_ = count;
        streamed_ = streamed;
        runs_used_ = static_cast<std::size_t>(run_at - runs_.data());
    }

    const std::string& source_;
    const ReadLimits& limits_;
    Pattern pattern_;
    std::int64_t line_ = 0;
    std::int64_t header_line_ = 0;
    bool started_ = false;  // header or first data line seen
    bool have_header_ = false;
    bool done_ = false;
    std::int64_t pos_x_ = 0, pos_y_ = 0;
    std::int64_t x_ = 0, y_ = 0;
    std::int64_t count_ = 0;  // pending run count; Golly carries it across line breaks
    std::size_t text_size_ = 0;
    // Cells handed to a sink (CellSink) in batches of runs instead of stored.
    static constexpr std::size_t kRunBatch = 4096;
    CellSink* sink_ = nullptr;
    bool sink_asked_ = false, streaming_ = false;
    std::vector<CellRun> runs_;  // kRunBatch, the first runs_used_ of them waiting for the sink
    std::size_t runs_used_ = 0;
    std::int64_t streamed_ = 0;
    std::int64_t header_w_ = 0, header_h_ = 0;
};

}  // namespace

Pattern parse_rle(std::string_view text, const std::string& source, const ReadLimits& limits, CellSink* sink) {
    return RleReader(source, limits, sink).run(text);
}

}  // namespace tilelife::io
