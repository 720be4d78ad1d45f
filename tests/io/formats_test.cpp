// The other readers: Life 1.05, Life 1.06, plaintext, macrocell, gzip, random soups, and detection.
#include <algorithm>
#include <random>
#include <sstream>

#include "io/bands.hpp"
#include "io_support.hpp"

#ifdef TILELIFE_TEST_HAVE_ZLIB
#include <zlib.h>
#endif

namespace tilelife::test {
namespace {

TEST(Life105, BlocksDescriptionRuleAndOwnCoordinates) {
    const Pattern p = parse_pattern("#Life 1.05\n#D hi there\n#R 23/36\n#P -1 -1\n.*\n*.\n#P 3 4\n**\n", "a.lif");
    EXPECT_EQ(p.format, PatternFormat::life105);
    EXPECT_EQ(p.comments, std::vector<std::string>{"hi there"});
    EXPECT_EQ(*p.rule, "23/36");
    EXPECT_EQ(p.cells, cells({{0, -1}, {-1, 0}, {3, 4}, {4, 4}}));
    EXPECT_EQ(p.frame, (Box{-1, -1, 6, 6}));
}

TEST(Life105, NormalRuleBareBlockAndGollyQuirks) {
    // "#N" is normal Life; a bare "#P" and rows before any "#P" start at (0, 0), as in Golly's
    // acorn.lif; blank and '#' lines inside a block are skipped; characters other than '*' are dead.
    const Pattern p = parse_pattern("#Life 1.05\n#N\n*.*\n#P\n\n.*O*\n#C note\n*\n", "b.lif");
    EXPECT_EQ(*p.rule, "B3/S23");
    EXPECT_EQ(p.cells, cells({{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}}));
    // Overlapping blocks are merged, and the cells come out sorted.
    const Pattern q = parse_pattern("#Life 1.05\n#P 5 5\n**\n#P 0 0\n*\n#P 6 5\n**\n", "c.lif");
    EXPECT_EQ(q.cells, cells({{0, 0}, {5, 5}, {6, 5}, {7, 5}}));
    // Golly reads a file that opens with "#P" as Life 1.05 too.
    EXPECT_EQ(parse_pattern("#P 2 3\n*\r\n", "d.lif").cells, cells({{2, 3}}));
    // Golly accepts a B-only rule ("#R B234" in its persian-rugs.lif).
    EXPECT_EQ(*parse_pattern("#Life 1.05\n#R B234\n#P\n**\n", "e.lif").rule, "B234");
}

TEST(Life106, NegativeCoordinatesDuplicatesAndComments) {
    const Pattern p =
        parse_pattern("#Life 1.06\r\n#D comment\r\n0 0\r\n-1 -2\r\n3   -5\r\n\r\n  0 0  \r\n-4611686018427387903 7\r\n",
                      "f.lif");
    EXPECT_EQ(p.format, PatternFormat::life106);
    EXPECT_EQ(p.cells, cells({{3, -5}, {-1, -2}, {0, 0}, {-4611686018427387903, 7}}));
    EXPECT_EQ(p.frame, (Box{-4611686018427387903, -5, 4611686018427387903 + 4, 13}));
    EXPECT_EQ(p.comments, std::vector<std::string>{"comment"});
}

TEST(Plaintext, NameCommentsRowsAndFrame) {
    const Pattern p = parse_pattern("!Name: Glider\n!Another comment\n.O\n..O\n!mid comment\nOOO\n\n.....\n\n",
                                    "g.cells");
    EXPECT_EQ(p.format, PatternFormat::plaintext);
    EXPECT_EQ(p.name, "Glider");
    EXPECT_EQ(p.comments, (std::vector<std::string>{"Another comment", "mid comment"}));
    EXPECT_EQ(p.cells, cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}}));
    // Width: the longest line (5 dots); height: rows up to the last non-empty one.
    EXPECT_EQ(p.frame, (Box{0, 0, 5, 5}));
}

