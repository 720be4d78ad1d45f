// Shared by the OpenCL suites: a fixture that skips without a device and restores the engines'
// tuning, and the board helpers every suite compares with.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "opencl/api.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife::testing_support {

class OpenCLTest : public ::testing::Test {
protected:
    void SetUp() override {
        register_builtin_engines();
        try {
            if (opencl::list_devices().empty()) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)";
        } catch (const RuntimeError& e) {
            GTEST_SKIP() << "no OpenCL platform at test time: " << e.what();
        }
        saved_ = opencl::tuning();
    }
    void TearDown() override { opencl::set_tuning(saved_); }
    opencl::Tuning saved_;
};

inline std::vector<std::uint8_t> random_cells(std::int64_t w, std::int64_t h, std::uint64_t seed, double density = 0.4) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution alive(density);
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(w * h));
    for (auto& c : cells) c = alive(rng) ? 1 : 0;
    return cells;
}

inline std::vector<std::uint8_t> board_of(const Engine& e) {
    const Box b = e.extent();
    std::vector<std::uint8_t> out(static_cast<std::size_t>(b.width * b.height));
    e.read_region(b, out.data());
    return out;
}

inline std::int64_t count(const std::vector<std::uint8_t>& cells) {
    std::int64_t n = 0;
    for (auto c : cells) n += c;
    return n;
}

}  // namespace tilelife::testing_support
