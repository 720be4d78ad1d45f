// Population of a board held as 32-bit words on the device, three ways (EngineOptions parameter
// "reduction"):
//   sycl-reduction     sycl::reduction with sycl::plus: the implementation chooses the algorithm;
//   reduce-over-group  an nd_range kernel: each work-item sums words grid-stride, reduce_over_group
//                      per work-group into a partial count, and a second one-group kernel adds them;
//   tree               the SYCL reduction tutorial's local-memory tree: the same two passes, each
//                      work-group halving its active work-items at every stride with a group_barrier
//                      (wg_reduce.hpp's wg_reduce_add).
// `Count` maps a word to its live cells (four byte cells, or 32 bit cells).
#pragma once
#include <sycl/sycl.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sycl/runtime.hpp"
#include "sycl/wg_reduce.hpp"
#include "tilelife/error.hpp"

namespace tilelife::sycl_backend {

enum class Reduction { sycl_reduction, reduce_over_group, tree };

inline const std::vector<std::string>& reduction_choices() {
    static const std::vector<std::string> c = {"auto", "sycl-reduction", "reduce-over-group", "tree"};
    return c;
}

inline std::string to_string(Reduction r) {
    switch (r) {
        case Reduction::sycl_reduction: return "sycl-reduction";
        case Reduction::reduce_over_group: return "reduce-over-group";
        case Reduction::tree: return "tree";
    }
    return "?";
}

// "auto" (or empty): the path measured fastest on the device's kind (docs/sycl.md): on the H100
// reduce_over_group, on AdaptiveCpp's OpenMP device sycl::reduction.
inline Reduction reduction_for(const std::string& choice, const DeviceDescription& device) {
    if (choice == "sycl-reduction") return Reduction::sycl_reduction;
    if (choice == "reduce-over-group") return Reduction::reduce_over_group;
    if (choice == "tree") return Reduction::tree;
    return device.is_gpu() ? Reduction::reduce_over_group : Reduction::sycl_reduction;
}

// Live cells in a word of four byte cells (each 0 or 1: the sum fits the top byte) ...
struct ByteCells {
    std::uint32_t operator()(std::uint32_t w) const { return (w * 0x01010101u) >> 24; }
};
// ... and in a word of 32 bit cells.
struct BitCells {
    std::uint32_t operator()(std::uint32_t w) const { return sycl::popcount(w); }
};

// Device scratch for the counts; made once per engine.
class Population {
public:
    Population(DeviceRuntime& rt, std::uint64_t nwords) : rt_(&rt), nwords_(nwords) {
        // Work-group: a power of two (the tree halves it), at most 256 and what the device allows.
        std::size_t limit = std::min<std::size_t>(256, rt.info.max_work_group_size);
        wg_ = 1;
        while (wg_ * 2 <= limit) wg_ *= 2;
        groups_ = static_cast<std::size_t>(std::clamp<std::uint64_t>((nwords + wg_ - 1) / wg_, 1, 1024));
        partial_ = sycl::malloc_device<std::uint64_t>(groups_, rt.queue);
        total_ = sycl::malloc_device<std::uint64_t>(1, rt.queue);
        if (!partial_ || !total_) throw RuntimeError("SYCL: cannot allocate the population scratch on " + rt.info.name);
    }
    ~Population() {
        sycl::free(partial_, rt_->queue);
        sycl::free(total_, rt_->queue);
    }
    Population(const Population&) = delete;
    Population& operator=(const Population&) = delete;

    template <class Count>
    std::int64_t count(const std::uint32_t* words, Reduction path, Count f) {
        sycl::queue& q = rt_->queue;
        const std::uint64_t n = nwords_;
        const std::size_t items = groups_ * wg_;
        std::uint64_t* partial = partial_;
        std::uint64_t* total = total_;
        switch (path) {
            case Reduction::sycl_reduction:
                q.submit([&](sycl::handler& h) {
                    auto red = sycl::reduction(total, sycl::plus<std::uint64_t>(),
                                               sycl::property::reduction::initialize_to_identity{});
                    h.parallel_for(sycl::range<1>(items), red, [=](sycl::id<1> i, auto& sum) {
                        std::uint64_t s = 0;
                        for (std::uint64_t k = i[0]; k < n; k += items) s += f(words[k]);
                        sum += s;
                    });
                });
                break;
            case Reduction::reduce_over_group:
                q.parallel_for(sycl::nd_range<1>(items, wg_), [=](sycl::nd_item<1> it) {
                    std::uint64_t s = 0;
                    for (std::uint64_t k = it.get_global_id(0); k < n; k += items) s += f(words[k]);
                    const std::uint64_t g = sycl::reduce_over_group(it.get_group(), s, sycl::plus<std::uint64_t>());
                    if (it.get_local_id(0) == 0) partial[it.get_group(0)] = g;
                });
                q.parallel_for(sycl::nd_range<1>(wg_, wg_), [=, groups = groups_](sycl::nd_item<1> it) {
                    std::uint64_t s = 0;
                    for (std::size_t k = it.get_local_id(0); k < groups; k += it.get_local_range(0)) s += partial[k];
                    const std::uint64_t g = sycl::reduce_over_group(it.get_group(), s, sycl::plus<std::uint64_t>());
                    if (it.get_local_id(0) == 0) total[0] = g;
                });
                break;
            case Reduction::tree:
                q.submit([&](sycl::handler& h) {
                    sycl::local_accessor<std::uint64_t, 1> scratch(sycl::range<1>(wg_), h);
                    h.parallel_for(sycl::nd_range<1>(items, wg_), [=](sycl::nd_item<1> it) {
                        const std::size_t lid = it.get_local_id(0);
                        std::uint64_t s = 0;
                        for (std::uint64_t k = it.get_global_id(0); k < n; k += items) s += f(words[k]);
                        const std::uint64_t g = wg_reduce_add(it.get_group(), s, scratch);
                        if (lid == 0) partial[it.get_group(0)] = g;
                    });
                });
                q.submit([&](sycl::handler& h) {
                    sycl::local_accessor<std::uint64_t, 1> scratch(sycl::range<1>(wg_), h);
                    h.parallel_for(sycl::nd_range<1>(wg_, wg_), [=, groups = groups_](sycl::nd_item<1> it) {
                        const std::size_t lid = it.get_local_id(0);
                        std::uint64_t s = 0;
                        for (std::size_t k = lid; k < groups; k += it.get_local_range(0)) s += partial[k];
                        const std::uint64_t g = wg_reduce_add(it.get_group(), s, scratch);
                        if (lid == 0) total[0] = g;
                    });
                });
                break;
        }
        std::uint64_t result = 0;
        q.memcpy(&result, total_, sizeof result);
        rt_->sync("counting the population");
        return static_cast<std::int64_t>(result);
    }

    std::size_t work_group() const { return wg_; }
    std::size_t groups() const { return groups_; }

private:
    DeviceRuntime* rt_;
    std::uint64_t nwords_;
    std::size_t wg_ = 1, groups_ = 1;
    std::uint64_t* partial_ = nullptr;
    std::uint64_t* total_ = nullptr;
};

}  // namespace tilelife::sycl_backend
