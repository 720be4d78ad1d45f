// opencl:bitpacked: the board lives on the device as bits (32 cells per word, row-major, two
// buffers swapped per launch); each launch advances up to K generations inside local-memory tiles.
// The host packs and unpacks bytes only in write_region/read_region. Tiles whose surroundings have
// settled are skipped (activity tracking, kernels/active_tile_list.cl, docs/bitpacked-opencl.md).
#include "opencl/bitpacked.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/bitpack.hpp"
#include "opencl/device_engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife::opencl {
namespace {

constexpr const char* kName = "opencl:bitpacked";
// The tile kernel's program: the board primitives, the tile kernel, the active-tile list and the scan
// it compacts with (wg_reduce.cl has the work-group indexing the scan uses).
const std::vector<std::string> kFiles = {"board.cl", "bitpacked_time_tile.cl", "wg_reduce.cl", "wg_scan.cl",
                                         "active_tile_list.cl"};
constexpr int kMaxSteps = 32;   // the halo is one 32-cell word left and right
constexpr int kMaxRows = 32;    // the kernel's row mask is one 32-bit word
constexpr std::uint64_t kBandWords = std::uint64_t{1} << 22;  // host staging per transfer (16 MiB)
// write_rows_packed stages writes up to this size in page-locked memory and returns before they are
// done (an exchange's ghost rows: 12 MiB on a 1048576-wide board); larger ones (loading a whole
// board) go directly and wait.
constexpr std::size_t kStagedWriteBytes = std::size_t{16} << 20;

// Activity tracking: off (every tile every launch, the engine as it was), on (skip settled tiles),
// automatic (on, but while nearly every tile is active it runs dense launches without the compare
// and looks again every kDensePhase launches).
enum class Activity { off, on, automatic };

const char* to_string(Activity a) { return a == Activity::off ? "off" : a == Activity::on ? "on" : "auto"; }

// Automatic mode: the share of active tiles above which tracking is suspended, how many launches a
// dense phase lasts, and how often (in launches that use the list) the list's length is read back (a
// 4-byte blocking read, which drains the queue once).
constexpr double kDenseShare = 0.875;
constexpr int kDensePhase = 32;
constexpr int kCheckEvery = 16;

// n cells -> ceil(n/32) words; bits past n are 0.
void pack_row(const std::uint8_t* cells, std::int64_t n, std::uint32_t* out) {
    for (std::int64_t k = 0; 32 * k < n; ++k)
        out[k] = static_cast<std::uint32_t>(bitpack::pack_cells(cells + 32 * k, static_cast<int>(std::min<std::int64_t>(32, n - 32 * k))));
}

void unpack_row(const std::uint32_t* words, std::int64_t n, std::uint8_t* cells) {
    for (std::int64_t k = 0; 32 * k < n; ++k)
        bitpack::unpack_cells(words[k], static_cast<int>(std::min<std::int64_t>(32, n - 32 * k)), cells + 32 * k);
}

// Bits in and out of word runs: core/bitpack.hpp (shared with the other bit-packed engine).
using bitpack::extract_bits32;
using bitpack::insert_bits32;

// A work-group of LW x S work-items (LW words per local row including the two halo words, S strips),
// ROWS rows per work-item, K generations per launch.
struct Shape {
    int lw = 0, strips = 0, rows = 0, steps = 0;
};

// What the engine prefers on a device before fitting it (autotuning sweeps around it).
Shape default_shape(const DeviceDescription& device) {
    // GPUs: a warp-wide local row (30 tile words), 8 x 32 = 256 local rows (NVIDIA's OpenCL allows
    // this kernel 256 work-items), 12 generations per launch (measured best on an H100).
    if (device.type == "GPU" && device.local_mem_dedicated) return {32, 8, 32, 12};
    // CPUs (PoCL) run a work-group as loops over its work-items: smaller groups, fewer steps.
    return {32, 4, 8, 4};
}

class BitpackedEngine final : public DeviceEngine {
public:
    BitpackedEngine(const BoardSpec& board, const EngineOptions& options) : DeviceEngine(kName, board, options) {
        const std::string a = options.param("activity", "auto");
        activity_ = a == "off" ? Activity::off : a == "on" ? Activity::on : Activity::automatic;
        guarded("creating " + name_ + " for a " + board_text() + " board", [&] { setup(options); });
    }

    ~BitpackedEngine() override {
        try {
            rt_->queue.finish();  // staged writes in flight read their staging
            for (Pinned* p : {&reading_, &writing_})
                if (p->host) side_.enqueueUnmapMemObject(p->buffer, p->host);
            if (side_()) side_.finish();
        } catch (const cl::Error&) {
        }
    }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        since_write_ = 0;  // the next two launches run every tile (see launch())
        const Span s = span(box);
        // Whole words from the region alone: no need to read what is there.
        const bool whole = s.offset == 0 && (box.right() % 32 == 0 || box.right() == w_);
        std::vector<std::uint32_t> buf, row(ceil_div(static_cast<std::uint64_t>(box.width), 32));
        guarded("writing cells to the device", [&] {
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
            if (box.y != 0 || box.height != h_ || s.words != static_cast<std::int64_t>(pitch_)) refresh_oclgrind_shadow();
        });
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        const Span s = span(box);
        std::vector<std::uint32_t> buf, row(ceil_div(static_cast<std::uint64_t>(box.width), 32));
        guarded("reading cells from the device", [&] {
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
        });
    }

