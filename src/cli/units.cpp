#include "cli/units.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace tilelife::cli {

std::string si_prefixed(double value) {
    char buf[64];
    if (!std::isfinite(value) || value < 0) {
        std::snprintf(buf, sizeof buf, "%g ", value);
        return buf;
    }
    // Below 1000: a whole number, unless it rounds to 1000 (999.7 -> "1.00 k").
    std::snprintf(buf, sizeof buf, "%.0f ", value);
    if (std::strtod(buf, nullptr) < 1000) return buf;
    static const char kPrefixes[] = "kMGTPEZY";
    double scaled = value;
    for (const char prefix : std::string_view(kPrefixes, 8)) {
        scaled /= 1000;
        // The mantissa as printed: 999.996 k prints "1000.00" and belongs to the next prefix.
        std::snprintf(buf, sizeof buf, "%.2f %c", scaled, prefix);
        if (std::strtod(buf, nullptr) < 1000) return buf;
    }
    std::snprintf(buf, sizeof buf, "%.2e ", value);
    return buf;
}

}  // namespace tilelife::cli
