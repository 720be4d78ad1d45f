// The byte-per-cell SYCL kernels: one byte (0 or 1) per cell, rows padded to a multiple of 16 bytes
// (`pitch`), padding always 0. Twins of src/opencl/kernels/halo_tile.cl and halo_tile_strided.cl,
// plus the hierarchical form of Codeplay's tutorial. The OpenCL kernels are compiled at run time with
// the rule and the tile shape as -D defines; these are compiled ahead of time, so the topology is a
// template parameter and the rule (an 18-bit mask) and the shapes are kernel arguments.
#pragma once
#include <sycl/sycl.hpp>

#include <cstdint>

#include "sycl/board.hpp"
#include "sycl/wg_tile_load.hpp"

namespace tilelife::sycl_backend {

// Rule as 18 bits: bit (9 * alive + neighbours) set means the cell lives next generation.
inline std::uint32_t rule_bits(std::uint16_t birth, std::uint16_t survival) {
    return static_cast<std::uint32_t>(birth) | (static_cast<std::uint32_t>(survival) << 9);
}

TILELIFE_INLINE inline std::uint8_t rule_next(std::uint32_t bits, std::uint32_t index) {
    return static_cast<std::uint8_t>((bits >> index) & 1u);
}

// ---------------------------------------------------------------------------------------------
// sycl:hierarchical — Codeplay's tutorial kernel in its own form: a G x G work-group owns a G x G
// tile; the tile plus a one-cell halo is an array declared at work-group scope (which SYCL places in
// local memory); a first parallel_for_work_item loads it (every work-item its own cell, the items on
// the group's edge also the halo cell beside them, the four corner items also the corner), the
// implicit barrier between the two parallel_for_work_item calls separates loading from computing,
// and a second one computes each cell from the tile. Fixed relative to the tutorial: the halo
// corners are loaded, cells beyond the board's edge are wrapped (torus) or dead (plane) instead of
// being read out of bounds, tiles may stick out of the board (any size, not only multiples of G),
// and the rule is any Life-like rule.
// GX, GY are compile-time: a work-group scope array must have a constant size.
template <int GX, int GY, bool Torus>
sycl::event launch_hierarchical(sycl::queue& q, const std::uint8_t* src, std::uint8_t* dst, ByteBoard b,
                                std::uint32_t rule) {
    const std::size_t groups_x = (b.width + GX - 1) / GX, groups_y = (b.height + GY - 1) / GY;
    return q.submit([&](sycl::handler& h) {
        h.parallel_for_work_group(
            sycl::range<2>(groups_y, groups_x), sycl::range<2>(GY, GX), [=](sycl::group<2> g) TILELIFE_INLINE {
                // Work-group scope: one tile per group, in local memory. Not initialised here (work-group
                // scope code may run on every work-item); the first parallel_for_work_item fills it.
                std::uint8_t tile[GY + 2][GX + 2];
                g.parallel_for_work_item([&](sycl::h_item<2> it) TILELIFE_INLINE {
                    const int lx = static_cast<int>(it.get_local_id(1)), ly = static_cast<int>(it.get_local_id(0));
                    const std::int64_t x = static_cast<std::int64_t>(g.get_group_id(1)) * GX + lx;
                    const std::int64_t y = static_cast<std::int64_t>(g.get_group_id(0)) * GY + ly;
                    tile[ly + 1][lx + 1] = cell_at<Torus>(src, x, y, b);
                    if (lx == 0) tile[ly + 1][0] = cell_at<Torus>(src, x - 1, y, b);
                    if (lx == GX - 1) tile[ly + 1][GX + 1] = cell_at<Torus>(src, x + 1, y, b);
                    if (ly == 0) {
                        tile[0][lx + 1] = cell_at<Torus>(src, x, y - 1, b);
                        if (lx == 0) tile[0][0] = cell_at<Torus>(src, x - 1, y - 1, b);
                        if (lx == GX - 1) tile[0][GX + 1] = cell_at<Torus>(src, x + 1, y - 1, b);
                    }
                    if (ly == GY - 1) {
                        tile[GY + 1][lx + 1] = cell_at<Torus>(src, x, y + 1, b);
                        if (lx == 0) tile[GY + 1][0] = cell_at<Torus>(src, x - 1, y + 1, b);
                        if (lx == GX - 1) tile[GY + 1][GX + 1] = cell_at<Torus>(src, x + 1, y + 1, b);
                    }
                });
                // (implicit work-group barrier)
                g.parallel_for_work_item([&](sycl::h_item<2> it) TILELIFE_INLINE {
                    const int lx = static_cast<int>(it.get_local_id(1)) + 1, ly = static_cast<int>(it.get_local_id(0)) + 1;
                    const std::uint64_t x = g.get_group_id(1) * GX + static_cast<std::uint64_t>(lx - 1);
                    const std::uint64_t y = g.get_group_id(0) * GY + static_cast<std::uint64_t>(ly - 1);
                    if (x >= b.width || y >= b.height) return;  // the tile sticks out of the board
                    const std::uint32_t n = tile[ly - 1][lx - 1] + tile[ly - 1][lx] + tile[ly - 1][lx + 1] +
                                            tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly + 1][lx - 1] +
                                            tile[ly + 1][lx] + tile[ly + 1][lx + 1];
                    dst[y * b.pitch + x] = rule_next(rule, 9u * tile[ly][lx] + n);
                });
            });
    });
}

