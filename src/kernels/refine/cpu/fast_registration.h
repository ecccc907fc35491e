// Registers fast CPU kernels (name "d4r_nn_...@fast") in libd4rcuda's CPU registry at static initialisation:
//   const FastKernels g_kernels{{"d4r_nn_layernorm@fast", layernorm}};
// Each entry has only a main phase (no prep, no posts).
#pragma once

#include "runtime/native/cpu_registry.h"

#include <initializer_list>
#include <utility>

namespace d4r::refine_cpu {

struct FastKernel {
    const char* name;
    runtime::CpuKernelFn main;
};

struct FastKernels {
    FastKernels(std::initializer_list<FastKernel> kernels) {
        for (const FastKernel& k : kernels) {
            runtime::CpuNativeKernel kernel;
            kernel.name = k.name;
            kernel.main = k.main;
            runtime::register_cpu_kernel(std::move(kernel));
        }
    }
};

} // namespace d4r::refine_cpu
