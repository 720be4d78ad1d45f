// The sycl:* engines and the "sycl" device lister. Registering touches no SYCL runtime: devices are
// looked up when an engine is created or `tilelife devices` asks.
#include "sycl/engines.hpp"
#include "sycl/runtime.hpp"

namespace tilelife {
void register_sycl_engines() {
    sycl_backend::register_byte_engines();
    sycl_backend::register_bitpacked_engine();
    sycl_backend::register_sycl_backend();
}
}  // namespace tilelife
