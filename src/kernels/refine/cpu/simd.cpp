#include "kernels/refine/cpu/simd.h"

#include <atomic>

namespace d4r::refine_cpu {
namespace {
std::atomic<bool> g_enabled{true};
}

bool simd_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void set_simd_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

} // namespace d4r::refine_cpu
