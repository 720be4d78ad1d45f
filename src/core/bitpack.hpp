// Byte cells <-> bits, shared by the bit-packed engines (cpu:bitpacked's 64-bit words and
// opencl:bitpacked's 32-bit words): cell k of a run is bit k, any non-zero byte is alive.
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

}  // namespace tilelife::bitpack
