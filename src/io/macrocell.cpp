// Golly macrocell ([M2], and hlife's [M1]) reader and writer for 2-state patterns. The reader builds a
// tilelife::Quadtree with the file's own node numbers (its placement is Golly's documented one: the
// root of level L has its top-left at (-2^(L-1), -2^(L-1) + 1), which bgolly's output confirms for
// cells at RLE positions) and lists the cells only when asked: a 40 KB file can hold 10^8 cells.
// Leaves are 8x8 (level 3).
#include <algorithm>
#include <bit>
#include <array>
#include <charconv>
#include <string>

#include "io/detail.hpp"
#include "tilelife/rule.hpp"

namespace tilelife::io {

Pattern parse_macrocell(std::string_view text, const std::string& source, const ReadLimits& limits) {
    Pattern p;
    p.format = PatternFormat::macrocell;
    p.positioned = true;  // own coordinates, kept as Golly keeps them
    auto tree = std::make_shared<Quadtree>();
    Lines lines(text);
    std::string_view line;
    bool seen_magic = false;
    int top_level = 0;  // the largest level so far
    std::vector<std::int64_t> node_lines;  // the line of each node, for the truncation check below
    node_lines.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    advise_huge_pages(node_lines);  // 12 MB for caterpillar.mc.gz
    tree->reserve(node_lines.capacity());  // a square a line at most
    while (lines.next(line)) {
        const std::int64_t n = lines.number();
        if (!seen_magic) {
            if (is_blank(line)) continue;
            seen_magic = true;  // the detector saw "[M2]" (or "[M1]") here
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
            } else if (tag == 'O') {
                p.authors.emplace_back(rest);
            } else if (tag == 'C' || tag == 'c' || tag == 'D') {
                p.comments.emplace_back(rest);
            }
            continue;
        }
        if (tree->nodes().size() >= std::size_t{UINT32_MAX} - 1) fail(source, n, "more than 2^32 - 2 nodes");
        if (c0 == '.' || c0 == '*' || c0 == '$') {
            std::uint64_t bits = 0;
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
                if (c == '*') bits |= std::uint64_t{1} << (row * 8 + col);
                ++col;
            }
            if (row > 8 || (row == 8 && col > 0)) fail(source, n, "leaf larger than 8x8");
            tree->add_leaf(bits);
            node_lines.push_back(n);
            top_level = std::max(top_level, Quadtree::leaf_level);
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
            // (all but its edge rows and columns, checked below) fits the coordinate range.
            if (v[0] > Quadtree::max_level)
                fail(source, n, "node level " + std::to_string(v[0]) + " is beyond the 64-bit coordinate range");
            const int level = static_cast<int>(v[0]);
            const auto count = static_cast<std::int64_t>(tree->nodes().size());
            std::array<Quadtree::Index, 4> kids{};
            for (int q = 0; q < 4; ++q) {
                const std::int64_t k = v[q + 1];
                if (k == 0) continue;
                // Only earlier nodes can be named, so no file can make a node its own descendant.
                if (k > count)
                    fail(source, n, "node refers to node " + std::to_string(k) + ", which is not defined before it");
                const int kid_level = tree->level_of(static_cast<Quadtree::Index>(k));
                if (kid_level != level - 1)
                    fail(source, n, "child node " + std::to_string(k) + " has level " + std::to_string(kid_level) +
                                        ", expected " + std::to_string(level - 1));
                kids[static_cast<std::size_t>(q)] = static_cast<Quadtree::Index>(k);
            }
            tree->add_node(level, kids);
            node_lines.push_back(n);
            top_level = std::max(top_level, level);
        } else {
            if (is_garbage(c0)) fail(source, n, describe_byte(c0));
            fail(source, n, "unexpected line in a macrocell file '" + std::string(trim(line)) + "'");
        }
    }
    if (!tree->nodes().empty()) {
        const auto root = static_cast<Quadtree::Index>(tree->nodes().size());
        const int level = tree->node(root).level;
        if (top_level > level) fail(source, lines.number(), "the last node (the root) is not the largest");
        tree->set_root(root, level);
        // Golly's files list each node once, children first, the root last, and nothing else, so a
        // node that the root does not reach means the file was cut after it (the root is then some
        // inner node) or is damaged. Golly would read that part silently as the whole pattern.
        std::vector<char> reached(tree->nodes().size() + 1, 0);
        reached[root] = 1;
        for (Quadtree::Index i = root; i >= 1; --i) {
            const Quadtree::Node& node = tree->node(i);
            if (!reached[i]) {
                fail(source, node_lines[i - 1],
                     "node " + std::to_string(i) + " is not part of the pattern (the last node, the root, does not "
                     "use it): the file is truncated or damaged");
            }
            if (node.level > Quadtree::leaf_level)
                for (Quadtree::Index k : node.kids) reached[k] = 1;
        }
        // Counted and bounded from the tree: work linear in the nodes, whatever the cells. A list
        // is refused before anything else: a small file can describe astronomically many cells.
        if (limits.list_tree_cells && tree->population() > static_cast<CellCount>(limits.max_cells))
            fail(source, lines.number(), "more than " + std::to_string(limits.max_cells) + " live cells (limit)");
        const char* out_of_range = "cells beyond the coordinate range (|x|, |y| < 2^62)";
        Box box;
        try {
            box = tree->bounding_box();
        } catch (const RuntimeError&) {
            fail(source, lines.number(), out_of_range);  // wider than any box of 64-bit coordinates
        }
        if (!box.empty() && (!in_range(box.x) || !in_range(box.y) || !in_range(box.x + (box.width - 1)) ||
                             !in_range(box.y + (box.height - 1))))
            fail(source, lines.number(), out_of_range);
        p.frame = box;
        if (limits.list_tree_cells) p.cells = tree->cells();
    } else {
        // A file without nodes is an empty pattern (Golly writes an empty universe so), unless it
        // stops inside a line: then it was cut before its nodes.
        if (!text.empty() && text.back() != '\n' && text.back() != '\r')
            fail(source, lines.number(), "the file ends inside a line before any node: it is truncated");
        tree->set_root(0, 4);
    }
    p.tree = std::move(tree);
    return p;
}

}  // namespace tilelife::io

