// The one place that knows every engine family of this build.
#include <mutex>

#include "tilelife/builtin.hpp"

namespace tilelife {
void register_cpu_engines();
void register_hashlife_engines();
void register_streamlife_engine();
#ifdef TILELIFE_HAVE_OPENCL
void register_opencl_engines();
#endif
#ifdef TILELIFE_HAVE_SYCL
void register_sycl_engines();
#endif

void register_builtin_engines() {
    static std::once_flag once;
    std::call_once(once, [] {
        register_cpu_engines();
        register_hashlife_engines();
        register_streamlife_engine();
#ifdef TILELIFE_HAVE_OPENCL
        register_opencl_engines();
#endif
#ifdef TILELIFE_HAVE_SYCL
        register_sycl_engines();
#endif
    });
}

}  // namespace tilelife
