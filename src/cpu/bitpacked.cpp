// cpu:bitpacked — the engine around the bit-sliced kernel (bitpacked_kernel.cpp): board storage,
// byte <-> bit conversion for the region calls, halos, and the OpenMP row bands.
#include "cpu/bitpacked.hpp"
#include "cpu/bitsliced.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <barrier>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/bitpack.hpp"
#include "core/cpu_features.hpp"
#include "core/huge_pages.hpp"
#include "tilelife/error.hpp"

#ifdef TILELIFE_HAVE_OPENMP
#include <omp.h>
#endif

namespace tilelife {
namespace bitpacked {

std::string_view to_string(Simd s) {
    switch (s) {
        case Simd::avx512: return "avx512";
        case Simd::avx2: return "avx2";
        default: return "baseline";
    }
}

bool simd_supported(Simd s) {
    switch (s) {
        case Simd::avx512: return cpu::has(cpu::Feature::avx512f) && cpu::has(cpu::Feature::avx512vl);
        case Simd::avx2: return cpu::has(cpu::Feature::avx2);
        default: return true;
    }
}

Simd best_simd(Simd cap) {
    // Unsupported levels fall back to the best supported one below the cap.
    if (cap == Simd::avx512 && simd_supported(Simd::avx512)) return Simd::avx512;
    if (cap != Simd::baseline && simd_supported(Simd::avx2)) return Simd::avx2;
    return Simd::baseline;
}

namespace {

// Zeroed words on a 64-byte boundary. Zeroed by the kernel, not aligned_alloc + memset: large
// boards get lazily zeroed pages, so creating one (as the unbounded board does on every re-layout)
// costs little beyond the cells actually written; large ones in huge pages (ZeroedBytes).
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(std::size_t words) : raw_((words + 8) * sizeof(Word)) {
        if (raw_) words_ = reinterpret_cast<Word*>((reinterpret_cast<std::uintptr_t>(raw_.data()) + 63) & ~std::uintptr_t{63});
    }
    Word* get() const { return words_; }
    explicit operator bool() const { return words_ != nullptr; }

private:
    ZeroedBytes raw_;
    Word* words_ = nullptr;
};

// --threads 0: a step uses one thread per this many word-generations (64 cells for one generation)
// of the board, measured with bench/threads.sh (docs/benchmarks.md).
constexpr double kWorkPerThread = static_cast<double>(std::int64_t{1} << 28);

// Regions at least this large are converted by several threads.
constexpr std::int64_t parallel_cells = std::int64_t{1} << 22;
// Tuning::parallel_word_generations: the unbounded board steps in short runs between re-layouts,
// and a parallel region per short run costs more than it saves (libgomp's spin-wait takes the
// second core from a loaded machine).
// Multi-threaded steps (Tuning) synchronise every sync_depth generations on boards up to
// blocked_max_words (private copies double the memory; beyond that a generation is long and
// barriers matter less).
// The barriers are std::barrier (brief spin, then futex) rather than OpenMP's, whose default spin-wait
// keeps a waiting thread on its core: when other processes load the machine, that starves the thread
// being waited for (measured 8x slower with 2 threads on a busy 2-core machine).

class BitpackedEngine final : public Engine {
public:
    BitpackedEngine(const BoardSpec& spec, const EngineOptions& options, Simd simd, const Tuning& tuning)
        : w_(spec.width), h_(spec.height), topology_(spec.topology), rule_(spec.rule), simd_(simd),
          sync_depth_(std::max<std::int64_t>(1, tuning.sync_depth)), blocked_max_words_(tuning.blocked_max_words),
          kernel_(band_kernel(simd)), popcount_(popcount_kernel(simd)) {
        if (w_ < 1 || h_ < 1 || topology_ == Topology::unbounded)
            throw std::invalid_argument("cpu:bitpacked needs a bounded board of at least 1x1");
        nw_ = static_cast<std::size_t>((w_ + 63) / 64);
        stride_ = column_stride(static_cast<std::size_t>(h_));
        std::size_t words = 0;
        if (__builtin_mul_overflow(nw_ + 1, stride_, &words) || words > SIZE_MAX / sizeof(Word) - 8)
            throw RuntimeError(too_big());
        cur_ = Buffer(words);
        nxt_ = Buffer(words);
        if (!cur_ || !nxt_) throw RuntimeError(too_big());

        last_bit_ = static_cast<unsigned>((w_ - 1) % 64);
        tail_mask_ = last_bit_ == 63 ? ~Word{0} : (Word{1} << (last_bit_ + 1)) - 1;
        bitsliced::rule_masks(rule_, rules_.base, rules_.flip);
        life_ = rule_ == Rule::life();

        int threads = options.threads;
#ifdef TILELIFE_HAVE_OPENMP
        if (threads <= 0) {
            threads = omp_get_num_procs();
            // Tiny boards: a fork/join per step costs more than the generation itself.
            if (w_ * h_ < (std::int64_t{1} << 16)) threads = 1;
        }
#else
        threads = 1;
#endif
        threads_ = static_cast<int>(std::clamp<std::int64_t>(threads, 1, h_));
        auto_threads_ = options.threads <= 0;
        team_ = auto_threads_ ? 1 : threads_;
        // The whole job's work when the caller says how long it runs (a run's steps come in
        // chunks, none of which shows the job's size); else each step's own.
        if (auto_threads_ && options.generations > 0) team_ = threads_for(options.generations), job_threads_ = true;

        activity_ = tuning.activity;
        probe_interval_ = std::max<std::int64_t>(1, tuning.probe_interval);
        parallel_tiles_ = tuning.parallel_tiles;
        parallel_word_generations_ = tuning.parallel_word_generations;
        tile_cols_ = static_cast<std::size_t>((h_ + static_cast<std::int64_t>(tile_rows) - 1) /
                                              static_cast<std::int64_t>(tile_rows));
        if (activity_) {
            if (__builtin_mul_overflow(nw_, tile_cols_, &ntiles_) || ntiles_ > UINT32_MAX) activity_ = false;
        }
        if (activity_) {
            run_ = run_kernel(simd);
            flags_.assign(ntiles_, 0);
            dirty_.assign(ntiles_, 0);
            marks_.assign((ntiles_ + 63) / 64, 0);
            mark_summary_.assign((marks_.size() + 63) / 64, 0);
            // Both buffers start empty, and without B0 an empty board is its own successor: every tile
            // is settled. With B0 it is not, so the first tracked generation computes everything.
            const bool b0 = rule_.next(false, 0);
            flags_valid_ = !b0;
            pred_valid_ = !b0;
        }
    }

