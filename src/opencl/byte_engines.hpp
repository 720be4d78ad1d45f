// The byte-per-cell engines opencl:naive, opencl:halo-tile and opencl:halo-tile-strided.
#pragma once

namespace tilelife::opencl {
// Registers them (with their old names as aliases); called from register_opencl_engines().
void register_byte_engines();
}
