// cpu:bitpacked — one bit per cell, bit-sliced neighbour counting, OpenMP row bands, SIMD chosen at
// run time. Internal header: the engine registers itself; tests use make_bitpacked() to run every
// SIMD level this machine supports against the oracle. Design notes: docs/bitpacked.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "tilelife/engine.hpp"

namespace tilelife {

void register_bitpacked_engine();  // called from register_cpu_engines()

namespace bitpacked {

using Word = std::uint64_t;

// Instruction-set levels the kernels are compiled for (function attributes, so the library itself
// stays baseline x86-64 and runs anywhere).
enum class Simd { baseline, avx2, avx512 };
std::string_view to_string(Simd s);
bool simd_supported(Simd s);  // by this CPU
Simd best_simd(Simd cap = Simd::avx512);  // the widest supported level up to `cap`

// Host bytes of a board of `columns` word columns of `stride` words (two buffers) and `tiles`
// activity tiles (their flags and lists; 0 without tracking).
constexpr std::size_t host_bytes(std::size_t columns, std::size_t stride, std::size_t tiles) {
    return 2 * (columns + 1) * stride * sizeof(std::uint64_t) + tiles * 16;
}

// How several threads share a step: boards of at most blocked_max_words words synchronise every
// sync_depth generations (private copies with overlapping rows); larger ones after every generation.
// activity: skip tiles whose neighbourhood matches two generations back (docs/activity.md); the
// registered engine turns it off with `--param activity=off`.
// probe_interval: generations run densely, untracked, once most tiles turned out active, before
// tracking is tried again.
struct Tuning {
    std::int64_t sync_depth = 16;
    std::size_t blocked_max_words = std::size_t{1} << 22;
    bool activity = true;
    std::int64_t probe_interval = 64;
    // Several threads only for tracked generations with at least parallel_tiles tiles to compute,
    // and untracked runs of at least parallel_word_generations word-generations:
    // below that a parallel region costs more than it saves (tests set 0 to exercise the paths).
    std::size_t parallel_tiles = 4096;
    std::size_t parallel_word_generations = std::size_t{1} << 21;
};

// The engine at a given SIMD level (must be supported); the registered engine uses best_simd().
std::unique_ptr<Engine> make_bitpacked(const BoardSpec& spec, const EngineOptions& options, Simd simd,
                                       const Tuning& tuning = {});

// ---- kernel interface (bitpacked_kernel.cpp) ----
//
// Board layout: column-major in 64-cell words. Word column i holds cells x = 64*i .. 64*i+63 with
// cell x at bit x % 64 (bit 0 = leftmost); bits past the board's width are always 0. Each column is
// `stride` words (a multiple of 8, so with a 64-byte aligned base every column is aligned): row y at
// index first_row + y, a halo word just above row 0 and just below row H-1 (copies of the opposite
// row on a torus, 0 on a plane), zero padding elsewhere. A vector of consecutive words is thus a
// vertical run of rows and every neighbour is a plain load — no lane shuffles — and 512-row blocks
// starting at a multiple of 8 read and write whole aligned vectors. Column `columns` is all zeros:
// the outside of a plane.
constexpr std::size_t first_row = 8;
// Words per column for `height` rows.
constexpr std::size_t column_stride(std::size_t height) { return (first_row + height + 1 + 7) / 8 * 8; }

// Any Life-like rule as a mux tree on the 9-cell count n (centre included, 0..9): leaf n =
// base[n] ^ (flip[n] & centre), base[n] = birth(n), flip[n] = birth(n) ^ survival(n - 1)
// (out-of-range terms 0), each all-zeros or all-ones.
struct RuleMasks {
    Word base[10];
    Word flip[10];
};

struct StepArgs {
    const Word* src = nullptr;
    Word* dst = nullptr;
    std::size_t stride = 0;   // words per column: column_stride(height)
    std::size_t columns = 0;  // word columns: ceil(width / 64)
    std::size_t height = 0;
    bool wrap_x = false;  // torus columns: the west of column 0 is the last cell, and so on
    bool wrap_y = false;  // torus rows: keep dst's halo words current
    bool life = false;       // B3/S23: the specialised matcher
    unsigned last_bit = 0;   // (width - 1) % 64: the last cell's bit in the last column
    Word tail_mask = 0;      // valid bits of the last column
    RuleMasks rule{};
};

// One generation for rows [y0, y1) of every column of args.dst, plus the halo words that copy those
// rows (row 0 -> bottom halo, row H-1 -> top halo) when wrap_y.
using BandKernel = void (*)(const StepArgs& args, std::size_t y0, std::size_t y1);
BandKernel band_kernel(Simd simd);

// ---- activity tracking (docs/activity.md) ----
//
// The board is also split into tiles of one word column by tile_rows rows (the last tile of a
// column may be shorter). A tracked generation computes only some tiles and reports, per tile,
// where its new words differ from the words they overwrite (two generations back): these flags.
constexpr std::size_t tile_rows = 64;
using TileFlags = std::uint16_t;
enum : TileFlags {
    changed_any = 1,        // some cell of the tile
    changed_top = 2,        // some cell of its first row
    changed_bottom = 4,     // ... of its last row
    changed_west = 8,       // ... of its first cell column (bit 0)
    changed_east = 16,      // ... of its last cell column (bit 63, or the board's last cell)
    changed_top_west = 32,  // the four corner cells
    changed_top_east = 64,
    changed_bottom_west = 128,
    changed_bottom_east = 256,
    changed_all = 511,
};

// Flags from the OR of a tile's changed bits (acc) and those of its first and last rows.
inline TileFlags change_flags(Word acc, Word top, Word bottom, unsigned east_bit) {
    if (!acc) return 0;
    TileFlags f = changed_any;
    if (acc & 1u) f |= changed_west;
    if ((acc >> east_bit) & 1u) f |= changed_east;
    if (top) f |= changed_top | ((top & 1u) ? changed_top_west : 0) | (((top >> east_bit) & 1u) ? changed_top_east : 0);
    if (bottom)
        f |= changed_bottom | ((bottom & 1u) ? changed_bottom_west : 0) |
             (((bottom >> east_bit) & 1u) ? changed_bottom_east : 0);
    return f;
}

// One tracked generation of rows [y0, y1) of word column `column` (y0 a multiple of tile_rows,
// y1 - y0 at most 512, y1 a tile end): writes them into args.dst (and its halo words when wrap_y)
// and the change flags of each tile into flags[0], flags[1], ...
using RunKernel = void (*)(const StepArgs& args, std::size_t column, std::size_t y0, std::size_t y1,
                           TileFlags* flags);
RunKernel run_kernel(Simd simd);
constexpr std::size_t max_run_rows = 512;

// Live cells in `count` words (tail bits are zero, so a plain popcount is exact). `hardware`: use
// the POPCNT instruction (and AVX-512 VPOPCNTDQ with Simd::avx512) where this CPU has it; false
// gives the portable bit-twiddling version (tests compare the two).
using PopcountKernel = std::int64_t (*)(const Word* words, std::size_t count);
PopcountKernel popcount_kernel(Simd simd, bool hardware = true);

}  // namespace bitpacked
}  // namespace tilelife
