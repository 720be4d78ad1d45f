// The work-group primitives the kernels are composed of (src/opencl/kernels: board.cl, wg_reduce.cl,
// wg_scan.cl, tile_load.cl), each through a small test kernel (kernels/primitives_test.cl), against a
// host computation: odd sizes, several work-group sizes and shapes, both topologies. The same tests
// run under Oclgrind's race checker (ctest oclgrind.primitives).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "opencl/kernel_sources.hpp"
#include "opencl/runtime.hpp"
#include "support/opencl_fixture.hpp"

namespace tilelife {
namespace {

// One value per work-item (a 2-D launch of gx x gy), groups of lx x ly: what each group must sum to,
// and the items of each group in the group's linear order.
struct Groups {
    std::size_t count = 0;
    std::vector<std::vector<std::size_t>> items;  // global linear ids, by group linear id
};
Groups groups_of(std::size_t gx, std::size_t gy, std::size_t lx, std::size_t ly) {
    Groups g;
    const std::size_t ngx = gx / lx, ngy = gy / ly;
    g.count = ngx * ngy;
    g.items.resize(g.count);
    for (std::size_t by = 0; by < ngy; ++by)
        for (std::size_t bx = 0; bx < ngx; ++bx)
            for (std::size_t y = 0; y < ly; ++y)
                for (std::size_t x = 0; x < lx; ++x)
                    g.items[by * ngx + bx].push_back((by * ly + y) * gx + bx * lx + x);
    return g;
}

class Primitives : public testing_support::OpenCLTest {
protected:
    void SetUp() override {
        OpenCLTest::SetUp();
        if (IsSkipped()) return;
        rt_ = opencl::runtime_for("");
    }

    // The primitives and the test kernels, built with `options` (cached per options).
    cl::Program program(const std::string& options) {
        for (const auto& [opts, p] : built_)
            if (opts == options) return p;
        std::string source;
        for (const char* f : {"board.cl", "wg_reduce.cl", "wg_scan.cl", "tile_load.cl"}) {
            source += "#line 1 \"" + std::string(f) + "\"\n";
            source += opencl::kernel_source(f);
            source += "\n";
        }
        std::ifstream in(std::string(TILELIFE_SOURCE_DIR) + "/tests/opencl/kernels/primitives_test.cl");
        std::stringstream text;
        text << in.rdbuf();
        EXPECT_FALSE(text.str().empty()) << "tests/opencl/kernels/primitives_test.cl not found";
        source += "#line 1 \"primitives_test.cl\"\n" + text.str();
        cl::Program p(rt_->context, source);
        try {
            p.build(std::vector<cl::Device>{rt_->device}, options.c_str());
        } catch (const cl::Error&) {
            ADD_FAILURE() << "build failed: " << p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(rt_->device);
            throw;
        }
        built_.emplace_back(options, p);
        return p;
    }

    // The reduction paths this device can build: the tree always, collectives where it has them.
    std::vector<std::string> reduction_options() const {
        std::vector<std::string> out = {"-DWG_COLLECTIVE=0"};
        if (!rt_->work_group_std.empty()) out.push_back(rt_->work_group_std + " -DWG_COLLECTIVE=1");
        if (!rt_->sub_group_std.empty()) out.push_back(rt_->sub_group_std + " -DWG_COLLECTIVE=2");
        return out;
    }

    // Work-group shapes (x, y) up to what the kernel allows on this device: 1-D sizes that are and are
    // not powers of two, and 2-D shapes.
    std::vector<std::pair<std::size_t, std::size_t>> shapes(const cl::Kernel& k) const {
        const std::size_t max = std::min(rt_->info.max_work_group_size, k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt_->device));
        std::vector<std::pair<std::size_t, std::size_t>> out;
        for (auto s : std::vector<std::pair<std::size_t, std::size_t>>{
                 {1, 1}, {2, 1}, {3, 1}, {7, 1}, {32, 1}, {33, 1}, {64, 1}, {100, 1}, {256, 1}, {5, 3}, {8, 4}, {16, 16}})
            if (s.first * s.second <= max) out.push_back(s);
        return out;
    }

