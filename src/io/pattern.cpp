// Entry points: reading a file or spec, detecting the format from the content, dispatching.
#include "tilelife/pattern.hpp"
#include "tilelife/formats.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "io/detail.hpp"

namespace tilelife {

std::string_view to_string(PatternFormat f) {
    if (const FormatInfo* row = format_info(f)) return row->title;
    return "random";
}

Box Pattern::bounding_box() const {
    if (cells.empty() && tree) return tree->bounding_box();
    return tilelife::bounding_box(cells);
}

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The first non-blank line decides, through the format table's detectors.
const FormatInfo& detect(std::string_view text, const std::string& source) {
    io::Lines lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (io::is_blank(line)) continue;
        for (const FormatInfo& row : formats())
            if (row.detect && row.detect(line)) return row;
        if (starts_with(line, "#Life"))
            io::fail(source, lines.number(), "unsupported Life file version '" + std::string(io::trim(line)) + "'");
        for (char c : line)
            if (io::is_garbage(c)) io::fail(source, lines.number(), io::describe_byte(c));
        std::string expected;
        for (const FormatInfo& row : formats())
            if (row.read) expected += (expected.empty() ? "" : ", ") + std::string(row.title);
        io::fail(source, lines.number(), "unrecognised pattern format (expected " + expected + ")");
    }
    io::fail(source, 1, "empty file (no pattern)");
}

// The whole stream, refused as soon as it passes the size limit (a huge file is not loaded).
std::string read_all(std::FILE* f, const std::string& source, const ReadLimits& limits) {
    // Read in chunks (works for pipes too) and stop as soon as the limit is passed, so a huge
    // file is refused without being loaded.
    std::string data;
    // A regular file's size is known: a file over the limit is refused before any allocation, and
    // one allocation of the right size takes the whole file in one read (no doubling copies).
    // The loop below still handles pipes and files that change size while being read.
    struct stat st {};
    if (::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if (static_cast<std::int64_t>(st.st_size) > limits.max_file_bytes)
            io::fail(source, 0, "larger than the limit of " + std::to_string(limits.max_file_bytes) + " bytes");
        data.reserve(static_cast<std::size_t>(st.st_size) + 1);
    }
    char buf[1 << 16];
    for (;;) {
        // Straight into the string's spare capacity when there is room, else through `buf`.
        const std::size_t room = data.capacity() - data.size();
        if (room > sizeof buf) {
            const std::size_t at = data.size();
            data.resize(data.capacity());  // within capacity: no reallocation
            const std::size_t n = std::fread(data.data() + at, 1, room, f);
            data.resize(at + n);
            if (n < room) {
                if (std::ferror(f)) io::fail(source, 0, std::string("read error: ") + std::strerror(errno));
                break;
            }
            continue;
        }
        const std::size_t n = std::fread(buf, 1, sizeof buf, f);
        if (n > 0) {
            if (static_cast<std::int64_t>(data.size() + n) > limits.max_file_bytes)
                io::fail(source, 0, "larger than the limit of " + std::to_string(limits.max_file_bytes) + " bytes");
            data.append(buf, n);
        }
        if (n < sizeof buf) {
            if (std::ferror(f)) io::fail(source, 0, std::string("read error: ") + std::strerror(errno));
            break;
        }
    }
    return data;
}

// Gzip data's pattern: inflated, then drop() may let the compressed bytes go before the text is
// read (caterpillar.mc.gz's 3 MB took two huge pages that stayed resident while its tree was built).
template <class Drop>
Pattern parse_gzip(std::string_view data, const std::string& source, const ReadLimits& limits, CellSink* sink,
                   const Drop& drop) {
    const io::Inflated plain = io::gunzip(data, source, limits);
    drop();
    if (io::is_gzip(plain.text())) io::fail(source, 0, "gzip data inside gzip data is not supported");
    return parse_pattern(plain.text(), source, limits, sink);
}

}  // namespace

Pattern parse_pattern(std::string_view text, const std::string& source, const ReadLimits& limits, CellSink* sink) {
    if (static_cast<std::int64_t>(text.size()) > limits.max_file_bytes)
        io::fail(source, 0, "larger than the limit of " + std::to_string(limits.max_file_bytes) + " bytes");
    if (io::is_gzip(text)) return parse_gzip(text, source, limits, sink, [] {});
    return detect(text, source).read(text, source, limits, sink);
}

Pattern read_pattern(const std::string& path, const ReadLimits& limits, CellSink* sink) {
    if (starts_with(path, "random:")) return io::make_random(path, limits);
    if (path == "-") return parse_pattern(read_all(stdin, "stdin", limits), "stdin", limits, sink);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) io::fail(path, 0, "is a directory, not a pattern file");
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) io::fail(path, 0, std::string("cannot open: ") + std::strerror(errno));
    // A large regular file goes into memory in huge pages (ZeroedBytes), with one read: faults on
    // fresh 4 KiB pages were most of the time reading a big soup took.
    struct stat st {};
    if (::fstat(::fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::size_t>(st.st_size) >= ZeroedBytes::kHugeFrom) {
        if (static_cast<std::int64_t>(st.st_size) > limits.max_file_bytes)
            io::fail(path, 0, "larger than the limit of " + std::to_string(limits.max_file_bytes) + " bytes");
        const auto size = static_cast<std::size_t>(st.st_size);
        // One byte more than the size: a file that grew since is noticed and read the usual way.
        ZeroedBytes buffer(size + 1);
        if (buffer) {
            char* data = static_cast<char*>(buffer.data());
            const std::size_t n = std::fread(data, 1, size + 1, f.get());
            if (std::ferror(f.get())) io::fail(path, 0, std::string("read error: ") + std::strerror(errno));
            if (n <= size) {
                const std::string_view text(data, n);
                if (io::is_gzip(text)) return parse_gzip(text, path, limits, sink, [&] { buffer = ZeroedBytes(); });
                return parse_pattern(text, path, limits, sink);
            }
            std::rewind(f.get());
        }
    }
    const std::string data = read_all(f.get(), path, limits);
    return parse_pattern(data, path, limits, sink);
}

}  // namespace tilelife
