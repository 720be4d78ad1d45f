// libFuzzer target for the pattern readers. FUZZ_PREFIX (a header such as "#Life 1.05\n") steers the
// content detection towards one reader, so each format gets a target of its own from this one file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

#ifndef FUZZ_PREFIX
#define FUZZ_PREFIX ""
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text = FUZZ_PREFIX;
    text.append(reinterpret_cast<const char*>(data), size);
    tilelife::ReadLimits limits;
    limits.max_cells = 1 << 20;  // keep each run inside libFuzzer's memory limit
    limits.max_file_bytes = 1 << 24;
    try {
        const tilelife::Pattern p = tilelife::parse_pattern(text, "fuzz-input", limits);
        // The writers must accept whatever the readers produce.
        if (p.cells.size() < 4096) (void)tilelife::format_rle(p.cells, "B3/S23", p.generation);
    } catch (const tilelife::InputError&) {
        // Refusing bad input is the expected outcome; anything else (crash, other exception) is a bug.
    }
    return 0;
}
