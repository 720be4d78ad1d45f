// Which pages of a large buffer become resident. A buffer sized by a bound (an export's tree reserved
// for every square of a full store, an array indexed by a store's slots) must hold in memory only the
// pages written: mapping the rest at once put 5 MiB of unwritten pages on centipede's end-of-run
// peak (issue 23).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/quadtree.hpp"

using namespace tilelife;

namespace {

// Whether the page holding p is resident (mincore). Throws no exception: a failing call fails the test.
bool resident(const void* p) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto at = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
    unsigned char v = 0;
    EXPECT_EQ(::mincore(reinterpret_cast<void*>(at), page, &v), 0);
    return (v & 1) != 0;
}

}  // namespace

TEST(Pages, ABoundOnlyReserveMapsOnlyWhatIsWritten) {
    // Room for 4 million squares (128 MiB of nodes, 4 MiB of levels), of which one is built.
    Quadtree t;
    t.reserve(std::size_t{1} << 22, /*bound_only=*/true);
    t.add_leaf(1);
    const auto& nodes = t.nodes();
    ASSERT_GE(nodes.capacity(), std::size_t{1} << 22);
    EXPECT_TRUE(resident(nodes.data()));
    // The last page of the capacity, and one just before the last 2 MiB boundary, were never written.
    const Quadtree::Node* const end = nodes.data() + nodes.capacity();
    EXPECT_FALSE(resident(end - 1));
    EXPECT_FALSE(resident(reinterpret_cast<const char*>(end) - (std::size_t{3} << 20)));
}

TEST(Pages, ABoundOnlyZeroedBufferKeepsItsFirstPagesSmall) {
    // One entry written at the start of an 8 MiB array: a whole 2 MiB huge page there would be 512
    // pages resident for one.
    const ZeroedBytes b(std::size_t{8} << 20, /*bound_only=*/true);
    ASSERT_TRUE(b);
    auto* const p = static_cast<unsigned char*>(b.data());
    p[0] = 1;
    EXPECT_TRUE(resident(p));
    EXPECT_FALSE(resident(p + (std::size_t{1} << 20)));
    EXPECT_FALSE(resident(p + (std::size_t{8} << 20) - 1));
    EXPECT_EQ(p[(std::size_t{1} << 20) + 5], 0);  // zeroed all the same
}

TEST(Pages, AZeroedBufferTakesNoHugePageItMostlyLeavesUnused) {
    // 700 KiB (a pattern file of that size): its pages are mapped at once as 4 KiB pages, and the
    // rest of the 2 MiB block stays out of memory (a huge page there held 1.3 MB for nothing).
    const std::size_t n = std::size_t{700} << 10;
    const ZeroedBytes b(n);
    ASSERT_TRUE(b);
    auto* const p = static_cast<unsigned char*>(b.data());
    p[0] = 1;
    p[n - 1] = 2;
    EXPECT_TRUE(resident(p + n / 2));  // mapped without being written
    EXPECT_FALSE(resident(p + n + (std::size_t{64} << 10)));
    EXPECT_FALSE(resident(p + (std::size_t{2} << 20) - 1));
    EXPECT_EQ(p[n / 2], 0);
}

TEST(Pages, AnRleReaderReservesItsBoundWithoutMappingItsEnd) {
    // The reader reserves a cell for each byte of the file (a soup has fewer): for this sparse file
    // of 4 MB that is 64 MiB of room for 5 cells, of which only the first pages may be resident.
    std::string text = "x = 4000, y = 4000, rule = B3/S23\n";
    for (int i = 0; i < 40000; ++i) text += "#C " + std::string(96, 'a') + "\n";
    text += "bo$2bo$3o!\n";
    const Pattern p = parse_pattern(text, "sparse.rle");
    ASSERT_EQ(p.cells.size(), 5u);
    ASSERT_GE(p.cells.capacity(), std::size_t{1} << 20);
    const Cell* const end = p.cells.data() + p.cells.capacity();
    EXPECT_FALSE(resident(end - 1));
}
