// sycl:hierarchical, sycl:halo-tile, sycl:halo-tile-strided: the board stays on the device (two USM
// allocations of one byte per cell, swapped every generation); the host moves cells only in
// write_region/read_region and one 64-bit count in population().
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "sycl/byte_kernels.hpp"
#include "sycl/device_engine.hpp"
#include "sycl/engines.hpp"
#include "sycl/population.hpp"
#include "sycl/runtime.hpp"
#include "tilelife/error.hpp"

namespace tilelife::sycl_backend {
namespace {

constexpr int kDefaultRows = 8;      // CPUs: short strips keep the tile in cache
constexpr int kDefaultGpuRows = 16;  // GPUs: longer strips reuse each loaded row more (H100, OpenCL twin)
constexpr std::uint64_t kStagingBytes = std::uint64_t{16} << 20;  // transfers move bands of this

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

struct Shape {
    int x = 0, y = 0;
};

std::string shape_text(Shape s) { return std::to_string(s.x) + "x" + std::to_string(s.y); }

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

// What a launch needs from the engine.
struct Launch {
    sycl::queue& q;
    const std::uint8_t* src;
    std::uint8_t* dst;
    ByteBoard b;
    std::uint32_t rule;
    bool torus;
    Shape shape;
    int rows;
};

// One byte kernel, all in one row: adding a kernel adds a row to kKernels (and its launch function
// to byte_kernels.hpp). The engine asks the row for everything that differs between kernels.
struct KernelSpec {
    const char* name;
    const char* description;
    bool has_rows;  // takes the "rows" parameter (strips of 4 cells x rows per work-item)
    // The work-group shapes to try, best first, when the user gives none.
    std::vector<Shape> (*defaults)(bool gpu);
    // The user's shape (at least 1x1): throws InputError when the kernel cannot take it.
    void (*check_shape)(Shape s);
    // Shapes and strip lengths the autotuner tries (rows {0}: the kernel has none).
    std::vector<std::pair<int, int>> autotune_shapes;
    std::vector<int> autotune_rows;
    std::uint64_t (*local_bytes)(Shape s, int rows);
    int (*cells_per_item)(int rows);
    TileGeometry (*tiles)(Shape s, int rows);
    sycl::event (*launch)(const Launch& l);
};

const KernelSpec kKernels[] = {
    {"sycl:hierarchical",
     "SYCL: Codeplay's hierarchical kernel (parallel_for_work_group, work-group scope tile, two "
     "parallel_for_work_item), edges and sizes fixed",
     false,
     [](bool) {
         std::vector<Shape> out;
         for (const auto& s : kHierarchicalShapes) out.push_back({s.x, s.y});
         return out;
     },
     [](Shape s) {
         std::string built;
         for (const auto& h : kHierarchicalShapes) {
             if (h.x == s.x && h.y == s.y) return;
             built += (built.empty() ? "" : ", ") + shape_text({h.x, h.y});
         }
         throw InputError("sycl:hierarchical is built for work-groups " + built + " (its work-group scope tile has "
                          "a compile-time size), not " + shape_text(s));
     },
     {{16, 16}, {8, 8}, {32, 8}, {32, 16}, {32, 32}},  // kHierarchicalShapes
     {0},
     [](Shape s, int) { return static_cast<std::uint64_t>(s.x + 2) * static_cast<std::uint64_t>(s.y + 2); },
     [](int) { return 1; },
     [](Shape s, int) {
         TileGeometry t;
         t.width = s.x, t.height = s.y, t.halo_x = 1, t.halo_y = 1;
         t.text = "work-group " + shape_text(s) + " owns a " + shape_text(s) +
                  " tile; the work-group scope array holds it with a one-cell halo";
         return t;
     },
     [](const Launch& l) {
         for (const auto& h : kHierarchicalShapes)
             if (h.x == l.shape.x && h.y == l.shape.y) return (l.torus ? h.torus : h.plane)(l.q, l.src, l.dst, l.b, l.rule);
         throw std::logic_error("sycl:hierarchical: shape not built");  // check_shape refused it before
     }},
    {"sycl:halo-tile",
     "SYCL: nd_range, local_accessor tile with halo, one cell per work-item, group_barrier (twin of opencl:halo-tile)",
     false,
     // The largest square group wastes the smallest share of work-items on the halo.
     [](bool) { return std::vector<Shape>{{32, 32}, {18, 18}, {16, 16}, {10, 10}, {8, 8}, {6, 6}, {4, 4}, {3, 3}}; },
     [](Shape s) {
         if (s.x < 3 || s.y < 3)
             throw InputError("sycl:halo-tile needs a work-group of at least 3x3 (the tile plus its one-cell halo)");
     },
     {{6, 6}, {10, 10}, {18, 10}, {18, 18}, {34, 10}, {34, 18}, {32, 32}, {66, 10}},
     {0},
     [](Shape s, int) { return static_cast<std::uint64_t>(s.x) * static_cast<std::uint64_t>(s.y); },
     [](int) { return 1; },
     [](Shape s, int) {
         TileGeometry t;
         t.width = s.x - 2, t.height = s.y - 2, t.halo_x = 1, t.halo_y = 1;
         t.text = "work-group " + shape_text(s) + " loads a " + shape_text({s.x - 2, s.y - 2}) +
                  " tile plus its one-cell halo, one cell per work-item";
         return t;
     },
     [](const Launch& l) {
         return l.torus ? launch_halo_tile<true>(l.q, l.src, l.dst, l.b, l.rule, l.shape.x, l.shape.y)
                        : launch_halo_tile<false>(l.q, l.src, l.dst, l.b, l.rule, l.shape.x, l.shape.y);
     }},
    {"sycl:halo-tile-strided",
     "SYCL: cooperative strided load of words into local memory, 4 cells x ROWS per work-item (twin of "
     "opencl:halo-tile-strided)",
     true,
     [](bool gpu) {
         if (gpu) return std::vector<Shape>{{64, 4}, {32, 8}, {32, 4}, {16, 4}, {8, 4}, {4, 2}, {1, 1}};
         return std::vector<Shape>{{32, 8}, {32, 4}, {16, 4}, {8, 4}, {8, 2}, {4, 2}, {2, 2}, {1, 1}};
     },
     [](Shape) {},
     {{8, 4}, {16, 4}, {16, 8}, {32, 4}, {32, 8}, {32, 16}, {64, 4}, {64, 8}},
     {4, 8, 16},
     [](Shape s, int rows) -> std::uint64_t {
         return 4ull * static_cast<std::uint64_t>(s.x + 2) * (static_cast<std::uint64_t>(rows) * s.y + 2);
     },
     [](int rows) { return 4 * rows; },
     [](Shape s, int rows) {
         TileGeometry t;
         t.width = 4 * s.x, t.height = rows * s.y, t.halo_x = 4, t.halo_y = 1;
         t.text = "work-group " + shape_text(s) + ", 4 cells x " + std::to_string(rows) +
                  " rows per work-item; halo one 4-cell word left and right, one row above and below";
         return t;
     },
     [](const Launch& l) {
         // Strips of 4, 8 and 16 rows are compiled with the row loop unrolled; others loop.
         auto strided = [&]<bool T>() {
             switch (l.rows) {
                 case 4: return launch_halo_tile_strided<T, 4>(l.q, l.src, l.dst, l.b, l.rule, l.shape.x, l.shape.y, l.rows);
                 case 8: return launch_halo_tile_strided<T, 8>(l.q, l.src, l.dst, l.b, l.rule, l.shape.x, l.shape.y, l.rows);
                 case 16: return launch_halo_tile_strided<T, 16>(l.q, l.src, l.dst, l.b, l.rule, l.shape.x, l.shape.y, l.rows);
                 default: return launch_halo_tile_strided<T, 0>(l.q, l.src, l.dst, l.b, l.rule, l.shape.x, l.shape.y, l.rows);
             }
         };
         return l.torus ? strided.template operator()<true>() : strided.template operator()<false>();
     }},
};

class ByteEngine final : public DeviceEngine {
public:
    ByteEngine(const KernelSpec& spec, const BoardSpec& board, const EngineOptions& options)
        : DeviceEngine(spec.name, board, options), spec_(spec), rule_bits_(rule_bits(board.rule.birth, board.rule.survival)) {
        create([&] { setup(options); });
    }

