// RLE reader: header, comments, #CXRLE, runs, wrapping, CRLF, Golly's treatment of odd characters.
#include "io_support.hpp"

namespace tilelife::test {
namespace {

Pattern rle(std::string_view text) { return parse_pattern(text, "t.rle"); }

TEST(Rle, GliderWithHeaderAndRule) {
    const Pattern p = rle("x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n");
    EXPECT_EQ(p.format, PatternFormat::rle);
    EXPECT_EQ(p.cells, cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}));
    EXPECT_EQ(p.frame, (Box{0, 0, 3, 3}));
    ASSERT_TRUE(p.rule.has_value());
    EXPECT_EQ(*p.rule, "B3/S23");
    EXPECT_EQ(p.generation, 0);
}

TEST(Rle, RuleKeptAsWrittenWithSuffix) {
    EXPECT_EQ(*rle("x = 1, y = 1, rule = 23/3\no!").rule, "23/3");
    EXPECT_EQ(*rle("x = 1, y = 1, rule = B3/S23:T64,32\no!").rule, "B3/S23:T64,32");
    EXPECT_EQ(*rle("x=1,y=1,rule=b36s23\no!").rule, "b36s23");
    EXPECT_EQ(*rle("x = 1 , y = 1 , rule = B3/S23:P10,20  \no!").rule, "B3/S23:P10,20");
    // Golly accepts a rule with only a B part.
    EXPECT_EQ(*rle("x = 1, y = 1, rule = B36\no!").rule, "B36");
    EXPECT_FALSE(rle("x = 1, y = 1\no!").rule.has_value());
}

TEST(Rle, CommentsNameAndGollyRuleLine) {
    const Pattern p = rle("#N Gosper glider gun\n#C first\n#c second\n#O someone\n#R 5 5\n#P 1 1\n"
                          "#r B36/S23\nx = 2, y = 1\n2o!\n");
    EXPECT_EQ(p.name, "Gosper glider gun");
    EXPECT_EQ(p.comments, (std::vector<std::string>{"first", "second"}));
    EXPECT_EQ(p.authors, (std::vector<std::string>{"someone"}));
    EXPECT_EQ(*p.rule, "B36/S23");
    // "#R x y" / "#P x y" (old position lines) are ignored by Golly: the cells stay at 0,0.
    EXPECT_EQ(p.cells, cells({{0, 0}, {1, 0}}));
}

TEST(Rle, CxrlePosAndGen) {
    const Pattern p = rle("#CXRLE Pos=-5,7 Gen=12\nx = 3, y = 2\nobo$bo!\n");
    EXPECT_EQ(p.cells, cells({{-5, 7}, {-3, 7}, {-4, 8}}));
    EXPECT_EQ(p.frame, (Box{-5, 7, 3, 2}));
    EXPECT_EQ(p.generation, 12);
    const Pattern g = rle("#CXRLE Gen=3480106827776\nx = 1, y = 1\no!\n");
    EXPECT_EQ(g.generation, 3480106827776);
    EXPECT_EQ(g.cells, cells({{0, 0}}));
    const Pattern q = rle("#CXRLE Pos=4,-2\nx = 1, y = 1\no!\n");
    EXPECT_EQ(q.generation, 0);
    EXPECT_EQ(q.cells, cells({{4, -2}}));
    // After the header Golly treats #CXRLE as an ordinary comment.
    EXPECT_EQ(rle("x = 1, y = 1\n#CXRLE Pos=5,5\no!\n").cells, cells({{0, 0}}));
}

TEST(Rle, RunCountsForEveryToken) {
    const Pattern p = rle("x = 9, y = 6\n3o2b.A$3$2.2A!\n");
    EXPECT_EQ(p.cells, cells({{0, 0}, {1, 0}, {2, 0}, {6, 0}, {2, 4}, {3, 4}}));
    // "3$" ends the row and leaves two empty rows.
    EXPECT_EQ(rle("x = 1, y = 4\no3$o!").cells, cells({{0, 0}, {0, 3}}));
    // Golly reads a 0 count as 1.
    EXPECT_EQ(rle("x = 3, y = 2\no0bo0$o!").cells, cells({{0, 0}, {2, 0}, {0, 1}}));
    // Long runs.
    const Pattern big = rle("x = 1000, y = 2\n999bo$1000o!");
    ASSERT_EQ(big.cells.size(), 1001u);
    EXPECT_EQ(big.cells.front(), (Cell{999, 0}));
    EXPECT_EQ(big.cells.back(), (Cell{999, 1}));
    // A huge dead run costs nothing.
    EXPECT_EQ(rle("x = 2, y = 1\no4000000000000000000bo!").cells, cells({{0, 0}, {4000000000000000001, 0}}));
}

