// The opencl:* engines: the board stays on the device (two buffers, swapped every generation); the
// host transfers cells only in write_region/read_region and one 64-bit count in population().
#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "opencl/api.hpp"
#include "opencl/bitpacked.hpp"
#include "opencl/runtime.hpp"
#include "tilelife/error.hpp"

namespace tilelife::opencl {
namespace {

enum class KernelKind { naive, local, strided };

struct KernelSpec {
    KernelKind kind;
    const char* engine_name;
    const char* file;
    const char* entry;
    const char* description;
};

const KernelSpec kKernels[] = {
    {KernelKind::naive, "opencl:naive", "naive.cl", "life_naive",
     "OpenCL: one work-item per cell, nine global reads, no local memory"},
    {KernelKind::local, "opencl:local", "halo_tile.cl", "life_halo_tile",
     "OpenCL: (T+2)^2 work-items each load one cell of a tile with halo into local memory (SLM_BEST)"},
    {KernelKind::strided, "opencl:local-strided", "halo_tile_strided.cl", "life_halo_tile_strided",
     "OpenCL: cooperative strided tile load in 32-bit words, 4 cells x ROWS per work-item (best byte-per-cell kernel)"},
};

constexpr int kDefaultRows = 8;      // CPUs (PoCL): short strips keep the tile in cache
constexpr int kDefaultGpuRows = 16;  // GPUs: longer strips reuse each loaded row more
constexpr std::uint64_t kStagingBytes = std::uint64_t{16} << 20;  // write_region uploads in bands of this

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }
std::uint64_t ceil_div(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m; }

std::mutex& tuning_mutex() {
    static std::mutex m;
    return m;
}

Tuning& tuning_storage() {
    static Tuning t = [] {
        Tuning d;
        if (const char* r = std::getenv("TILELIFE_OPENCL_REDUCTION")) {
            const std::string s = r;
            if (s == "tree") d.reduction = Reduction::tree;
            else if (s == "work-group") d.reduction = Reduction::work_group;
            else if (s == "sub-group") d.reduction = Reduction::sub_group;
        }
        if (const char* r = std::getenv("TILELIFE_OPENCL_RULE")) {
            const std::string s = r;
            if (s == "constant") d.rule_storage = RuleStorage::constant_table;
            else if (s == "local") d.rule_storage = RuleStorage::local_table;
        }
        if (const char* r = std::getenv("TILELIFE_OPENCL_ROWS")) d.rows_per_item = std::max(0, std::atoi(r));
        return d;
    }();
    return t;
}

struct Shape {
    int x = 0, y = 0;
};

class OpenCLEngine final : public Engine {
public:
    OpenCLEngine(const KernelSpec& spec, const BoardSpec& board, const EngineOptions& options)
        : spec_(spec), w_(board.width), h_(board.height), topology_(board.topology), rule_(board.rule),
          tuning_(tuning()) {
        if (topology_ == Topology::unbounded)
            throw std::logic_error("opencl engines are bounded; unbounded boards come from make_unbounded");
        rt_ = runtime_for(options.device);
        try {
            setup(options);
        } catch (const cl::Error& e) {
            throw_runtime(e, std::string("creating ") + spec_.engine_name + " for a " + std::to_string(w_) + "x" +
                                 std::to_string(h_) + " board");
        }
    }

    std::string name() const override { return spec_.engine_name; }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        try {
            // Host cells go to a staging buffer in one plain write per band of rows; a kernel puts
            // them in place (row pitch) and makes every non-zero byte a 1.
            const auto bw = static_cast<std::uint64_t>(box.width), bh = static_cast<std::uint64_t>(box.height);
            const std::uint64_t band = std::min(bh, std::max<std::uint64_t>(1, kStagingBytes / bw));
            if (staging_bytes_ < band * bw) {
                staging_ = cl::Buffer(rt_->context, CL_MEM_READ_ONLY, static_cast<std::size_t>(band * bw));
                staging_bytes_ = band * bw;
            }
            const auto [lx, ly] = transfer_group();
            for (std::uint64_t y = 0; y < bh; y += band) {
                const std::uint64_t h = std::min(band, bh - y);
                rt_->queue.enqueueWriteBuffer(staging_, CL_FALSE, 0, static_cast<std::size_t>(h * bw), cells + y * bw);
                scatter_.setArg(0, staging_);
                scatter_.setArg(1, static_cast<cl_ulong>(bw));
                scatter_.setArg(2, static_cast<cl_ulong>(h));
                scatter_.setArg(3, cur_);
                scatter_.setArg(4, static_cast<cl_ulong>(pitch_));
                scatter_.setArg(5, static_cast<cl_ulong>(box.x));
                scatter_.setArg(6, static_cast<cl_ulong>(static_cast<std::uint64_t>(box.y) + y));
                rt_->queue.enqueueNDRangeKernel(scatter_, cl::NullRange,
                                                cl::NDRange(static_cast<std::size_t>(round_up(bw, lx)),
                                                            static_cast<std::size_t>(round_up(h, ly))),
                                                cl::NDRange(lx, ly));
            }
            rt_->queue.finish();  // the caller's cells must stay valid until the writes are done
        } catch (const cl::Error& e) {
            throw_runtime(e, "writing cells to the device");
        }
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        try {
            rt_->queue.enqueueReadBufferRect(cur_, CL_TRUE, origin(box), {0, 0, 0}, region(box), pitch_, 0,
                                             static_cast<std::size_t>(box.width), 0, cells);
        } catch (const cl::Error& e) {
            throw_runtime(e, "reading cells from the device");
        }
    }

