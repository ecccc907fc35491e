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
};

// The ptxsim backend (backends/cpu/).
Expected<std::unique_ptr<Backend>> make_cpu_backend();

// Loads PATH with dlopen and resolves every entry point (backends/driver/). Refuses a library that is
// libd4rcuda itself (loading it would recurse) and a library without cuInit.
Expected<std::unique_ptr<Backend>> make_driver_backend(const std::string& path);

} // namespace d4r::runtime
