// sycl:bitpacked's kernel — twin of src/opencl/kernels/bitpacked_time_tile.cl (design in
// docs/bitpacked-opencl.md): a bit-packed tile advanced several generations in local memory.
//
// Board: one bit per cell in 32-bit words, row-major, `pitch` words per row; cell x of a row is bit
// x % 32 of word x / 32. Bits past the board's width are always 0.
//
// A work-group of S x LW work-items (SYCL dimension 1, the fastest, runs along the LW words of a
// local row) owns a local copy of LW words x LH = S*ROWS rows: its tile of TW = LW - 2 words by
// TH = LH - 2*halo rows, plus one word left and right and `halo` rows above and below. Work-item
// (s, c) holds local column c, rows s*ROWS .. s*ROWS+ROWS-1 in registers. Per generation it reads its
// neighbours' words, computes its new words, and publishes them after a barrier; the copy's outer
// cells see nothing beyond it, so wrong values creep inwards one cell per generation and after
// `steps` <= halo <= 32 generations they have not reached the tile, which is written back.
//
// Two ways to reach the neighbouring words (template parameter SubGroup):
//   local memory  (the OpenCL kernel's way) every row of every strip goes through local memory each
//                 generation: ROWS stores and 2*ROWS+6 loads per work-item, two barriers;
//   sub-group     (the tutorial's "next step": collective functions) when a sub-group is exactly one
//                 strip's LW work-items, the words left and right of a row are shift_group_right /
//                 shift_group_left of the neighbours' registers; only each strip's first and last
//                 row cross local memory (to the strips above and below), double-buffered, so one
//                 barrier per generation.
//
// Compile-time: ROWS (the register array), Torus, Rule (Life's specialised matcher, HighLife and Day &
// Night compiled in, or any rule from run-time masks: RuleKernel below), SubGroup.
#pragma once
#include <sycl/sycl.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/bitpack.hpp"          // row bit helpers shared with the host and OpenCL
#include "sycl/byte_kernels.hpp"  // TILELIFE_INLINE