    void step(std::int64_t n) override {
        try {
            launch(n, nullptr);
        } catch (const cl::Error& e) {
            throw_runtime(e, std::string("running ") + spec_.engine_name);
        }
    }

    std::int64_t population() const override {
        try {
            if (!reduce_cells_()) setup_reduction();
            const std::uint64_t nwords = pitch_ * static_cast<std::uint64_t>(h_) / 4;
            reduce_cells_.setArg(0, cur_);
            reduce_cells_.setArg(1, static_cast<cl_ulong>(nwords));
            reduce_cells_.setArg(2, partial_);
            reduce_cells_.setArg(3, cl::Local(reduce_wg_ * sizeof(cl_uint)));
            rt_->queue.enqueueNDRangeKernel(reduce_cells_, cl::NullRange, cl::NDRange(reduce_groups_ * reduce_wg_),
                                            cl::NDRange(reduce_wg_));
            reduce_partials_.setArg(0, partial_);
            reduce_partials_.setArg(1, static_cast<cl_ulong>(reduce_groups_));
            reduce_partials_.setArg(2, total_);
            reduce_partials_.setArg(3, cl::Local(reduce_wg_ * sizeof(cl_ulong)));
            rt_->queue.enqueueNDRangeKernel(reduce_partials_, cl::NullRange, cl::NDRange(reduce_wg_),
                                            cl::NDRange(reduce_wg_));
            cl_ulong total = 0;
            rt_->queue.enqueueReadBuffer(total_, CL_TRUE, 0, sizeof total, &total);
            return static_cast<std::int64_t>(total);
        } catch (const cl::Error& e) {
            throw_runtime(e, "counting the population");
        }
    }

    std::int64_t generation() const override { return generation_; }

    EngineDetails details() const {
        EngineDetails d;
        d.device = std::to_string(rt_->info.platform) + ":" + std::to_string(rt_->info.device) + " " + rt_->info.name;
        d.wg_width = shape_.x;
        d.wg_height = shape_.y;
        d.cells_per_item = spec_.kind == KernelKind::strided ? 4 * rows_ : 1;
        if (!reduce_cells_()) setup_reduction();
        d.reduction = reduction_path_;
        d.build_options = build_options_;
        return d;
    }

    StepTiming timed(std::int64_t n) {
        std::vector<cl::Event> events;
        events.reserve(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
        try {
            launch(n, &events);
            rt_->queue.finish();
            return timing_of(events);
        } catch (const cl::Error& e) {
            throw_runtime(e, std::string("timing ") + spec_.engine_name);
        }
    }

private:
    // Work-group shape of the transfer kernels: 16x4, or what the device allows.
    std::pair<std::size_t, std::size_t> transfer_group() const {
        const std::size_t max = rt_->info.max_work_group_size;
        const std::size_t x = std::min<std::size_t>(16, max);
        return {x, std::max<std::size_t>(1, std::min<std::size_t>(4, max / x))};
    }

    void check(const Box& b) const {
        if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > w_ || b.bottom() > h_)
            throw std::out_of_range("region outside the board");
    }
    static std::array<std::size_t, 3> origin(const Box& b) {
        return {static_cast<std::size_t>(b.x), static_cast<std::size_t>(b.y), 0};
    }
    static std::array<std::size_t, 3> region(const Box& b) {
        return {static_cast<std::size_t>(b.width), static_cast<std::size_t>(b.height), 1};
    }

