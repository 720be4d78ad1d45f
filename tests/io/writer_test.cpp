// Writers: exact RLE and plaintext text, round trips, atomic replacement, output format choice.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "io_support.hpp"
#include "support/test_support.hpp"
#include "tilelife/formats.hpp"
#include "tilelife/output_file.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::test {
namespace {

TEST(FormatRle, GliderExactText) {
    const auto glider = cells({{11, -4}, {12, -3}, {10, -2}, {11, -2}, {12, -2}});
    EXPECT_EQ(format_rle(glider, "B3/S23", 0), "#CXRLE Pos=10,-4\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n");
    EXPECT_EQ(format_rle(glider, "B3/S23", 17), "#CXRLE Pos=10,-4 Gen=17\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n");
}

TEST(FormatRle, EmptyPatternAsGollyWritesIt) {
    EXPECT_EQ(format_rle({}, "B3/S23", 0), "x = 0, y = 0, rule = B3/S23\n!\n");
    EXPECT_EQ(format_rle({}, "B36/S23", 9), "#CXRLE Gen=9\nx = 0, y = 0, rule = B36/S23\n!\n");
}

TEST(FormatRle, RuleWrittenInGollysSpelling) {
    const auto one = cells({{0, 0}});
    EXPECT_EQ(format_rle(one, "23/3", 0), "#CXRLE Pos=0,0\nx = 1, y = 1, rule = B3/S23\no!\n");
    EXPECT_EQ(format_rle(one, "b36s23:t20,30", 0), "#CXRLE Pos=0,0\nx = 1, y = 1, rule = B36/S23:T20,30\no!\n");
    EXPECT_EQ(format_rle(one, "", 0), "#CXRLE Pos=0,0\nx = 1, y = 1, rule = B3/S23\no!\n");
    EXPECT_THROW(format_rle(one, "B9/S", 0), InputError);
}

TEST(FormatRle, MergedRowEndsDroppedTrailingDeadAndUnsortedInput) {
    // Unsorted, duplicated input; empty rows merge into "3$"; the box is the cells' bounding box.
    const auto v = cells({{5, 9}, {2, 5}, {2, 5}, {3, 5}, {9, 6}});
    EXPECT_EQ(format_rle(v, "B3/S23", 0), "#CXRLE Pos=2,5\nx = 8, y = 5, rule = B3/S23\n2o$7bo3$3bo!\n");
}

TEST(FormatRle, WrapsAtSeventyCharacters) {
    // 36 cells two apart: 71 one-character runs; the 71st starts a new line, then "!".
    std::vector<Cell> v;
    for (int i = 0; i < 36; ++i) v.push_back(Cell{2 * i, 0});
    std::string body;
    for (int i = 0; i < 35; ++i) body += "ob";
    EXPECT_EQ(format_rle(v, "B3/S23", 0), "#CXRLE Pos=0,0\nx = 71, y = 1, rule = B3/S23\n" + body + "\no!\n");
    // A run never splits: after 68 characters "12b" (71 > 70) moves to the next line whole.
    std::vector<Cell> w;
    for (int i = 0; i < 34; ++i) w.push_back(Cell{2 * i, 0});
    w.push_back(Cell{67, 0});
    w.push_back(Cell{80, 0});
    std::string body2;
    for (int i = 0; i < 33; ++i) body2 += "ob";
    EXPECT_EQ(format_rle(w, "B3/S23", 0), "#CXRLE Pos=0,0\nx = 81, y = 1, rule = B3/S23\n" + body2 + "2o\n12bo!\n");
}

TEST(FormatRle, EveryLineAtMostSeventy) {
    const Pattern p = read_pattern("random:400x300:0.3:11");
    const std::string text = format_rle(p.cells, "B3/S23", 0);
    std::size_t start = 0, lines = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        ASSERT_NE(end, std::string::npos);
        EXPECT_LE(end - start, 70u);
        start = end + 1;
        ++lines;
    }
    EXPECT_GT(lines, 100u);
}

TEST(RoundTrip, RleKeepsCellsPositionGenerationAndRule) {
    for (const char* spec : {"random:200x150:0.5:3", "random:500x40:0.02:8", "random:30x30:0.97:1"}) {
        Pattern p = read_pattern(spec);
        for (Cell& c : p.cells) {
            c.x -= 1000000007;
            c.y += 123456789012;
        }
        const Pattern q = parse_pattern(format_rle(p.cells, "B36/S23", 4242), "rt.rle");
        EXPECT_EQ(q.cells, p.cells) << spec;
        EXPECT_EQ(q.generation, 4242);
        EXPECT_EQ(*q.rule, "B36/S23");
        EXPECT_EQ(q.frame, p.bounding_box());
    }
    // The extremes of the readers' coordinate range (|x|, |y| < 2^62): a box 2^63 - 1 wide.
    const auto far = cells({{-4611686018427387903, -3}, {4611686018427387903, 5}});
    EXPECT_EQ(parse_pattern(format_rle(far, "B3/S23", 0), "far.rle").cells, far);
    const Pattern e = parse_pattern(format_rle({}, "B3/S23", 77), "e.rle");
    EXPECT_TRUE(e.cells.empty());
    EXPECT_EQ(e.generation, 77);
}

TEST(RoundTrip, OtherFormatsThroughRle) {
    const Pattern lif = parse_pattern("#Life 1.06\n-5 -5\n0 0\n7 -2\n", "n.lif");
    EXPECT_EQ(parse_pattern(format_rle(lif.cells, "B3/S23", 0), "n.rle").cells, lif.cells);
}

