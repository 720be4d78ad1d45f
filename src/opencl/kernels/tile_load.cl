// Cooperative tile load for boards of one byte per cell (rows start on 4-byte boundaries): the
// work-group copies the lw x lh words whose first word holds cells (x0 .. x0+3, y0) into local memory,
// row-major, lw words per local row - local word (j, c) holds cells x0+4c .. x0+4c+3 of row y0+j, byte
// k = cell x0+4c+k (little-endian). Work-item `lid` of `count` loads words i = lid, lid + count, ...;
// stepping by `count` moves (j, c) by a fixed amount, so there is no division or 64-bit multiply per
// word. Cells outside the board follow the topology (board.cl: cell_at, TORUS).
//   interior: the caller knows the whole rectangle lies on the board (x0 >= 0, x0 + 4 lw <= width,
//             y0 >= 0, y0 + lh <= height; x0 a multiple of 4): plain word loads, no wrapping.
// The caller puts a barrier between the load and the first read of the tile.

// Four cells x .. x+3 of row y (x a multiple of 4, possibly outside the board) as one word: a whole
// word when all four are on the board, else cell by cell with the topology applied.
uint byte_word_at(__global const uchar* src, const long x, long y, const ulong width, const ulong height,
                  const ulong pitch) {
#if TORUS
    y = wrap_index(y, (long)height);
#else
    if (y < 0 || y >= (long)height) return 0;
#endif
    if (x >= 0 && x + 4 <= (long)width) return ((__global const uint*)src)[((ulong)y * pitch + (ulong)x) / 4];
    return (uint)cell_at(src, x, y, width, height, pitch) | (uint)cell_at(src, x + 1, y, width, height, pitch) << 8 |
           (uint)cell_at(src, x + 2, y, width, height, pitch) << 16 |
           (uint)cell_at(src, x + 3, y, width, height, pitch) << 24;
}

void wg_load_byte_tile(__local uint* restrict tile, const uint lw, const uint lh, __global const uchar* src,
                       const long x0, const long y0, const ulong width, const ulong height, const ulong pitch,
                       const bool interior, const uint lid, const uint count) {
    const uint dj = count / lw, dc = count % lw;
    uint j = lid / lw, c = lid % lw;
    if (interior) {
        __global const uint* words = (__global const uint*)src;
        const ulong wpitch = pitch / 4;
        ulong row = (ulong)(y0 + (long)j) * wpitch + (ulong)x0 / 4;  // word index of (j, 0)
        for (uint i = lid; i < lw * lh; i += count) {
            tile[i] = words[row + c];
            c += dc;
            row += dj * wpitch;
            if (c >= lw) {
                c -= lw;
                row += wpitch;
            }
        }
    } else {
        for (uint i = lid; i < lw * lh; i += count) {
            tile[i] = byte_word_at(src, x0 + 4 * (long)c, y0 + (long)j, width, height, pitch);
            c += dc;
            j += dj;
            if (c >= lw) {
                c -= lw;
                ++j;
            }
        }
    }
}
