// sycl:hierarchical, sycl:halo-tile, sycl:halo-tile-strided: the board stays on the device (two USM
// allocations of one byte per cell, swapped every generation); the host moves cells only in
// write_region/read_region and one 64-bit count in population().
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "sycl/byte_kernels.hpp"
#include "sycl/engines.hpp"
#include "sycl/population.hpp"
#include "sycl/runtime.hpp"
#include "tilelife/error.hpp"

namespace tilelife::sycl_backend {
namespace {

enum class Kind { hierarchical, halo_tile, strided };

struct KernelSpec {
    Kind kind;
    const char* name;
    const char* description;
};

const KernelSpec kSpecs[] = {
    {Kind::hierarchical, "sycl:hierarchical",
     "SYCL: Codeplay's hierarchical kernel (parallel_for_work_group, work-group scope tile, two "
     "parallel_for_work_item), edges and sizes fixed"},
    {Kind::halo_tile, "sycl:halo-tile",
     "SYCL: nd_range, local_accessor tile with halo, one cell per work-item, group_barrier (twin of opencl:halo-tile)"},
    {Kind::strided, "sycl:halo-tile-strided",
     "SYCL: cooperative strided load of words into local memory, 4 cells x ROWS per work-item (twin of "
     "opencl:halo-tile-strided)"},
};

constexpr int kDefaultRows = 8;      // CPUs: short strips keep the tile in cache
constexpr int kDefaultGpuRows = 16;  // GPUs: longer strips reuse each loaded row more (H100, OpenCL twin)
constexpr std::uint64_t kStagingBytes = std::uint64_t{16} << 20;  // transfers move bands of this

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

struct Shape {
    int x = 0, y = 0;
};

// The hierarchical kernel's work-group scope tile has a compile-time size: these shapes are built.
using HierarchicalLaunch = sycl::event (*)(sycl::queue&, const std::uint8_t*, std::uint8_t*, ByteBoard, std::uint32_t);
struct HierarchicalShape {
    int x, y;
    HierarchicalLaunch torus, plane;
};
const HierarchicalShape kHierarchicalShapes[] = {
    {16, 16, &launch_hierarchical<16, 16, true>, &launch_hierarchical<16, 16, false>},  // the tutorial's GROUPSIZE
    {8, 8, &launch_hierarchical<8, 8, true>, &launch_hierarchical<8, 8, false>},
    {32, 8, &launch_hierarchical<32, 8, true>, &launch_hierarchical<32, 8, false>},
    {32, 16, &launch_hierarchical<32, 16, true>, &launch_hierarchical<32, 16, false>},
    {32, 32, &launch_hierarchical<32, 32, true>, &launch_hierarchical<32, 32, false>},
};

std::string shape_text(Shape s) { return std::to_string(s.x) + "x" + std::to_string(s.y); }

class ByteEngine final : public Engine {
public:
    ByteEngine(const KernelSpec& spec, const BoardSpec& board, const EngineOptions& options)
        : spec_(spec), w_(board.width), h_(board.height), topology_(board.topology), rule_(board.rule),
          rule_bits_(rule_bits(board.rule.birth, board.rule.survival)), interrupt_(options.interrupt) {
        if (topology_ == Topology::unbounded)
            throw std::logic_error("sycl engines are bounded; unbounded boards come from make_unbounded");
        rt_ = runtime_for(options.device);
        try {
            setup(options);
        } catch (const sycl::exception& e) {
            throw_runtime(e, std::string("creating ") + spec_.name + " for a " + std::to_string(w_) + "x" +
                                 std::to_string(h_) + " board");
        }
    }

    ~ByteEngine() override {
        try {
            rt_->queue.wait();
        } catch (...) {
        }
        for (std::uint8_t* p : {cur_, next_, staging_})
            if (p) sycl::free(p, rt_->queue);
    }