    std::string name() const override { return "cpu:bitpacked"; }

    EngineDescription describe() const override {
        EngineDescription d = Engine::describe();
        // --threads 0: the most threads a step has used so far (steps choose by their work).
        d.threads = auto_threads_ ? most_threads_ : threads_;
        d.host_bytes = static_cast<std::int64_t>(host_bytes(nw_, stride_, activity_ ? ntiles_ : 0));
        d.properties.emplace_back("simd", std::string(to_string(simd_)));
        d.properties.emplace_back("activity", activity_);
        return d;
    }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        const std::int64_t x0 = box.x, x1 = box.right();
        Word* board = cur_.get();
        const std::size_t stride = stride_;
#pragma omp parallel for schedule(static) if (box.width * box.height >= parallel_cells)
        for (std::int64_t r = 0; r < box.height; ++r) {
            const std::uint8_t* row = cells + r * box.width;
            const std::size_t y = static_cast<std::size_t>(box.y + r);
            for (std::int64_t i = x0 / 64; i <= (x1 - 1) / 64; ++i) {
                const std::int64_t lo = std::max(x0, 64 * i) - 64 * i, hi = std::min(x1, 64 * i + 64) - 64 * i;
                const std::uint8_t* p = row + (64 * i + lo - x0);
                const Word bits = bitpack::pack_cells(p, static_cast<int>(hi - lo)) << lo;
                const Word mask = (hi - lo == 64) ? ~Word{0} : ((Word{1} << (hi - lo)) - 1) << lo;
                Word& word = board[static_cast<std::size_t>(i) * stride + first_row + y];
                const Word merged = (word & ~mask) | bits;
                // Unchanged words are not stored: writing zeros over an empty area (the unbounded
                // board's re-layouts) then neither touches its lazily zeroed pages nor wakes its tiles.
                if (merged != word) {
                    word = merged;
                    if (activity_)
                        std::atomic_ref<std::uint8_t>(dirty_[static_cast<std::size_t>(i) * tile_cols_ + y / tile_rows])
                            .store(1, std::memory_order_relaxed);
                }
            }
        }
        halos_stale_ = true;
        if (activity_) {
            for (std::int64_t i = x0 / 64; i <= (x1 - 1) / 64; ++i)
                for (std::size_t r = static_cast<std::size_t>(box.y) / tile_rows;
                     r <= static_cast<std::size_t>(box.bottom() - 1) / tile_rows; ++r) {
                    const std::size_t id = static_cast<std::size_t>(i) * tile_cols_ + r;
                    if (!dirty_[id]) continue;
                    dirty_[id] = 0;
                    written(id);
                }
        }
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        const std::int64_t x0 = box.x, x1 = box.right();
        const Word* board = cur_.get();
        const std::size_t stride = stride_;
#pragma omp parallel for schedule(static) if (box.width * box.height >= parallel_cells)
        for (std::int64_t r = 0; r < box.height; ++r) {
            std::uint8_t* row = cells + r * box.width;
            const std::size_t y = static_cast<std::size_t>(box.y + r);
            for (std::int64_t i = x0 / 64; i <= (x1 - 1) / 64; ++i) {
                const std::int64_t lo = std::max(x0, 64 * i) - 64 * i, hi = std::min(x1, 64 * i + 64) - 64 * i;
                std::uint8_t* p = row + (64 * i + lo - x0);
                const Word word = board[static_cast<std::size_t>(i) * stride + first_row + y];
                if (!word) {  // the common case on sparse boards
                    std::memset(p, 0, static_cast<std::size_t>(hi - lo));
                    continue;
                }
                bitpack::unpack_cells(word >> lo, static_cast<int>(hi - lo), p);
            }
        }
    }

