// TEMPORARY: replaced by the OpenCL work (tilelife devices).
#include "cli/commands.hpp"
namespace tilelife::cli {
void add_devices(CLI::App&, int&) {}
}  // namespace tilelife::cli
