// cpu backend: libraries and kernels (cuLibrary*, cuKernel*), context-independent as in NVIDIA's driver.
//
// cudart 13 registers every fatbin of a program with cuLibraryLoadData before any context exists, then
// launches CUkernel handles. A library keeps a copy of its image and is loaded into a context the first
// time it is used there; a CUkernel names a library function and resolves to the current context's
// CUfunction wherever a function is accepted.
#include <cstring>

#include "core/log.h"
#include "ptx/image_extent.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

std::shared_ptr<Library> find_library(CUlibrary h) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.libraries.find(h);
    return it == s.libraries.end() ? nullptr : it->second;
}

std::shared_ptr<Kernel> find_kernel(CUkernel h) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.kernels.find(h);
    return it == s.kernels.end() ? nullptr : it->second;
}

// LIBRARY's module in the current context, loaded there on first use.
CUresult library_module(const std::shared_ptr<Library>& library, CUmodule& out) {
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    State& s = state();
    {
        std::lock_guard lock(s.mutex);
        auto it = library->modules.find(ctx.get());
        if (it != library->modules.end() && s.modules.count(it->second)) {
            out = it->second;
            return CUDA_SUCCESS;
        }
    }
    CUmodule module = nullptr;
    if (CUresult r = load_module(&module, library->image.data(), library->image.size(), "", 0, nullptr, nullptr,
                                 library->origin))
        return r;
    std::lock_guard lock(s.mutex);
    auto [it, inserted] = library->modules.try_emplace(ctx.get(), module);
    if (!inserted) { // another thread loaded it meanwhile
        if (s.modules.count(it->second)) {
            out = it->second;
            s.modules.erase(module); // never handed out
            return CUDA_SUCCESS;
        }
        it->second = module;
    }
    out = module;
    return CUDA_SUCCESS;
}

CUresult cu_library_load_data(CUlibrary* library, const void* code, CUjit_option* jit_options, void** jit_values,
                              unsigned n_jit, CUlibraryOption* lib_options, void** lib_values, unsigned n_lib) {
    if (library) *library = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!library || !code, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(n_lib && (!lib_options || !lib_values), CUDA_ERROR_INVALID_VALUE);
    auto extent = ptx::image_extent(code);
    if (!extent) {
        log::warn("cpu backend: cuLibraryLoadData: {}", extent.error().text());
        return CUDA_ERROR_INVALID_IMAGE;
    }
    auto lib = std::make_shared<Library>();
    lib->image.assign(extent->begin(), extent->end());
    lib->origin = code;
    // PTX text is read up to its NUL: keep one after a text image.
    if (lib->image.empty() || lib->image.back() != 0) lib->image.push_back(0);
    // With a current context the image is loaded now, so that a bad image fails here with the driver's
    // error and JIT logs; without one (cudart at start-up) it loads where it is first used.
    std::shared_ptr<Context> ctx;
    if (current_context(ctx) == CUDA_SUCCESS) {
        CUmodule module = nullptr;
        if (CUresult r = load_module(&module, lib->image.data(), lib->image.size(), "", n_jit, jit_options, jit_values,
                                     lib->origin))
            return r;
        lib->modules[ctx.get()] = module;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.libraries[lib.get()] = lib;
    *library = reinterpret_cast<CUlibrary>(lib.get());
    return CUDA_SUCCESS;
}

CUresult cu_library_unload(CUlibrary h) {
    if (CUresult r = check_init()) return r;
    State& s = state();
    std::map<Context*, CUmodule> modules;
    {
        std::lock_guard lock(s.mutex);
        auto it = s.libraries.find(h);
        D4R_CPU_REFUSE_IF(it == s.libraries.end(), CUDA_ERROR_INVALID_HANDLE);
        modules = it->second->modules;
        std::erase_if(s.kernels, [&](const auto& kv) { return kv.second->library == it->second.get(); });
        s.libraries.erase(it);
    }
    for (auto& [ctx, module] : modules) (void)unload_module(module);
    return CUDA_SUCCESS;
}

CUresult cu_library_get_kernel(CUkernel* kernel, CUlibrary h, const char* name) {
    if (kernel) *kernel = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!kernel || !name, CUDA_ERROR_INVALID_VALUE);
    auto library = find_library(h);
    D4R_CPU_REFUSE_IF(!library, CUDA_ERROR_INVALID_HANDLE);
    // The name must exist: checked in the current context's module when there is one.
    CUmodule module = nullptr;
    // A kernel ptxsim cannot run is still handed out: it is refused where it is used.
    if (library_module(library, module) == CUDA_SUCCESS) {
        CUfunction f = nullptr;
        if (CUresult r = get_function(&f, module, name); r && r != CUDA_ERROR_NOT_SUPPORTED) return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    for (auto& [handle, k] : s.kernels)
        if (k->library == library.get() && k->name == name) {
            *kernel = reinterpret_cast<CUkernel>(handle);
            return CUDA_SUCCESS;
        }
    auto k = std::make_shared<Kernel>();
    k->library = library.get();
    k->name = name;
    s.kernels[k.get()] = k;
    *kernel = reinterpret_cast<CUkernel>(k.get());
    return CUDA_SUCCESS;
}

CUresult cu_library_get_module(CUmodule* out, CUlibrary h) {
    if (out) *out = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    auto library = find_library(h);
    D4R_CPU_REFUSE_IF(!library, CUDA_ERROR_INVALID_HANDLE);
    return library_module(library, *out);
}

CUresult cu_library_get_global(CUdeviceptr* dptr, size_t* bytes, CUlibrary h, const char* name) {
    if (CUresult r = check_init()) return r;
    auto library = find_library(h);
    D4R_CPU_REFUSE_IF(!library, CUDA_ERROR_INVALID_HANDLE);
    CUmodule module = nullptr;
    if (CUresult r = library_module(library, module)) return r;
    return get_global(dptr, bytes, module, name);
}

CUresult cu_kernel_get_function(CUfunction* out, CUkernel kernel) {
    if (out) *out = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    auto k = find_kernel(kernel);
    D4R_CPU_REFUSE_IF(!k, CUDA_ERROR_INVALID_HANDLE);
    auto library = find_library(reinterpret_cast<CUlibrary>(k->library));
    D4R_CPU_REFUSE_IF(!library, CUDA_ERROR_INVALID_HANDLE);
    CUmodule module = nullptr;
    if (CUresult r = library_module(library, module)) return r;
    return get_function(out, module, k->name.c_str());
}

CUresult cu_kernel_get_name(const char** name, CUkernel kernel) {
    if (name) *name = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!name, CUDA_ERROR_INVALID_VALUE);
    auto k = find_kernel(kernel);
    D4R_CPU_REFUSE_IF(!k, CUDA_ERROR_INVALID_HANDLE);
    *name = k->name.c_str(); // lives as long as the kernel, as NVIDIA's does
    return CUDA_SUCCESS;
}