    std::string name() const override { return spec_.name; }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        check(box);
        if (box.empty()) return;
        try {
            const auto bw = static_cast<std::uint64_t>(box.width), bh = static_cast<std::uint64_t>(box.height);
            const std::uint64_t band = std::min(bh, std::max<std::uint64_t>(1, kStagingBytes / bw));
            ensure_staging(band * bw);
            for (std::uint64_t y = 0; y < bh; y += band) {
                const std::uint64_t h = std::min(band, bh - y);
                rt_->queue.memcpy(staging_, cells + y * bw, static_cast<std::size_t>(h * bw));
                scatter_cells(rt_->queue, staging_, bw, h, cur_, pitch_, static_cast<std::uint64_t>(box.x),
                              static_cast<std::uint64_t>(box.y) + y);
            }
            rt_->sync("writing cells to the device");  // the caller's cells must stay valid until then
        } catch (const sycl::exception& e) {
            throw_runtime(e, "writing cells to the device");
        }
    }

    void read_region(const Box& box, std::uint8_t* cells) const override {
        check(box);
        if (box.empty()) return;
        try {
            const auto bw = static_cast<std::uint64_t>(box.width), bh = static_cast<std::uint64_t>(box.height);
            const std::uint64_t band = std::min(bh, std::max<std::uint64_t>(1, kStagingBytes / bw));
            ensure_staging(band * bw);
            for (std::uint64_t y = 0; y < bh; y += band) {
                const std::uint64_t h = std::min(band, bh - y);
                gather_cells(rt_->queue, cur_, pitch_, static_cast<std::uint64_t>(box.x),
                             static_cast<std::uint64_t>(box.y) + y, bw, h, staging_);
                rt_->queue.memcpy(cells + y * bw, staging_, static_cast<std::size_t>(h * bw));
            }
            rt_->sync("reading cells from the device");
        } catch (const sycl::exception& e) {
            throw_runtime(e, "reading cells from the device");
        }
    }

    void step(std::int64_t n) override { launch(n, nullptr); }

    std::optional<StepTiming> step_timed(std::int64_t n) override {
        std::vector<sycl::event> events;
        events.reserve(static_cast<std::size_t>(std::clamp<std::int64_t>(n, 0, 1 << 20)));
        launch(n, &events);
        try {
            return timing_of(events);
        } catch (const sycl::exception& e) {
            throw_runtime(e, std::string("timing ") + spec_.name);
        }
    }

    std::int64_t population() const override {
        try {
            return population_->count(reinterpret_cast<const std::uint32_t*>(cur_), reduction_, ByteCells{});
        } catch (const sycl::exception& e) {
            throw_runtime(e, "counting the population");
        }
    }

    std::int64_t generation() const override { return generation_; }

    EngineDescription describe() const override {
        EngineDescription d = Engine::describe();
        d.device = rt_->info.id() + " " + rt_->info.name;
        d.wg_width = shape_.x;
        d.wg_height = shape_.y;
        d.cells_per_item = spec_.kind == Kind::strided ? 4 * rows_ : 1;
        TileGeometry t;
        switch (spec_.kind) {
            case Kind::hierarchical:
                t.width = shape_.x, t.height = shape_.y, t.halo_x = 1, t.halo_y = 1;
                t.text = "work-group " + shape_text(shape_) + " owns a " + shape_text(shape_) +
                         " tile; the work-group scope array holds it with a one-cell halo";
                break;
            case Kind::halo_tile:
                t.width = shape_.x - 2, t.height = shape_.y - 2, t.halo_x = 1, t.halo_y = 1;
                t.text = "work-group " + shape_text(shape_) + " loads a " + shape_text({shape_.x - 2, shape_.y - 2}) +
                         " tile plus its one-cell halo, one cell per work-item";
                break;
            case Kind::strided:
                t.width = 4 * shape_.x, t.height = rows_ * shape_.y, t.halo_x = 4, t.halo_y = 1;
                t.text = "work-group " + shape_text(shape_) + ", 4 cells x " + std::to_string(rows_) +
                         " rows per work-item; halo one 4-cell word left and right, one row above and below";
                break;
        }
        d.tiles = t;
        d.device_bytes = static_cast<std::int64_t>(2 * pitch_ * static_cast<std::uint64_t>(h_));
        d.properties.emplace_back("reduction", to_string(reduction_));
        d.properties.emplace_back("local memory bytes per work-group", static_cast<std::int64_t>(local_bytes(shape_)));
        d.properties.emplace_back("row pitch bytes", static_cast<std::int64_t>(pitch_));
        d.autotune = autotune_candidates();
        return d;
    }

private:
    void check(const Box& b) const {
        if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > w_ || b.bottom() > h_)
            throw std::out_of_range("region outside the board");
    }

