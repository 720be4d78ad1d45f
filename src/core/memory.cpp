// memory_limits(): physical memory, rlimits and the cgroup's limit (v2 memory.max on the process's
// cgroup and its ancestors; v1 memory.limit_in_bytes, whose "no limit" is a huge number).
#include "tilelife/memory.hpp"

#include <fcntl.h>
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <string_view>

namespace tilelife {
namespace {

// A small file of /proc or /sys, whole ("" when it cannot be read). Plain read(2), not a stream:
// every engine asks for the limits as it starts, and a stream's set-up is a visible part of a small
// job's start-up.
std::string read_small_file(const std::string& path) {
    std::string text;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return text;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || text.size() > (1u << 20)) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

// A number of bytes from a one-line file; nullopt for "max", a missing file or anything else.
std::optional<std::int64_t> read_bytes(const std::string& path) {
    const std::string line = read_small_file(path);
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc() || p == line.data() || v <= 0) return std::nullopt;
    return v;
}

void keep_smaller(std::optional<std::int64_t>& into, std::optional<std::int64_t> v) {
    if (v && (!into || *v < *into)) into = v;
}

std::optional<std::int64_t> soft_limit(int which) {
    struct rlimit r {};
    if (::getrlimit(which, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
    return static_cast<std::int64_t>(std::min<rlim_t>(r.rlim_cur, INT64_MAX));
}

std::optional<std::int64_t> cgroup_limit(std::int64_t physical) {
    const std::string text = read_small_file("/proc/self/cgroup");
    std::optional<std::int64_t> limit;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t eol = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, eol - at);
        at = eol + 1;
        // "ID:CONTROLLERS:PATH": v2 is "0::PATH"; v1's memory controller lists "memory".
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string_view controllers = std::string_view(line).substr(a + 1, b - a - 1);
        std::string path = line.substr(b + 1);
        const bool v2 = controllers.empty();
        bool memory = false;
        for (std::size_t i = 0; i <= controllers.size();) {
            const auto c = std::min(controllers.find(',', i), controllers.size());
            memory = memory || controllers.substr(i, c - i) == "memory";
            i = c + 1;
        }
        if (!v2 && !memory) continue;
        const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
        const std::string file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
        // The process's cgroup and every ancestor limit it; a container sees its own cgroup as "/".
        for (;;) {
            keep_smaller(limit, read_bytes(root + (path == "/" ? "" : path) + file));
            if (path.empty() || path == "/") break;
            const auto slash = path.rfind('/');
            path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
        }
    }
    // v1 says "no limit" with a number near 2^63, rounded to pages.
    if (limit && *limit >= physical * 4) return std::nullopt;
    return limit;
}

}  // namespace

std::int64_t MemoryLimits::available() const {
    std::int64_t v = physical;
    for (const auto& l : {address_space, data, cgroup})
        if (l) v = std::min(v, *l);
    return v;
}

namespace {

// The address space a new thread's stack takes: glibc's default (RLIMIT_STACK's soft limit, 8 MiB
// unless set) and a guard page.
std::int64_t thread_stack_bytes() {
    std::size_t stack = std::size_t{8} << 20;
    pthread_attr_t a;
    if (::pthread_getattr_default_np(&a) == 0) {
        (void)::pthread_attr_getstacksize(&a, &stack);
        ::pthread_attr_destroy(&a);
    }
    return static_cast<std::int64_t>(stack) + 4096;
}

int threads_or_cores(int threads) { return threads > 0 ? threads : usable_cores(); }

}  // namespace

int usable_cores() {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

std::int64_t MemoryLimits::budget(int threads) const {
    threads = threads_or_cores(threads);
    MemoryLimits m = *this;
    // Up to half of the limit: threads_that_fit() keeps the threads' stacks within it.
    if (threads > 1 && m.address_space)
        m.address_space = *m.address_space - std::min((threads - 1) * thread_stack_bytes(), *m.address_space / 2);
    return m.available() / 2;
}

int threads_that_fit(int threads) {
    threads = threads_or_cores(threads);
    const std::optional<std::int64_t> address_space = soft_limit(RLIMIT_AS);
    if (threads <= 1 || !address_space) return threads;
    return static_cast<int>(std::min<std::int64_t>(threads, 1 + *address_space / 2 / thread_stack_bytes()));
}

bool share_malloc_arena_under_address_space_limit() {
    if (!soft_limit(RLIMIT_AS)) return false;
#ifdef M_ARENA_MAX
    // Threads that already have an arena keep it; new ones share the main arena (sbrk), whose
    // growth the limit counts as it happens rather than 64 MiB at a time.
    return ::mallopt(M_ARENA_MAX, 1) == 1;
#else
    return false;
#endif
}

void return_free_heap() {
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
}

std::string MemoryLimits::limited_by() const {
    const std::int64_t v = available();
    if (address_space && *address_space == v) return "the address-space limit (ulimit -v)";
    if (data && *data == v) return "the data limit (ulimit -d)";
    if (cgroup && *cgroup == v) return "the cgroup's memory limit";
    return "physical memory";
}

std::string bytes_text(std::int64_t bytes) {
    if (bytes == INT64_MAX) return "over 8 EiB";
    static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(std::max<std::int64_t>(bytes, 0));
    int unit = 0;
    while (v >= 1024 && unit < 6) v /= 1024, ++unit;
    char buf[48];
    if (unit == 0) std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
    else if (v < 10) std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
    else std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[unit]);
    return buf;
}

MemoryLimits memory_limits() {
    MemoryLimits m;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    m.physical = pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : std::int64_t{8} << 30;
    m.address_space = soft_limit(RLIMIT_AS);
    m.data = soft_limit(RLIMIT_DATA);
    m.cgroup = cgroup_limit(m.physical);
    return m;
}

}  // namespace tilelife
