// Byte cells <-> bits, shared by the bit-packed engines (cpu:bitpacked's 64-bit words and
// opencl:bitpacked's 32-bit words): cell k of a run is bit k, any non-zero byte is alive. The row
// helpers at the end are also SYCL device code (sycl:bitpacked's kernel): nothing there allocates,
// throws or touches a static.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace tilelife::bitpack {

static_assert(std::endian::native == std::endian::little, "cell packing assumes a little-endian host");

// Eight cells (bytes of v, byte k = cell k) as eight bits, cell k at bit k.
inline std::uint64_t pack8(std::uint64_t v) {
    constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, high = 0x8080808080808080ULL;
    const std::uint64_t nonzero = (((v & low7) + low7) | v) & high;  // high bit of each non-zero byte
    // Each byte's 0/1 lands in the top byte at its own bit; the shifted copies never overlap.
    return ((nonzero >> 7) * 0x0102040810204080ULL) >> 56;
}

// Byte k of unpack8_table()[b] is bit k of b (0 or 1).
inline const std::array<std::uint64_t, 256>& unpack8_table() {
    static const std::array<std::uint64_t, 256> table = [] {
        std::array<std::uint64_t, 256> t{};
        for (unsigned b = 0; b < 256; ++b)
            for (unsigned k = 0; k < 8; ++k)
                if ((b >> k) & 1u) t[b] |= std::uint64_t{1} << (8 * k);
        return t;
    }();
    return table;
}

// n <= 64 cells as the low n bits of a word (the bits above are 0).
inline std::uint64_t pack_cells(const std::uint8_t* cells, int n) {
    std::uint64_t bits = 0;
    for (int b = 0; b < n; b += 8) {
        std::uint64_t v = 0;
        std::memcpy(&v, cells + b, n - b >= 8 ? 8 : static_cast<std::size_t>(n - b));
        bits |= pack8(v) << b;
    }
    return bits;
}

// The low n <= 64 bits of `bits` as n cells (0 or 1).
inline void unpack_cells(std::uint64_t bits, int n, std::uint8_t* cells) {
    const auto& table = unpack8_table();
    for (int b = 0; b < n; b += 8) {
        const std::uint64_t bytes = table[(bits >> b) & 0xffu];
        std::memcpy(cells + b, &bytes, n - b >= 8 ? 8 : static_cast<std::size_t>(n - b));
    }
}

// Rows of 32-bit words, cell x at bit x % 32 of word x / 32: host code and SYCL kernels call these;
// the OpenCL C kernels cannot include C++ and carry copies that name the function they mirror.

// The low n bits set, n in 0..32.
constexpr std::uint32_t low_mask32(std::uint32_t n) { return n >= 32 ? ~0u : (1u << n) - 1u; }

// The bits of a row's last word that hold cells of a row `width` cells wide (all of them when the
// width is a multiple of 32); the bits above are padding, which stays 0.
constexpr std::uint32_t last_word_mask32(std::uint64_t width) {
    return (width & 31) != 0 ? (1u << (width & 31)) - 1u : ~0u;
}

// 32 bits of a row of `nwords` words starting at cell p (p / 32 < nwords); bits past the row's last
// word are 0. Forced inline for the SYCL kernels (sycl/board.hpp says why).
[[gnu::always_inline]] inline std::uint32_t bits_from32(const std::uint32_t* row, std::uint64_t p, std::uint64_t nwords) {
    const std::uint64_t wi = p >> 5;
    const std::uint32_t sh = static_cast<std::uint32_t>(p & 31);
    std::uint32_t v = row[wi] >> sh;
    if (sh != 0 && wi + 1 < nwords) v |= row[wi + 1] << (32 - sh);
    return v;
}

// Replaces bits [o, o + n) of the word run `dst` with the first n bits of `src` (0 <= o < 32): the
// host's half of a region write into a bit-packed device row (opencl:bitpacked, sycl:bitpacked).
inline void insert_bits32(std::uint32_t* dst, int o, const std::uint32_t* src, std::int64_t n) {
    for (std::int64_t k = 0; 32 * k < n; ++k) {
        const std::int64_t count = n - 32 * k < 32 ? n - 32 * k : 32;
        const std::uint32_t m = low_mask32(static_cast<std::uint32_t>(count));
        const std::uint32_t v = src[k] & m;
        dst[k] = (dst[k] & ~(m << o)) | (v << o);
        if (o != 0 && o + count > 32) dst[k + 1] = (dst[k + 1] & ~(m >> (32 - o))) | (v >> (32 - o));
    }
}

// The n bits starting at bit o of the word run `src` (nsrc words), as words starting at bit 0:
// bits_from32 at o, o + 32, ... (the host's half of a region read).
inline void extract_bits32(const std::uint32_t* src, std::int64_t nsrc, int o, std::int64_t n, std::uint32_t* out) {
    for (std::int64_t k = 0; 32 * k < n; ++k)
        out[k] = bits_from32(src, static_cast<std::uint64_t>(32 * k + o), static_cast<std::uint64_t>(nsrc));
}

}  // namespace tilelife::bitpack