    void run(cl::Kernel& k, std::size_t gx, std::size_t gy, std::size_t lx, std::size_t ly) {
        rt_->queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(gx, gy), cl::NDRange(lx, ly));
        rt_->queue.finish();
    }

    template <class T>
    cl::Buffer buffer(const std::vector<T>& v) {
        return cl::Buffer(rt_->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T),
                          const_cast<T*>(v.data()));
    }
    template <class T>
    std::vector<T> read(const cl::Buffer& b, std::size_t n) {
        std::vector<T> out(n);
        rt_->queue.enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(T), out.data());
        return out;
    }

    // One reduction launch: n random values below max_value, groups of lx x ly; each group's sum
    // against the host's, and a second reduction through the same scratch must agree.
    template <class T>
    void reduce_case(cl::Kernel k, T max_value, std::size_t lx, std::size_t ly, std::size_t n, std::uint64_t seed) {
        const std::size_t per = lx * ly, ngroups = (n + per - 1) / per;
        const std::size_t ngx = std::min<std::size_t>(ngroups, 3), ngy = (ngroups + ngx - 1) / ngx;
        const std::size_t gx = ngx * lx, gy = ngy * ly;  // a few items past n: they add 0
        std::mt19937_64 rng(seed);
        std::vector<T> values(n);
        for (auto& v : values) v = static_cast<T>(rng() % (static_cast<std::uint64_t>(max_value) + 1));
        const Groups g = groups_of(gx, gy, lx, ly);
        std::vector<T> want(g.count, 0);
        for (std::size_t b = 0; b < g.count; ++b)
            for (std::size_t i : g.items[b])
                if (i < n) want[b] += values[i];
        cl::Buffer in = buffer(values), out = buffer(std::vector<T>(g.count, 0));
        cl::Buffer ok = buffer(std::vector<cl_uint>(g.count, 1));
        k.setArg(0, in);
        k.setArg(1, static_cast<cl_ulong>(n));
        k.setArg(2, out);
        k.setArg(3, ok);
        k.setArg(4, cl::Local(per * sizeof(T)));
        run(k, gx, gy, lx, ly);
        EXPECT_EQ(read<T>(out, g.count), want) << "groups " << lx << "x" << ly << ", " << n << " items";
        EXPECT_EQ(read<cl_uint>(ok, g.count), std::vector<cl_uint>(g.count, 1)) << "a second reduction differed";
    }

    std::shared_ptr<const opencl::DeviceRuntime> rt_;
    std::vector<std::pair<std::string, cl::Program>> built_;
};

TEST_F(Primitives, WorkGroupReductionEqualsHostSums) {
    for (const std::string& options : reduction_options()) {
        SCOPED_TRACE(options);
        cl::Program p = program(options + " -DTORUS=1");
        cl::Kernel ku(p, "test_reduce_uint"), kl(p, "test_reduce_ulong");
        std::uint64_t seed = 1;
        for (auto [lx, ly] : shapes(ku))
            for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{999}, lx * ly, 3 * lx * ly + 1}) {
                reduce_case<cl_uint>(ku, 1u << 20, lx, ly, n, ++seed);
                reduce_case<cl_ulong>(kl, cl_ulong{1} << 40, lx, ly, n, ++seed);
            }
    }
}

