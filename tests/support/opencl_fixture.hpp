// Shared by the OpenCL suites: a fixture that skips without a device, the board helpers every suite
// compares with, and reading an engine's description.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
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
    }
};

// EngineOptions with these parameters (name, value).
inline EngineOptions with_params(std::initializer_list<std::pair<const char*, std::string>> params,
                                 EngineOptions o = {}) {
    for (const auto& [k, v] : params) o.params[k] = v;
    return o;
}

// A property of an engine's description; fails the test when it is missing or of another type.
template <class T>
T property(const EngineDescription& d, const std::string& name) {
    for (const auto& [key, value] : d.properties)
        if (key == name) {
            if (const T* v = std::get_if<T>(&value)) return *v;
            ADD_FAILURE() << d.name << ": property " << name << " has another type";
            return T{};
        }
    ADD_FAILURE() << d.name << " describes no property " << name;
    return T{};
}

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