TEST(FormatPlaintext, ExactTextAndRoundTrip) {
    const auto glider = cells({{11, -4}, {12, -3}, {10, -2}, {11, -2}, {12, -2}, {12, 0}});
    EXPECT_EQ(format_plaintext(glider, "Glider"), "!Name: Glider\n.O\n..O\nOOO\n\n..O\n");
    EXPECT_EQ(format_plaintext({}, "nothing"), "!Name: nothing\n");
    EXPECT_EQ(format_plaintext(cells({{0, 0}}), "two\nlines"), "!Name: two lines\nO\n");
    const Pattern soup = read_pattern("random:90x60:0.4:5");
    const Pattern back = parse_pattern(format_plaintext(soup.cells, "soup"), "soup.cells");
    EXPECT_EQ(back.name, "soup");
    EXPECT_EQ(back.cells, soup.cells);  // the soup's bounding box starts at (0, 0)
    EXPECT_EQ(back.frame, soup.bounding_box());
    // Plaintext has no position: cells come back relative to the bounding box's top-left.
    const Pattern moved = parse_pattern(format_plaintext(glider, "g"), "g.cells");
    EXPECT_EQ(moved.cells, cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}, {2, 4}}));
}

class AtomicWrite : public IoTest {};

TEST_F(AtomicWrite, CreatesReplacesAndLeavesNoTemporaryFiles) {
    const std::string target = path("out.rle");
    write_file_atomic(target, "first\n");
    EXPECT_EQ(slurp(target), "first\n");
    ::chmod(target.c_str(), 0640);
    write_file_atomic(target, "second\n");
    EXPECT_EQ(slurp(target), "second\n");
    struct stat st {};
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);  // an existing file keeps its permissions
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
    EXPECT_EQ(entries, 1u);
    const std::string big(5 << 20, 'o');
    write_file_atomic(target, big);
    EXPECT_EQ(slurp(target), big);
}

TEST_F(AtomicWrite, FailureIsRuntimeErrorAndTargetUntouched) {
    EXPECT_THROW(write_file_atomic(path("no/such/dir/out.rle"), "x"), RuntimeError);
    // The target is a directory: refused as bad input before anything is created.
    const std::string d = path("taken");
    std::filesystem::create_directory(d);
    write(std::string("taken/keep"), "keep");
    expect_input_error([&] { write_file_atomic(d, "x"); }, {d, "is a directory"});
    EXPECT_EQ(slurp(path("taken/keep")), "keep");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
    EXPECT_EQ(entries, 1u);
}

// The temporary file exists from construction (a bad path fails before any work); nothing reaches
// the target before commit(), and an output never committed leaves nothing behind.
TEST_F(AtomicWrite, OutputFileOpensFirstAndCommitsWhole) {
    const std::string target = write("out.rle", "old\n");
    {
        OutputFile f(target);
        EXPECT_EQ(test::files_being_written(::getpid(), dir_.string()).size(), 1u) << "the temporary file is created at once";
        std::size_t entries = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
        EXPECT_EQ(entries, 1u) << "the temporary file has no name until it is complete";
        f.write("new ");
        f.write("text\n");
        EXPECT_EQ(slurp(target), "old\n");
        f.commit();
    }
    EXPECT_EQ(slurp(target), "new text\n");
    { OutputFile abandoned(target); }  // never committed: the target and the directory are as they were
    EXPECT_EQ(slurp(target), "new text\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
    EXPECT_EQ(entries, 1u);
    EXPECT_THROW(OutputFile(path("missing/x.rle")), RuntimeError);
    expect_input_error([&] { OutputFile f(dir_.string()); }, {"is a directory"});
    EXPECT_THROW(check_output_path(path("missing/x.rle")), RuntimeError);
    expect_input_error([&] { check_output_path(dir_.string()); }, {"is a directory"});
    check_output_path(path("fine.rle"));
    EXPECT_FALSE(std::filesystem::exists(path("fine.rle")));
}

// A new target appears only when complete; one that appears while the output is written (another
// program, another run) is replaced by the complete file all the same; no temporary name is left.
TEST_F(AtomicWrite, NewTargetAndTargetThatAppearsMeanwhile) {
    const std::string fresh = path("fresh.rle");
    {
        OutputFile f(fresh);
        f.write("fresh\n");
        EXPECT_FALSE(std::filesystem::exists(fresh));
        f.commit();
    }
    EXPECT_EQ(slurp(fresh), "fresh\n");
    const std::string raced = path("raced.rle");
    {
        OutputFile f(raced);
        f.write("ours\n");
        write("raced.rle", "theirs\n");
        f.commit();
    }
    EXPECT_EQ(slurp(raced), "ours\n");
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"fresh.rle", "raced.rle"}));
}

TEST_F(AtomicWrite, StreamAndDescriptorForLibraryWriters) {
    {
        OutputFile f(path("stream.txt"));
        std::fputs("through FILE*\n", f.stream());
        f.commit();
    }
    EXPECT_EQ(slurp(path("stream.txt")), "through FILE*\n");
    {
        // A library that closes the descriptor it is given (giflib does).
        OutputFile f(path("fd.txt"));
        const int fd = f.release_fd();
        ASSERT_GE(fd, 0);
        ASSERT_EQ(::write(fd, "through fd\n", 11), 11);
        ::close(fd);
        f.commit();
    }
    EXPECT_EQ(slurp(path("fd.txt")), "through fd\n");
}

#ifdef TILELIFE_TEST_HAVE_ZLIB
TEST_F(AtomicWrite, ANamedPipeOrDeviceIsWrittenWhereItIs) {
    // A target that is not a regular file (a FIFO here; /dev/null alike) takes the bytes itself: a
    // temporary file renamed over it would replace it with a regular file (as root, /dev/null).
    const std::string fifo = path("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader first: the writer's open does not wait
    ASSERT_GE(reader, 0);
    check_output_path(fifo);
    for (const auto sync : {OutputFile::Sync::no, OutputFile::Sync::yes}) {
        OutputFile f(fifo, OutputFile::Compression::none, sync);
        f.write("x = 1, y = 1\no!\n");
        f.commit();
        char buf[64];
        const ssize_t n = ::read(reader, buf, sizeof buf);
        EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "x = 1, y = 1\no!\n");
    }
    ::close(reader);
    struct stat st {};
    ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
    EXPECT_EQ(entries, 1u);  // no temporary file left beside it
}

