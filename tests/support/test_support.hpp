// Shared helpers for the core, golly and cli suites: engine lists, cell sets, a tiny RLE body
// decoder independent of src/io, temp dirs, running commands and bgolly.
#pragma once
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"
#include "tilelife/geometry.hpp"
#include "tilelife/rule.hpp"

namespace tilelife::test {

using Cells = std::vector<Cell>;

// ---------------------------------------------------------------------------------------------
// Engines

inline std::vector<std::string> engine_names() {
    register_builtin_engines();
    std::vector<std::string> out;
    for (const auto& e : registered_engines()) out.push_back(e.name);
    return out;
}

inline bool is_opencl(std::string_view name) { return name.rfind("opencl:", 0) == 0; }

// The fastest CPU engine of this build: cpu:bitpacked when registered, else cpu:reference.
inline std::string fast_cpu_engine() {
    register_builtin_engines();
    return engine_exists("cpu:bitpacked") ? "cpu:bitpacked" : "cpu:reference";
}

// gtest parameter names must be alphanumeric: "cpu:reference" -> "cpu_reference".
inline std::string param_name(const std::string& engine) {
    std::string s = engine;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

struct EngineParamName {
    std::string operator()(const ::testing::TestParamInfo<std::string>& info) const {
        return param_name(info.param);
    }
};

// Creates an engine; an OpenCL engine without a usable device (RuntimeError) yields nullptr so the
// caller can GTEST_SKIP. Any other failure propagates.
inline std::unique_ptr<Engine> try_create(const std::string& name, const BoardSpec& spec,
                                          std::string* why = nullptr) {
    // Engines that run only the unbounded plane (cpu:hashlife, cpu:auto) must refuse a bounded
    // board with an InputError naming the engines that run it; the caller then skips.
    const auto info = find_engine(name);
    if (info && !info->bounded && spec.topology != Topology::unbounded) {
        try {
            create_engine(name, spec);
            ADD_FAILURE() << name << " accepted a " << to_string(spec.topology) << " board";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("only the unbounded plane"), std::string::npos) << what;
            EXPECT_NE(what.find("cpu:reference"), std::string::npos) << what;
        }
        if (why) *why = "runs only the unbounded plane (its refusal checked)";
        return nullptr;
    }
    try {
        return create_engine(name, spec);
    } catch (const RuntimeError& e) {
        if (!is_opencl(name)) throw;
        if (why) *why = e.what();
        return nullptr;
    }
}

inline BoardSpec spec_of(std::int64_t w, std::int64_t h, Topology t, const std::string& rule = "B3/S23") {
    return BoardSpec{w, h, t, parse_rule(rule).rule};
}

#define TILELIFE_CREATE_OR_SKIP(var, name, spec)                                        \
    std::string var##_why;                                                              \
    auto var = ::tilelife::test::try_create((name), (spec), &var##_why);                \
    if (!var) GTEST_SKIP() << (name) << ": skipped (" << var##_why << ")"

// ---------------------------------------------------------------------------------------------
// Cell sets

inline Cells sorted(Cells c) {
    std::sort(c.begin(), c.end(), [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
}

inline Cells translated(const Cells& c, std::int64_t dx, std::int64_t dy) {
    Cells out;
    out.reserve(c.size());
    for (const Cell& p : c) out.push_back(Cell{p.x + dx, p.y + dy});
    return sorted(std::move(out));
}

inline Cells united(const Cells& a, const Cells& b) {
    Cells out = a;
    out.insert(out.end(), b.begin(), b.end());
    return sorted(std::move(out));
}

inline Box bbox(const Cells& c) { return bounding_box(c); }

// Shape with its bounding box moved to (0, 0).
inline Cells normalised(const Cells& c) {
    const Box b = bbox(c);
    return translated(c, -b.x, -b.y);
}

// Rows of '.' and 'O' (or '*', 'o'): a picture of cells, top-left at (dx, dy).
inline Cells picture(const std::vector<std::string>& rows, std::int64_t dx = 0, std::int64_t dy = 0) {
    Cells out;
    for (std::size_t y = 0; y < rows.size(); ++y)
        for (std::size_t x = 0; x < rows[y].size(); ++x)
            if (rows[y][x] == 'O' || rows[y][x] == 'o' || rows[y][x] == '*')
                out.push_back(Cell{dx + static_cast<std::int64_t>(x), dy + static_cast<std::int64_t>(y)});
    return sorted(std::move(out));
}

// Decodes an RLE body ("bo$2bo$3o!"), top-left at (dx, dy). Deliberately independent of src/io so
// that the core suite does not depend on the readers.
inline Cells rle_cells(std::string_view body, std::int64_t dx = 0, std::int64_t dy = 0) {
    Cells out;
    std::int64_t x = 0, y = 0, run = 0;
    for (char ch : body) {
        if (ch >= '0' && ch <= '9') {
            run = run * 10 + (ch - '0');
            continue;
        }
        const std::int64_t n = run ? run : 1;
        run = 0;
        if (ch == 'b' || ch == '.') x += n;
        else if (ch == 'o' || ch == 'A') {
            for (std::int64_t i = 0; i < n; ++i) out.push_back(Cell{dx + x + i, dy + y});
            x += n;
        } else if (ch == '$') {
            y += n;
            x = 0;
        } else if (ch == '!') break;
    }
    return sorted(std::move(out));
}

inline std::string show(const Cells& c, std::size_t limit = 12) {
    std::ostringstream s;
    s << c.size() << " cells {";
    for (std::size_t i = 0; i < c.size() && i < limit; ++i) s << (i ? " " : "") << "(" << c[i].x << "," << c[i].y << ")";
    if (c.size() > limit) s << " ...";
    s << "}";
    return s.str();
}

// Empty when equal; otherwise a short description of both differences, for assertion messages.
inline std::string diff(const Cells& expected, const Cells& actual) {
    const auto less = [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; };
    const Cells e = sorted(expected), a = sorted(actual);
    if (e == a) return {};
    Cells missing, extra;
    std::set_difference(e.begin(), e.end(), a.begin(), a.end(), std::back_inserter(missing), less);
    std::set_difference(a.begin(), a.end(), e.begin(), e.end(), std::back_inserter(extra), less);
    std::ostringstream s;
    s << "expected " << e.size() << " cells, got " << a.size() << "; missing " << show(missing, 8) << "; extra "
      << show(extra, 8) << "; expected bbox (" << bbox(e).x << "," << bbox(e).y << " " << bbox(e).width << "x"
      << bbox(e).height << "), actual bbox (" << bbox(a).x << "," << bbox(a).y << " " << bbox(a).width << "x"
      << bbox(a).height << ")";
    return s.str();
}

inline ::testing::AssertionResult CellsEqual(const char* expected_expr, const char* actual_expr, const Cells& expected,
                                             const Cells& actual) {
    const std::string d = diff(expected, actual);
    if (d.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << actual_expr << " differs from " << expected_expr << ": " << d;
}

// Exact cell sets (order and duplicates ignored); streamable like EXPECT_EQ.
#define EXPECT_CELLS(expected, actual) EXPECT_PRED_FORMAT2(::tilelife::test::CellsEqual, expected, actual)

// Deterministic soup: each cell of w x h alive with probability density (xorshift, fixed seed).
inline Cells soup(std::int64_t w, std::int64_t h, double density, std::uint64_t seed, std::int64_t dx = 0,
                  std::int64_t dy = 0) {
    std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    const auto threshold = static_cast<std::uint64_t>(density * 18446744073709551615.0);
    Cells out;
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            if (s < threshold) out.push_back(Cell{dx + x, dy + y});
        }
    return out;
}

// An independent, obviously-correct stepper for bounded boards (torus: offsets wrap modulo the size,
// so on 1- or 2-wide tori a cell can be its own or the same neighbour several times, as in Golly;
// plane: cells outside are dead). Used to check every engine on small boards.
inline Cells naive_step(const Cells& cells, std::int64_t w, std::int64_t h, Topology t, const Rule& rule,
                        std::int64_t gens = 1) {
    std::vector<std::uint8_t> cur(static_cast<std::size_t>(w * h), 0), next(cur.size());
    for (const Cell& c : cells) cur[static_cast<std::size_t>(c.y * w + c.x)] = 1;
    for (std::int64_t g = 0; g < gens; ++g) {
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                int n = 0;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        if (!dx && !dy) continue;
                        std::int64_t nx = x + dx, ny = y + dy;
                        if (t == Topology::torus) {
                            nx = (nx + w) % w;
                            ny = (ny + h) % h;
                        } else if (nx < 0 || ny < 0 || nx >= w || ny >= h) {
                            continue;
                        }
                        n += cur[static_cast<std::size_t>(ny * w + nx)];
                    }
                next[static_cast<std::size_t>(y * w + x)] = rule.next(cur[static_cast<std::size_t>(y * w + x)], n);
            }
        cur.swap(next);
    }
    Cells out;
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            if (cur[static_cast<std::size_t>(y * w + x)]) out.push_back(Cell{x, y});
    return out;
}

// Board loaded with cells, stepped n generations, live cells returned.
inline Cells run_cells(Engine& e, const Cells& cells, std::int64_t gens) {
    e.set_cells(cells);
    e.step(gens);
    return e.live_cells();
}

// ---------------------------------------------------------------------------------------------
// Files, temp dirs, commands

// Macrocell text without its metadata lines (#N, #O, #C): tilelife keeps a pattern's name, authors and
// comments in the .mc it writes, where bgolly drops them; the rest is compared byte for byte.
inline std::string without_macrocell_metadata(const std::string& mc) {
    std::string out;
    std::size_t at = 0;
    while (at < mc.size()) {
        const std::size_t end = std::min(mc.find('\n', at), mc.size() - 1) + 1;
        const std::string_view line(mc.data() + at, end - at);
        if (!(line.starts_with("#N") || line.starts_with("#O") || line.starts_with("#C"))) out.append(line);
        at = end;
    }
    return out;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_text(const std::string& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

inline bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

// The sizes of the regular files process `pid` has open for writing in directory `dir`, named or
// not: OutputFile's temporary file has no name while it is written (O_TMPFILE; /proc shows it as
// "DIR/#INODE (deleted)"), so tests find it through /proc/PID/fd.
inline std::vector<std::int64_t> files_being_written(long pid, const std::string& dir) {
    std::vector<std::int64_t> sizes;
    std::error_code ec;
    const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
    const std::string prefix = std::filesystem::weakly_canonical(dir, ec).string() + "/";
    for (const auto& entry : std::filesystem::directory_iterator(fds, ec)) {
        const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
        if (ec || target.rfind(prefix, 0) != 0 || target.find('/', prefix.size()) != std::string::npos) continue;
        const std::string info = read_text("/proc/" + std::to_string(pid) + "/fdinfo/" + entry.path().filename().string());
        const auto flags = info.find("flags:");
        if (flags == std::string::npos || (std::stoul(info.substr(flags + 6), nullptr, 8) & 3) == 0) continue;  // read-only
        struct stat st {};
        if (::stat(entry.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) sizes.push_back(st.st_size);
    }
    return sizes;
}

class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "tilelife-test-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        if (!std::getenv("TILELIFE_KEEP_TEMP")) std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }
    // Names of the files in the directory, sorted.
    std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(path_)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::string path_;
};

inline std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

struct CommandResult {
    int exit_code = -1;  // -1 when killed by a signal
    std::string out;     // stdout
    std::string err;     // stderr
};

// Runs `command` with sh, capturing stdout and stderr separately (stderr through a temp file).
inline CommandResult run_command(const std::string& command) {
    CommandResult r;
    TempDir tmp;
    const std::string errfile = tmp / "stderr";
    const std::string full = "(" + command + ") 2>" + shell_quote(errfile);
    FILE* p = popen(full.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = read_text(errfile);
    return r;
}

inline std::string bgolly_path() {
#ifdef TILELIFE_BGOLLY
    std::string p = TILELIFE_BGOLLY;
    if (!p.empty() && access(p.c_str(), X_OK) == 0) return p;
#endif
    return {};
}

inline std::string source_dir() { return TILELIFE_SOURCE_DIR; }

}  // namespace tilelife::test
