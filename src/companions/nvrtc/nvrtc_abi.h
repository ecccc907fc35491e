// The C ABI of NVIDIA's NVRTC (libnvrtc.so.13) as far as d4r's companion calls or intercepts it, declared from
// the public documentation of nvrtc.h. Only what is named here is used; every other function is forwarded
// untouched (nvrtc_companion.cpp).
#pragma once

#include <cstddef>

namespace d4r::companion::nvrtc {

enum Result : int {
    kSuccess = 0,
    kErrorInvalidInput = 3,
    kErrorInvalidProgram = 4,
    kErrorInternal = 11,
};

struct ProgramTag; // nvrtcProgram is an opaque pointer
using Program = ProgramTag*;

using CreateProgramFn = Result (*)(Program* prog, const char* src, const char* name, int num_headers,
                                   const char* const* headers, const char* const* include_names);
using DestroyProgramFn = Result (*)(Program* prog);
using CompileProgramFn = Result (*)(Program prog, int num_options, const char* const* options);
using AddNameExpressionFn = Result (*)(Program prog, const char* name_expression);
using GetSizeFn = Result (*)(Program prog, size_t* size); // nvrtcGetCUBINSize, nvrtcGetPTXSize
using GetBytesFn = Result (*)(Program prog, char* out);   // nvrtcGetCUBIN, nvrtcGetPTX

} // namespace d4r::companion::nvrtc