TEST_F(AtomicWrite, GzipOutputReadsBack) {
    const auto glider = cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}});
    const std::string text = format_rle(glider, PatternMeta{"B36/S23", 7, "glider", {"me"}, {"one", "two"}});
    {
        OutputFile f(path("g.rle.gz"), OutputFile::Compression::gzip);
        f.write(text);
        f.commit();
    }
    const std::string bytes = slurp(path("g.rle.gz"));
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);  // gzip magic
    const Pattern p = read_pattern(path("g.rle.gz"));
    EXPECT_EQ(p.cells, glider);
    EXPECT_EQ(p.generation, 7);
    EXPECT_EQ(p.name, "glider");
    EXPECT_EQ(p.authors, std::vector<std::string>{"me"});
    EXPECT_EQ(p.comments, (std::vector<std::string>{"one", "two"}));
}
#endif

TEST(OutputFormat, ByExtension) {
    EXPECT_EQ(output_format_for("a/b/out.rle"), OutputFormat::rle);
    EXPECT_EQ(output_format_for("OUT.RLE"), OutputFormat::rle);
    EXPECT_EQ(output_format_for("x.cells"), OutputFormat::plaintext);
    EXPECT_EQ(output_format_for("pic.png"), OutputFormat::png);
    EXPECT_EQ(output_format_for("big.MC"), OutputFormat::macrocell);
    expect_input_error([] { output_format_for("out.lif"); }, {"out.lif: ", "'.lif'", ".rle, .cells, .mc, .png"});
    expect_input_error([] { output_format_for("dir/noext"); }, {"dir/noext: ", "no file extension", ".rle"});
    expect_input_error([] { output_format_for("out.txt"); }, {"out.txt: ", "'.txt'", ".rle, .cells, .mc"});
}

TEST(OutputFormat, GzipStandardOutputAndForcedFormat) {
    const OutputTarget gz = output_target("x/a.RLE.gz");
    EXPECT_EQ(gz.format, OutputFormat::rle);
    EXPECT_TRUE(gz.gzip);
    EXPECT_EQ(output_target("a.cells.gz").format, OutputFormat::plaintext);
    EXPECT_FALSE(output_target("a.rle").gzip);
    expect_input_error([] { output_target("a.png.gz"); }, {"a.png.gz", "PNG"});
    // Standard output without a format is RLE, as other tools of the field write to a pipe.
    EXPECT_EQ(output_target("-").format, OutputFormat::rle);
    EXPECT_FALSE(output_target("-").gzip);
    expect_input_error([] { output_target("a.txt"); },
                       {"a.txt", "supported: .rle, .cells, .mc, .png, and .rle.gz, .cells.gz, .mc.gz"});
    expect_input_error([] { output_target(""); }, {"empty output file name"});
    const OutputTarget out = output_target("-", OutputFormat::plaintext);
    EXPECT_TRUE(out.standard_output());
    EXPECT_EQ(out.format, OutputFormat::plaintext);
    EXPECT_EQ(output_target("notes.txt", OutputFormat::rle).format, OutputFormat::rle);  // the format wins
    for (OutputFormat f : {OutputFormat::rle, OutputFormat::plaintext, OutputFormat::macrocell, OutputFormat::png})
        EXPECT_EQ(output_format_named(to_string(f)), f);
    EXPECT_FALSE(output_format_named("gif"));
}

// Metadata: the name, authors and comments survive RLE and plaintext, and a round trip between them.
TEST(FormatMeta, RleAndPlaintextKeepNameAuthorsAndComments) {
    const auto glider = cells({{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}});
    const PatternMeta meta{"23/3", 12, "Glider", {"Richard K. Guy"}, {"the smallest spaceship", "", "two\nlines"}};
    EXPECT_EQ(format_rle(glider, meta),
              "#CXRLE Pos=0,0 Gen=12\n#N Glider\n#O Richard K. Guy\n#C the smallest spaceship\n#C\n#C two lines\n"
              "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n");
    EXPECT_EQ(format_plaintext(glider, meta),
              "!Name: Glider\n!Author: Richard K. Guy\n!the smallest spaceship\n!\n!two lines\n.O\n..O\nOOO\n");
    const Pattern from_rle = parse_pattern(format_rle(glider, meta), "m.rle");
    const Pattern from_cells = parse_pattern(format_plaintext(glider, meta_of(from_rle)), "m.cells");
    for (const Pattern* p : {&from_rle, &from_cells}) {
        EXPECT_EQ(p->name, "Glider");
        EXPECT_EQ(p->authors, std::vector<std::string>{"Richard K. Guy"});
        EXPECT_EQ(p->comments, (std::vector<std::string>{"the smallest spaceship", "", "two lines"}));
        EXPECT_EQ(p->cells, glider);
    }
    EXPECT_EQ(meta_of(from_rle).generation, 12);
    EXPECT_EQ(meta_of(parse_pattern("x = 1, y = 1\no!", "n.rle")).rule, "B3/S23");
    // Macrocell text is the tree's (tests/hashlife checks its bytes against bgolly's) with the
    // metadata after #R and #G, where Golly writes comment lines.
    EXPECT_EQ(format_pattern(OutputFormat::macrocell, glider, meta),
              "[M2] (tilelife " TILELIFE_VERSION ")\n#R B3/S23\n#G 12\n#N Glider\n#O Richard K. Guy\n"
              "#C the smallest spaceship\n#C\n#C two lines\n$$$$$$$.*$\n..*$***$\n4 0 1 0 2\n");
    const Pattern from_mc = parse_pattern(format_pattern(OutputFormat::macrocell, glider, meta), "m.mc");
    EXPECT_EQ(from_mc.name, "Glider");
    EXPECT_EQ(from_mc.authors, std::vector<std::string>{"Richard K. Guy"});
    EXPECT_EQ(from_mc.comments, (std::vector<std::string>{"the smallest spaceship", "", "two lines"}));
}

