// libd4rcuda internals: the parameter block of a launch, as the kernel receives it.
//
// Promise: from cuLaunchKernel's kernelParams (laid out with the PTX entry's parameter list: each
// parameter at its offset) or from `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE: the block's bytes of the
// buffer, however large its size says it is), the bytes of the block. Everything the cpu backend refuses
// with CUDA_ERROR_INVALID_VALUE is an Invalid error naming the kernel and the reason, never a read
// through a NULL or past a buffer: both kernelParams and extra, a NULL kernelParams or entry of it, an
// unknown or unterminated `extra` option, a NULL or missing buffer pointer or size, a buffer smaller than
// the block, and (layout unknown) a buffer over CUDA's 32764-byte parameter limit or no `extra` at all.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/cuda.h"
#include "core/status.h"
#include "ptx/module_index.h"

namespace d4r::runtime {

// INFO may be null when the layout is unknown (then only `extra` works); NAME is for errors.
Expected<std::vector<uint8_t>> launch_param_block(const ptx::EntryInfo* info, std::string_view name, void** params,
                                                  void** extra);

// Whether cuLaunchKernelEx's CONFIG asks for a cooperative launch (CU_LAUNCH_ATTRIBUTE_COOPERATIVE != 0).
inline bool is_cooperative(const abi::CUlaunchConfig* config) {
    if (!config || !config->attrs) return false;
    for (unsigned i = 0; i < config->numAttrs; ++i)
        if (config->attrs[i].id == abi::CU_LAUNCH_ATTRIBUTE_COOPERATIVE && config->attrs[i].value.cooperative != 0)
            return true;
    return false;
}

} // namespace d4r::runtime
