// Registration of the sycl:* engines (each family in its own file).
#pragma once

namespace tilelife::sycl_backend {
void register_byte_engines();       // sycl:hierarchical, sycl:halo-tile, sycl:halo-tile-strided
void register_bitpacked_engine();   // sycl:bitpacked
}  // namespace tilelife::sycl_backend
