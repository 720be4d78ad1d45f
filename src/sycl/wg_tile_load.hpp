// Cooperative tile loads for byte-cell boards (rows start on 4-byte boundaries), the SYCL twins of
// src/opencl/kernels/tile_load.cl: the work-group copies a rectangle of the board, which may stick out
// of it anywhere, into local memory, cells outside the board following the topology (wrapped on a
// torus, dead on a plane). Every work-item of the group calls the load with its own position; the
// caller puts a group_barrier between the load and the first read of the tile. `Tile` is anything
// indexable: a local_accessor in kernels, a pointer in tests.
#pragma once
#include <cstdint>

#include "sycl/board.hpp"

namespace tilelife::sycl_backend {

// Four cells x .. x+3 of row y (x a multiple of 4, possibly outside the board) as one word, byte k =
// cell x+k (little-endian devices only; every SYCL device AdaptiveCpp drives is): a whole word when
// all four are on the board, else cell by cell with the topology applied (a loop kept rolled: this
// path only runs on the board's rim, and unrolled it raised the whole strided kernel's register count).
template <bool Torus>
TILELIFE_INLINE inline std::uint32_t word_at(const std::uint8_t* src, std::int64_t x, std::int64_t y, const ByteBoard& b) {
    const auto w = static_cast<std::int64_t>(b.width), h = static_cast<std::int64_t>(b.height);
    if constexpr (Torus) {
        y = wrap_index(y, h);
    } else {
        if (y < 0 || y >= h) return 0;
    }
    const std::uint8_t* row = src + static_cast<std::uint64_t>(y) * b.pitch;
    if (x >= 0 && x + 4 <= w) return reinterpret_cast<const std::uint32_t*>(row)[static_cast<std::uint64_t>(x) / 4];
    std::uint32_t v = 0;
#pragma unroll 1
    for (int k = 0; k < 4; ++k) {
        std::int64_t xx = x + k;
        if constexpr (Torus) {
            xx = wrap_index(xx, w);
        } else {
            if (xx < 0 || xx >= w) continue;
        }
        v |= static_cast<std::uint32_t>(row[xx]) << (8 * k);
    }
    return v;
}

// The lw x lh words whose first word holds cells (x0 .. x0+3, y0), row-major, lw words per local row:
// local word (j, c) holds cells x0+4c .. x0+4c+3 of row y0+j. x0 is a multiple of 4. Work-item `lid`
// of `count` loads words i = lid, lid + count, ...; stepping by `count` moves (j, c) by a fixed
// amount, so there is no division per word (as tile_load.cl's wg_load_byte_tile).
//   interior: the caller knows the whole rectangle lies on the board (x0 >= 0, x0 + 4 lw <= width,
//             y0 >= 0, y0 + lh <= height; the same for the whole group): plain word loads, no wrapping.
template <bool Torus, class Tile>
TILELIFE_INLINE inline void wg_load_byte_tile(Tile&& tile, std::uint32_t lw, std::uint32_t lh, const std::uint8_t* src,
                                              std::int64_t x0, std::int64_t y0, const ByteBoard& b, bool interior,
                                              std::uint32_t lid, std::uint32_t count) {
    const std::uint32_t dj = count / lw, dc = count % lw;
    std::uint32_t j = lid / lw, c = lid % lw;
    if (interior) {
        const auto* words = reinterpret_cast<const std::uint32_t*>(src);
        const std::uint64_t wpitch = b.pitch / 4;
        std::uint64_t row = static_cast<std::uint64_t>(y0 + j) * wpitch + static_cast<std::uint64_t>(x0) / 4;  // word (j, 0)
        for (std::uint32_t i = lid; i < lw * lh; i += count) {
            tile[i] = words[row + c];
            c += dc;
            row += dj * wpitch;
            if (c >= lw) {
                c -= lw;
                row += wpitch;
            }
        }
    } else {
        for (std::uint32_t i = lid; i < lw * lh; i += count) {
            tile[i] = word_at<Torus>(src, x0 + 4 * static_cast<std::int64_t>(c), y0 + static_cast<std::int64_t>(j), b);
            c += dc;
            j += dj;
            if (c >= lw) {
                c -= lw;
                ++j;
            }
        }
    }
}

// The lw x lh cells from (x0, y0), one byte each, row-major: local cell (j, c) is cell (x0+c, y0+j).
// A 2-D work-group of gx x gy items loads it in a 2-D stride, item (lx, ly) the cells (lx + k gx,
// ly + m gy): no division at all, and a group shaped as the rectangle (sycl:halo-tile's) loads one
// cell per work-item.
template <bool Torus, class Tile>
TILELIFE_INLINE inline void wg_load_cell_tile(Tile&& tile, std::uint32_t lw, std::uint32_t lh, const std::uint8_t* src,
                                              std::int64_t x0, std::int64_t y0, const ByteBoard& b, std::uint32_t lx,
                                              std::uint32_t ly, std::uint32_t gx, std::uint32_t gy) {
    if (gx == lw && gy == lh) {
        // The group has the rectangle's shape (sycl:halo-tile): one cell per work-item, without the
        // loops, which took sycl:halo-tile from 203 to 138 G/s on the H100 (docs/sycl.md).
        tile[ly * lw + lx] = cell_at<Torus>(src, x0 + lx, y0 + ly, b);
        return;
    }
    const auto w = static_cast<std::int64_t>(b.width), h = static_cast<std::int64_t>(b.height);
    for (std::uint32_t j = ly; j < lh; j += gy) {
        const std::int64_t y = y0 + j;
        for (std::uint32_t c = lx; c < lw; c += gx) {
            const std::int64_t x = x0 + c;
            const bool inside = x >= 0 && y >= 0 && x < w && y < h;
            tile[j * lw + c] = inside ? src[static_cast<std::uint64_t>(y) * b.pitch + static_cast<std::uint64_t>(x)]
                                      : cell_at<Torus>(src, x, y, b);
        }
    }
}

}  // namespace tilelife::sycl_backend
