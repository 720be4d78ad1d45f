// Transparent huge pages for large cell lists (shared by the readers and the engine conveniences).
#pragma once
#include <cstdint>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilelife {

// Asks the kernel for transparent huge pages over the not yet used capacity of a large vector
// (call it right after reserve). Each 4 KiB page of a fresh allocation otherwise costs a page
// fault when first written, and faults were the largest single cost of reading a big soup (~5,400
// for 1.4M cells) on this project's VM. Only whole 2 MiB blocks inside the buffer are advised; a
// kernel without THP (or with it off) ignores the advice.
template <class T>
void advise_huge_pages(const std::vector<T>& v) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data() + v.size());
    const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity());
    const std::uintptr_t a = (begin + kHuge - 1) & ~(kHuge - 1), b = end & ~(kHuge - 1);
    if (a < b) (void)::madvise(reinterpret_cast<void*>(a), b - a, MADV_HUGEPAGE);
#else
    (void)v;
#endif
}

}  // namespace tilelife
