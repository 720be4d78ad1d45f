// The SYCL work-group primitives the kernels are composed of (src/sycl: wg_tile_load.hpp,
// wg_reduce.hpp) and the row bit helpers sycl:bitpacked shares with the host (core/bitpack.hpp),
// each through a small test kernel, against a host computation: tiny and odd boards,
// rectangles inside, across and far outside them, both topologies, several work-group sizes and
// shapes. The twin of tests/opencl/primitives_tests.cpp. Runs on the SYCL runtime's default device.
#include <gtest/gtest.h>

#include <sycl/sycl.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/bitpack.hpp"
#include "sycl/wg_reduce.hpp"
#include "sycl/wg_tile_load.hpp"

namespace tilelife::sycl_backend {
namespace {

sycl::queue& queue() {
    static sycl::queue q;
    return q;
}

std::size_t max_group() { return queue().get_device().get_info<sycl::info::device::max_work_group_size>(); }

// A board of random cells on the device (rows padded to 16 bytes, padding 0) and its host copy.
struct Board {
    ByteBoard geometry;
    std::vector<std::uint8_t> host;  // pitch * height bytes
    std::uint8_t* device = nullptr;

    Board(std::uint64_t w, std::uint64_t h, std::uint64_t seed) {
        geometry = {w, h, (w + 15) / 16 * 16};
        host.assign(geometry.pitch * h, 0);
        std::mt19937_64 rng(seed);
        for (std::uint64_t y = 0; y < h; ++y)
            for (std::uint64_t x = 0; x < w; ++x) host[y * geometry.pitch + x] = rng() % 2;
        device = sycl::malloc_device<std::uint8_t>(host.size(), queue());
        queue().memcpy(device, host.data(), host.size()).wait();
    }
    ~Board() { sycl::free(device, queue()); }
    Board(const Board&) = delete;
    Board& operator=(const Board&) = delete;

