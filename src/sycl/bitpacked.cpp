// sycl:bitpacked: the board lives on the device as bits (32 cells per word, row-major, two USM
// allocations swapped per launch); each launch advances up to K generations inside local-memory
// tiles (bitpacked_kernel.hpp). The host packs and unpacks bytes only in write_region/read_region;
// whole rows (read_rows_packed, write_rows_packed: the MPI exchange's) move as they are, through
// sycl::malloc_host staging. Unlike opencl:bitpacked this engine runs every tile every launch (no
// activity tracking).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "sycl/bitpacked_kernel.hpp"
#include "sycl/device_engine.hpp"
#include "sycl/engines.hpp"
#include "sycl/population.hpp"
#include "sycl/runtime.hpp"
#include "tilelife/error.hpp"

namespace tilelife::sycl_backend {
namespace {

static_assert(std::endian::native == std::endian::little, "cell packing assumes a little-endian host");

constexpr const char* kName = "sycl:bitpacked";
constexpr int kMaxSteps = 32;  // the halo is one 32-cell word left and right
constexpr std::uint64_t kBandWords = std::uint64_t{1} << 22;  // transfers move bands of 16 MiB
// Packed rows up to this size go through the engine's malloc_host staging, and writes return before
// they are done (an exchange's ghost rows: 12 MiB on a 1048576-wide board); larger ones (a whole
// board loaded or saved) are copied directly to or from the caller's memory and waited for.
constexpr std::size_t kStagedBytes = std::size_t{16} << 20;

std::uint64_t ceil_div(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m; }

enum class Neighbours { local_memory, sub_group };

// Eight cells (any non-zero byte is alive) as eight bits, cell k at bit k.
inline std::uint32_t pack8(std::uint64_t v) {
    constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    const std::uint64_t nonzero = (((v & low7) + low7) | v) & 0x8080808080808080ull;  // top bit per byte
    return static_cast<std::uint32_t>(((nonzero >> 7) * 0x0102040810204080ull) >> 56);
}

// n cells -> ceil(n/32) words; bits past n are 0.
void pack_row(const std::uint8_t* cells, std::int64_t n, std::uint32_t* out) {
    const std::int64_t full = n / 32;
    for (std::int64_t k = 0; k < full; ++k) {
        std::uint32_t w = 0;
        for (int q = 0; q < 4; ++q) {
            std::uint64_t v;
            std::memcpy(&v, cells + 32 * k + 8 * q, 8);
            w |= pack8(v) << (8 * q);
        }
        out[k] = w;
    }
    if (n % 32) {
        std::uint32_t w = 0;
        for (std::int64_t i = 32 * full; i < n; ++i) w |= static_cast<std::uint32_t>(cells[i] != 0) << (i % 32);
        out[full] = w;
    }
}

// Byte k of spread(b) is bit k of b.
const std::array<std::uint64_t, 256>& spread_table() {
    static const auto table = [] {
        std::array<std::uint64_t, 256> t{};
        for (unsigned b = 0; b < 256; ++b)
            for (unsigned k = 0; k < 8; ++k) t[b] |= static_cast<std::uint64_t>((b >> k) & 1u) << (8 * k);
        return t;
    }();
    return table;
}

void unpack_row(const std::uint32_t* words, std::int64_t n, std::uint8_t* cells) {
    const auto& spread = spread_table();
    const std::int64_t bytes = n / 8;
    for (std::int64_t b = 0; b < bytes; ++b) {
        const std::uint64_t v = spread[(words[b / 4] >> (8 * (b % 4))) & 0xffu];
        std::memcpy(cells + 8 * b, &v, 8);
    }
    for (std::int64_t i = 8 * bytes; i < n; ++i) cells[i] = (words[i / 32] >> (i % 32)) & 1u;
}

// Bits in and out of word runs: core/bitpack.hpp (shared with the other bit-packed engine).
using bitpack::extract_bits32;
using bitpack::insert_bits32;

// The kernels this build has: rows per work-item x topology x rule matcher x neighbour path.
using Launch = sycl::event (*)(sycl::queue&, const std::uint32_t*, std::uint32_t*, const BitpackedArgs&, std::uint64_t);

template <int R, bool Torus, bool SubGroup>
Launch pick_rule(int rule) {
    switch (rule) {
        case kRuleLife: return &launch_bitpacked<R, Torus, kRuleLife, SubGroup>;
        case kRuleHighLife: return &launch_bitpacked<R, Torus, kRuleHighLife, SubGroup>;
        case kRuleDayAndNight: return &launch_bitpacked<R, Torus, kRuleDayAndNight, SubGroup>;
        default: return &launch_bitpacked<R, Torus, kRuleMasks, SubGroup>;
    }
}

template <int R, bool SubGroup>
Launch pick_rows(bool torus, int rule) {
    return torus ? pick_rule<R, true, SubGroup>(rule) : pick_rule<R, false, SubGroup>(rule);
}

// The rule's compiled kernel, or the run-time masks' for any other rule.
int rule_kernel(const Rule& r) {
    if (r == Rule::life()) return kRuleLife;
    if (r.birth == CompiledRule<kRuleHighLife>::birth && r.survival == CompiledRule<kRuleHighLife>::survival)
        return kRuleHighLife;
    if (r.birth == CompiledRule<kRuleDayAndNight>::birth && r.survival == CompiledRule<kRuleDayAndNight>::survival)
        return kRuleDayAndNight;
    return kRuleMasks;
}

// Row counts built: the local-memory path for each, the sub-group path for the GPU shapes.
const std::vector<std::string>& row_choices() {
    static const std::vector<std::string> c = {"auto", "4", "8", "16", "32"};
    return c;
}

Launch pick(int rows, bool torus, int rule, Neighbours nb) {
    if (nb == Neighbours::sub_group) {
        switch (rows) {
            case 16: return pick_rows<16, true>(torus, rule);
            case 32: return pick_rows<32, true>(torus, rule);
            default: return nullptr;
        }
    }
    switch (rows) {
        case 4: return pick_rows<4, false>(torus, rule);
        case 8: return pick_rows<8, false>(torus, rule);
        case 16: return pick_rows<16, false>(torus, rule);
        case 32: return pick_rows<32, false>(torus, rule);
        default: return nullptr;
    }
}

struct Shape {
    int lw = 32, strips = 8, rows = 32, steps = 12;
};

// GPUs: the OpenCL twin's H100 defaults (a warp-wide local row, 256 local rows, 12 generations per
// launch). CPUs (AdaptiveCpp's OpenMP device runs a work-group as loops over its work-items between
// barriers): smaller groups, fewer steps, as opencl:bitpacked chose for PoCL.
Shape default_shape(const DeviceDescription& d) {
    if (d.is_gpu()) return {};
    return {32, 4, 8, 4};
}

class BitpackedEngine final : public DeviceEngine {
public:
    BitpackedEngine(const BoardSpec& board, const EngineOptions& options) : DeviceEngine(kName, board, options) {
        create([&] { setup(options); });
    }