    // Bit by bit rather than through bytes: the unbounded board moves sparse patterns this way, and
    // a sparse pattern's bounding box can be billions of cells. Cells of one word that follow each
    // other (a pattern's cells come sorted by row) are gathered and the word is written once.
    void set_cells(const std::vector<Cell>& cells) override {
        Word* board = cur_.get();
        const std::size_t n = cells.size();
        std::size_t last_tile = SIZE_MAX;
        for (std::size_t k = 0; k < n;) {
            const Cell& c = cells[k];
            if (c.x < 0 || c.y < 0 || c.x >= w_ || c.y >= h_) throw std::out_of_range("cell outside the board");
            const std::int64_t base = c.x & ~std::int64_t{63};
            const auto span = static_cast<std::uint64_t>(std::min<std::int64_t>(64, w_ - base));  // inside the board
            Word bits = Word{1} << (c.x & 63);
            std::size_t j = k + 1;
            for (; j < n && cells[j].y == c.y && static_cast<std::uint64_t>(cells[j].x - base) < span; ++j)
                bits |= Word{1} << (cells[j].x - base);
            k = j;
            const auto i = static_cast<std::size_t>(base / 64), y = static_cast<std::size_t>(c.y);
            Word& word = board[i * stride_ + first_row + y];
            if ((word | bits) == word) continue;
            word |= bits;
            if (activity_) {
                const std::size_t tile = i * tile_cols_ + y / tile_rows;
                if (tile != last_tile) dirty_[tile] = 1;
                last_tile = tile;
            }
        }
        halos_stale_ = true;
        if (!activity_) return;
        last_tile = SIZE_MAX;
        for (const Cell& c : cells) {
            const std::size_t id = static_cast<std::size_t>(c.x / 64) * tile_cols_ + static_cast<std::size_t>(c.y) / tile_rows;
            if (id == last_tile) continue;
            last_tile = id;
            if (!dirty_[id]) continue;
            dirty_[id] = 0;
            written(id);
        }
    }

    // Row-major output from column-major words: blocks of 64 rows keep every column's slice of the
    // block (64 words) in cache while the rows are emitted in order; zero words cost one test.
    std::vector<Cell> live_cells_in(const Box& wanted) const override {
        std::vector<Cell> out;
        const std::int64_t x0 = std::max<std::int64_t>(wanted.x, 0), y0 = std::max<std::int64_t>(wanted.y, 0);
        const std::int64_t x1 = std::min(wanted.right(), w_), y1 = std::min(wanted.bottom(), h_);
        if (x0 >= x1 || y0 >= y1) return out;
        const Word* board = cur_.get();
        const std::int64_t c0 = x0 / 64, c1 = (x1 - 1) / 64;
        for (std::int64_t yb = y0; yb < y1; yb += 64) {
            const std::int64_t ye = std::min(yb + 64, y1);
            for (std::int64_t y = yb; y < ye; ++y)
                for (std::int64_t c = c0; c <= c1; ++c) {
                    Word word = board[static_cast<std::size_t>(c) * stride_ + first_row + static_cast<std::size_t>(y)];
                    if (!word) continue;
                    if (c == c0 && x0 % 64) word &= ~Word{0} << (x0 % 64);
                    if (c == c1 && x1 - 64 * c < 64) word &= (Word{1} << (x1 - 64 * c)) - 1;
                    while (word) {
                        out.push_back(Cell{64 * c + std::countr_zero(word), y});
                        word &= word - 1;
                    }
                }
        }
        return out;
    }

    // The packed rows are this board's words read across the columns (Engine::read_rows_packed).
    void read_rows_packed(std::int64_t y, std::int64_t rows, Word* words) const override {
        check(Box{0, y, w_, rows});
        const Word* board = cur_.get();
        for (std::size_t i = 0; i < nw_; ++i) {
            const Word* col = board + i * stride_ + first_row + static_cast<std::size_t>(y);
            for (std::int64_t r = 0; r < rows; ++r) words[static_cast<std::size_t>(r) * nw_ + i] = col[r];
        }
    }

