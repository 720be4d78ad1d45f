// TEMPORARY: replaced by the OpenCL work (tilelife bench).
#include "cli/commands.hpp"
namespace tilelife::cli {
void add_bench(CLI::App&, int&) {}
}  // namespace tilelife::cli
