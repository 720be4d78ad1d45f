// What the sycl:* engines share: the device (a process-wide queue), the board's size, topology and
// rule, the population's scratch and path, the launch loop with its interrupt polling, and the common
// part of describe(). An engine adds its board layout (buffers, transfers) and its kernels.
#pragma once
#include <sycl/sycl.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sycl/population.hpp"
#include "sycl/runtime.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"

namespace tilelife::sycl_backend {

class DeviceEngine : public Engine {
public:
    DeviceEngine(std::string name, const BoardSpec& board, const EngineOptions& options)
        : name_(std::move(name)), w_(board.width), h_(board.height), topology_(board.topology), rule_(board.rule),
          interrupt_(options.interrupt), device_spec_(options.device) {
        if (topology_ == Topology::unbounded)
            throw std::logic_error("sycl engines are bounded; unbounded boards come from make_unbounded");
        rt_ = runtime_for(options.device);
        reduction_ = reduction_for(options.param("reduction", "auto"), rt_->info);
    }

    std::string name() const override { return name_; }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }
    std::int64_t generation() const override { return generation_; }

    void step(std::int64_t n) override { launch(n, nullptr); }

    std::optional<StepTiming> step_timed(std::int64_t n) override {
        std::vector<sycl::event> events;
        events.reserve(static_cast<std::size_t>(std::clamp<std::int64_t>(n, 0, 1 << 20)));
        launch(n, &events);
        try {
            return timing_of(events);
        } catch (const sycl::exception& e) {
            throw_runtime(e, "timing " + name_);
        }
    }

protected:
    // Generations: every launch of the engine's kernels until n have run (or the interrupt is set).
    virtual void launch(std::int64_t n, std::vector<sycl::event>* events) = 0;

    // The launch loop: `submit(remaining)` enqueues one launch, swaps the engine's buffers and
    // returns its event and how many generations it runs. Commands in flight are bounded (a wait
    // per 256 launches costs nothing), and the interrupt is polled there.
    template <class Submit>
    void run_launches(std::int64_t n, std::vector<sycl::event>* events, Submit&& submit) {
        try {
            for (std::int64_t done = 0, count = 0; done < n; ++count) {
                auto [ev, gens] = submit(n - done);
                if (events) events->push_back(ev);
                done += gens;
                generation_ += gens;
                if (count % 256 == 255) {
                    rt_->sync("running generations");
                    if (interrupt_ && interrupt_->load()) break;
                }
            }
            rt_->sync(("running " + name_).c_str());
        } catch (const sycl::exception& e) {
            throw_runtime(e, "running " + name_);
        }
    }

    // Runs the engine's setup, SYCL errors reported as creating this engine.
    template <class Setup>
    void create(Setup&& setup) {
        try {
            setup();
        } catch (const sycl::exception& e) {
            throw_runtime(e, "creating " + name_ + " for a " + std::to_string(w_) + "x" + std::to_string(h_) + " board");
        }
    }

    // Waits for the device before the engine frees what its commands use (destructors; never throws).
    void wait_quietly() noexcept {
        try {
            rt_->queue.wait();
        } catch (...) {
        }
    }

    void check(const Box& b) const {
        if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > w_ || b.bottom() > h_)
            throw std::out_of_range("region outside the board");
    }

    // Two buffers of `row_bytes` per row must fit the device (RuntimeError, naming the sizes).
    void check_allocation(std::uint64_t row_bytes) const {
        const DeviceDescription& dev = rt_->info;
        const auto h = static_cast<std::uint64_t>(h_);
        if (h > (std::uint64_t{1} << 62) / row_bytes || row_bytes * h > dev.max_alloc || 2 * row_bytes * h > dev.global_mem_size)
            throw RuntimeError("a " + std::to_string(w_) + "x" + std::to_string(h_) + " board needs two " +
                               std::to_string((row_bytes * h) >> 20) + " MiB allocations; " + dev.name + " allows " +
                               std::to_string(dev.max_alloc >> 20) + " MiB each and has " +
                               std::to_string(dev.global_mem_size >> 20) + " MiB");
    }

    template <class Count>
    std::int64_t count_population(const std::uint32_t* words, Count f) const {
        try {
            return population_->count(words, reduction_, f);
        } catch (const sycl::exception& e) {
            throw_runtime(e, "counting the population");
        }
    }

    // describe()'s common part: the device and the population path.
    EngineDescription describe_device() const {
        EngineDescription d = Engine::describe();
        d.device = rt_->info.id() + " " + rt_->info.name;
        d.properties.emplace_back("reduction", to_string(reduction_));
        return d;
    }

    const std::string name_;
    std::shared_ptr<DeviceRuntime> rt_;
    const std::int64_t w_, h_;
    const Topology topology_;
    const Rule rule_;
    const std::atomic<bool>* interrupt_;
    const std::string device_spec_;  // the device as the options named it (autotune candidates repeat it)
    Reduction reduction_ = Reduction::sycl_reduction;
    std::int64_t generation_ = 0;
    std::unique_ptr<Population> population_;
};

}  // namespace tilelife::sycl_backend
