// Helpers for the pattern I/O tests: a scratch directory, file writing, cell lists, bgolly.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::test {

inline std::vector<Cell> cells(std::initializer_list<std::pair<std::int64_t, std::int64_t>> xy) {
    std::vector<Cell> v;
    for (auto [x, y] : xy) v.push_back(Cell{x, y});
    return v;
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string bgolly() { return TILELIFE_BGOLLY; }

// A fresh directory per test, removed afterwards.
class IoTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string templ = (std::filesystem::temp_directory_path() / "tilelife-io-XXXXXX").string();
        ASSERT_NE(::mkdtemp(templ.data()), nullptr);
        dir_ = templ;
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    std::string write(const std::string& name, std::string_view content) const {
        const auto p = dir_ / name;
        std::ofstream out(p, std::ios::binary);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        return p.string();
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    // Runs bgolly (generation 0) to convert `in` to `out` (.rle or .mc; hashlife for .mc).
    bool golly_convert(const std::string& in, const std::string& out) const {
        const bool mc = out.size() > 3 && out.substr(out.size() - 3) == ".mc";
        const std::string cmd = "'" + bgolly() + "' -q -q " + (mc ? "-h " : "") + "-m 0 -o '" + out + "' '" + in +
                                "' > /dev/null 2>&1";
        return std::system(cmd.c_str()) == 0 && std::filesystem::exists(out);
    }
    std::filesystem::path dir_;
};

#define TILELIFE_REQUIRE_BGOLLY()                                                                            \
    do {                                                                                                     \
        if (::tilelife::test::bgolly().empty())                                                              \
            GTEST_SKIP() << "bgolly not found at configure time: install golly to compare with Golly 3.3"; \
    } while (0)

// Expects `fn` to throw InputError whose message contains every fragment.
template <class Fn>
void expect_input_error(Fn&& fn, std::initializer_list<std::string> fragments) {
    try {
        fn();
        ADD_FAILURE() << "no InputError thrown";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not a single line: " << what;
        for (const auto& f : fragments) EXPECT_NE(what.find(f), std::string::npos) << "'" << f << "' not in: " << what;
    }
}

}  // namespace tilelife::test