namespace tilelife::sycl_backend {

struct BitBoard {
    std::uint64_t width = 0, height = 0, pitch = 0, nwords = 0;
};

struct BitpackedArgs {
    BitBoard b;
    std::uint64_t groups_x = 0;  // tiles per tile row
    std::uint32_t steps = 1;     // generations of this launch (<= halo)
    std::uint32_t halo = 1;      // rows above and below the tile (the K the shape was made for)
    std::uint32_t lw = 3;        // words per local row, halo words included
    std::uint32_t strips = 1;    // work-items per local column
    // The rule as word masks, made on the host: born[v] / stays[v] is all ones when a dead / live cell
    // whose 3x3 count (itself included) is v lives next generation, else 0 (v = 0..9).
    std::uint32_t born[10] = {}, stays[10] = {};
};

// v mod n: one add or subtract for v near the board, a few more on boards smaller than the tile.
TILELIFE_INLINE inline std::int64_t wrap_near(std::int64_t v, std::int64_t n) { return wrap_index(v, n); }

// Local word for unrolled word column j (cells 32j .. 32j+31) of unrolled row y: the board wrapped
// around the tile on a torus (bit-exactly when the seam falls inside a word), 0 outside on a plane.
template <bool Torus>
TILELIFE_INLINE inline std::uint32_t board_word(const std::uint32_t* src, const BitBoard& b, std::int64_t j, std::int64_t y) {
    if constexpr (Torus) {
        const std::uint32_t* row = src + static_cast<std::uint64_t>(wrap_near(y, static_cast<std::int64_t>(b.height))) * b.pitch;
        if ((b.width & 31) == 0) return row[wrap_near(j, static_cast<std::int64_t>(b.nwords))];
        std::uint64_t p = static_cast<std::uint64_t>(wrap_near(j * 32, static_cast<std::int64_t>(b.width)));
        std::uint32_t out = 0, filled = 0;
        while (filled < 32) {
            const std::uint64_t n = sycl::min(static_cast<std::uint64_t>(32 - filled), b.width - p);
            std::uint32_t v = bitpack::bits_from32(row, p, b.nwords) & bitpack::low_mask32(static_cast<std::uint32_t>(n));
            out |= v << filled;
            filled += static_cast<std::uint32_t>(n);
            p = 0;  // a run ends at the row's end (or fills the word): the next starts at cell 0
        }
        return out;
    } else {
        if (y < 0 || y >= static_cast<std::int64_t>(b.height) || j < 0 || j >= static_cast<std::int64_t>(b.nwords)) return 0;
        return src[static_cast<std::uint64_t>(y) * b.pitch + static_cast<std::uint64_t>(j)];
    }
}

// Horizontal 3-cell sums of a row as bit planes (lo, hi): one full adder over whole words, with the
// west and east neighbours of every cell shifted in from the words left and right.
TILELIFE_INLINE inline void row_sum(std::uint32_t l, std::uint32_t c, std::uint32_t r, std::uint32_t& lo, std::uint32_t& hi) {
    const std::uint32_t w = (c << 1) | (l >> 31), e = (c >> 1) | (r << 31);
    const std::uint32_t x = w ^ c;
    lo = x ^ e;
    hi = (w & c) | (x & e);
}

// s ? b : a, bit by bit (one LOP3 on NVIDIA GPUs).
TILELIFE_INLINE inline std::uint32_t mux(std::uint32_t s, std::uint32_t a, std::uint32_t b) { return (a & ~s) | (b & s); }

// The rules compiled into the kernel (the OpenCL twin compiles whatever rule it runs, from its build
// options; this kernel is compiled ahead of time, so the common rules are instantiated and any other
// runs from the run-time masks). The Life-like rules most run: Life, HighLife, Day & Night.
enum RuleKernel : int { kRuleMasks = 0, kRuleLife = 1, kRuleHighLife = 2, kRuleDayAndNight = 3 };
// Birth / survival masks of the compiled rules: bit n = born / survives with n live neighbours.
template <int K>
struct CompiledRule;
template <>
struct CompiledRule<kRuleHighLife> {
    static constexpr std::uint32_t birth = (1u << 3) | (1u << 6), survival = (1u << 2) | (1u << 3);
};
template <>
struct CompiledRule<kRuleDayAndNight> {
    static constexpr std::uint32_t birth = (1u << 3) | (1u << 6) | (1u << 7) | (1u << 8);
    static constexpr std::uint32_t survival = (1u << 3) | (1u << 4) | (1u << 6) | (1u << 7) | (1u << 8);
};

// The cells whose 3x3 count (itself included) is V and that live on: born when dead with V
// neighbours, survives when alive with V - 1. A count no cell lives with costs nothing.
template <int V, std::uint32_t Birth, std::uint32_t Survival>
TILELIFE_INLINE inline std::uint32_t lives_with_count(std::uint32_t s0, std::uint32_t s1, std::uint32_t s2, std::uint32_t s3,
                                                      std::uint32_t alive) {
    constexpr bool born = (Birth >> V) & 1u;
    constexpr bool stays = V >= 1 && ((Survival >> (V - 1)) & 1u);
    if constexpr (!born && !stays) {
        return 0;
    } else {
        const std::uint32_t count = ((V & 1) ? s0 : ~s0) & ((V & 2) ? s1 : ~s1) & ((V & 4) ? s2 : ~s2) & ((V & 8) ? s3 : ~s3);
        if constexpr (born && stays) return count;
        else if constexpr (born) return count & ~alive;
        else return count & alive;
    }
}

template <std::uint32_t Birth, std::uint32_t Survival, int... V>
TILELIFE_INLINE inline std::uint32_t next_by_counts(std::uint32_t s0, std::uint32_t s1, std::uint32_t s2, std::uint32_t s3,
                                                    std::uint32_t alive, std::integer_sequence<int, V...>) {
    return (lives_with_count<V, Birth, Survival>(s0, s1, s2, s3, alive) | ...);
}

// The next state from three rows' sums (a: above, b: own row, d: below) and the cell itself.
template <int RuleK>
TILELIFE_INLINE inline std::uint32_t next_state(std::uint32_t a0, std::uint32_t a1, std::uint32_t b0, std::uint32_t b1,
                                                std::uint32_t d0, std::uint32_t d1, std::uint32_t alive,
                                                const BitpackedArgs& rule) {
    // Weight-1 planes: a full adder.
    const std::uint32_t x0 = a0 ^ b0;
    const std::uint32_t s0 = x0 ^ d0;
    const std::uint32_t k0 = (a0 & b0) | (x0 & d0);
    // Weight-2 planes a1, b1, d1 and the carry k0: 9-cell count = s0 + 2*s1 + 4*s2 + 8*s3.
    const std::uint32_t x1 = a1 ^ b1 ^ d1;
    const std::uint32_t s1 = x1 ^ k0;
    const std::uint32_t m1 = (a1 & b1) | (d1 & (a1 ^ b1));
    const std::uint32_t s2 = m1 ^ (x1 & k0);
    if constexpr (RuleK == kRuleLife) {
        // Count 3 (born, or survives with 2), or 4 while alive (survives with 3). Counts 8 and 9 read
        // as 0 and 1 here (s3 left out) and are dead either way. In two three-input operations, as the
        // OpenCL kernel has it (docs/bitpacked-opencl.md): s0 == s1 leaves counts 0, 3, 4 and 7, and
        // (s1 ^ s2) & (s1 | alive) keeps 3, and 4 when alive.
        (void)rule;
        const std::uint32_t u = (s1 ^ s2) & (s1 | alive);
        return u & ~(s0 ^ s1);
    } else if constexpr (RuleK == kRuleMasks) {
        // Any rule: per count v the cell's fate is born[v] or stays[v] by `alive`; the count's bits
        // select among the ten like a multiplexer tree (s3 set means 8 or 9: s2 = s1 = 0 then).
        const std::uint32_t s3 = a1 & b1 & d1 & k0;
        std::uint32_t f[10];
#pragma unroll
        for (int v = 0; v < 10; ++v) f[v] = mux(alive, rule.born[v], rule.stays[v]);
        const std::uint32_t t0 = mux(s0, f[0], f[1]), t1 = mux(s0, f[2], f[3]), t2 = mux(s0, f[4], f[5]);
        const std::uint32_t t3 = mux(s0, f[6], f[7]), t4 = mux(s0, f[8], f[9]);
        return mux(s3, mux(s2, mux(s1, t0, t1), mux(s1, t2, t3)), t4);
    } else {
        // A compiled rule: a sum of the counts it lives with, as the OpenCL kernel builds it.
        (void)rule;
        const std::uint32_t s3 = a1 & b1 & d1 & k0;
        return next_by_counts<CompiledRule<RuleK>::birth, CompiledRule<RuleK>::survival>(
            s0, s1, s2, s3, alive, std::make_integer_sequence<int, 10>{});
    }
}

template <int ROWS, bool Torus, int RuleK, bool SubGroup>
sycl::event launch_bitpacked(sycl::queue& q, const std::uint32_t* src, std::uint32_t* dst, const BitpackedArgs& a,
                             std::uint64_t tiles) {
    const std::size_t lw = a.lw, strips = a.strips;
    // Local memory: the whole copy, or (sub-group) two rows per strip, double-buffered.
    const std::size_t local_words = SubGroup ? 4 * strips * lw : lw * strips * ROWS;
    const sycl::nd_range<2> range(sycl::range<2>(strips, static_cast<std::size_t>(tiles) * lw), sycl::range<2>(strips, lw));
    return q.submit([&](sycl::handler& h) {
        sycl::local_accessor<std::uint32_t, 1> local(sycl::range<1>(local_words), h);
        h.parallel_for(range, [=](sycl::nd_item<2> it) TILELIFE_INLINE {
            // Copies of the captures: AdaptiveCpp calls the kernel body with the closure behind a
            // pointer, and a store through `out` could alias it, forcing reloads.
            const BitpackedArgs args = a;
            const std::uint32_t* const in = src;
            std::uint32_t* const out = dst;
            const BitBoard b = args.b;
            const std::uint32_t LW = args.lw, TW = LW - 2, halo = args.halo;
            const std::uint32_t c = static_cast<std::uint32_t>(it.get_local_id(1));  // local word column
            const std::uint32_t s = static_cast<std::uint32_t>(it.get_local_id(0));  // strip
            const std::uint32_t r0 = s * ROWS;
            const std::uint32_t LH = args.strips * ROWS;
            const std::uint64_t group = it.get_group(1);
            const std::uint64_t gy = group / args.groups_x, gx = group - gy * args.groups_x;
            const std::int64_t first = static_cast<std::int64_t>(gx * TW);                             // tile's first word
            const std::int64_t ytop = static_cast<std::int64_t>(gy * (LH - 2 * halo)) - static_cast<std::int64_t>(halo);  // board row of local row 0
            const std::int64_t j = first - 1 + static_cast<std::int64_t>(c);                            // this column's unrolled word
            // The whole local copy inside the board, in whole words: plain loads, no masks.
            const bool inside = first >= 1 && first + static_cast<std::int64_t>(TW) < static_cast<std::int64_t>(b.width >> 5) &&
                                ytop >= 0 && ytop + static_cast<std::int64_t>(LH) <= static_cast<std::int64_t>(b.height);

            std::uint32_t cur[ROWS];
            if (inside) {
                const std::uint32_t* p = in + static_cast<std::uint64_t>(ytop + r0) * b.pitch + static_cast<std::uint64_t>(j);
#pragma unroll
                for (int r = 0; r < ROWS; ++r) cur[r] = p[static_cast<std::uint64_t>(r) * b.pitch];
            } else {
#pragma unroll
                for (int r = 0; r < ROWS; ++r) cur[r] = board_word<Torus>(in, b, j, ytop + r0 + r);
            }

            // Plane tiles at the edge: which rows of the strip and which bits of the column are on the board.
            std::uint32_t rows_in = 0, col_mask = 0;
            if constexpr (!Torus) {
                if (!inside) {
                    for (int r = 0; r < ROWS; ++r) {
                        const std::int64_t y = ytop + r0 + r;
                        if (y >= 0 && y < static_cast<std::int64_t>(b.height)) rows_in |= 1u << r;
                    }
                    if (j >= 0 && j < static_cast<std::int64_t>(b.nwords))
                        col_mask = j == static_cast<std::int64_t>(b.nwords) - 1 ? bitpack::last_word_mask32(b.width) : ~0u;
                }
            }

            // One generation of the strip in place in cur[], given the rows above and below it and how
            // to reach a word's left and right neighbours.
            // Masked (a plane tile at the edge) is a constant in each call, so the loop of the tiles inside
            // carries no masking: one LOP3 a row less (the OpenCL kernel calls its advance() the same way).
            auto advance = [&](auto masked_c, std::uint32_t up_l, std::uint32_t up_c, std::uint32_t up_r, std::uint32_t dn_l,
                               std::uint32_t dn_c, std::uint32_t dn_r, auto&& left, auto&& right) TILELIFE_INLINE {
                constexpr bool masked = decltype(masked_c)::value;
                std::uint32_t p0, p1, q0, q1, n0, n1;
                row_sum(up_l, up_c, up_r, p0, p1);
                row_sum(left(0), cur[0], right(0), q0, q1);
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    if (r + 1 < ROWS) row_sum(left(r + 1), cur[r + 1], right(r + 1), n0, n1);
                    else row_sum(dn_l, dn_c, dn_r, n0, n1);
                    std::uint32_t nx = next_state<RuleK>(p0, p1, q0, q1, n0, n1, cur[r], args);
                    if (masked) nx &= ((rows_in >> r) & 1u) ? col_mask : 0u;
                    cur[r] = nx;
                    p0 = q0, p1 = q1, q0 = n0, q1 = n1;
                }
            };
            // Plane tiles on the board's edge clear the cells outside it (uniform over the work-group).
            const bool masked = !Torus && !inside;
            auto step = [&](auto&&... a) TILELIFE_INLINE {
                if (masked) advance(std::true_type{}, a...);
                else advance(std::false_type{}, a...);
            };

            if constexpr (SubGroup) {
                // Words of the same row come from the sub-group (one strip). The outermost columns get
                // whatever shift_group_* returns past the sub-group's end (unspecified; CUDA's shuffle
                // returns the lane's own word): like any value there, it only disturbs cells that are
                // allowed to go wrong, and choosing the value cost a SEL per shift (68 of 547
                // instructions a generation on an H100). Rows above and below the strip come from the
                // neighbouring strips through local memory (buffer g % 2), or from the strip itself at
                // the copy's top and bottom.
                const sycl::sub_group sg = it.get_sub_group();
                std::uint32_t* edges = &local[0];
                // A row's neighbour words, taken when advance() asks: row r is still unchanged then.
                auto left = [&](int r) TILELIFE_INLINE { return sycl::shift_group_right(sg, cur[r], 1); };
                auto right = [&](int r) TILELIFE_INLINE { return sycl::shift_group_left(sg, cur[r], 1); };
                for (std::uint32_t g = 0; g < args.steps; ++g) {
                    std::uint32_t* e = edges + (g & 1u) * 2 * args.strips * LW;
                    e[(2 * s) * LW + c] = cur[0];
                    e[(2 * s + 1) * LW + c] = cur[ROWS - 1];
                    sycl::group_barrier(it.get_group());
                    const std::uint32_t up = s == 0 ? cur[0] : e[(2 * s - 1) * LW + c];
                    const std::uint32_t dn = s + 1 == args.strips ? cur[ROWS - 1] : e[(2 * s + 2) * LW + c];
                    step(sycl::shift_group_right(sg, up, 1), up, sycl::shift_group_left(sg, up, 1),
                         sycl::shift_group_right(sg, dn, 1), dn, sycl::shift_group_left(sg, dn, 1), left, right);
                }
            } else {
                std::uint32_t* tile = &local[0];
                const std::uint32_t own = r0 * LW;
#pragma unroll
                for (int r = 0; r < ROWS; ++r) tile[own + r * LW + c] = cur[r];
                sycl::group_barrier(it.get_group());
                // Outside the local copy there is nothing to read: the outermost words and rows read
                // themselves instead, which only disturbs cells that are allowed to go wrong.
                const std::uint32_t cl = c == 0 ? 0 : c - 1, cr = c == LW - 1 ? c : c + 1;
                const std::uint32_t up = (r0 == 0 ? 0 : r0 - 1) * LW;
                const std::uint32_t dn = (r0 + ROWS == LH ? LH - 1 : r0 + ROWS) * LW;
                for (std::uint32_t g = 0; g < args.steps; ++g) {
                    step(tile[up + cl], tile[up + c], tile[up + cr], tile[dn + cl], tile[dn + c], tile[dn + cr],
                         [&](int r) TILELIFE_INLINE { return tile[own + r * LW + cl]; },
                         [&](int r) TILELIFE_INLINE { return tile[own + r * LW + cr]; });
                    if (g + 1 == args.steps) break;  // the last generation goes straight to global memory
                    sycl::group_barrier(it.get_group());
#pragma unroll
                    for (int r = 0; r < ROWS; ++r) tile[own + r * LW + c] = cur[r];
                    sycl::group_barrier(it.get_group());
                }
            }

            // Write the tile: local columns 1..TW, local rows halo .. LH-halo-1, clipped to the board.
            if (c != 0 && c != LW - 1 && j < static_cast<std::int64_t>(b.nwords)) {
                const std::uint32_t keep = j == static_cast<std::int64_t>(b.nwords) - 1 ? bitpack::last_word_mask32(b.width) : ~0u;
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    const std::uint32_t lr = r0 + r;
                    const std::int64_t y = ytop + lr;
                    if (lr >= halo && lr < LH - halo && y < static_cast<std::int64_t>(b.height))
                        out[static_cast<std::uint64_t>(y) * b.pitch + static_cast<std::uint64_t>(j)] = cur[r] & keep;
                }
            }
        });
    });
}

// Word transfers between a compact host-side block (staged on the device) and a rectangle of the
// board: `words` words per row from word column `first`, `rows` rows from row y0.
inline sycl::event put_words(sycl::queue& q, const std::uint32_t* staging, std::uint64_t words, std::uint64_t rows,
                             std::uint32_t* board, std::uint64_t pitch, std::uint64_t first, std::uint64_t y0) {
    return q.parallel_for(sycl::range<2>(rows, words), [=](sycl::id<2> i) TILELIFE_INLINE {
        board[(y0 + i[0]) * pitch + first + i[1]] = staging[i[0] * words + i[1]];
    });
}

inline sycl::event get_words(sycl::queue& q, const std::uint32_t* board, std::uint64_t pitch, std::uint64_t first,
                             std::uint64_t y0, std::uint64_t words, std::uint64_t rows, std::uint32_t* staging) {
    return q.parallel_for(sycl::range<2>(rows, words), [=](sycl::id<2> i) TILELIFE_INLINE {
        staging[i[0] * words + i[1]] = board[(y0 + i[0]) * pitch + first + i[1]];
    });
}

}  // namespace tilelife::sycl_backend
