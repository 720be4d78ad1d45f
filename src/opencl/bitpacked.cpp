// opencl:bitpacked: the board lives on the device as bits (32 cells per word, row-major, two
// buffers swapped per launch); each launch advances up to K generations inside local-memory tiles.
// The host packs and unpacks bytes only in write_region/read_region. Tiles whose surroundings have
// settled are skipped (activity tracking, kernels/active_tile_list.cl, docs/bitpacked-opencl.md).
#include "opencl/bitpacked.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
#include <vector>

#include "opencl/runtime.hpp"
#include "tilelife/error.hpp"

namespace tilelife::opencl {
namespace {

static_assert(std::endian::native == std::endian::little, "cell packing assumes a little-endian host");

constexpr const char* kName = "opencl:bitpacked";
constexpr const char* kFile = "bitpacked_time_tile.cl";
constexpr const char* kListFile = "active_tile_list.cl";
constexpr int kMaxSteps = 32;   // the halo is one 32-cell word left and right
constexpr int kMaxRows = 32;    // the kernel's row mask is one 32-bit word
constexpr std::uint64_t kBandWords = std::uint64_t{1} << 22;  // host staging per transfer (16 MiB)

std::uint64_t ceil_div(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m; }

// Activity tracking: off (every tile every launch, the engine as it was), on (skip settled tiles),
// automatic (on, but while nearly every tile is active it runs dense launches without the compare
// and looks again every kDensePhase launches).
enum class Activity { off, on, automatic };

Activity activity_from_env() {
    const char* v = std::getenv("TILELIFE_OPENCL_ACTIVITY");
    if (!v || !*v) return Activity::automatic;
    const std::string_view s(v);
    if (s == "0" || s == "off") return Activity::off;
    if (s == "1" || s == "on") return Activity::on;
    if (s == "auto") return Activity::automatic;
    throw InputError("TILELIFE_OPENCL_ACTIVITY='" + std::string(s) + "' must be 0/off, 1/on or auto");
}

// Automatic mode: the share of active tiles above which tracking is suspended, how many launches a
// dense phase lasts, and how often (in launches that use the list) the list's length is read back (a
// 4-byte blocking read, which drains the queue once).
constexpr double kDenseShare = 0.875;
constexpr int kDensePhase = 32;
constexpr int kCheckEvery = 16;

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

// Replaces bits [o, o + n) of the word run `dst` with the first n bits of `src` (0 <= o < 32).
void insert_bits(std::uint32_t* dst, int o, const std::uint32_t* src, std::int64_t n) {
    for (std::int64_t k = 0; 32 * k < n; ++k) {
        const std::int64_t count = std::min<std::int64_t>(32, n - 32 * k);
        const std::uint32_t m = count == 32 ? ~0u : (1u << count) - 1u;
        const std::uint32_t v = src[k] & m;
        dst[k] = (dst[k] & ~(m << o)) | (v << o);
        if (o != 0 && o + count > 32) dst[k + 1] = (dst[k + 1] & ~(m >> (32 - o))) | (v >> (32 - o));
    }
}

// The n bits starting at bit o of the word run `src` (nsrc words), as words starting at bit 0.
void extract_bits(const std::uint32_t* src, std::int64_t nsrc, int o, std::int64_t n, std::uint32_t* out) {
    for (std::int64_t k = 0; 32 * k < n; ++k) {
        std::uint32_t v = src[k] >> o;
        if (o != 0 && k + 1 < nsrc) v |= src[k + 1] << (32 - o);
        out[k] = v;
    }
}

class BitpackedEngine final : public Engine {
public:
    BitpackedEngine(const BoardSpec& board, const EngineOptions& options)
        : w_(board.width), h_(board.height), topology_(board.topology), rule_(board.rule) {
        if (topology_ == Topology::unbounded)
            throw std::logic_error("opencl engines are bounded; unbounded boards come from make_unbounded");
        rt_ = runtime_for(options.device);
        try {
            setup(options);
        } catch (const cl::Error& e) {
            throw_runtime(e, std::string("creating ") + kName + " for a " + std::to_string(w_) + "x" +
                                 std::to_string(h_) + " board");
        }
    }

