// libd4rcuda internals: `.hsaco` native kernels through HIP (see native_kernel.h for the promise).
#pragma once

#include <memory>
#include <string>

#include "runtime/native/hip_runtime.h"
#include "runtime/native/native_kernel.h"

namespace d4r::runtime {

Expected<std::shared_ptr<NativeKernel>> load_hip_kernel(const HipRuntime& hip, const std::string& name,
                                                        const std::string& path);

// hipModuleLaunchKernel on the caller's stream: kernelParams as they are, or `extra` rewritten with
// HIP's keys (its END differs from CUDA's). An `extra` key d4r does not know is INVALID_VALUE.
CUresult launch_hip_phase(NativeKernel& kernel, const NativePhase& phase, const PhaseLaunch& launch);

CUresult write_hip_slot(NativeKernel& kernel, uint32_t slot, CUstream stream);

} // namespace d4r::runtime
