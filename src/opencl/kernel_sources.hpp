// The .cl files of src/opencl/kernels, embedded at build time (see embed_kernels.cmake).
#pragma once
#include <string_view>

namespace tilelife::opencl {
// Text of kernels/<name> (e.g. "naive.cl"); empty when there is no such file.
std::string_view kernel_source(std::string_view name);
}