    std::string name() const override { return kName; }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        since_write_ = 0;  // the next two launches run every tile (see launch())
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
                        insert_bits(out, s.offset, row.data(), box.width);
                    }
                }
                transfer(true, s, box.y + y, rows, buf.data());
            }
        } catch (const cl::Error& e) {
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
                        extract_bits(in, s.words, s.offset, box.width, row.data());
                        in = row.data();
                    }
                    unpack_row(in, box.width, cells + (y + r) * box.width);
                }
            }
        } catch (const cl::Error& e) {
            throw_runtime(e, "reading cells from the device");
        }
    }

    // The device's rows are 32-bit words, little-endian, so two of them are one 64-bit word of the
    // packed layout: rows move as they are, with one rectangular transfer (Engine::read_rows_packed).
    void read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        const std::size_t host_pitch = static_cast<std::size_t>(ceil_div(static_cast<std::uint64_t>(w_), 64)) * 8;
        try {
            rows_transfer(false, y, rows, words, host_pitch);
        } catch (const cl::Error& e) {
            throw_runtime(e, "reading rows from the device");
        }
        if (host_pitch != pitch_ * 4)  // an odd number of 32-bit words: the last half word is padding
            for (std::int64_t r = 0; r < rows; ++r) words[(r + 1) * static_cast<std::int64_t>(host_pitch / 8) - 1] &= 0xffffffffull;
    }

    void write_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words) override {
        check(Box{0, y, w_, rows});
        if (rows == 0) return;
        since_write_ = 0;  // as write_region: the next two launches run every tile
        const std::size_t host_pitch = static_cast<std::size_t>(ceil_div(static_cast<std::uint64_t>(w_), 64)) * 8;
        try {
            rows_transfer(true, y, rows, const_cast<std::uint64_t*>(words), host_pitch);
        } catch (const cl::Error& e) {
            throw_runtime(e, "writing rows to the device");
        }
    }

    void step(std::int64_t n) override {
        try {
            launch(n, nullptr);
        } catch (const cl::Error& e) {
            throw_runtime(e, std::string("running ") + kName);
        }
    }

    std::int64_t population() const override {
        try {
            const cl_ulong count = static_cast<cl_ulong>(pitch_) * static_cast<cl_ulong>(h_);
            population_.setArg(0, cur_);
            population_.setArg(1, count);
            population_.setArg(2, partial_);
            population_.setArg(3, cl::Local(pop_wg_ * sizeof(cl_ulong)));
            rt_->queue.enqueueNDRangeKernel(population_, cl::NullRange, cl::NDRange(pop_groups_ * pop_wg_),
                                            cl::NDRange(pop_wg_));
            std::vector<cl_ulong> parts(pop_groups_);
            rt_->queue.enqueueReadBuffer(partial_, CL_TRUE, 0, parts.size() * sizeof(cl_ulong), parts.data());
            cl_ulong total = 0;
            for (cl_ulong p : parts) total += p;
            return static_cast<std::int64_t>(total);
        } catch (const cl::Error& e) {
            throw_runtime(e, "counting the population");
        }
    }

    std::int64_t generation() const override { return generation_; }

    EngineDetails details() const {
        EngineDetails d;
        d.device = std::to_string(rt_->info.platform) + ":" + std::to_string(rt_->info.device) + " " + rt_->info.name;
        d.wg_width = lw_;
        d.wg_height = strips_;
        d.cells_per_item = 32 * rows_;
        d.reduction = "tree";
        d.build_options = build_options_;
        return d;
    }

    BitpackedActivity activity() const {
        BitpackedActivity a;
        a.mode = activity_ == Activity::off ? "off" : activity_ == Activity::on ? "on" : "auto";
        a.tiles = tiles_;
        a.last_run = tiles_;
        a.launches = launches_;
        a.listed_launches = listed_launches_;
        if (last_listed_) {
            cl_uint n = 0;
            try {
                rt_->queue.enqueueReadBuffer(counts_, CL_TRUE, (slot_ ^ 1u) * sizeof(cl_uint), sizeof(cl_uint), &n);
            } catch (const cl::Error& e) {
                throw_runtime(e, "reading the active-tile count");
            }
            a.last_run = n;
        }
        return a;
    }

    StepTiming timed(std::int64_t n) {
        std::vector<cl::Event> events;
        try {
            launch(n, &events);
            rt_->queue.finish();
            return timing_of(events);
        } catch (const cl::Error& e) {
            throw_runtime(e, std::string("timing ") + kName);
        }
    }