// ---------------------------------------------------------------------------------------------
// sycl:halo-tile — nd_range twin of opencl:halo-tile: a work-group of GX x GY work-items covers a
// (GX-2) x (GY-2) tile plus its one-cell halo; every work-item loads one cell into a local_accessor,
// group_barrier, the inner work-items compute their cell from local memory.
template <bool Torus>
sycl::event launch_halo_tile(sycl::queue& q, const std::uint8_t* src, std::uint8_t* dst, ByteBoard b,
                             std::uint32_t rule, int gx, int gy) {
    const std::size_t tw = static_cast<std::size_t>(gx - 2), th = static_cast<std::size_t>(gy - 2);
    const sycl::range<2> global((b.height + th - 1) / th * static_cast<std::size_t>(gy),
                                (b.width + tw - 1) / tw * static_cast<std::size_t>(gx));
    const sycl::range<2> local(static_cast<std::size_t>(gy), static_cast<std::size_t>(gx));
    return q.submit([&](sycl::handler& h) {
        sycl::local_accessor<std::uint8_t, 1> tile(sycl::range<1>(static_cast<std::size_t>(gx * gy)), h);
        h.parallel_for(sycl::nd_range<2>(global, local), [=](sycl::nd_item<2> it) TILELIFE_INLINE {
            // Copies of the captures: AdaptiveCpp may call the kernel body with the closure behind a
            // pointer, and a store through `out` could alias it, forcing reloads.
            const std::uint8_t* const in = src;
            std::uint8_t* const out = dst;
            const ByteBoard B = b;
            const std::uint32_t rule_bits_ = rule;
            const int lx = static_cast<int>(it.get_local_id(1)), ly = static_cast<int>(it.get_local_id(0));
            const std::int64_t x = static_cast<std::int64_t>(it.get_group(1)) * (gx - 2) + lx - 1;
            const std::int64_t y = static_cast<std::int64_t>(it.get_group(0)) * (gy - 2) + ly - 1;
            const bool inside = x >= 0 && y >= 0 && x < static_cast<std::int64_t>(B.width) &&
                                y < static_cast<std::int64_t>(B.height);
            // The group is shaped as its tile plus halo: one cell per work-item (wg_tile_load.hpp).
            wg_load_cell_tile<Torus>(tile, static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy), in, x - lx,
                                     y - ly, B, static_cast<std::uint32_t>(lx), static_cast<std::uint32_t>(ly),
                                     static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy));
            sycl::group_barrier(it.get_group());
            if (lx == 0 || ly == 0 || lx == gx - 1 || ly == gy - 1 || !inside) return;
            const int at = ly * gx + lx;
            const std::uint32_t n = tile[at - gx - 1] + tile[at - gx] + tile[at - gx + 1] + tile[at - 1] +
                                    tile[at + 1] + tile[at + gx - 1] + tile[at + gx] + tile[at + gx + 1];
            out[static_cast<std::uint64_t>(y) * B.pitch + static_cast<std::uint64_t>(x)] = rule_next(rule_bits_, 9u * tile[at] + n);
        });
    });
}

