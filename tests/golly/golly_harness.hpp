// Differential testing against Golly (bgolly): run the same input file through bgolly's HashLife
// (macrocell output keeps absolute positions: the root node's top-left is (-2^(L-1), -2^(L-1)+1))
// and through tilelife, then compare exact cell sets.
//
// Placement, as in docs/design.md: on unbounded boards both keep the file's coordinates (inputs
// carry "#CXRLE Pos=x,y", else Golly centres an RLE); on a W x H torus/plane Golly's grid has its
// top-left at (-W/2, -H/2) and an RLE without Pos goes to (-w/2, -h/2), so Golly's absolute output
// maps to grid coordinates by (+W/2, +H/2) and tilelife places the frame at (W/2 - w/2, H/2 - h/2).
#pragma once
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::golly {

using test::Cells;

// RLE text for cells relative to a w x h frame whose top-left is (0,0); with `pos` a "#CXRLE Pos"
// line puts the frame's top-left there. Independent of src/io's writer on purpose.
inline std::string encode_rle(const Cells& cells, std::int64_t w, std::int64_t h, const std::string& rule,
                              std::optional<Cell> pos = std::nullopt) {
    std::string out;
    if (pos) out += "#CXRLE Pos=" + std::to_string(pos->x) + "," + std::to_string(pos->y) + "\n";
    out += "x = " + std::to_string(w) + ", y = " + std::to_string(h) + ", rule = " + rule + "\n";
    std::string body;
    const Cells s = test::sorted(cells);
    std::int64_t y = 0, x = 0;
    std::size_t i = 0;
    auto put = [&](std::int64_t n, char c) {
        if (n <= 0) return;
        if (n > 1) body += std::to_string(n);
        body += c;
    };
    while (i < s.size()) {
        if (s[i].y > y) {
            put(s[i].y - y, '$');
            y = s[i].y;
            x = 0;
        }
        put(s[i].x - x, 'b');
        std::size_t j = i;
        while (j + 1 < s.size() && s[j + 1].y == s[i].y && s[j + 1].x == s[j].x + 1) ++j;
        put(static_cast<std::int64_t>(j - i + 1), 'o');
        x = s[j].x + 1;
        i = j + 1;
    }
    body += '!';
    for (std::size_t k = 0; k < body.size(); k += 70) out += body.substr(k, 70) + "\n";
    return out;
}

// An RLE file's text with its header's rule replaced (or added) and, when `pos` is given, a
// "#CXRLE Pos=x,y" line instead of any existing #CXRLE line.
inline std::string rewrite_rle(const std::string& text, const std::string& rule, std::optional<Cell> pos) {
    std::string out;
    std::size_t start = 0;
    bool header_done = false;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        start = end + 1;
        if (!header_done && line.rfind("#CXRLE", 0) == 0) continue;
        if (!header_done && !line.empty() && line[0] != '#') {
            // "x = 3, y = 3, rule = B3/S23"
            const auto r = line.find("rule");
            if (r != std::string::npos) line = line.substr(0, r);
            while (!line.empty() && (line.back() == ' ' || line.back() == ',')) line.pop_back();
            line += ", rule = " + rule;
            if (pos) out += "#CXRLE Pos=" + std::to_string(pos->x) + "," + std::to_string(pos->y) + "\n";
            header_done = true;
        }
        out += line + "\n";
    }
    return out;
}

struct GollyResult {
    bool ok = false;
    std::string error;
    Cells cells;  // Golly's absolute coordinates
    std::int64_t generation = -1;
};

// bgolly -a ALGO -m GENS -o OUT INPUT. HashLife writes macrocell (absolute), QuickLife RLE (shape
// only: bgolly writes no position).
inline GollyResult run_bgolly(const std::string& input, std::int64_t gens, const std::string& workdir,
                              const std::string& tag, const std::string& algo = "HashLife",
                              int timeout_s = 120) {
    GollyResult r;
    const std::string bg = test::bgolly_path();
    if (bg.empty()) {
        r.error = "bgolly not found";
        return r;
    }
    const bool mc = algo == "HashLife";
    const std::string out = workdir + "/golly-" + tag + (mc ? ".mc" : ".rle");
    std::remove(out.c_str());
    const std::string cmd = "timeout " + std::to_string(timeout_s) + " " + test::shell_quote(bg) + " -a " + algo +
                            " -q -q -m " + std::to_string(gens) + " -o " + test::shell_quote(out) + " " +
                            test::shell_quote(input);
    const test::CommandResult c = test::run_command(cmd);
    if (c.exit_code != 0 || !test::file_exists(out)) {
        r.error = "bgolly failed (exit " + std::to_string(c.exit_code) + "): " + c.out + c.err;
        return r;
    }
    try {
        const Pattern p = parse_pattern(test::read_text(out), out);
        r.cells = test::sorted(p.cells);
        r.generation = p.generation;
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = std::string("cannot read bgolly's output: ") + e.what();
    }
    return r;
}

// Where tilelife puts a pattern on a W x H bounded board (docs/design.md): positioned patterns at
// their absolute coordinates shifted by (W/2, H/2) as Golly does, others frame-centred.
inline Cells place_bounded(const Pattern& p, std::int64_t w, std::int64_t h) {
    if (p.positioned) return test::translated(p.cells, w / 2, h / 2);
    return test::translated(p.cells, w / 2 - p.frame.width / 2 - p.frame.x, h / 2 - p.frame.height / 2 - p.frame.y);
}

// Runs the pattern on `engine` and returns the live cells after each checkpoint (ascending).
// Throws what the engine throws.
inline std::vector<Cells> run_tilelife(const std::string& engine, const Pattern& p, const Rule& rule, Topology t,
                                       std::int64_t w, std::int64_t h, const std::vector<std::int64_t>& gens,
                                       std::string* skipped) {
    std::vector<Cells> out;
    auto e = test::try_create(engine, BoardSpec{w, h, t, rule}, skipped);
    if (!e) return out;
    e->set_cells(t == Topology::unbounded ? p.cells : place_bounded(p, w, h));
    for (std::int64_t g : gens) {
        e->step(g - e->generation());
        out.push_back(e->live_cells());
    }
    return out;
}

}  // namespace tilelife::golly