    ~BitpackedEngine() override {
        wait_quietly();  // staged writes in flight read their staging
        for (std::uint32_t* p : {cur_, next_, staging_})
            if (p) sycl::free(p, rt_->queue);
        for (Pinned* p : {&bounce_, &lent_, &writing_})
            if (p->host) sycl::free(p->host, rt_->queue);
    }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        const Span s = span(box);
        // Whole words from the region alone: no need to read what is there.
        const bool whole = s.offset == 0 && (box.right() % 32 == 0 || box.right() == w_);
        std::vector<std::uint32_t> buf, row(ceil_div(static_cast<std::uint64_t>(box.width), 32));
        try {
            for (std::int64_t y = 0; y < box.height; y += s.band) {
                const std::int64_t rows = std::min(s.band, box.height - y);
                buf.assign(static_cast<std::size_t>(s.words * rows), 0);
                if (!whole) transfer(false, s, box.y + y, rows, buf.data());
                for (std::int64_t r = 0; r < rows; ++r) {
                    const std::uint8_t* in = cells + (y + r) * box.width;
                    std::uint32_t* out = buf.data() + r * s.words;
                    if (whole) {
                        pack_row(in, box.width, out);
                    } else {
                        pack_row(in, box.width, row.data());
                        insert_bits32(out, s.offset, row.data(), box.width);
                    }
                }
                transfer(true, s, box.y + y, rows, buf.data());
            }
        } catch (const sycl::exception& e) {
            throw_runtime(e, "writing cells to the device");
        }
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        const Span s = span(box);
        std::vector<std::uint32_t> buf, row(ceil_div(static_cast<std::uint64_t>(box.width), 32));
        try {
            for (std::int64_t y = 0; y < box.height; y += s.band) {
                const std::int64_t rows = std::min(s.band, box.height - y);
                buf.resize(static_cast<std::size_t>(s.words * rows));
                transfer(false, s, box.y + y, rows, buf.data());
                for (std::int64_t r = 0; r < rows; ++r) {
                    const std::uint32_t* in = buf.data() + r * s.words;
                    if (s.offset != 0) {
                        extract_bits32(in, s.words, s.offset, box.width, row.data());
                        in = row.data();
                    }
                    unpack_row(in, box.width, cells + (y + r) * box.width);
                }
            }
        } catch (const sycl::exception& e) {
            throw_runtime(e, "reading cells from the device");
        }
    }