TEST_F(Primitives, WorkGroupScanEqualsHostPrefixSums) {
    cl::Program p = program("-DTORUS=1");
    cl::Kernel k(p, "test_scan");
    std::uint64_t seed = 7;
    for (auto [lx, ly] : shapes(k))
        for (std::size_t n : {std::size_t{1}, std::size_t{29}, std::size_t{1001}, 2 * lx * ly}) {
            const std::size_t per = lx * ly, ngroups = (n + per - 1) / per;
            const std::size_t ngx = std::min<std::size_t>(ngroups, 4), ngy = (ngroups + ngx - 1) / ngx;
            const std::size_t gx = ngx * lx, gy = ngy * ly;
            std::mt19937_64 rng(++seed);
            std::vector<cl_uint> values(n);
            for (auto& v : values) v = static_cast<cl_uint>(rng() % 3 == 0 ? rng() % 1000 : rng() % 2);
            std::vector<cl_uint> want(n, 0);
            for (const auto& items : groups_of(gx, gy, lx, ly).items) {
                cl_uint sum = 0;
                for (std::size_t i : items) {
                    if (i < n) sum += values[i];
                    if (i < n) want[i] = sum;
                }
            }
            cl::Buffer in = buffer(values), out = buffer(std::vector<cl_uint>(n, 0));
            k.setArg(0, in);
            k.setArg(1, static_cast<cl_ulong>(n));
            k.setArg(2, out);
            k.setArg(3, cl::Local(per * sizeof(cl_uint)));
            run(k, gx, gy, lx, ly);
            EXPECT_EQ(read<cl_uint>(out, n), want) << "groups " << lx << "x" << ly << ", " << n << " items";
        }
}

TEST_F(Primitives, WrapIndexIsTheModulo) {
    cl::Program p = program("-DTORUS=1");
    cl::Kernel k(p, "test_wrap");
    for (cl_long m : {1, 2, 3, 7, 100, 65537}) {
        std::vector<cl_long> v;
        for (cl_long x = -3 * m - 2; x <= 3 * m + 2; x += std::max<cl_long>(1, m / 17)) v.push_back(x);
        v.push_back(-1000003 * m - 5);
        v.push_back(1000003 * m + 5);
        std::vector<cl_long> want;
        for (cl_long x : v) want.push_back(((x % m) + m) % m);
        cl::Buffer in = buffer(v), out = buffer(std::vector<cl_long>(v.size(), -1));
        k.setArg(0, in);
        k.setArg(1, static_cast<cl_ulong>(v.size()));
        k.setArg(2, m);
        k.setArg(3, out);
        run(k, (v.size() + 15) / 16 * 16, 1, 16, 1);
        EXPECT_EQ(read<cl_long>(out, v.size()), want) << "m = " << m;
    }
}

TEST_F(Primitives, ClearZeroesExactlyTheWordsAsked) {
    cl::Program p = program("-DTORUS=1");
    cl::Kernel k(p, "clear_words");
    for (std::size_t n : {1, 63, 64, 65, 1000}) {
        std::vector<cl_uint> words(n + 5, 0xdeadbeefu);
        cl::Buffer b = buffer(words);
        k.setArg(0, b);
        k.setArg(1, static_cast<cl_ulong>(n));
        run(k, (n + 63) / 64 * 64, 1, 64, 1);
        std::vector<cl_uint> want(n, 0);
        want.resize(n + 5, 0xdeadbeefu);
        EXPECT_EQ(read<cl_uint>(b, n + 5), want) << n;
    }
}

// The host's word (j, c) of a tile at (x0, y0): cells x0+4c .. x0+4c+3 of row y0+j, byte k = cell
// x0+4c+k, wrapped on a torus and 0 outside a plane board.
std::uint32_t host_word(const std::vector<std::uint8_t>& cells, std::int64_t w, std::int64_t h, bool torus,
                        std::int64_t x, std::int64_t y) {
    std::uint32_t out = 0;
    for (int k = 0; k < 4; ++k) {
        std::int64_t cx = x + k, cy = y;
        if (torus) {
            cx = ((cx % w) + w) % w;
            cy = ((cy % h) + h) % h;
        } else if (cx < 0 || cy < 0 || cx >= w || cy >= h) {
            continue;
        }
        out |= static_cast<std::uint32_t>(cells[static_cast<std::size_t>(cy * w + cx)]) << (8 * k);
    }
    return out;
}

