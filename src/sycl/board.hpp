// What every byte-cell SYCL kernel and primitive shares: the board's geometry as kernels see it, and
// coordinates under the topology (twins of src/opencl/kernels/board.cl).
#pragma once
#include <cstdint>

// Kernel bodies and the helpers they call are forced inline: AdaptiveCpp's CUDA path otherwise
// calls a large kernel lambda as a function, with the lambda's captures and the work-item's arrays
// in local (stack) memory (docs/sycl.md, "What the H100 showed").
#define TILELIFE_INLINE __attribute__((always_inline))

namespace tilelife::sycl_backend {

// Board geometry as kernels see it. Indices are 64-bit: a 65536 x 65536 board has 2^32 cells.
struct ByteBoard {
    std::uint64_t width = 0, height = 0, pitch = 0;
};

// v mod n in [0, n). Halos and tiles lie at most a tile (< 2^17 cells) past the edge, so one add or
// subtract suffices except on boards smaller than that; there n and v fit 32 bits, and a 32-bit
// remainder is a few inline instructions. Neither loops nor a 64-bit modulo (a subroutine call on
// GPUs, which keeps the whole kernel's state in local memory): both cost registers in every kernel
// that wraps, and registers are occupancy (docs/sycl.md, "What the H100 showed").
TILELIFE_INLINE inline std::int64_t wrap_index(std::int64_t v, std::int64_t n) {
    if (v < 0) v += n;
    else if (v >= n) v -= n;
    if (v < 0 || v >= n) {
        const auto m = static_cast<std::int32_t>(n);
        const std::int32_t r = static_cast<std::int32_t>(v) % m;
        v = r < 0 ? r + m : r;
    }
    return v;
}

// The cell at (x, y), which may lie outside the board: wrapped on a torus, dead on a plane.
template <bool Torus>
TILELIFE_INLINE inline std::uint8_t cell_at(const std::uint8_t* cells, std::int64_t x, std::int64_t y, const ByteBoard& b) {
    const auto w = static_cast<std::int64_t>(b.width), h = static_cast<std::int64_t>(b.height);
    if (x >= 0 && y >= 0 && x < w && y < h) return cells[static_cast<std::uint64_t>(y) * b.pitch + static_cast<std::uint64_t>(x)];
    if constexpr (Torus) {
        x = wrap_index(x, w);
        y = wrap_index(y, h);
        return cells[static_cast<std::uint64_t>(y) * b.pitch + static_cast<std::uint64_t>(x)];
    } else {
        return 0;
    }
}

}  // namespace tilelife::sycl_backend
