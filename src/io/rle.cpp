// RLE reader (Golly's extended RLE). Follows what Golly 3.3 does with odd input, checked with
// bgolly: run counts carry across line breaks, any other character resets a pending count, 'b'
// and '.' are dead, 'o' and 'A' are live, the multi-state prefixes 'p'..'y' not followed by 'A'..'X'
// count as a live cell, states 2 and up are refused (2-state rules only), other letters and
// punctuation are skipped, and everything after '!' is ignored.
#include <string>

#include "io/detail.hpp"

namespace tilelife::io {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

class RleReader {
public:
    RleReader(const std::string& source, const ReadLimits& limits) : source_(source), limits_(limits) {
        pattern_.format = PatternFormat::rle;
    }

    Pattern run(std::string_view text) {
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
            data(line);
        }
        normalize(pattern_.cells);  // already in order by construction; cheap check
        if (!have_header_) pattern_.frame = bounding_box_of(pattern_.cells);
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
            case 'C': case 'c': case 'O': case 'D': pattern_.comments.emplace_back(rest); break;
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
    }

    std::int64_t take_count() {
        const std::int64_t n = count_ == 0 ? 1 : count_;
        count_ = 0;
        return n;
    }

    void advance(std::int64_t& coord, std::int64_t n, const char* what) {
        if (coord > kMaxCoord - n)
            fail(source_, line_, std::string(what) + " goes beyond the coordinate range (|x|, |y| < 2^62)");
        coord += n;
    }

    void live(std::int64_t n) {
        if (x_ > kMaxCoord - n || y_ >= kMaxCoord)
            fail(source_, line_, "cells beyond the coordinate range (|x|, |y| < 2^62)");
        if (n > limits_.max_cells - static_cast<std::int64_t>(pattern_.cells.size()))
            fail(source_, line_, "more than " + std::to_string(limits_.max_cells) + " live cells (limit)");
        for (std::int64_t i = 0; i < n; ++i) pattern_.cells.push_back(Cell{x_ + i, y_});
        x_ += n;
    }

    void data(std::string_view line) {
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (c >= '0' && c <= '9') {
                const int d = c - '0';
                if (count_ > (INT64_MAX - d) / 10) fail(source_, line_, "run count too large (beyond 2^63)");
                count_ = count_ * 10 + d;
                continue;
            }
            if (is_garbage(c)) fail(source_, line_, describe_byte(c));
            const std::int64_t n = take_count();
            if (c == 'b' || c == '.') {
                advance(x_, n, "row");
            } else if (c == '$') {
                advance(y_, n, "pattern");
                x_ = pos_x_;
            } else if (c == '!') {
                done_ = true;
                return;
            } else if (c == 'o' || c == 'A') {
                live(n);
            } else if (c >= 'B' && c <= 'X') {
                fail(source_, line_, "cell state " + std::to_string(c - 'A' + 1) + " ('" + c +
                                         "') is out of range for a 2-state rule");
            } else if (c >= 'p' && c <= 'y') {
                const char next = i + 1 < line.size() ? line[i + 1] : '\0';
                if (next >= 'A' && next <= 'X')
                    fail(source_, line_, "cell state " + std::to_string(24 * (c - 'p' + 1) + (next - 'A' + 1)) +
                                             " ('" + c + next + "') is out of range for a 2-state rule");
                live(n);  // Golly's fallback for a lone prefix letter is state 1
            }
            // Anything else (blanks, other letters, punctuation) is skipped, as Golly does.
        }
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
};

}  // namespace

Pattern parse_rle(std::string_view text, const std::string& source, const ReadLimits& limits) {
    return RleReader(source, limits).run(text);
}

}  // namespace tilelife::io