TEST_F(Primitives, CooperativeTileLoadEqualsTheBoard) {
    struct Board {
        std::int64_t w, h;
    };
    struct Tile {
        std::int64_t x0, y0;
        std::uint32_t lw, lh;
    };
    for (bool torus : {true, false}) {
        cl::Program p = program(std::string("-DTORUS=") + (torus ? "1" : "0"));
        cl::Kernel k(p, "test_tile_load");
        for (Board b : {Board{5, 3}, Board{13, 7}, Board{37, 29}, Board{64, 40}}) {
            const std::int64_t pitch = (b.w + 15) / 16 * 16;
            const auto cells = testing_support::random_cells(b.w, b.h, static_cast<std::uint64_t>(b.w * 100 + b.h), 0.5);
            std::vector<std::uint8_t> padded(static_cast<std::size_t>(pitch * b.h), 0);
            for (std::int64_t y = 0; y < b.h; ++y)
                std::copy_n(cells.begin() + y * b.w, b.w, padded.begin() + y * pitch);
            cl::Buffer board = buffer(padded);
            for (Tile t : {Tile{-4, -1, 3, 4}, Tile{0, 0, 1, 1}, Tile{4, 2, 7, 5}, Tile{-8, -6, 10, 10}, Tile{8, 1, 3, 9},
                           Tile{b.w / 4 * 4 - 4, b.h - 2, 4, 5}})
                for (auto [lx, ly] : shapes(k)) {
                    // Three groups side by side, 2 words apart (their tiles overlap).
                    const std::int64_t stride = 2;
                    const bool inside = t.x0 >= 0 && t.y0 >= 0 && t.y0 + t.lh <= b.h &&
                                        t.x0 + 4 * (2 * stride + t.lw) <= b.w;
                    for (bool interior : {false, true}) {
                        if (interior && !inside) continue;
                        SCOPED_TRACE(std::string(torus ? "torus " : "plane ") + std::to_string(b.w) + "x" +
                                     std::to_string(b.h) + " tile at " + std::to_string(t.x0) + "," +
                                     std::to_string(t.y0) + " " + std::to_string(t.lw) + "x" + std::to_string(t.lh) +
                                     " words, group " + std::to_string(lx) + "x" + std::to_string(ly) +
                                     (interior ? " interior" : ""));
                        const std::size_t words = t.lw * t.lh;
                        cl::Buffer out = buffer(std::vector<cl_uint>(3 * words, 0xdeadbeefu));
                        k.setArg(0, board);
                        k.setArg(1, static_cast<cl_ulong>(b.w));
                        k.setArg(2, static_cast<cl_ulong>(b.h));
                        k.setArg(3, static_cast<cl_ulong>(pitch));
                        k.setArg(4, static_cast<cl_long>(t.x0));
                        k.setArg(5, static_cast<cl_long>(t.y0));
                        k.setArg(6, static_cast<cl_long>(stride));
                        k.setArg(7, t.lw);
                        k.setArg(8, t.lh);
                        k.setArg(9, static_cast<cl_uint>(interior));
                        k.setArg(10, out);
                        k.setArg(11, cl::Local(words * sizeof(cl_uint)));
                        run(k, 3 * lx, ly, lx, ly);
                        std::vector<cl_uint> want;
                        for (int g = 0; g < 3; ++g)
                            for (std::uint32_t j = 0; j < t.lh; ++j)
                                for (std::uint32_t c = 0; c < t.lw; ++c)
                                    want.push_back(host_word(cells, b.w, b.h, torus, t.x0 + 4 * (stride * g + c), t.y0 + j));
                        ASSERT_EQ(read<cl_uint>(out, 3 * words), want);
                    }
                }
        }
    }
}

}  // namespace
}  // namespace tilelife
