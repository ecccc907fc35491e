// d4r's own entry points of libd4rcuda, beside NVIDIA's driver API (docs/kernel-sets.md, "Asking from a program").
// A program finds them with dlsym (GetProcAddress) and treats their absence as "not libd4rcuda": NVIDIA's libcuda
// has none of them.
#pragma once

#include "abi/cuda.h"

namespace d4r::abi {

// d4rFuncIsNative(&native, f): *native = 1 when launches of f run a native kernel of the active kernel set
// (docs/kernel-sets.md), else 0. *native is cleared first. CUDA_ERROR_INVALID_VALUE for a null `native`,
// CUDA_ERROR_INVALID_HANDLE for a null f; a function the library does not know is not native.
using PFN_d4rFuncIsNative = CUresult (*)(int* native, CUfunction f);
inline constexpr const char* kFuncIsNative = "d4rFuncIsNative";

// Every entry point above, X(name, parameters, arguments), for code that must provide each one: libd4rcuda
// defines each (src/runtime/lib/exports.cpp checks it), and the Wine bridge (src/bridge/extensions.cpp) exports and
// forwards each under the same name, so that the Windows build of a program finds it in nvcuda.dll with
// GetProcAddress; an entry point added here without its forwarder fails the bridge's build. A new entry point
// belongs in this list.
#define D4R_EXTENSIONS(X) X(d4rFuncIsNative, (int* native, CUfunction f), (native, f))

} // namespace d4r::abi
