// Plaintext (.cells): '!' comment lines anywhere ("!Name: X" names the pattern, "!Author: X" credits
// it, as LifeWiki's files do), rows of 'O' (live),
// '*' (live, as older files use) and '.' (dead), relative to the top-left at (0, 0).
#include <string>

#include "io/detail.hpp"

namespace tilelife::io {

Pattern parse_plaintext(std::string_view text, const std::string& source, const ReadLimits& limits) {
    Pattern p;
    p.format = PatternFormat::plaintext;
    Lines lines(text);
    std::string_view line;
    bool named = false;
    std::int64_t row = 0, rows = 0, width = 0;
    while (lines.next(line)) {
        const std::int64_t n = lines.number();
        if (!line.empty() && line[0] == '!') {
            const std::string_view body = line.substr(1);
            if (!named && body.substr(0, 5) == "Name:") {
                p.name = std::string(trim(body.substr(5)));
                named = true;
            } else if (body.substr(0, 7) == "Author:") {
                p.authors.emplace_back(trim(body.substr(7)));
            } else {
                p.comments.emplace_back(trim(body));
            }
            continue;
        }
        // Trailing blanks are not cells; an empty line is a row of dead cells.
        std::size_t end = line.size();
        while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
        line = line.substr(0, end);
        if (row >= kMaxCoord) fail(source, n, "too many rows");
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (c == 'O' || c == '*') {
                add_cell(p.cells, Cell{static_cast<std::int64_t>(i), row}, limits, source, n);
            } else if (c != '.') {
                if (is_garbage(c)) fail(source, n, describe_byte(c));
                fail(source, n, std::string("unexpected character '") + c +
                                    "' in a plaintext row (expected 'O', '*' or '.')");
            }
        }
        width = std::max(width, static_cast<std::int64_t>(line.size()));
        ++row;
        // Trailing empty lines are not counted: a final newline must not add a row.
        if (!line.empty()) rows = row;
    }
    p.frame = Box{0, 0, width, rows};  // cells come out in (y, x) order, no duplicates
    return p;
}

}  // namespace tilelife::io