TEST(Rle, LinesWrappedAnywhereIncludingInsideACount) {
    // Golly carries a pending count across line breaks: "o2" + "4bo" is o, 24 dead, o.
    EXPECT_EQ(rle("x = 26, y = 1\no2\n4bo!\n").cells, cells({{0, 0}, {25, 0}}));
    EXPECT_EQ(rle("x = 3, y = 3\nb\no$\n2\nbo\n$3\no!\n").cells, cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}));
    // Blank lines inside the data are skipped.
    EXPECT_EQ(rle("x = 1, y = 2\no\n\n$o!").cells, cells({{0, 0}, {0, 1}}));
}

TEST(Rle, CrlfAndLoneCr) {
    const Pattern p = rle("#N name\r\n#C c\r\nx = 3, y = 2, rule = B3/S23\r\no2\r\nbo$\r\n3o!\r\n");
    EXPECT_EQ(p.name, "name");
    EXPECT_EQ(p.comments, std::vector<std::string>{"c"});
    EXPECT_EQ(*p.rule, "B3/S23");
    EXPECT_EQ(p.cells, cells({{0, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}}));
    EXPECT_EQ(rle("x = 1, y = 2\ro$\ro!\r").cells, cells({{0, 0}, {0, 1}}));
}

TEST(Rle, TextAfterBangIgnored) {
    EXPECT_EQ(rle("x = 1, y = 1\no!2o\n3o! garbage \x01\x02 B C\nmore").cells, cells({{0, 0}}));
}

TEST(Rle, OtherCharactersAsGollyTreatsThem) {
    // Checked with bgolly 3.3: blanks and other letters/punctuation are skipped (and reset a
    // pending count), 'p'..'y' not followed by 'A'..'X' are live (Golly's fallback to state 1).
    EXPECT_EQ(rle("x = 3, y = 1\no2 bo!").cells, cells({{0, 0}, {2, 0}}));
    EXPECT_EQ(rle("x = 3, y = 1\no2zbo!").cells, cells({{0, 0}, {2, 0}}));
    EXPECT_EQ(rle("x = 3, y = 1\nozo!").cells, cells({{0, 0}, {1, 0}}));
    EXPECT_EQ(rle("x = 3, y = 1\no,o#o!").cells, cells({{0, 0}, {1, 0}, {2, 0}}));
    EXPECT_EQ(rle("x = 3, y = 1\noxo!").cells, cells({{0, 0}, {1, 0}, {2, 0}}));
    EXPECT_EQ(rle("x = 4, y = 1\n2yb\to!").cells, cells({{0, 0}, {1, 0}, {3, 0}}));
    EXPECT_EQ(rle("x = 3, y = 1\n3A!").cells, cells({{0, 0}, {1, 0}, {2, 0}}));
}

TEST(Rle, MissingHeaderTolerated) {
    const Pattern p = rle("o2bo!\n");
    EXPECT_EQ(p.cells, cells({{0, 0}, {3, 0}}));
    EXPECT_EQ(p.frame, (Box{0, 0, 4, 1}));
    EXPECT_FALSE(p.rule.has_value());
    EXPECT_EQ(rle("2o$\n2o!").cells, cells({{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
    EXPECT_EQ(rle("#C only a comment\nb2o$o!").cells, cells({{1, 0}, {2, 0}, {0, 1}}));
    EXPECT_EQ(rle("#CXRLE Pos=10,20\nbo$o!").cells, cells({{11, 20}, {10, 21}}));
}

TEST(Rle, FrameIsTheHeaderBoxNotTheBoundingBox) {
    const Pattern p = rle("#CXRLE Pos=-2,-3\nx = 10, y = 8\n2$3bo!");
    EXPECT_EQ(p.frame, (Box{-2, -3, 10, 8}));
    EXPECT_EQ(p.cells, cells({{1, -1}}));
    EXPECT_EQ(p.bounding_box(), (Box{1, -1, 1, 1}));
    const Pattern e = rle("x = 0, y = 0, rule = B3/S23\n!\n");
    EXPECT_TRUE(e.cells.empty());
    EXPECT_TRUE(e.bounding_box().empty());
    EXPECT_EQ(e.frame, (Box{0, 0, 0, 0}));
}

TEST(Rle, MegabyteLineAndMillionLines) {
    std::string one = "x = 2000000, y = 1\n";
    for (int i = 0; i < 1000000; ++i) one += "bo";
    one += "!";
    const Pattern p = rle(one);
    ASSERT_EQ(p.cells.size(), 1000000u);
    EXPECT_EQ(p.cells.back(), (Cell{1999999, 0}));
    std::string many = "x = 1, y = 1000000\n";
    for (int i = 0; i < 1000000; ++i) many += "o$\n";
    const Pattern q = rle(many);
    ASSERT_EQ(q.cells.size(), 1000000u);
    EXPECT_EQ(q.cells.back(), (Cell{0, 999999}));
}

TEST(Rle, CellsSortedWithoutDuplicates) {
    const Pattern p = read_pattern("random:300x200:0.4:5");
    EXPECT_TRUE(std::is_sorted(p.cells.begin(), p.cells.end(),
                               [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; }));
    EXPECT_EQ(std::adjacent_find(p.cells.begin(), p.cells.end()), p.cells.end());
}

}  // namespace
}  // namespace tilelife::test