    // The device's rows are 32-bit words, little-endian, so two of them are one 64-bit word of the
    // packed layout: rows move as they are, with one rectangular transfer (Engine::read_rows_packed).
    void read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        const std::size_t host_pitch = static_cast<std::size_t>(ceil_div(static_cast<std::uint64_t>(w_), 64)) * 8;
        guarded("reading rows from the device", [&] { rows_transfer(false, y, rows, words, host_pitch); });
        if (host_pitch != pitch_ * 4)  // an odd number of 32-bit words: the last half word is padding
            for (std::int64_t r = 0; r < rows; ++r) words[(r + 1) * static_cast<std::int64_t>(host_pitch / 8) - 1] &= 0xffffffffull;
    }

    void write_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words) override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        since_write_ = 0;  // as write_region: the next two launches run every tile
        const std::size_t host_pitch = static_cast<std::size_t>(ceil_div(static_cast<std::uint64_t>(w_), 64)) * 8;
        const std::size_t bytes = static_cast<std::size_t>(rows) * host_pitch;
        const bool oclgrind = rt_->info.platform_name.find("Oclgrind") != std::string::npos;
        guarded("writing rows to the device", [&] {
            // Addresses as integers: `words` is usually the caller's own memory, unrelated to the staging.
            const auto at = reinterpret_cast<std::uintptr_t>(words), from = reinterpret_cast<std::uintptr_t>(writing_.host);
            const bool staged = writing_.host && at >= from && at < from + writing_.bytes;
            if (staged || (bytes <= kStagedWriteBytes && !oclgrind)) {
                // Copied into page-locked staging (unless already there: write_staging) and sent without
                // waiting: the caller's next launches queue behind it (an exchange's ghost rows: the
                // device never waits for the host).
                void* host = const_cast<std::uint64_t*>(words);
                if (!staged) {
                    host = write_slot(bytes);
                    std::memcpy(host, words, bytes);
                }
                const std::array<std::size_t, 3> origin{0, static_cast<std::size_t>(y), 0};
                const std::array<std::size_t, 3> region{static_cast<std::size_t>(pitch_) * 4, static_cast<std::size_t>(rows), 1};
                std::vector<cl::Event>& pending = half_of(host).pending;
                pending.emplace_back();
                rt_->queue.enqueueWriteBufferRect(cur_, CL_FALSE, origin, {0, 0, 0}, region, static_cast<std::size_t>(pitch_) * 4,
                                                  0, host_pitch, 0, host, nullptr, &pending.back());
                return;
            }
            rows_transfer(true, y, rows, const_cast<std::uint64_t*>(words), host_pitch);
            if (y != 0 || rows != h_) refresh_oclgrind_shadow();
        });
    }

    // A part of write_rows_packed's staging (write_slot: free of writes in flight).
    std::uint64_t* write_staging(std::size_t words) override {
        if (words > 2 * kStagedWriteBytes / 8 || rt_->info.platform_name.find("Oclgrind") != std::string::npos) return nullptr;
        std::uint64_t* at = nullptr;
        guarded("staging rows", [&] { at = static_cast<std::uint64_t*>(write_slot(words * 8)); });
        return at;
    }

    // The last launch runs the tiles that the rows asked for need first, then the others; the rows are
    // read on a second queue as soon as their tiles are done, into page-locked staging mapped once,
    // while the other tiles compute (docs/distributed.md: the exchange's device reads overlap the step).
    void step_reading_rows(std::int64_t n, const std::vector<RowsRead>& reads,
                           const std::function<void(const std::vector<const std::uint64_t*>&)>& ready) override {
        for (const RowsRead& r : reads) check(Box{0, r.y, w_, r.rows});
        if (n <= 0 || reads.empty() || tiles_ > 0xffffffffull) {  // tile ids in the lists are 32-bit
            Engine::step_reading_rows(n, reads, ready);
            return;
        }
        const std::size_t host_pitch = static_cast<std::size_t>(ceil_div(static_cast<std::uint64_t>(w_), 64)) * 8;
        const auto tile_h = static_cast<std::uint64_t>(strips_ * rows_ - 2 * steps_);
        std::vector<const std::uint64_t*> where;
        guarded("running " + name_ + " and reading rows", [&] {
            // The tile ids (rows of tiles) that produce the rows asked for, merged.
            std::vector<std::pair<std::uint64_t, std::uint64_t>> rows_of_tiles;
            std::size_t bytes = 0;
            for (const RowsRead& r : reads) {
                if (r.rows == 0) continue;
                rows_of_tiles.emplace_back(static_cast<std::uint64_t>(r.y) / tile_h,
                                           static_cast<std::uint64_t>(r.y + r.rows - 1) / tile_h + 1);
                bytes += static_cast<std::size_t>(r.rows) * host_pitch;
            }
            std::sort(rows_of_tiles.begin(), rows_of_tiles.end());
            first_tiles_.clear();
            for (auto [a, b] : rows_of_tiles) {
                if (!first_tiles_.empty() && a * groups_x_ <= first_tiles_.back().second)
                    first_tiles_.back().second = std::max(first_tiles_.back().second, b * groups_x_);
                else
                    first_tiles_.emplace_back(a * groups_x_, b * groups_x_);
            }
            struct Clear {
                std::vector<std::pair<std::uint64_t, std::uint64_t>>& v;
                ~Clear() { v.clear(); }
            } clear{first_tiles_};
            if (first_tiles_.empty()) {
                launch(n, nullptr);
            } else {
                if (bytes > reading_.bytes) pin(reading_, bytes);
                if (first_tiles_ != split_for_) make_split_lists();
                launch(n, nullptr);  // sets first_done_
            }
            std::vector<cl::Event> done;
            const std::vector<cl::Event> after{first_done_};
            std::size_t at = 0;
            for (const RowsRead& r : reads) {
                if (r.rows == 0) {
                    where.push_back(r.words);
                    continue;
                }
                auto* host = reinterpret_cast<std::uint64_t*>(static_cast<char*>(reading_.host) + at);
                at += static_cast<std::size_t>(r.rows) * host_pitch;
                const std::array<std::size_t, 3> origin{0, static_cast<std::size_t>(r.y), 0};
                const std::array<std::size_t, 3> region{static_cast<std::size_t>(pitch_) * 4,
                                                        static_cast<std::size_t>(r.rows), 1};
                done.emplace_back();
                side_.enqueueReadBufferRect(cur_, CL_FALSE, origin, {0, 0, 0}, region, static_cast<std::size_t>(pitch_) * 4, 0,
                                            host_pitch, 0, host, &after, &done.back());
                where.push_back(host);
            }
            rt_->queue.flush();  // the other tiles start while the rows travel
            side_.flush();
            if (!done.empty()) cl::Event::waitForEvents(done);
            if (host_pitch != pitch_ * 4)  // the last half word of each row is padding
                for (std::size_t k = 0; k < reads.size(); ++k) {
                    if (reads[k].rows == 0) continue;
                    auto* w = const_cast<std::uint64_t*>(where[k]);
                    for (std::int64_t r = 0; r < reads[k].rows; ++r)
                        w[(r + 1) * static_cast<std::int64_t>(host_pitch / 8) - 1] &= 0xffffffffull;
                }
        });
        ready(where);
    }

