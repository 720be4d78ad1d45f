// The bit-sliced generation kernel of cpu:bitpacked, compiled three times (baseline SSE2, AVX2,
// AVX-512) through function target attributes and picked at run time, so the default build runs on
// any x86-64. The body is plain scalar code on 64-bit words that GCC vectorises: a vector lane is one
// row, so the horizontal neighbours of a lane come from the same lane of the adjacent word columns.
#include <algorithm>
#include <bit>

#include "core/cpu_features.hpp"
#include "cpu/bitpacked.hpp"
#include "cpu/bitsliced.hpp"

namespace tilelife::bitpacked {
namespace {

// Rows per cache block: the 4 KiB column pieces (left, centre, right, out, two scratch planes) stay
// in L1 while the kernel walks across the columns, and each input piece serves three columns.
// Measured on a 48 KiB L1: 512 rows 9% faster than 1024, 30% faster than 2048; 256 no better.
constexpr std::size_t block_rows = 512;
static_assert(block_rows % tile_rows == 0 && max_run_rows <= block_rows);

using bitsliced::add3;
using bitsliced::next_state;

// Pass 1 of a column piece (below): the horizontal 3-sums of rows -first_row .. n of the piece.
template <bool Edge>
TL_INLINE void horizontal_sums(const Word* __restrict L, const Word* __restrict C, const Word* __restrict R,
                               std::size_t n, unsigned lsh, unsigned esh, Word* __restrict lo, Word* __restrict hi) {
    for (std::size_t k = 0; k < n + first_row + 1; ++k) {
        const Word c = C[k], l = L[k], rr = R[k];
        const Word w_in = Edge ? ((l >> lsh) & 1u) : (l >> 63);
        const Word e_in = Edge ? ((rr & 1u) << esh) : (rr << 63);
        add3((c << 1) | w_in, c, (c >> 1) | e_in, lo[k], hi[k]);
    }
}

// One column piece of `n` output rows, in two passes: the horizontal 3-sum (west + centre + east,
// two bit-planes) of each row involved, once, into L1 scratch `lo`/`hi`; then the vertical sum of
// three of them, the 9-cell count including the centre, and the rule. (Summing the 3-sums of each
// row afresh for every output row costs about 25% more.)
// `C` points at the word first_row rows above the first output row: pass 1 starts there, so that
// its loads and stores — and pass 2's centre loads and output stores — fall on whole aligned vectors
// (when the piece starts at a multiple of 8); it computes 7 rows no one needs.
// West/east neighbours come from the adjacent columns L and R: interior columns take L's bit 63 and
// R's bit 0; edge columns (Edge) take L's bit `lsh` and put R's bit 0 at bit `esh`, which wraps a
// torus whose width is not a multiple of 64, and mask the tail bits of the last column.
template <bool Life, bool Edge>
TL_INLINE void column_piece(const Word* __restrict L, const Word* __restrict C, const Word* __restrict R,
                            Word* __restrict out, std::size_t n, unsigned lsh, unsigned esh, Word mask,
                            const RuleMasks& rm, Word* __restrict lo, Word* __restrict hi) {
    horizontal_sums<Edge>(L, C, R, n, lsh, esh, lo, hi);
    C += first_row;
    lo += first_row - 1;
    hi += first_row - 1;
    Word base[10], flip[10];
    for (int i = 0; i < 10; ++i) base[i] = rm.base[i], flip[i] = rm.flip[i];
    for (std::size_t k = 0; k < n; ++k) {
        const Word next = next_state<Life>(lo + k, hi + k, C[k], base, flip);
        out[k] = Edge ? (next & mask) : next;
    }
}

// column_piece for activity tracking: the same generation, and for each tile of tile_rows rows
// (the last may be shorter) the change flags of the new rows against the words they overwrite,
// which hold the generation before the source (see docs/activity.md).
template <bool Life, bool Edge>
TL_INLINE void tracked_piece(const Word* __restrict L, const Word* __restrict C, const Word* __restrict R,
                             Word* __restrict out, std::size_t n, unsigned lsh, unsigned esh, Word mask,
                             unsigned east_bit, const RuleMasks& rm, Word* __restrict lo, Word* __restrict hi,
                             TileFlags* flags) {
    horizontal_sums<Edge>(L, C, R, n, lsh, esh, lo, hi);
    C += first_row;
    lo += first_row - 1;
    hi += first_row - 1;
    Word base[10], flip[10];
    for (int i = 0; i < 10; ++i) base[i] = rm.base[i], flip[i] = rm.flip[i];
    for (std::size_t s = 0, t = 0; s < n; s += tile_rows, ++t) {
        const std::size_t e = std::min(n, s + tile_rows);
        const Word top_old = out[s], bottom_old = out[e - 1];
        Word acc = 0;
        for (std::size_t k = s; k < e; ++k) {
            Word next = next_state<Life>(lo + k, hi + k, C[k], base, flip);
            if constexpr (Edge) next &= mask;
            acc |= next ^ out[k];
            out[k] = next;
        }
        flags[t] = change_flags(acc, out[s] ^ top_old, out[e - 1] ^ bottom_old, east_bit);
    }
}

template <bool Life>
TL_INLINE void band(const StepArgs& a, std::size_t y0, std::size_t y1) {
    const std::size_t nw = a.columns, stride = a.stride;
    const Word* zero = a.src + nw * stride;  // the all-zero column
    alignas(64) Word lo[block_rows + first_row + 1], hi[block_rows + first_row + 1];
    for (std::size_t b0 = y0; b0 < y1; b0 += block_rows) {
        const std::size_t n = std::min(block_rows, y1 - b0);
        // Column i's row y is at i * stride + first_row + y; pieces start first_row rows above b0.
        auto col = [&](std::size_t i) { return a.src + i * stride + b0; };
        for (std::size_t i = 0; i < nw; ++i) {
            Word* out = a.dst + i * stride + first_row + b0;
            const bool first = i == 0, last = i + 1 == nw;
            if (!first && !last) {
                column_piece<Life, false>(col(i - 1), col(i), col(i + 1), out, n, 63, 63, ~Word{0}, a.rule, lo, hi);
                continue;
            }
            // West of column 0: the last cell of the row (torus) or nothing (plane).
            const Word* L = first ? (a.wrap_x ? col(nw - 1) : zero + b0) : col(i - 1);
            const unsigned lsh = first ? a.last_bit : 63;
            // East of the last column: cell 0 (torus) or nothing, placed just past the last cell.
            const Word* R = last ? (a.wrap_x ? col(0) : zero + b0) : col(i + 1);
            const unsigned esh = last ? a.last_bit : 63;
            column_piece<Life, true>(L, col(i), R, out, n, lsh, esh, last ? a.tail_mask : ~Word{0}, a.rule, lo,
                                     hi);
        }
    }
    if (a.wrap_y) {
        // Halos of dst for the next generation: bottom halo copies row 0, top halo copies row H-1.
        for (std::size_t i = 0; i < nw; ++i) {
            Word* c = a.dst + i * stride;
            if (y0 == 0) c[first_row + a.height] = c[first_row];
            if (y1 == a.height) c[first_row - 1] = c[first_row + a.height - 1];
        }
    }
}

TL_INLINE void band_any(const StepArgs& a, std::size_t y0, std::size_t y1) {
    if (a.life) band<true>(a, y0, y1);
    else band<false>(a, y0, y1);
}

void band_baseline(const StepArgs& a, std::size_t y0, std::size_t y1) { band_any(a, y0, y1); }

__attribute__((target("avx2"))) void band_avx2(const StepArgs& a, std::size_t y0, std::size_t y1) {
    band_any(a, y0, y1);
}

// 512-bit vectors: GCC prefers 256 by default even with AVX-512 enabled; this kernel is pure
// integer logic with no frequency-heavy instructions, so the wide form pays.
__attribute__((target("avx512f,avx512vl,prefer-vector-width=512"))) void band_avx512(const StepArgs& a,
                                                                                    std::size_t y0,
                                                                                    std::size_t y1) {
    band_any(a, y0, y1);
}

template <bool Life>
TL_INLINE void run(const StepArgs& a, std::size_t i, std::size_t y0, std::size_t y1, TileFlags* flags) {
    const std::size_t nw = a.columns, stride = a.stride, n = y1 - y0;
    const Word* zero = a.src + nw * stride;
    alignas(64) Word lo[block_rows + first_row + 1], hi[block_rows + first_row + 1];
    auto col = [&](std::size_t c) { return a.src + c * stride + y0; };
    Word* out = a.dst + i * stride + first_row + y0;
    const bool first = i == 0, last = i + 1 == nw;
    const unsigned east_bit = last ? a.last_bit : 63;
    if (!first && !last) {
        tracked_piece<Life, false>(col(i - 1), col(i), col(i + 1), out, n, 63, 63, ~Word{0}, 63, a.rule, lo, hi,
                                   flags);
    } else {
        const Word* L = first ? (a.wrap_x ? col(nw - 1) : zero + y0) : col(i - 1);
        const Word* R = last ? (a.wrap_x ? col(0) : zero + y0) : col(i + 1);
        tracked_piece<Life, true>(L, col(i), R, out, n, first ? a.last_bit : 63, last ? a.last_bit : 63,
                                  last ? a.tail_mask : ~Word{0}, east_bit, a.rule, lo, hi, flags);
    }
    if (a.wrap_y) {
        Word* c = a.dst + i * stride;
        if (y0 == 0) c[first_row + a.height] = c[first_row];
        if (y1 == a.height) c[first_row - 1] = c[first_row + a.height - 1];
    }
}

TL_INLINE void run_any(const StepArgs& a, std::size_t i, std::size_t y0, std::size_t y1, TileFlags* flags) {
    if (a.life) run<true>(a, i, y0, y1, flags);
    else run<false>(a, i, y0, y1, flags);
}

void run_baseline(const StepArgs& a, std::size_t i, std::size_t y0, std::size_t y1, TileFlags* flags) {
    run_any(a, i, y0, y1, flags);
}
__attribute__((target("avx2"))) void run_avx2(const StepArgs& a, std::size_t i, std::size_t y0, std::size_t y1,
                                               TileFlags* flags) {
    run_any(a, i, y0, y1, flags);
}
__attribute__((target("avx512f,avx512vl,prefer-vector-width=512"))) void run_avx512(const StepArgs& a, std::size_t i,
                                                                                   std::size_t y0, std::size_t y1,
                                                                                   TileFlags* flags) {
    run_any(a, i, y0, y1, flags);
}

TL_INLINE std::int64_t count_bits(const Word* w, std::size_t n) {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += std::popcount(w[i]);
    return total;
}

// Baseline x86-64 has no POPCNT instruction (std::popcount becomes a bit-twiddling sequence), so
// the instruction is enabled per function, as is AVX-512's vector popcount.
std::int64_t popcount_soft(const Word* w, std::size_t n) { return count_bits(w, n); }
__attribute__((target("popcnt"))) std::int64_t popcount_popcnt(const Word* w, std::size_t n) {
    return count_bits(w, n);
}
__attribute__((target("popcnt,avx512f,avx512vl,avx512vpopcntdq,prefer-vector-width=512"))) std::int64_t
popcount_avx512(const Word* w, std::size_t n) {
    return count_bits(w, n);
}

}  // namespace

BandKernel band_kernel(Simd simd) {
    switch (simd) {
        case Simd::avx512: return band_avx512;
        case Simd::avx2: return band_avx2;
        default: return band_baseline;
    }
}

RunKernel run_kernel(Simd simd) {
    switch (simd) {
        case Simd::avx512: return run_avx512;
        case Simd::avx2: return run_avx2;
        default: return run_baseline;
    }
}

PopcountKernel popcount_kernel(Simd simd, bool hardware) {
    if (!hardware || !cpu::has(cpu::Feature::popcnt)) return popcount_soft;
    if (simd == Simd::avx512 && cpu::has(cpu::Feature::avx512vpopcntdq)) return popcount_avx512;
    return popcount_popcnt;
}

}  // namespace tilelife::bitpacked
