// libd4rcuda internals: one native kernel (docs/runtime.md, "Native-kernel overrides") loaded from its code object, and
// how its phases are launched.
//
// Promise: load_native_kernel() loads NAME.<ext> for the set's kind of code object (`cubin` through the
// backend's own module API, `hsaco` through HIP, `cpu` from the registry), finds NAME, NAME_prep and
// NAME_post1..8 and reads the d4r_* shape symbols; a code object that cannot be loaded or lacks NAME is
// an error naming the file. launch_native_phase() runs one phase on the caller's stream with the
// caller's parameters; write_prep_slot() stores the slot index in the code object's u32 d4r_prep_slot
// (when it has one) in stream order.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "abi/hip.h"
#include "core/status.h"
#include "runtime/api_table.h"
#include "runtime/native/cpu_registry.h"

namespace d4r::runtime {

struct HipRuntime;

enum class NativeKind {
    Backend, // a .cubin, loaded and launched through the backend (NVIDIA's driver)
    Hip,     // a .hsaco, loaded and launched through HIP (ZLUDA's streams and pointers are HIP's)
    Cpu,     // a registered C++ function, run as a host function on the backend's stream
};

struct NativePhase {
    CUfunction function = nullptr;    // Backend
    abi::hipFunction_t hip = nullptr; // Hip
    CpuKernelFn cpu;                  // Cpu
    NativeSymbols::Post dims;         // post phases: their shape symbols
    explicit operator bool() const { return function || hip || cpu; }
};

struct NativeKernel {
    std::string name;
    std::string path;
    NativeKind kind = NativeKind::Backend;
    CUmodule module = nullptr;             // Backend
    abi::hipModule_t hip_module = nullptr; // Hip
    const HipRuntime* hip_runtime = nullptr;
    NativePhase main, prep;
    std::vector<NativePhase> posts;
    NativeSymbols symbols;
    uint64_t slot_global = 0; // address of the u32 d4r_prep_slot, 0 when absent

    // Prep state (guarded by `mutex`): the last key without slots; the key of each slot with slots.
    std::mutex mutex;
    bool prepared_once = false;
    uint64_t last_key = 0;
    std::vector<uint64_t> slot_keys;

    // Whether launches need the parameter block as bytes (CPU kernels, or a prep key to read).
    bool needs_param_block() const;

    // Unloads a .hsaco code object from HIP (a destroyed runtime's override layer releases what it loaded).
    // A .cubin module stays with its context, which frees it when it is destroyed.
    NativeKernel() = default;
    NativeKernel(const NativeKernel&) = delete;
    NativeKernel& operator=(const NativeKernel&) = delete;
    ~NativeKernel();
};

// EXTENSION is the set's ("cubin", "hsaco", "cpu"); HIP must be non-null for "hsaco".
Expected<std::shared_ptr<NativeKernel>> load_native_kernel(const ApiTable& inner, const HipRuntime* hip,
                                                           const std::string& extension, const std::string& name,
                                                           const std::string& path);

struct PhaseLaunch {
    std::array<unsigned, 3> grid;
    std::array<unsigned, 3> block;
    unsigned shared = 0;
    CUstream stream = nullptr;
    void** params = nullptr;                 // the caller's kernelParams
    void** extra = nullptr;                  // the caller's extra (CUDA keys)
    const std::vector<uint8_t>* block_bytes; // the parameter block (filled when needs_param_block())
    uint32_t slot = 0;
};

CUresult launch_native_phase(const ApiTable& inner, NativeKernel& kernel, const NativePhase& phase,
                             const PhaseLaunch& launch);

CUresult write_prep_slot(const ApiTable& inner, NativeKernel& kernel, uint32_t slot, CUstream stream);

// The d4r_* shape symbols of a code object with POSTS post phases, read through READ (a u32 global by
// name, or nullopt when the code object does not define it).
NativeSymbols read_native_symbols(const std::function<std::optional<uint32_t>(const std::string&)>& read, size_t posts);

} // namespace d4r::runtime