    // As write_region: only words that change are stored, and only their tiles wake up.
    void write_rows_packed(std::int64_t y, std::int64_t rows, const Word* words) override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        Word* board = cur_.get();
        for (std::size_t i = 0; i < nw_; ++i) {
            Word* col = board + i * stride_ + first_row + static_cast<std::size_t>(y);
            const Word mask = i + 1 == nw_ ? tail_mask_ : ~Word{0};
            for (std::int64_t r = 0; r < rows; ++r) {
                const Word v = words[static_cast<std::size_t>(r) * nw_ + i] & mask;
                if (v == col[r]) continue;
                col[r] = v;
                if (activity_) dirty_[i * tile_cols_ + (static_cast<std::size_t>(y + r)) / tile_rows] = 1;
            }
        }
        halos_stale_ = true;
        if (activity_)
            for (std::size_t i = 0; i < nw_; ++i)
                for (std::size_t t = static_cast<std::size_t>(y) / tile_rows;
                     t <= static_cast<std::size_t>(y + rows - 1) / tile_rows; ++t) {
                    const std::size_t id = i * tile_cols_ + t;
                    if (!dirty_[id]) continue;
                    dirty_[id] = 0;
                    written(id);
                }
    }

    void step(std::int64_t generations) override {
        if (generations <= 0) return;
        if (auto_threads_ && !job_threads_) team_ = threads_for(generations);
        most_threads_ = std::max(most_threads_, team_);
        std::int64_t left = generations;
        while (left > 0) {
            if (halos_stale_) refresh_halos();
            if (!activity_) {
                step_dense(left, true);
                break;
            }
            if (dense_left_ > 0) {  // most tiles were active: run untracked for a while
                const std::int64_t m = std::min(left, dense_left_);
                pred_valid_ = step_dense(m, true);
                left -= m;
                dense_left_ -= m;
                continue;
            }
            if (!flags_valid_ && !pred_valid_) {
                // Tracking starts from a generation whose predecessor is in nxt_: make one.
                pred_valid_ = step_dense(1, false);
                --left;
                continue;
            }
            step_tracked();
            --left;
            // Half the tiles or more changed (the next generation computes them and more): the dense
            // paths do that work with less bookkeeping and, on several threads, fewer barriers.
            if (changed_.size() * 2 >= ntiles_) {
                clear_flags();
                dense_left_ = probe_interval_;
            }
        }
        generation_ += generations;
    }

    std::int64_t population() const override {
        std::int64_t total = 0;
        const Word* board = cur_.get();
        const std::size_t stride = stride_, h = static_cast<std::size_t>(h_);
        const PopcountKernel count = popcount_;
        const std::int64_t columns = static_cast<std::int64_t>(nw_);
#pragma omp parallel for reduction(+ : total) schedule(static) if (w_ * h_ >= parallel_cells * 8)
        for (std::int64_t i = 0; i < columns; ++i) total += count(board + static_cast<std::size_t>(i) * stride + first_row, h);
        return total;
    }

    std::int64_t generation() const override { return generation_; }

private:
    // `generations` untracked generations over the whole board; `blocked` allows the blocked
    // multi-thread scheme. Returns whether nxt_ then holds the predecessor of cur_ (not so after
    // the blocked scheme, whose buffers alternate per round). Leaves the change flags invalid.
    bool step_dense(std::int64_t generations, bool blocked) {
        if (activity_) clear_flags();
        StepArgs args = step_args();
        bool swapped = false, pred = true;
#ifdef TILELIFE_HAVE_OPENMP
        // Short runs stay on one thread whatever the team (a parallel region costs more).
        const bool parallel = team_ > 1 && nw_ * stride_ * static_cast<std::size_t>(generations) >= parallel_word_generations_;
        if (parallel && blocked && nw_ * stride_ <= blocked_max_words_) {
            swapped = step_blocked(args, generations);
            pred = false;
        } else if (parallel) {
            swapped = step_banded(args, generations);
        } else
#endif
        {
            (void)blocked;
            Word* src = cur_.get();
            Word* dst = nxt_.get();
            for (std::int64_t g = 0; g < generations; ++g) {
                args.src = src;
                args.dst = dst;
                kernel_(args, 0, args.height);
                std::swap(src, dst);
            }
            swapped = generations % 2;
        }
        if (swapped) std::swap(cur_, nxt_);
        return pred;
    }

