// Differential tests against bgolly (Golly 3.3): its RLE output is the oracle for our writer, its
// macrocell output (absolute positions) the oracle for our macrocell reader.
#include "io_support.hpp"

namespace tilelife::test {
namespace {

class Golly : public IoTest {
protected:
    // Our RLE for `p` without our extra "#CXRLE" line, as bgolly would write it.
    static std::string ours_without_cxrle(const Pattern& p) {
        std::string text = format_rle(p.cells, p.rule.value_or("B3/S23"), 0);
        if (text.rfind("#CXRLE", 0) == 0) text.erase(0, text.find('\n') + 1);
        return text;
    }
    void expect_same_as_golly(const std::string& in_path) {
        const std::string out = path("golly-out.rle");
        std::filesystem::remove(out);
        ASSERT_TRUE(golly_convert(in_path, out)) << "bgolly failed on " << in_path;
        EXPECT_EQ(ours_without_cxrle(read_pattern(in_path)), slurp(out)) << in_path;
    }
};

constexpr const char* kGun =
    "#N Gosper glider gun\nx = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$"
    "2o8bo3bob2o4b\nobo$10bo5bo7bo$11bo3bo$12b2o!\n";

TEST_F(Golly, WriterByteEqualForGunRandomSoupsAndOddShapes) {
    TILELIFE_REQUIRE_BGOLLY();
    expect_same_as_golly(write("gun.rle", kGun));
    for (const char* spec : {"random:10x10", "random:64x64:0.5:7", "random:200x50:0.05:3", "random:300x300:0.01:9",
                             "random:100x100:0.9:5", "random:1000x1000:0.0001:2", "random:71x5:0.97:4",
                             "random:3x1000:0.3:8"}) {
        const Pattern p = read_pattern(spec);
        const std::string file = write("soup.rle", format_rle(p.cells, "B3/S23", 0));
        expect_same_as_golly(file);
    }
    // Long runs, merged row ends, a rule with a bounded-grid suffix, an empty pattern.
    expect_same_as_golly(write("a.rle", "x = 300, y = 40, rule = B36/S23\n250o$o249bo39$300o!\n"));
    expect_same_as_golly(write("b.rle", "x = 5, y = 5, rule = B3/S23:T20,30\n5o$5b$5b$5b$o3bo!\n"));
    expect_same_as_golly(write("e.rle", "x = 3, y = 3, rule = B3/S23\n3b!\n"));
    expect_same_as_golly(write("c.lif", "#Life 1.06\n-3 -3\n100 7\n0 0\n"));
}

TEST_F(Golly, MacrocellReaderMatchesRlePositions) {
    TILELIFE_REQUIRE_BGOLLY();
    // bgolly keeps the #CXRLE position when it writes macrocell; our reader must put every cell back.
    for (const char* pos : {"0,0", "-7,3", "5,-40", "-1000,-1000", "123456,-654321"}) {
        const std::string in = write("in.rle", std::string("#CXRLE Pos=") + pos + "\n" + kGun);
        const std::string mc = path("out.mc");
        std::filesystem::remove(mc);
        ASSERT_TRUE(golly_convert(in, mc));
        const Pattern a = read_pattern(in);
        const Pattern b = read_pattern(mc);
        EXPECT_EQ(b.format, PatternFormat::macrocell);
        EXPECT_EQ(b.cells, a.cells) << pos;
    }
    const Pattern soup = read_pattern("random:500x300:0.3:21");
    std::vector<Cell> moved = soup.cells;
    for (Cell& c : moved) c = Cell{c.x - 250, c.y + 77};
    const std::string in = write("soup.rle", format_rle(moved, "B3/S23", 0));
    const std::string mc = path("soup.mc");
    ASSERT_TRUE(golly_convert(in, mc));
    EXPECT_EQ(read_pattern(mc).cells, moved);
}

// Golly reads a file whose first line opens with '[' as a macrocell, whatever follows: Golly's own
// caterpillar.mc.gz starts "[M1] (hlife 0.95)", from Rokicki's hlife. Both read the same cells.
TEST_F(Golly, HlifesM1HeaderIsAMacrocellAsInGolly) {
    TILELIFE_REQUIRE_BGOLLY();
    const std::string in = write("soup.rle", format_rle(read_pattern("random:90x70:0.3:5").cells, "B3/S23", 0));
    const std::string mc = path("soup.mc");
    std::filesystem::remove(mc);
    ASSERT_TRUE(golly_convert(in, mc));
    std::string text = slurp(mc);
    ASSERT_EQ(text.rfind("[M2]", 0), 0u);
    text.replace(0, text.find('\n'), "[M1] (hlife 0.95) -m 0 -o cat.mc caterpillar.lif");
    const std::string m1 = write("m1.mc", text);
    const Pattern ours = read_pattern(m1);
    EXPECT_EQ(ours.format, PatternFormat::macrocell);
    EXPECT_EQ(ours.cells, read_pattern(in).cells);
    // bgolly reads it (with HashLife, as every macrocell) and writes the same cells.
    const std::string back = path("m1-golly.mc");
    ASSERT_TRUE(golly_convert(m1, back));
    EXPECT_EQ(read_pattern(back).cells, ours.cells);
}

// A #CXRLE line after the header is an ordinary comment to Golly: bgolly's macrocell (absolute
// positions) puts the cells at the origin, as our reader does.
TEST_F(Golly, CxrleAfterTheHeaderIsIgnoredByBoth) {
    TILELIFE_REQUIRE_BGOLLY();
    for (const char* text : {"x = 36, y = 9, rule = B3/S23\n#CXRLE Pos=1000,-2000 Gen=50\n",
                             "#CXRLE Pos=-7,3\nx = 36, y = 9, rule = B3/S23\n#CXRLE Pos=1000,-2000\n"}) {
        const std::string gun(kGun);
        const std::string in = write("late.rle", text + gun.substr(gun.find("24bo")));
        const std::string mc = path("late.mc");
        std::filesystem::remove(mc);
        ASSERT_TRUE(golly_convert(in, mc));
        const Pattern ours = read_pattern(in);
        const Pattern golly = read_pattern(mc);
        EXPECT_EQ(golly.cells, ours.cells) << text;
        EXPECT_EQ(golly.generation, ours.generation) << text;
        EXPECT_EQ(ours.bounding_box().x, std::string(text).rfind("#CXRLE Pos=-7", 0) == 0 ? -7 : 0) << text;
    }
}

TEST_F(Golly, GenerationSurvivesBgolly) {
    TILELIFE_REQUIRE_BGOLLY();
    const std::string in = write("g.rle", "#CXRLE Pos=3,4 Gen=77\nx = 3, y = 1\n3o!\n");
    const std::string mc = path("g.mc");
    ASSERT_TRUE(golly_convert(in, mc));
    const Pattern p = read_pattern(mc);
    EXPECT_EQ(p.generation, 77);
    EXPECT_EQ(p.cells, cells({{3, 4}, {4, 4}, {5, 4}}));
}

// Every 2-state Life-like pattern of Golly's own collection: what bgolly saves equals our writer's
// output for what our readers read (RLE, Life 1.05/1.06, .cells, macrocell, gzip).
TEST_F(Golly, GollyPatternCollection) {
    TILELIFE_REQUIRE_BGOLLY();
    const std::filesystem::path root = "/usr/share/golly/Patterns";
    if (!std::filesystem::exists(root)) GTEST_SKIP() << "Golly's pattern collection not found at " << root;
    int compared = 0;
    for (const char* sub : {"Life", "Life-Like", "HashLife"}) {
        if (!std::filesystem::exists(root / sub)) continue;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root / sub)) {
            const std::string f = entry.path().string();
            if (!entry.is_regular_file() || f.ends_with(".zip") || f.ends_with(".py") || f.ends_with(".lua")) continue;
            const std::string out = path("coll.rle");
            std::filesystem::remove(out);
            // Golly refuses some (topologies it cannot run here): skip those; patterns too large for
            // a test run are skipped too.
            if (std::filesystem::file_size(entry.path()) > 2000000 || !golly_convert(f, out)) continue;
            Pattern p;
            try {
                p = read_pattern(f);
            } catch (const InputError& e) {
                // Rules and topologies we refuse by design (tubes, non-Life-like algorithms).
                const std::string what = e.what();
                EXPECT_TRUE(what.find("bad rule") != std::string::npos) << what;
                continue;
            }
            EXPECT_EQ(ours_without_cxrle(p), slurp(out)) << f;
            ++compared;
        }
    }
    EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace tilelife::test
