// Population with OpenCL C 2.0+/3.0 collective functions: the same two passes as tree_reduction.cl,
// but the tree is replaced by work_group_reduce_add (COLLECTIVE 1) or by sub_group_reduce_add plus
// one local slot per sub-group (COLLECTIVE 2). Built only for devices that report the feature
// (__opencl_c_work_group_collective_functions / __opencl_c_subgroups or cl_khr_subgroups).

#if COLLECTIVE == 2 && defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

uint cells_in_word(uint w) { return (w * 0x01010101u) >> 24; }

#if COLLECTIVE == 2
// Sum over the work-group: reduce inside each sub-group, then add the sub-group sums.
#define GROUP_SUM(T, value, result)                                                  \
    {                                                                                \
        const T sg = sub_group_reduce_add(value);                                    \
        if (get_sub_group_local_id() == 0) scratch[get_sub_group_id()] = sg;         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                \
        result = 0;                                                                  \
        if (get_local_id(0) == 0)                                                    \
            for (uint g = 0; g < get_num_sub_groups(); ++g) result += scratch[g];     \
    }
#else
#define GROUP_SUM(T, value, result) result = work_group_reduce_add(value);
#endif

__kernel void reduce_cells(__global const uint* restrict words, const ulong nwords,
                           __global uint* restrict partial, __local uint* scratch) {
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * 2 * L + lid;
    uint s = 0;
    if (i < nwords) s = cells_in_word(words[i]);
    if (i + L < nwords) s += cells_in_word(words[i + L]);
    uint sum;
    GROUP_SUM(uint, s, sum)
    if (lid == 0) partial[get_group_id(0)] = sum;
}

__kernel void reduce_partials(__global const uint* restrict partial, const ulong n,
                              __global ulong* restrict total, __local ulong* scratch) {
    const uint lid = get_local_id(0), L = get_local_size(0);
    ulong s = 0;
    for (ulong i = lid; i < n; i += L) s += partial[i];
    ulong sum;
    GROUP_SUM(ulong, s, sum)
    if (lid == 0) total[0] = sum;
}
