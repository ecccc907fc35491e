// libd4rcuda internals: a backend is a complete CUDA driver API (an ApiTable) with a name.
//
//   driver  any libcuda-compatible library loaded by path (NVIDIA's libcuda.so.1, ZLUDA's libcuda.so);
//           its entry points are used as they are, so forwarding costs one indirect call.
//   cpu     ptxsim: device memory, modules, launches, streams, events, arrays, textures on the CPU.
//
// Promise: table() has every entry set (fill_missing), stays valid for the backend's lifetime, and its
// functions are thread-safe as the CUDA driver API is. Handles are the backend's own; the layers above
// (runtime.h) never invent handles of their own kind.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "runtime/api_table.h"

namespace d4r::runtime {

class Backend {
public:
    virtual ~Backend() = default;
    // "cpu", or "driver:/usr/lib/x86_64-linux-gnu/libcuda.so.1".
    virtual const std::string& name() const = 0;
    virtual const ApiTable& table() const = 0;
    // An entry point of the backend's library that d4r's API list lacks (an unknown name, or a version of a
    // known name d4r does not serve): the driver backend asks the library's own cuGetProcAddress with the
    // same SYMBOL, VERSION and FLAGS. Null when there is none (the cpu backend has none).
    virtual void* foreign_proc(const char* symbol, int version, cuuint64_t flags) const {
        (void)symbol, (void)version, (void)flags;
        return nullptr;
    }
    // The library's exported function NAME (what libd4rcuda's exports of unimplemented names jump to), or
    // null.
    virtual void* foreign_export(const char* name) const {
        (void)name;
        return nullptr;
    }
};

// libd4rcuda's exports of the names d4r does not implement (abi/cuda_unimplemented.h) jump through slots that
// Runtime::install points at the installed backend's foreign_export, or at a NOT_SUPPORTED answer. The shared
// library registers the function that does it (lib/exports.cpp); it runs for the installed runtime at once.
using ForeignExportBinder = void (*)(const Backend* backend);
void set_foreign_export_binder(ForeignExportBinder binder);

// The ptxsim backend (backends/cpu/).
Expected<std::unique_ptr<Backend>> make_cpu_backend();

// Loads PATH with dlopen and resolves every entry point (backends/driver/). Refuses a library that is
// libd4rcuda itself (loading it would recurse) and a library without cuInit.
Expected<std::unique_ptr<Backend>> make_driver_backend(const std::string& path);

} // namespace d4r::runtime
