// The module registry layer (see module_registry.h). Its state lives in the Runtime that built it; the
// table holds plain C function pointers, which reach it through the installed runtime. The maps are
// guarded by one shared mutex.
#include "runtime/module_registry.h"

#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "ptx/image_extent.h"

namespace d4r::runtime {

namespace {

using ModuleKernels = std::map<std::string, std::shared_ptr<const KernelEntry>, std::less<>>;

struct RegistryState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::Registry;
    const ApiTable* inner = nullptr;
    RegistryOptions options;
    std::shared_mutex mutex;
    std::unordered_map<CUmodule, std::shared_ptr<const ModuleKernels>> modules;
    std::unordered_map<CUfunction, std::shared_ptr<const FunctionInfo>> functions;
    // Libraries (cuLibraryLoadData) by handle: the entries of their image (null when it could not be
    // indexed: the library is still known, so its handles are recorded with their names).
    std::unordered_map<CUlibrary, std::shared_ptr<const ModuleKernels>> libraries;
    std::unordered_map<CUmodule, CUlibrary> library_modules; // from cuLibraryGetModule
};

// The installed runtime's registry, or null.
RegistryState* find_registry() { return installed_layer<RegistryState>(); }
// The layer's entry points run only while the runtime that built them is installed.
RegistryState& registry() { return *find_registry(); }

std::shared_ptr<const ModuleKernels> index_image(std::span<const uint8_t> bytes, std::string_view what) {
    auto modules = ptx::index_ptx_modules(bytes);
    if (!modules) {
        if (log::once("registry.index." + modules.error().text()))
            log::warn("libd4rcuda: cannot index the PTX of {} ({}): native kernels cannot replace its kernels, and "
                      "they are profiled by name only and cannot be dumped",
                      what, modules.error().text());
        return nullptr;
    }
    std::map<std::string, KernelEntry, std::less<>> entries;
    for (const ptx::IndexedModule& m : *modules) {
        auto text = registry().options.keep_ptx_text ? std::make_shared<const std::string>(m.text()) : nullptr;
        for (const ptx::EntryInfo& e : m.index.entries) {
            auto [it, inserted] = entries.try_emplace(e.name);
            if (inserted) {
                it->second.info = e;
                it->second.ptx = text;
            }
            it->second.hashes.push_back(m.hash);
        }
    }
    auto kernels = std::make_shared<ModuleKernels>();
    for (auto& [name, entry] : entries) kernels->emplace(name, std::make_shared<const KernelEntry>(std::move(entry)));
    return kernels;
}

void remember(CUmodule module, std::shared_ptr<const ModuleKernels> kernels) {
    if (!kernels) return;
    std::unique_lock lock(registry().mutex);
    registry().modules[module] = std::move(kernels);
}

// The entries of the image at IMAGE (WHAT names it in the log), or null.
std::shared_ptr<const ModuleKernels> index_loaded_image(const void* image, std::string_view what) {
    auto bytes = ptx::image_extent(image);
    if (!bytes) {
        if (log::once("registry.extent"))
            log::warn("libd4rcuda: cannot tell the size of {} ({}); its kernels are not indexed", what,
                      bytes.error().text());
        return nullptr;
    }
    return index_image(*bytes, what);
}

void remember_image(CUmodule module, const void* image) {
    remember(module, index_loaded_image(image, "a module image"));
}

CUresult reg_cuModuleLoadData(CUmodule* module, const void* image) {
    CUresult r = registry().inner->cuModuleLoadData(module, image);
    if (r == CUDA_SUCCESS) remember_image(*module, image);
    return r;
}

CUresult reg_cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int n, CUjit_option* options,
                                void** values) {
    CUresult r = registry().inner->cuModuleLoadDataEx(module, image, n, options, values);
    if (r == CUDA_SUCCESS) remember_image(*module, image);
    return r;
}

CUresult reg_cuModuleLoadFatBinary(CUmodule* module, const void* fatbin) {
    CUresult r = registry().inner->cuModuleLoadFatBinary(module, fatbin);
    if (r == CUDA_SUCCESS) remember_image(*module, fatbin);
    return r;
}

