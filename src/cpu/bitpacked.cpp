// cpu:bitpacked — the engine around the bit-sliced kernel (bitpacked_kernel.cpp): board storage,
// byte <-> bit conversion for the region calls, halos, and the OpenMP row bands.
#include "cpu/bitpacked.hpp"

#include <algorithm>
#include <array>
#include <barrier>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
    __builtin_cpu_init();
    switch (s) {
        case Simd::avx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
        case Simd::avx2: return __builtin_cpu_supports("avx2");
        default: return true;
    }
}

Simd best_simd() {
    // TILELIFE_SIMD=baseline|avx2|avx512 caps the level, for measuring each one; unsupported levels
    // fall back to the best supported one below them.
    Simd cap = Simd::avx512;
    if (const char* env = std::getenv("TILELIFE_SIMD")) {
        const std::string_view v(env);
        if (v == "baseline") cap = Simd::baseline;
        else if (v == "avx2") cap = Simd::avx2;
    }
    if (cap == Simd::avx512 && simd_supported(Simd::avx512)) return Simd::avx512;
    if (cap != Simd::baseline && simd_supported(Simd::avx2)) return Simd::avx2;
    return Simd::baseline;
}

namespace {

// Cells -> bits: byte k of `v` (any nonzero = alive) becomes bit k.
inline Word pack8(Word v) {
    constexpr Word low7 = 0x7f7f7f7f7f7f7f7fULL, high = 0x8080808080808080ULL;
    const Word nonzero = (((v & low7) + low7) | v) & high;  // high bit of each nonzero byte
    // Each byte's 0/1 lands in the top byte at its own bit; the shifted copies never overlap.
    return ((nonzero >> 7) * 0x0102040810204080ULL) >> 56;
}

// Bits -> cells: byte k of unpack_table[b] is bit k of b.
const std::array<Word, 256>& unpack_table() {
    static const std::array<Word, 256> table = [] {
        std::array<Word, 256> t{};
        for (unsigned b = 0; b < 256; ++b)
            for (unsigned k = 0; k < 8; ++k)
                if ((b >> k) & 1u) t[b] |= Word{1} << (8 * k);
        return t;
    }();
    return table;
}

// Zeroed words on a 64-byte boundary. calloc, not aligned_alloc + memset: large boards get lazily
// zeroed pages, so creating one (as the unbounded board does on every re-layout) costs little beyond
// the cells actually written.
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(std::size_t words) : raw_(std::calloc(words + 8, sizeof(Word))) {
        if (raw_) words_ = reinterpret_cast<Word*>((reinterpret_cast<std::uintptr_t>(raw_.get()) + 63) & ~std::uintptr_t{63});
    }
    Word* get() const { return words_; }
    explicit operator bool() const { return words_ != nullptr; }

private:
    struct Free {
        void operator()(void* p) const { std::free(p); }
    };
    std::unique_ptr<void, Free> raw_;
    Word* words_ = nullptr;
};

// Regions at least this large are converted by several threads.
constexpr std::int64_t parallel_cells = std::int64_t{1} << 22;
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
        for (int n = 0; n <= 9; ++n) {
            const bool b = n <= 8 && rule_.next(false, n), s = n >= 1 && rule_.next(true, n - 1);
            rules_.base[n] = b ? ~Word{0} : 0;
            rules_.flip[n] = (b != s) ? ~Word{0} : 0;
        }
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
    }

    std::string name() const override { return "cpu:bitpacked"; }
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
                Word bits = 0;
                for (std::int64_t b = lo; b < hi; b += 8) {
                    Word v = 0;
                    if (hi - b >= 8) std::memcpy(&v, p + (b - lo), 8);
                    else std::memcpy(&v, p + (b - lo), static_cast<std::size_t>(hi - b));
                    bits |= pack8(v) << b;
                }
                const Word mask = (hi - lo == 64) ? ~Word{0} : ((Word{1} << (hi - lo)) - 1) << lo;
                Word& word = board[static_cast<std::size_t>(i) * stride + first_row + y];
                word = (word & ~mask) | bits;
            }
        }
        halos_stale_ = true;
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        const std::int64_t x0 = box.x, x1 = box.right();
        const Word* board = cur_.get();
        const std::size_t stride = stride_;
        const auto& table = unpack_table();
#pragma omp parallel for schedule(static) if (box.width * box.height >= parallel_cells)
        for (std::int64_t r = 0; r < box.height; ++r) {
            std::uint8_t* row = cells + r * box.width;
            const std::size_t y = static_cast<std::size_t>(box.y + r);
            for (std::int64_t i = x0 / 64; i <= (x1 - 1) / 64; ++i) {
                const std::int64_t lo = std::max(x0, 64 * i) - 64 * i, hi = std::min(x1, 64 * i + 64) - 64 * i;
                std::uint8_t* p = row + (64 * i + lo - x0);
                const Word word = board[static_cast<std::size_t>(i) * stride + first_row + y];
                for (std::int64_t b = lo; b < hi; b += 8) {
                    const Word bytes = table[(word >> b) & 0xffu];
                    if (hi - b >= 8) std::memcpy(p + (b - lo), &bytes, 8);
                    else std::memcpy(p + (b - lo), &bytes, static_cast<std::size_t>(hi - b));
                }
            }
        }
    }

    void step(std::int64_t generations) override {
        if (generations <= 0) return;
        if (halos_stale_) refresh_halos();
        StepArgs args;
        args.stride = stride_;
        args.columns = nw_;
        args.height = static_cast<std::size_t>(h_);
        args.wrap_x = args.wrap_y = topology_ == Topology::torus;
        args.life = life_;
        args.last_bit = last_bit_;
        args.tail_mask = tail_mask_;
        args.rule = rules_;
        bool swapped = false;
#ifdef TILELIFE_HAVE_OPENMP
        if (threads_ > 1 && nw_ * stride_ <= blocked_max_words_) swapped = step_blocked(args, generations);
        else if (threads_ > 1) swapped = step_banded(args, generations);
        else
#endif
        {
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
#ifdef TILELIFE_HAVE_OPENMP
    // A barrier made for threads_ threads, fitted (by the team's first thread, before anyone waits
    // on it) to a team that OpenMP made smaller.
    void fit_barrier(std::barrier<>& sync) const {
        if (omp_get_thread_num() == 0)
            for (int missing = threads_ - omp_get_num_threads(); missing > 0; --missing) (void)sync.arrive_and_drop();
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
        std::barrier<> sync(threads_);
#pragma omp parallel num_threads(threads_) firstprivate(args)
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
        const std::size_t h = static_cast<std::size_t>(h_), nt_max = static_cast<std::size_t>(threads_);
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
        std::barrier<> sync(threads_);
#pragma omp parallel num_threads(threads_) firstprivate(args)
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
    int threads_ = 1;
    bool halos_stale_ = true;
    std::int64_t generation_ = 0;
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
    register_engine({"cpu:bitpacked", "one bit per cell, bit-sliced adders, SIMD (" +
                                          std::string(bitpacked::to_string(bitpacked::best_simd())) +
                                          ") and OpenMP row bands"},
                    [](const BoardSpec& spec, const EngineOptions& options) -> std::unique_ptr<Engine> {
                        return bitpacked::make_bitpacked(spec, options, bitpacked::best_simd());
                    });
}

}  // namespace tilelife