CUresult cu_kernel_get_library(CUlibrary* library, CUkernel kernel) {
    if (library) *library = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!library, CUDA_ERROR_INVALID_VALUE);
    auto k = find_kernel(kernel);
    D4R_CPU_REFUSE_IF(!k, CUDA_ERROR_INVALID_HANDLE);
    *library = reinterpret_cast<CUlibrary>(k->library);
    return CUDA_SUCCESS;
}

// The per-device kernel calls are the function calls on the kernel's function (one device).
ApiTable g_function_calls;

bool is_kernel(CUkernel kernel) { return find_kernel(kernel) != nullptr; }

CUresult cu_kernel_get_attribute(int* pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
    if (pi) *pi = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    D4R_CPU_REFUSE_IF(!is_kernel(kernel), CUDA_ERROR_INVALID_HANDLE);
    return g_function_calls.cuFuncGetAttribute(pi, attrib, reinterpret_cast<CUfunction>(kernel));
}

CUresult cu_kernel_set_attribute(CUfunction_attribute attrib, int value, CUkernel kernel, CUdevice dev) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    D4R_CPU_REFUSE_IF(!is_kernel(kernel), CUDA_ERROR_INVALID_HANDLE);
    return g_function_calls.cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attrib, value);
}

CUresult cu_kernel_set_cache_config(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    D4R_CPU_REFUSE_IF(!is_kernel(kernel), CUDA_ERROR_INVALID_HANDLE);
    return g_function_calls.cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

} // namespace

std::shared_ptr<Function> kernel_function(CUfunction h) {
    if (!is_kernel(reinterpret_cast<CUkernel>(h))) return nullptr;
    CUfunction f = nullptr;
    if (cu_kernel_get_function(&f, reinterpret_cast<CUkernel>(h)) != CUDA_SUCCESS) return nullptr;
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.functions.find(f);
    return it == s.functions.end() ? nullptr : it->second;
}

void fill_library(ApiTable& t) {
    t.cuLibraryLoadData = cu_library_load_data;
    t.cuLibraryUnload = cu_library_unload;
    t.cuLibraryGetKernel = cu_library_get_kernel;
    t.cuLibraryGetModule = cu_library_get_module;
    t.cuLibraryGetGlobal = cu_library_get_global;
    t.cuKernelGetFunction = cu_kernel_get_function;
    t.cuKernelGetName = cu_kernel_get_name;
    t.cuKernelGetLibrary = cu_kernel_get_library;
    // fill_module() has set the function calls these forward to.
    g_function_calls = t;
    t.cuKernelGetAttribute = cu_kernel_get_attribute;
    t.cuKernelSetAttribute = cu_kernel_set_attribute;
    t.cuKernelSetCacheConfig = cu_kernel_set_cache_config;
}

} // namespace d4r::runtime::cpu
