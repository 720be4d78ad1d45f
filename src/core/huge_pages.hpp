// Transparent huge pages for large cell lists and buffers (shared by the readers, the engines and the
// command line).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilelife {

// Maps fresh zero pages for memory about to be written all over, in one system call instead of a
// page fault for each 4 KiB page at its first touch (issue 23): a fault costs ~15 us on the VMs
// measured, the advice ~2 us a page, and a table or a small pool piece is written on every page
// (acorn to 5206: 344 faults before, most of them the tables'). Kernels before Linux 5.14 refuse
// the advice; then the pages fault in as before. `bytes` is whole pages.
inline void populate(void* from, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
    if (bytes) (void)::madvise(from, bytes, MADV_POPULATE_WRITE);
#else
    (void)from;
    (void)bytes;
#endif
}

// Asks the kernel for transparent huge pages over the not yet used capacity of a large vector or
// string (call it right after reserve). Each 4 KiB page of a fresh allocation otherwise costs a
// page fault when first written, and faults were the largest single cost of reading a big soup
// (~5,400 for 1.4M cells) on this project's VM. Only whole 2 MiB blocks can be huge pages; the
// 4 KiB pages before the first and after the last (all of a buffer under 2-4 MiB) are mapped at
// once with MADV_POPULATE_WRITE, ~2 us a page against a fault's ~13 us: reading and writing
// caterpillar.mc.gz took ~900 faults in the heads of its trees' arrays. A capacity that is only a
// bound may never be written to its end: Populate::head maps only the pages before the first huge
// block (written first), Populate::none none of them, and the rest fault in as written. A kernel
// without THP (or with it off) or before Linux 5.14 ignores the advice.
enum class Populate { ends, head, none };
template <class Buffer>  // a std::vector or std::string
void advise_huge_pages(const Buffer& v, Populate at_once = Populate::ends) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20, kPage = 4096;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data() + v.size());
    const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity());
    if (begin >= end) return;
    const std::uintptr_t a = (begin + kHuge - 1) & ~(kHuge - 1), b = end & ~(kHuge - 1);
    // The pages holding [from, to) (the first and last may hold other data of the heap: mapping
    // them writes nothing).
    const auto pages = [](std::uintptr_t from, std::uintptr_t to) {
        from &= ~(kPage - 1);
        to = (to + kPage - 1) & ~(kPage - 1);
        if (from < to) populate(reinterpret_cast<void*>(from), to - from);
    };
    if (a < b) {
        (void)::madvise(reinterpret_cast<void*>(a), b - a, MADV_HUGEPAGE);
        if (at_once != Populate::none) pages(begin, a);
        if (at_once == Populate::ends) pages(b, end);
    } else if (at_once == Populate::ends) {
        pages(begin, end);
    }
#else
    (void)v;
#endif
}

// Zeroed memory for large buffers (boards, a pattern file's text): from kHugeFrom bytes up it comes
// from the kernel in transparent huge pages (the last, partly used one only when half of it is
// used), one page fault per 2 MiB instead of one per 4 KiB: a 4 KiB fault costs ~13 us on the
// project's VM, a huge page's share ~0.3 us (docs/benchmarks.md, bench/page-faults.c). Smaller
// ones come from calloc. Without THP the advice is ignored and the memory is still zeroed and
// lazily mapped. A size that is only a bound (an array indexed by a store's slots of which a few
// are written) passes bound_only: its first 2 MiB then stay 4 KiB pages, so that a few writes make
// a few pages resident, not a whole huge page.
class ZeroedBytes {
public:
    static constexpr std::size_t kHugeFrom = std::size_t{256} << 10;

    ZeroedBytes() = default;
    explicit ZeroedBytes(std::size_t n, bool bound_only = false) : size_(n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (n >= kHugeFrom) {
            constexpr std::size_t kHuge = std::size_t{2} << 20;
            const std::size_t rounded = (n + kHuge - 1) & ~(kHuge - 1);
            map_len_ = rounded + kHuge;  // room to align the start to 2 MiB
            void* m = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) {
                map_len_ = 0;
                return;
            }
            map_ = m;
            const auto aligned = (reinterpret_cast<std::uintptr_t>(m) + kHuge - 1) & ~(kHuge - 1);
            data_ = reinterpret_cast<void*>(aligned);
            const std::size_t small = bound_only ? kHuge : 0;
            // The last 2 MiB block is a huge page only when at least half of it is used; otherwise
            // its used part stays 4 KiB pages, mapped at once unless the size is only a bound (a
            // 682 KB file took a whole huge page: 1.3 MB resident for nothing, against Golly's 6 MB).
            const std::size_t full = n & ~(kHuge - 1);
            const std::size_t huge_end = n - full >= kHuge / 2 ? rounded : full;
            if (huge_end > small)
                (void)::madvise(static_cast<char*>(data_) + small, huge_end - small, MADV_HUGEPAGE);
            const std::size_t from = std::max(huge_end, small), to = (n + 4095) & ~std::size_t{4095};
            if (!bound_only && to > from) populate(static_cast<char*>(data_) + from, to - from);
            return;
        }
#endif
        data_ = std::calloc(n == 0 ? 1 : n, 1);
    }
    ~ZeroedBytes() { release(); }
    ZeroedBytes(ZeroedBytes&& o) noexcept { *this = std::move(o); }
    ZeroedBytes& operator=(ZeroedBytes&& o) noexcept {
        if (this != &o) {
            release();
            data_ = std::exchange(o.data_, nullptr);
            map_ = std::exchange(o.map_, nullptr);
            map_len_ = std::exchange(o.map_len_, 0);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    ZeroedBytes(const ZeroedBytes&) = delete;
    ZeroedBytes& operator=(const ZeroedBytes&) = delete;

    void* data() const { return data_; }  // nullptr when the memory could not be had
    std::size_t size() const { return size_; }
    explicit operator bool() const { return data_ != nullptr; }

private:
    void release() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (map_) {
            ::munmap(map_, map_len_);
            map_ = nullptr;
            data_ = nullptr;
            return;
        }
#endif
        std::free(data_);
        data_ = nullptr;
    }
    void* data_ = nullptr;
    void* map_ = nullptr;
    std::size_t map_len_ = 0;
    std::size_t size_ = 0;
};

}  // namespace tilelife
