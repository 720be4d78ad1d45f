#include "opencl/device_engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "tilelife/error.hpp"

namespace tilelife::opencl {

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }
std::uint64_t ceil_div(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m; }

ParameterSpec reduction_parameter() {
    return {"reduction",
            "how population() adds up a work-group's counts: a local-memory tree, work_group_reduce_add or "
            "sub_group_reduce_add (auto: a collective where the device has one)",
            {"auto", "tree", "work-group", "sub-group"},
            0,
            0,
            "auto"};
}

ParameterSpec rows_parameter(int max, const std::string& default_text) {
    return {"rows", "board rows each work-item computes", {}, 1, max, default_text};
}

std::uint64_t static_local_bytes(const DeviceRuntime& rt, const cl::Kernel& kernel) {
    return kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(rt.device);
}

std::optional<std::string> misfit(const DeviceRuntime& rt, const cl::Kernel& kernel, const std::string& what,
                                  std::size_t wx, std::size_t wy, std::uint64_t dynamic_local) {
    const DeviceDescription& dev = rt.info;
    const std::string shape = "work-group " + std::to_string(wx) + "x" + std::to_string(wy);
    const std::uint64_t items = static_cast<std::uint64_t>(wx) * wy;
    const std::size_t kmax = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt.device);
    if (items > std::min<std::uint64_t>(dev.max_work_group_size, kmax))
        return shape + " is " + std::to_string(items) + " work-items; " + what + " may have at most " +
               std::to_string(std::min<std::uint64_t>(dev.max_work_group_size, kmax)) + " on " + dev.name;
    const auto& sizes = dev.max_work_item_sizes;
    if ((sizes.size() > 0 && wx > sizes[0]) || (sizes.size() > 1 && wy > sizes[1]))
        return shape + " is wider or taller than " + dev.name + " allows (" + std::to_string(sizes[0]) + "x" +
               std::to_string(sizes.size() > 1 ? sizes[1] : 1) + ")";
    const std::uint64_t local = static_local_bytes(rt, kernel) + dynamic_local;
    if (local > dev.local_mem_size)
        return shape + " needs " + std::to_string(local) + " bytes of local memory for " + what + "; " + dev.name +
               " has " + std::to_string(dev.local_mem_size);
    return std::nullopt;
}

std::size_t group_size_for(const DeviceRuntime& rt, const std::vector<cl::Kernel>& kernels, std::size_t cap) {
    std::size_t g = std::min(cap, rt.info.max_work_group_size);
    if (!rt.info.max_work_item_sizes.empty()) g = std::min(g, rt.info.max_work_item_sizes[0]);
    for (const cl::Kernel& k : kernels) g = std::min(g, k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(rt.device));
    return std::max<std::size_t>(g, 1);
}

std::size_t local_group_size_for(const DeviceRuntime& rt, const cl::Kernel& kernel, std::size_t cap,
                                 std::uint64_t bytes_per_item) {
    std::size_t g = group_size_for(rt, {kernel}, cap);
    while (g > 1 && misfit(rt, kernel, "a 1-D kernel", g, 1, g * bytes_per_item)) g /= 2;
    return g;
}

DeviceEngine::DeviceEngine(std::string name, const BoardSpec& board, const EngineOptions& options)
    : name_(std::move(name)), w_(board.width), h_(board.height), topology_(board.topology), rule_(board.rule),
      options_(options) {
    if (topology_ == Topology::unbounded)
        throw std::logic_error("opencl engines are bounded; unbounded boards come from make_unbounded");
    const std::string r = options.param("reduction", "auto");
    reduction_ = r == "tree"         ? Reduction::tree
                 : r == "work-group" ? Reduction::work_group
                 : r == "sub-group"  ? Reduction::sub_group
                                     : Reduction::automatic;
    rt_ = runtime_for(options.device);
}

void DeviceEngine::step(std::int64_t n) {
    guarded("running " + name_, [&] { launch(n, nullptr); });
}

std::optional<StepTiming> DeviceEngine::step_timed(std::int64_t n) {
    return guarded("timing " + name_, [&] {
        std::vector<cl::Event> events;
        launch(n, &events);
        rt_->queue.finish();
        return std::optional<StepTiming>(timing_of(events));
    });
}

void DeviceEngine::check(const Box& b) const {
    if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > w_ || b.bottom() > h_)
        throw std::out_of_range("region outside the board");
}

void DeviceEngine::check_buffer(std::uint64_t rows, std::uint64_t row_bytes) const {
    if (rows > (std::uint64_t{1} << 62) / row_bytes || rows * row_bytes > rt_->max_alloc)
        throw RuntimeError("a " + board_text() + " board needs more than the " + std::to_string(rt_->max_alloc >> 20) +
                           " MiB one buffer may have on " + rt_->info.name);
}

std::string DeviceEngine::board_text() const { return std::to_string(w_) + "x" + std::to_string(h_); }

EngineOptions DeviceEngine::with_shape(const EngineOptions& base, int wx, int wy) const {
    EngineOptions o = base;
    o.wg_width = wx;
    o.wg_height = wy;
    return o;
}