    void ensure_staging(std::uint64_t bytes) const {
        if (staging_bytes_ >= bytes) return;
        if (staging_) sycl::free(staging_, rt_->queue);
        staging_ = sycl::malloc_device<std::uint8_t>(static_cast<std::size_t>(bytes), rt_->queue);
        staging_bytes_ = staging_ ? bytes : 0;
        if (!staging_) throw RuntimeError("SYCL: cannot allocate a staging buffer on " + rt_->info.name);
    }

    // Work-group shapes to try, best first; a user's --wg is the only candidate.
    std::vector<Shape> candidates(const EngineOptions& o) const {
        if (o.wg_width > 0 || o.wg_height > 0) {
            if (o.wg_width < 1 || o.wg_height < 1)
                throw InputError(std::string(spec_.name) + " needs a work-group width and height of at least 1 (e.g. 16x16)");
            if (spec_.kind == Kind::halo_tile && (o.wg_width < 3 || o.wg_height < 3))
                throw InputError("sycl:halo-tile needs a work-group of at least 3x3 (the tile plus its one-cell halo)");
            if (spec_.kind == Kind::hierarchical) {
                std::string built;
                for (const auto& s : kHierarchicalShapes) {
                    if (s.x == o.wg_width && s.y == o.wg_height) return {Shape{s.x, s.y}};
                    built += (built.empty() ? "" : ", ") + shape_text({s.x, s.y});
                }
                throw InputError("sycl:hierarchical is built for work-groups " + built + " (its work-group scope tile has "
                                 "a compile-time size), not " + shape_text({o.wg_width, o.wg_height}));
            }
            return {Shape{o.wg_width, o.wg_height}};
        }
        switch (spec_.kind) {
            case Kind::hierarchical: {
                std::vector<Shape> out;
                for (const auto& s : kHierarchicalShapes) out.push_back({s.x, s.y});
                return out;
            }
            // The largest square group wastes the smallest share of work-items on the halo.
            case Kind::halo_tile: return {{32, 32}, {18, 18}, {16, 16}, {10, 10}, {8, 8}, {6, 6}, {4, 4}, {3, 3}};
            case Kind::strided:
                if (rt_->info.is_gpu()) return {{64, 4}, {32, 8}, {32, 4}, {16, 4}, {8, 4}, {4, 2}, {1, 1}};
                return {{32, 8}, {32, 4}, {16, 4}, {8, 4}, {8, 2}, {4, 2}, {2, 2}, {1, 1}};
        }
        return {};
    }

    std::uint64_t local_bytes(Shape s) const {
        switch (spec_.kind) {
            case Kind::hierarchical: return static_cast<std::uint64_t>(s.x + 2) * static_cast<std::uint64_t>(s.y + 2);
            case Kind::halo_tile: return static_cast<std::uint64_t>(s.x) * static_cast<std::uint64_t>(s.y);
            case Kind::strided:
                return 4ull * static_cast<std::uint64_t>(s.x + 2) * (static_cast<std::uint64_t>(rows_) * s.y + 2);
        }
        return 0;
    }

