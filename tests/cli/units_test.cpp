// Rates in the run report: SI prefixes up to Y, scientific beyond, and no "1000.00 k" at the
// boundaries (issue 22: a HashLife run printed "4146303617145715405357056.00 Tcell-updates/s").
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cli/units.hpp"

namespace tilelife::cli {
namespace {

TEST(SiPrefixed, WholeNumbersBelowAThousand) {
    EXPECT_EQ(si_prefixed(0), "0 ");
    EXPECT_EQ(si_prefixed(1), "1 ");
    EXPECT_EQ(si_prefixed(12.4), "12 ");
    EXPECT_EQ(si_prefixed(999), "999 ");
    EXPECT_EQ(si_prefixed(999.4), "999 ");
}

TEST(SiPrefixed, EachPrefixAtItsBoundaries) {
    EXPECT_EQ(si_prefixed(999.6), "1.00 k");  // rounds up into the next unit, not "1000 "
    EXPECT_EQ(si_prefixed(1000), "1.00 k");
    EXPECT_EQ(si_prefixed(1234), "1.23 k");
    EXPECT_EQ(si_prefixed(999994), "999.99 k");
    EXPECT_EQ(si_prefixed(999996), "1.00 M");  // not "1000.00 k"
    EXPECT_EQ(si_prefixed(1e6), "1.00 M");
    EXPECT_EQ(si_prefixed(2.5e9), "2.50 G");
    EXPECT_EQ(si_prefixed(1e12), "1.00 T");
    EXPECT_EQ(si_prefixed(1e15), "1.00 P");
    EXPECT_EQ(si_prefixed(1e18), "1.00 E");
    EXPECT_EQ(si_prefixed(1e21), "1.00 Z");
    EXPECT_EQ(si_prefixed(1e24), "1.00 Y");
    EXPECT_EQ(si_prefixed(999.99e24), "999.99 Y");
}

TEST(SiPrefixed, ScientificBeyondYotta) {
    EXPECT_EQ(si_prefixed(999.996e24), "1.00e+27 ");
    EXPECT_EQ(si_prefixed(1e27), "1.00e+27 ");
    EXPECT_EQ(si_prefixed(1.5e300), "1.50e+300 ");
    EXPECT_EQ(si_prefixed(std::numeric_limits<double>::max()), "1.80e+308 ");
}

// The rate the issue quoted: 4146303617145715405357056 Tcell-updates/s is 4.15e36 cell-updates/s.
TEST(SiPrefixed, TheIssuesRate) {
    EXPECT_EQ(si_prefixed(4146303617145715405357056.0 * 1e12), "4.15e+36 ");
    EXPECT_EQ(si_prefixed(std::ldexp(1.0, 80)), "1.21 Y");  // 2^80 cell-updates in a second
}

TEST(SiPrefixed, NotANumber) {
    EXPECT_EQ(si_prefixed(std::numeric_limits<double>::infinity()), "inf ");
    EXPECT_EQ(si_prefixed(-1), "-1 ");
}

}  // namespace
}  // namespace tilelife::cli
