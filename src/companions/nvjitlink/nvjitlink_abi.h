// The C ABI of NVIDIA's nvJitLink (libnvJitLink.so.13) as far as d4r's companion calls or intercepts it,
// declared from the public documentation of nvJitLink.h. The library exports each function twice: under its
// plain name and under a versioned one (`__nvJitLinkCreate_13_0`, what nvJitLink.h's inline wrappers call).
#pragma once

#include <cstddef>
#include <cstdint>

namespace d4r::companion::nvjitlink {

enum Result : int {
    kSuccess = 0,
    kErrorInternal = 6,
};

enum InputType : int {
    kInputCubin = 1,
    kInputPtx = 2,
    kInputLtoIr = 3,
};

struct HandleTag; // nvJitLinkHandle is an opaque pointer
using Handle = HandleTag*;

using CreateFn = Result (*)(Handle* handle, uint32_t num_options, const char* const* options);
using DestroyFn = Result (*)(Handle* handle);
using AddDataFn = Result (*)(Handle handle, int type, const void* data, size_t size, const char* name);
using AddFileFn = Result (*)(Handle handle, int type, const char* file_name);
using CompleteFn = Result (*)(Handle handle);
using GetSizeFn = Result (*)(Handle handle, size_t* size); // GetLinkedCubinSize, GetLinkedPtxSize, logs
using GetBytesFn = Result (*)(Handle handle, void* out);   // GetLinkedCubin, GetLinkedPtx, logs

} // namespace d4r::companion::nvjitlink
