// Golly macrocell ([M2]) reader for 2-state patterns. The root node of level L (a square of side
// 2^L) has its top-left at (-2^(L-1), -2^(L-1) + 1): Golly's documented convention puts the
// top-left of the root's south-east child at (0, 1), and bgolly's output confirms that a cell at
// RLE position (X, Y) lands there. Leaves are 8x8 (level 3).
#include <algorithm>
#include <array>
#include <string>

#include "io/detail.hpp"

namespace tilelife::io {
namespace {

struct Node {
    int level = 0;                       // 3 for a leaf
    std::array<std::int64_t, 4> kids{};  // nw, ne, sw, se; 0 = empty (not used for leaves)
    std::uint64_t bits = 0;              // leaf: bit (row * 8 + col)
    std::uint64_t population = 0;        // saturates at UINT64_MAX
};

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

class Expander {
public:
    Expander(const std::vector<Node>& nodes, std::vector<Cell>& out) : nodes_(nodes), out_(out) {}
    void emit(std::int64_t index, std::int64_t x, std::int64_t y) {
        const Node& node = nodes_[static_cast<std::size_t>(index - 1)];
        if (node.level == 3) {
            for (std::uint64_t b = node.bits; b != 0; b &= b - 1) {
                const int bit = __builtin_ctzll(b);
                out_.push_back(Cell{x + (bit & 7), y + (bit >> 3)});
            }
            return;
        }
        const std::int64_t half = std::int64_t{1} << (node.level - 1);
        // Children without live cells are skipped, so the work is bounded by cells x depth even
        // when a file shares an empty node 4^60 times.
        for (int q = 0; q < 4; ++q)
            if (node.kids[q] != 0 && nodes_[static_cast<std::size_t>(node.kids[q] - 1)].population != 0)
                emit(node.kids[q], x + (q & 1) * half, y + (q >> 1) * half);
    }

private:
    const std::vector<Node>& nodes_;
    std::vector<Cell>& out_;
};

}  // namespace

Pattern parse_macrocell(std::string_view text, const std::string& source, const ReadLimits& limits) {
    Pattern p;
    p.format = PatternFormat::macrocell;
    p.positioned = true;  // own coordinates, kept as Golly keeps them
    std::vector<Node> nodes;
    Lines lines(text);
    std::string_view line;
    bool seen_magic = false;
    while (lines.next(line)) {
        const std::int64_t n = lines.number();
        if (!seen_magic) {
            if (is_blank(line)) continue;
            seen_magic = true;  // the detector saw "[M2]" here
            continue;
        }
        if (line.empty()) continue;
        const char c0 = line[0];
        if (c0 == '#') {
            const char tag = line.size() > 1 ? line[1] : '\0';
            const std::string_view rest = trim(line.substr(std::min<std::size_t>(2, line.size())));
            if (tag == 'R') {
                p.rule = checked_rule(rest, source, n);
            } else if (tag == 'G') {
                std::int64_t g = 0;
                if (!parse_int(rest, g) || g < 0)
                    fail(source, n, "bad generation '" + std::string(rest) + "' (expected 0 <= N < 2^63)");
                p.generation = g;
            } else if (tag == 'N') {
                p.name = std::string(rest);
            } else if (tag == 'C' || tag == 'c' || tag == 'O' || tag == 'D') {
                p.comments.emplace_back(rest);
            }
            continue;
        }
        Node node;
        if (c0 == '.' || c0 == '*' || c0 == '$') {
            node.level = 3;
            int row = 0, col = 0;
            for (char c : line) {
                if (c == '$') {
                    ++row;
                    col = 0;
                    continue;
                }
                if (c != '.' && c != '*') {
                    if (is_garbage(c)) fail(source, n, describe_byte(c));
                    fail(source, n, std::string("unexpected character '") + c + "' in a leaf (expected '.', '*', '$')");
                }
                if (row >= 8 || col >= 8) fail(source, n, "leaf larger than 8x8");
                if (c == '*') node.bits |= std::uint64_t{1} << (row * 8 + col);
                ++col;
            }
            if (row > 8 || (row == 8 && col > 0)) fail(source, n, "leaf larger than 8x8");
            node.population = static_cast<std::uint64_t>(__builtin_popcountll(node.bits));
        } else if (c0 >= '0' && c0 <= '9') {
            std::int64_t v[5];
            std::string_view rest = line;
            for (int k = 0; k < 5; ++k) {
                rest = trim(rest);
                std::size_t e = 0;
                while (e < rest.size() && rest[e] != ' ' && rest[e] != '\t') ++e;
                if (!parse_int(rest.substr(0, e), v[k]) || v[k] < 0)
                    fail(source, n, "bad node line '" + std::string(trim(line)) + "' (expected LEVEL NW NE SW SE)");
                rest = rest.substr(e);
            }
            if (!is_blank(rest))
                fail(source, n, "bad node line '" + std::string(trim(line)) + "' (expected LEVEL NW NE SW SE)");
            if (v[0] < 4) {
                if (v[0] == 1) fail(source, n, "multi-state macrocell files are not supported (2-state rules only)");
                fail(source, n, "node level " + std::to_string(v[0]) + " below 4 (leaves are 8x8 in 2-state files)");
            }
            // A level-63 root spans x in [-2^62, 2^62), y in [-2^62 + 1, 2^62]: the largest that
            // (all but its edge rows and columns, checked after expansion) fits the coordinate range.
            if (v[0] > 63) fail(source, n, "node level " + std::to_string(v[0]) + " is beyond the 64-bit coordinate range");
            node.level = static_cast<int>(v[0]);
            const auto count = static_cast<std::int64_t>(nodes.size());
            for (int q = 0; q < 4; ++q) {
                const std::int64_t k = v[q + 1];
                if (k == 0) continue;
                if (k > count)
                    fail(source, n, "node refers to node " + std::to_string(k) + ", which is not defined before it");
                const Node& kid = nodes[static_cast<std::size_t>(k - 1)];
                if (kid.level != node.level - 1)
                    fail(source, n, "child node " + std::to_string(k) + " has level " + std::to_string(kid.level) +
                                        ", expected " + std::to_string(node.level - 1));
                node.kids[q] = k;
                node.population = sat_add(node.population, kid.population);
            }
        } else {
            if (is_garbage(c0)) fail(source, n, describe_byte(c0));
            fail(source, n, "unexpected line in a macrocell file '" + std::string(trim(line)) + "'");
        }
        nodes.push_back(node);
    }
    if (!nodes.empty()) {
        const Node& root = nodes.back();
        for (const Node& node : nodes)
            if (node.level > root.level)
                fail(source, lines.number(), "the last node (the root) is not the largest");
        // Refuse before expanding: a small file can describe astronomically many cells.
        if (root.population > static_cast<std::uint64_t>(limits.max_cells))
            fail(source, lines.number(), "more than " + std::to_string(limits.max_cells) + " live cells (limit)");
        p.cells.reserve(static_cast<std::size_t>(root.population));
        const std::int64_t half = std::int64_t{1} << (root.level - 1);
        Expander(nodes, p.cells).emit(static_cast<std::int64_t>(nodes.size()), -half, -half + 1);
        normalize(p.cells);
        const Box box = bounding_box(p.cells);
        if (!box.empty() && (!in_range(box.x) || !in_range(box.y) || !in_range(box.x + (box.width - 1)) ||
                             !in_range(box.y + (box.height - 1))))
            fail(source, lines.number(), "cells beyond the coordinate range (|x|, |y| < 2^62)");
    }
    p.frame = bounding_box(p.cells);
    return p;
}

}  // namespace tilelife::io
