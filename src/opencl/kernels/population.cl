// Population of a board kept as 32-bit words, for every engine: a word holds four byte cells (0 or 1)
// or 32 bit cells, and popcount counts the live cells of either (padding is always 0). Two passes,
// both built on the work-group reduction (wg_reduce.cl, whichever path the build chose):
//   population_partial: each work-item sums the popcounts of a grid-stride range of words, each
//                       work-group adds them up into partial[group];
//   population_total:   one work-group adds the partial counts into total[0].

__kernel void population_partial(__global const uint* restrict words, const ulong count,
                                 __global ulong* restrict partial, __local ulong* scratch) {
    ulong s = 0;
    for (ulong i = get_global_id(0); i < count; i += get_global_size(0)) s += popcount(words[i]);
    const ulong sum = wg_reduce_add_ulong(s, scratch);
    if (get_local_id(0) == 0) partial[get_group_id(0)] = sum;
}

__kernel void population_total(__global const ulong* restrict partial, const ulong n, __global ulong* restrict total,
                               __local ulong* scratch) {
    ulong s = 0;
    for (ulong i = get_local_id(0); i < n; i += get_local_size(0)) s += partial[i];
    const ulong sum = wg_reduce_add_ulong(s, scratch);
    if (get_local_id(0) == 0) total[0] = sum;
}
