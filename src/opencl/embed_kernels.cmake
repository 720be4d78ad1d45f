# Build-time step: turns kernels/*.cl into a C++ source of raw string literals, so the binary carries
# its kernels and needs no files at run time. Called as
#   cmake -DKERNEL_DIR=dir -DKERNELS=a.cl,b.cl -DOUTPUT=file.cpp -P embed_kernels.cmake
string(REPLACE "," ";" names "${KERNELS}")
set(body "")
foreach(name IN LISTS names)
  file(READ "${KERNEL_DIR}/${name}" text)
  string(FIND "${text}" ")tlcl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )tlcl\"")
  endif()
  string(APPEND body "    {\"${name}\", R\"tlcl(${text})tlcl\"},\n")
endforeach()
set(out "// Generated from src/opencl/kernels/*.cl by embed_kernels.cmake; edit the .cl files instead.
#include \"opencl/kernel_sources.hpp\"

namespace tilelife::opencl {
namespace {
struct Embedded {
    std::string_view name;
    std::string_view text;
};
constexpr Embedded embedded[] = {
${body}};
}  // namespace

std::string_view kernel_source(std::string_view name) {
    for (const Embedded& e : embedded)
        if (e.name == name) return e.text;
    return {};
}

}  // namespace tilelife::opencl
")
# Rewrite only when the text changed, so an unrelated reconfigure does not recompile.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL out)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${out}")
