// Error classes that decide the process exit code: bad input -> 2, runtime failure -> 1.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tilelife {

// Something the user gave us is wrong (file, rule, option). The CLI exits 2 and prints what().
// what() is a single line; readers format it as "FILE:LINE: reason" (or "FILE: reason").
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The input was fine but running it failed (device error, out of memory, I/O error). Exit 1.
class RuntimeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "FILE:LINE: reason" (LINE omitted when 0), the one-line form every reader uses.
std::string located(const std::string& file, std::int64_t line, const std::string& reason);

}  // namespace tilelife
