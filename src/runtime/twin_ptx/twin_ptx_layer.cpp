// PTX twins of machine-code images (twin_ptx_layer.h).
#include "runtime/twin_ptx/twin_ptx_layer.h"

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include "abi/d4r_twin_ptx.h"
#include "core/fnv1a.h"
#include "core/log.h"
#include "ptx/container.h"
#include "ptx/image_extent.h"
#include "ptx/module_hash.h"
#include "runtime/entry_guard.h"
#include "runtime/native/native_target.h"
#include "runtime/refusal.h"

namespace d4r::runtime {

namespace {

struct Twin {
    size_t image_size = 0;
    std::string ptx; // NUL-terminated by std::string: what cuModuleLoadData reads
};

struct TwinPtxState : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::TwinPtx;
    ApiTable below;
    std::mutex mutex;
    std::unordered_map<uint64_t, Twin> twins; // by FNV-1a 64 of the image's bytes; never erased (loads keep pointers)
    std::atomic<size_t> count{0};
};

TwinPtxState& S() { return *installed_layer<TwinPtxState>(); }

// The twin of the image at IMAGE (SIZE bytes, 0: its headers say), or null.
const Twin* twin_of(const void* image, size_t size = 0) {
    TwinPtxState& s = S();
    if (s.count.load(std::memory_order_relaxed) == 0 || !image) return nullptr;
    std::span<const uint8_t> bytes;
    if (size) {
        bytes = {static_cast<const uint8_t*>(image), size};
    } else {
        auto extent = ptx::image_extent(image);
        if (!extent) return nullptr;
        bytes = *extent;
    }
    if (ptx::detect_container(bytes) != ptx::ContainerKind::Elf) return nullptr;
    const uint64_t key = fnv1a64(bytes);
    std::lock_guard lock(s.mutex);
    auto it = s.twins.find(key);
    if (it == s.twins.end() || it->second.image_size != bytes.size()) return nullptr;
    if (log::once(fmt::format("twin-ptx.load.{:016x}", key)))
        log::info("libd4rcuda: a {}-byte cubin (FNV-1a {:016x}) holds machine code only; loading the PTX its compiler "
                  "made beside it ({} bytes, registered by d4r's companion library)",
                  bytes.size(), key, it->second.ptx.size());
    return &it->second;
}

CUresult register_twin(const void* image, size_t image_size, const char* ptx, size_t ptx_size) {
    try {
        TwinPtxState* s = installed_layer<TwinPtxState>();
        if (!s) return refuse(CUDA_ERROR_NOT_SUPPORTED, "twin PTX: this runtime runs machine code; no twin is needed");
        if (!image || !image_size || !ptx || !ptx_size)
            return refuse(CUDA_ERROR_INVALID_VALUE, "twin PTX: a null or empty image or PTX");
        std::string text = std::string(ptx::strip_trailing_nuls(std::string_view(ptx, ptx_size)));
        if (text.find(".version") == std::string::npos)
            return refuse(CUDA_ERROR_INVALID_VALUE, "twin PTX: the text given is not a PTX module (no .version)");
        std::span<const uint8_t> bytes(static_cast<const uint8_t*>(image), image_size);
        const uint64_t key = fnv1a64(bytes);
        std::lock_guard lock(s->mutex);
        auto [it, added] = s->twins.try_emplace(key, Twin{image_size, std::move(text)});
        if (added) s->count.fetch_add(1, std::memory_order_relaxed);
        log::debug("libd4rcuda: twin PTX {} for the {}-byte image {:016x} ({} bytes of PTX)",
                   added ? "registered" : "already known", image_size, key, it->second.ptx.size());
        return CUDA_SUCCESS;
    } catch (...) {
        return exception_result("d4r twin-PTX register_twin");
    }
}

constexpr abi::D4rTwinPtxTable kTable = {sizeof(abi::D4rTwinPtxTable), &register_twin};

CUresult twin_cuModuleLoadData(CUmodule* module, const void* image) {
    const Twin* t = twin_of(image);
    return S().below.cuModuleLoadData(module, t ? t->ptx.c_str() : image);
}

CUresult twin_cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int n, CUjit_option* options,
                                 void** values) {
    const Twin* t = twin_of(image);
    return S().below.cuModuleLoadDataEx(module, t ? t->ptx.c_str() : image, n, options, values);
}

CUresult twin_cuModuleLoadFatBinary(CUmodule* module, const void* image) {
    const Twin* t = twin_of(image);
    return S().below.cuModuleLoadFatBinary(module, t ? t->ptx.c_str() : image);
}

CUresult twin_cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jit_options, void** jit_values,
                                unsigned int jit_count, CUlibraryOption* library_options, void** library_values,
                                unsigned int library_count) {
    const Twin* t = twin_of(code);
    return S().below.cuLibraryLoadData(library, t ? t->ptx.c_str() : code, jit_options, jit_values, jit_count,
                                       library_options, library_values, library_count);
}

template <CUresult (*ApiTable::*Slot)(CUlinkState, CUjitInputType, void*, size_t, const char*, unsigned int,
                                      CUjit_option*, void**)>
CUresult twin_link_add_data(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,
                            unsigned int n, CUjit_option* options, void** values) {
    if (type == CU_JIT_INPUT_CUBIN)
        if (const Twin* t = twin_of(data, size))
            return (S().below.*Slot)(state, CU_JIT_INPUT_PTX, const_cast<char*>(t->ptx.c_str()), t->ptx.size() + 1,
                                     name, n, options, values);
    return (S().below.*Slot)(state, type, data, size, name, n, options, values);
}

} // namespace

bool backend_runs_ptx_only(const Backend& backend, const Environment& env) {
    return backend.name() == "cpu" || is_zluda_backend(backend.name(), env);
}

ApiTable make_twin_ptx_table(Runtime& runtime, const ApiTable& inner) {
    runtime.emplace_layer<TwinPtxState>().below = inner;
    ApiTable t = inner;
    t.cuModuleLoadData = &twin_cuModuleLoadData;
    t.cuModuleLoadDataEx = &twin_cuModuleLoadDataEx;
    t.cuModuleLoadFatBinary = &twin_cuModuleLoadFatBinary;
    t.cuLibraryLoadData = &twin_cuLibraryLoadData;
    t.cuLinkAddData = &twin_link_add_data<&ApiTable::cuLinkAddData>;
    t.cuLinkAddData_v2 = &twin_link_add_data<&ApiTable::cuLinkAddData_v2>;
    return t;
}

const void* twin_ptx_table() { return installed_layer<TwinPtxState>() ? &kTable : nullptr; }

} // namespace d4r::runtime
