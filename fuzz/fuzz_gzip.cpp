// libFuzzer target for gzip-compressed input: the bytes go through a file, as users' .gz files do.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = "/tmp/tilelife-fuzz-gzip-" + std::to_string(getpid()) + ".gz";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    tilelife::ReadLimits limits;
    limits.max_cells = 1 << 20;
    limits.max_file_bytes = 1 << 24;
    try {
        (void)tilelife::read_pattern(path, limits);
    } catch (const tilelife::InputError&) {
    }
    return 0;
}
