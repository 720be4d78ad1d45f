// Work-group reduction: the sum of one value per work-item, returned to every work-item, by one of
// three paths chosen at build time (WG_COLLECTIVE):
//   0 (default)  a tree in local memory (log2 rounds with a barrier each; any group size)
//   1            work_group_reduce_add (OpenCL C 2.0, or 3.0 with __opencl_c_work_group_collective_functions)
//   2            sub_group_reduce_add, then the sub-groups' sums through local memory (cl_khr_subgroups
//                or __opencl_c_subgroups)
// Every work-item of the group must call it (it has barriers). `scratch` holds one element per
// work-item; it may be reused as soon as the call returns. Work-groups may have 1 to 3 dimensions.

#ifndef WG_COLLECTIVE
#define WG_COLLECTIVE 0
#endif
#if WG_COLLECTIVE == 2 && defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

// The work-item's position in its group, and the group's size, over all dimensions.
uint wg_linear_id(void) {
    return (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
}
uint wg_size(void) { return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2)); }

#if WG_COLLECTIVE == 1
#define WG_REDUCE_ADD_BODY(T) return work_group_reduce_add(value);
#elif WG_COLLECTIVE == 2
#define WG_REDUCE_ADD_BODY(T)                                                  \
    const T part = sub_group_reduce_add(value);                                \
    if (get_sub_group_local_id() == 0) scratch[get_sub_group_id()] = part;     \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    T sum = 0;                                                                 \
    for (uint g = 0; g < get_num_sub_groups(); ++g) sum += scratch[g];         \
    barrier(CLK_LOCAL_MEM_FENCE); /* every read is done before scratch is reused */ \
    return sum;
#else
// The tree: first fold the items past the largest power of two P <= size onto the first ones, then
// halve P with a barrier each round.
#define WG_REDUCE_ADD_BODY(T)                                                  \
    const uint lid = wg_linear_id(), n = wg_size();                            \
    uint p = 1;                                                                \
    while (2 * p <= n) p *= 2;                                                 \
    scratch[lid] = value;                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    if (lid >= p) scratch[lid - p] += value;                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    for (uint stride = p / 2; stride > 0; stride /= 2) {                       \
        if (lid < stride) scratch[lid] += scratch[lid + stride];               \
        barrier(CLK_LOCAL_MEM_FENCE);                                          \
    }                                                                          \
    const T sum = scratch[0];                                                  \
    barrier(CLK_LOCAL_MEM_FENCE); /* every read is done before scratch is reused */ \
    return sum;
#endif

uint wg_reduce_add_uint(const uint value, __local uint* scratch) { WG_REDUCE_ADD_BODY(uint) }
ulong wg_reduce_add_ulong(const ulong value, __local ulong* scratch) { WG_REDUCE_ADD_BODY(ulong) }
