// opencl:bitpacked — one bit per cell in 32-bit words, several generations per launch in local
// memory (kernels/bitpacked_time_tile.cl; design in docs/bitpacked-opencl.md).
#pragma once

namespace tilelife::opencl {
// Registers opencl:bitpacked; called from register_opencl_engines().
void register_bitpacked_engine();
}
