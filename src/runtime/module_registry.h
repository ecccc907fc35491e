// libd4rcuda internals: what d4r knows of the application's loaded modules and functions, shared by the
// layers that need it (native-kernel overrides, profile and dumps).
//
// Promise: the registry layer sits directly above the backend whenever a layer that reads it is
// installed. On every successful cuModuleLoad/LoadData/LoadDataEx/LoadFatBinary and cuLibraryLoadData it
// indexes the image's PTX once, fatbins included (ptx/module_index.h: every PTX module, its docs/runtime.md,
// "Native-kernel overrides" hash, its entries' parameter layouts, and the module text when asked to keep it),
// keyed by CUmodule or CUlibrary. cuModuleGetFunction records the function's name, module and entry;
// cuLibraryGetKernel the CUkernel's name, library and entry (as a CUfunction: cudart 12/13 launches CUkernel
// handles); cuKernelGetFunction gives the function its kernel's record; cuLibraryGetModule makes the module's
// functions find the library's entries. cuModuleUnload forgets a module and its functions, cuLibraryUnload a
// library, its kernels, their functions, its modules' functions and the functions named through the backend.
// registered_function() answers for any function the application may launch: one the registry did not see
// handed out is named once through the backend (cuFuncGetName, else cuKernelGetName) and remembered, without
// an entry. An image whose PTX cannot be indexed still loads (logged once); its
// kernels have no entry. cuLibraryLoadFromFile is not a d4r entry point (it answers CUDA_ERROR_NOT_SUPPORTED).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/module_index.h"
#include "runtime/api_table.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

struct KernelEntry {
    ptx::EntryInfo info;                    // parameter layout, from the first PTX module defining it
    std::vector<uint64_t> hashes;           // of every PTX module in the image that defines it
    std::shared_ptr<const std::string> ptx; // the first defining module's text (when kept), else null
};

struct FunctionInfo {
    std::string name;
    CUmodule module = nullptr;                 // null for functions not obtained with cuModuleGetFunction
    CUlibrary library = nullptr;               // the library of a CUkernel, or of its cuKernelGetFunction
    std::shared_ptr<const KernelEntry> kernel; // null when the PTX defining it is unknown
};

struct RegistryOptions {
    bool keep_ptx_text = false; // replay dumps need the module text
};

// Builds the registry layer over INNER (which must outlive it), its state in RUNTIME (one registry per
// runtime: building a new one replaces the previous one's state).
ApiTable make_module_registry_table(Runtime& runtime, const ApiTable& inner, RegistryOptions options = {});

// The functions below read the installed runtime's registry (Runtime::current()).

// The function F as the registry knows it (never null while a registry exists; "?" as the name when
// even the backend cannot name it). Null without a registry.
std::shared_ptr<const FunctionInfo> registered_function(CUfunction f);

// Whether the installed runtime has a registry layer.
bool registry_active();

// Indexes IMAGE as the module MODULE, for a module the backend loaded outside the driver API (cudart's
// export table on NVIDIA's driver). Does nothing without a registry.
void note_loaded_module(CUmodule module, const void* image);

// The entry NAME of MODULE, or null (no registry, unknown module, no PTX, or no such entry).
std::shared_ptr<const KernelEntry> registered_kernel(CUmodule module, std::string_view name);

} // namespace d4r::runtime