// ---------------------------------------------------------------------------------------------
// sycl:halo-tile-strided — twin of opencl:halo-tile-strided (Intel's SLM_GOOD, made wide). A
// work-group of WX x WY work-items loads its tile of 4*WX cells by ROWS*WY rows plus a halo of one
// 4-cell word left and right and one row above and below into local memory cooperatively (work-item
// lid loads words lid, lid + group size, ...), group_barrier, then each work-item computes a strip of
// 4 cells x ROWS rows: cells move as 32-bit words, the four cells of a word are summed in one
// register (byte lanes never exceed 9, so they cannot carry), and a 3-row window slides down the
// strip so each row's horizontal sum is computed once. Byte k of a word is cell x+k (little-endian
// devices only; every SYCL device AdaptiveCpp drives is).

// Per byte lane: left + self + right.
TILELIFE_INLINE inline std::uint32_t row_sum(std::uint32_t l, std::uint32_t c, std::uint32_t r) {
    return c + ((c << 8) | (l >> 24)) + ((c >> 8) | (r << 24));
}

// ROWS: the strip length when it is one of the compiled ones (the row loop is then unrolled, as the
// OpenCL kernel's is by its -DROWS), 0 for any other, taken from `rows`.
template <bool Torus, int ROWS>
sycl::event launch_halo_tile_strided(sycl::queue& q, const std::uint8_t* src, std::uint8_t* dst, ByteBoard b,
                                     std::uint32_t rule, int wx, int wy, int rows) {
    const std::uint64_t tile_w = 4ull * static_cast<std::uint64_t>(wx), tile_h = static_cast<std::uint64_t>(rows) * wy;
    const sycl::range<2> global((b.height + tile_h - 1) / tile_h * static_cast<std::size_t>(wy),
                                (b.width + tile_w - 1) / tile_w * static_cast<std::size_t>(wx));
    const sycl::range<2> local(static_cast<std::size_t>(wy), static_cast<std::size_t>(wx));
    const std::uint32_t lw = static_cast<std::uint32_t>(wx) + 2, lh = static_cast<std::uint32_t>(tile_h) + 2;
    return q.submit([&](sycl::handler& h) {
        sycl::local_accessor<std::uint32_t, 1> tile(sycl::range<1>(static_cast<std::size_t>(lw) * lh), h);
        h.parallel_for(sycl::nd_range<2>(global, local), [=](sycl::nd_item<2> it) TILELIFE_INLINE {
            // Copies of the captures: AdaptiveCpp may call the kernel body with the closure behind a
            // pointer, and a store through `out` could alias it, forcing reloads.
            const std::uint8_t* const in = src;
            std::uint8_t* const out = dst;
            const ByteBoard B = b;
            const std::uint32_t rule_bits_ = rule;
            const std::uint32_t lx = static_cast<std::uint32_t>(it.get_local_id(1));
            const std::uint32_t ly = static_cast<std::uint32_t>(it.get_local_id(0));
            const std::uint32_t group_size = static_cast<std::uint32_t>(wx * wy);
            const std::uint32_t lid = ly * static_cast<std::uint32_t>(wx) + lx;
            const std::int64_t x0 = static_cast<std::int64_t>(it.get_group(1) * tile_w);
            const std::int64_t y0 = static_cast<std::int64_t>(it.get_group(0) * tile_h);
            const auto W = static_cast<std::int64_t>(B.width), H = static_cast<std::int64_t>(B.height);
            // Tile and halo inside the board: whole aligned words, no wrapping (same for the whole group).
            const bool interior = x0 >= 4 && y0 >= 1 && x0 + static_cast<std::int64_t>(tile_w) + 4 <= W &&
                                  y0 + static_cast<std::int64_t>(tile_h) + 1 <= H;
            // The cooperative load (wg_tile_load.hpp): one halo word left and right, one halo row above and below.
            wg_load_byte_tile<Torus>(tile, lw, lh, in, x0 - 4, y0 - 1, B, interior, lid, group_size);
            sycl::group_barrier(it.get_group());

            const std::int64_t x = x0 + 4 * static_cast<std::int64_t>(lx);  // first of this item's four cells
            if (x >= W) return;                                             // past the barrier: safe
            const std::uint32_t R = ROWS ? static_cast<std::uint32_t>(ROWS) : static_cast<std::uint32_t>(rows);
            const std::uint32_t r0 = ly * R;
            const std::uint32_t* col = &tile[lx];  // local words lx, lx+1, lx+2 hold cells x-4 .. x+7
            auto* out_words = reinterpret_cast<std::uint32_t*>(out);
            std::uint32_t above = row_sum(col[r0 * lw], col[r0 * lw + 1], col[r0 * lw + 2]);
            std::uint32_t mid_c = col[(r0 + 1) * lw + 1];
            std::uint32_t mid = row_sum(col[(r0 + 1) * lw], mid_c, col[(r0 + 1) * lw + 2]);
            const std::int64_t y_first = y0 + r0;
            const std::uint64_t at = static_cast<std::uint64_t>(y_first) * B.pitch + static_cast<std::uint64_t>(x);
            const bool simple = interior || (x + 4 <= W && y_first + static_cast<std::int64_t>(R) <= H);
#pragma unroll
            for (std::uint32_t r = 0; r < R; ++r) {
                const std::uint32_t jr = r0 + r + 2;
                const std::uint32_t below_c = col[jr * lw + 1];
                const std::uint32_t below = row_sum(col[jr * lw], below_c, col[jr * lw + 2]);
                // Per lane: 3x3 sum (cell included) + 8 * alive = 9 * alive + neighbours, at most 17.
                const std::uint32_t idx = above + mid + below + (mid_c << 3);
                std::uint32_t next = 0;
                for (int k = 0; k < 4; ++k) next |= static_cast<std::uint32_t>(rule_next(rule_bits_, (idx >> (8 * k)) & 0xffu)) << (8 * k);
                if (simple) {
                    out_words[(at + r * B.pitch) / 4] = next;
                } else if (y_first + static_cast<std::int64_t>(r) < H) {
                    // The board's last, partial word: never write past the width (padding stays 0).
                    for (int k = 0; k < 4; ++k)
                        if (x + k < W) out[at + r * B.pitch + static_cast<std::uint64_t>(k)] = static_cast<std::uint8_t>(next >> (8 * k));
                }
                above = mid;
                mid = below;
                mid_c = below_c;
            }
        });
    });
}

