// Writers: RLE byte-identical to what Golly 3.3 saves (plus our "#CXRLE" position line),
// plaintext .cells, atomic file replacement, and the output format chosen by extension.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>

#include "io/detail.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/rule.hpp"

namespace tilelife {
namespace {

bool strictly_sorted(const std::vector<Cell>& cells) {
    for (std::size_t i = 1; i < cells.size(); ++i) {
        const Cell& a = cells[i - 1];
        const Cell& b = cells[i];
        if (a.y > b.y || (a.y == b.y && a.x >= b.x)) return false;
    }
    return true;
}

// The cells sorted by (y, x) without duplicates: the caller's vector itself when it already is
// (engine output always is), else a normalised copy kept in `storage`.
const std::vector<Cell>& sorted_view(const std::vector<Cell>& cells, std::vector<Cell>& storage) {
    if (strictly_sorted(cells)) return cells;
    storage = cells;
    io::normalize(storage);
    return storage;
}

// Golly's line filling: a run ("<count><char>", the count left out when 1) goes on a new line when
// it would take the current line past 70 characters. Counts are formatted with to_chars into a
// small buffer and appended to `out` (reserved by the caller): no temporary strings per run.
class RunWriter {
public:
    explicit RunWriter(std::string& out) : out_(out) {}
    void put(std::int64_t count, char c) {
        char buf[24];
        char* end = buf;
        if (count > 1) end = std::to_chars(buf, buf + sizeof buf - 1, count).ptr;
        *end++ = c;
        const auto len = static_cast<std::size_t>(end - buf);
        if (line_len_ + len > 70) {
            out_ += '\n';
            line_len_ = 0;
        }
        out_.append(buf, len);
        line_len_ += len;
    }

private:
    std::string& out_;
    std::size_t line_len_ = 0;
};

}  // namespace

std::string format_rle(const std::vector<Cell>& input, const std::string& rule, std::int64_t generation) {
    // Golly writes the canonical spelling ("23/3" -> "B3/S23", suffix kept as ":T64,32").
    const std::string rule_text = rule.empty() ? Rule::life().to_string() : parse_rule(rule).to_string();
    std::vector<Cell> storage;
    const std::vector<Cell>& cells = sorted_view(input, storage);
    std::string out;
    if (cells.empty()) {
        // Golly writes an empty pattern as "x = 0, y = 0, rule = R" and "!"; there is no position.
        if (generation != 0) out += "#CXRLE Gen=" + std::to_string(generation) + "\n";
        out += "x = 0, y = 0, rule = " + rule_text + "\n!\n";
        return out;
    }
    const Box box = bounding_box(cells);
    out += "#CXRLE Pos=" + std::to_string(box.x) + "," + std::to_string(box.y);
    if (generation != 0) out += " Gen=" + std::to_string(generation);
    out += "\n";
    out += "x = " + std::to_string(box.width) + ", y = " + std::to_string(box.height) + ", rule = " + rule_text + "\n";
    // A soup takes about 1.5 bytes per live cell; a little more saves a late doubling.
    out.reserve(out.size() + cells.size() * 2 + 64);
    RunWriter w(out);
    std::int64_t row = box.y, col = box.x;
    std::size_t i = 0;
    while (i < cells.size()) {
        // One run of consecutive live cells.
        std::size_t j = i + 1;
        while (j < cells.size() && cells[j].y == cells[i].y && cells[j].x == cells[j - 1].x + 1) ++j;
        if (cells[i].y != row) {
            // Row ends are only written before live cells, so trailing empty rows vanish.
            w.put(cells[i].y - row, '$');
            row = cells[i].y;
            col = box.x;
        }
        if (cells[i].x > col) w.put(cells[i].x - col, 'b');
        w.put(static_cast<std::int64_t>(j - i), 'o');
        col = cells[j - 1].x + 1;
        i = j;
    }
    w.put(1, '!');
    out += '\n';
    return out;
}

std::string format_rle_tree(const Quadtree& tree, const std::string& rule, std::int64_t generation,
                            std::int64_t max_bytes) {
    const std::string rule_text = rule.empty() ? Rule::life().to_string() : parse_rule(rule).to_string();
    const Box box = tree.bounding_box();
    std::string out;
    if (box.empty()) {
        if (generation != 0) out += "#CXRLE Gen=" + std::to_string(generation) + "\n";
        out += "x = 0, y = 0, rule = " + rule_text + "\n!\n";
        return out;
    }
    out += "#CXRLE Pos=" + std::to_string(box.x) + "," + std::to_string(box.y);
    if (generation != 0) out += " Gen=" + std::to_string(generation);
    out += "\n";
    out += "x = " + std::to_string(box.width) + ", y = " + std::to_string(box.height) + ", rule = " + rule_text + "\n";
    // Refused at once when the text is certainly too large: every row holding a live cell costs at
    // least 2 bytes, and a square has at least as many such rows as the taller of its halves' own
    // (a bound computed in one pass: children come before parents).
    {
        std::vector<std::uint64_t> rows(tree.nodes().size() + 1, 0);
        for (Quadtree::Index i = 1; i <= tree.nodes().size(); ++i) {
            const Quadtree::Node& n = tree.node(i);
            if (n.level == Quadtree::leaf_level) {
                for (int r = 0; r < 8; ++r) rows[i] += ((n.bits >> (8 * r)) & 0xffu) != 0;
            } else {
                const auto& k = n.kids;
                rows[i] = std::min<std::uint64_t>(std::max(rows[k[0]], rows[k[1]]) + std::max(rows[k[2]], rows[k[3]]),
                                                  std::uint64_t{1} << 62);
            }
        }
        if (rows[tree.root()] > static_cast<std::uint64_t>(max_bytes / 2))
            throw InputError("its RLE text would be over " + std::to_string(max_bytes >> 20) + " MiB (at least " +
                             std::to_string(rows[tree.root()]) + " rows of live cells); write macrocell (.mc) instead");
    }
    // The runs of format_rle above, from the tree's rows: a run of live cells may cross pieces, so
    // it is only written when a dead cell (or the row's end) closes it.
    RunWriter w(out);
    std::int64_t row = box.y;
    const auto too_large = [&] {
        return InputError("its RLE text is over " + std::to_string(max_bytes >> 20) + " MiB; write macrocell (.mc) instead");
    };
    // The bands of pieces are bounded too: a row can cross 2^57 nonempty squares. 2^20 of them (a
    // band of rows over 8 million cells wide, nearly all live) take 16 MiB to list.
    const std::size_t max_pieces = static_cast<std::size_t>(std::clamp<std::int64_t>(max_bytes / 64, 1 << 16, 1 << 20));
    try {
    tree.for_each_row([&](std::int64_t y, const std::vector<Quadtree::RowPiece>& pieces) {
        if (static_cast<std::int64_t>(out.size()) > max_bytes) throw too_large();
        if (y != row) w.put(y - row, '$');
        row = y;
        std::int64_t col = box.x, run_start = 0, run_end = 0;  // [run_start, run_end): pending live run
        bool open = false;
        for (const Quadtree::RowPiece& p : pieces) {
            for (unsigned b = p.bits; b != 0;) {
                const int start = __builtin_ctz(b);
                const int len = __builtin_ctz(~(b >> start));
                const std::int64_t x0 = p.x + start;
                if (open && x0 == run_end) {
                    run_end += len;
                } else {
                    if (open) {
                        if (run_start > col) w.put(run_start - col, 'b');
                        w.put(run_end - run_start, 'o');
                        col = run_end;
                    }
                    run_start = x0;
                    run_end = x0 + len;
                    open = true;
                }
                b = len + start >= 8 ? 0u : (b >> (start + len)) << (start + len);
            }
        }
        if (open) {
            if (run_start > col) w.put(run_start - col, 'b');
            w.put(run_end - run_start, 'o');
        }
    }, nullptr, max_pieces);
    } catch (const InputError&) {
        throw InputError("a band of its rows crosses more than " + std::to_string(max_pieces) +
                         " nonempty 8x8 squares (too wide to list as RLE); write macrocell (.mc) instead");
    }
    if (static_cast<std::int64_t>(out.size()) > max_bytes) throw too_large();
    w.put(1, '!');
    out += '\n';
    return out;
}

std::string format_plaintext(const std::vector<Cell>& input, const std::string& name) {
    std::vector<Cell> storage;
    const std::vector<Cell>& cells = sorted_view(input, storage);
    std::string clean = name;  // the name must stay on its one line
    for (char& c : clean)
        if (c == '\n' || c == '\r') c = ' ';
    std::string out = clean.empty() ? "!Name:\n" : "!Name: " + clean + "\n";
    if (cells.empty()) return out;
    const Box box = bounding_box(cells);
    std::int64_t row = box.y, col = box.x;
    for (const Cell& c : cells) {
        // Rows end at their last live cell (trailing dots dropped); empty rows are empty lines.
        for (; row < c.y; ++row) {
            out += '\n';
            col = box.x;
        }
        out.append(static_cast<std::size_t>(c.x - col), '.');
        out += 'O';
        col = c.x + 1;
    }
    out += '\n';
    return out;
}

void write_file_atomic(const std::string& path, std::string_view text) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const auto fail = [&](const std::string& what, int err) {
        throw RuntimeError(path + ": " + what + ": " + std::strerror(err));
    };
    // A unique name in the same directory (so rename() stays within one file system). O_EXCL plus
    // mode 0666 lets the umask apply as for any new file.
    static std::atomic<unsigned> counter{0};
    fs::path tmp;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        tmp = dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "." +
                     std::to_string(counter++) + "." + std::to_string(stamp % 1000000));
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) fail("cannot create a temporary file in " + dir.string(), errno);
    }
    if (fd < 0) fail("cannot create a temporary file in " + dir.string(), EEXIST);
    const auto abandon = [&](const std::string& what) {
        const int err = errno;
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        fail(what, err);
    };
    // An existing file keeps its permissions.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)::fchmod(fd, st.st_mode & 07777);
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("write failed");
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) abandon("fsync failed");
    const int fd_done = fd;
    fd = -1;
    if (::close(fd_done) != 0) abandon("close failed");
    if (::rename(tmp.c_str(), path.c_str()) != 0) abandon("cannot replace the file");
    // Make the rename itself durable; failure here does not undo a completed write.
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
}

OutputFormat output_format_for(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".rle") return OutputFormat::rle;
    if (ext == ".cells") return OutputFormat::plaintext;
    if (ext == ".png") return OutputFormat::png;
    if (ext == ".mc") return OutputFormat::macrocell;
    throw InputError(located(path, 0,
                             (ext.empty() ? std::string("no file extension") : "unsupported extension '" + ext + "'") +
                                 " for an output pattern (supported: .rle, .cells, .mc, .png)"));
}

}  // namespace tilelife
