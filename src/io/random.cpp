// "random:WxH[:density[:seed]]": a reproducible soup. Each cell, row by row, takes one draw of
// std::mt19937_64 (fully specified by the standard); its top 53 bits make a double in [0, 1)
// exactly, and the cell is live when that is below the density. No library distribution is used,
// so every platform gives the same soup. The draws go row by row, so a band of rows is the
// draws after the rows above it (stream_random skips them).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <string>

#include "io/bands.hpp"
#include "io/detail.hpp"

namespace tilelife::io {
namespace {

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
    fail(std::string(spec), 0, "bad random pattern spec: " + why + " (expected random:WxH[:density[:seed]])");
}

std::int64_t parse_size(std::string_view spec, std::string_view text, const char* what) {
    std::int64_t v = 0;
    if (text.empty() || text[0] == '+' || text[0] == '-' || !parse_int(text, v))
        bad(spec, std::string(what) + " '" + std::string(text) + "' is not a positive integer");
    if (v <= 0) bad(spec, std::string(what) + " must be at least 1");
    if (v > kMaxCoord) bad(spec, std::string(what) + " too large");
    return v;
}

}  // namespace

RandomSpec parse_random_spec(std::string_view spec) {
    std::string_view rest = spec.substr(7);  // after "random:"
    std::string_view parts[4];
    int count = 0;
    for (;;) {
        const auto colon = rest.find(':');
        if (count == 3) bad(spec, "too many ':' fields");
        parts[count++] = rest.substr(0, colon);
        if (colon == std::string_view::npos) break;
        rest = rest.substr(colon + 1);
    }
    const auto cross = parts[0].find('x');
    if (cross == std::string_view::npos) bad(spec, "size '" + std::string(parts[0]) + "' is not WxH");
    const std::int64_t w = parse_size(spec, parts[0].substr(0, cross), "width");
    const std::int64_t h = parse_size(spec, parts[0].substr(cross + 1), "height");

    double density = 0.5;
    if (count >= 2) {
        const std::string_view d = parts[1];
        const auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), density, std::chars_format::fixed);
        if (d.empty() || ec != std::errc() || ptr != d.data() + d.size() || !std::isfinite(density))
            bad(spec, "density '" + std::string(d) + "' is not a decimal number");
        if (density < 0.0 || density > 1.0) bad(spec, "density must be between 0 and 1");
    }
    std::uint64_t seed = 1;
    if (count >= 3) {
        const std::string_view s = parts[2];
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), seed);
        if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
            bad(spec, "seed '" + std::string(s) + "' is not an unsigned 64-bit integer");
    }

    RandomSpec r;
    r.text = std::string(spec);
    r.width = w;
    r.height = h;
    r.density = density;
    r.seed = seed;
    return r;
}

Pattern random_header(const RandomSpec& spec) {
    Pattern p;
    p.format = PatternFormat::random;
    p.frame = Box{0, 0, spec.width, spec.height};
    p.name = spec.text;
    return p;
}

namespace {
constexpr double kScale = 1.0 / 9007199254740992.0;  // 2^-53
}

void stream_random(const RandomSpec& spec, std::int64_t y0, std::int64_t y1, CellSink& sink) {
    if (!sink.start(random_header(spec))) return;
    y0 = std::max<std::int64_t>(y0, 0);
    y1 = std::min(y1, spec.height);
    if (y0 >= y1) return;
    const std::int64_t w = spec.width;
    const double density = spec.density;
    std::mt19937_64 rng(spec.seed);
    rng.discard(static_cast<unsigned long long>(y0) * static_cast<unsigned long long>(w));
    constexpr std::size_t kBatch = 4096;
    std::vector<CellRun> runs;
    runs.reserve(kBatch);
    for (std::int64_t y = y0; y < y1; ++y) {
        std::int64_t run_from = -1;
        for (std::int64_t x = 0; x < w; ++x) {
            const bool live = static_cast<double>(rng() >> 11) * kScale < density;
            if (live && run_from < 0) run_from = x;
            if (!live && run_from >= 0) {
                runs.push_back(CellRun{run_from, y, x - run_from});
                run_from = -1;
                if (runs.size() == kBatch) {
                    sink.add(runs.data(), runs.size());
                    runs.clear();
                }
            }
        }
        if (run_from >= 0) runs.push_back(CellRun{run_from, y, w - run_from});
        if (runs.size() >= kBatch - 1) {
            sink.add(runs.data(), runs.size());
            runs.clear();
        }
    }
    if (!runs.empty()) sink.add(runs.data(), runs.size());
}

Pattern make_random(std::string_view text, const ReadLimits& limits) {
    const RandomSpec spec = parse_random_spec(text);
    const std::int64_t w = spec.width, h = spec.height;
    const double density = spec.density;
    if (w > limits.max_cells / h)
        bad(text, std::to_string(w) + "x" + std::to_string(h) + " is more than the limit of " +
                      std::to_string(limits.max_cells) + " cells");
    const std::uint64_t seed = spec.seed;

    Pattern p = random_header(spec);
    // The expected count plus a margin far beyond its spread (the standard deviation is at most
    // sqrt(w*h)/2), so the vector is allocated once, not doubled while it fills.
    const double expected = static_cast<double>(w) * static_cast<double>(h) * density;
    const double margin = 8.0 * std::sqrt(static_cast<double>(w) * static_cast<double>(h)) + 64.0;
    p.cells.reserve(static_cast<std::size_t>(
        std::min(static_cast<double>(w) * static_cast<double>(h), std::ceil(expected + margin))));
    advise_huge_pages(p.cells);
    std::mt19937_64 rng(seed);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            if (static_cast<double>(rng() >> 11) * kScale < density) p.cells.push_back(Cell{x, y});
    return p;
}

}  // namespace tilelife::io