// ---------------------------------------------------------------------------------------------
// Transfers: host cells are uploaded to a staging buffer and put in place by a kernel, which also
// makes every non-zero byte a 1 (the kernels add cells byte-wise and need exactly 0 or 1).
inline sycl::event scatter_cells(sycl::queue& q, const std::uint8_t* staging, std::uint64_t box_w, std::uint64_t box_h,
                                 std::uint8_t* board, std::uint64_t pitch, std::uint64_t x0, std::uint64_t y0) {
    return q.parallel_for(sycl::range<2>(box_h, box_w), [=](sycl::id<2> i) TILELIFE_INLINE {
        board[(y0 + i[0]) * pitch + x0 + i[1]] = staging[i[0] * box_w + i[1]] != 0;
    });
}

inline sycl::event gather_cells(sycl::queue& q, const std::uint8_t* board, std::uint64_t pitch, std::uint64_t x0,
                                std::uint64_t y0, std::uint64_t box_w, std::uint64_t box_h, std::uint8_t* staging) {
    return q.parallel_for(sycl::range<2>(box_h, box_w), [=](sycl::id<2> i) TILELIFE_INLINE {
        staging[i[0] * box_w + i[1]] = board[(y0 + i[0]) * pitch + x0 + i[1]];
    });
}

}  // namespace tilelife::sycl_backend
