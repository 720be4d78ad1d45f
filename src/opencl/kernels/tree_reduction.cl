// Population by a local-memory tree reduction (the SYCL reduction sample's technique), two passes:
//   reduce_cells:    each work-group sums 2*L words of cells (4 one-byte cells per word) into
//                    local memory and halves the active work-items at every stride, with a
//                    barrier at each; work-item 0 writes the group's count to `partial`.
//   reduce_partials: one work-group adds all partial counts (strided loop, then the same tree)
//                    into a 64-bit total.
// L (the local size) must be a power of two. Cells are 0 or 1 and the board's padding bytes are 0.

// Sum of the four byte lanes of w (each at most 1, so the total fits in the top byte).
uint cells_in_word(uint w) { return (w * 0x01010101u) >> 24; }

__kernel void reduce_cells(__global const uint* restrict words, const ulong nwords,
                           __global uint* restrict partial, __local uint* scratch) {
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * 2 * L + lid;
    // Guarded load that adds two elements; work-items past the end contribute zero.
    uint s = 0;
    if (i < nwords) s = cells_in_word(words[i]);
    if (i + L < nwords) s += cells_in_word(words[i + L]);
    scratch[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = L / 2; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

__kernel void reduce_partials(__global const uint* restrict partial, const ulong n,
                              __global ulong* restrict total, __local ulong* scratch) {
    const uint lid = get_local_id(0), L = get_local_size(0);
    ulong s = 0;
    for (ulong i = lid; i < n; i += L) s += partial[i];
    scratch[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = L / 2; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) total[0] = scratch[0];
}