TEST(Plaintext, StarIsLiveCrlfAndNoComments) {
    const Pattern p = parse_pattern("*.O\r\n\r\n.*  \r\n", "h.cells");
    EXPECT_EQ(p.cells, cells({{0, 0}, {2, 0}, {1, 2}}));
    EXPECT_EQ(p.frame, (Box{0, 0, 3, 3}));
    EXPECT_EQ(p.name, "");
}

// bgolly 3.3's own output ("bgolly -h -m 0 -o gun.mc gun.rle") for the Gosper gun read from an RLE
// without #CXRLE, i.e. with its top-left at (0, 0).
constexpr const char* kGunMc =
    "[M2] (golly 3.3)\n#R B3/S23\n$$$$$$$*$\n4 0 0 0 1\n5 0 0 0 2\n6 0 0 3 0\n$$$**$**$\n"
    "$....**$...*...*$..*$..*...*$..*$...*...*$....**$\n4 5 6 0 0\n......*$....**$....**$*...**$**....*$*$\n"
    "*$$$$*$*$\n4 8 9 0 0\n5 7 10 0 0\n$..**$..**$\n4 12 0 0 0\n5 13 0 0 0\n6 11 14 0 0\n7 0 4 0 15\n";
constexpr const char* kGunRle =
    "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4b\n"
    "obo$10bo5bo7bo$11bo3bo$12b2o!\n";

TEST(Macrocell, BgollyWrittenGunLandsWhereTheRleWas) {
    const Pattern mc = parse_pattern(kGunMc, "gun.mc");
    const Pattern rle = parse_pattern(kGunRle, "gun.rle");
    EXPECT_EQ(mc.format, PatternFormat::macrocell);
    EXPECT_EQ(*mc.rule, "B3/S23");
    ASSERT_EQ(mc.cells.size(), 36u);
    EXPECT_EQ(mc.cells, rle.cells);
    EXPECT_EQ(mc.frame, (Box{0, 0, 36, 9}));
}

TEST(Macrocell, GenerationCommentsAndQuadrants) {
    // Root of level 4 covers x in [-8, 8), y in [-7, 9): Golly puts the top-left of the south-east
    // child at (0, 1). Four single cells, one per quadrant, each in its own leaf.
    const Pattern p = parse_pattern("[M2] (golly 3.3)\n#R B36/S23\n#G 1234\n#C hello\n"
                                    "*$\n$$$$$$$.......*$\n4 1 1 2 2\n",
                                    "q.mc");
    EXPECT_EQ(p.generation, 1234);
    EXPECT_EQ(*p.rule, "B36/S23");
    EXPECT_EQ(p.comments, std::vector<std::string>{"hello"});
    EXPECT_EQ(p.cells, cells({{-8, -7}, {0, -7}, {-1, 8}, {7, 8}}));
    // No nodes at all: an empty universe.
    EXPECT_TRUE(parse_pattern("[M2] (golly 3.3)\n#R B3/S23\n", "e.mc").cells.empty());
}

TEST(Macrocell, SharedNodesExpandToEveryCopyAndTheLimitIsCheckedFirst) {
    // Node 1 (a full leaf) used four times at level 4, that node four times at level 5, ...
    std::string text = "[M2]\n********$********$********$********$********$********$********$********$\n";
    for (int level = 4; level <= 7; ++level)
    {
        const std::string k = std::to_string(level - 3);  // the node of the level below
        text += std::to_string(level) + " " + k + " " + k + " " + k + " " + k + "\n";
    }
    const Pattern p = parse_pattern(text, "full.mc");
    EXPECT_EQ(p.cells.size(), 128u * 128u);
    EXPECT_EQ(p.cells.front(), (Cell{-64, -63}));
    EXPECT_EQ(p.cells.back(), (Cell{63, 64}));
    // 2^124 cells described in a few hundred bytes: refused before any expansion.
    std::string huge = "[M2]\n********$********$********$********$********$********$********$********$\n";
    for (int level = 4; level <= 63; ++level) {
        const std::string k = std::to_string(level - 3);
        huge += std::to_string(level) + " " + k + " " + k + " " + k + " " + k + "\n";
    }
    expect_input_error([&] { parse_pattern(huge, "huge.mc"); }, {"huge.mc:", "live cells (limit)"});
    // The same tree built from an empty leaf, plus one live cell: expansion must not visit the
    // 4^60 empty copies.
    std::string sparse = "[M2]\n$\n*$\n";
    for (int level = 4; level <= 63; ++level) {
        const std::string e = std::to_string(2 * (level - 4) + 1), one = std::to_string(2 * (level - 4) + 2);
        // The empty square of the root's level would be a node the root does not use.
        if (level < 63) sparse += std::to_string(level) + " " + e + " " + e + " " + e + " " + e + "\n";
        sparse += std::to_string(level) + " " + e + " " + e + " " + e + " " + one + "\n";
    }
    const Pattern s = parse_pattern(sparse, "sparse.mc");
    // The cell sits in the south-east child at every level: 8 cells in from the root's far corner.
    EXPECT_EQ(s.cells, cells({{(std::int64_t{1} << 62) - 8, (std::int64_t{1} << 62) - 7}}));
}

