// d4r refine network: the kernels of refine.cu on the host, for the C++ reference and the CPU native kernels.
//
// Promise: run_launch() computes exactly what the PTX kernel computes for the same launch (same grid, same
// parameter block, host addresses instead of device ones): the same scalar math (refine_math.h) and the
// tensor-core rule of numerics/mma_numerics.h for every mma.sync step, so the bytes are identical. Blocks are
// spread over `threads` threads (0: every core); each block writes only its own outputs, so the result does
// not depend on the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>

#include "network/plan.h"

namespace d4r::network {

void run_launch(const Launch& launch, unsigned threads = 0);

// Runs body(i) for every i in [0, count), handed out dynamically to `threads` threads (0: every core).
void parallel_for(uint64_t count, unsigned threads, const std::function<void(uint64_t)>& body);

// A kernel's parameter block as P (a shorter block leaves the rest zero).
template <typename P>
P params_as(std::span<const uint8_t> bytes) {
    P p{};
    std::memcpy(&p, bytes.data(), std::min(bytes.size(), sizeof(P)));
    return p;
}
// The same from a kernel's parameter block as the runtime hands it to a CPU native kernel.
void run_kernel(Kernel kernel, std::span<const uint8_t> params, const std::array<uint32_t, 3>& grid,
                unsigned threads = 0);

} // namespace d4r::network
