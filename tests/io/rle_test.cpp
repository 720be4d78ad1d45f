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


// ---- Cells handed to a CellSink (how `run` reads a soup onto a bounded board) ----

// Collects what a sink is given: the header start() saw and the runs, expanded to cells.
struct Collect : CellSink {
    bool accept = true;
    int starts = 0;
    Pattern header;
    std::vector<Cell> got;
    std::size_t batches = 0;
    bool start(const Pattern& h) override {
        ++starts;
        header = h;
        return accept;
    }
    void add(const CellRun* runs, std::size_t n) override {
        ++batches;
        for (std::size_t i = 0; i < n; ++i) {
            EXPECT_GE(runs[i].length, 1);
            for (std::int64_t k = 0; k < runs[i].length; ++k) got.push_back(Cell{runs[i].x + k, runs[i].y});
        }
    }
};

// The runs are exactly the cells the list path stores, in (y, x) order (so none overlap), for
// counts across line breaks, CRLF, positions, '!' before the end, empty rows ("5$"), long runs,
// and a soup of thousands of batches.
TEST(RleSink, RunsAreTheCellsOfTheListPath) {
    const Pattern soup = read_pattern("random:1500x1000:0.5:7");
    const std::string big = format_rle(soup.cells, "B3/S23:T1500,1000", 0);
    for (const std::string text :
         {std::string("x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n"),
          std::string("#N name\n#CXRLE Pos=-7,12 Gen=5\nx = 10, y = 9\n1\n0o2\r\nb5$o$\n3o!3o\n#C after\n"),
          std::string("x = 200, y = 2\n199b\no$200o!"), big}) {
        const Pattern list = parse_pattern(text, "t.rle");
        Collect sink;
        const Pattern streamed = parse_pattern(text, "t.rle", {}, &sink);
        EXPECT_EQ(sink.starts, 1);
        EXPECT_TRUE(streamed.cells.empty());
        EXPECT_EQ(sink.got, list.cells);
        // What start() saw is what the file says above the cells.
        EXPECT_EQ(sink.header.frame, list.frame);
        EXPECT_EQ(sink.header.rule, list.rule);
        EXPECT_EQ(sink.header.positioned, list.positioned);
        EXPECT_EQ(sink.header.generation, list.generation);
        EXPECT_TRUE(sink.header.cells.empty());
        EXPECT_EQ(streamed.comments, list.comments);
    }
    Collect sink;
    (void)parse_pattern(big, "t.rle", {}, &sink);
    EXPECT_GT(sink.batches, 50u);  // a batch holds 4096 runs
}

// No header (the frame is the cells' bounding box, known only at the end), an empty header frame,
// other formats: start() is never called and the cells are stored. A sink that declines gets
// nothing and the cells are stored.
TEST(RleSink, OnlyRleWithAHeaderFrameStreams) {
    for (const char* text : {"bo$2bo$3o!", "x = 0, y = 0\nbo$2bo$3o!", "#Life 1.06\n0 0\n1 1\n", ".O\n..O\nOOO\n"}) {
        Collect sink;
        const Pattern p = parse_pattern(text, "t", {}, &sink);
        EXPECT_EQ(sink.starts, 0) << text;
        EXPECT_EQ(p.cells, parse_pattern(text, "t").cells) << text;
    }
    Collect no;
    no.accept = false;
    const Pattern p = parse_pattern("x = 3, y = 3\nbo$2bo$3o!", "t.rle", {}, &no);
    EXPECT_EQ(no.starts, 1);
    EXPECT_TRUE(no.got.empty());
    EXPECT_EQ(p.cells, cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}));
}

// Streaming keeps the reader's refusals: the cell limit (counted, not stored), bad bytes after
// some runs, states of multi-state rules.
TEST(RleSink, RefusalsAsInTheListPath) {
    Collect sink;
    expect_input_error([&] { parse_pattern("x = 9, y = 1\n9o!", "t.rle", ReadLimits{8, 1 << 20}, &sink); },
                       {"t.rle:2", "live cells (limit)"});
    expect_input_error([&] { parse_pattern("x = 9, y = 2\n9o$\n3o\x01!", "t.rle", {}, &sink); }, {"t.rle:3", "0x01"});
    expect_input_error([&] { parse_pattern("x = 9, y = 2\n9o$\n3B!", "t.rle", {}, &sink); }, {"t.rle:3", "state"});
}

// A "#CXRLE Pos=... Gen=..." line anywhere after the header (before, between or after the cell
// lines) changes nothing: the cells stay at the origin, unpositioned, generation 0, the frame is the
// header's; the same through a CellSink. (bgolly agrees: tests/io/golly_test.cpp and the
// differential case tests/golly/late-cxrle.rle.)
TEST(Rle, CxrleAfterTheHeaderIsIgnoredAsGollyDoes) {
    for (const char* text : {"x = 3, y = 2, rule = B3/S23\n#CXRLE Pos=100,-50 Gen=9\nobo$bo!\n",
                             "x = 3, y = 2, rule = B3/S23\nobo$\n#CXRLE Pos=100,-50 Gen=9\nbo!\n",
                             "x = 3, y = 2, rule = B3/S23\nobo$bo!\n#CXRLE Pos=100,-50 Gen=9\n",
                             "#CXRLE Pos=0,0\nx = 3, y = 2, rule = B3/S23\n#CXRLE Pos=100,-50 Gen=9\nobo$bo!\n"}) {
        const Pattern p = rle(text);
        EXPECT_EQ(p.cells, cells({{0, 0}, {2, 0}, {1, 1}})) << text;
        EXPECT_EQ(p.frame, (Box{0, 0, 3, 2})) << text;
        EXPECT_EQ(p.generation, 0) << text;
        Collect sink;
        const Pattern streamed = parse_pattern(text, "late.rle", {}, &sink);
        EXPECT_EQ(sink.got, p.cells) << text;
        EXPECT_EQ(sink.header.frame, p.frame) << text;
        EXPECT_EQ(streamed.frame, p.frame) << text;
        EXPECT_EQ(streamed.generation, 0) << text;
        EXPECT_EQ(streamed.positioned, p.positioned) << text;
    }
    EXPECT_FALSE(rle("x = 3, y = 2\n#CXRLE Pos=100,-50\nobo$bo!\n").positioned);
}

}  // namespace
}  // namespace tilelife::test
