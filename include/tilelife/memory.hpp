// How much memory this process may use, and the default budget for boards derived from it: the
// smallest of physical memory, the address-space and data rlimits and the cgroup's memory limit.
// Batch systems and containers set the latter three; a budget from physical memory alone makes
// the engines reserve what the process can never get ("out of memory" at the first step).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tilelife {

struct MemoryLimits {
    std::int64_t physical = 0;                   // bytes of RAM (sysconf)
    std::optional<std::int64_t> address_space;   // RLIMIT_AS (soft), when set
    std::optional<std::int64_t> data;            // RLIMIT_DATA (soft), when set
    std::optional<std::int64_t> cgroup;          // the cgroup's memory.max (v2) or memory.limit_in_bytes (v1)

    // The smallest of the four: what the process can have at most.
    std::int64_t available() const;
    // Which of them that is: "physical memory", "the address-space limit (ulimit -v)", "the data
    // limit (ulimit -d)" or "the cgroup's memory limit".
    std::string limited_by() const;
    // The default budget for a board: half of available(), leaving the rest to the program, its
    // libraries, thread stacks and the pattern as read. With `threads` threads (0: one a core) the
    // stacks of all but the first (RLIMIT_STACK's size each, 8 MiB by default) come off an
    // address-space limit first (up to half of it): they take address space, not memory, and 16
    // threads' stacks beside a budget of half of 195 MiB left the store no room to grow.
    std::int64_t budget(int threads = 1) const;
};

// A size for messages: "512 KiB", "1.5 MiB", "8.0 TiB" (powers of 1024; three significant digits
// at most, whole numbers under 1024 of a unit below 10 of the next); INT64_MAX reads "over 8 EiB".
std::string bytes_text(std::int64_t bytes);

// The limits of this process now (reads /proc/self/cgroup and /sys/fs/cgroup; never throws).
MemoryLimits memory_limits();

// The CPUs this process may run on (its affinity mask: taskset and cpusets count), at least 1.
int usable_cores();

// Of `threads` threads (0: usable_cores()), how many have stacks within the half of the
// address-space limit (RLIMIT_AS) that MemoryLimits::budget() leaves them: all of them without that
// limit. An engine that starts threads of its own starts no more.
int threads_that_fit(int threads);

// Call before starting threads. Under an address-space limit, glibc's malloc gives each thread
// that allocates an arena of its own, reserving 64 MiB of address space apiece that no budget
// counts: HashLife's three helpers on Golly's demonoid under `ulimit -v 400000` took the room the
// store's budget had counted on ("out of memory" where one thread ran). Under that limit this
// makes every thread allocate from the one arena (M_ARENA_MAX, 1); without the limit, or without
// glibc, it does nothing. Returns whether the arenas are capped.
bool share_malloc_arena_under_address_space_limit();

// Gives the pages of freed heap blocks back to the kernel (glibc's malloc_trim; elsewhere nothing).
// The CLI keeps freed blocks for the next allocation (main.cpp), which is right for the small
// buffers of a short job and wrong for large ones freed before a long run: call this after freeing
// such (an input's cells, a probe's store), or they stay resident for the whole run.
void return_free_heap();

}  // namespace tilelife