    StepArgs step_args() const {
        StepArgs args;
        args.stride = stride_;
        args.columns = nw_;
        args.height = static_cast<std::size_t>(h_);
        args.wrap_x = args.wrap_y = topology_ == Topology::torus;
        args.life = life_;
        args.last_bit = last_bit_;
        args.tail_mask = tail_mask_;
        args.rule = rules_;
        return args;
    }

    // ---- activity tracking (docs/activity.md) ----
    // Invariants while flags_valid_: nxt_ holds the predecessor of cur_ on every tile not in sticky
    // state, and a tile whose 3x3 neighbourhood shows no change flag facing it has the successor of
    // cur_ already in nxt_ (its neighbourhood equals the one two generations back).

    // Set on a tile written since the last generation: it must count as changed for two generations,
    // since nxt_ no longer holds its predecessor.
    static constexpr TileFlags sticky = 512;

    void written(std::size_t id) {
        if (!flags_valid_) {
            pred_valid_ = false;
            return;
        }
        if (!flags_[id]) changed_.push_back(static_cast<std::uint32_t>(id));
        flags_[id] |= changed_all | sticky;
    }

    void clear_flags() {
        for (std::uint32_t id : changed_) flags_[id] = 0;
        changed_.clear();
        flags_valid_ = false;
    }

    void mark(std::size_t id) {
        const Word bit = Word{1} << (id % 64);
        Word& w = marks_[id / 64];
        if (w & bit) return;
        if (!w) mark_summary_[id / 4096] |= Word{1} << (id / 64 % 64);
        w |= bit;
        ++marked_;
    }

    // Marks every tile that a change flag of the last generation faces (the changed tile itself and
    // the neighbours across a changed edge or corner; across the seams on a torus, none past a
    // plane's edge), and collects the sticky tiles.
    void mark_from_changes() {
        const bool torus = topology_ == Topology::torus;
        const std::size_t nw = nw_, tc = tile_cols_;
        for (std::uint32_t id : changed_) {
            const TileFlags f = flags_[id];
            flags_[id] = 0;
            if (f & sticky) sticky_.push_back(id);
            const std::size_t c = id / tc, r = id % tc;
            mark(id);  // every listed tile has changed_any
            const bool has_w = c > 0 || torus, has_e = c + 1 < nw || torus;
            const bool has_n = r > 0 || torus, has_s = r + 1 < tc || torus;
            const std::size_t cw = c > 0 ? c - 1 : nw - 1, ce = c + 1 < nw ? c + 1 : 0;
            const std::size_t rn = r > 0 ? r - 1 : tc - 1, rs = r + 1 < tc ? r + 1 : 0;
            if ((f & changed_top) && has_n) mark(c * tc + rn);
            if ((f & changed_bottom) && has_s) mark(c * tc + rs);
            if ((f & changed_west) && has_w) mark(cw * tc + r);
            if ((f & changed_east) && has_e) mark(ce * tc + r);
            if ((f & changed_top_west) && has_n && has_w) mark(cw * tc + rn);
            if ((f & changed_top_east) && has_n && has_e) mark(ce * tc + rn);
            if ((f & changed_bottom_west) && has_s && has_w) mark(cw * tc + rs);
            if ((f & changed_bottom_east) && has_s && has_e) mark(ce * tc + rs);
        }
        changed_.clear();
    }

    struct Run {
        std::uint32_t first;  // tile id
        std::uint32_t tiles;  // consecutive tiles of one column
    };

    // The marked tiles as runs down columns (ids are column-major), clearing the marks.
    void collect_runs() {
        runs_.clear();
        const std::size_t per_run = max_run_rows / tile_rows, tc = tile_cols_;
        for (std::size_t si = 0; si < mark_summary_.size(); ++si) {
            for (Word sw = mark_summary_[si]; sw; sw &= sw - 1) {
                const std::size_t wi = si * 64 + static_cast<std::size_t>(std::countr_zero(sw));
                for (Word w = marks_[wi]; w; w &= w - 1) {
                    const std::size_t id = wi * 64 + static_cast<std::size_t>(std::countr_zero(w));
                    if (!runs_.empty()) {
                        Run& last = runs_.back();
                        if (last.first + last.tiles == id && last.tiles < per_run && id % tc != 0) {
                            ++last.tiles;
                            continue;
                        }
                    }
                    runs_.push_back(Run{static_cast<std::uint32_t>(id), 1});
                }
                marks_[wi] = 0;
            }
            mark_summary_[si] = 0;
        }
    }

    // Every tile, as runs.
    void all_runs() {
        runs_.clear();
        const std::size_t per_run = max_run_rows / tile_rows;
        for (std::size_t c = 0; c < nw_; ++c)
            for (std::size_t r = 0; r < tile_cols_; r += per_run)
                runs_.push_back(Run{static_cast<std::uint32_t>(c * tile_cols_ + r),
                                    static_cast<std::uint32_t>(std::min(per_run, tile_cols_ - r))});
        marked_ = ntiles_;
    }