private:
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

    void check(const Box& b) const {
        if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > w_ || b.bottom() > h_)
            throw std::out_of_range("region outside the board");
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

    void setup(const EngineOptions& options) {
        const DeviceDescription& dev = rt_->info;
        const BitpackedShape preferred = bitpacked_default_shape(dev);
        const Tuning tune = tuning();
        rows_ = tune.rows_per_item > 0 ? tune.rows_per_item : preferred.rows;
        if (rows_ > kMaxRows)
            throw InputError("opencl:bitpacked takes at most " + std::to_string(kMaxRows) +
                             " rows per work-item (TILELIFE_OPENCL_ROWS)");
        steps_ = options.steps_per_launch > 0 ? options.steps_per_launch : preferred.steps;
        if (options.steps_per_launch < 0 || steps_ > kMaxSteps)
            throw InputError("--steps-per-launch for opencl:bitpacked must be 1.." + std::to_string(kMaxSteps) +
                             " (the halo is one 32-cell word wide)");

        // The local copy needs at least one tile row between the two halos.
        const int min_strips = static_cast<int>(ceil_div(2 * static_cast<std::uint64_t>(steps_) + 1, rows_));
        const bool user = options.wg_width > 0 || options.wg_height > 0;
        if (user) {
            if (options.wg_width < 3 || options.wg_height < 1)
                throw InputError("opencl:bitpacked needs --wg of at least 3x1 (words per local row including the "
                                 "two halo words, by strips of rows)");
            lw_ = options.wg_width;
            strips_ = options.wg_height;
            if (strips_ < min_strips)
                throw InputError("--wg " + std::to_string(lw_) + "x" + std::to_string(strips_) + " gives " +
                                 std::to_string(strips_ * rows_) + " local rows; " + std::to_string(steps_) +
                                 " steps per launch need at least " + std::to_string(2 * steps_ + 1) +
                                 " (use at least " + std::to_string(min_strips) + " strips)");
        } else {
            // The same shape for every board size: devices that compile per work-group size (PoCL)
            // then build few variants while the unbounded board re-creates the engine.
            lw_ = preferred.lw;
            strips_ = std::max(preferred.strips, min_strips);
        }

        auto local_bytes = [&](int strips) { return 4ull * lw_ * static_cast<std::uint64_t>(strips) * rows_; };
        const std::string opts = options_for(lw_);
        program_ = program_for(*rt_, {kFile, kListFile}, opts);
        kernel_ = cl::Kernel(program_, "life_bitpacked_time_tile");
        const std::size_t kmax = std::min<std::size_t>(
            dev.max_work_group_size, kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt_->device));
        auto fits = [&](int strips) {
            return static_cast<std::uint64_t>(lw_) * strips <= kmax && local_bytes(strips) <= dev.local_mem_size;
        };
        if (!user)
            while (!fits(strips_) && strips_ / 2 >= min_strips) strips_ /= 2;
        if (!fits(strips_)) {
            const std::string why = "--wg " + std::to_string(lw_) + "x" + std::to_string(strips_) + " with " +
                                    std::to_string(rows_) + " rows per work-item needs " +
                                    std::to_string(lw_ * strips_) + " work-items and " +
                                    std::to_string(local_bytes(strips_)) + " bytes of local memory; " + kName +
                                    " may have " + std::to_string(kmax) + " and " + std::to_string(dev.local_mem_size) +
                                    " on " + dev.name;
            if (user) throw InputError(why);
            throw RuntimeError("no work-group shape fits " + std::string(kName) + ": " + why);
        }
        build_options_ = opts;

        nwords_ = static_cast<std::uint64_t>(ceil_div(static_cast<std::uint64_t>(w_), 32));
        pitch_ = nwords_;
        const auto h = static_cast<std::uint64_t>(h_);
        if (h > (std::uint64_t{1} << 60) / pitch_ || pitch_ * h * 4 > rt_->max_alloc)
            throw RuntimeError("a " + std::to_string(w_) + "x" + std::to_string(h_) + " board needs more than the " +
                               std::to_string(rt_->max_alloc >> 20) + " MiB one buffer may have on " + dev.name);
        const std::size_t bytes = static_cast<std::size_t>(pitch_ * h * 4);

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
        activity_ = activity_from_env();
        if (tiles_ > 0xffffffffull) activity_ = Activity::off;  // tile ids in the list are 32-bit

        // The active-tile list: a power-of-two group (the scan needs it), one work-item per tile.
        list_kernel_ = cl::Kernel(program_, "bitpacked_active_tiles");
        const std::size_t llimit = std::min<std::size_t>(
            {256, dev.max_work_group_size, list_kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt_->device)});
        std::size_t list_wg = 1;
        while (list_wg * 2 <= llimit) list_wg *= 2;
        list_global_ = cl::NDRange(static_cast<std::size_t>(ceil_div(tiles_, list_wg) * list_wg));
        list_local_ = cl::NDRange(list_wg);

        // Population: a power-of-two group, at most 256, and at most 1024 groups (summed on the host).
        population_ = cl::Kernel(program_, "bitpacked_population");
        const std::size_t plimit = std::min<std::size_t>(
            {256, dev.max_work_group_size, population_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt_->device)});
        pop_wg_ = 1;
        while (pop_wg_ * 2 <= plimit) pop_wg_ *= 2;
        pop_groups_ = static_cast<std::size_t>(std::clamp<std::uint64_t>(ceil_div(pitch_ * h, pop_wg_), 1, 1024));

        try {
            cur_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, bytes);
            next_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, bytes);
            partial_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, pop_groups_ * sizeof(cl_ulong));
            // Small next to the board (one word per tile), so made even when tracking is off.
            stamps_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, static_cast<std::size_t>(tiles_ * 4));
            list_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, static_cast<std::size_t>(tiles_ * 4));
            counts_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint));
            cl::Kernel clear(program_, "bitpacked_clear");
            const cl_ulong words = pitch_ * h;
            for (auto [b, n] : {std::pair{&cur_, words}, std::pair{&next_, words}, std::pair{&stamps_, cl_ulong{tiles_}},
                                std::pair{&list_, cl_ulong{tiles_}}, std::pair{&counts_, cl_ulong{2}}}) {
                clear.setArg(0, *b);
                clear.setArg(1, n);
                rt_->queue.enqueueNDRangeKernel(clear, cl::NullRange,
                                                cl::NDRange(static_cast<std::size_t>(ceil_div(n, 64) * 64)),
                                                cl::NDRange(64));
            }
            rt_->queue.finish();  // allocation failures surface here rather than at the first step
        } catch (const cl::Error& e) {
            throw RuntimeError("OpenCL: cannot allocate two " + std::to_string(bytes >> 20) + " MiB board buffers on " +
                               dev.name + ": " + error_name(e.err()));
        }
        kernel_.setArg(2, static_cast<cl_ulong>(w_));
        kernel_.setArg(3, static_cast<cl_ulong>(h_));
        kernel_.setArg(4, static_cast<cl_ulong>(pitch_));
        kernel_.setArg(5, static_cast<cl_ulong>(nwords_));
        kernel_.setArg(6, static_cast<cl_ulong>(groups_x_));
        kernel_.setArg(8, static_cast<cl_uint>(steps_));  // the halo: what the tile shape was made for
        kernel_.setArg(9, cl::Local(static_cast<std::size_t>(local_bytes(strips_))));
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
    void launch(std::int64_t n, std::vector<cl::Event>* events) {
        for (std::int64_t done = 0, count = 0; done < n; ++count) {
            const auto steps = static_cast<cl_uint>(std::min<std::int64_t>(steps_, n - done));
            bool compare = activity_ == Activity::on || (activity_ == Activity::automatic && !dense_);
            const bool use_list =
                activity_ != Activity::off && prev_compared_ && since_write_ >= 2 && steps == prev2_steps_;
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
            cl::Event ev;
            rt_->queue.enqueueNDRangeKernel(kernel_, cl::NullRange, use_list ? list_grid_ : global_, local_, nullptr,
                                            events ? &ev : nullptr);
            if (events) events->push_back(ev);
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

    std::shared_ptr<const DeviceRuntime> rt_;
    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    int lw_ = 0, strips_ = 0, rows_ = 0, steps_ = 0;
    std::uint64_t nwords_ = 0, pitch_ = 0, groups_x_ = 0, groups_y_ = 0, tiles_ = 0;
    std::string build_options_;
    cl::Program program_;
    cl::Kernel kernel_;
    cl::NDRange global_, local_;
    cl::Buffer cur_, next_;
    std::int64_t generation_ = 0;

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

    mutable cl::Kernel population_;
    mutable cl::Buffer partial_;
    std::size_t pop_wg_ = 1, pop_groups_ = 1;
};

}  // namespace