// The format table: names, extensions, messages, and estimates that are lower bounds of the real
// text for every writer (checked on soups of several densities and shapes, and on trees).
TEST(FormatTable, RowsNamesAndEstimatesBoundTheText) {
    EXPECT_EQ(output_format_names(), "rle, cells, mc or png");
    EXPECT_EQ(output_extensions(), ".rle, .cells, .mc, .png, and .rle.gz, .cells.gz, .mc.gz");
    for (OutputFormat f : {OutputFormat::rle, OutputFormat::plaintext, OutputFormat::macrocell, OutputFormat::png}) {
        const FormatInfo& row = format_info(f);
        EXPECT_EQ(row.write_as, f);
        EXPECT_EQ(output_target("a" + std::string(row.extensions.front())).format, f);
        EXPECT_EQ(row.image, f == OutputFormat::png);
        EXPECT_EQ(row.from_cells == nullptr, row.image);
    }
    for (PatternFormat f : {PatternFormat::rle, PatternFormat::life105, PatternFormat::life106, PatternFormat::plaintext,
                            PatternFormat::macrocell}) {
        ASSERT_NE(format_info(f), nullptr);
        EXPECT_NE(format_info(f)->read, nullptr);
        EXPECT_NE(format_info(f)->detect, nullptr);
    }
    EXPECT_EQ(format_info(PatternFormat::random), nullptr);
    const PatternMeta none;
    for (const char* spec : {"random:300x200:0.5:1", "random:1000x1000:0.001:2", "random:3x900:0.3:3",
                             "random:900x3:0.3:4", "random:64x64:1:5"}) {
        const std::vector<Cell> c = read_pattern(spec).cells;
        const Quadtree tree = Quadtree::from_cells(c);
        for (const OutputShape& shape : {shape_of(c), shape_of(tree)}) {
            EXPECT_EQ(shape.population, c.size());
            EXPECT_EQ(shape.box, bounding_box(c));
            for (OutputFormat f : {OutputFormat::rle, OutputFormat::plaintext, OutputFormat::macrocell}) {
                const std::int64_t text = static_cast<std::int64_t>(format_pattern(f, c, none).size());
                EXPECT_LE(format_info(f).estimate(shape), text) << spec << " " << to_string(f);
                EXPECT_GT(format_info(f).estimate(shape), 0) << spec << " " << to_string(f);
                EXPECT_GE(listing_bytes(format_info(f), shape), static_cast<std::int64_t>(16 * c.size()));
            }
        }
    }
    // A tree of 2^80 cells: its estimates saturate instead of overflowing.
    std::string huge = "[M2]\n********$********$********$********$********$********$********$********$\n";
    for (int level = 4; level <= 43; ++level) {
        const std::string k = std::to_string(level - 3);
        huge += std::to_string(level) + " " + k + " " + k + " " + k + " " + k + "\n";
    }
    ReadLimits tree_only;
    tree_only.list_tree_cells = false;
    const OutputShape big = shape_of(*parse_pattern(huge, "huge.mc", tree_only).tree);
    EXPECT_EQ(big.live_rows, std::uint64_t{1} << 43);
    EXPECT_EQ(format_info(OutputFormat::plaintext).estimate(big), INT64_MAX);
    EXPECT_EQ(format_info(OutputFormat::rle).estimate(big), std::int64_t{1} << 44);
    EXPECT_EQ(listing_bytes(format_info(OutputFormat::rle), big), INT64_MAX);
}


// ---- Writing from rows of bits (PackedRows: what format_board gives bounded boards) ----

// A w x h board holding `live` (board coordinates), handed out as rows of bits.
struct BitBoard {
    std::int64_t w, h, nw;
    std::vector<std::uint64_t> words;
    BitBoard(std::int64_t w_, std::int64_t h_, const std::vector<Cell>& live)
        : w(w_), h(h_), nw((w_ + 63) / 64), words(static_cast<std::size_t>(nw * h_), 0) {
        for (const Cell& c : live) words[static_cast<std::size_t>(c.y * nw + c.x / 64)] |= std::uint64_t{1} << (c.x % 64);
    }
    PackedRows rows(Cell origin, int* reads = nullptr) const {
        return PackedRows{w, h, origin, [this, reads](std::int64_t y, std::int64_t n, std::uint64_t* out) {
                              ASSERT_GE(y, 0);
                              ASSERT_LE(y + n, h);
                              if (reads) ++*reads;
                              std::copy_n(words.begin() + y * nw, n * nw, out);
                          }};
    }
};

std::vector<Cell> moved(std::vector<Cell> v, Cell by) {
    for (Cell& c : v) c = Cell{c.x + by.x, c.y + by.y};
    return v;
}

// A w x h soup of the given density from a xorshift stream seeded by `seed`, rows in order.
std::vector<Cell> xorshift_soup(std::int64_t w, std::int64_t h, double density, std::uint64_t seed) {
    std::vector<Cell> live;
    std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL;
    for (std::int64_t r = 0; r < h; ++r)
        for (std::int64_t c = 0; c < w; ++c) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (static_cast<double>(x % 1000000) < density * 1000000) live.push_back(Cell{c, r});
        }
    return live;
}

// Random boards of awkward sizes (1x1, 1xN, Nx1, widths around multiples of 64), densities from
// empty to full (full rows: runs as long as the row, every line wrapped), any origin: the same text
// as the cells writer, which the exact-text tests above pin to Golly's.
TEST(FormatPacked, SameTextAsTheCellsWriter) {
    const PatternMeta meta{"B36/S23:T9,9", 77, "soup", {"me"}, {"a comment"}};
    std::uint64_t seed = 1;
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 37}, {37, 1}, {63, 5}, {64, 9}, {65, 7},
                        {127, 3}, {128, 2}, {129, 11}, {200, 130}, {1000, 3}}) {
        for (double density : {0.0, 0.003, 0.3, 0.5, 0.9, 1.0}) {
            const std::vector<Cell> live = xorshift_soup(w, h, density, ++seed);
            const BitBoard board(w, h, live);
            for (Cell origin : {Cell{0, 0}, Cell{-w / 2, -h / 2}, Cell{-1000000007, 123456789012}}) {
                const std::vector<Cell> at = moved(live, origin);
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " density " + std::to_string(density));
                EXPECT_EQ(format_rle(board.rows(origin), meta), format_rle(at, meta));
                EXPECT_EQ(format_plaintext(board.rows(origin), meta), format_plaintext(at, meta));
            }
        }
    }
}

