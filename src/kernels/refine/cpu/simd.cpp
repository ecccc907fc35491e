#include "kernels/refine/cpu/simd.h"

#include <atomic>

namespace d4r::refine_cpu {
namespace {

std::atomic<bool> g_enabled{true};

struct CpuFeatures {
    bool avx = false;
    bool f16c = false;
    bool avx2 = false;
};

const CpuFeatures& cpu_features() {
    static const CpuFeatures features = [] {
        CpuFeatures f;
#if defined(__x86_64__) && defined(__GNUC__)
        __builtin_cpu_init(); // may run from a static initialiser, before libgcc has read the CPU
        f.avx = __builtin_cpu_supports("avx");
        f.f16c = __builtin_cpu_supports("f16c");
        f.avx2 = __builtin_cpu_supports("avx2");
#endif
        return f;
    }();
    return features;
}

} // namespace

bool simd_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void set_simd_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

bool use_avx() { return cpu_features().avx && simd_enabled(); }
bool use_avx_f16c() { return cpu_features().avx && cpu_features().f16c && simd_enabled(); }
bool use_avx2_f16c() { return cpu_features().avx2 && cpu_features().f16c && simd_enabled(); }

} // namespace d4r::refine_cpu