    std::vector<EngineOptions> autotune_candidates() const {
        std::vector<std::pair<int, int>> shapes;
        std::vector<int> rows = {0};
        switch (spec_.kind) {
            case Kind::hierarchical:
                for (const auto& s : kHierarchicalShapes) shapes.emplace_back(s.x, s.y);
                break;
            case Kind::halo_tile: shapes = {{6, 6}, {10, 10}, {18, 10}, {18, 18}, {34, 10}, {34, 18}, {32, 32}, {66, 10}}; break;
            case Kind::strided:
                shapes = {{8, 4}, {16, 4}, {16, 8}, {32, 4}, {32, 8}, {32, 16}, {64, 4}, {64, 8}};
                rows = {4, 8, 16};
                break;
        }
        std::vector<EngineOptions> out;
        for (int r : rows)
            for (auto [x, y] : shapes) {
                const auto items = static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y);
                if (items > rt_->info.max_work_group_size) continue;
                EngineOptions o;
                o.device = device_spec_;
                o.wg_width = x;
                o.wg_height = y;
                if (r) o.params["rows"] = std::to_string(r);
                o.params["reduction"] = to_string(reduction_);
                out.push_back(o);
            }
        return out;
    }

    void setup(const EngineOptions& options) {
        const DeviceDescription& dev = rt_->info;
        device_spec_ = options.device;
        reduction_ = reduction_for(options.param("reduction", "auto"), dev);
        rows_ = static_cast<int>(options.param_int("rows", dev.is_gpu() ? kDefaultGpuRows : kDefaultRows));
        // Rows padded to 16 bytes: every row starts word-aligned, so the strided kernel moves cells as
        // 32-bit words. Padding bytes stay 0 (no kernel writes them), which the population relies on.
        pitch_ = round_up(static_cast<std::uint64_t>(w_), 16);
        const auto h = static_cast<std::uint64_t>(h_);
        if (h > (std::uint64_t{1} << 62) / pitch_ || pitch_ * h > dev.max_alloc || 2 * pitch_ * h > dev.global_mem_size)
            throw RuntimeError("a " + std::to_string(w_) + "x" + std::to_string(h_) + " board needs two " +
                               std::to_string((pitch_ * h) >> 20) + " MiB allocations; " + dev.name + " allows " +
                               std::to_string(dev.max_alloc >> 20) + " MiB each and has " +
                               std::to_string(dev.global_mem_size >> 20) + " MiB");

        const bool user = options.wg_width > 0 || options.wg_height > 0;
        std::string why;
        bool found = false;
        for (Shape s : candidates(options)) {
            const auto items = static_cast<std::uint64_t>(s.x) * static_cast<std::uint64_t>(s.y);
            if (items > dev.max_work_group_size) {
                why = "work-group " + shape_text(s) + " is " + std::to_string(items) + " work-items; " + dev.name +
                      " allows at most " + std::to_string(dev.max_work_group_size);
                continue;
            }
            if (!rt_->local_fits(local_bytes(s))) {
                why = "work-group " + shape_text(s) + " needs " + std::to_string(local_bytes(s)) + " bytes of local memory; " +
                      dev.name + " has " + std::to_string(dev.local_mem_size);
                continue;
            }
            shape_ = s;
            found = true;
            break;
        }
        if (!found) {
            if (user) throw InputError(why);
            throw RuntimeError(std::string("no work-group shape fits ") + spec_.name + " on " + dev.name + ": " + why);
        }
        if (spec_.kind == Kind::hierarchical)
            for (const auto& s : kHierarchicalShapes)
                if (s.x == shape_.x && s.y == shape_.y) hierarchical_ = topology_ == Topology::torus ? s.torus : s.plane;

        const std::size_t bytes = static_cast<std::size_t>(pitch_ * h);
        cur_ = sycl::malloc_device<std::uint8_t>(bytes, rt_->queue);
        next_ = sycl::malloc_device<std::uint8_t>(bytes, rt_->queue);
        if (!cur_ || !next_)
            throw RuntimeError("SYCL: cannot allocate two " + std::to_string(bytes >> 20) + " MiB board buffers on " + dev.name);
        rt_->queue.memset(cur_, 0, bytes);
        rt_->queue.memset(next_, 0, bytes);
        population_ = std::make_unique<Population>(*rt_, pitch_ * h / 4);
        rt_->sync("clearing the board");  // allocation failures surface here rather than at the first step
    }

    sycl::event launch_one() {
        sycl::queue& q = rt_->queue;
        const ByteBoard b{static_cast<std::uint64_t>(w_), static_cast<std::uint64_t>(h_), pitch_};
        const bool torus = topology_ == Topology::torus;
        switch (spec_.kind) {
            case Kind::hierarchical: return hierarchical_(q, cur_, next_, b, rule_bits_);
            case Kind::halo_tile:
                return torus ? launch_halo_tile<true>(q, cur_, next_, b, rule_bits_, shape_.x, shape_.y)
                             : launch_halo_tile<false>(q, cur_, next_, b, rule_bits_, shape_.x, shape_.y);
            case Kind::strided: {
                // Strips of 4, 8 and 16 rows are compiled with the row loop unrolled; others loop.
                auto strided = [&]<bool T>() {
                    switch (rows_) {
                        case 4: return launch_halo_tile_strided<T, 4>(q, cur_, next_, b, rule_bits_, shape_.x, shape_.y, rows_);
                        case 8: return launch_halo_tile_strided<T, 8>(q, cur_, next_, b, rule_bits_, shape_.x, shape_.y, rows_);
                        case 16: return launch_halo_tile_strided<T, 16>(q, cur_, next_, b, rule_bits_, shape_.x, shape_.y, rows_);
                        default: return launch_halo_tile_strided<T, 0>(q, cur_, next_, b, rule_bits_, shape_.x, shape_.y, rows_);
                    }
                };
                return torus ? strided.template operator()<true>() : strided.template operator()<false>();
            }
        }
        return {};
    }

    void launch(std::int64_t n, std::vector<sycl::event>* events) {
        try {
            for (std::int64_t g = 0; g < n; ++g) {
                sycl::event ev = launch_one();
                if (events) events->push_back(ev);
                std::swap(cur_, next_);
                ++generation_;
                // Bound the commands in flight; one wait per 256 launches costs nothing.
                if (g % 256 == 255) {
                    rt_->sync("running generations");
                    if (interrupt_ && interrupt_->load()) break;
                }
            }
            rt_->sync((std::string("running ") + spec_.name).c_str());
        } catch (const sycl::exception& e) {
            throw_runtime(e, std::string("running ") + spec_.name);
        }
    }

    const KernelSpec& spec_;
    std::shared_ptr<DeviceRuntime> rt_;
    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    std::uint32_t rule_bits_;
    const std::atomic<bool>* interrupt_;
    std::string device_spec_;
    Reduction reduction_ = Reduction::sycl_reduction;
    int rows_ = kDefaultRows;
    std::uint64_t pitch_ = 0;
    Shape shape_;
    HierarchicalLaunch hierarchical_ = nullptr;
    std::uint8_t* cur_ = nullptr;
    std::uint8_t* next_ = nullptr;
    mutable std::uint8_t* staging_ = nullptr;
    mutable std::uint64_t staging_bytes_ = 0;
    std::int64_t generation_ = 0;
    std::unique_ptr<Population> population_;
};

}  // namespace

void register_byte_engines() {
    for (const KernelSpec& k : kSpecs) {
        EngineInfo info;
        info.name = k.name;
        info.description = k.description;
        info.parameters.push_back({"reduction",
                                   "population path: sycl::reduction, reduce_over_group, or the tutorial's local-memory "
                                   "tree (auto: the fastest measured on the device's kind)",
                                   reduction_choices(), 0, 0, "auto"});
        if (k.kind == Kind::strided)
            info.parameters.push_back({"rows", "rows per work-item (each computes 4 cells x rows)", {}, 1, 64,
                                       "16 on GPUs, 8 on CPUs"});
        register_engine(info, [&k](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
            return std::make_unique<ByteEngine>(k, board, options);
        });
    }
}

}  // namespace tilelife::sycl_backend