CUresult reg_cuModuleLoad(CUmodule* module, const char* path) {
    CUresult r = registry().inner->cuModuleLoad(module, path);
    if (r != CUDA_SUCCESS) return r;
    if (auto bytes = read_file(path, ptx::kMaxPtxFileBytes))
        remember(*module, index_image({bytes->data(), bytes->size()}, path));
    return r;
}

CUresult reg_cuModuleUnload(CUmodule module) {
    CUresult r = registry().inner->cuModuleUnload(module);
    if (r == CUDA_SUCCESS) {
        std::unique_lock lock(registry().mutex);
        registry().modules.erase(module);
        registry().library_modules.erase(module);
        // Function handles die with their module; a later module may reuse their values.
        std::erase_if(registry().functions, [&](const auto& f) { return f.second->module == module; });
    }
    return r;
}

CUresult reg_cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    CUresult r = registry().inner->cuModuleGetFunction(function, module, name);
    if (r != CUDA_SUCCESS) return r;
    auto info = std::make_shared<FunctionInfo>();
    info->name = name;
    info->module = module;
    std::unique_lock lock(registry().mutex);
    if (auto it = registry().modules.find(module); it != registry().modules.end())
        if (auto k = it->second->find(std::string_view(name)); k != it->second->end()) info->kernel = k->second;
    if (auto it = registry().library_modules.find(module); it != registry().library_modules.end())
        info->library = it->second; // a library's module (cuLibraryGetModule): it dies with the library
    registry().functions[*function] = std::move(info);
    return r;
}

// ---- Libraries (cuLibrary*, cuKernel*): cudart 12/13 loads every kernel this way ----

CUresult reg_cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jit_options, void** jit_values,
                               unsigned n_jit, CUlibraryOption* lib_options, void** lib_values, unsigned n_lib) {
    CUresult r = registry().inner->cuLibraryLoadData(library, code, jit_options, jit_values, n_jit, lib_options,
                                                     lib_values, n_lib);
    if (r != CUDA_SUCCESS || !*library) return r;
    auto kernels = index_loaded_image(code, "a library image");
    std::unique_lock lock(registry().mutex);
    registry().libraries[*library] = std::move(kernels);
    return r;
}

// The entry NAME of LIBRARY's image, or null. Called with the mutex held.
std::shared_ptr<const KernelEntry> library_entry(const RegistryState& R, CUlibrary library, std::string_view name) {
    auto it = R.libraries.find(library);
    if (it == R.libraries.end() || !it->second) return nullptr;
    auto k = it->second->find(name);
    return k != it->second->end() ? k->second : nullptr;
}

CUresult reg_cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
    CUresult r = registry().inner->cuLibraryGetKernel(kernel, library, name);
    if (r != CUDA_SUCCESS || !*kernel) return r;
    auto info = std::make_shared<FunctionInfo>();
    info->name = name;
    info->library = library;
    std::unique_lock lock(registry().mutex);
    info->kernel = library_entry(registry(), library, name);
    // A CUkernel is launched as a CUfunction (cudart 12/13 does): it is recorded as one.
    registry().functions[reinterpret_cast<CUfunction>(*kernel)] = std::move(info);
    return r;
}

CUresult reg_cuLibraryGetModule(CUmodule* module, CUlibrary library) {
    CUresult r = registry().inner->cuLibraryGetModule(module, library);
    if (r != CUDA_SUCCESS || !*module) return r;
    std::unique_lock lock(registry().mutex);
    auto it = registry().libraries.find(library);
    if (it == registry().libraries.end()) return r;
    // cuModuleGetFunction on it finds the library's entries.
    if (it->second) registry().modules[*module] = it->second;
    registry().library_modules[*module] = library;
    return r;
}

CUresult reg_cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
    CUresult r = registry().inner->cuKernelGetFunction(function, kernel);
    if (r != CUDA_SUCCESS || !*function) return r;
    // The function is the kernel's in the current context: the same name, library and entry.
    std::shared_ptr<const FunctionInfo> known = registered_function(reinterpret_cast<CUfunction>(kernel));
    if (!known || known->name == "?") return r;
    auto info = std::make_shared<FunctionInfo>(*known);
    std::unique_lock lock(registry().mutex);
    registry().functions[*function] = std::move(info);
    return r;
}

