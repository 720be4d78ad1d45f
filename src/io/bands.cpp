// Reading a pattern file through a memory map (io/bands.hpp).
#include "io/bands.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/detail.hpp"

namespace tilelife::io {

Pattern read_pattern_mapped(const std::string& path, const ReadLimits& limits, CellSink* sink) {
    if (path == "-" || path.rfind("random:", 0) == 0) return read_pattern(path, limits, sink);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path, 0, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        ::close(fd);
        return read_pattern(path, limits, sink);  // not a regular file (or empty): read as usual
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return read_pattern(path, limits, sink);
    (void)::madvise(map, size, MADV_SEQUENTIAL);
    struct Unmap {
        void* p;
        std::size_t n;
        ~Unmap() { ::munmap(p, n); }
    } unmap{map, size};
    // The text is the page cache's, not this process's memory: the file-size limit (which keeps a
    // copy inside the budget) does not apply to it, but still to what gzip data inflates to.
    ReadLimits mapped = limits;
    if (!is_gzip(std::string_view(static_cast<const char*>(map), size)))
        mapped.max_file_bytes = std::max<std::int64_t>(limits.max_file_bytes, static_cast<std::int64_t>(size));
    return parse_pattern(std::string_view(static_cast<const char*>(map), size), path, mapped, sink);
}

}  // namespace tilelife::io
