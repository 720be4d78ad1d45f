#include "tilelife/error.hpp"

namespace tilelife {

std::string located(const std::string& file, std::int64_t line, const std::string& reason) {
    std::string out;
    out.append(file);
    if (line > 0) out.append(":").append(std::to_string(line));
    out.append(": ").append(reason);
    return out;
}

}  // namespace tilelife