BitpackedShape bitpacked_default_shape(const DeviceDescription& device) {
    BitpackedShape s;
    if (device.type == "GPU" && device.local_mem_dedicated) return s;  // one warp-wide row of words
    // CPUs (PoCL) run a work-group as loops over its work-items: smaller groups, fewer steps.
    s.lw = 32;
    s.strips = 4;
    s.rows = 8;
    s.steps = 4;
    return s;
}

void register_bitpacked_opencl_engine() {
    register_engine({kName, "OpenCL: one bit per cell, bit-sliced counts, K generations per launch in local-memory "
                            "tiles, settled tiles skipped (fastest)"},
                    [](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
                        return std::make_unique<BitpackedEngine>(board, options);
                    });
}

std::optional<EngineDetails> bitpacked_details(const Engine& engine) {
    if (const auto* e = dynamic_cast<const BitpackedEngine*>(&engine)) return e->details();
    return std::nullopt;
}

std::optional<BitpackedActivity> bitpacked_activity(const Engine& engine) {
    if (const auto* e = dynamic_cast<const BitpackedEngine*>(&engine)) return e->activity();
    return std::nullopt;
}

std::optional<StepTiming> bitpacked_timed_step(Engine& engine, std::int64_t generations) {
    if (auto* e = dynamic_cast<BitpackedEngine*>(&engine)) return e->timed(generations);
    return std::nullopt;
}

}  // namespace tilelife::opencl
