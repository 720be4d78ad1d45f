// halo-tile (Intel's SLM_BEST): a work-group of (TILE_W+2) x (TILE_H+2) work-items covers a
// TILE_W x TILE_H tile of the board plus its one-cell halo. Every work-item loads exactly one cell
// (its own position, halo included) into local memory; after one barrier the inner TILE_W x TILE_H
// work-items compute their cell from local memory only, and the halo work-items are done.
// This is the Codeplay/SYCL tile-with-halo technique: each board cell is read from global memory
// (1 + 4/TILE + ...) times instead of nine.
//   TILE_W, TILE_H  tile size in cells (the work-group is two larger in each direction)

#ifndef TILE_W
#error "TILE_W must be defined"
#endif
#define GROUP_W (TILE_W + 2)
#define GROUP_H (TILE_H + 2)

__kernel __attribute__((reqd_work_group_size(GROUP_W, GROUP_H, 1)))
void life_halo_tile(__global const uchar* restrict src, __global uchar* restrict dst,
                    const ulong width, const ulong height, const ulong pitch) {
    __local uchar tile[GROUP_H][GROUP_W];
    RULE_LOCAL_DECLARE

    const uint lx = get_local_id(0), ly = get_local_id(1);
    // Board position of this work-item's cell; the group's tile starts at (group * TILE), and the
    // halo work-items (lx or ly 0 or TILE+1) sit one cell outside it.
    const long x = (long)get_group_id(0) * TILE_W + (long)lx - 1;
    const long y = (long)get_group_id(1) * TILE_H + (long)ly - 1;
    const bool inside = x >= 0 && y >= 0 && x < (long)width && y < (long)height;
    tile[ly][lx] = inside ? src[(ulong)y * pitch + (ulong)x] : cell_at(src, x, y, width, height, pitch);
    RULE_LOCAL_COPY(ly * GROUP_W + lx, GROUP_W * GROUP_H)
    barrier(CLK_LOCAL_MEM_FENCE);

    // Only inner work-items whose cell is on the board write (tiles at the right and bottom edge
    // stick out when the board is not a multiple of the tile).
    if (lx == 0 || ly == 0 || lx > TILE_W || ly > TILE_H || !inside) return;
    const uint n = tile[ly - 1][lx - 1] + tile[ly - 1][lx] + tile[ly - 1][lx + 1] + tile[ly][lx - 1] +
                   tile[ly][lx + 1] + tile[ly + 1][lx - 1] + tile[ly + 1][lx] + tile[ly + 1][lx + 1];
    dst[(ulong)y * pitch + (ulong)x] = RULE_LOOKUP(9u * tile[ly][lx] + n);
}