    ~ByteEngine() override {
        wait_quietly();
        for (std::uint8_t* p : {cur_, next_, staging_})
            if (p) sycl::free(p, rt_->queue);
    }

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

    std::int64_t population() const override {
        return count_population(reinterpret_cast<const std::uint32_t*>(cur_), ByteCells{});
    }

    EngineDescription describe() const override {
        EngineDescription d = describe_device();
        d.wg_width = shape_.x;
        d.wg_height = shape_.y;
        d.cells_per_item = spec_.cells_per_item(rows_);
        d.tiles = spec_.tiles(shape_, rows_);
        d.device_bytes = static_cast<std::int64_t>(2 * pitch_ * static_cast<std::uint64_t>(h_));
        d.properties.emplace_back("local memory bytes per work-group", static_cast<std::int64_t>(local_bytes(shape_)));
        d.properties.emplace_back("row pitch bytes", static_cast<std::int64_t>(pitch_));
        d.autotune = autotune_candidates();
        return d;
    }

private:
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
            spec_.check_shape({o.wg_width, o.wg_height});
            return {Shape{o.wg_width, o.wg_height}};
        }
        return spec_.defaults(rt_->info.is_gpu());
    }

    std::uint64_t local_bytes(Shape s) const { return spec_.local_bytes(s, rows_); }