namespace tilelife {

std::string format_macrocell(const Quadtree& tree, const std::string& rule, std::int64_t generation) {
    PatternMeta meta;
    meta.rule = rule;
    meta.generation = generation;
    return format_macrocell(tree, meta);
}

namespace io {

std::string macrocell_header(const PatternMeta& meta) {
    std::string out = "[M2] (tilelife " TILELIFE_VERSION ")\n#R ";
    out += meta.rule.empty() ? Rule::life().to_string() : parse_rule(meta.rule).to_string();
    out += '\n';
    if (meta.generation > 0) out += "#G " + std::to_string(meta.generation) + "\n";
    // The metadata where Golly writes a pattern's comment lines (after #R and #G), one line each;
    // Golly's reader keeps every '#' line it does not know as a comment.
    const auto line = [&out](std::string_view prefix, std::string_view text) {
        out += prefix;
        if (!text.empty()) out += ' ';
        for (char c : text) out += c == '\n' || c == '\r' ? ' ' : c;
        out += '\n';
    };
    if (!meta.name.empty()) line("#N", meta.name);
    for (const std::string& a : meta.authors) line("#O", a);
    for (const std::string& c : meta.comments) line("#C", c);
    return out;
}

void append_macrocell_leaf(std::string& out, std::uint64_t bits) {
    for (int r = 0; r < 8 && bits >> (8 * r) != 0; ++r) {
        unsigned row = static_cast<unsigned>((bits >> (8 * r)) & 0xffu);
        for (; row != 0; row >>= 1) out += (row & 1u) ? '*' : '.';
        out += '$';
    }
    out += '\n';
}

void append_macrocell_node(std::string& out, int level, const std::array<std::uint32_t, 4>& kids) {
    char buf[64];
    char* p = std::to_chars(buf, buf + sizeof buf, level).ptr;
    for (std::uint32_t k : kids) {
        *p++ = ' ';
        p = std::to_chars(p, buf + sizeof buf, k).ptr;
    }
    *p++ = '\n';
    out.append(buf, p);
}

}  // namespace io

// Handed to the sink in pieces of about kPiece bytes: a piece, not the file's text, is ever held
// (8 MB after Golly's caterpillar.mc.gz had run 1024 generations; fresh pages cost dev-epyc about
// 2 ms a MB when its host has taken them back).
void write_macrocell(const Quadtree& tree, const PatternMeta& meta, const TextSink& sink) {
    constexpr std::size_t kPiece = std::size_t{64} << 10;
    std::string out = io::macrocell_header(meta);
    out.reserve(out.size() + kPiece + 256);  // a line is at most 8 * 9 + 1 bytes (a leaf), or 5 numbers
    const auto flush = [&] {
        if (out.size() >= kPiece) {
            sink(out);
            out.clear();
        }
    };
    if (tree.canonical()) {
        // Its indices are Golly's numbers already (an engine's export: cpu:hashlife's tree after a
        // run of Golly's caterpillar.mc.gz took about 75 ms through the maps below, by perf's samples).
        for (const Quadtree::Node& n : tree.nodes()) {
            if (n.level == Quadtree::leaf_level) io::append_macrocell_leaf(out, n.bits);
            else io::append_macrocell_node(out, n.level, n.kids);
            flush();
        }
        if (!out.empty()) sink(out);
        return;
    }
    // Golly's numbering: depth first (nw, ne, sw, se), each distinct square once, when first met,
    // children before parents; empty squares are 0. Identical squares get one number even when the
    // tree does not share them, as Golly's canonical tree would.
    std::vector<std::uint32_t> number(tree.nodes().size() + 1, UINT32_MAX);
    number[0] = 0;
    std::uint32_t next = 0;
    if (tree.shared()) {
        // Each distinct square is one index already: its first visit numbers it (converting
        // utm.rle spent an eighth of its time in the maps below).
        const auto visit = [&](const auto& self, Quadtree::Index i) -> std::uint32_t {
            if (number[i] != UINT32_MAX) return number[i];
            const Quadtree::Node& n = tree.node(i);
            if (n.level == Quadtree::leaf_level) {
                io::append_macrocell_leaf(out, n.bits);
            } else {
                std::array<std::uint32_t, 4> kids;
                for (std::size_t q = 0; q < 4; ++q) kids[q] = self(self, n.kids[q]);
                io::append_macrocell_node(out, n.level, kids);
            }
            flush();
            return number[i] = ++next;
        };
        if (tree.root() != 0) visit(visit, tree.root());
        if (!out.empty()) sink(out);
        return;
    }
    // The squares already numbered, found by content: an open-addressed table of the tree index that
    // first got each number (4 bytes a slot; a square's content is its leaf bits or its level and
    // its children's numbers, read back through `number`). Two hash maps did this before, ~45 bytes
    // a square on the heap: converting Golly's caterpillar.mc.gz peaked 15 MB higher.
    const std::size_t slots_wanted = std::max<std::size_t>(16, tree.nodes().size() + tree.nodes().size() / 2);
    std::vector<std::uint32_t> slots(std::bit_ceil(slots_wanted), 0);
    const std::size_t mask = slots.size() - 1;
    const auto mix = [](std::uint64_t h) {
        h ^= h >> 31;
        h *= 0x9E3779B97F4A7C15ull;
        return h ^ (h >> 29);
    };
    // The number of the square `i` whose content hashes to `h` and equals another's (`same`), or a
    // fresh one written by `write`.
    const auto find_or_add = [&](Quadtree::Index i, std::uint64_t h, const auto& same, const auto& write) {
        for (std::size_t p = static_cast<std::size_t>(h) & mask;; p = (p + 1) & mask) {
            const std::uint32_t s = slots[p];
            if (s == 0) {
                slots[p] = static_cast<std::uint32_t>(i);
                write();
                flush();
                return number[i] = ++next;
            }
            if (same(tree.node(s))) return number[i] = number[s];
        }
    };
    // Recursion through a generic lambda (depth <= 63): no std::function call per node.
    const auto visit = [&](const auto& self, Quadtree::Index i) -> std::uint32_t {
        if (number[i] != UINT32_MAX) return number[i];
        const Quadtree::Node& n = tree.node(i);
        if (n.level == Quadtree::leaf_level) {
            if (n.bits == 0) return number[i] = 0;
            return find_or_add(
                i, mix(n.bits), [&](const Quadtree::Node& o) { return o.level == Quadtree::leaf_level && o.bits == n.bits; },
                [&] { io::append_macrocell_leaf(out, n.bits); });
        }
        std::array<std::uint32_t, 4> kids;
        for (std::size_t q = 0; q < 4; ++q) kids[q] = self(self, n.kids[q]);
        if (kids == std::array<std::uint32_t, 4>{}) return number[i] = 0;
        return find_or_add(
            i, io::MacrocellNodeHash{}(io::MacrocellNode{n.level, kids}),
            [&](const Quadtree::Node& o) {
                if (o.level != n.level) return false;
                for (std::size_t q = 0; q < 4; ++q)
                    if (number[o.kids[q]] != kids[q]) return false;
                return true;
            },
            [&] { io::append_macrocell_node(out, n.level, kids); });
    };
    if (tree.root() != 0) visit(visit, tree.root());
    if (!out.empty()) sink(out);
}

std::string format_macrocell(const Quadtree& tree, const PatternMeta& meta) {
    std::string text;
    text.reserve(64 + 24 * tree.nodes().size());  // a node line is ~20 bytes, a leaf ~40
    advise_huge_pages(text);
    write_macrocell(tree, meta, [&text](std::string_view piece) { text += piece; });
    return text;
}

}  // namespace tilelife
