// d4r open NGX core: the upscaler's kernels run on the host, over host memory.
//
// Promise: run_host_kernel() computes exactly what the PTX kernel of the same name computes for the
// same launch shape and parameter block (same math, same per-thread order), whatever the number of
// threads; it is what the CPU reference and the native CPU kernels (src/kernels/upscaler/cpu) run.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kernels/upscaler/ptx/upscaler_math.h"

namespace d4r::upscaler {

enum class KernelId : uint32_t { Exposure, Prepare, Accumulate, Sharpen };
inline constexpr std::array<KernelId, 4> kAllKernels{KernelId::Exposure, KernelId::Prepare, KernelId::Accumulate,
                                                     KernelId::Sharpen};
// The `.entry` names in upscaler.ptx (and the native kernel set's NAME.cpu files).
const char* kernel_name(KernelId id);
std::optional<KernelId> kernel_from_name(std::string_view name);

struct LaunchShape {
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
};

// THREADS 0 = one per hardware thread. Rows of the grid are split between threads.
void run_host_kernel(KernelId kernel, const math::Params& params, const LaunchShape& shape, unsigned threads);

} // namespace d4r::upscaler
