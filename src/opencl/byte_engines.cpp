// The byte-per-cell opencl:* engines (naive, halo-tile, halo-tile-strided): the board stays on the
// device as one byte per cell, rows padded to 16 bytes; one kernel launch per generation. The host
// transfers cells only in write_region/read_region and one 64-bit count in population().
#include "opencl/byte_engines.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "opencl/device_engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife::opencl {
namespace {

enum class KernelKind { naive, halo_tile, strided };

struct KernelSpec {
    KernelKind kind;
    const char* name;
    const char* alias;  // the name before engines were named by their technique
    const char* file;
    const char* entry;
    const char* description;
};

// The program of a kernel: the board primitives, the rule, the cooperative tile load where the kernel
// uses it, the kernel.
std::vector<std::string> program_files(const KernelSpec& k) {
    std::vector<std::string> files = {"board.cl", "common.cl"};
    if (k.kind == KernelKind::strided) files.push_back("tile_load.cl");
    files.push_back(k.file);
    return files;
}

const KernelSpec kKernels[] = {
    {KernelKind::naive, "opencl:naive", nullptr, "naive.cl", "life_naive",
     "OpenCL: one work-item per cell, nine global reads, no local memory"},
    {KernelKind::halo_tile, "opencl:halo-tile", "opencl:local", "halo_tile.cl", "life_halo_tile",
     "OpenCL: (T+2)^2 work-items each load one cell of a tile with halo into local memory (SLM_BEST)"},
    {KernelKind::strided, "opencl:halo-tile-strided", "opencl:local-strided", "halo_tile_strided.cl",
     "life_halo_tile_strided",
     "OpenCL: cooperative strided tile load in 32-bit words, 4 cells x ROWS per work-item (best byte-per-cell "
     "kernel)"},
};

constexpr int kDefaultRows = 8;      // CPUs (PoCL): short strips keep the tile in cache
constexpr int kDefaultGpuRows = 16;  // GPUs: longer strips reuse each loaded row more
constexpr int kMaxRows = 64;
constexpr std::uint64_t kStagingBytes = std::uint64_t{16} << 20;  // write_region uploads in bands of this

// Where the rule table lives (common.cl RULE_STORAGE).
enum class RuleStorage { bits = 0, constant_table = 1, local_table = 2 };
const char* const kStorageNames[] = {"bits", "constant", "local"};

struct Shape {
    int x = 0, y = 0;
};

class ByteEngine final : public DeviceEngine {
public:
    ByteEngine(const KernelSpec& spec, const BoardSpec& board, const EngineOptions& options)
        : DeviceEngine(spec.name, board, options), spec_(spec) {
        const std::string storage = options.param("rule-storage", "bits");
        storage_ = storage == "local" ? RuleStorage::local_table
                   : storage == "constant" ? RuleStorage::constant_table
                                           : RuleStorage::bits;
        guarded("creating " + name_ + " for a " + board_text() + " board", [&] { setup(options); });
    }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        guarded("writing cells to the device", [&] {
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
        });
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        guarded("reading cells from the device", [&] {
            const std::array<std::size_t, 3> origin{static_cast<std::size_t>(box.x), static_cast<std::size_t>(box.y), 0};
            const std::array<std::size_t, 3> region{static_cast<std::size_t>(box.width),
                                                    static_cast<std::size_t>(box.height), 1};
            rt_->queue.enqueueReadBufferRect(cur_, CL_TRUE, origin, {0, 0, 0}, region, pitch_, 0,
                                             static_cast<std::size_t>(box.width), 0, cells);
        });
    }

private:
    void launch(std::int64_t n, std::vector<cl::Event>* events) override {
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

    const cl::Buffer& board_words() const override { return cur_; }

    void describe_engine(EngineDescription& d) const override {
        d.wg_width = shape_.x;
        d.wg_height = shape_.y;
        d.steps_per_launch = 1;
        const std::string group = "work-group " + std::to_string(shape_.x) + "x" + std::to_string(shape_.y);
        TileGeometry t;
        switch (spec_.kind) {
            case KernelKind::naive:
                d.cells_per_item = 1;
                t = {shape_.x, shape_.y, 1, 1, {}, group + ", 1 cell per work-item, neighbours read from global memory"};
                break;
            case KernelKind::halo_tile:
                d.cells_per_item = 1;
                t = {shape_.x - 2, shape_.y - 2, 1, 1, {},
                     group + ", 1 cell per work-item; the outer ring of work-items loads the 1-cell halo"};
                break;
            case KernelKind::strided:
                d.cells_per_item = 4 * rows_;
                t = {4 * shape_.x, rows_ * shape_.y, 4, 1, {},
                     group + ", 4 cells x " + std::to_string(rows_) +
                         " rows per work-item; halo: one 4-cell word left and right, one row above and below"};
                d.properties.emplace_back("rows", std::int64_t{rows_});
                break;
        }
        d.tiles = t;
        d.device_bytes = static_cast<std::int64_t>(2 * pitch_ * static_cast<std::uint64_t>(h_) + staging_bytes_);
        d.properties.emplace_back("rule-storage", std::string(kStorageNames[static_cast<int>(storage_)]));
        d.properties.emplace_back("local-bytes", static_cast<std::int64_t>(local_bytes_));
        d.properties.emplace_back("global-size", std::to_string(global_[0]) + "x" + std::to_string(global_[1]));
        d.properties.emplace_back("local-size", std::to_string(local_[0]) + "x" + std::to_string(local_[1]));
        d.properties.emplace_back("build-options", build_options_);
        const std::string log = build_log(*rt_, program_files(spec_), build_options_);
        if (!log.empty()) d.properties.emplace_back("build-log", log);
        d.autotune = autotune();
    }

    // Work-group shapes (and, for halo-tile-strided, rows per work-item) that autotuning tries on this
    // device: those within its work-group size.
    std::vector<EngineOptions> autotune() const {
        std::vector<Shape> shapes;
        std::vector<int> rows = {0};
        switch (spec_.kind) {
            case KernelKind::naive:
                shapes = {{8, 8}, {16, 8}, {16, 16}, {32, 4}, {32, 8}, {32, 16}, {64, 4}, {64, 8}, {128, 2}, {256, 1}};
                break;
            case KernelKind::halo_tile:
                shapes = {{6, 6}, {10, 10}, {18, 10}, {18, 18}, {34, 10}, {34, 18}, {32, 32}, {66, 10}, {66, 6}, {130, 6}};
                break;
            case KernelKind::strided:
                shapes = {{8, 4},  {8, 8},  {16, 4}, {16, 8}, {16, 16}, {32, 2},
                          {32, 4}, {32, 8}, {32, 16}, {64, 4}, {64, 8}};
                rows = {4, 8, 16};
                break;
        }
        EngineOptions base = options_;
        base.steps_per_launch = 0;
        std::vector<EngineOptions> out;
        for (int r : rows)
            for (Shape s : shapes) {
                if (static_cast<std::uint64_t>(s.x) * s.y > rt_->info.max_work_group_size) continue;
                EngineOptions o = with_shape(base, s.x, s.y);
                if (r) o.params["rows"] = std::to_string(r);
                out.push_back(std::move(o));
            }
        return out;
    }

    // Work-group shape of the transfer kernels: 16x4, or what the device allows.
    std::pair<std::size_t, std::size_t> transfer_group() const {
        const std::size_t max = group_size_for(*rt_, {scatter_}, 64);
        const std::size_t x = std::min<std::size_t>(16, max);
        return {x, std::max<std::size_t>(1, std::min<std::size_t>(4, max / x))};
    }

    // Work-group shapes to try, best first; a shape given in the options is the only candidate.
    std::vector<Shape> candidates(const EngineOptions& o) const {
        if (o.wg_width > 0 || o.wg_height > 0) {
            if (o.wg_width < 1 || o.wg_height < 1)
                throw InputError(name_ + " needs a work-group width and height of at least 1 (e.g. 16x16)");
            if (spec_.kind == KernelKind::halo_tile && (o.wg_width < 3 || o.wg_height < 3))
                throw InputError(name_ + " needs a work-group of at least 3x3 (the tile plus its one-cell halo)");
            return {Shape{o.wg_width, o.wg_height}};
        }
        switch (spec_.kind) {
            case KernelKind::naive: return {{32, 8}, {16, 16}, {16, 8}, {8, 8}, {8, 4}, {4, 4}, {2, 2}, {1, 1}};
            // The largest square group wastes the smallest share of work-items on the halo.
            case KernelKind::halo_tile: return {{32, 32}, {18, 18}, {16, 16}, {10, 10}, {8, 8}, {6, 6}, {4, 4}, {3, 3}};
            // On GPUs a wide, short group with 16-row strips measured best (H100 autotune at 16384^2:
            // 64x4 with 16 rows 1038 G updates/s against 914 for 32x8 with 8; docs/local-memory.md).
            case KernelKind::strided:
                if (rt_->info.type == "GPU") return {{64, 4}, {32, 8}, {32, 4}, {16, 4}, {8, 4}, {4, 2}, {1, 1}};
                return {{32, 8}, {32, 4}, {16, 4}, {8, 4}, {8, 2}, {4, 2}, {2, 2}, {1, 1}};
        }
        return {};
    }

    std::string options_for(Shape s) const {
        std::ostringstream o;
        const unsigned bits = rule_.birth | (static_cast<unsigned>(rule_.survival) << 9);
        o << "-DTORUS=" << (topology_ == Topology::torus ? 1 : 0) << " -DRULE_BITS=0x" << std::hex << bits << std::dec
          << "u -DRULE_STORAGE=" << static_cast<int>(storage_);
        if (spec_.kind == KernelKind::halo_tile) o << " -DTILE_W=" << s.x - 2 << " -DTILE_H=" << s.y - 2;
        if (spec_.kind == KernelKind::strided) o << " -DWG_X=" << s.x << " -DWG_Y=" << s.y << " -DROWS=" << rows_;
        return o.str();
    }

    void setup(const EngineOptions& options) {
        const DeviceDescription& dev = rt_->info;
        if (spec_.kind == KernelKind::strided && !rt_->device.getInfo<CL_DEVICE_ENDIAN_LITTLE>())
            throw RuntimeError(name_ + " packs four cells per word little-endian; " + dev.name +
                               " is big-endian (opencl:halo-tile and opencl:naive run there)");
        rows_ = static_cast<int>(options.param_int("rows", dev.type == "GPU" ? kDefaultGpuRows : kDefaultRows));
        // Rows padded to 16 bytes: every row starts word-aligned, so the strided kernel can move cells
        // as 32-bit words. Padding bytes stay 0 (no kernel writes them), which the population relies on.
        pitch_ = round_up(static_cast<std::uint64_t>(w_), 16);
        const auto h = static_cast<std::uint64_t>(h_);
        check_buffer(h, pitch_);
        const std::size_t bytes = static_cast<std::size_t>(pitch_ * h);

        const bool user = options.wg_width > 0 || options.wg_height > 0;
        std::string why;
        for (Shape s : candidates(options)) {
            const auto items = static_cast<std::uint64_t>(s.x) * static_cast<std::uint64_t>(s.y);
            if (items > dev.max_work_group_size) {  // no need to build the program to know
                why = "work-group " + std::to_string(s.x) + "x" + std::to_string(s.y) + " is " + std::to_string(items) +
                      " work-items; " + dev.name + " allows at most " + std::to_string(dev.max_work_group_size);
                continue;
            }
            const std::string opts = options_for(s);
            cl::Kernel k(program_for(*rt_, program_files(spec_), opts), spec_.entry);
            if (auto reason = misfit(*rt_, k, name_, static_cast<std::size_t>(s.x), static_cast<std::size_t>(s.y), 0)) {
                why = *reason;
                continue;
            }
            kernel_ = k;
            shape_ = s;
            build_options_ = opts;
            local_bytes_ = static_local_bytes(*rt_, k);
            break;
        }
        if (!kernel_()) {
            if (user) throw InputError(why);
            throw RuntimeError("no work-group shape fits " + name_ + " on " + dev.name + ": " + why);
        }

        std::uint64_t gx = 0, gy = 0;
        const auto W = static_cast<std::uint64_t>(w_);
        switch (spec_.kind) {
            case KernelKind::naive: gx = round_up(W, shape_.x), gy = round_up(h, shape_.y); break;
            case KernelKind::halo_tile:
                gx = ceil_div(W, shape_.x - 2) * shape_.x, gy = ceil_div(h, shape_.y - 2) * shape_.y;
                break;
            case KernelKind::strided:
                gx = ceil_div(W, 4ull * shape_.x) * shape_.x;
                gy = ceil_div(h, static_cast<std::uint64_t>(rows_) * shape_.y) * shape_.y;
                break;
        }
        global_ = cl::NDRange(static_cast<std::size_t>(gx), static_cast<std::size_t>(gy));
        local_ = cl::NDRange(static_cast<std::size_t>(shape_.x), static_cast<std::size_t>(shape_.y));

        allocate_cleared({{&cur_, bytes / 4}, {&next_, bytes / 4}});
        scatter_ = cl::Kernel(program_for(*rt_, {"transfer.cl"}, ""), "scatter_cells");
        kernel_.setArg(2, static_cast<cl_ulong>(w_));
        kernel_.setArg(3, static_cast<cl_ulong>(h_));
        kernel_.setArg(4, static_cast<cl_ulong>(pitch_));
        setup_population(bytes / 4);
    }

    const KernelSpec& spec_;
    RuleStorage storage_ = RuleStorage::bits;
    int rows_ = kDefaultRows;
    std::uint64_t pitch_ = 0;
    Shape shape_;
    std::string build_options_;
    std::uint64_t local_bytes_ = 0;
    cl::Kernel kernel_;
    cl::NDRange global_, local_;
    cl::Buffer cur_, next_;
    cl::Kernel scatter_;
    cl::Buffer staging_;
    std::uint64_t staging_bytes_ = 0;
};

}  // namespace

void register_byte_engines() {
    for (const KernelSpec& k : kKernels) {
        EngineInfo info;
        info.name = k.name;
        info.description = k.description;
        if (k.alias) info.aliases = {k.alias};
        info.parameters.push_back(reduction_parameter());
        info.parameters.push_back(
            {"rule-storage", "where the kernel keeps the rule table: shifts of a constant, a __constant table" +
                                 std::string(k.kind == KernelKind::naive ? "" : " or a __local copy per work-group"),
             k.kind == KernelKind::naive ? std::vector<std::string>{"bits", "constant"}
                                         : std::vector<std::string>{"bits", "constant", "local"},
             0, 0, "bits"});
        if (k.kind == KernelKind::strided)
            info.parameters.push_back(rows_parameter(kMaxRows, std::to_string(kDefaultRows) + " on CPUs, " +
                                                                   std::to_string(kDefaultGpuRows) + " on GPUs"));
        // No host_bytes: the budget prices the default 2 bytes per cell, the board's two buffers (on the
        // device, which is what bounds how far an unbounded board may grow there).
        register_engine(info, [&k](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
            return std::make_unique<ByteEngine>(k, board, options);
        });
    }
}

}  // namespace tilelife::opencl
