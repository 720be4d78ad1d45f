// Test kernels for the work-group primitives of src/opencl/kernels (board.cl, wg_reduce.cl,
// wg_scan.cl, tile_load.cl): each calls one primitive; tests/opencl/primitives_tests.cpp compares
// what they write with a host computation. Built after the primitives' own files.

// The work-item's index over the whole launch (row-major over dimensions 0 and 1), and its group's.
ulong global_linear_id(void) { return get_global_id(0) + get_global_size(0) * get_global_id(1); }
ulong group_linear_id(void) { return get_group_id(0) + get_num_groups(0) * get_group_id(1); }

// out[group] = the group's sum of in[item] (items past n add 0); every work-item checks it got the
// same sum (ok[group] stays 1).
__kernel void test_reduce_uint(__global const uint* in, const ulong n, __global uint* out, __global uint* ok,
                               __local uint* scratch) {
    const ulong i = global_linear_id();
    const uint sum = wg_reduce_add_uint(i < n ? in[i] : 0u, scratch);
    if (wg_linear_id() == 0) out[group_linear_id()] = sum;
    // Reusing scratch right away is allowed: reduce a second time and compare.
    const uint again = wg_reduce_add_uint(i < n ? in[i] : 0u, scratch);
    if (again != sum) ok[group_linear_id()] = 0;
}

__kernel void test_reduce_ulong(__global const ulong* in, const ulong n, __global ulong* out, __global uint* ok,
                                __local ulong* scratch) {
    const ulong i = global_linear_id();
    const ulong sum = wg_reduce_add_ulong(i < n ? in[i] : 0ul, scratch);
    if (wg_linear_id() == 0) out[group_linear_id()] = sum;
    const ulong again = wg_reduce_add_ulong(i < n ? in[i] : 0ul, scratch);
    if (again != sum) ok[group_linear_id()] = 0;
}

// out[item] = inclusive prefix sum of in over the item's group, in the group's linear order.
__kernel void test_scan(__global const uint* in, const ulong n, __global uint* out, __local uint* scratch) {
    const ulong i = global_linear_id();
    const uint v = wg_scan_inclusive_add_uint(i < n ? in[i] : 0u, scratch);
    if (i < n) out[i] = v;
}

// out[i] = wrap_index(v[i], m).
__kernel void test_wrap(__global const long* v, const ulong n, const long m, __global long* out) {
    const ulong i = get_global_id(0);
    if (i < n) out[i] = wrap_index(v[i], m);
}

// Group g loads the lw x lh words at (x0 + 4 * stride_x * g, y0) and copies them to out[g * lw * lh ..].
__kernel void test_tile_load(__global const uchar* board, const ulong width, const ulong height, const ulong pitch,
                             const long x0, const long y0, const long stride_x, const uint lw, const uint lh,
                             const uint interior, __global uint* out, __local uint* tile) {
    const ulong g = group_linear_id();
    const uint lid = wg_linear_id(), count = wg_size();
    wg_load_byte_tile(tile, lw, lh, board, x0 + 4 * stride_x * (long)g, y0, width, height, pitch, interior != 0, lid,
                      count);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < lw * lh; i += count) out[g * lw * lh + i] = tile[i];
}
