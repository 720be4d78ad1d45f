// Which x86 instruction-set extensions this CPU and OS let us use, for choosing kernels at run
// time. glibc's <sys/platform/x86.h> reads what the dynamic loader found at start-up; GCC's
// __builtin_cpu_supports would link libgcc's own detector, a constructor that runs CPUID again in
// every process (a tenth of a millisecond of a small job's start-up on a VM, where CPUID traps).
#pragma once

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define TILELIFE_GLIBC_X86_FEATURES 1
#endif
#endif

namespace tilelife::cpu {

enum class Feature { popcnt, avx2, avx512f, avx512vl, avx512vpopcntdq };

inline bool has(Feature f) {
#if defined(TILELIFE_GLIBC_X86_FEATURES)
    switch (f) {
        case Feature::popcnt: return CPU_FEATURE_ACTIVE(POPCNT);
        case Feature::avx2: return CPU_FEATURE_ACTIVE(AVX2);
        case Feature::avx512f: return CPU_FEATURE_ACTIVE(AVX512F);
        case Feature::avx512vl: return CPU_FEATURE_ACTIVE(AVX512VL);
        case Feature::avx512vpopcntdq: return CPU_FEATURE_ACTIVE(AVX512_VPOPCNTDQ);
    }
    return false;
#elif defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    switch (f) {
        case Feature::popcnt: return __builtin_cpu_supports("popcnt");
        case Feature::avx2: return __builtin_cpu_supports("avx2");
        case Feature::avx512f: return __builtin_cpu_supports("avx512f");
        case Feature::avx512vl: return __builtin_cpu_supports("avx512vl");
        case Feature::avx512vpopcntdq: return __builtin_cpu_supports("avx512vpopcntdq");
    }
    return false;
#else
    (void)f;
    return false;
#endif
}

}  // namespace tilelife::cpu