    // One generation computing only the tiles that may change.
    void step_tracked() {
        marked_ = 0;
        if (flags_valid_) {
            mark_from_changes();
            collect_runs();
        } else {
            all_runs();  // nxt_ holds the predecessor: the flags of this generation are exact
        }
        StepArgs args = step_args();
        args.src = cur_.get();
        args.dst = nxt_.get();
        const RunKernel kernel = run_;
        const std::int64_t count = static_cast<std::int64_t>(runs_.size());
        const Run* runs = runs_.data();
        TileFlags* flags = flags_.data();
        const std::size_t tc = tile_cols_, h = static_cast<std::size_t>(h_);
        auto one = [&](std::int64_t k) {
            const Run& run = runs[k];
            const std::size_t c = run.first / tc, r = run.first % tc;
            kernel(args, c, r * tile_rows, std::min(h, (r + run.tiles) * tile_rows), flags + run.first);
        };
#ifdef TILELIFE_HAVE_OPENMP
        if (team_ > 1 && marked_ >= parallel_tiles_) {
#pragma omp parallel for num_threads(team_) schedule(static)
            for (std::int64_t k = 0; k < count; ++k) one(k);
        } else
#endif
            for (std::int64_t k = 0; k < count; ++k) one(k);
        for (const Run& run : runs_)
            for (std::uint32_t id = run.first; id < run.first + run.tiles; ++id)
                if (flags[id]) changed_.push_back(id);
        for (std::uint32_t id : sticky_) {
            if (!flags[id]) changed_.push_back(id);
            flags[id] = changed_all;
        }
        sticky_.clear();
        flags_valid_ = true;
        pred_valid_ = true;
        std::swap(cur_, nxt_);
    }

#ifdef TILELIFE_HAVE_OPENMP
    // A barrier made for team_ threads, fitted (by the team's first thread, before anyone waits
    // on it) to a team that OpenMP made smaller.
    void fit_barrier(std::barrier<>& sync) const {
        if (omp_get_thread_num() == 0)
            for (int missing = team_ - omp_get_num_threads(); missing > 0; --missing) (void)sync.arrive_and_drop();
    }

    // Rows of thread t's band out of nt: starting at multiples of 8 (aligned vectors) where the
    // board is tall enough for every band to keep at least one row.
    std::pair<std::size_t, std::size_t> band_of(std::size_t t, std::size_t nt) const {
        const std::size_t h = static_cast<std::size_t>(h_);
        auto start = [&](std::size_t k) {
            const std::size_t y = h * k / nt;
            return (k == nt || h < 16 * nt) ? y : y / 8 * 8;
        };
        return {start(t), start(t + 1)};
    }

    // Several threads, a barrier after every generation. For boards too large for step_blocked's
    // private copies, where a generation is long enough to hide the barrier. Returns whether the
    // result is in nxt_.
    bool step_banded(StepArgs args, std::int64_t generations) {
        Word* const a = cur_.get();
        Word* const b = nxt_.get();
        const BandKernel kernel = kernel_;
        std::barrier<> sync(team_);
#pragma omp parallel num_threads(team_) firstprivate(args)
        {
            const auto [y0, y1] = band_of(static_cast<std::size_t>(omp_get_thread_num()),
                                          static_cast<std::size_t>(omp_get_num_threads()));
            fit_barrier(sync);
            Word* src = a;
            Word* dst = b;
            for (std::int64_t g = 0; g < generations; ++g) {
                args.src = src;
                args.dst = dst;
                kernel(args, y0, y1);
                sync.arrive_and_wait();
                std::swap(src, dst);
            }
        }
        return generations % 2;
    }

