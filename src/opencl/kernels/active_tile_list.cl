// opencl:bitpacked activity tracking: the list of tiles the next launch must run, built on the device.
//
// A tile that runs with `compare` on (bitpacked_time_tile.cl) stamps stamps[tile] with the launch's
// number when its new words differ from what its output buffer held before, i.e. the board two
// launches back. With double buffering a tile that does not run keeps that older state in the output
// buffer, which is exactly right when the cells it depends on (the tile and `radius` cells around it)
// are equal two launches apart and both launches ran the same number of generations (the host checks
// the second condition). So a tile must run if it or a tile within `radius` cells was stamped by the
// previous launch. This kernel decides that for one tile per work-item, compacts the active tiles of a
// work-group with a prefix sum in local memory and reserves their place in `list` with one atomic per
// work-group; the order of work-groups in the list does not matter.
//
// counts[slot] must be 0 on entry and ends as the list's length; counts[slot ^ 1] is cleared for the
// next compaction (the host alternates slots; the tile kernel that read that slot has finished).
// Needs TORUS (1 torus, 0 plane) like the tile kernel it is built with, and wg_scan.cl.

// The tiles along one axis (first, count; circular on a torus) whose cells lie within `radius` cells of
// tile i's cells [i * size, min((i + 1) * size, n)). n cells and `groups` tiles along the axis.
void neighbour_span(const ulong i, const ulong size, const ulong n, const ulong groups, const ulong radius,
                    ulong* first, ulong* count) {
    const ulong c0 = i * size, c1 = min(c0 + size, n);
#if TORUS
    if (c1 - c0 + 2 * radius >= n) {  // the neighbourhood wraps onto itself: every tile
        *first = 0;
        *count = groups;
        return;
    }
    const ulong s = (c0 + n - radius) % n, e = (c1 - 1 + radius) % n;  // first and last cell, mod n
    const ulong ts = s / size, te = e / size;
    *first = ts;
    *count = s <= e ? te - ts + 1 : min(te + 1 + groups - ts, groups);
#else
    const ulong s = c0 > radius ? c0 - radius : 0, e = min(c1 - 1 + radius, n - 1);
    *first = s / size;
    *count = e / size - s / size + 1;
#endif
}

// One work-item per tile, tiles numbered row by row (groups_x per row) as in the tile kernel.
// tile_w: cells per tile column (32 * tile words), tile_h: rows per tile. One-dimensional groups of
// any size; scan holds one uint per work-item.
__kernel void bitpacked_active_tiles(__global const uint* restrict stamps, const uint stamp, const ulong width,
                                     const ulong height, const ulong tile_w, const ulong tile_h,
                                     const ulong groups_x, const ulong groups_y, const uint radius,
                                     __global uint* restrict list, __global uint* restrict counts, const uint slot,
                                     __local uint* restrict scan) {
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong t = get_global_id(0);
    uint active = 0;
    if (t < groups_x * groups_y) {
        const ulong gy = t / groups_x, gx = t - gy * groups_x;
        ulong x0, nx, y0, ny;
        neighbour_span(gx, tile_w, width, groups_x, radius, &x0, &nx);
        neighbour_span(gy, tile_h, height, groups_y, radius, &y0, &ny);
        ulong row = y0;
        for (ulong dy = 0; dy < ny && !active; ++dy) {
            __global const uint* s = stamps + row * groups_x;
            ulong col = x0;
            for (ulong dx = 0; dx < nx; ++dx) {
                if (s[col] == stamp) {
                    active = 1;
                    break;
                }
                if (++col == groups_x) col = 0;
            }
            if (++row == groups_y) row = 0;
        }
    }

    // Compaction: each active tile's place in the group's part of the list is its inclusive prefix
    // sum (wg_scan.cl) less one; the group's last work-item reserves the part with one atomic.
    const uint incl = wg_scan_inclusive_add_uint(active, scan);
    __local uint base;
    if (lid == L - 1) base = incl ? atomic_add(&counts[slot], incl) : 0;
    if (t == 0) counts[slot ^ 1u] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active) list[base + incl - 1] = (uint)t;
}
