// Life 1.05 (blocks of '.'/'*' rows placed by "#P x y") and Life 1.06 (one "x y" pair a line).
// Both keep the file's own coordinates.
#include <string>

#include "io/detail.hpp"

namespace tilelife::io {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Splits "a b" (blanks between, around) into two integers within the coordinate range.
bool parse_pair(std::string_view text, std::int64_t& a, std::int64_t& b) {
    text = trim(text);
    std::size_t sp = 0;
    while (sp < text.size() && text[sp] != ' ' && text[sp] != '\t') ++sp;
    if (sp == text.size()) return false;
    if (!parse_int(text.substr(0, sp), a) || !parse_int(trim(text.substr(sp)), b)) return false;
    return true;
}

void check_range(std::int64_t v, const std::string& source, std::int64_t line) {
    if (!in_range(v)) fail(source, line, "coordinate " + std::to_string(v) + " out of range (|x|, |y| < 2^62)");
}

}  // namespace

Pattern parse_life105(std::string_view text, const std::string& source, const ReadLimits& limits) {
    Pattern p;
    p.format = PatternFormat::life105;
    p.positioned = true;  // own coordinates, kept as Golly keeps them
    Lines lines(text);
    std::string_view line;
    // Rows before any "#P" start at (0, 0), where Golly puts them.
    std::int64_t block_x = 0, row = 0;
    while (lines.next(line)) {
        const std::int64_t n = lines.number();
        if (!line.empty() && line[0] == '#') {
            const char tag = line.size() > 1 ? line[1] : '\0';
            const std::string_view rest = trim(line.substr(std::min<std::size_t>(2, line.size())));
            if (starts_with(line, "#Life")) continue;
            switch (tag) {
                case 'D': case 'C': p.comments.emplace_back(rest); break;
                case 'N': p.rule = "B3/S23"; break;  // "normal" Life rules
                case 'R': p.rule = checked_rule(rest, source, n); break;
                case 'P': {
                    std::int64_t bx = 0, by = 0;
                    // A bare "#P" means (0, 0) to Golly (its acorn.lif has one).
                    if (!rest.empty() && !parse_pair(rest, bx, by))
                        fail(source, n, "bad block position '" + std::string(trim(line)) + "' (expected #P X Y)");
                    check_range(bx, source, n);
                    check_range(by, source, n);
                    block_x = bx;
                    row = by;
                    break;
                }
                default: break;  // other '#' lines are comments Golly does not show either
            }
            continue;
        }
        if (is_blank(line)) continue;  // Golly skips blank lines inside a block
        if (row >= kMaxCoord || block_x > kMaxCoord - static_cast<std::int64_t>(line.size()))
            fail(source, n, "row beyond the coordinate range (|x|, |y| < 2^62)");
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (is_garbage(c)) fail(source, n, describe_byte(c));
            // '*' is live; Golly reads every other character as a dead cell.
            if (c == '*') add_cell(p.cells, Cell{block_x + static_cast<std::int64_t>(i), row}, limits, source, n);
        }
        ++row;
    }
    normalize(p.cells);
    p.frame = bounding_box(p.cells);
    return p;
}

Pattern parse_life106(std::string_view text, const std::string& source, const ReadLimits& limits) {
    Pattern p;
    p.format = PatternFormat::life106;
    p.positioned = true;  // own coordinates, kept as Golly keeps them
    Lines lines(text);
    std::string_view line;
    while (lines.next(line)) {
        const std::int64_t n = lines.number();
        if (!line.empty() && line[0] == '#') {
            if (starts_with(line, "#Life")) continue;
            const char tag = line.size() > 1 ? line[1] : '\0';
            const std::string_view rest = trim(line.substr(std::min<std::size_t>(2, line.size())));
            if (tag == 'D' || tag == 'C') p.comments.emplace_back(rest);
            else if (tag == 'N') p.name = std::string(rest);
            else if (tag == 'R') p.rule = checked_rule(rest, source, n);
            continue;
        }
        if (is_blank(line)) continue;
        for (char c : line)
            if (is_garbage(c)) fail(source, n, describe_byte(c));
        std::int64_t x = 0, y = 0;
        // Golly skips lines it cannot read; we refuse them, since they mean a damaged file.
        if (!parse_pair(line, x, y))
            fail(source, n, "expected a cell as 'X Y', got '" + std::string(trim(line)) + "'");
        check_range(x, source, n);
        check_range(y, source, n);
        add_cell(p.cells, Cell{x, y}, limits, source, n);
    }
    normalize(p.cells);
    p.frame = bounding_box(p.cells);
    return p;
}

}  // namespace tilelife::io