    // Several threads, a barrier only every `sync_depth` generations: each thread copies its band plus
    // sync_depth rows above and below (wrapping on a torus, clipped at a plane's edge, which is
    // exactly the plane's dead outside) into private buffers and runs sync_depth generations there.
    // The rows next to a cut edge go wrong by one row per generation, which never reaches the band.
    // Costs 2 * sync_depth redundant rows per band; saves the barriers that make a per-generation
    // scheme crawl when another process takes a core (one descheduled thread stalls every other).
    bool step_blocked(StepArgs args, std::int64_t generations) {
        const std::size_t h = static_cast<std::size_t>(h_), nt_max = static_cast<std::size_t>(team_);
        const bool torus = topology_ == Topology::torus;
        // Private buffers are made for the team size asked for; a smaller team uses a prefix.
        auto region = [&](std::size_t t, std::size_t nt) {
            const auto [y0, y1] = band_of(t, nt);
            const std::int64_t d = sync_depth_;
            std::int64_t ps = static_cast<std::int64_t>(y0) - d, pe = static_cast<std::int64_t>(y1) + d;
            if (!torus) ps = std::max<std::int64_t>(ps, 0), pe = std::min<std::int64_t>(pe, h_);
            return std::pair<std::int64_t, std::int64_t>{ps, pe};
        };
        std::vector<Buffer> priv;
        for (std::size_t t = 0; t < nt_max; ++t) {
            const auto [ps, pe] = region(t, nt_max);
            const std::size_t words = (nw_ + 1) * column_stride(static_cast<std::size_t>(pe - ps));
            for (int k = 0; k < 2; ++k) {
                priv.emplace_back(words);
                if (!priv.back()) return step_banded(args, generations);
            }
        }
        Word* const a = cur_.get();
        Word* const b = nxt_.get();
        const BandKernel kernel = kernel_;
        const std::size_t nw = nw_, stride = stride_;
        std::int64_t rounds = 0;
        std::barrier<> sync(team_);
#pragma omp parallel num_threads(team_) firstprivate(args)
        {
            const std::size_t nt = static_cast<std::size_t>(omp_get_num_threads());
            const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
            fit_barrier(sync);
            const auto [y0, y1] = band_of(t, nt);
            const auto [ps, pe] = region(t, nt);
            const std::size_t ph = static_cast<std::size_t>(pe - ps), pstride = column_stride(ph);
            // A smaller team than asked for has longer bands: size the buffers for them if needed.
            Buffer own_p, own_q;
            Word* p = nt == nt_max ? priv[2 * t].get() : nullptr;
            Word* q = nt == nt_max ? priv[2 * t + 1].get() : nullptr;
            if (!p) {
                own_p = Buffer((nw + 1) * pstride);
                own_q = Buffer((nw + 1) * pstride);
                p = own_p.get(), q = own_q.get();
            }
            StepArgs pa = args;
            pa.stride = pstride;
            pa.height = ph;
            pa.wrap_y = false;  // private halos stay 0: a plane edge, or a cut whose error never reaches the band
            const Word* src = a;
            Word* dst = b;
            for (std::int64_t done = 0; done < generations; done += sync_depth_) {
                const std::int64_t depth = std::min<std::int64_t>(sync_depth_, generations - done);
                // Copy in rows ps..pe-1 (mod H on a torus).
                for (std::size_t i = 0; i < nw; ++i) {
                    const Word* col = src + i * stride + first_row;
                    Word* pc = p + i * pstride + first_row;
                    std::int64_t row = ((ps % h_) + h_) % h_;
                    for (std::size_t j = 0; j < ph;) {
                        const std::size_t run = std::min(ph - j, h - static_cast<std::size_t>(row));
                        std::memcpy(pc + j, col + row, run * sizeof(Word));
                        j += run;
                        row = 0;
                    }
                }
                Word* x = p;
                Word* y = q;
                for (std::int64_t g = 0; g < depth; ++g) {
                    pa.src = x;
                    pa.dst = y;
                    kernel(pa, 0, ph);
                    std::swap(x, y);
                }
                // Copy out the band's rows.
                const std::size_t off = y0 - static_cast<std::size_t>(ps);
                for (std::size_t i = 0; i < nw; ++i)
                    std::memcpy(dst + i * stride + first_row + y0, x + i * pstride + first_row + off,
                                (y1 - y0) * sizeof(Word));
                sync.arrive_and_wait();
                src = dst;
                dst = (dst == b) ? a : b;
                if (t == 0) ++rounds;
            }
        }
        halos_stale_ = true;  // the copies above skip the shared halo words
        return rounds % 2;
    }
#endif

    std::string too_big() const {
        return "out of memory allocating a " + std::to_string(w_) + "x" + std::to_string(h_) +
               " board for cpu:bitpacked";
    }

