#include "tilelife/engine.hpp"

#include "core/bitpack.hpp"
#include "core/huge_pages.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilelife {
namespace {

// A zeroed scratch buffer. Large ones are mapped directly, 2 MiB aligned, with transparent huge
// pages requested: a fresh 4 KiB page costs a page fault on first write (a few microseconds in
// this project's VM), and a board-sized buffer of a few MiB has hundreds of them. The kernel hands
// out zeroed memory either way, so no memset is needed; without THP the advice is ignored.
class ScratchBytes {
public:
    explicit ScratchBytes(std::size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (n >= kHuge / 2) {
            const std::size_t rounded = (n + kHuge - 1) & ~(kHuge - 1);
            map_len_ = rounded + kHuge;  // room to align the start to 2 MiB
            void* m = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) throw std::bad_alloc();
            map_ = m;
            const auto aligned = (reinterpret_cast<std::uintptr_t>(m) + kHuge - 1) & ~(kHuge - 1);
            data_ = reinterpret_cast<std::uint8_t*>(aligned);
            (void)::madvise(data_, rounded, MADV_HUGEPAGE);
            return;
        }
#endif
        data_ = static_cast<std::uint8_t*>(std::calloc(n == 0 ? 1 : n, 1));
        if (!data_) throw std::bad_alloc();
    }
    ~ScratchBytes() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (map_) {
            ::munmap(map_, map_len_);
            return;
        }
#endif
        std::free(data_);
    }
    ScratchBytes(const ScratchBytes&) = delete;
    ScratchBytes& operator=(const ScratchBytes&) = delete;
    std::uint8_t* get() const { return data_; }
    std::uint8_t& operator[](std::size_t i) const { return data_[i]; }

private:
    static constexpr std::size_t kHuge = std::size_t{2} << 20;
    std::uint8_t* data_ = nullptr;
    void* map_ = nullptr;
    std::size_t map_len_ = 0;
};


// Appends the live cells of one row of bytes (any nonzero byte is alive). Eight bytes at a time:
// a zero word (most of a sparse board) costs one test; otherwise the high bit of each nonzero
// byte is collected and the set bits are walked with countr_zero.
void append_row(const std::uint8_t* row, std::int64_t width, std::int64_t x0, std::int64_t y, std::vector<Cell>& out) {
    constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL, kHigh = 0x8080808080808080ULL;
    std::int64_t c = 0;
    for (; c + 8 <= width; c += 8) {
        std::uint64_t w;
        std::memcpy(&w, row + c, 8);
        if (w == 0) continue;
        // High bit of each byte set iff the byte is nonzero (no carries cross bytes).
        std::uint64_t m = (((w & kLow7) + kLow7) | w) & kHigh;
        if constexpr (std::endian::native == std::endian::big) m = __builtin_bswap64(m);
        while (m) {
            out.push_back(Cell{x0 + c + std::countr_zero(m) / 8, y});
            m &= m - 1;
        }
    }
    for (; c < width; ++c)
        if (row[c]) out.push_back(Cell{x0 + c, y});
}

}  // namespace

void Engine::set_cell(std::int64_t x, std::int64_t y, bool alive) {
    const std::uint8_t v = alive ? 1 : 0;
    write_region(Box{x, y, 1, 1}, &v);
}

EngineDescription Engine::describe() const {
    EngineDescription d;
    d.name = name();
    d.backend = d.name.substr(0, d.name.find(':'));
    return d;
}

std::optional<StepTiming> Engine::step_timed(std::int64_t generations) {
    step(generations);
    return std::nullopt;
}

bool Engine::get_cell(std::int64_t x, std::int64_t y) const {
    if (!extent().contains(Cell{x, y})) return false;
    std::uint8_t v = 0;
    read_region(Box{x, y, 1, 1}, &v);
    return v != 0;
}

namespace {

// Keeps what is already on the board: ORs the live cells inside `box` into `buf` (box-sized, row
// major). An empty board (the usual case: a freshly created engine) has nothing to keep, which
// saves reading the box back.
void keep_existing(const Engine& e, const Box& box, std::uint8_t* buf) {
    const Box have = e.extent();
    const std::int64_t ix0 = std::max(box.x, have.x), iy0 = std::max(box.y, have.y);
    const std::int64_t ix1 = std::min(box.right(), have.right()), iy1 = std::min(box.bottom(), have.bottom());
    if (!(ix0 < ix1 && iy0 < iy1) || e.population() == 0) return;
    const Box inner{ix0, iy0, ix1 - ix0, iy1 - iy0};
    const ScratchBytes old(static_cast<std::size_t>(inner.width * inner.height));
    e.read_region(inner, old.get());
    for (std::int64_t y = 0; y < inner.height; ++y) {
        const std::uint8_t* from = old.get() + y * inner.width;
        std::uint8_t* to = buf + (y + iy0 - box.y) * box.width + (ix0 - box.x);
        for (std::int64_t x = 0; x < inner.width; ++x) to[x] |= from[x];
    }
}

}  // namespace

