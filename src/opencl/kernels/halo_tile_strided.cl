// halo-tile-strided (Intel's SLM_GOOD, made wide): a work-group of WG_X x WG_Y work-items loads its
// tile plus halo into local memory cooperatively (tile_load.cl: every work-item loads words i = lid,
// lid + group size, ... until the tile is in) - then, after one barrier, each work-item computes a
// strip of 4 cells x ROWS rows. Why this shape beats one byte per work-item:
//   - cells travel as 32-bit words (4 cells): a quarter of the load/store instructions, and 32-bit
//     local accesses by neighbouring work-items hit distinct banks (bytes would share banks);
//   - the four cells of a word are summed together, byte-wise in one uint (SIMD within a register:
//     a byte never exceeds 9, so lanes cannot carry into each other);
//   - a work-item slides a 3-row window down its strip, so each row's horizontal sum is computed
//     once and used for three output rows, and the halo costs 2 rows per ROWS*WG_Y rows, not 2 per
//     16;
//   - only tiles touching the board's edge pay for topology checks (one branch per work-group).
//   WG_X, WG_Y  work-group shape;  ROWS  rows per work-item.
// Tile: TILE_W = 4*WG_X cells by TILE_H = ROWS*WG_Y rows; local copy: one halo word (4 cells, of
// which one is needed) left and right, one halo row above and below.

#ifndef WG_X
#error "WG_X, WG_Y and ROWS must be defined"
#endif
// Byte k of a word is cell x+k: the host builds this kernel only for little-endian devices.

#define TILE_W (4 * WG_X)
#define TILE_H (ROWS * WG_Y)
#define LW (WG_X + 2)     // words per local row
#define LH (TILE_H + 2)   // local rows
#define GROUP_SIZE (WG_X * WG_Y)

// Per byte lane: left + self + right. Byte k of the word is cell x+k (little-endian), so the left
// neighbour of lane 0 is the top byte of the word to the left.
uint row_sum(uint l, uint c, uint r) {
    return c + ((c << 8) | (l >> 24)) + ((c >> 8) | (r << 24));
}

// Rule per lane: index = 9*alive + neighbours = (3x3 sum) + 8*alive, at most 17.
#define LANE_NEXT(idx, k) ((uint)RULE_LOOKUP(((idx) >> (8 * (k))) & 0xffu) << (8 * (k)))

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void life_halo_tile_strided(__global const uchar* restrict src, __global uchar* restrict dst,
                            const ulong width, const ulong height, const ulong pitch) {
    __local uint tile[LH * LW];
    RULE_LOCAL_DECLARE

    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint lid = ly * WG_X + lx;
    const long x0 = (long)get_group_id(0) * TILE_W;
    const long y0 = (long)get_group_id(1) * TILE_H;
    // Tile and halo wholly inside the board: whole aligned words (pitch and x0 are multiples of 4),
    // no wrapping. The condition is the same for the whole group, so the branch does not diverge.
    const bool interior =
        x0 >= 4 && y0 >= 1 && x0 + TILE_W + 4 <= (long)width && y0 + TILE_H + 1 <= (long)height;
    // The cooperative load (tile_load.cl): one halo word left and right, one halo row above and below.
    wg_load_byte_tile(tile, LW, LH, src, x0 - 4, y0 - 1, width, height, pitch, interior, lid, GROUP_SIZE);
    RULE_LOCAL_COPY(lid, GROUP_SIZE)
    barrier(CLK_LOCAL_MEM_FENCE);

    const long x = x0 + 4 * (long)lx;  // first of this work-item's four cells
    if (x >= (long)width) return;      // past the barrier, so leaving early is safe
    const uint r0 = ly * ROWS;         // local row above this work-item's first row
    __local const uint* col = tile + lx;  // local words lx, lx+1, lx+2 hold cells x-4 .. x+7
    __global uint* out = (__global uint*)dst;

    uint above = row_sum(col[r0 * LW], col[r0 * LW + 1], col[r0 * LW + 2]);
    uint mid_c = col[(r0 + 1) * LW + 1];
    uint mid = row_sum(col[(r0 + 1) * LW], mid_c, col[(r0 + 1) * LW + 2]);
    const long y_first = y0 + (long)r0;
    const ulong at = (ulong)y_first * pitch + (ulong)x;
    // Whole words on board rows: the common case, and the only one for interior tiles.
    const bool simple = interior || (x + 4 <= (long)width && y_first + ROWS <= (long)height);
#pragma unroll
    for (uint r = 0; r < ROWS; ++r) {
        const uint j = r0 + r + 2;
        const uint below_c = col[j * LW + 1];
        const uint below = row_sum(col[j * LW], below_c, col[j * LW + 2]);
        const uint idx = above + mid + below + (mid_c << 3);
        const uint next = LANE_NEXT(idx, 0) | LANE_NEXT(idx, 1) | LANE_NEXT(idx, 2) | LANE_NEXT(idx, 3);
        if (simple) {
            out[(at + r * pitch) / 4] = next;
        } else if (y_first + (long)r < (long)height) {
            // The board's last, partial word: never write past the board's width (padding stays 0).
            for (uint k = 0; k < 4; ++k)
                if (x + (long)k < (long)width) dst[at + r * pitch + k] = (uchar)(next >> (8 * k));
        }
        above = mid;
        mid = below;
        mid_c = below_c;
    }
}
