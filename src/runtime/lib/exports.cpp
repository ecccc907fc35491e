// libd4rcuda's exported CUDA driver API: one extern "C" function per entry of abi/cuda_api.h, each
// clearing its out-parameters (out_params.h) and forwarding to the runtime's dispatch table (runtime.h)
// behind an exception barrier (entry_guard.h);
// the per-thread default stream variants of those functions; and every other entry point NVIDIA's libcuda
// exports (abi/cuda_unimplemented.h): the driver backend's library's own function of that name, or
// CUDA_ERROR_NOT_SUPPORTED. Built only into the shared
// library (build/lib/libd4rcuda.so, loadable as libcuda.so.1); everything else of the library is hidden.
#include <type_traits>

#include "abi/cuda_unimplemented.h"
#include "abi/d4r_extensions.h"
#include "core/log.h"
#include "runtime/entry_guard.h"
#include "runtime/native/override_layer.h"
#include "runtime/out_params.h"
#include "runtime/runtime.h"

using namespace d4r::abi;

extern "C" {

// Out-parameters are cleared before anything can refuse the call (out_params.h), whichever backend or
// layer answers.
#define D4R_EXPORT_FN(exp, base, since, params, args)                                                           \
    __attribute__((visibility("default"))) CUresult exp params {                                                \
        try {                                                                                                   \
            d4r::runtime::clear_out_params<d4r::runtime::out_param_mask<CUresult(*) params>(#exp, #args)> args; \
            return d4r::runtime::dispatch().exp args;                                                           \
        } catch (...) {                                                                                         \
            return d4r::runtime::exception_result(#exp);                                                        \
        }                                                                                                       \
    }
D4R_CUDA_API(D4R_EXPORT_FN)
#undef D4R_EXPORT_FN

// NAME_ptds / NAME_ptsz: the same function (d4r orders every stream as the legacy stream does).
#define D4R_EXPORT_PER_THREAD(exp, variant) __attribute__((visibility("default"), alias(#exp))) decltype(exp) variant;
D4R_CUDA_PER_THREAD(D4R_EXPORT_PER_THREAD)
#undef D4R_EXPORT_PER_THREAD

// The names d4r does not implement. Callers pass their arguments; a function without parameters ignores them
// (the SysV x86-64 calling convention leaves them to the caller). On x86-64 each export is a jump through a
// slot: the backend library's function of that name when the installed backend has one (the driver backend:
// every entry point NVIDIA's libcuda exports reaches the application), else the NOT_SUPPORTED answer.
#define D4R_UNIMPLEMENTED_ANSWER(name) \
    CUresult d4r_unimplemented_##name() { return d4r::runtime::unimplemented(#name); }
D4R_CUDA_UNIMPLEMENTED(D4R_UNIMPLEMENTED_ANSWER)
#undef D4R_UNIMPLEMENTED_ANSWER

#if defined(__x86_64__)
#define D4R_EXPORT_SLOT(name) void* d4r_slot_##name = reinterpret_cast<void*>(&d4r_unimplemented_##name);
D4R_CUDA_UNIMPLEMENTED(D4R_EXPORT_SLOT)
#undef D4R_EXPORT_SLOT
#define D4R_EXPORT_TRAMPOLINE(name)                                                                            \
    asm(".text\n.globl " #name "\n.type " #name ", @function\n" #name ":\n    jmp *d4r_slot_" #name "(%rip)\n" \
        ".size " #name ", .-" #name "\n");
D4R_CUDA_UNIMPLEMENTED(D4R_EXPORT_TRAMPOLINE)
#undef D4R_EXPORT_TRAMPOLINE
#else
#define D4R_EXPORT_UNIMPLEMENTED(name) \
    __attribute__((visibility("default"))) CUresult name() { return d4r_unimplemented_##name(); }
D4R_CUDA_UNIMPLEMENTED(D4R_EXPORT_UNIMPLEMENTED)
#undef D4R_EXPORT_UNIMPLEMENTED
#endif

// d4r's own entry point (abi/d4r_extensions.h): whether launches of F run a native kernel of the active set.
__attribute__((visibility("default"))) CUresult d4rFuncIsNative(int* native, CUfunction f) {
    try {
        if (!native) {
            d4r::log::debug("libd4rcuda: d4rFuncIsNative refused: a null out-pointer");
            return CUDA_ERROR_INVALID_VALUE;
        }
        *native = 0;
        if (!f) {
            d4r::log::debug("libd4rcuda: d4rFuncIsNative refused: a null function");
            return CUDA_ERROR_INVALID_HANDLE;
        }
        *native = d4r::runtime::is_native_function(f) ? 1 : 0;
        return CUDA_SUCCESS;
    } catch (...) {
        return d4r::runtime::exception_result("d4rFuncIsNative");
    }
}
static_assert(std::is_same_v<decltype(&d4rFuncIsNative), d4r::abi::PFN_d4rFuncIsNative>);
// Every entry point the list names (the Wine bridge exports and forwards each by it) is defined here with its type.
#define D4R_EXTENSION_DEFINED(name, params, args)                      \
    static_assert(std::is_same_v<decltype(&name), CUresult(*) params>, \
                  #name " is listed in abi/d4r_extensions.h but not defined here as it says");
D4R_EXTENSIONS(D4R_EXTENSION_DEFINED)
#undef D4R_EXTENSION_DEFINED

} // extern "C"

#if defined(__x86_64__)
namespace {

struct ForeignSlot {
    const char* name;
    void** slot;
    void* answer;
};

#define D4R_SLOT_ENTRY(name) {#name, &d4r_slot_##name, reinterpret_cast<void*>(&d4r_unimplemented_##name)},
const ForeignSlot kForeignSlots[] = {D4R_CUDA_UNIMPLEMENTED(D4R_SLOT_ENTRY)};
#undef D4R_SLOT_ENTRY

void bind_foreign_exports(const d4r::runtime::Backend* backend) {
    for (const ForeignSlot& s : kForeignSlots) {
        void* f = backend ? backend->foreign_export(s.name) : nullptr;
        __atomic_store_n(s.slot, f ? f : s.answer, __ATOMIC_RELEASE);
    }
}

const bool g_registered = (d4r::runtime::set_foreign_export_binder(&bind_foreign_exports), true);

} // namespace
#endif