void Engine::set_cells(const std::vector<Cell>& cells) {
    if (cells.empty()) return;
    // One bulk write keeps device engines to a single transfer.
    //
    // Fast path, one pass over the cells: when the list is sorted by row (as readers and plan_board
    // give it) its rows are front().y..back().y, so the cells can go straight into a buffer of
    // those rows at the board's full width, with no bounding-box pass first (for a large soup the
    // cell list is tens of MiB and each pass over it costs milliseconds). Taken only when that band
    // is not much larger than the list itself; any cell outside it (unsorted input, or outside the
    // extent of an unbounded board) falls back to the bounding-box path below.
    const Box have = extent();
    const std::int64_t ry0 = cells.front().y, ry1 = cells.back().y;
    if (!have.empty() && ry0 <= ry1 && ry0 >= have.y && ry1 < have.bottom()) {
        const std::int64_t rows = ry1 - ry0 + 1;
        const std::int64_t allowance = 4 * static_cast<std::int64_t>(cells.size()) + (std::int64_t{1} << 20);
        if (have.width <= allowance / rows) {
            const Box band{have.x, ry0, have.width, rows};
            const ScratchBytes buf(static_cast<std::size_t>(band.width * band.height));
            const auto w = static_cast<std::uint64_t>(band.width), h = static_cast<std::uint64_t>(rows);
            bool inside = true;
            for (const Cell& c : cells) {
                // Unsigned differences: one compare per axis, and no signed overflow.
                const std::uint64_t dx = static_cast<std::uint64_t>(c.x) - static_cast<std::uint64_t>(band.x);
                const std::uint64_t dy = static_cast<std::uint64_t>(c.y) - static_cast<std::uint64_t>(band.y);
                if (dx >= w || dy >= h) {
                    inside = false;
                    break;
                }
                buf[dy * w + dx] = 1;
            }
            if (inside) {
                keep_existing(*this, band, buf.get());
                write_region(band, buf.get());
                return;
            }
        }
    }
    // General path: the cells' bounding box.
    std::int64_t x0 = cells[0].x, x1 = cells[0].x, y0 = cells[0].y, y1 = cells[0].y;
    for (const Cell& c : cells) {
        x0 = std::min(x0, c.x), x1 = std::max(x1, c.x);
        y0 = std::min(y0, c.y), y1 = std::max(y1, c.y);
    }
    const Box box{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
    const ScratchBytes buf(static_cast<std::size_t>(box.width * box.height));
    for (const Cell& c : cells) buf[static_cast<std::size_t>((c.y - y0) * box.width + (c.x - x0))] = 1;
    keep_existing(*this, box, buf.get());
    write_region(box, buf.get());
}

namespace {

// Rows [y, y + rows) must lie on the board; the packed calls are for bounded boards.
void check_rows(const Engine& e, std::int64_t y, std::int64_t rows) {
    const Box all = e.extent();
    if (rows < 0 || y < all.y || y + rows > all.bottom()) throw std::out_of_range("rows outside the board");
}

// Rows per byte buffer of the default packed calls: about 16 MiB of bytes at a time.
std::int64_t rows_per_chunk(std::int64_t width) { return std::max<std::int64_t>(1, (std::int64_t{1} << 24) / width); }

}  // namespace

void Engine::read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const {
    check_rows(*this, y, rows);
    const Box all = extent();
    const std::int64_t w = all.width, nw = (w + 63) / 64, chunk = rows_per_chunk(w);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(w * std::min(chunk, rows)));
    for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
        const std::int64_t n = std::min(chunk, rows - r0);
        read_region(Box{all.x, y + r0, w, n}, bytes.data());
        for (std::int64_t r = 0; r < n; ++r) {
            std::uint64_t* out = words + (r0 + r) * nw;
            const std::uint8_t* in = bytes.data() + r * w;
            for (std::int64_t i = 0; i < nw; ++i)
                out[i] = bitpack::pack_cells(in + 64 * i, static_cast<int>(std::min<std::int64_t>(64, w - 64 * i)));
        }
    }
}