void DeviceEngine::allocate_cleared(std::initializer_list<std::pair<cl::Buffer*, std::uint64_t>> buffers) {
    std::uint64_t bytes = 0;
    for (const auto& [b, words] : buffers) bytes += 4 * words;
    try {
        cl::Kernel clear(program_for(*rt_, {"board.cl"}, ""), "clear_words");
        const std::size_t group = group_size_for(*rt_, {clear}, 64);
        // Oclgrind 21.10's uninitialised-value tracking keeps the shadow of a released buffer, and a new
        // buffer that reuses its id inherits it: words past the old buffer's size read as uninitialised
        // and stores there are lost (the second engine of a process, or an unbounded board that grew,
        // reported "Uninitialized value written to local memory"). A host write of the whole buffer
        // gives it a fresh shadow; elsewhere the kernel clears faster, without a host copy.
        const bool oclgrind = rt_->info.platform_name.find("Oclgrind") != std::string::npos;
        for (const auto& [b, words] : buffers) {
            *b = cl::Buffer(rt_->context, CL_MEM_READ_WRITE, static_cast<std::size_t>(4 * std::max<std::uint64_t>(words, 1)));
            if (oclgrind) {
                const std::vector<cl_uint> zeros(static_cast<std::size_t>(std::max<std::uint64_t>(words, 1)), 0);
                rt_->queue.enqueueWriteBuffer(*b, CL_TRUE, 0, zeros.size() * sizeof(cl_uint), zeros.data());
                continue;
            }
            clear.setArg(0, *b);
            clear.setArg(1, static_cast<cl_ulong>(words));
            rt_->queue.enqueueNDRangeKernel(clear, cl::NullRange,
                                            cl::NDRange(static_cast<std::size_t>(round_up(std::max<std::uint64_t>(words, 1), group))),
                                            cl::NDRange(group));
        }
        rt_->queue.finish();
    } catch (const cl::Error& e) {
        throw RuntimeError("OpenCL: cannot allocate " + std::to_string(bytes >> 20) + " MiB for a " + board_text() +
                           " board on " + rt_->info.name + ": " + error_name(e.err()));
    }
}

// The path: a collective when asked for (RuntimeError when the device lacks it) or, automatically,
// when the device has one and it builds; else the tree.
void DeviceEngine::setup_population(std::uint64_t nwords) {
    const DeviceRuntime& rt = *rt_;
    const std::vector<std::string> files = {"wg_reduce.cl", "population.cl"};
    cl::Program program;
    auto try_collective = [&](int which, const std::string& std_opt, const char* path) {
        if (program() || std_opt.empty()) return;
        program = try_program_for(rt, files, std_opt + " -DWG_COLLECTIVE=" + std::to_string(which));
        if (program()) reduction_path_ = path;
    };
    switch (reduction_) {
        case Reduction::work_group:
            if (rt.work_group_std.empty())
                throw RuntimeError(rt.info.name + " has no work-group collective functions (work_group_reduce_add)");
            program = program_for(rt, files, rt.work_group_std + " -DWG_COLLECTIVE=1");
            reduction_path_ = "work-group";
            break;
        case Reduction::sub_group:
            if (rt.sub_group_std.empty()) throw RuntimeError(rt.info.name + " has no sub-groups (sub_group_reduce_add)");
            program = program_for(rt, files, rt.sub_group_std + " -DWG_COLLECTIVE=2");
            reduction_path_ = "sub-group";
            break;
        case Reduction::automatic:
            try_collective(1, rt.work_group_std, "work-group");
            try_collective(2, rt.sub_group_std, "sub-group");
            break;
        case Reduction::tree: break;
    }
    if (!program()) {
        program = program_for(rt, files, "-DWG_COLLECTIVE=0");
        reduction_path_ = "tree";
    }
    partial_ = cl::Kernel(program, "population_partial");
    total_ = cl::Kernel(program, "population_total");
    // At most 256 work-items and 1024 groups: the second pass is one group over the partial counts.
    pop_wg_ = std::min(local_group_size_for(rt, partial_, 256, sizeof(cl_ulong)),
                       local_group_size_for(rt, total_, 256, sizeof(cl_ulong)));
    pop_groups_ = static_cast<std::size_t>(std::clamp<std::uint64_t>(ceil_div(nwords, pop_wg_), 1, 1024));
    pop_words_ = nwords;
    partial_counts_ = cl::Buffer(rt.context, CL_MEM_READ_WRITE, pop_groups_ * sizeof(cl_ulong));
    total_count_ = cl::Buffer(rt.context, CL_MEM_READ_WRITE, sizeof(cl_ulong));
}

std::int64_t DeviceEngine::population() const {
    return guarded("counting the population", [&] {
        partial_.setArg(0, board_words());
        partial_.setArg(1, static_cast<cl_ulong>(pop_words_));
        partial_.setArg(2, partial_counts_);
        partial_.setArg(3, cl::Local(pop_wg_ * sizeof(cl_ulong)));
        rt_->queue.enqueueNDRangeKernel(partial_, cl::NullRange, cl::NDRange(pop_groups_ * pop_wg_), cl::NDRange(pop_wg_));
        total_.setArg(0, partial_counts_);
        total_.setArg(1, static_cast<cl_ulong>(pop_groups_));
        total_.setArg(2, total_count_);
        total_.setArg(3, cl::Local(pop_wg_ * sizeof(cl_ulong)));
        rt_->queue.enqueueNDRangeKernel(total_, cl::NullRange, cl::NDRange(pop_wg_), cl::NDRange(pop_wg_));
        cl_ulong total = 0;
        rt_->queue.enqueueReadBuffer(total_count_, CL_TRUE, 0, sizeof total, &total);
        return static_cast<std::int64_t>(total);
    });
}

EngineDescription DeviceEngine::describe() const {
    EngineDescription d = Engine::describe();
    d.device = rt_->info.id() + " " + rt_->info.name;
    describe_engine(d);
    d.device_bytes += static_cast<std::int64_t>(pop_groups_ * sizeof(cl_ulong) + sizeof(cl_ulong));
    d.properties.emplace_back("reduction", reduction_path_);
    return d;
}

}  // namespace tilelife::opencl
