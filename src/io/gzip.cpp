// gzip input: detected by the magic bytes 1f 8b, inflated with libdeflate where it was built in and
// zlib otherwise (and for whatever libdeflate cannot finish), up to the byte limit.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "io/detail.hpp"

#ifdef TILELIFE_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef TILELIFE_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace tilelife::io {

bool is_gzip(std::string_view data) {
    return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
           static_cast<unsigned char>(data[1]) == 0x8b;
}

#ifdef TILELIFE_HAVE_ZLIB

namespace {

// The first size to try for the inflated data: the gzip trailer's length (its last four bytes, the
// size modulo 2^32), one byte more so that a right guess never needs more room; no more than
// deflate's largest ratio (1032:1) allows nor one byte past the limit.
std::size_t first_guess(std::string_view data, const ReadLimits& limits) {
    std::size_t guess = std::size_t{1} << 16;
    if (data.size() >= 18) {
        const auto* t = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
        const std::size_t isize = t[0] | (t[1] << 8) | (t[2] << 16) | (std::size_t{t[3]} << 24);
        guess = std::max(guess, std::min(isize, data.size() * 1032) + 1);
    }
    return std::min<std::size_t>(guess, static_cast<std::size_t>(limits.max_file_bytes) + 1);
}

#ifdef TILELIFE_HAVE_LIBDEFLATE
// libdeflate inflates a whole member in one call: Golly's caterpillar.mc.gz in 14 ms against zlib's
// 33 (dev-epyc, docs/benchmarks.md). It needs the room in advance, which the first guess gives for
// a file of one member. Whatever it cannot finish there (a member larger than the room left, damaged
// or cut data, the size limit) is nullopt, and zlib's path below starts again and says what is wrong.
std::optional<Inflated> gunzip_whole(std::string_view data, const ReadLimits& limits) {
    const std::size_t room = first_guess(data, limits);
    Inflated out;
    out.bytes = ZeroedBytes(room);
    if (!out.bytes) return std::nullopt;
    struct Decompressor {
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        ~Decompressor() {
            if (d) libdeflate_free_decompressor(d);
        }
    } dec;
    if (!dec.d) return std::nullopt;
    std::size_t at = 0;
    do {
        std::size_t used = 0, produced = 0;
        const libdeflate_result rc = libdeflate_gzip_decompress_ex(
            dec.d, data.data() + at, data.size() - at, static_cast<char*>(out.bytes.data()) + out.size,
            room - out.size, &used, &produced);
        if (rc != LIBDEFLATE_SUCCESS) return std::nullopt;
        at += used;
        out.size += produced;
        // Concatenated members, then anything else ignored: as zlib's path (and gunzip) reads them.
    } while (data.size() - at >= 2 && is_gzip(data.substr(at)));
    if (static_cast<std::int64_t>(out.size) > limits.max_file_bytes) return std::nullopt;
    return out;
}
#endif

}  // namespace

Inflated gunzip(std::string_view data, const std::string& source, const ReadLimits& limits) {
#ifdef TILELIFE_HAVE_LIBDEFLATE
    if (std::optional<Inflated> whole = gunzip_whole(data, limits)) return std::move(*whole);
#endif
    z_stream zs{};
    // 16 + MAX_WBITS: gzip wrapper only.
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) fail(source, 0, "cannot initialise zlib");
    struct Guard {
        z_stream* z;
        ~Guard() { inflateEnd(z); }
    } guard{&zs};
    // zlib inflates straight into the result, sized at once by the first guess: through a 64 KiB
    // buffer appended to a growing string, the copies and fresh pages were 10% of reading and writing
    // Golly's caterpillar.mc.gz. The guess is only a start: a wrong one (several members, a damaged
    // trailer) doubles the buffer as it fills.
    Inflated out;
    out.bytes = ZeroedBytes(first_guess(data, limits));
    if (!out.bytes) fail(source, 0, "out of memory while decompressing");
    const auto* in = reinterpret_cast<const unsigned char*>(data.data());
    std::size_t in_pos = 0;
    for (;;) {
        // zlib takes uInt-sized pieces; feed the rest of the input as it is consumed.
        if (zs.avail_in == 0 && in_pos < data.size()) {
            const std::size_t piece = std::min<std::size_t>(data.size() - in_pos, 1u << 30);
            zs.next_in = const_cast<unsigned char*>(in + in_pos);
            zs.avail_in = static_cast<uInt>(piece);
            in_pos += piece;
        }
        if (out.size == out.bytes.size()) {
            if (static_cast<std::int64_t>(out.size) > limits.max_file_bytes)
                fail(source, 0, "decompressed data larger than the limit of " + std::to_string(limits.max_file_bytes) +
                                    " bytes");
            ZeroedBytes more(std::min<std::size_t>(2 * out.size, static_cast<std::size_t>(limits.max_file_bytes) + 1));
            if (!more) fail(source, 0, "out of memory while decompressing");
            std::memcpy(more.data(), out.bytes.data(), out.size);
            out.bytes = std::move(more);
        }
        const std::size_t room = std::min<std::size_t>(out.bytes.size() - out.size, 1u << 30);
        zs.next_out = static_cast<unsigned char*>(out.bytes.data()) + out.size;
        zs.avail_out = static_cast<uInt>(room);
        const int rc = inflate(&zs, Z_NO_FLUSH);
        const std::size_t produced = room - zs.avail_out;
        out.size += produced;
        if (static_cast<std::int64_t>(out.size) > limits.max_file_bytes)
            fail(source, 0, "decompressed data larger than the limit of " + std::to_string(limits.max_file_bytes) +
                                " bytes");
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members decompress to the concatenation, as with gunzip;
            // anything else after the end is ignored, as gunzip does (with a warning).
            const std::size_t left = zs.avail_in + (data.size() - in_pos);
            const std::size_t at = data.size() - left;
            if (left >= 2 && is_gzip(data.substr(at))) {
                if (inflateReset(&zs) != Z_OK) fail(source, 0, "cannot reset zlib");
                continue;
            }
            return out;
        }
        if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
            fail(source, 0, std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "invalid stream"));
        if (rc == Z_MEM_ERROR) fail(source, 0, "out of memory while decompressing");
        if (rc == Z_BUF_ERROR || (rc == Z_OK && produced == 0 && zs.avail_in == 0 && in_pos >= data.size()))
            fail(source, 0, "truncated gzip data (the file ends inside the compressed stream)");
        if (rc != Z_OK) fail(source, 0, "gzip error " + std::to_string(rc));
    }
}

#else

Inflated gunzip(std::string_view, const std::string& source, const ReadLimits&) {
    fail(source, 0, "gzip-compressed input, but gzip support was not built (zlib was not found when tilelife "
                    "was configured; install zlib1g-dev and rebuild)");
}

#endif

}  // namespace tilelife::io