    // The device's rows are 32-bit words with an even pitch (setup), little-endian, so they are the
    // packed layout's 64-bit words: rows move as they are, in one copy (bits past the width are 0 on
    // the device: the kernel masks the last word and never writes the padding word).
    void read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        const std::size_t bytes = static_cast<std::size_t>(rows) * row_bytes();
        try {
            if (bytes > kStagedBytes) {
                rt_->queue.memcpy(words, board_row(y), bytes);
                rt_->sync("reading rows from the device");
                ++packed_copies_;
                return;
            }
            grow(bounce_, bytes);
            rt_->queue.memcpy(bounce_.host, board_row(y), bytes);
            rt_->sync("reading rows from the device");
            ++packed_copies_;
            std::memcpy(words, bounce_.host, bytes);
        } catch (const sycl::exception& e) {
            throw_runtime(e, "reading rows from the device");
        }
    }

    void write_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words) override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        const std::size_t bytes = static_cast<std::size_t>(rows) * row_bytes();
        try {
            // Addresses as integers: `words` is usually the caller's own memory, unrelated to the staging.
            const auto at = reinterpret_cast<std::uintptr_t>(words), from = reinterpret_cast<std::uintptr_t>(writing_.host);
            const bool staged = writing_.host && at >= from && at + bytes <= from + writing_.bytes;
            if (!staged && bytes > kStagedBytes) {
                rt_->queue.memcpy(board_row(y), words, bytes);
                rt_->sync("writing rows to the device");
                ++packed_copies_;
                return;
            }
            // Copied into the staging (unless already there: write_staging) and not waited for: the
            // next launches queue behind it on the in-order queue, and the staging is not reused
            // before it is done (write_slot).
            const void* host = words;
            if (!staged) {
                void* slot = write_slot(bytes);
                std::memcpy(slot, words, bytes);
                host = slot;
            }
            pending_writes_.push_back(rt_->queue.memcpy(board_row(y), host, bytes));
            ++packed_copies_;
        } catch (const sycl::exception& e) {
            throw_runtime(e, "writing rows to the device");
        }
    }

    // A part of write_rows_packed's staging (write_slot: free of writes in flight).
    std::uint64_t* write_staging(std::size_t words) override {
        if (words > 2 * kStagedBytes / 8) return nullptr;
        try {
            return static_cast<std::uint64_t*>(write_slot(words * 8));
        } catch (const sycl::exception& e) {
            throw_runtime(e, "staging rows");
        }
    }

    // The step, then each range of rows in one copy into staging of the engine's own, which `ready`
    // gets (the MPI exchange sends from it: no copy on the host). Unlike opencl:bitpacked the last
    // launch is not split, so the reads do not overlap the step.
    void step_reading_rows(std::int64_t n, const std::vector<RowsRead>& reads,
                           const std::function<void(const std::vector<const std::uint64_t*>&)>& ready) override {
        std::size_t bytes = 0;
        for (const RowsRead& r : reads) {
            check(Box{0, r.y, w_, r.rows});
            bytes += static_cast<std::size_t>(r.rows) * row_bytes();
        }
        if (bytes > kStagedBytes) {
            Engine::step_reading_rows(n, reads, ready);
            return;
        }
        step(n);
        std::vector<const std::uint64_t*> where;
        try {
            grow(lent_, bytes);
            std::size_t at = 0;
            for (const RowsRead& r : reads) {
                if (r.rows == 0) {
                    where.push_back(r.words);
                    continue;
                }
                auto* host = reinterpret_cast<std::uint64_t*>(static_cast<char*>(lent_.host) + at);
                const std::size_t size = static_cast<std::size_t>(r.rows) * row_bytes();
                rt_->queue.memcpy(host, board_row(r.y), size);
                ++packed_copies_;
                at += size;
                where.push_back(host);
            }
            rt_->sync("reading rows from the device");
        } catch (const sycl::exception& e) {
            throw_runtime(e, "reading rows from the device");
        }
        ready(where);
    }

    std::int64_t population() const override { return count_population(cur_, BitCells{}); }

    EngineDescription describe() const override {
        EngineDescription d = describe_device();
        d.wg_width = lw_;
        d.wg_height = strips_;
        d.cells_per_item = 32 * rows_;
        d.steps_per_launch = steps_;
        TileGeometry t;
        t.width = 32 * static_cast<std::int64_t>(lw_ - 2);
        t.height = static_cast<std::int64_t>(strips_) * rows_ - 2 * steps_;
        t.halo_x = 32;
        t.halo_y = steps_;
        t.text = "work-group " + std::to_string(lw_) + "x" + std::to_string(strips_) + " (words per local row x strips), " +
                 std::to_string(rows_) + " rows of 32 cells per work-item, " + std::to_string(steps_) +
                 " generations per launch; halo one word left and right, K rows above and below";
        d.tiles = t;
        d.device_bytes = static_cast<std::int64_t>(2 * 4 * pitch_ * static_cast<std::uint64_t>(h_));
        d.properties.emplace_back("neighbours", std::string(neighbours_ == Neighbours::sub_group ? "sub-group" : "local-memory"));
        d.properties.emplace_back("rule", std::string(rule_kernel(rule_) == kRuleLife         ? "B3/S23 matcher"
                                                      : rule_kernel(rule_) == kRuleMasks ? "run-time masks"
                                                                                          : "compiled in"));
        d.properties.emplace_back("local memory bytes per work-group", static_cast<std::int64_t>(local_bytes(strips_)));
        d.properties.emplace_back("tiles", static_cast<std::int64_t>(tiles_));
        // malloc_host is page-locked memory on a GPU; on a CPU device it is ordinary host memory.
        d.properties.emplace_back("row staging", std::string(rt_->info.is_gpu() ? "page-locked (sycl::malloc_host)"
                                                                                 : "sycl::malloc_host (host memory)"));
        d.properties.emplace_back("packed row copies", packed_copies_);
        d.autotune = autotune_candidates();
        return d;
    }

