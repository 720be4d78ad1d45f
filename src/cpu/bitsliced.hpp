// The bit-sliced Life-like step shared by cpu:bitpacked's board kernels and cpu:hashlife's leaf
// kernel: full adders on words of cells and the next state of every cell of a word from the
// horizontal 3-sums of its three rows. W is any type with the bitwise operators: uint64_t (64 cells
// of a row) or a GCC vector of them (several rows at once).
#pragma once
#include <cstdint>

#include "tilelife/rule.hpp"

#define TL_INLINE inline __attribute__((always_inline))

namespace tilelife::bitsliced {

// Full adder on a word of cells at once.
template <class W>
TL_INLINE void add3(W a, W b, W c, W& sum, W& carry) {
    const W x = a ^ b;
    sum = x ^ c;
    carry = (a & b) | (x & c);
}

// The next state of a word of cells from the horizontal 3-sums (west + centre + east, two
// bit-planes lo/hi) of the rows above, at and below (offsets 0, 1, 2) and the centre word.
// Life: B3/S23 specialised. Otherwise any Life-like rule as a mux tree on the 9-cell count n
// (centre included, 0..9): leaf n = base[n] ^ (flip[n] & centre), each all-zeros or all-ones.
template <bool Life, class W>
TL_INLINE W next_state(const W* __restrict lo, const W* __restrict hi, W centre, const W* base, const W* flip) {
    W s0, c0, t, u;
    add3(lo[0], lo[1], lo[2], s0, c0);
    add3(hi[0], hi[1], hi[2], t, u);
    const W s1 = t ^ c0, v = t & c0;  // count9 = s0 + 2 s1 + 4 (u + v)
    if constexpr (Life) {
        // count9 == 3, or count9 == 4 and alive (u + v == 1 exactly then).
        return (s0 & s1 & ~(u | v)) | (centre & ~(s0 | s1) & (u ^ v));
    } else {
        const W s2 = u ^ v, s3 = u & v;
        W leaf[10];
        for (int i = 0; i < 10; ++i) leaf[i] = base[i] ^ (flip[i] & centre);
        const W l01 = leaf[0] ^ ((leaf[0] ^ leaf[1]) & s0);
        const W l23 = leaf[2] ^ ((leaf[2] ^ leaf[3]) & s0);
        const W l45 = leaf[4] ^ ((leaf[4] ^ leaf[5]) & s0);
        const W l67 = leaf[6] ^ ((leaf[6] ^ leaf[7]) & s0);
        const W l89 = leaf[8] ^ ((leaf[8] ^ leaf[9]) & s0);
        const W l03 = l01 ^ ((l01 ^ l23) & s1);
        const W l47 = l45 ^ ((l45 ^ l67) & s1);
        const W l07 = l03 ^ ((l03 ^ l47) & s2);
        return l07 ^ ((l07 ^ l89) & s3);
    }
}

// The leaves of next_state's mux tree for `rule`, as all-zeros / all-ones words: base[n] = birth(n),
// flip[n] = birth(n) ^ survival(n - 1) (out-of-range terms 0), n = 0..9.
inline void rule_masks(const Rule& rule, std::uint64_t* base, std::uint64_t* flip) {
    for (int n = 0; n <= 9; ++n) {
        const bool b = n <= 8 && rule.next(false, n), s = n >= 1 && rule.next(true, n - 1);
        base[n] = b ? ~std::uint64_t{0} : 0;
        flip[n] = (b != s) ? ~std::uint64_t{0} : 0;
    }
}

}  // namespace tilelife::bitsliced
