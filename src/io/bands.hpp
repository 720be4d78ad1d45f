// What the board layer needs to read a pattern a band of rows at a time (MPI ranks each reading
// their own band, soups going straight into rows of bits): random soups as a stream of runs from
// any row, and pattern files read through a memory map instead of a copy.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "tilelife/pattern.hpp"

namespace tilelife::io {

// A "random:WxH[:density[:seed]]" spec, parsed (InputError naming the spec as make_random does).
struct RandomSpec {
    std::string text;
    std::int64_t width = 0, height = 0;
    double density = 0.5;
    std::uint64_t seed = 1;
};
RandomSpec parse_random_spec(std::string_view spec);
// The pattern make_random gives, without its cells: format, frame (0, 0, W, H), name.
Pattern random_header(const RandomSpec& spec);
// Hands the soup's live cells of rows [y0, y1) (soup coordinates) to `sink` as runs, after
// sink.start(random_header(spec)) (nothing when it returns false). Exactly the cells make_random
// lists: the generator skips the draws of the rows before y0 (mt19937_64::discard).
void stream_random(const RandomSpec& spec, std::int64_t y0, std::int64_t y1, CellSink& sink);

// read_pattern for a file, mapped instead of copied into memory: the ranks of one machine share the
// page cache's copy, which the kernel can drop and read again. Standard input and random specs go
// to read_pattern.
Pattern read_pattern_mapped(const std::string& path, const ReadLimits& limits, CellSink* sink);

}  // namespace tilelife::io
