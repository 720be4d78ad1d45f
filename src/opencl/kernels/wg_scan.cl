// Work-group inclusive prefix sum: work-item i gets the sum of the values of work-items 0..i (in
// linear order, wg_linear_id()), by the Hillis-Steele scan in local memory: log2(size) rounds, two
// barriers each, any group size. Every work-item must call it; `scratch` holds one uint per
// work-item and may be reused as soon as the call returns. Needs wg_reduce.cl (wg_linear_id).
uint wg_scan_inclusive_add_uint(const uint value, __local uint* scratch) {
    const uint lid = wg_linear_id(), n = wg_size();
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < n; off <<= 1) {
        const uint v = lid >= off ? scratch[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint sum = scratch[lid];
    barrier(CLK_LOCAL_MEM_FENCE);  // every read is done before scratch is reused
    return sum;
}