    void check(const Box& b) const {
        if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > w_ || b.bottom() > h_)
            throw std::out_of_range("region outside the board");
    }

    // Torus halos copy the opposite edge row (the kernel keeps them current after each step; writes
    // only mark them stale). Plane halos stay zero.
    void refresh_halos() {
        if (topology_ == Topology::torus) {
            for (std::size_t i = 0; i < nw_; ++i) {
                Word* c = cur_.get() + i * stride_;
                c[first_row - 1] = c[first_row + static_cast<std::size_t>(h_) - 1];
                c[first_row + static_cast<std::size_t>(h_)] = c[first_row];
            }
        }
        halos_stale_ = false;
    }

    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    Simd simd_;
    std::int64_t sync_depth_;
    std::size_t blocked_max_words_;
    BandKernel kernel_;
    PopcountKernel popcount_;
    std::size_t nw_ = 0, stride_ = 0;
    Buffer cur_, nxt_;
    unsigned last_bit_ = 0;
    Word tail_mask_ = 0;
    RuleMasks rules_{};
    bool life_ = false;
    int threads_ = 1;          // the most threads a step may use
    int team_ = 1;             // threads of the step being run
    int most_threads_ = 1;     // the most any step has used
    bool auto_threads_ = false;  // --threads 0: chosen by the work (threads_for)
    bool job_threads_ = false;   // ... of the whole job (EngineOptions::generations), once

    // Threads for `generations` generations when the engine chooses: one per
    // kWorkPerThread word-generations of the whole board, at most threads_ (docs/benchmarks.md,
    // "Threads by the work": set where a second thread stopped costing more than it saved on the
    // first dev machine; on another it paid from a quarter of that).
    int threads_for(std::int64_t generations) const {
        const double work = static_cast<double>(generations) * static_cast<double>(nw_) * static_cast<double>(h_);
        return static_cast<int>(std::clamp<double>(work / kWorkPerThread, 1, threads_));
    }
    bool halos_stale_ = true;
    std::int64_t generation_ = 0;

    // Activity tracking.
    bool activity_ = false;
    RunKernel run_ = nullptr;
    std::int64_t probe_interval_ = 64;
    std::size_t parallel_tiles_ = 0, parallel_word_generations_ = 0;
    std::size_t tile_cols_ = 0, ntiles_ = 0;  // tiles per word column, tiles in all
    std::vector<TileFlags> flags_;            // per tile: changes of the last generation (and sticky)
    std::vector<std::uint8_t> dirty_;         // per tile: written by the current write_region
    std::vector<std::uint32_t> changed_;      // the tiles with nonzero flags
    std::vector<std::uint32_t> sticky_;
    std::vector<Word> marks_, mark_summary_;  // tiles to compute, and which words of marks_ are nonzero
    std::vector<Run> runs_;
    std::size_t marked_ = 0;
    bool flags_valid_ = false;   // flags_/changed_ describe the last generation
    bool pred_valid_ = false;    // nxt_ holds the exact predecessor of cur_
    std::int64_t dense_left_ = 0;  // untracked generations to run before tracking again
};

}  // namespace

std::unique_ptr<Engine> make_bitpacked(const BoardSpec& spec, const EngineOptions& options, Simd simd,
                                       const Tuning& tuning) {
    if (!simd_supported(simd))
        throw RuntimeError("cpu:bitpacked: this CPU lacks " + std::string(to_string(simd)));
    return std::make_unique<BitpackedEngine>(spec, options, simd, tuning);
}

}  // namespace bitpacked

void register_bitpacked_engine() {
    using namespace bitpacked;
    EngineInfo info;
    info.name = "cpu:bitpacked";
    info.description = "one bit per cell, bit-sliced adders, SIMD (" + std::string(to_string(best_simd())) +
                       " here) and OpenMP row bands, settled tiles skipped";
    info.default_for = {Topology::torus, Topology::plane};  // unbounded: cpu:auto
    info.parameters = {
        {"activity", "skip tiles whose neighbourhood has not changed (docs/activity.md)", {"on", "off"}, 0, 0, "on"},
        {"simd", "widest instruction set used (capped by what this CPU has)", {"auto", "avx512", "avx2", "baseline"}, 0,
         0, "auto"},
    };
    info.host_bytes = [](const BoardSpec& spec, const EngineOptions&) -> std::int64_t {
        const auto w = static_cast<std::uint64_t>(std::max<std::int64_t>(spec.width, 1));
        const auto h = static_cast<std::uint64_t>(std::max<std::int64_t>(spec.height, 1));
        // In 128 bits: the true size of any board up to 4e9 a side (it fits 63 bits), never saturated.
        const unsigned __int128 nw = (w + 63) / 64, stride = column_stride(h), tiles = nw * ((h + tile_rows - 1) / tile_rows);
        const unsigned __int128 bytes = 2 * (nw + 1) * stride * sizeof(std::uint64_t) + tiles * 16;
        return bytes > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(bytes);
    };
    register_engine(info, [](const BoardSpec& spec, const EngineOptions& options) -> std::unique_ptr<Engine> {
        Tuning tuning;
        tuning.activity = options.param("activity", "on") == "on";
        const std::string simd = options.param("simd", "auto");
        const Simd cap = simd == "baseline" ? Simd::baseline : simd == "avx2" ? Simd::avx2 : Simd::avx512;
        return make_bitpacked(spec, options, best_simd(cap), tuning);
    });
}

}  // namespace tilelife