CUresult reg_cuLibraryUnload(CUlibrary library) {
    CUresult r = registry().inner->cuLibraryUnload(library);
    if (r == CUDA_SUCCESS) {
        RegistryState& R = registry();
        std::unique_lock lock(R.mutex);
        R.libraries.erase(library);
        std::vector<CUmodule> modules;
        for (const auto& [m, lib] : R.library_modules)
            if (lib == library) modules.push_back(m);
        for (CUmodule m : modules) {
            R.library_modules.erase(m);
            R.modules.erase(m);
        }
        // Its kernels, the functions they and its modules gave; functions named through cuFuncGetName
        // may have belonged to it too: they are named again when seen.
        std::erase_if(R.functions, [&](const auto& f) {
            const FunctionInfo& info = *f.second;
            return info.library == library || (info.module == nullptr && info.library == nullptr);
        });
    }
    return r;
}

} // namespace

ApiTable make_module_registry_table(Runtime& runtime, const ApiTable& inner, RegistryOptions options) {
    RegistryState& state = runtime.emplace_layer<RegistryState>();
    state.inner = &inner;
    state.options = options;
    ApiTable t = inner;
    t.cuModuleLoad = &reg_cuModuleLoad;
    t.cuModuleLoadData = &reg_cuModuleLoadData;
    t.cuModuleLoadDataEx = &reg_cuModuleLoadDataEx;
    t.cuModuleLoadFatBinary = &reg_cuModuleLoadFatBinary;
    t.cuModuleUnload = &reg_cuModuleUnload;
    t.cuModuleGetFunction = &reg_cuModuleGetFunction;
    t.cuLibraryLoadData = &reg_cuLibraryLoadData;
    t.cuLibraryGetKernel = &reg_cuLibraryGetKernel;
    t.cuLibraryGetModule = &reg_cuLibraryGetModule;
    t.cuKernelGetFunction = &reg_cuKernelGetFunction;
    t.cuLibraryUnload = &reg_cuLibraryUnload;
    return t;
}

std::shared_ptr<const FunctionInfo> registered_function(CUfunction f) {
    RegistryState* found = find_registry();
    if (!found) return nullptr;
    RegistryState& R = *found;
    {
        std::shared_lock lock(R.mutex);
        if (auto it = R.functions.find(f); it != R.functions.end()) return it->second;
    }
    // A function the registry did not see handed out (obtained before it existed, or through a call it
    // does not intercept): named once by the backend.
    auto info = std::make_shared<FunctionInfo>();
    const char* name = nullptr;
    // cudart 13 launches CUkernel handles, which NVIDIA's cuFuncGetName does not name: cuKernelGetName does.
    if (R.inner->cuFuncGetName(&name, f) != CUDA_SUCCESS || !name) name = nullptr;
    if (!name && (R.inner->cuKernelGetName(&name, reinterpret_cast<CUkernel>(f)) != CUDA_SUCCESS || !name)) {
        info->name = "?"; // not remembered: an invalid handle now may be a valid one later
        return info;
    }
    info->name = name;
    std::unique_lock lock(R.mutex);
    auto [it, inserted] = R.functions.try_emplace(f, std::move(info));
    return it->second;
}

bool registry_active() { return find_registry() != nullptr; }

void note_loaded_module(CUmodule module, const void* image) {
    if (find_registry() && module && image) remember_image(module, image);
}

std::shared_ptr<const KernelEntry> registered_kernel(CUmodule module, std::string_view name) {
    RegistryState* R = find_registry();
    if (!R) return nullptr;
    std::shared_lock lock(R->mutex);
    auto it = R->modules.find(module);
    if (it == R->modules.end()) return nullptr;
    auto k = it->second->find(name);
    return k != it->second->end() ? k->second : nullptr;
}

} // namespace d4r::runtime