    // Work-group shapes to try, best first; a user's --wg is the only candidate.
    std::vector<Shape> candidates(const EngineOptions& o) const {
        if (o.wg_width > 0 || o.wg_height > 0) {
            if (o.wg_width < 1 || o.wg_height < 1)
                throw InputError("--wg needs a width and a height, both at least 1 (e.g. 16x16)");
            if (spec_.kind == KernelKind::local && (o.wg_width < 3 || o.wg_height < 3))
                throw InputError("opencl:local needs --wg of at least 3x3 (the tile plus its one-cell halo)");
            return {Shape{o.wg_width, o.wg_height}};
        }
        switch (spec_.kind) {
            case KernelKind::naive: return {{32, 8}, {16, 16}, {16, 8}, {8, 8}, {8, 4}, {4, 4}, {2, 2}, {1, 1}};
            // The largest square group wastes the smallest share of work-items on the halo.
            case KernelKind::local: return {{32, 32}, {18, 18}, {16, 16}, {10, 10}, {8, 8}, {6, 6}, {4, 4}, {3, 3}};
            // On GPUs a wide, short group with 16-row strips measured best (H100 autotune at 16384^2:
            // 64x4 with 16 rows 1038 G updates/s against 914 for 32x8 with 8; docs/local-memory.md).
            case KernelKind::strided:
                if (rt_->info.type == "GPU") return {{64, 4}, {32, 8}, {32, 4}, {16, 4}, {8, 4}, {4, 2}, {1, 1}};
                return {{32, 8}, {32, 4}, {16, 4}, {8, 4}, {8, 2}, {4, 2}, {2, 2}, {1, 1}};
        }
        return {};
    }

    std::uint64_t local_bytes(Shape s) const {
        switch (spec_.kind) {
            case KernelKind::naive: return 0;
            case KernelKind::local: return static_cast<std::uint64_t>(s.x) * s.y + 18;
            case KernelKind::strided:
                return 4ull * static_cast<std::uint64_t>(s.x + 2) * (static_cast<std::uint64_t>(rows_) * s.y + 2) + 18;
        }
        return 0;
    }

    std::string options_for(Shape s) const {
        std::ostringstream o;
        const unsigned bits = rule_.birth | (static_cast<unsigned>(rule_.survival) << 9);
        RuleStorage storage = tuning_.rule_storage;
        if (spec_.kind == KernelKind::naive && storage == RuleStorage::local_table)
            storage = RuleStorage::constant_table;  // naive uses no local memory at all
        o << "-DTORUS=" << (topology_ == Topology::torus ? 1 : 0) << " -DRULE_BITS=0x" << std::hex << bits << std::dec
          << "u -DRULE_STORAGE=" << static_cast<int>(storage);
        if (spec_.kind == KernelKind::local) o << " -DTILE_W=" << s.x - 2 << " -DTILE_H=" << s.y - 2;
        if (spec_.kind == KernelKind::strided) o << " -DWG_X=" << s.x << " -DWG_Y=" << s.y << " -DROWS=" << rows_;
        return o.str();
    }

    void setup(const EngineOptions& options) {
        const DeviceDescription& dev = rt_->info;
        if (spec_.kind == KernelKind::strided && !rt_->device.getInfo<CL_DEVICE_ENDIAN_LITTLE>())
            throw RuntimeError(std::string(spec_.engine_name) + " packs four cells per word little-endian; " + dev.name +
                               " is big-endian (use opencl:local or opencl:naive)");
        rows_ = tuning_.rows_per_item > 0 ? tuning_.rows_per_item : (dev.type == "GPU" ? kDefaultGpuRows : kDefaultRows);
        // Rows padded to 16 bytes: every row starts word-aligned, so the strided kernel can move cells
        // as 32-bit words. Padding bytes stay 0 (no kernel writes them), which the population relies on.
        pitch_ = round_up(static_cast<std::uint64_t>(w_), 16);
        const auto h = static_cast<std::uint64_t>(h_);
        if (h > (std::uint64_t{1} << 62) / pitch_ || pitch_ * h > rt_->max_alloc)
            throw RuntimeError("a " + std::to_string(w_) + "x" + std::to_string(h_) + " board needs more than the " +
                               std::to_string(rt_->max_alloc >> 20) + " MiB one buffer may have on " + dev.name);
        const std::size_t bytes = static_cast<std::size_t>(pitch_ * h);

        const bool user = options.wg_width > 0 || options.wg_height > 0;
        std::string why;
        for (Shape s : candidates(options)) {
            const auto items = static_cast<std::uint64_t>(s.x) * static_cast<std::uint64_t>(s.y);
            if (items > dev.max_work_group_size) {
                why = "--wg " + std::to_string(s.x) + "x" + std::to_string(s.y) + " is " + std::to_string(items) +
                      " work-items; " + dev.name + " allows at most " + std::to_string(dev.max_work_group_size);
                continue;
            }
            if (local_bytes(s) > dev.local_mem_size) {
                why = "--wg " + std::to_string(s.x) + "x" + std::to_string(s.y) + " needs " +
                      std::to_string(local_bytes(s)) + " bytes of local memory; " + dev.name + " has " +
                      std::to_string(dev.local_mem_size);
                continue;
            }
            const std::string opts = options_for(s);
            cl::Kernel k(program_for(*rt_, {"common.cl", spec_.file}, opts), spec_.entry);
            const std::size_t kmax = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt_->device);
            if (items > kmax) {
                why = "--wg " + std::to_string(s.x) + "x" + std::to_string(s.y) + " is more than the " +
                      std::to_string(kmax) + " work-items " + spec_.engine_name + " can have on " + dev.name;
                continue;
            }
            kernel_ = k;
            shape_ = s;
            build_options_ = opts;
            break;
        }
        if (!kernel_()) {
            if (user) throw InputError(why);
            throw RuntimeError(std::string("no work-group shape fits ") + spec_.engine_name + " on " + dev.name + ": " + why);
        }

