// Malformed input: every case is an InputError with one line "FILE:LINE: reason".
#include "io_support.hpp"

namespace tilelife::test {
namespace {

void bad(std::string_view text, const std::string& where, const std::string& reason, const ReadLimits& limits = {}) {
    const std::string source = where.substr(0, where.find(':'));
    expect_input_error([&] { parse_pattern(text, source, limits); }, {where + ": ", reason});
}

TEST(Malformed, RleHeader) {
    bad("x = abc, y = 3\no!", "bad.rle:1", "x = 'abc' is not a number");
    bad("#C c\nx = 3\no!", "bad.rle:2", "needs both 'x = W' and 'y = H'");
    bad("#N n\n#C c\nx = -3, y = 1\no!", "bad.rle:3", "negative pattern size x = -3");
    bad("x = 3, y = -1\no!", "bad.rle:1", "negative pattern size y = -1");
    bad("x = 3 y = 1\no!", "bad.rle:1", "bad RLE header");
    bad("x = 3, y = 1, = 4\no!", "bad.rle:1", "missing key");
    bad("x = 99999999999999999999, y = 1\no!", "bad.rle:1", "not a number");
    bad("x = 1, y = 1\no$\nx = 1, y = 1\no!", "bad.rle:3", "second RLE header");
}

TEST(Malformed, RleRule) {
    bad("x = 3, y = 1, rule = B39/S23\no!", "bad.rle:1", "neighbour count 9");
    bad("#C\nx = 3, y = 1, rule = Wolfram22\no!", "bad.rle:2", "bad rule 'Wolfram22'");
    bad("x = 3, y = 1, rule = 23/3/2\no!", "bad.rle:1", "multi-state");
    bad("x = 3, y = 1, rule = B3/S23:K10,10\no!", "bad.rle:1", "Klein bottle");
    bad("x = 3, y = 1, rule =\no!", "bad.rle:1", "empty rule");
    bad("#r B3/S239\nx = 3, y = 1\no!", "bad.rle:1", "neighbour count 9");
}

TEST(Malformed, RleData) {
    bad("x = 3, y = 1\nbo\n99999999999999999999o!", "bad.rle:3", "run count too large");
    bad("x = 3, y = 1\n4611686018427387904b2o!", "bad.rle:2", "beyond the coordinate range");
    bad("x = 3, y = 1\no4611686018427387904$o!", "bad.rle:2", "beyond the coordinate range");
    bad("x = 3, y = 1\nobo$\n2o\x01o!", "bad.rle:3", "unexpected byte 0x01");
    bad("x = 3, y = 1\n\xff\xfeo!", "bad.rle:2", "unexpected byte 0xff");
    bad("x = 3, y = 1\no2B!", "bad.rle:2", "cell state 2 ('B') is out of range for a 2-state rule");
    bad("x = 3, y = 1\nbo\r\nqC!", "bad.rle:3", "cell state 51 ('qC')");
    bad("#CXRLE Pos=1;2\nx = 1, y = 1\no!", "bad.rle:1", "bad #CXRLE position");
    bad("#CXRLE Gen=-4\nx = 1, y = 1\no!", "bad.rle:1", "bad #CXRLE generation");
    bad("#CXRLE Pos=9223372036854775807,0\nx = 1, y = 1\no!", "bad.rle:1", "out of range");
    ReadLimits few;
    few.max_cells = 50;
    bad("x = 100, y = 2\n40o$\n11o!", "bad.rle:3", "more than 50 live cells", few);
    bad("x = 9, y = 9\n1000000000000000o!", "bad.rle:2", "live cells (limit)");
}

TEST(Malformed, EmptyOrUnrecognised) {
    bad("", "empty.rle:1", "empty file");
    bad("\n  \r\n\t\n", "blank.rle:1", "empty file");
    bad("\nhello world\n", "what.txt:2", "unrecognised pattern format");
    bad("\x89PNG\r\n\x1a\n", "pic.rle:1", "unexpected byte 0x89");
    bad("#Life 1.07\n0 0\n", "v.lif:1", "unsupported Life file version");
}

TEST(Malformed, Life105AndLife106) {
    bad("#Life 1.05\n#P a b\n*", "a.lif:2", "bad block position");
    bad("#Life 1.05\n#P 1\n*", "a.lif:2", "bad block position");
    bad("#Life 1.05\n#R 23/39\n*", "a.lif:2", "neighbour count 9");
    bad("#Life 1.05\n#P 0 0\n*.\x02*", "a.lif:3", "unexpected byte 0x02");
    bad("#Life 1.05\n#P 4611686018427387904 0\n.*", "a.lif:2", "out of range");
    bad("#Life 1.05\n#P 4611686018427387903 0\n.*", "a.lif:3", "beyond the coordinate range");
    bad("#Life 1.06\n0 0\n1 2 3\n", "b.lif:3", "expected a cell as 'X Y'");
    bad("#Life 1.06\n0 0\nfoo\n", "b.lif:3", "expected a cell");
    bad("#Life 1.06\n\n9223372036854775807 0\n", "b.lif:3", "out of range");
    bad("#Life 1.06\n\n-4611686018427387904 0\n", "b.lif:3", "out of range");
    bad("#Life 1.06\n5\n", "b.lif:2", "expected a cell");
}

TEST(Malformed, Plaintext) {
    bad("!Name: x\n.O\n.Ox\n", "p.cells:3", "unexpected character 'x'");
    bad("O.O\n\x7f", "p.cells:2", "unexpected byte 0x7f");
}

TEST(Malformed, Macrocell) {
    bad("[M2]\n#R B3/S23\n*$\n4 1 0 0 2\n", "m.mc:4", "not defined before it");
    bad("[M2]\n*$\n4 1 0 0 0\n5 1 0 0 0\n", "m.mc:4", "has level 3, expected 4");
    bad("[M2]\n1 0 1 1 0\n", "m.mc:2", "multi-state");
    bad("[M2]\n3 0 0 0 0\n", "m.mc:2", "below 4");
    bad("[M2]\n64 0 0 0 0\n", "m.mc:2", "beyond the 64-bit coordinate range");
    bad("[M2]\n*$\n4 1 0 0\n", "m.mc:3", "bad node line");
    bad("[M2]\n*$\n4 1 0 0 0 7\n", "m.mc:3", "bad node line");
    bad("[M2]\n*.x$\n", "m.mc:2", "unexpected character 'x'");
    bad("[M2]\n*********$\n", "m.mc:2", "larger than 8x8");
    bad("[M2]\n$$$$$$$$*$\n", "m.mc:2", "larger than 8x8");
    bad("[M2]\n#G soon\n", "m.mc:2", "bad generation");
    bad("[M2]\n#R B3/S2349\n", "m.mc:2", "neighbour count 9");
    bad("[M2]\n*$\nhello\n", "m.mc:3", "unexpected line");
    bad("[M2]\n*$\n5 0 0 0 0\n4 1 0 0 0\n", "m.mc:4", "root");
}

TEST(Malformed, RandomSpecs) {
    for (const std::string spec :
         {"random:", "random:10", "random:0x5", "random:5x0", "random:-5x5", "random:axb", "random:5x5:1.5",
          "random:5x5:-0.1", "random:5x5:abc", "random:5x5:0.5:-1", "random:5x5:0.5:x", "random:5x5:0.5:1:9",
          "random:5x5:nan", "random:5x5:", "random:1000000x1000000"}) {
        expect_input_error([&] { read_pattern(spec); }, {spec + ": bad random pattern spec"});
    }
}

TEST(Malformed, LimitsRefuseBeforeAllocating) {
    ReadLimits small;
    small.max_file_bytes = 100;
    bad(std::string(200, '\n'), "big.rle", "larger than the limit of 100 bytes", small);
    // A header promising an absurd size is fine (nothing is allocated by it).
    EXPECT_EQ(parse_pattern("x = 4611686018427387904, y = 4611686018427387904\no!", "h.rle").cells, cells({{0, 0}}));
}

}  // namespace
}  // namespace tilelife::test
