// d4r's own ABI between libd4rcuda and its companion libraries (src/companions/): PTX twins of machine-code
// images.
//
// NVRTC and nvJitLink can compile to machine code only (a cubin for sm_XY), which no backend but NVIDIA's
// driver runs. d4r's companions libnvrtc.so.13 and libnvJitLink.so.13 ask NVIDIA's library for the same
// program's PTX as well and hand the pair to libd4rcuda through this table; loading that image later on a backend that
// runs PTX only (cpu, ZLUDA) loads the twin PTX instead (runtime/twin_ptx/twin_ptx_layer.h).
//
// The table is asked for with cuGetExportTable(&table, &kD4rTwinPtxTableId). libd4rcuda hands it out only
// when its backend runs PTX only; NVIDIA's driver, and libd4rcuda over it, refuse the id
// (CUDA_ERROR_INVALID_VALUE), so a companion that is refused compiles nothing twice.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi/cuda.h"

namespace d4r::abi {

// d4r's own id (not NVIDIA's): "d4r twin ptx" with random bytes.
inline constexpr CUuuid kD4rTwinPtxTableId = {{'\xd4', '\x72', '\x01', '\x7e', '\x3c', '\x55', '\x4e', '\x1b', '\x9a',
                                               '\x2f', '\x74', '\x77', '\x69', '\x6e', '\x70', '\x78'}};

struct D4rTwinPtxTable {
    size_t size; // sizeof(D4rTwinPtxTable) of the libd4rcuda that made it; members are only ever added at the end
    // Registers PTX (PTX_SIZE bytes, a trailing NUL allowed) as the twin of the IMAGE_SIZE bytes at IMAGE. Both
    // are copied. CUDA_SUCCESS, or CUDA_ERROR_INVALID_VALUE for a null or empty argument or PTX that is not text
    // of a PTX module (no `.version`).
    CUresult (*register_twin)(const void* image, size_t image_size, const char* ptx, size_t ptx_size);
};

} // namespace d4r::abi