        std::uint64_t gx = 0, gy = 0;
        const auto W = static_cast<std::uint64_t>(w_);
        switch (spec_.kind) {
            case KernelKind::naive: gx = round_up(W, shape_.x), gy = round_up(h, shape_.y); break;
            case KernelKind::local:
                gx = ceil_div(W, shape_.x - 2) * shape_.x, gy = ceil_div(h, shape_.y - 2) * shape_.y;
                break;
            case KernelKind::strided:
                gx = ceil_div(W, 4ull * shape_.x) * shape_.x;
                gy = ceil_div(h, static_cast<std::uint64_t>(rows_) * shape_.y) * shape_.y;
                break;
        }
        global_ = cl::NDRange(static_cast<std::size_t>(gx), static_cast<std::size_t>(gy));
        local_ = cl::NDRange(static_cast<std::size_t>(shape_.x), static_cast<std::size_t>(shape_.y));

        try {
            cur_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, bytes);
            next_ = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, bytes);
            const cl::Program transfer = program_for(*rt_, {"transfer.cl"}, "");
            scatter_ = cl::Kernel(transfer, "scatter_cells");
            cl::Kernel clear(transfer, "clear_words");
            const std::size_t group = transfer_group().first * transfer_group().second;
            for (cl::Buffer* b : {&cur_, &next_}) {
                clear.setArg(0, *b);
                clear.setArg(1, static_cast<cl_ulong>(bytes / 4));
                rt_->queue.enqueueNDRangeKernel(clear, cl::NullRange,
                                                cl::NDRange(static_cast<std::size_t>(round_up(bytes / 4, group))),
                                                cl::NDRange(group));
            }
            rt_->queue.finish();  // allocation failures surface here rather than at the first step
        } catch (const cl::Error& e) {
            throw RuntimeError("OpenCL: cannot allocate two " + std::to_string(bytes >> 20) + " MiB board buffers on " +
                               dev.name + ": " + error_name(e.err()));
        }
        kernel_.setArg(2, static_cast<cl_ulong>(w_));
        kernel_.setArg(3, static_cast<cl_ulong>(h_));
        kernel_.setArg(4, static_cast<cl_ulong>(pitch_));
    }

    void launch(std::int64_t n, std::vector<cl::Event>* events) {
        for (std::int64_t g = 0; g < n; ++g) {
            kernel_.setArg(0, cur_);
            kernel_.setArg(1, next_);
            cl::Event ev;
            rt_->queue.enqueueNDRangeKernel(kernel_, cl::NullRange, global_, local_, nullptr, events ? &ev : nullptr);
            if (events) events->push_back(ev);
            std::swap(cur_, next_);
            ++generation_;
            // Bound the commands in flight for long runs; one wait per 256 launches costs nothing.
            if (g % 256 == 255) rt_->queue.finish();
        }
    }

    // Chooses the population path: collectives when asked for or available, else the tree.
    void setup_reduction() const {
        const DeviceRuntime& rt = *rt_;
        const DeviceDescription& dev = rt.info;
        cl::Program program;
        auto try_collective = [&](int which, const std::string& std_opt, const char* path) {
            if (program() || std_opt.empty()) return;
            program = try_program_for(rt, {"collective_reduction.cl"}, std_opt + " -DCOLLECTIVE=" + std::to_string(which));
            if (program()) reduction_path_ = path;
        };
        switch (tuning_.reduction) {
            case Reduction::work_group:
                if (rt.work_group_std.empty())
                    throw RuntimeError(dev.name + " has no work-group collective functions (work_group_reduce_add)");
                try_collective(1, rt.work_group_std, "work-group");
                if (!program()) program_for(rt, {"collective_reduction.cl"}, rt.work_group_std + " -DCOLLECTIVE=1");
                break;
            case Reduction::sub_group:
                if (rt.sub_group_std.empty()) throw RuntimeError(dev.name + " has no sub-groups (sub_group_reduce_add)");
                try_collective(2, rt.sub_group_std, "sub-group");
                if (!program()) program_for(rt, {"collective_reduction.cl"}, rt.sub_group_std + " -DCOLLECTIVE=2");
                break;
            case Reduction::automatic:
                try_collective(1, rt.work_group_std, "work-group");
                try_collective(2, rt.sub_group_std, "sub-group");
                break;
            case Reduction::tree: break;
        }
        if (!program()) {
            program = program_for(rt, {"tree_reduction.cl"}, "");
            reduction_path_ = "tree";
        }
        cl::Kernel cells(program, "reduce_cells"), partials(program, "reduce_partials");
        // A power of two (the tree halves it), at most 256 and what both kernels allow.
        std::size_t limit = std::min<std::size_t>({256, dev.max_work_group_size,
                                                   cells.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt.device),
                                                   partials.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt.device)});
        std::size_t wg = 1;
        while (wg * 2 <= limit) wg *= 2;
        const std::uint64_t nwords = pitch_ * static_cast<std::uint64_t>(h_) / 4;
        reduce_wg_ = wg;
        reduce_groups_ = ceil_div(nwords, 2 * wg);
        partial_ = cl::Buffer(rt.context, CL_MEM_READ_WRITE, static_cast<std::size_t>(reduce_groups_ * sizeof(cl_uint)));
        total_ = cl::Buffer(rt.context, CL_MEM_READ_WRITE, sizeof(cl_ulong));
        reduce_cells_ = cells;
        reduce_partials_ = partials;
    }

    const KernelSpec& spec_;
    std::shared_ptr<const DeviceRuntime> rt_;
    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    Tuning tuning_;
    int rows_ = kDefaultRows;
    std::uint64_t pitch_ = 0;
    Shape shape_;
    std::string build_options_;
    cl::Kernel kernel_;
    cl::NDRange global_, local_;
    cl::Buffer cur_, next_;
    cl::Kernel scatter_;
    cl::Buffer staging_;
    std::uint64_t staging_bytes_ = 0;
    std::int64_t generation_ = 0;

    // population(): built on first use (const: counting does not change the board).
    mutable cl::Kernel reduce_cells_, reduce_partials_;
    mutable cl::Buffer partial_, total_;
    mutable std::size_t reduce_wg_ = 0;
    mutable std::uint64_t reduce_groups_ = 0;
    mutable std::string reduction_path_;
};

}  // namespace