// A macrocell file cut short: Golly (HashLife) reads what is left as a smaller or empty pattern, a
// silent wrong answer; we refuse it, naming the file and line.
TEST(Macrocell, TruncatedFilesAreInputErrorsNamingTheLine) {
    PatternMeta meta;
    meta.name = "soup";
    meta.comments = {"a comment long enough to be cut in the middle"};
    const std::string whole = format_macrocell(Quadtree::from_cells(read_pattern("random:100x100:0.3:5").cells), meta);
    ASSERT_EQ(parse_pattern(whole, "whole.mc").cells, read_pattern("random:100x100:0.3:5").cells);
    std::vector<std::size_t> line_ends;  // offsets just after each '\n'
    for (std::size_t i = 0; i < whole.size(); ++i)
        if (whole[i] == '\n') line_ends.push_back(i + 1);
    const std::size_t first_node = whole.find("\n", whole.find("#C a comment")) + 1;
    const auto cut = [&](std::size_t n) { return whole.substr(0, n); };
    // Inside a comment line, before any node (Golly's logarithmic-width.mc cut at 1500 bytes).
    expect_input_error([&] { parse_pattern(cut(first_node - 10), "cut.mc"); }, {"cut.mc:4:", "truncated"});
    // Every cut inside a node line is refused; so is every cut at the end of a node line that leaves
    // an earlier node outside the last one's square (worked out here from the lines themselves). A
    // cut after a node whose square holds every node before it reads as that square, and no file
    // can tell that apart (Golly reads it so too).
    std::vector<std::vector<int>> kids{{}};  // per node (from 1): its children, none for leaves
    for (std::size_t i = 4; i + 1 < line_ends.size(); ++i) {
        const std::string line = whole.substr(line_ends[i - 1], line_ends[i] - line_ends[i - 1]);
        std::vector<int> k;
        if (line[0] >= '0' && line[0] <= '9') {
            std::istringstream in(line);
            int level = 0, a = 0, b = 0, c = 0, d = 0;
            in >> level >> a >> b >> c >> d;
            k = {a, b, c, d};
        }
        kids.push_back(k);
    }
    const auto covers_all_before = [&](int j) {
        std::vector<char> seen(static_cast<std::size_t>(j) + 1, 0);
        seen[static_cast<std::size_t>(j)] = 1;
        for (int i = j; i >= 1; --i)
            if (seen[static_cast<std::size_t>(i)])
                for (int k : kids[static_cast<std::size_t>(i)]) seen[static_cast<std::size_t>(k)] = 1;
        return std::count(seen.begin() + 1, seen.end(), 1) == j;
    };
    int refused = 0, undetectable = 0;
    for (std::size_t n = line_ends[4] + 1; n + 1 < whole.size(); ++n) {
        // A cut just before a line's '\n' leaves that line whole too.
        const bool at_line_end = whole[n - 1] == '\n' || whole[n] == '\n';
        const int lines = static_cast<int>(std::count(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n), '\n')) +
                          (whole[n] == '\n' ? 1 : 0);
        const int nodes = lines - 4;
        const bool expect_refused = !at_line_end || !covers_all_before(nodes);
        try {
            parse_pattern(cut(n), "cut.mc");
            EXPECT_FALSE(expect_refused) << "cut at byte " << n << " of " << whole.size() << " read without an error";
            ++undetectable;
        } catch (const InputError& e) {
            EXPECT_TRUE(expect_refused) << "cut at byte " << n << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find("cut.mc:"), std::string::npos) << e.what();
            ++refused;
        }
    }
    EXPECT_GT(refused, 1000);
    EXPECT_LT(undetectable, 20);
    // Golly's own files whose cuts read as something else than the whole (when installed).
    const std::string golly = "/usr/share/golly/Patterns/HashLife/logarithmic-width.mc";
    if (std::filesystem::exists(golly)) {
        const std::string text = slurp(golly);
        for (std::size_t n : {std::size_t{1500}, text.size() / 2, text.size() - 3})
            expect_input_error([&] { parse_pattern(text.substr(0, n), "lw.mc"); }, {"lw.mc:"});
    }
    // Whole lines with no node at all are an empty pattern, as Golly writes one.
    EXPECT_TRUE(parse_pattern("[M2] (golly 3.3)\n#R B3/S23\n#G 1\n", "dead.mc").cells.empty());
}

