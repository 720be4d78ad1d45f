#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace tilelife::cli {

Progress::Progress(bool wanted, double delay_seconds)
    : enabled_(wanted && isatty(STDERR_FILENO)), delay_(delay_seconds), start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::show(const std::string& text) {
    if (!enabled_ || elapsed() < delay_) return;
    // "\r" and erase-to-end-of-line: a shorter line leaves nothing of the longer one behind.
    std::fprintf(stderr, "\r%s\033[K", text.c_str());
    std::fflush(stderr);
    shown_ = true;
}

void Progress::clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
}

std::string generations_bar(std::int64_t done, std::int64_t total, double seconds) {
    constexpr int kWidth = 30;
    const double share = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    const int filled = std::clamp(static_cast<int>(kWidth * share), 0, kWidth);
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    const double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
    char buf[160];
    std::snprintf(buf, sizeof buf, "[%s%s] %lld/%lld gens  %.1f gens/s  ETA %.0fs", std::string(filled, '#').c_str(),
                  std::string(kWidth - filled, '.').c_str(), static_cast<long long>(done),
                  static_cast<long long>(total), rate, eta);
    return buf;
}

}  // namespace tilelife::cli