    // The host's cell under the topology: wrapped by the mathematical modulo, or dead off a plane.
    std::uint8_t cell(std::int64_t x, std::int64_t y, bool torus) const {
        const auto w = static_cast<std::int64_t>(geometry.width), h = static_cast<std::int64_t>(geometry.height);
        if (torus) {
            x = ((x % w) + w) % w;
            y = ((y % h) + h) % h;
        } else if (x < 0 || y < 0 || x >= w || y >= h) {
            return 0;
        }
        return host[static_cast<std::uint64_t>(y) * geometry.pitch + static_cast<std::uint64_t>(x)];
    }
};

template <class T>
std::vector<T> to_host(const T* device, std::size_t n) {
    std::vector<T> out(n);
    queue().memcpy(out.data(), device, n * sizeof(T)).wait();
    return out;
}

// ---------------------------------------------------------------------------------------------
// wg_load_byte_tile: `groups` work-groups of `count` items; group g loads the lw x lh words from
// (x0 + 4 g, y0) (neighbouring groups' rectangles overlap), then copies its tile to global memory.
template <bool Torus>
std::vector<std::uint32_t> load_words(const Board& b, std::int64_t x0, std::int64_t y0, std::uint32_t lw, std::uint32_t lh,
                                      bool interior, std::uint32_t count, std::uint32_t groups) {
    const std::size_t n = static_cast<std::size_t>(lw) * lh;
    auto* out = sycl::malloc_device<std::uint32_t>(n * groups, queue());
    const std::uint8_t* src = b.device;
    const ByteBoard g = b.geometry;
    queue().submit([&](sycl::handler& h) {
        sycl::local_accessor<std::uint32_t, 1> tile(sycl::range<1>(n), h);
        h.parallel_for(sycl::nd_range<1>(std::size_t{count} * groups, count), [=](sycl::nd_item<1> it) {
            const auto lid = static_cast<std::uint32_t>(it.get_local_id(0));
            const auto grp = static_cast<std::int64_t>(it.get_group(0));
            wg_load_byte_tile<Torus>(tile, lw, lh, src, x0 + 4 * grp, y0, g, interior, lid, count);
            sycl::group_barrier(it.get_group());
            for (std::size_t i = lid; i < n; i += count) out[static_cast<std::size_t>(grp) * n + i] = tile[i];
        });
    });
    queue().wait_and_throw();
    auto result = to_host(out, n * groups);
    sycl::free(out, queue());
    return result;
}

void expect_words(const Board& b, bool torus, std::int64_t x0, std::int64_t y0, std::uint32_t lw, std::uint32_t lh,
                  bool interior, std::uint32_t count, std::uint32_t groups) {
    SCOPED_TRACE(std::string(torus ? "torus " : "plane ") + std::to_string(b.geometry.width) + "x" +
                 std::to_string(b.geometry.height) + " rectangle " + std::to_string(lw) + "x" + std::to_string(lh) +
                 " words at (" + std::to_string(x0) + "," + std::to_string(y0) + ")" + (interior ? " interior" : "") +
                 ", " + std::to_string(groups) + " groups of " + std::to_string(count));
    const auto got = torus ? load_words<true>(b, x0, y0, lw, lh, interior, count, groups)
                           : load_words<false>(b, x0, y0, lw, lh, interior, count, groups);
    const std::size_t n = static_cast<std::size_t>(lw) * lh;
    for (std::uint32_t g = 0; g < groups; ++g)
        for (std::uint32_t j = 0; j < lh; ++j)
            for (std::uint32_t c = 0; c < lw; ++c) {
                std::uint32_t want = 0;
                for (int k = 0; k < 4; ++k)
                    want |= std::uint32_t{b.cell(x0 + 4 * (g + c) + k, y0 + j, torus)} << (8 * k);
                ASSERT_EQ(got[g * n + j * lw + c], want) << "group " << g << " word (" << j << ", " << c << ")";
            }
}

std::vector<std::uint32_t> counts() {
    std::vector<std::uint32_t> out;
    for (std::uint32_t c : {1u, 2u, 3u, 7u, 32u, 33u, 64u, 100u, 256u})
        if (c <= max_group()) out.push_back(c);
    return out;
}

TEST(SyclPrimitives, ByteTileLoadAcrossAndFarOutsideTinyAndOddBoards) {
    const std::pair<std::uint64_t, std::uint64_t> sizes[] = {{1, 1}, {3, 2}, {5, 7}, {13, 9}, {37, 5}};
    std::uint64_t seed = 1;
    for (auto [w, h] : sizes) {
        const Board b(w, h, seed++);
        const auto W = static_cast<std::int64_t>(w), H = static_cast<std::int64_t>(h);
        // Origins (multiples of 4) across the top-left and bottom-right edges and far outside.
        const std::pair<std::int64_t, std::int64_t> origins[] = {
            {0, 0}, {-4, -1}, {-8, -3}, {(W / 4) * 4, H - 1}, {-4 * (3 * W + 2), -5 * H - 2}, {4 * (2 * W + 1), 7 * H + 3}};
        for (bool torus : {true, false})
            for (auto [x0, y0] : origins)
                for (auto [lw, lh] : {std::pair<std::uint32_t, std::uint32_t>{1, 1}, {3, 4}, {5, 3}, {10, 12}})
                    for (std::uint32_t count : counts()) expect_words(b, torus, x0, y0, lw, lh, false, count, 3);
    }
}

TEST(SyclPrimitives, ByteTileLoadInteriorPathEqualsTheEdgePath) {
    const Board b(70, 23, 9);
    for (bool torus : {true, false})
        for (auto [x0, y0] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {4, 1}, {20, 10}})
            for (auto [lw, lh] : {std::pair<std::uint32_t, std::uint32_t>{1, 1}, {3, 4}, {10, 12}})
                for (std::uint32_t count : counts()) {
                    // Three groups at x0, x0 + 4, x0 + 8: all of them inside the board.
                    ASSERT_LE(x0 + 8 + 4 * static_cast<std::int64_t>(lw), 70);
                    ASSERT_LE(y0 + static_cast<std::int64_t>(lh), 23);
                    expect_words(b, torus, x0, y0, lw, lh, true, count, 3);
                }
}

// ---------------------------------------------------------------------------------------------
// wg_load_cell_tile: a grid of 2 x 2 work-groups of gx x gy items; group (i, j) loads the lw x lh
// cells from (x0 + 3 i, y0 + 2 j), then copies its tile to global memory.
template <bool Torus>
std::vector<std::uint8_t> load_cells(const Board& b, std::int64_t x0, std::int64_t y0, std::uint32_t lw, std::uint32_t lh,
                                     std::uint32_t gx, std::uint32_t gy) {
    const std::size_t n = static_cast<std::size_t>(lw) * lh;
    auto* out = sycl::malloc_device<std::uint8_t>(n * 4, queue());
    const std::uint8_t* src = b.device;
    const ByteBoard g = b.geometry;
    queue().submit([&](sycl::handler& h) {
        sycl::local_accessor<std::uint8_t, 1> tile(sycl::range<1>(n), h);
        h.parallel_for(sycl::nd_range<2>(sycl::range<2>(2 * gy, 2 * gx), sycl::range<2>(gy, gx)), [=](sycl::nd_item<2> it) {
            const auto lx = static_cast<std::uint32_t>(it.get_local_id(1)), ly = static_cast<std::uint32_t>(it.get_local_id(0));
            const auto i = static_cast<std::int64_t>(it.get_group(1)), j = static_cast<std::int64_t>(it.get_group(0));
            wg_load_cell_tile<Torus>(tile, lw, lh, src, x0 + 3 * i, y0 + 2 * j, g, lx, ly, gx, gy);
            sycl::group_barrier(it.get_group());
            const std::size_t base = static_cast<std::size_t>(j * 2 + i) * n;
            for (std::size_t k = ly * gx + lx; k < n; k += std::size_t{gx} * gy) out[base + k] = tile[k];
        });
    });
    queue().wait_and_throw();
    auto result = to_host(out, n * 4);
    sycl::free(out, queue());
    return result;
}

TEST(SyclPrimitives, CellTileLoadAcrossAndFarOutsideTinyAndOddBoards) {
    const std::pair<std::uint64_t, std::uint64_t> sizes[] = {{1, 1}, {2, 3}, {5, 7}, {17, 4}, {33, 21}};
    const std::pair<std::uint32_t, std::uint32_t> groups[] = {{1, 1}, {3, 2}, {5, 3}, {8, 4}, {16, 16}};
    const std::pair<std::uint32_t, std::uint32_t> rects[] = {{1, 1}, {7, 5}, {3, 9}, {18, 18}};
    std::uint64_t seed = 11;
    for (auto [w, h] : sizes) {
        const Board b(w, h, seed++);
        const auto W = static_cast<std::int64_t>(w), H = static_cast<std::int64_t>(h);
        const std::pair<std::int64_t, std::int64_t> origins[] = {
            {0, 0}, {-1, -1}, {W - 2, H - 1}, {-3 * W - 5, 4 * H + 1}, {5 * W + 2, -6 * H - 3}};
        for (bool torus : {true, false})
            for (auto [x0, y0] : origins)
                for (auto [lw, lh] : rects)
                    for (auto [gx, gy] : groups) {
                        if (std::size_t{gx} * gy > max_group()) continue;
                        SCOPED_TRACE(std::string(torus ? "torus " : "plane ") + std::to_string(w) + "x" + std::to_string(h) +
                                     " rectangle " + std::to_string(lw) + "x" + std::to_string(lh) + " at (" +
                                     std::to_string(x0) + "," + std::to_string(y0) + "), groups " + std::to_string(gx) +
                                     "x" + std::to_string(gy));
                        const auto got = torus ? load_cells<true>(b, x0, y0, lw, lh, gx, gy)
                                               : load_cells<false>(b, x0, y0, lw, lh, gx, gy);
                        const std::size_t n = static_cast<std::size_t>(lw) * lh;
                        for (std::int64_t g = 0; g < 4; ++g)
                            for (std::uint32_t j = 0; j < lh; ++j)
                                for (std::uint32_t c = 0; c < lw; ++c)
                                    ASSERT_EQ(got[static_cast<std::size_t>(g) * n + j * lw + c],
                                              b.cell(x0 + 3 * (g % 2) + c, y0 + 2 * (g / 2) + j, torus))
                                        << "group " << g << " cell (" << j << ", " << c << ")";
                    }
    }
}

// ---------------------------------------------------------------------------------------------
// wg_reduce_add: one random value per work-item of a 2-D launch of 3 x 2 groups of lx x ly items;
// every item writes its group's sum twice (the second call reuses the scratch) and each must equal
// the host's sum of the group's values.
template <class T>
void reduce_case(std::uint32_t lx, std::uint32_t ly, T max_value, std::uint64_t seed) {
    SCOPED_TRACE("groups of " + std::to_string(lx) + "x" + std::to_string(ly) + ", values up to " +
                 std::to_string(max_value) + ", " + std::to_string(sizeof(T) * 8) + "-bit");
    const std::size_t gx = 3 * std::size_t{lx}, gy = 2 * std::size_t{ly}, n = gx * gy;
    std::mt19937_64 rng(seed);
    std::vector<T> values(n);
    for (auto& v : values) v = static_cast<T>(rng() % (static_cast<std::uint64_t>(max_value) + 1));
    T* in = sycl::malloc_device<T>(n, queue());
    T* out = sycl::malloc_device<T>(2 * n, queue());
    queue().memcpy(in, values.data(), n * sizeof(T)).wait();
    queue().submit([&](sycl::handler& h) {
        sycl::local_accessor<T, 1> scratch(sycl::range<1>(std::size_t{lx} * ly), h);
        h.parallel_for(sycl::nd_range<2>(sycl::range<2>(gy, gx), sycl::range<2>(ly, lx)), [=](sycl::nd_item<2> it) {
            const std::size_t i = it.get_global_id(0) * gx + it.get_global_id(1);
            out[i] = wg_reduce_add(it.get_group(), in[i], scratch);
            out[n + i] = wg_reduce_add(it.get_group(), static_cast<T>(in[i] + 1), scratch);
        });
    });
    queue().wait_and_throw();
    const auto got = to_host(out, 2 * n);
    sycl::free(in, queue());
    sycl::free(out, queue());
    for (std::size_t by = 0; by < 2; ++by)
        for (std::size_t bx = 0; bx < 3; ++bx) {
            T want = 0;
            for (std::size_t y = by * ly; y < (by + 1) * ly; ++y)
                for (std::size_t x = bx * lx; x < (bx + 1) * lx; ++x) want += values[y * gx + x];
            const T want2 = static_cast<T>(want + static_cast<T>(std::size_t{lx} * ly));
            for (std::size_t y = by * ly; y < (by + 1) * ly; ++y)
                for (std::size_t x = bx * lx; x < (bx + 1) * lx; ++x) {
                    ASSERT_EQ(got[y * gx + x], want) << "group (" << bx << ", " << by << ") item (" << x << ", " << y << ")";
                    ASSERT_EQ(got[n + y * gx + x], want2) << "second call, group (" << bx << ", " << by << ")";
                }
        }
}

const std::pair<std::uint32_t, std::uint32_t> kReduceShapes[] = {
    {1, 1}, {2, 1}, {3, 1}, {7, 1}, {32, 1}, {33, 1}, {64, 1}, {100, 1}, {256, 1}, {5, 3}, {8, 4}, {16, 16}, {3, 7}};

TEST(SyclPrimitives, GroupSumsOfRandomValuesIn1DAnd2DGroups) {
    std::uint64_t seed = 100;
    for (auto [lx, ly] : kReduceShapes) {
        if (std::size_t{lx} * ly > max_group()) continue;
        reduce_case<std::uint32_t>(lx, ly, 1000u, seed++);
        reduce_case<std::uint64_t>(lx, ly, std::uint64_t{1} << 40, seed++);
    }
}

// ---------------------------------------------------------------------------------------------
// core/bitpack.hpp's row helpers in device code: every bit of the result against the row read bit by
// bit on the host, at every offset of rows of 1 to 4 words, and the masks for every count and width.
TEST(SyclPrimitives, RowBitHelpersInDeviceCode) {
    std::mt19937_64 rng(7);
    for (std::uint64_t nwords = 1; nwords <= 4; ++nwords) {
        std::vector<std::uint32_t> row(nwords);
        for (auto& w : row) w = static_cast<std::uint32_t>(rng());
        const std::size_t n = 32 * nwords;
        auto* dev_row = sycl::malloc_device<std::uint32_t>(nwords, queue());
        auto* out = sycl::malloc_device<std::uint32_t>(3 * n + 3, queue());
        queue().memcpy(dev_row, row.data(), nwords * sizeof(std::uint32_t)).wait();
        queue().parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) {
            out[i] = bitpack::bits_from32(dev_row, i[0], nwords);
            out[n + i] = bitpack::last_word_mask32(i[0] + 1);
            out[2 * n + i] = bitpack::low_mask32(static_cast<std::uint32_t>(i[0] % 33));
        });
        queue().wait_and_throw();
        const auto got = to_host(out, 3 * n);
        sycl::free(dev_row, queue());
        sycl::free(out, queue());
        for (std::size_t p = 0; p < n; ++p) {
            std::uint32_t want = 0;
            for (std::size_t k = 0; k < 32 && p + k < n; ++k) want |= ((row[(p + k) / 32] >> ((p + k) % 32)) & 1u) << k;
            ASSERT_EQ(got[p], want) << nwords << " words, bits from " << p;
            const std::uint64_t width = p + 1;  // the last word holds width - 32 (nwords - 1) cells
            std::uint32_t keep = 0;
            for (std::uint64_t k = 0; k < 32; ++k)
                if (k < width - (width - 1) / 32 * 32) keep |= 1u << k;
            ASSERT_EQ(got[n + p], keep) << "last word's mask for width " << width;
            std::uint32_t low = 0;
            for (std::size_t k = 0; k < p % 33; ++k) low |= 1u << k;
            ASSERT_EQ(got[2 * n + p], low) << "low " << p % 33 << " bits";
        }
    }
}

}  // namespace
}  // namespace tilelife::sycl_backend
