// Board primitives shared by the cell kernels: coordinates wrapped onto a torus, the cell at any
// position under the board's topology, and zeroed buffers.
//   TORUS  (needed by cell_at only) 1: both edges wrap; 0: plane, cells outside the board are dead

// v mod n in [0, n). Halos lie at most one tile past the edge, so one add or subtract is almost always
// enough; only tiles larger than a tiny torus need the (slow, 64-bit) modulo.
long wrap_index(long v, const long n) {
    if (v < 0) v += n;
    else if (v >= n) v -= n;
    if (v < 0 || v >= n) {
        v %= n;
        if (v < 0) v += n;
    }
    return v;
}

#ifdef TORUS
// The byte cell at (x, y) of a board of one byte per cell, which may lie outside the board: wrapped
// on a torus, dead on a plane. For halos only; interior tiles read the board directly.
uchar cell_at(__global const uchar* cells, long x, long y, const ulong width, const ulong height, const ulong pitch) {
#if TORUS
    x = wrap_index(x, (long)width);
    y = wrap_index(y, (long)height);
#else
    if (x < 0 || y < 0 || x >= (long)width || y >= (long)height) return 0;
#endif
    return cells[(ulong)y * pitch + (ulong)x];
}
#endif

// Zeroes n 32-bit words (a new board: cells, padding, tile stamps). A kernel rather than
// clEnqueueFillBuffer, whose stores Oclgrind's uninitialised-value tracking does not see.
__kernel void clear_words(__global uint* restrict words, const ulong n) {
    const ulong i = get_global_id(0);
    if (i < n) words[i] = 0;
}
