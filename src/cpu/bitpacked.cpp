// cpu:bitpacked — the engine around the bit-sliced kernel (bitpacked_kernel.cpp): board storage,
// byte <-> bit conversion for the region calls, halos, and the OpenMP row bands.
#include "cpu/bitpacked.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

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

struct FreeDeleter {
    void operator()(Word* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<Word[], FreeDeleter>;

// Regions at least this large are converted by several threads.
constexpr std::int64_t parallel_cells = std::int64_t{1} << 22;

class BitpackedEngine final : public Engine {
public:
    BitpackedEngine(const BoardSpec& spec, const EngineOptions& options, Simd simd)
        : w_(spec.width), h_(spec.height), topology_(spec.topology), rule_(spec.rule), simd_(simd),
          kernel_(band_kernel(simd)), popcount_(popcount_kernel(simd)) {
        if (w_ < 1 || h_ < 1 || topology_ == Topology::unbounded)
            throw std::invalid_argument("cpu:bitpacked needs a bounded board of at least 1x1");
        nw_ = static_cast<std::size_t>((w_ + 63) / 64);
        stride_ = static_cast<std::size_t>(h_) + 2;
        std::size_t words = 0;
        if (__builtin_mul_overflow(nw_ + 1, stride_, &words) || words > SIZE_MAX / sizeof(Word))
            throw RuntimeError(too_big());
        // calloc: large boards get lazily zeroed pages, so creating (as the unbounded board does on
        // every re-layout) costs little beyond the cells actually written.
        cur_.reset(static_cast<Word*>(std::calloc(words, sizeof(Word))));
        nxt_.reset(static_cast<Word*>(std::calloc(words, sizeof(Word))));
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
                Word& word = board[static_cast<std::size_t>(i) * stride + 1 + y];
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
                const Word word = board[static_cast<std::size_t>(i) * stride + 1 + y];
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
        args.torus = topology_ == Topology::torus;
        args.life = life_;
        args.last_bit = last_bit_;
        args.tail_mask = tail_mask_;
        args.rule = rules_;
        Word* a = cur_.get();
        Word* b = nxt_.get();
        const BandKernel kernel = kernel_;
        const std::size_t height = args.height;
#ifdef TILELIFE_HAVE_OPENMP
        if (threads_ > 1) {
            // One parallel region for all generations: a barrier per generation, no fork/join.
#pragma omp parallel num_threads(threads_) firstprivate(args)
            {
                const std::size_t nt = static_cast<std::size_t>(omp_get_num_threads());
                const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
                const std::size_t y0 = height * t / nt, y1 = height * (t + 1) / nt;
                Word* src = a;
                Word* dst = b;
                for (std::int64_t g = 0; g < generations; ++g) {
                    args.src = src;
                    args.dst = dst;
                    kernel(args, y0, y1);
#pragma omp barrier
                    std::swap(src, dst);
                }
            }
        } else
#endif
        {
            Word* src = a;
            Word* dst = b;
            for (std::int64_t g = 0; g < generations; ++g) {
                args.src = src;
                args.dst = dst;
                kernel(args, 0, height);
                std::swap(src, dst);
            }
        }
        if (generations % 2) std::swap(cur_, nxt_);
        generation_ += generations;
    }

    std::int64_t population() const override {
        std::int64_t total = 0;
        const Word* board = cur_.get();
        const std::size_t stride = stride_, h = static_cast<std::size_t>(h_);
        const PopcountKernel count = popcount_;
        const std::int64_t columns = static_cast<std::int64_t>(nw_);
#pragma omp parallel for reduction(+ : total) schedule(static) if (w_ * h_ >= parallel_cells * 8)
        for (std::int64_t i = 0; i < columns; ++i) total += count(board + static_cast<std::size_t>(i) * stride + 1, h);
        return total;
    }

    std::int64_t generation() const override { return generation_; }

private:
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
                c[0] = c[static_cast<std::size_t>(h_)];
                c[static_cast<std::size_t>(h_) + 1] = c[1];
            }
        }
        halos_stale_ = false;
    }

    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    Simd simd_;
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

std::unique_ptr<Engine> make_bitpacked(const BoardSpec& spec, const EngineOptions& options, Simd simd) {
    if (!simd_supported(simd))
        throw RuntimeError("cpu:bitpacked: this CPU lacks " + std::string(to_string(simd)));
    return std::make_unique<BitpackedEngine>(spec, options, simd);
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
