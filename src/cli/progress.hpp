// A one-line progress display on stderr for long runs, benches and autotunes: only on a terminal,
// only once the work has taken `delay` seconds, and always cleared before anything else is printed
// (the report, a log line, "interrupted"), so that nothing is glued to it.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace tilelife::cli {

class Progress {
public:
    // `wanted`: the command may show progress (not --quiet / --json); stderr must also be a terminal.
    explicit Progress(bool wanted, double delay_seconds = 1.0);
    ~Progress() { clear(); }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // Replaces the line with `text` (once the delay has passed).
    void show(const std::string& text);
    // Removes the line; call before printing anything else to the terminal.
    void clear();
    double elapsed() const;

private:
    bool enabled_;
    double delay_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_;
};

// "[#####.....] 500/1000 gens  123.4 gens/s  ETA 4s"
std::string generations_bar(std::int64_t done, std::int64_t total, double seconds);

}  // namespace tilelife::cli