void Engine::write_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words) {
    check_rows(*this, y, rows);
    const Box all = extent();
    const std::int64_t w = all.width, nw = (w + 63) / 64, chunk = rows_per_chunk(w);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(w * std::min(chunk, rows)));
    for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
        const std::int64_t n = std::min(chunk, rows - r0);
        for (std::int64_t r = 0; r < n; ++r) {
            const std::uint64_t* in = words + (r0 + r) * nw;
            std::uint8_t* out = bytes.data() + r * w;
            for (std::int64_t x = 0; x < w; ++x) out[x] = (in[x / 64] >> (x % 64)) & 1u;
        }
        write_region(Box{all.x, y + r0, w, n}, bytes.data());
    }
}

void Engine::step_reading_rows(std::int64_t generations, const std::vector<RowsRead>& reads,
                               const std::function<void(const std::vector<const std::uint64_t*>&)>& ready) {
    step(generations);
    std::vector<const std::uint64_t*> where;
    for (const RowsRead& r : reads) {
        read_rows_packed(r.y, r.rows, r.words);
        where.push_back(r.words);
    }
    ready(where);
}

std::uint64_t* Engine::write_staging(std::size_t) { return nullptr; }

std::vector<Cell> Engine::live_cells_in(const Box& wanted) const {
    std::vector<Cell> out;
    const Box all = extent();
    const std::int64_t x0 = std::max(wanted.x, all.x), y0 = std::max(wanted.y, all.y);
    const std::int64_t x1 = std::min(wanted.right(), all.right()), y1 = std::min(wanted.bottom(), all.bottom());
    if (x0 >= x1 || y0 >= y1) return out;
    const Box box{x0, y0, x1 - x0, y1 - y0};
    // The population sizes the result exactly when the whole board is asked for (no doubling copies
    // of a large cell list).
    if (box == all) out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, population())));
    advise_huge_pages(out);
    // Row bands of about 1 MiB: the buffer is reused from band to band and stays in cache while it
    // is scanned, instead of one board-sized buffer paged in and read back from memory.
    const std::int64_t band = std::max<std::int64_t>(1, (std::int64_t{1} << 20) / box.width);
    const std::int64_t rows = std::min(band, box.height);
    const ScratchBytes buf(static_cast<std::size_t>(box.width * rows));
    for (std::int64_t y = box.y; y < box.bottom(); y += band) {
        const std::int64_t h = std::min(band, box.bottom() - y);
        read_region(Box{box.x, y, box.width, h}, buf.get());
        for (std::int64_t r = 0; r < h; ++r) append_row(buf.get() + r * box.width, box.width, box.x, y + r, out);
    }
    return out;
}

}  // namespace tilelife

namespace tilelife {

bool Engine::load_quadtree(const Quadtree&) { return false; }

Box Engine::bounding_box() const {
    if (topology() == Topology::unbounded || population() == 0) return tilelife::bounding_box(live_cells());
    // A bounded board: its rows as bits, a band of about 1 MiB of words at a time (bit-packed engines
    // hand over their words; no cell is listed).
    const Box all = extent();
    const std::int64_t nw = (all.width + 63) / 64;
    const std::int64_t band = std::max<std::int64_t>(1, (std::int64_t{1} << 17) / nw);
    std::vector<std::uint64_t> words(static_cast<std::size_t>(nw * std::min(band, all.height)));
    std::int64_t x0 = INT64_MAX, x1 = INT64_MIN, y0 = INT64_MAX, y1 = INT64_MIN;
    for (std::int64_t y = 0; y < all.height; y += band) {
        const std::int64_t rows = std::min(band, all.height - y);
        read_rows_packed(all.y + y, rows, words.data());
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::uint64_t* row = words.data() + r * nw;
            std::int64_t first = 0;
            while (first < nw && row[first] == 0) ++first;
            if (first == nw) continue;
            std::int64_t last = nw - 1;
            while (row[last] == 0) --last;
            x0 = std::min<std::int64_t>(x0, first * 64 + std::countr_zero(row[first]));
            x1 = std::max<std::int64_t>(x1, last * 64 + 63 - std::countl_zero(row[last]));
            y0 = std::min(y0, y + r);
            y1 = y + r;
        }
    }
    if (y0 == INT64_MAX) return Box{};
    return Box{all.x + x0, all.y + y0, x1 - x0 + 1, y1 - y0 + 1};
}

}  // namespace tilelife