// The RLE of a tree, handed over in pieces: the cells writer's text, in pieces of at most 64 KiB
// (plus a run), and refused past max_bytes whether that is found in the middle or at the end.
TEST(FormatTree, RleInPiecesIsTheCellsWritersText) {
    const PatternMeta meta{"B36/S23", 12, "soup", {"me"}, {"a comment"}};
    std::uint64_t seed = 7;
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {9, 1}, {1, 17}, {65, 7}, {700, 900}}) {
        for (Cell origin : {Cell{0, 0}, Cell{-w / 2, -h / 2}, Cell{-1000000007, 123456789012}}) {
            const std::vector<Cell> live = moved(xorshift_soup(w, h, 0.3, ++seed), origin);
            const Quadtree tree = Quadtree::from_cells(live);
            const std::string whole = format_rle(live, meta);
            SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
            std::vector<std::string> pieces;
            write_rle_tree(tree, meta, INT64_MAX, [&](std::string_view t) { pieces.emplace_back(t); });
            std::string joined;
            for (const std::string& t : pieces) {
                EXPECT_LE(t.size(), (std::size_t{64} << 10) + 64);
                joined += t;
            }
            EXPECT_EQ(joined, whole);
            EXPECT_EQ(format_rle_tree(tree, meta), whole);
            if (w * h > 100000) EXPECT_GT(pieces.size(), 3u);  // the ~190 KiB of text went out in pieces
            const auto limit = static_cast<std::int64_t>(whole.size());
            EXPECT_EQ(format_rle_tree(tree, meta, limit), whole);
            if (!live.empty()) EXPECT_THROW(format_rle_tree(tree, meta, limit - 1), InputError);
            if (limit > 100000) {
                std::size_t handed = 0;
                EXPECT_THROW(write_rle_tree(tree, meta, 70000, [&](std::string_view t) { handed += t.size(); }),
                             InputError);
                EXPECT_LE(handed, 70000u);  // stopped at the first piece past the limit, not at the end
            }
        }
    }
}

// The cases the row walk has of its own: runs that end at a word's last bit or the board's last
// column, a run of dead cells across whole words, rows whose only cell is in the last word, huge
// gaps of empty rows ("29997$"), empty rows at the top and the bottom (outside the box), and bands:
// a tall board is read in several bands, each row once per pass.
TEST(FormatPacked, RunsAcrossWordsAndRowsAndLongGaps) {
    const std::vector<Cell> live = cells({{63, 1}, {64, 1}, {65, 1}, {0, 2}, {191, 2}, {127, 3}, {128, 3},
                                          {70, 30000}, {191, 30000}});
    const BitBoard board(192, 30003, live);
    int reads = 0;
    const std::string text = format_rle(board.rows(Cell{0, 0}, &reads), PatternMeta{});
    EXPECT_EQ(text, "#CXRLE Pos=0,1\nx = 192, y = 30000, rule = B3/S23\n63b3o$o190bo$127b2o29997$70bo120bo!\n");
    EXPECT_EQ(text, format_rle(live, PatternMeta{}));
    EXPECT_GT(reads, 2);  // more than one band a pass
    EXPECT_EQ(parse_pattern(text, "gaps.rle").cells, live);
    // Plaintext: trailing dots dropped, empty rows as empty lines, nothing above the first live row.
    const BitBoard small(70, 4, cells({{69, 1}, {0, 3}, {64, 3}}));
    EXPECT_EQ(format_plaintext(small.rows(Cell{0, 0}), PatternMeta{}),
              "!Name:\n" + std::string(69, '.') + "O\n\nO" + std::string(63, '.') + "O\n");
}

// Macrocell from rows (write_macrocell): its nodes come in row order, not Golly's, so the test is
// reading it back: exactly the cells, in a root of the level the tree writer gives them, for the
// awkward sizes and origins above (leaves straddling words, the board's edges and the origin) and a
// 4096x4096 soup with more distinct nodes than the sharing table holds (cleared on the way).
std::string mc_of(const PackedRows& rows, const PatternMeta& meta) {
    std::string text;
    write_macrocell(rows, meta, [&text](std::string_view piece) { text += piece; });
    return text;
}

TEST(FormatPacked, MacrocellFromRowsReadsBackAsTheCells) {
    const PatternMeta meta{"B36/S23:T9,9", 77, "soup", {"me"}, {"a comment"}};
    std::uint64_t seed = 7;
    const auto soup = [&seed](std::int64_t w, std::int64_t h, double density) {
        return xorshift_soup(w, h, density, ++seed);
    };
    const auto check = [&](std::int64_t w, std::int64_t h, const std::vector<Cell>& live, Cell origin) {
        const BitBoard board(w, h, live);
        std::vector<Cell> want = moved(live, origin);
        std::sort(want.begin(), want.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
        const std::string text = mc_of(board.rows(origin), meta);
        const Pattern back = parse_pattern(text, "rows.mc");
        EXPECT_EQ(back.cells, want);
        EXPECT_EQ(back.generation, 77);
        EXPECT_EQ(back.rule, "B36/S23:T9,9");
        if (want.empty()) {
            EXPECT_EQ(text, format_macrocell(Quadtree{}, meta));
            return;
        }
        ASSERT_TRUE(back.tree);
        EXPECT_EQ(back.tree->level(), Quadtree::from_cells(want).level());
    };
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 37}, {37, 1}, {63, 5}, {64, 9}, {65, 7},
                        {127, 3}, {128, 2}, {129, 11}, {200, 130}, {1000, 3}}) {
        for (double density : {0.0, 0.003, 0.3, 0.5, 1.0}) {
            const std::vector<Cell> live = soup(w, h, density);
            // Every column a leaf can start at within a word (origin.x mod 8), and far from zero.
            std::vector<Cell> origins{Cell{-w / 2, -h / 2}, Cell{-1000000007, 123456789013}};
            for (std::int64_t k = 0; k < 8; ++k) origins.push_back(Cell{k, 3 - k});
            for (Cell origin : origins) {
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " density " + std::to_string(density) +
                             " at " + std::to_string(origin.x) + "," + std::to_string(origin.y));
                check(w, h, live, origin);
            }
        }
    }
    SCOPED_TRACE("4096x4096");
    check(4096, 4096, soup(4096, 4096, 0.5), Cell{-2048, -2048});
}