TEST(Macrocell, NameAuthorsAndCommentsRoundTrip) {
    PatternMeta meta;
    meta.rule = "B36/S23";
    meta.generation = 42;
    meta.name = "Two cells";
    meta.authors = {"A. Author", "B. Author"};
    meta.comments = {"first", "", "third line"};
    const std::vector<Cell> two = cells({{100, -7}, {-3, 5}});
    const std::string text = format_pattern(OutputFormat::macrocell, two, meta);
    EXPECT_NE(text.find("#R B36/S23\n#G 42\n#N Two cells\n#O A. Author\n#O B. Author\n#C first\n#C\n#C third line\n"),
              std::string::npos)
        << text;
    const Pattern p = parse_pattern(text, "two.mc");
    EXPECT_EQ(p.cells, two);
    EXPECT_EQ(p.name, meta.name);
    EXPECT_EQ(p.authors, meta.authors);
    EXPECT_EQ(p.comments, meta.comments);
    EXPECT_EQ(p.generation, 42);
    EXPECT_EQ(*p.rule, "B36/S23");
    const PatternMeta again = meta_of(p);
    EXPECT_EQ(format_macrocell(*p.tree, again), text);
}

#ifdef TILELIFE_TEST_HAVE_ZLIB
std::string gzip(std::string_view plain) {
    z_stream zs{};
    EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&zs, plain.size()) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
    zs.avail_in = static_cast<uInt>(plain.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

class Gzip : public IoTest {};

TEST_F(Gzip, CompressedRleAndMacrocellAreDetectedByContent) {
    // Misleading names on purpose: detection goes by the magic bytes and the content.
    const Pattern a = read_pattern(write("gun.txt", gzip(kGunRle)));
    EXPECT_EQ(a.format, PatternFormat::rle);
    EXPECT_EQ(a.cells.size(), 36u);
    const Pattern b = read_pattern(write("gun.rle", gzip(kGunMc)));
    EXPECT_EQ(b.format, PatternFormat::macrocell);
    EXPECT_EQ(b.cells, a.cells);
    // Concatenated members decompress to the concatenated text, as with gunzip.
    // (Both fit the first guess: libdeflate, where built in, inflates them one after the other.)
    const Pattern c = read_pattern(write("two.gz", gzip("#Life 1.06\n1 2\n") + gzip("3 4\n")));
    EXPECT_EQ(c.cells, cells({{1, 2}, {3, 4}}));
    // Bytes after the last member that are not another member are ignored, as gunzip does.
    const Pattern tail = read_pattern(write("tail.gz", gzip("#Life 1.06\n1 2\n") + gzip("3 4\n") + "trailing"));
    EXPECT_EQ(tail.cells, cells({{1, 2}, {3, 4}}));
    // The reader sizes its buffer by the last member's length (the gzip trailer): here it is far
    // too small and must grow, several times, keeping what it holds (libdeflate, which cannot grow
    // it, gives up and zlib's path starts again).
    std::string many = "#Life 1.06\n";
    std::vector<Cell> want;
    for (int i = 0; i < 40000; ++i) {
        many += std::to_string(i) + " " + std::to_string(i % 7) + "\n";
        want.push_back(Cell{i, i % 7});
    }
    want.push_back(Cell{-5, -6});
    const Pattern d = read_pattern(write("grows.gz", gzip(many) + gzip("-5 -6\n")));
    std::vector<Cell> got = d.cells;
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
}

TEST_F(Gzip, TruncatedCorruptAndOversizedAreInputErrors) {
    const std::string z = gzip(kGunRle);
    const std::string cut = write("cut.rle.gz", z.substr(0, z.size() / 2));
    expect_input_error([&] { read_pattern(cut); }, {cut + ": ", "truncated gzip"});
    std::string bad = z;
    bad[12] = static_cast<char>(bad[12] ^ 0x55);
    bad[13] = static_cast<char>(bad[13] ^ 0xff);
    const std::string corrupt = write("corrupt.gz", bad);
    expect_input_error([&] { read_pattern(corrupt); }, {corrupt + ": ", "gzip"});
    // A gzip bomb stops at the decompressed-size limit.
    const std::string bomb = write("bomb.gz", gzip("x = 1, y = 1\n" + std::string(1 << 22, 'b') + "o!"));
    ReadLimits small;
    small.max_file_bytes = 1 << 20;
    expect_input_error([&] { read_pattern(bomb, small); }, {bomb + ": ", "decompressed data larger than the limit"});
    EXPECT_EQ(read_pattern(bomb).cells, cells({{1 << 22, 0}}));
}

// A compressed file of 256 KiB or more is read into huge pages and its compressed bytes are let go
// before the text is parsed: the same cells, and the same refusal of gzip inside gzip, as a small one.
TEST_F(Gzip, LargeCompressedFilesReadAsSmallOnes) {
    const Pattern soup = read_pattern("random:1500x1500:0.5:3");
    const std::string text = format_rle(soup.cells, PatternMeta{});
    const std::string z = gzip(text);
    ASSERT_GE(z.size(), std::size_t{256} << 10);
    EXPECT_EQ(read_pattern(write("big.rle.gz", z)).cells, soup.cells);
    const std::string twice = write("twice.gz", gzip(z));
    ASSERT_GE(std::filesystem::file_size(twice), std::uintmax_t{256} << 10);
    expect_input_error([&] { read_pattern(twice); }, {twice + ": ", "gzip data inside gzip data"});
    const std::string small_twice = write("small-twice.gz", gzip(gzip(kGunRle)));
    expect_input_error([&] { read_pattern(small_twice); }, {small_twice + ": ", "gzip data inside gzip data"});
}
#endif

TEST(Random, ReproducibleKnownPopulations) {
    // Fixed values of this generator (mt19937_64, top 53 bits compared with the density).
    const Pattern p = read_pattern("random:100x100");
    EXPECT_EQ(p.format, PatternFormat::random);
    EXPECT_EQ(p.frame, (Box{0, 0, 100, 100}));
    EXPECT_EQ(p.cells.size(), 4999u);
    EXPECT_EQ(read_pattern("random:100x100:0.5:1").cells, p.cells);  // the defaults spelled out
    EXPECT_EQ(read_pattern("random:64x32:0.25:42").cells.size(), 508u);
    EXPECT_EQ(read_pattern("random:1000x1000:0.1:7").cells.size(), 100361u);
    EXPECT_EQ(read_pattern("random:8x2:0.5:1").cells,
              cells({{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {6, 0}, {7, 0}, {2, 1}, {5, 1}, {6, 1}, {7, 1}}));
    EXPECT_EQ(read_pattern("random:5x5:1").cells.size(), 25u);
    EXPECT_TRUE(read_pattern("random:5x5:0").cells.empty());
    EXPECT_NE(read_pattern("random:50x50:0.5:2").cells, read_pattern("random:50x50:0.5:3").cells);
}

// A band of rows of a soup (what each MPI rank draws) is exactly those rows of the whole soup.
TEST(Random, BandsAreTheSoupsRows) {
    struct Collect final : CellSink {
        std::vector<Cell> cells;
        bool start(const Pattern&) override { return true; }
        void add(const CellRun* runs, std::size_t n) override {
            for (std::size_t i = 0; i < n; ++i)
                for (std::int64_t k = 0; k < runs[i].length; ++k) cells.push_back(Cell{runs[i].x + k, runs[i].y});
        }
    };
    for (const std::string spec : {"random:70x40:0.3:99", "random:1x9:0.5:2", "random:20000x3:0.5:1", "random:5x5:1",
                                   "random:64x33:0.7:5"}) {
        const Pattern whole = read_pattern(spec);
        const io::RandomSpec rs = io::parse_random_spec(spec);
        for (std::int64_t band : {std::int64_t{1}, std::int64_t{2}, std::int64_t{7}, rs.height}) {
            Collect all;
            for (std::int64_t y = -band; y < rs.height + band; y += band) io::stream_random(rs, y, y + band, all);
            EXPECT_EQ(all.cells, whole.cells) << spec << " in bands of " << band;
        }
    }
}

TEST(Random, EachCellIsOneDrawOfMt19937_64) {
    // The documented construction, recomputed independently of the reader.
    std::mt19937_64 rng(99);
    std::vector<Cell> expected;
    for (std::int64_t y = 0; y < 40; ++y)
        for (std::int64_t x = 0; x < 70; ++x)
            if (static_cast<double>(rng() >> 11) / 9007199254740992.0 < 0.3) expected.push_back(Cell{x, y});
    EXPECT_EQ(read_pattern("random:70x40:0.3:99").cells, expected);
}

TEST(Detection, FormatNamesAndContentOverExtension) {
    EXPECT_EQ(to_string(PatternFormat::rle), "RLE");
    EXPECT_EQ(to_string(PatternFormat::life105), "Life 1.05");
    EXPECT_EQ(to_string(PatternFormat::life106), "Life 1.06");
    EXPECT_EQ(to_string(PatternFormat::plaintext), "plaintext");
    EXPECT_EQ(to_string(PatternFormat::macrocell), "macrocell");
    EXPECT_EQ(to_string(PatternFormat::random), "random");
    EXPECT_EQ(parse_pattern("\n\n#Life 1.06\n1 1\n", "x.rle").format, PatternFormat::life106);
    EXPECT_EQ(parse_pattern("O.O\n", "x.rle").format, PatternFormat::plaintext);
    EXPECT_EQ(parse_pattern("x = 1, y = 1\no!", "x.cells").format, PatternFormat::rle);
    EXPECT_EQ(parse_pattern(kGunMc, "x.lif").format, PatternFormat::macrocell);
}

class ReadFile : public IoTest {};

TEST_F(ReadFile, ReadsFromDiskAndNamesMissingFiles) {
    const Pattern p = read_pattern(write("glider.rle", "x = 3, y = 3\nbo$2bo$3o!\n"));
    EXPECT_EQ(p.cells.size(), 5u);
    const std::string missing = path("nope.rle");
    expect_input_error([&] { read_pattern(missing); }, {missing + ": cannot open"});
    expect_input_error([&] { read_pattern(dir_.string()); }, {dir_.string() + ": is a directory"});
    ReadLimits tiny;
    tiny.max_file_bytes = 10;
    const std::string big = write("big.rle", "x = 3, y = 3\nbo$2bo$3o!\n");
    expect_input_error([&] { read_pattern(big, tiny); }, {big + ": larger than the limit"});
}

}  // namespace
}  // namespace tilelife::test
