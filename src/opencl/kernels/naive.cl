// naive: one work-item per cell, nine global reads (the cell and its eight neighbours), no local
// memory. Neighbour reuse is left to the hardware caches. On a plane a neighbour outside the board is
// never read (it is dead); on a torus the index wraps, so on a 1- or 2-wide torus a cell can be its
// own neighbour, as in Golly.

__kernel void life_naive(__global const uchar* restrict src, __global uchar* restrict dst,
                         const ulong width, const ulong height, const ulong pitch) {
    const ulong x = get_global_id(0);
    const ulong y = get_global_id(1);
    if (x >= width || y >= height) return;  // the NDRange is rounded up to whole work-groups

    const ulong row = y * pitch;
    const uint self = src[row + x];
    uint n;
#if TORUS
    const ulong xl = x == 0 ? width - 1 : x - 1;
    const ulong xr = x + 1 == width ? 0 : x + 1;
    const ulong up = (y == 0 ? height - 1 : y - 1) * pitch;
    const ulong down = (y + 1 == height ? 0 : y + 1) * pitch;
    n = src[up + xl] + src[up + x] + src[up + xr] + src[row + xl] + src[row + xr] + src[down + xl] +
        src[down + x] + src[down + xr];
#else
    const bool has_l = x > 0, has_r = x + 1 < width;
    n = (has_l ? src[row + x - 1] : 0) + (has_r ? src[row + x + 1] : 0);
    if (y > 0) {
        const ulong up = row - pitch;
        n += (has_l ? src[up + x - 1] : 0) + src[up + x] + (has_r ? src[up + x + 1] : 0);
    }
    if (y + 1 < height) {
        const ulong down = row + pitch;
        n += (has_l ? src[down + x - 1] : 0) + src[down + x] + (has_r ? src[down + x + 1] : 0);
    }
#endif
#if RULE_STORAGE == 2
#error "naive keeps no local memory: use RULE_STORAGE 0 or 1"
#endif
    dst[row + x] = RULE_LOOKUP(9u * self + n);
}