private:
    struct Span {
        std::int64_t first = 0, words = 0, band = 1;
        int offset = 0;
    };

    Span span(const Box& box) const {
        Span s;
        s.first = box.x / 32;
        s.words = (box.right() - 1) / 32 - s.first + 1;
        s.offset = static_cast<int>(box.x % 32);
        s.band = std::max<std::int64_t>(1, static_cast<std::int64_t>(kBandWords) / s.words);
        return s;
    }

    // Host memory from sycl::malloc_host (page-locked on a GPU: the device copies from and to it
    // directly, where pageable memory goes through the driver's own staging).
    struct Pinned {
        void* host = nullptr;
        std::size_t bytes = 0;
    };

    // `p` made at least `bytes` large (its contents are not kept).
    void grow(Pinned& p, std::size_t bytes) const {
        if (p.bytes >= bytes) return;
        if (p.host) sycl::free(p.host, rt_->queue);
        p = Pinned{};
        p.host = sycl::malloc_host(bytes, rt_->queue);
        if (!p.host)
            throw RuntimeError("SYCL: cannot allocate " + std::to_string(bytes) + " bytes of host staging for " + rt_->info.name);
        p.bytes = bytes;
    }

    // Free staging for a write of `bytes`: the next part of writing_, or all of it again once the
    // writes from it are done (an exchange's two edges fit together).
    void* write_slot(std::size_t bytes) {
        if (write_at_ + bytes > writing_.bytes) {
            sycl::event::wait(pending_writes_);
            pending_writes_.clear();
            write_at_ = 0;
            if (bytes > writing_.bytes) grow(writing_, 2 * bytes);
        }
        void* host = static_cast<char*>(writing_.host) + write_at_;
        write_at_ += bytes;
        return host;
    }

    // A row of the board in the packed layout (pitch_ is even: setup).
    std::size_t row_bytes() const { return static_cast<std::size_t>(pitch_) * 4; }
    std::uint32_t* board_row(std::int64_t y) const { return cur_ + static_cast<std::uint64_t>(y) * pitch_; }

    void ensure_staging(std::uint64_t words) const {
        if (staging_words_ >= words) return;
        if (staging_) sycl::free(staging_, rt_->queue);
        staging_ = sycl::malloc_device<std::uint32_t>(static_cast<std::size_t>(words), rt_->queue);
        staging_words_ = staging_ ? words : 0;
        if (!staging_) throw RuntimeError("SYCL: cannot allocate a staging buffer on " + rt_->info.name);
    }

    // Moves `rows` rows of the span between the host block and the board (whole rows in one copy).
    void transfer(bool write, const Span& s, std::int64_t y, std::int64_t rows, std::uint32_t* host) const {
        sycl::queue& q = rt_->queue;
        const auto words = static_cast<std::uint64_t>(s.words), nrows = static_cast<std::uint64_t>(rows);
        if (s.first == 0 && words == pitch_) {
            std::uint32_t* at = cur_ + static_cast<std::uint64_t>(y) * pitch_;
            if (write) q.memcpy(at, host, static_cast<std::size_t>(words * nrows * 4));
            else q.memcpy(host, at, static_cast<std::size_t>(words * nrows * 4));
        } else {
            ensure_staging(words * nrows);
            if (write) {
                q.memcpy(staging_, host, static_cast<std::size_t>(words * nrows * 4));
                put_words(q, staging_, words, nrows, cur_, pitch_, static_cast<std::uint64_t>(s.first),
                          static_cast<std::uint64_t>(y));
            } else {
                get_words(q, cur_, pitch_, static_cast<std::uint64_t>(s.first), static_cast<std::uint64_t>(y), words,
                          nrows, staging_);
                q.memcpy(host, staging_, static_cast<std::size_t>(words * nrows * 4));
            }
        }
        rt_->sync(write ? "writing cells to the device" : "reading cells from the device");
    }

    std::uint64_t local_bytes(int strips) const {
        const auto lw = static_cast<std::uint64_t>(lw_), s = static_cast<std::uint64_t>(strips);
        return neighbours_ == Neighbours::sub_group ? 4 * 4 * lw * s : 4 * lw * s * static_cast<std::uint64_t>(rows_);
    }

    std::vector<EngineOptions> autotune_candidates() const {
        std::vector<EngineOptions> out;
        for (const char* rows : {"16", "32"})
            for (int k : {8, 12, 16})
                for (auto [lw, strips] : {std::pair{32, 8}, {32, 4}, {16, 16}, {64, 4}}) {
                    if (static_cast<std::uint64_t>(lw) * strips > rt_->info.max_work_group_size) continue;
                    if (strips * std::stoi(rows) < 2 * k + 1) continue;
                    EngineOptions o;
                    o.device = device_spec_;
                    o.wg_width = lw;
                    o.wg_height = strips;
                    o.steps_per_launch = k;
                    o.params["rows"] = rows;
                    o.params["reduction"] = to_string(reduction_);
                    out.push_back(o);
                }
        return out;
    }

    // Can this device run the sub-group path for the chosen shape? Its sub-groups must be exactly
    // one strip: one sub-group size, equal to the words per local row.
    bool sub_group_fits() const {
        const auto& sizes = rt_->info.sub_group_sizes;
        return sizes.size() == 1 && sizes[0] == static_cast<std::size_t>(lw_) && (rows_ == 16 || rows_ == 32);
    }

    void setup(const EngineOptions& options) {
        const DeviceDescription& dev = rt_->info;
        const Shape preferred = default_shape(dev);
        const std::string rows = options.param("rows", "auto");
        rows_ = rows == "auto" ? preferred.rows : std::stoi(rows);
        steps_ = options.steps_per_launch > 0 ? options.steps_per_launch : preferred.steps;
        if (options.steps_per_launch < 0 || steps_ > kMaxSteps)
            throw InputError("sycl:bitpacked runs 1 to " + std::to_string(kMaxSteps) +
                             " steps per launch (the halo is one 32-cell word wide)");

        // The local copy needs at least one tile row between the two halos.
        const int min_strips = static_cast<int>(ceil_div(2 * static_cast<std::uint64_t>(steps_) + 1, rows_));
        const bool user = options.wg_width > 0 || options.wg_height > 0;
        if (user) {
            if (options.wg_width < 3 || options.wg_height < 1)
                throw InputError("sycl:bitpacked needs a work-group of at least 3x1 (words per local row including the two "
                                 "halo words, by strips of rows)");
            lw_ = options.wg_width;
            strips_ = options.wg_height;
            if (strips_ < min_strips)
                throw InputError("work-group " + std::to_string(lw_) + "x" + std::to_string(strips_) + " gives " +
                                 std::to_string(strips_ * rows_) + " local rows; " + std::to_string(steps_) +
                                 " steps per launch need at least " + std::to_string(2 * steps_ + 1) +
                                 " (use at least " + std::to_string(min_strips) + " strips)");
        } else {
            lw_ = preferred.lw;
            strips_ = std::max(preferred.strips, min_strips);
        }

        // Neighbour words: the sub-group path where the device's sub-groups are one strip wide
        // (measured faster on the H100, docs/sycl.md), else local memory.
        const std::string nb = options.param("neighbours", "auto");
        if (nb == "sub-group") {
            if (!sub_group_fits())
                throw InputError("sycl:bitpacked neighbours=sub-group needs sub-groups of exactly " + std::to_string(lw_) +
                                 " work-items (one strip) and rows 16 or 32; " + dev.name + " has sub-group sizes " +
                                 [&] {
                                     std::string t;
                                     for (std::size_t s : dev.sub_group_sizes) t += (t.empty() ? "" : ",") + std::to_string(s);
                                     return t;
                                 }());
            neighbours_ = Neighbours::sub_group;
        } else if (nb == "auto" && sub_group_fits()) {
            neighbours_ = Neighbours::sub_group;
        } else {
            neighbours_ = Neighbours::local_memory;
        }

        auto fits = [&](int strips) {
            return static_cast<std::uint64_t>(lw_) * strips <= dev.max_work_group_size && rt_->local_fits(local_bytes(strips));
        };
        if (!user)
            while (!fits(strips_) && strips_ / 2 >= min_strips) strips_ /= 2;
        if (!fits(strips_)) {
            const std::string why = "work-group " + std::to_string(lw_) + "x" + std::to_string(strips_) + " with " +
                                    std::to_string(rows_) + " rows per work-item needs " + std::to_string(lw_ * strips_) +
                                    " work-items and " + std::to_string(local_bytes(strips_)) + " bytes of local memory; " +
                                    dev.name + " allows " + std::to_string(dev.max_work_group_size) + " and " +
                                    (dev.local_mem_size ? std::to_string(dev.local_mem_size) : std::string("any"));
            if (user) throw InputError(why);
            throw RuntimeError("no work-group shape fits " + std::string(kName) + ": " + why);
        }
        kernel_ = pick(rows_, topology_ == Topology::torus, rule_kernel(rule_), neighbours_);
        if (!kernel_) throw std::logic_error("sycl:bitpacked: no kernel built for these rows");

        nwords_ = ceil_div(static_cast<std::uint64_t>(w_), 32);
        // An even number of 32-bit words per row (a padding word after an odd count, 0 for good):
        // a row is then whole 64-bit words, the packed rows' layout, and moves in one plain copy.
        pitch_ = nwords_ + (nwords_ & 1);
        const auto h = static_cast<std::uint64_t>(h_);
        check_allocation(4 * pitch_);
        const std::uint64_t tile_w = static_cast<std::uint64_t>(lw_ - 2);
        const std::uint64_t tile_h = static_cast<std::uint64_t>(strips_ * rows_ - 2 * steps_);
        groups_x_ = ceil_div(nwords_, tile_w);
        tiles_ = groups_x_ * ceil_div(h, tile_h);

        const std::size_t words = static_cast<std::size_t>(pitch_ * h);
        cur_ = sycl::malloc_device<std::uint32_t>(words, rt_->queue);
        next_ = sycl::malloc_device<std::uint32_t>(words, rt_->queue);
        if (!cur_ || !next_)
            throw RuntimeError("SYCL: cannot allocate two " + std::to_string((words * 4) >> 20) + " MiB board buffers on " +
                               dev.name);
        rt_->queue.memset(cur_, 0, words * 4);
        rt_->queue.memset(next_, 0, words * 4);
        population_ = std::make_unique<Population>(*rt_, pitch_ * h);
        rt_->sync("clearing the board");
    }

    // Launches of `steps_` generations, and a last, shorter one for the remainder.
    void launch(std::int64_t n, std::vector<sycl::event>* events) override {
        BitpackedArgs a;
        a.b = BitBoard{static_cast<std::uint64_t>(w_), static_cast<std::uint64_t>(h_), pitch_, nwords_};
        a.groups_x = groups_x_;
        a.halo = static_cast<std::uint32_t>(steps_);  // what the tile shape was made for
        a.lw = static_cast<std::uint32_t>(lw_);
        a.strips = static_cast<std::uint32_t>(strips_);
        for (int v = 0; v < 10; ++v) {
            a.born[v] = ((rule_.birth >> v) & 1u) ? ~0u : 0u;                 // dead, v live neighbours
            a.stays[v] = v >= 1 && ((rule_.survival >> (v - 1)) & 1u) ? ~0u : 0u;  // alive, v - 1 neighbours
        }
        run_launches(n, events, [&](std::int64_t remaining) {
            a.steps = static_cast<std::uint32_t>(std::min<std::int64_t>(steps_, remaining));
            sycl::event ev = kernel_(rt_->queue, cur_, next_, a, tiles_);
            std::swap(cur_, next_);
            return std::pair<sycl::event, std::int64_t>(ev, a.steps);
        });
    }

    Neighbours neighbours_ = Neighbours::local_memory;
    int lw_ = 0, strips_ = 0, rows_ = 0, steps_ = 0;
    std::uint64_t nwords_ = 0, pitch_ = 0, groups_x_ = 0, tiles_ = 0;
    Launch kernel_ = nullptr;
    std::uint32_t* cur_ = nullptr;
    std::uint32_t* next_ = nullptr;
    mutable std::uint32_t* staging_ = nullptr;
    mutable std::uint64_t staging_words_ = 0;
    // Packed rows: read_rows_packed's staging, step_reading_rows' (lent to its `ready` until the next
    // call), write_rows_packed's with the part in use and the writes from it still in flight, and the
    // copies made (describe(): whether a rank's exchange went through them).
    mutable Pinned bounce_;
    Pinned lent_;
    Pinned writing_;
    std::size_t write_at_ = 0;
    std::vector<sycl::event> pending_writes_;
    mutable std::int64_t packed_copies_ = 0;
};

}  // namespace

void register_bitpacked_engine() {
    EngineInfo info;
    info.name = kName;
    info.description =
        "SYCL: one bit per cell, bit-sliced counts, K generations per launch in local-memory tiles, neighbour "
        "words through sub-group shifts where they fit (twin of opencl:bitpacked; fastest)";
    info.default_for = {Topology::torus, Topology::plane, Topology::unbounded};
    info.parameters = {
        {"reduction",
         "population path: sycl::reduction, reduce_over_group, or the tutorial's local-memory tree (auto: the "
         "fastest measured on the device's kind)",
         reduction_choices(), 0, 0, "auto"},
        {"rows", "rows of 32 cells per work-item (compiled variants)", row_choices(), 0, 0, "32 on GPUs, 8 on CPUs"},
        {"neighbours",
         "how a word reaches the words beside it: local memory, or shift_group_left/right within a sub-group "
         "(needs sub-groups of exactly one local row of words, rows 16 or 32)",
         {"auto", "local-memory", "sub-group"}, 0, 0, "sub-group where it fits"},
    };
    register_engine(info, [](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
        return std::make_unique<BitpackedEngine>(board, options);
    });
}

}  // namespace tilelife::sycl_backend
