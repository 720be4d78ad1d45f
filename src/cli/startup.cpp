// Maps the executable's code in one system call before anything runs it (issue 23). A small run
// touches code spread over the whole 2.7 MB text segment; each first touch of a 64 KiB window is a
// page fault, and a fault costs ~15 us on the VMs this is measured on (an madvise that maps the
// pages from the page cache costs a fraction of that per window). The pages are shared with the
// page cache: the resident set grows by what was not yet mapped (0.4 MB on a glider run), no
// private memory. Kernels before Linux 5.14 refuse the advice; then the faults happen as before.
// The heap's first piece is made and filled the same way: a small run writes to half of it, a
// fault for each page.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

extern "C" char __executable_start[], etext[];  // GNU ld's and lld's names for the text's bounds

namespace {

// Priority 101 (the first that programs may use): before the C++ runtime's and our own static
// constructors, which are a good part of what the faults were for.
__attribute__((constructor(101))) void map_code_and_heap() {
    [[maybe_unused]] constexpr std::uintptr_t page = 4096;
#ifdef MADV_POPULATE_READ
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(__executable_start) & ~(page - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(etext) + page - 1) & ~(page - 1);
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
#endif
#ifdef MADV_POPULATE_WRITE
    // glibc makes its heap on the first malloc, 128 KiB more than asked (M_TOP_PAD), and a glider's
    // run then wrote to 17 of its pages one fault at a time (perf record -e page-faults): filled
    // by one madvise they cost a few microseconds a page instead of ~13. Only that first piece,
    // 132 KiB, is filled; what the heap grows by later faults as before.
    if (void* first = std::malloc(1)) {
        const std::uintptr_t heap = (reinterpret_cast<std::uintptr_t>(first) + page - 1) & ~(page - 1);
        const std::uintptr_t top = reinterpret_cast<std::uintptr_t>(::sbrk(0)) & ~(page - 1);
        if (top > heap && top - heap <= (std::uintptr_t{1} << 20))
            (void)::madvise(reinterpret_cast<void*>(heap), top - heap, MADV_POPULATE_WRITE);
        std::free(first);
    }
#endif
}

}  // namespace