// Quadtree::from_cells takes cells in any order: row order (sorted a band of 8 rows at a time) and
// any other (sorted whole), duplicates included, make the same macrocell and the same cells, over
// squares far apart and the boundaries of 8-row bands.
TEST(FromCells, CellsInAnyOrderMakeTheSameTree) {
    std::mt19937_64 rng(5);
    for (int round = 0; round < 4; ++round) {
        std::vector<Cell> rows = xorshift_soup(67 + 10 * round, 45, 0.3, 40 + round);
        for (const Cell& c : xorshift_soup(9, 13, 0.5, 60 + round)) rows.push_back(Cell{c.x + 900 * round - 1300, c.y + 517});
        std::sort(rows.begin(), rows.end(), [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
        std::vector<Cell> any = rows;
        any.insert(any.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(rows.size() / 4));
        std::shuffle(any.begin(), any.end(), rng);
        const Quadtree a = Quadtree::from_cells(rows), b = Quadtree::from_cells(any);
        EXPECT_EQ(a.cells(), rows) << "round " << round;
        EXPECT_EQ(b.cells(), rows) << "round " << round;
        EXPECT_EQ(format_macrocell(a, PatternMeta{}), format_macrocell(b, PatternMeta{})) << "round " << round;
    }
    // Each distinct square once: 32 x 32 blocks on a grid of side 16 make a few distinct squares a
    // level (the root's rows start one cell off the grid's, which splits each block between two
    // leaves, and the grid's last row and column differ), 20 in all up to the root of level 11;
    // one square for each place they occur would be thousands.
    std::vector<Cell> blocks;
    for (int j = 0; j < 32; ++j)
        for (int i = 0; i < 32; ++i)
            for (const Cell& c : {Cell{0, 0}, Cell{1, 0}, Cell{0, 1}, Cell{1, 1}}) blocks.push_back(Cell{16 * i + c.x, 16 * j + c.y});
    const Quadtree grid = Quadtree::from_cells(blocks);
    EXPECT_EQ(grid.population(), 4096);
    EXPECT_LE(grid.nodes().size(), 32u);
    // And no square twice in a tree large enough to grow the table several times, whose squares
    // recur: 64 x 64 pieces of 8 x 8 cells from a palette of 700 (each about six times). As many
    // squares as the macrocell, which lists each distinct one once, has lines of squares.
    std::mt19937_64 bits(9);
    std::vector<std::uint64_t> palette(700);
    for (auto& w : palette) w = bits();
    std::vector<Cell> tiles;
    for (int j = 0; j < 64; ++j)
        for (int i = 0; i < 64; ++i)
            for (int k = 0; k < 64; ++k)
                if (palette[static_cast<std::size_t>((7 * i + 13 * j) % 700)] >> k & 1)
                    tiles.push_back(Cell{8 * i + k % 8, 8 * j + k / 8});
    const Quadtree tiled = Quadtree::from_cells(tiles);
    const Quadtree back = *parse_pattern(format_macrocell(tiled, PatternMeta{}), "tiled.mc").tree;
    EXPECT_GT(tiled.nodes().size(), 1024u);
    EXPECT_EQ(tiled.nodes().size(), back.nodes().size());
}

// A built tree shares every square and holds nothing else: no two nodes alike, each reachable from
// the root.
void expect_shared(const Quadtree& t, const std::string& what) {
    std::set<std::tuple<int, std::uint64_t, std::array<Quadtree::Index, 4>>> seen;
    for (const Quadtree::Node& n : t.nodes())
        EXPECT_TRUE(seen.insert({n.level, n.bits, n.kids}).second) << what << ": a square twice";
    std::vector<bool> reached(t.nodes().size() + 1, false);
    std::vector<Quadtree::Index> todo;
    if (t.root()) todo.push_back(t.root());
    std::size_t count = 0;
    while (!todo.empty()) {
        const Quadtree::Index i = todo.back();
        todo.pop_back();
        if (reached[i]) continue;
        reached[i] = true;
        ++count;
        if (t.node(i).level > Quadtree::leaf_level)
            for (const Quadtree::Index k : t.node(i).kids)
                if (k) todo.push_back(k);
    }
    EXPECT_EQ(count, t.nodes().size()) << what << ": squares the root does not reach";
}

// Runs in row order, as a reader hands them over: several in a row in any order, overlapping,
// across the 8x8 squares' borders; the tree holds exactly their cells, under the smallest root.
TEST(QuadtreeBuilder, RunsInRowOrderMakeTheTreeOfTheirCells) {
    std::mt19937_64 rng(23);
    const std::int64_t shifts[][2] = {{0, 0}, {-5, -3}, {-5000000000, 77}, {123456789, -987654321}, {-700, 4}};
    for (const auto& shift : shifts) {
        for (int round = 0; round < 3; ++round) {
            QuadtreeBuilder b;
            std::set<std::pair<std::int64_t, std::int64_t>> want;  // (y, x)
            std::int64_t y = shift[1] - static_cast<std::int64_t>(rng() % 40);
            const int rows = 1 + static_cast<int>(rng() % 120);
            for (int r = 0; r < rows; ++r) {
                y += static_cast<std::int64_t>(rng() % 5 == 0 ? rng() % 30 : rng() % 2);
                const int runs = static_cast<int>(rng() % 6);
                for (int k = 0; k < runs; ++k) {
                    const std::int64_t x = shift[0] + static_cast<std::int64_t>(rng() % 300) - 150;
                    const std::int64_t n = 1 + static_cast<std::int64_t>(rng() % (rng() % 4 == 0 ? 70 : 9));
                    b.add(x, y, n);
                    for (std::int64_t i = 0; i < n; ++i) want.insert({y, x + i});
                }
            }
            const std::string what = "shift " + std::to_string(shift[0]) + "," + std::to_string(shift[1]) + " round " +
                                     std::to_string(round);
            std::vector<Cell> cells;
            for (const auto& [cy, cx] : want) cells.push_back(Cell{cx, cy});
            const Quadtree t = b.finish();
            EXPECT_EQ(t.cells(), cells) << what;
            EXPECT_EQ(t.level(), root_level_for(bounding_box(cells), 4)) << what;
            expect_shared(t, what);
            // Said to be shared, it is written without looking for identical squares: the same
            // text as a copy that does not say so.
            EXPECT_TRUE(t.shared()) << what;
            Quadtree copy;
            for (const Quadtree::Node& n : t.nodes())
                n.level == Quadtree::leaf_level ? copy.add_leaf(n.bits) : copy.add_node(n.level, n.kids);
            copy.set_root(t.root(), t.level());
            ASSERT_FALSE(copy.shared());
            EXPECT_EQ(format_macrocell(t, PatternMeta{}), format_macrocell(copy, PatternMeta{})) << what;
        }
    }
}

// The root is chosen at the end: cells that come later farther out (across, and down) make it
// grow while the squares below it are being made, and the root's quadrants are the squares either
// side of the centre lines at every size, from the smallest root (level 4) up.
TEST(QuadtreeBuilder, TheRootGrowsAsTheCellsSpread) {
    const std::vector<std::vector<Cell>> cases = {
        {Cell{0, 0}},
        {Cell{-8, -7}, Cell{7, 8}},                         // the corners of a level-4 root
        {Cell{-8, -7}, Cell{8, 8}},                         // one past them: level 5
        {Cell{0, -1000}, Cell{1, -1000}, Cell{std::int64_t{1} << 40, 5}, Cell{-3, std::int64_t{1} << 50}},
        {Cell{-(std::int64_t{1} << 33), -20}, Cell{5, -20}, Cell{6, -19}, Cell{-9, 3}, Cell{4, 3}, Cell{1000000, 64}},
        {Cell{70000, 70000}, Cell{70001, 70001}, Cell{69999, 70002}, Cell{70000, 70002}, Cell{70001, 70002}},
        // One band of rows far apart across (sorted, not gathered in a row of words).
        {Cell{1000000, 0}, Cell{0, 1}, Cell{500000, 2}, Cell{3, 2}, Cell{-77, 3}},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        QuadtreeBuilder b;
        for (const Cell& c : cases[i]) b.add(c.x, c.y, 1);
        std::vector<Cell> sorted = cases[i];
        std::sort(sorted.begin(), sorted.end(), row_order);
        const Quadtree t = b.finish();
        EXPECT_EQ(t.cells(), sorted) << "case " << i;
        EXPECT_EQ(t.level(), root_level_for(bounding_box(sorted), 4)) << "case " << i;
        expect_shared(t, "case " + std::to_string(i));
    }
    // Nothing added: the empty tree.
    QuadtreeBuilder empty;
    const Quadtree none = empty.finish();
    EXPECT_EQ(none.root(), 0u);
    EXPECT_TRUE(none.nodes().empty());
}

// The whole plane of a level-63 root, every reader's coordinates, and nothing past it.
TEST(QuadtreeBuilder, TakesTheLevel63PlaneAndRefusesWhatIsOutside) {
    const std::int64_t h = std::int64_t{1} << 62;
    QuadtreeBuilder b;
    b.add(-h, 1 - h, 1);
    b.add(h - 2, 1 - h, 2);
    b.add(-h, h, 1);
    b.add(h - 1, h, 1);
    const Quadtree t = b.finish();
    EXPECT_EQ(t.level(), 63);
    EXPECT_EQ(t.cells(), (std::vector<Cell>{{-h, 1 - h}, {h - 2, 1 - h}, {h - 1, 1 - h}, {-h, h}, {h - 1, h}}));
    expect_shared(t, "level 63");
    const auto refused = [](std::int64_t x, std::int64_t y, std::int64_t n) {
        QuadtreeBuilder r;
        EXPECT_THROW(r.add(x, y, n), std::invalid_argument) << x << "," << y << " +" << n;
    };
    refused(-h - 1, 0, 1);
    refused(h - 1, 0, 2);
    refused(h, 0, 1);
    refused(0, -h, 1);
    refused(0, h + 1, 1);
    refused(0, 0, -1);
    QuadtreeBuilder order;
    order.add(0, 5, 1);
    order.add(-4, 5, 2);  // the same row, farther left: fine
    EXPECT_THROW(order.add(0, 4, 1), std::invalid_argument);
}

// A tree's macrocell goes to the sink in pieces of about 64 KiB (a run's output is never held
// whole), and the pieces are format_macrocell's text: through the numbering walk (a tree built from
// cells) and through the canonical path (a tree already in Golly's order, as engines export).
TEST(FormatMacrocell, WrittenInPiecesAsTheWholeText) {
    const PatternMeta meta{"B3/S23", 12, "soup", {"me"}, {"a comment"}};
    const Quadtree built = Quadtree::from_cells(xorshift_soup(700, 500, 0.3, 11));
    const std::string text = format_macrocell(built, meta);
    ASSERT_GT(text.size(), std::size_t{4} << 16);
    Quadtree ordered = *parse_pattern(text, "soup.mc").tree;  // numbered as the file numbers it
    ordered.set_canonical();
    for (const Quadtree* t : {&built, static_cast<const Quadtree*>(&ordered)}) {
        std::string joined;
        std::size_t pieces = 0, largest = 0;
        write_macrocell(*t, meta, [&](std::string_view piece) {
            ++pieces;
            largest = std::max(largest, piece.size());
            joined += piece;
        });
        EXPECT_EQ(joined, text) << (t == &built ? "walked" : "canonical");
        EXPECT_GE(pieces, text.size() >> 16);
        EXPECT_LE(largest, (std::size_t{64} << 10) + 100);
    }
}

// A tree that does not share its identical squares (each square added twice, parents pointing at
// either copy) and spells out empty squares is written as Golly writes its canonical tree: each
// distinct square once, empty ones as 0. The text is the shared tree's.
TEST(FormatMacrocell, IdenticalSquaresNotSharedAreWrittenOnce) {
    const PatternMeta meta{"B3/S23", 0, "", {}, {}};
    for (const auto& [w, h, density, seed] : {std::tuple{700, 500, 0.3, 11}, std::tuple{90, 2000, 0.01, 12},
                                              std::tuple{1, 1, 1.0, 13}}) {
        const Quadtree shared = Quadtree::from_cells(xorshift_soup(w, h, density, seed));
        Quadtree twice;
        std::vector<std::array<Quadtree::Index, 2>> copy(shared.nodes().size() + 1);
        std::array<Quadtree::Index, Quadtree::max_level + 1> empty{};
        const auto empty_of = [&](const auto& self, int level) -> Quadtree::Index {
            Quadtree::Index& e = empty[static_cast<std::size_t>(level)];
            if (e == 0) {
                if (level == Quadtree::leaf_level) {
                    e = twice.add_leaf(0);
                } else {
                    const Quadtree::Index k = self(self, level - 1);
                    e = twice.add_node(level, {k, k, k, k});
                }
            }
            return e;
        };
        for (Quadtree::Index i = 1; i <= shared.nodes().size(); ++i) {
            const Quadtree::Node& n = shared.node(i);
            for (int c = 0; c < 2; ++c) {
                if (n.level == Quadtree::leaf_level) {
                    copy[i][static_cast<std::size_t>(c)] = twice.add_leaf(n.bits);
                    continue;
                }
                std::array<Quadtree::Index, 4> kids;
                for (std::size_t q = 0; q < 4; ++q)
                    kids[q] = n.kids[q] == 0 ? empty_of(empty_of, n.level - 1) : copy[n.kids[q]][(q + c) % 2];
                copy[i][static_cast<std::size_t>(c)] = twice.add_node(n.level, kids);
            }
        }
        twice.set_root(copy[shared.root()][1], shared.level());
        ASSERT_FALSE(twice.shared());
        ASSERT_GT(twice.nodes().size(), 2 * shared.nodes().size());
        EXPECT_EQ(twice.cells(), shared.cells());
        EXPECT_EQ(format_macrocell(twice, meta), format_macrocell(shared, meta)) << w << "x" << h;
    }
}

TEST(FormatPacked, EmptyBoardAsGollyWritesIt) {
    const BitBoard empty(100, 50, {});
    EXPECT_EQ(format_rle(empty.rows(Cell{-50, -25}), PatternMeta{"B3/S23", 9, "", {}, {}}),
              "#CXRLE Gen=9\nx = 0, y = 0, rule = B3/S23\n!\n");
    EXPECT_EQ(format_plaintext(empty.rows(Cell{0, 0}), PatternMeta{"", 0, "e", {}, {}}), "!Name: e\n");
}

// Quadtree::bounding_box looks only along each side: the two quarters nearer a side hold its
// extreme when either has cells. Trees of random soups at odd offsets and odd shapes, and a tree
// that spells out empty squares (a file may) on every side, give the box of their cells.
TEST(Quadtree, BoundingBoxIsTheBoxOfItsCells) {
    for (const char* spec : {"random:1x1:1:1", "random:300x200:0.5:1", "random:1000x1000:0.001:2", "random:3x900:0.3:3",
                             "random:900x3:0.3:4", "random:64x64:1:5", "random:17x33:0.05:6"}) {
        for (const Cell off : {Cell{0, 0}, Cell{-501, 77}, Cell{12345, -98765}}) {
            std::vector<Cell> c = read_pattern(spec).cells;
            for (Cell& x : c) x = Cell{x.x + off.x, x.y + off.y};
            if (c.empty()) continue;
            EXPECT_EQ(Quadtree::from_cells(c).bounding_box(), bounding_box(c)) << spec << " +" << off.x << "," << off.y;
        }
    }
    // Level 6: each quarter a level-5 square whose nearer quarters are spelled-out empty squares
    // (nonzero, four empty children) and whose cells sit in one far leaf.
    Quadtree t;
    const Quadtree::Index empty4 = t.add_node(4, {0, 0, 0, 0});
    const Quadtree::Index dot = t.add_leaf(std::uint64_t{1} << (3 * 8 + 5));  // row 3, column 5
    const Quadtree::Index four = t.add_node(4, {0, 0, 0, dot});
    const Quadtree::Index nw = t.add_node(5, {empty4, empty4, empty4, four});
    const Quadtree::Index se = t.add_node(5, {four, empty4, empty4, empty4});
    t.set_root(t.add_node(6, {nw, t.add_node(5, {empty4, 0, 0, 0}), 0, se}), 6);
    EXPECT_EQ(t.bounding_box(), bounding_box(t.cells()));
    // The root's top-left is (-32, -31); the dots at (16 + 8 + 5, 16 + 8 + 3) and 16 cells further.
    EXPECT_EQ(t.bounding_box(), (Box{-3, -4, 17, 17}));
    Quadtree none;
    const Quadtree::Index nothing = none.add_node(4, {0, 0, 0, 0});
    none.set_root(none.add_node(5, {nothing, 0, 0, nothing}), 5);
    EXPECT_TRUE(none.bounding_box().empty());
}

}  // namespace
}  // namespace tilelife::test
