// cpu:hashlife's leaf kernel: a 64x64 block (the level-6 node's 16 leaves) run up to 16
// generations with cpu:bitpacked's bit-sliced adders (cpu/bitsliced.hpp), eight rows per vector.
// Compiled three times (baseline SSE2, AVX2, AVX-512) through function target attributes and
// picked at run time, as cpu:bitpacked's kernels are, so the library runs on any x86-64.
#include <cstring>

// The 64-byte vector type is only used inside inlined code; GCC's note about passing it by value
// without AVX-512 (an ABI question) does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

#include "cpu/bitsliced.hpp"
#include "hashlife/hashlife.hpp"
#include "tilelife/error.hpp"

namespace tilelife::hashlife {
namespace {

using Word = std::uint64_t;
// Eight consecutive rows. With AVX-512 one register; GCC splits it into two AVX2 or four SSE2
// registers for the other targets.
typedef Word Rows8 __attribute__((vector_size(64)));
typedef std::int64_t Lanes8 __attribute__((vector_size(64)));

// One generation of the whole block, rows as eight vectors r[0..7] (r[i] lane k = row 8i + k). The
// horizontal 3-sums of each row come from shifts within its lane (cells past the block's sides read
// as dead, which only spoils the outer columns); the rows above and below come from the adjacent
// lanes, across vectors (one two-source shuffle each), with dead rows beyond the block. Everything
// stays in registers: no store-to-load round trips for the vertical neighbours.
template <bool Life>
TL_INLINE void generation(Rows8* r, const Rows8* base, const Rows8* flip) {
    const Rows8 zero = {};
    const Lanes8 up = {7, 8, 9, 10, 11, 12, 13, 14};  // row k - 1: the previous vector's last lane first
    const Lanes8 down = {1, 2, 3, 4, 5, 6, 7, 8};     // row k + 1: the next vector's first lane last
    Rows8 lo[8], hi[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) bitsliced::add3(r[i] << 1, r[i], r[i] >> 1, lo[i], hi[i]);
    Rows8 next[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
        const Rows8 lo_above = i > 0 ? lo[i - 1] : zero, hi_above = i > 0 ? hi[i - 1] : zero;
        const Rows8 lo_below = i < 7 ? lo[i + 1] : zero, hi_below = i < 7 ? hi[i + 1] : zero;
        const Rows8 l3[3] = {__builtin_shuffle(lo_above, lo[i], up), lo[i], __builtin_shuffle(lo[i], lo_below, down)};
        const Rows8 h3[3] = {__builtin_shuffle(hi_above, hi[i], up), hi[i], __builtin_shuffle(hi[i], hi_below, down)};
        next[i] = bitsliced::next_state<Life>(l3, h3, r[i], base, flip);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) r[i] = next[i];
}

template <bool Life>
TL_INLINE void run(Word* rows, int gens, const bitpacked::RuleMasks& m) {
    Rows8 r[8];
    std::memcpy(r, rows, sizeof r);
    Rows8 base[10], flip[10];
    for (int i = 0; i < 10; ++i) {
        base[i] = Rows8{} + m.base[i];
        flip[i] = Rows8{} + m.flip[i];
    }
    for (int g = 0; g < gens; ++g) generation<Life>(r, base, flip);
    std::memcpy(rows, r, sizeof r);
}

void kernel_baseline(Word* rows, int gens, const bitpacked::RuleMasks& m, bool life) {
    if (life) run<true>(rows, gens, m);
    else run<false>(rows, gens, m);
}

__attribute__((target("avx2"))) void kernel_avx2(Word* rows, int gens, const bitpacked::RuleMasks& m, bool life) {
    if (life) run<true>(rows, gens, m);
    else run<false>(rows, gens, m);
}

__attribute__((target("avx512f,avx512vl,prefer-vector-width=512"))) void kernel_avx512(
    Word* rows, int gens, const bitpacked::RuleMasks& m, bool life) {
    if (life) run<true>(rows, gens, m);
    else run<false>(rows, gens, m);
}

}  // namespace

bitpacked::RuleMasks rule_masks(const Rule& rule) {
    bitpacked::RuleMasks m{};
    bitsliced::rule_masks(rule, m.base, m.flip);
    return m;
}

int best_leaf_simd() {
    using bitpacked::Simd;
    switch (bitpacked::best_simd()) {
        case Simd::avx512: return 3;
        case Simd::avx2: return 2;
        default: return 1;
    }
}

LeafKernel leaf_kernel(int simd) {
    if (simd == 0) simd = best_leaf_simd();
    using bitpacked::Simd;
    const Simd level = simd == 3 ? Simd::avx512 : simd == 2 ? Simd::avx2 : Simd::baseline;
    if (!bitpacked::simd_supported(level))
        throw RuntimeError("cpu:hashlife: this CPU lacks " + std::string(bitpacked::to_string(level)));
    switch (simd) {
        case 3: return kernel_avx512;
        case 2: return kernel_avx2;
        default: return kernel_baseline;
    }
}

}  // namespace tilelife::hashlife
