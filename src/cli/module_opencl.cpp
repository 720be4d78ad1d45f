// tilelife-opencl.so: the opencl:* engines and the OpenCL device lister (src/opencl), modules.hpp.
// Loaded when a command names an OpenCL engine or backend or lists them all, so that a job on the CPU
// never maps the OpenCL ICD loader (0.35 ms of a small job's process: docs/benchmarks.md).
#include "cli/modules.hpp"

namespace tilelife {
void register_opencl_engines();  // src/opencl/engine.cpp
}

extern "C" __attribute__((visibility("default"))) const tilelife::cli::OpenclModule* tilelife_opencl_module() {
    static const tilelife::cli::OpenclModule table{{}, &tilelife::register_opencl_engines};
    return &table;
}
