// Work-group reduction through local memory, the SYCL twin of the tree in
// src/opencl/kernels/wg_reduce.cl (WG_COLLECTIVE=0): the sum of one value per work-item, returned to
// every work-item. SYCL's own sycl::reduce_over_group is the other path (population.hpp); this one is
// the reduction tutorial's tree, made to work for any group size and any number of dimensions.
#pragma once
#include <sycl/sycl.hpp>

#include <cstddef>

#include "sycl/board.hpp"  // TILELIFE_INLINE

namespace tilelife::sycl_backend {

// Every work-item of group `g` must call it (it has barriers). `scratch` holds one T per work-item (a
// local_accessor); it may be reused as soon as the call returns. The items past the largest power of
// two P <= size first fold onto the first ones, then P halves with a barrier each round.
template <class Group, class T, class Scratch>
TILELIFE_INLINE inline T wg_reduce_add(const Group& g, T value, const Scratch& scratch) {
    const std::size_t lid = g.get_local_linear_id(), n = g.get_local_linear_range();
    std::size_t p = 1;
    while (2 * p <= n) p *= 2;
    scratch[lid] = value;
    sycl::group_barrier(g);
    if (lid >= p) scratch[lid - p] += value;
    sycl::group_barrier(g);
    for (std::size_t stride = p / 2; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        sycl::group_barrier(g);
    }
    const T sum = scratch[0];
    sycl::group_barrier(g);  // every read is done before scratch is reused
    return sum;
}

}  // namespace tilelife::sycl_backend
