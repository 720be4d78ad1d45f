// What every opencl:* engine shares: the board on one device, generations by kernel launches, the
// population by population.cl, the parameters every engine declares, fitting a kernel's work-group to
// the device, and the parts of describe() that every engine fills the same way.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opencl/runtime.hpp"
#include "tilelife/engine.hpp"

namespace tilelife::opencl {

// How population() adds up the counts of a work-group (wg_reduce.cl).
enum class Reduction { automatic, tree, work_group, sub_group };

// Parameters shared by the engines' declarations.
ParameterSpec reduction_parameter();
ParameterSpec rows_parameter(int max, const std::string& default_text);

std::uint64_t ceil_div(std::uint64_t v, std::uint64_t m);
std::uint64_t round_up(std::uint64_t v, std::uint64_t m);

// Why a work-group of wx x wy work-items, using `dynamic_local` bytes of local memory through its
// __local pointer arguments, cannot run `kernel` on the device (the device's and the kernel's limits:
// work-group size, work-item sizes, CL_KERNEL_LOCAL_MEM_SIZE plus the dynamic bytes against the
// device's local memory); nullopt when it fits.
std::optional<std::string> misfit(const DeviceRuntime& rt, const cl::Kernel& kernel, const std::string& what,
                                  std::size_t wx, std::size_t wy, std::uint64_t dynamic_local);
// The local memory a kernel needs before its __local arguments (its own __local variables).
std::uint64_t static_local_bytes(const DeviceRuntime& rt, const cl::Kernel& kernel);
// The largest 1-D work-group, at most `cap`, that every kernel allows on the device.
std::size_t group_size_for(const DeviceRuntime& rt, const std::vector<cl::Kernel>& kernels, std::size_t cap);
// The same for one kernel that also takes `bytes_per_item` of local memory per work-item through its
// __local arguments: halved until that fits the device's local memory too.
std::size_t local_group_size_for(const DeviceRuntime& rt, const cl::Kernel& kernel, std::size_t cap,
                                 std::uint64_t bytes_per_item);

// Base of the opencl:* engines: a bounded board of 32-bit words on one device (two buffers, swapped
// per launch, owned by the engine), the host transferring cells only in the region calls.
class DeviceEngine : public Engine {
public:
    std::string name() const override { return name_; }
    Topology topology() const override { return topology_; }
    Rule rule() const override { return rule_; }
    Box extent() const override { return Box{0, 0, w_, h_}; }
    std::int64_t generation() const override { return generation_; }

    void step(std::int64_t generations) override;
    std::optional<StepTiming> step_timed(std::int64_t generations) override;
    std::int64_t population() const override;
    EngineDescription describe() const override;

protected:
    DeviceEngine(std::string name, const BoardSpec& board, const EngineOptions& options);

    // Runs n generations; with `events`, one profiling event per kernel enqueued.
    virtual void launch(std::int64_t n, std::vector<cl::Event>* events) = 0;
    // The board's current words (population() counts their set bits).
    virtual const cl::Buffer& board_words() const = 0;
    // The engine's own part of describe(): work-group, tiles, device bytes, properties, autotune.
    virtual void describe_engine(EngineDescription& d) const = 0;

    // Creates these buffers of 32-bit words, zeroed on the device (board.cl clear_words), and waits:
    // an allocation the device cannot make is a RuntimeError here rather than at the first step.
    void allocate_cleared(std::initializer_list<std::pair<cl::Buffer*, std::uint64_t>> buffers);
    // Sets up population(); called by the engine once its board exists.
    void setup_population(std::uint64_t nwords);
    // A cl::Error thrown while doing `doing` as the RuntimeError the CLI turns into exit code 1.
    template <class F>
    auto guarded(const std::string& doing, F&& f) const {
        try {
            return f();
        } catch (const cl::Error& e) {
            throw_runtime(e, doing);
        }
    }
    void check(const Box& b) const;
    // RuntimeError unless `bytes` fit one buffer of the device.
    void check_buffer(std::uint64_t rows, std::uint64_t row_bytes) const;
    std::string board_text() const;  // "37x29"
    // An autotune candidate: `base` with this work-group.
    EngineOptions with_shape(const EngineOptions& base, int wx, int wy) const;

    std::string name_;
    std::shared_ptr<const DeviceRuntime> rt_;
    std::int64_t w_, h_;
    Topology topology_;
    Rule rule_;
    Reduction reduction_;
    EngineOptions options_;  // as created (autotune candidates start from them)
    std::int64_t generation_ = 0;

private:
    // population(): population.cl built for the chosen reduction path.
    std::string reduction_path_;
    mutable cl::Kernel partial_, total_;  // arguments are set per call
    cl::Buffer partial_counts_, total_count_;
    std::size_t pop_wg_ = 1, pop_groups_ = 1;
    std::uint64_t pop_words_ = 0;
};

}  // namespace tilelife::opencl