Tuning tuning() {
    std::lock_guard lock(tuning_mutex());
    return tuning_storage();
}

void set_tuning(const Tuning& t) {
    std::lock_guard lock(tuning_mutex());
    tuning_storage() = t;
}

std::string to_string(Reduction r) {
    switch (r) {
        case Reduction::automatic: return "auto";
        case Reduction::tree: return "tree";
        case Reduction::work_group: return "work-group";
        case Reduction::sub_group: return "sub-group";
    }
    return "?";
}

std::string to_string(RuleStorage r) {
    switch (r) {
        case RuleStorage::bits: return "bits";
        case RuleStorage::constant_table: return "constant";
        case RuleStorage::local_table: return "local";
    }
    return "?";
}

std::optional<EngineDetails> details(const Engine& engine) {
    if (const auto* e = dynamic_cast<const OpenCLEngine*>(&engine)) {
        try {
            return e->details();
        } catch (const cl::Error& err) {
            throw_runtime(err, "describing an engine");
        }
    }
    return bitpacked_details(engine);
}

std::optional<StepTiming> timed_step(Engine& engine, std::int64_t generations) {
    if (auto* e = dynamic_cast<OpenCLEngine*>(&engine)) return e->timed(generations);
    return bitpacked_timed_step(engine, generations);
}

}  // namespace tilelife::opencl

namespace tilelife {
void register_opencl_engines() {
    for (const opencl::KernelSpec& k : opencl::kKernels)
        register_engine({k.engine_name, k.description},
                        [&k](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
                            return std::make_unique<opencl::OpenCLEngine>(k, board, options);
                        });
    opencl::register_bitpacked_opencl_engine();
}
}  // namespace tilelife
