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
    // libraries, thread stacks and the pattern as read.
    std::int64_t budget() const { return available() / 2; }
};

// A size for messages: "512 KiB", "1.5 MiB", "8.0 TiB" (powers of 1024; three significant digits
// at most, whole numbers under 1024 of a unit below 10 of the next); INT64_MAX reads "over 8 EiB".
std::string bytes_text(std::int64_t bytes);

// The limits of this process now (reads /proc/self/cgroup and /sys/fs/cgroup; never throws).
MemoryLimits memory_limits();

}  // namespace tilelife
