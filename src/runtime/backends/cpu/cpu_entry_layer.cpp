// cpu backend: the outermost layer over the whole table (fill_entry_layer runs last). It holds no lock of
// the backend's, which makes it the place for the three rules that concern every entry point:
//
// * Out-parameters. A refused call leaves no stale value: every plain out-parameter (out_params.h) is
//   cleared to NULL / 0 before anything can refuse the call, however the entry point was reached (linked,
//   through cuGetProcAddress, or by a layer of d4r's own).
//
// * Sticky errors. After a kernel fault a GPU context is unusable, and NVIDIA's driver answers the
//   fault's error (ILLEGAL_ADDRESS, ...) from every call made while that context is current, cuMemAlloc,
//   cuModuleGetFunction and cuEventQuery included, until the context is destroyed or the primary context
//   reset. Exempt are the calls that cannot reach the faulted context, or that are the way out:
//   initialisation, versions and error strings, entry-point lookup, device queries and primary contexts
//   (cuDevice*), and the context stack and lifetime (create, destroy, push, pop, set, get, attach,
//   detach, and which device or API version a context has).
// * A backend to answer. Every entry point answers CUDA_ERROR_DEINITIALIZED while no cpu backend object is
//   alive (its State is gone: cpu_state.h).
// * Launch back-pressure. A context's queue holds at most about a thousand operations, as a GPU's
//   push buffer does: a call that left more queued waits, after its work is queued and its locks are
//   released, until the worker has drained the queue below that (Context::submit, apply_back_pressure).
#include <string_view>

#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/out_params.h"

namespace d4r::runtime::cpu {

namespace {

ApiTable g_inner; // the table below this layer

// The sticky error of the calling thread's current context in S (CUDA_SUCCESS when none is current).
CUresult current_sticky(const State& s) {
    if (s.faulted_contexts.load(std::memory_order_relaxed) == 0) return CUDA_SUCCESS;
    auto& stack = context_stack();
    if (stack.empty()) return CUDA_SUCCESS;
    auto ctx = find_context(stack.back());
    return ctx ? ctx->sticky.load() : CUDA_SUCCESS;
}

template <auto Slot, bool Sticky, uint32_t Outputs>
struct Entry;
template <typename... A, CUresult (*ApiTable::*Slot)(A...), bool Sticky, uint32_t Outputs>
struct Entry<Slot, Sticky, Outputs> {
    static CUresult call(A... args) {
        clear_out_params<Outputs>(args...);
        const State* s = active_state(); // once per call: the hot path of every entry point
        if (!s) return refuse(CUDA_ERROR_DEINITIALIZED, "cpu backend: no cpu backend object is alive");
        if constexpr (Sticky)
            if (CUresult r = current_sticky(*s)) return r;
        CUresult r = (g_inner.*Slot)(args...);
        apply_back_pressure();
        return r;
    }
};

bool exempt_from_sticky(std::string_view name) {
    if (name.starts_with("cuDevice")) return true; // device queries and primary contexts
    constexpr std::string_view kExempt[] = {
        "cuInit",           "cuDriverGetVersion", "cuGetErrorName",
        "cuGetErrorString", "cuGetProcAddress",   "cuGetProcAddress_v2",
        "cuGetExportTable", "cuCtxCreate",        "cuCtxCreate_v2",
        "cuCtxCreate_v3",   "cuCtxCreate_v4",     "cuCtxDestroy",
        "cuCtxDestroy_v2",  "cuCtxPushCurrent",   "cuCtxPushCurrent_v2",
        "cuCtxPopCurrent",  "cuCtxPopCurrent_v2", "cuCtxSetCurrent",
        "cuCtxGetCurrent",  "cuCtxAttach",        "cuCtxDetach",
        "cuCtxGetDevice",   "cuCtxGetApiVersion",
    };
    for (std::string_view e : kExempt)
        if (name == e) return true;
    return false;
}

} // namespace

void fill_entry_layer(ApiTable& t) {
    g_inner = t;
#define D4R_ENTRY_WRAP(exp, base, since, params, args)                                 \
    if (t.exp) {                                                                       \
        constexpr uint32_t outputs = out_param_mask<CUresult(*) params>(#exp, #args);  \
        t.exp = exempt_from_sticky(#exp) ? Entry<&ApiTable::exp, false, outputs>::call \
                                         : Entry<&ApiTable::exp, true, outputs>::call; \
    }
    D4R_CUDA_API(D4R_ENTRY_WRAP)
#undef D4R_ENTRY_WRAP
}

} // namespace d4r::runtime::cpu
