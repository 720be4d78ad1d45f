// Board transfers done by a kernel rather than by clEnqueueWriteBufferRect, so that every byte of a
// board is written by the device in one way (and checkers such as Oclgrind, which track kernel stores,
// see the board as initialised; new boards are zeroed by board.cl's clear_words).

// Copies a box_w x box_h block of host cells (uploaded contiguously to `staging`) to (x0, y0) of the
// board, turning any non-zero byte into 1: the kernels add cells byte-wise and need exactly 0 or 1.
__kernel void scatter_cells(__global const uchar* restrict staging, const ulong box_w, const ulong box_h,
                            __global uchar* restrict board, const ulong pitch, const ulong x0, const ulong y0) {
    const ulong x = get_global_id(0), y = get_global_id(1);
    if (x < box_w && y < box_h) board[(y0 + y) * pitch + x0 + x] = staging[y * box_w + x] != 0;
}
