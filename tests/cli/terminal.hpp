// Running the CLI on a pseudo-terminal (its progress display is for terminals only) and reading what
// a terminal would show: carriage returns, erase-to-end-of-line and newlines applied.
#pragma once
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace tilelife::test {

struct PtyResult {
    int exit_code = -1;  // -1 when killed by a signal
    std::string bytes;   // stdout and stderr as the terminal received them
};

// Runs `argv` in `dir` with stdout and stderr on a new pseudo-terminal; sends SIGINT once
// `interrupt_after` seconds have passed (when >= 0) and the terminal has received
// `interrupt_once_shown` (a loaded machine may take longer to show it than a fixed wait); kills it
// after `limit` seconds.
inline PtyResult run_on_pty(const std::vector<std::string>& argv, const std::string& dir, double interrupt_after = -1,
                            double limit = 300, const std::string& interrupt_once_shown = "") {
    PtyResult r;
    int master = -1;
    const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid < 0) return r;
    if (pid == 0) {
        if (chdir(dir.c_str()) != 0) _exit(126);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    const auto t0 = std::chrono::steady_clock::now();
    bool interrupted = false;
    char buf[4096];
    for (;;) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (interrupt_after >= 0 && !interrupted && elapsed >= interrupt_after &&
            r.bytes.find(interrupt_once_shown) != std::string::npos) {
            kill(pid, SIGINT);
            interrupted = true;
        }
        if (elapsed > limit) kill(pid, SIGKILL);
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) continue;
        const ssize_t n = read(master, buf, sizeof buf);
        if (n > 0) r.bytes.append(buf, static_cast<std::size_t>(n));
        else if (n < 0 && errno == EINTR) continue;
        else break;  // EIO: the child closed the terminal
    }
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// The lines a terminal shows after receiving `bytes`.
inline std::vector<std::string> screen_lines(const std::string& bytes) {
    std::vector<std::string> lines{""};
    std::size_t col = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        std::string& line = lines.back();
        if (c == '\r') {
            col = 0;
        } else if (c == '\n') {
            lines.emplace_back();
            col = 0;
        } else if (c == '\033' && bytes.compare(i, 3, "\033[K") == 0) {
            line.resize(std::min(col, line.size()));
            i += 2;
        } else {
            if (col < line.size()) line[col] = c;
            else {
                line.resize(col, ' ');
                line += c;
            }
            ++col;
        }
    }
    return lines;
}

}  // namespace tilelife::test