private:
    // Page-locked host memory (CL_MEM_ALLOC_HOST_PTR, mapped once and kept mapped): the device copies
    // from and to it directly, where pageable memory goes through the driver's own staging.
    struct Pinned {
        cl::Buffer buffer;
        void* host = nullptr;
        std::size_t bytes = 0;
    };

    struct WriteHalf {
        std::size_t at = 0;
        std::vector<cl::Event> pending;
    };

    // `p` made at least `bytes` large (its contents are not kept).
    void pin(Pinned& p, std::size_t bytes) {
        if (!side_()) side_ = cl::CommandQueue(rt_->context, rt_->device);
        if (p.host) {
            side_.enqueueUnmapMemObject(p.buffer, p.host);
            side_.finish();
            p = Pinned{};
        }
        p.buffer = cl::Buffer(rt_->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
        p.host = side_.enqueueMapBuffer(p.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
        p.bytes = bytes;
    }

    // Free staging for a write of `bytes`. writing_ is two halves used in turn: when the current one
    // is full, the other is taken once the writes from it are done. Those were queued a round (an
    // exchange) earlier, behind launches that have run since, so the host does not wait here; with
    // one part reused at once it waited for the last round's writes, queued behind the last launch
    // (no difference measured on H200s, docs/distributed.md; the wait is gone all the same).
    void* write_slot(std::size_t bytes) {
        WriteHalf* h = &halves_[half_];
        if (h->at + bytes > writing_.bytes / 2) {
            if (bytes > writing_.bytes / 2) {
                for (WriteHalf& x : halves_) {
                    if (!x.pending.empty()) cl::Event::waitForEvents(x.pending);
                    x = WriteHalf{};
                }
                pin(writing_, 2 * bytes);
                half_ = 0;
            } else {
                half_ ^= 1;
                if (!halves_[half_].pending.empty()) cl::Event::waitForEvents(halves_[half_].pending);
                halves_[half_] = WriteHalf{};
            }
            h = &halves_[half_];
        }
        void* host = static_cast<char*>(writing_.host) + static_cast<std::size_t>(half_) * (writing_.bytes / 2) + h->at;
        h->at += bytes;
        return host;
    }

    // The half of writing_ that holds `host` (an address from write_slot).
    WriteHalf& half_of(const void* host) {
        const auto offset = static_cast<std::size_t>(static_cast<const char*>(host) - static_cast<const char*>(writing_.host));
        return halves_[offset < writing_.bytes / 2 ? 0 : 1];
    }

    // The tile lists of a split launch: the tiles of first_tiles_, and the others (the kernel runs a
    // list with one work-group per tile when launched with as many groups as the list holds, as
    // fast as the dense launch; the kernel itself is unchanged: a tile range argument cost the H200
    // a fifth of its speed, docs/distributed.md).
    void make_split_lists() {
        std::vector<cl_uint> first, rest;
        std::uint64_t from = 0;
        for (auto [a, b] : first_tiles_) {
            for (std::uint64_t t = from; t < a; ++t) rest.push_back(static_cast<cl_uint>(t));
            for (std::uint64_t t = a; t < b; ++t) first.push_back(static_cast<cl_uint>(t));
            from = b;
        }
        for (std::uint64_t t = from; t < tiles_; ++t) rest.push_back(static_cast<cl_uint>(t));
        split_first_n_ = first.size();
        split_rest_n_ = rest.size();
        const std::array<cl_uint, 2> counts{static_cast<cl_uint>(first.size()), static_cast<cl_uint>(rest.size())};
        auto buffer = [&](const void* data, std::size_t bytes) {
            return cl::Buffer(rt_->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(bytes, 4),
                              const_cast<void*>(bytes ? data : counts.data()));
        };
        split_first_ = buffer(first.data(), first.size() * sizeof(cl_uint));
        split_rest_ = buffer(rest.data(), rest.size() * sizeof(cl_uint));
        split_counts_ = buffer(counts.data(), sizeof counts);
        split_for_ = first_tiles_;
    }

    // One launch of the kernel over a split list (slot 0: the first tiles, 1: the others).
    void enqueue_split(cl_uint slot, std::vector<cl::Event>* events, cl::Event* out) {
        const std::size_t n = slot == 0 ? split_first_n_ : split_rest_n_;
        if (n == 0) return;
        kernel_.setArg(11, slot == 0 ? split_first_ : split_rest_);
        kernel_.setArg(13, slot);
        cl::Event ev;
        rt_->queue.enqueueNDRangeKernel(kernel_, cl::NullRange,
                                        cl::NDRange(n * static_cast<std::size_t>(lw_), static_cast<std::size_t>(strips_)),
                                        local_, nullptr, events || out ? &ev : nullptr);
        if (events) events->push_back(ev);
        if (out) *out = ev;
    }

    // The words a box touches: first word, count, bit offset of box.x in the first, rows per band.
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

    // Oclgrind 21.10 replaces a buffer's whole uninitialised-value shadow by one of the size of any host
    // write, so after a write of part of the board the rest (and, at an offset, the part) read as
    // uninitialised (an unbounded board copying rows into its grown engine was reported). Under
    // Oclgrind the board is then written back whole, which gives it a true, clean shadow.
    void refresh_oclgrind_shadow() const {
        if (rt_->info.platform_name.find("Oclgrind") == std::string::npos) return;
        std::vector<std::uint32_t> all(static_cast<std::size_t>(pitch_ * static_cast<std::uint64_t>(h_)));
        if (all.empty()) return;
        rt_->queue.enqueueReadBuffer(cur_, CL_TRUE, 0, all.size() * 4, all.data());
        rt_->queue.enqueueWriteBuffer(cur_, CL_TRUE, 0, all.size() * 4, all.data());
    }

    // Whole rows [y, y + rows) between the board and host rows `host_pitch` bytes apart (blocking).
    void rows_transfer(bool write, std::int64_t y, std::int64_t rows, void* host, std::size_t host_pitch) const {
        const std::size_t pitch = static_cast<std::size_t>(pitch_) * 4;
        if (host_pitch == pitch) {
            const std::size_t offset = static_cast<std::size_t>(y) * pitch, bytes = static_cast<std::size_t>(rows) * pitch;
            if (write) rt_->queue.enqueueWriteBuffer(cur_, CL_TRUE, offset, bytes, host);
            else rt_->queue.enqueueReadBuffer(cur_, CL_TRUE, offset, bytes, host);
            return;
        }
        const std::array<std::size_t, 3> origin{0, static_cast<std::size_t>(y), 0};
        const std::array<std::size_t, 3> region{pitch, static_cast<std::size_t>(rows), 1};
        if (write)
            rt_->queue.enqueueWriteBufferRect(cur_, CL_TRUE, origin, {0, 0, 0}, region, pitch, 0, host_pitch, 0, host);
        else
            rt_->queue.enqueueReadBufferRect(cur_, CL_TRUE, origin, {0, 0, 0}, region, pitch, 0, host_pitch, 0, host);
    }

    void transfer(bool write, const Span& s, std::int64_t y, std::int64_t rows, std::uint32_t* host) const {
        if (s.first == 0 && static_cast<std::uint64_t>(s.words) == pitch_) {
            // Whole rows are one contiguous range: a plain transfer (Oclgrind also tracks these exactly).
            const std::size_t offset = static_cast<std::size_t>(y) * pitch_ * 4;
            const std::size_t bytes = static_cast<std::size_t>(rows) * pitch_ * 4;
            if (write) rt_->queue.enqueueWriteBuffer(cur_, CL_TRUE, offset, bytes, host);
            else rt_->queue.enqueueReadBuffer(cur_, CL_TRUE, offset, bytes, host);
            return;
        }
        const std::array<std::size_t, 3> origin{static_cast<std::size_t>(s.first) * 4, static_cast<std::size_t>(y), 0};
        const std::array<std::size_t, 3> region{static_cast<std::size_t>(s.words) * 4, static_cast<std::size_t>(rows), 1};
        const std::size_t pitch = static_cast<std::size_t>(pitch_) * 4, host_pitch = static_cast<std::size_t>(s.words) * 4;
        if (write)
            rt_->queue.enqueueWriteBufferRect(cur_, CL_TRUE, origin, {0, 0, 0}, region, pitch, 0, host_pitch, 0, host);
        else
            rt_->queue.enqueueReadBufferRect(cur_, CL_TRUE, origin, {0, 0, 0}, region, pitch, 0, host_pitch, 0, host);
    }

    std::string options_for(int lw) const {
        std::ostringstream o;
        o << "-DTORUS=" << (topology_ == Topology::torus ? 1 : 0) << " -DLW=" << lw << " -DROWS=" << rows_
          << " -DBIRTH=0x" << std::hex << rule_.birth << "u -DSURVIVAL=0x" << rule_.survival << std::dec
          << "u -DLIFE=" << (rule_ == Rule::life() ? 1 : 0);
        // Oclgrind's optimiser turns the word shifts into llvm.fshl, which its interpreter lacks.
        if (rt_->info.platform_name.find("Oclgrind") != std::string::npos) o << " -cl-opt-disable";
        return o.str();
    }

    std::uint64_t dynamic_local(int lw, int strips) const { return 4ull * lw * static_cast<std::uint64_t>(strips) * rows_; }

    // The work-group: the one asked for, else the device's preferred shape, made to fit: strips
    // halved down to what K needs, then local rows of fewer words (each shape must fit the device's
    // and the built kernel's work-group size and local memory, its own __local variables included).
    void choose_shape(const EngineOptions& options, const Shape& preferred) {
        const DeviceDescription& dev = rt_->info;
        // The local copy needs at least one tile row between the two halos.
        const int min_strips = static_cast<int>(ceil_div(2 * static_cast<std::uint64_t>(steps_) + 1, rows_));
        std::vector<std::pair<int, int>> shapes;
        const bool user = options.wg_width > 0 || options.wg_height > 0;
        if (user) {
            if (options.wg_width < 3 || options.wg_height < 1)
                throw InputError(name_ + " needs a work-group of at least 3x1 (words per local row including the "
                                         "two halo words, by strips of rows)");
            if (options.wg_height < min_strips)
                throw InputError("work-group " + std::to_string(options.wg_width) + "x" +
                                 std::to_string(options.wg_height) + " gives " +
                                 std::to_string(options.wg_height * rows_) + " local rows; " + std::to_string(steps_) +
                                 " steps per launch need at least " + std::to_string(2 * steps_ + 1) +
                                 " (at least " + std::to_string(min_strips) + " strips of " + std::to_string(rows_) +
                                 " rows)");
            shapes.emplace_back(options.wg_width, options.wg_height);
        } else {
            // The same shape for every board size: devices that compile per work-group size (PoCL)
            // then build few variants while the unbounded board re-creates the engine.
            for (int lw = preferred.lw; lw >= 4; lw /= 2)
                for (int strips = std::max(preferred.strips, min_strips);; strips = std::max(strips / 2, min_strips)) {
                    shapes.emplace_back(lw, strips);
                    if (strips == min_strips) break;
                }
        }
        std::string why;
        for (auto [lw, strips] : shapes) {
            if (static_cast<std::uint64_t>(lw) * strips > dev.max_work_group_size ||
                dynamic_local(lw, strips) > dev.local_mem_size) {
                why = "work-group " + std::to_string(lw) + "x" + std::to_string(strips) + " with " +
                      std::to_string(rows_) + " rows per work-item is " + std::to_string(lw * strips) +
                      " work-items and " + std::to_string(dynamic_local(lw, strips)) + " bytes of local memory; " +
                      dev.name + " allows " + std::to_string(dev.max_work_group_size) + " and " +
                      std::to_string(dev.local_mem_size);
                continue;  // no need to build the program to know
            }
            const std::string opts = options_for(lw);
            cl::Program program = program_for(*rt_, kFiles, opts);
            cl::Kernel k(program, "life_bitpacked_time_tile");
            if (auto reason = misfit(*rt_, k, name_, static_cast<std::size_t>(lw), static_cast<std::size_t>(strips),
                                     dynamic_local(lw, strips))) {
                why = *reason + " (" + std::to_string(rows_) + " rows per work-item)";
                continue;
            }
            program_ = program;
            kernel_ = k;
            lw_ = lw;
            strips_ = strips;
            build_options_ = opts;
            local_bytes_ = static_local_bytes(*rt_, k) + dynamic_local(lw, strips);
            return;
        }
        if (user) throw InputError(why);
        throw RuntimeError("no work-group shape fits " + name_ + " on " + dev.name + ": " + why);
    }

    void setup(const EngineOptions& options) {
        const DeviceDescription& dev = rt_->info;
        const Shape preferred = default_shape(dev);
        rows_ = static_cast<int>(options.param_int("rows", preferred.rows));
        steps_ = options.steps_per_launch > 0 ? options.steps_per_launch : preferred.steps;
        if (options.steps_per_launch < 0 || steps_ > kMaxSteps)
            throw InputError(name_ + " runs 1 to " + std::to_string(kMaxSteps) +
                             " steps per launch (the halo is one 32-cell word wide)");
        choose_shape(options, preferred);

        nwords_ = static_cast<std::uint64_t>(ceil_div(static_cast<std::uint64_t>(w_), 32));
        pitch_ = nwords_;
        const auto h = static_cast<std::uint64_t>(h_);
        check_buffer(h, pitch_ * 4);

        const std::uint64_t tile_w = static_cast<std::uint64_t>(lw_ - 2);
        const std::uint64_t tile_h = static_cast<std::uint64_t>(strips_ * rows_ - 2 * steps_);
        groups_x_ = ceil_div(nwords_, tile_w);
        groups_y_ = ceil_div(h, tile_h);
        const std::uint64_t groups = groups_x_ * groups_y_;
        global_ = cl::NDRange(static_cast<std::size_t>(groups * lw_), static_cast<std::size_t>(strips_));
        local_ = cl::NDRange(static_cast<std::size_t>(lw_), static_cast<std::size_t>(strips_));
        tiles_ = groups;
        // Launches from the list: a few groups per compute unit loop over it (an empty list then costs
        // a few early exits; each group of this kernel holds many registers, so few are resident).
        const std::uint64_t looping = std::min<std::uint64_t>(groups, 8ull * std::max(1u, dev.compute_units));
        list_grid_ = cl::NDRange(static_cast<std::size_t>(looping * lw_), static_cast<std::size_t>(strips_));
        if (tiles_ > 0xffffffffull) activity_ = Activity::off;  // tile ids in the list are 32-bit

        // The active-tile list: one work-item per tile, a uint of local memory each for the scan.
        list_kernel_ = cl::Kernel(program_, "bitpacked_active_tiles");
        const std::size_t list_wg = local_group_size_for(*rt_, list_kernel_, 256, sizeof(cl_uint));
        list_global_ = cl::NDRange(static_cast<std::size_t>(ceil_div(tiles_, list_wg) * list_wg));
        list_local_ = cl::NDRange(list_wg);

        // Stamps and list are small next to the board (one word per tile), so made even when tracking is off.
        const std::uint64_t words = pitch_ * h;
        allocate_cleared({{&cur_, words}, {&next_, words}, {&stamps_, tiles_}, {&list_, tiles_}, {&counts_, 2}});
        kernel_.setArg(2, static_cast<cl_ulong>(w_));
        kernel_.setArg(3, static_cast<cl_ulong>(h_));
        kernel_.setArg(4, static_cast<cl_ulong>(pitch_));
        kernel_.setArg(5, static_cast<cl_ulong>(nwords_));
        kernel_.setArg(6, static_cast<cl_ulong>(groups_x_));
        kernel_.setArg(8, static_cast<cl_uint>(steps_));  // the halo: what the tile shape was made for
        kernel_.setArg(9, cl::Local(static_cast<std::size_t>(dynamic_local(lw_, strips_))));
        kernel_.setArg(10, stamps_);
        kernel_.setArg(11, list_);
        kernel_.setArg(12, counts_);

        list_kernel_.setArg(0, stamps_);
        list_kernel_.setArg(2, static_cast<cl_ulong>(w_));
        list_kernel_.setArg(3, static_cast<cl_ulong>(h_));
        list_kernel_.setArg(4, static_cast<cl_ulong>(32 * tile_w));
        list_kernel_.setArg(5, static_cast<cl_ulong>(tile_h));
        list_kernel_.setArg(6, static_cast<cl_ulong>(groups_x_));
        list_kernel_.setArg(7, static_cast<cl_ulong>(groups_y_));
        list_kernel_.setArg(9, list_);
        list_kernel_.setArg(10, counts_);
        list_kernel_.setArg(12, cl::Local(list_wg * sizeof(cl_uint)));
        setup_population(pitch_ * h);
    }

    // Launches of `steps_` generations, and a last, shorter one for the remainder.
    //
    // Activity tracking. Launch t+1 writes into the buffer that holds the board of launch t-1, and a
    // tile it skips keeps that content. That is exact when the tile's output would be the same: launch
    // t-1 ran the same number of generations k from the board of launch t-2, and the cells within k of
    // the tile were equal after launches t and t-2 (F^k of equal neighbourhoods is equal). Launch t
    // records the second condition per tile (compare: a stamp where its new words differ from those of
    // launch t-2, which it overwrites); a skipped tile kept them, so it never needs a stamp. Period-2
    // ash thus sleeps for any K, as does anything whose period divides 2K. The list is used only when
    // launch t compared, launch t-1 ran as many generations as this one, and no write_region came after
    // launch t-1 began (a write changes the board that launch t's stamps or the skipped tiles rely on).
    void launch(std::int64_t n, std::vector<cl::Event>* events) override {
        for (std::int64_t done = 0, count = 0; done < n; ++count) {
            const auto steps = static_cast<cl_uint>(std::min<std::int64_t>(steps_, n - done));
            bool compare = activity_ == Activity::on || (activity_ == Activity::automatic && !dense_);
            // The last launch of step_reading_rows runs every tile, in two parts (see there).
            const bool split = !first_tiles_.empty() && done + steps >= n;
            const bool use_list = !split && activity_ != Activity::off && prev_compared_ && since_write_ >= 2 &&
                                  steps == prev2_steps_;
            if (use_list) {
                list_kernel_.setArg(1, launch_id_);  // the previous launch's stamp
                list_kernel_.setArg(8, steps);       // what this launch's tiles depend on
                list_kernel_.setArg(11, slot_);
                cl::Event lev;
                rt_->queue.enqueueNDRangeKernel(list_kernel_, cl::NullRange, list_global_, list_local_, nullptr,
                                                events ? &lev : nullptr);
                if (events) events->push_back(lev);
                if (activity_ == Activity::automatic && --check_in_ <= 0) {
                    check_in_ = kCheckEvery;
                    cl_uint active = 0;
                    rt_->queue.enqueueReadBuffer(counts_, CL_TRUE, slot_ * sizeof(cl_uint), sizeof(cl_uint), &active);
                    if (static_cast<double>(active) > kDenseShare * static_cast<double>(tiles_)) {
                        dense_ = true;
                        phase_left_ = kDensePhase;
                        compare = false;
                    }
                }
            }
            ++launch_id_;
            kernel_.setArg(0, cur_);
            kernel_.setArg(1, next_);
            kernel_.setArg(7, steps);
            kernel_.setArg(13, slot_);
            kernel_.setArg(14, static_cast<cl_uint>(use_list));
            kernel_.setArg(15, static_cast<cl_uint>(compare));
            kernel_.setArg(16, launch_id_);
            if (split) {
                // step_reading_rows: the tiles of the rows it reads, then the rest, each from its list.
                kernel_.setArg(12, split_counts_);
                kernel_.setArg(14, cl_uint{1});
                enqueue_split(0, events, &first_done_);
                enqueue_split(1, events, nullptr);
                kernel_.setArg(11, list_);
                kernel_.setArg(12, counts_);
            } else {
                cl::Event ev;
                rt_->queue.enqueueNDRangeKernel(kernel_, cl::NullRange, use_list ? list_grid_ : global_, local_,
                                                nullptr, events ? &ev : nullptr);
                if (events) events->push_back(ev);
            }
            std::swap(cur_, next_);
            if (use_list) slot_ ^= 1u;  // the list kernel cleared the other slot for the next list
            last_listed_ = use_list;
            ++launches_;
            listed_launches_ += use_list;
            prev2_steps_ = prev_steps_;
            prev_steps_ = steps;
            prev_compared_ = compare;
            since_write_ = std::min(since_write_ + 1, 2);
            if (dense_ && !compare && --phase_left_ <= 0) {
                dense_ = false;  // compare again; the launch after next reads the list's length
                check_in_ = 1;
            }
            done += steps;
            generation_ += steps;
            if (count % 256 == 255) rt_->queue.finish();  // bound the commands in flight
        }
    }

    const cl::Buffer& board_words() const override { return cur_; }

    void describe_engine(EngineDescription& d) const override {
        d.wg_width = lw_;
        d.wg_height = strips_;
        d.cells_per_item = 32 * rows_;
        d.steps_per_launch = steps_;
        // Tile g covers words gx*(LW-2) .. and rows gy*(S*ROWS-2K) ..: its local copy adds one word
        // left and right and K rows (the halo the shape was made for) above and below.
        d.tiles = TileGeometry{32 * (lw_ - 2),
                               strips_ * rows_ - 2 * steps_,
                               32,
                               steps_,
                               {},
                               "work-group " + std::to_string(lw_) + "x" + std::to_string(strips_) + ": " +
                                   std::to_string(lw_) + " words (32 cells each) per local row, halo word included, by " +
                                   std::to_string(strips_) + " strips of " + std::to_string(rows_) + " rows; " +
                                   std::to_string(steps_) + " generations per launch, " + std::to_string(steps_) +
                                   "-row halo"};
        d.device_bytes = static_cast<std::int64_t>(2 * pitch_ * static_cast<std::uint64_t>(h_) * 4 + 2 * tiles_ * 4 +
                                                   2 * sizeof(cl_uint));
        d.properties.emplace_back("rows", std::int64_t{rows_});
        d.properties.emplace_back("activity", std::string(to_string(activity_)));
        d.properties.emplace_back("tiles", static_cast<std::int64_t>(tiles_));
        d.properties.emplace_back("tiles-last-launch", static_cast<std::int64_t>(tiles_last_launch()));
        d.properties.emplace_back("launches", launches_);
        d.properties.emplace_back("listed-launches", listed_launches_);
        d.properties.emplace_back("local-bytes", static_cast<std::int64_t>(local_bytes_));
        d.properties.emplace_back("global-size", std::to_string(global_[0]) + "x" + std::to_string(global_[1]));
        d.properties.emplace_back("local-size", std::to_string(local_[0]) + "x" + std::to_string(local_[1]));
        d.properties.emplace_back("build-options", build_options_);
        const std::string log = build_log(*rt_, kFiles, build_options_);
        if (!log.empty()) d.properties.emplace_back("build-log", log);
        d.autotune = autotune();
    }

    // How many tiles the last launch ran: all of them unless it ran from the active-tile list.
    std::uint64_t tiles_last_launch() const {
        if (!last_listed_) return launches_ ? tiles_ : 0;
        cl_uint n = 0;
        guarded("reading the active-tile count", [&] {
            rt_->queue.enqueueReadBuffer(counts_, CL_TRUE, (slot_ ^ 1u) * sizeof(cl_uint), sizeof(cl_uint), &n);
        });
        return n;
    }

    // Work-groups LW x S, rows per work-item and generations per launch that autotuning tries on this
    // device (K trades halo work against global traffic, docs/bitpacked-opencl.md): on GPUs tall local
    // copies around the H100's best, on CPUs small ones around the default; only shapes whose
    // work-items and local copy the device allows and whose copy holds 2K+1 rows.
    std::vector<EngineOptions> autotune() const {
        const DeviceDescription& dev = rt_->info;
        const bool gpu = dev.type == "GPU" && dev.local_mem_dedicated;
        const std::vector<std::pair<int, int>> shapes =
            gpu ? std::vector<std::pair<int, int>>{{32, 8}, {32, 4}, {16, 16}, {64, 4}}
                : std::vector<std::pair<int, int>>{{32, 4}, {16, 8}, {32, 8}, {64, 2}};
        const std::vector<int> rows = gpu ? std::vector<int>{16, 32} : std::vector<int>{8, 16};
        const std::vector<int> steps = gpu ? std::vector<int>{8, 12, 16} : std::vector<int>{2, 4, 8};
        std::vector<EngineOptions> out;
        for (int r : rows)
            for (int k : steps)
                for (auto [lw, strips] : shapes) {
                    if (static_cast<std::uint64_t>(lw) * strips > dev.max_work_group_size ||
                        4ull * lw * strips * r > dev.local_mem_size || strips * r < 2 * k + 1)
                        continue;
                    EngineOptions o = with_shape(options_, lw, strips);
                    o.steps_per_launch = k;
                    o.params["rows"] = std::to_string(r);
                    out.push_back(std::move(o));
                }
        return out;
    }

    int lw_ = 0, strips_ = 0, rows_ = 0, steps_ = 0;
    std::uint64_t nwords_ = 0, pitch_ = 0, groups_x_ = 0, groups_y_ = 0, tiles_ = 0;
    std::string build_options_;
    std::uint64_t local_bytes_ = 0;
    cl::Program program_;
    cl::Kernel kernel_;
    cl::NDRange global_, local_;
    cl::Buffer cur_, next_;

    // Activity tracking (launch()): stamps per tile, the list of tiles to run and its length in
    // counts_[slot_] (two slots, alternating), and what the next launch must know about the last two.
    Activity activity_ = Activity::automatic;
    cl::Kernel list_kernel_;
    cl::NDRange list_global_, list_local_, list_grid_;
    cl::Buffer stamps_, list_, counts_;
    cl_uint launch_id_ = 0, slot_ = 0, prev_steps_ = 0, prev2_steps_ = 0;
    bool prev_compared_ = false;
    int since_write_ = 0;  // launches enqueued since the last write_region, up to 2
    bool dense_ = false;   // automatic: in a dense phase (no compare, every tile)
    int phase_left_ = 0, check_in_ = 1;
    bool last_listed_ = false;
    std::int64_t launches_ = 0, listed_launches_ = 0;

    // step_reading_rows: tile ids [a, b) the last launch runs first, the event of the last of them,
    // the second queue and the page-locked staging.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> first_tiles_, split_for_;
    cl::Buffer split_first_, split_rest_, split_counts_;  // made for split_for_
    std::size_t split_first_n_ = 0, split_rest_n_ = 0;
    cl::Event first_done_;
    cl::CommandQueue side_;
    Pinned reading_;
    // write_rows_packed: its staging (two halves, write_slot), the half in use and, per half, the
    // part used and the writes from it still in flight.
    Pinned writing_;
    WriteHalf halves_[2];
    int half_ = 0;
};

}  // namespace