    std::vector<EngineOptions> autotune_candidates() const {
        const auto& shapes = spec_.autotune_shapes;
        const auto& rows = spec_.autotune_rows;
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
        rows_ = static_cast<int>(options.param_int("rows", dev.is_gpu() ? kDefaultGpuRows : kDefaultRows));
        // Rows padded to 16 bytes: every row starts word-aligned, so the strided kernel moves cells as
        // 32-bit words. Padding bytes stay 0 (no kernel writes them), which the population relies on.
        pitch_ = round_up(static_cast<std::uint64_t>(w_), 16);
        const auto h = static_cast<std::uint64_t>(h_);
        check_allocation(pitch_);

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
        const ByteBoard b{static_cast<std::uint64_t>(w_), static_cast<std::uint64_t>(h_), pitch_};
        return spec_.launch(Launch{rt_->queue, cur_, next_, b, rule_bits_, topology_ == Topology::torus, shape_, rows_});
    }

    void launch(std::int64_t n, std::vector<sycl::event>* events) override {
        run_launches(n, events, [&](std::int64_t) {
            sycl::event ev = launch_one();
            std::swap(cur_, next_);
            return std::pair<sycl::event, std::int64_t>(ev, 1);
        });
    }

    const KernelSpec& spec_;
    std::uint32_t rule_bits_;
    int rows_ = kDefaultRows;
    std::uint64_t pitch_ = 0;
    Shape shape_;
    std::uint8_t* cur_ = nullptr;
    std::uint8_t* next_ = nullptr;
    mutable std::uint8_t* staging_ = nullptr;
    mutable std::uint64_t staging_bytes_ = 0;
};

}  // namespace

void register_byte_engines() {
    for (const KernelSpec& k : kKernels) {
        EngineInfo info;
        info.name = k.name;
        info.description = k.description;
        info.parameters.push_back({"reduction",
                                   "population path: sycl::reduction, reduce_over_group, or the tutorial's local-memory "
                                   "tree (auto: the fastest measured on the device's kind)",
                                   reduction_choices(), 0, 0, "auto"});
        if (k.has_rows)
            info.parameters.push_back({"rows", "rows per work-item (each computes 4 cells x rows)", {}, 1, 64,
                                       "16 on GPUs, 8 on CPUs"});
        register_engine(info, [&k](const BoardSpec& board, const EngineOptions& options) -> std::unique_ptr<Engine> {
            return std::make_unique<ByteEngine>(k, board, options);
        });
    }
}

}  // namespace tilelife::sycl_backend