void register_bitpacked_engine() {
    EngineInfo info;
    info.name = kName;
    info.description =
        "OpenCL: one bit per cell, bit-sliced counts, K generations per launch in local-memory tiles, settled tiles "
        "skipped (fastest)";
    info.default_for = {Topology::torus, Topology::plane, Topology::unbounded};
    info.parameters = {
        rows_parameter(kMaxRows, "8 on CPUs, 32 on GPUs"),
        {"activity",
         "skip tiles whose neighbourhood has settled (auto: skip, but run dense phases without the bookkeeping while "
         "nearly every tile is active)",
         {"auto", "on", "off"},
         0,
         0,
         "auto"},
        reduction_parameter(),
    };
    // The budget prices the board's two buffers of packed words (on the device, which is what bounds
    // how far an unbounded board may grow there; the host holds at most one band of them at a time).
    info.host_bytes = [](const BoardSpec& spec, const EngineOptions&) -> std::int64_t {
        const auto words = ceil_div(static_cast<std::uint64_t>(std::max<std::int64_t>(spec.width, 1)), 32);
        const auto h = static_cast<std::uint64_t>(std::max<std::int64_t>(spec.height, 1));
        if (h > (std::uint64_t{1} << 60) / words) return INT64_MAX;
        return static_cast<std::int64_t>(2 * 4 * words * h);
    };
    register_engine(info, [](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
        return std::make_unique<BitpackedEngine>(board, options);
    });
}

}  // namespace tilelife::opencl
