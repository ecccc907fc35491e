// D4R_CUDA_TRACE=1: one line per driver API call with its arguments and result (docs/runtime.md, "Observability"):
//   CUDA_TRACE cuMemAlloc_v2(dptr=0x7ffd5c3a1e28, bytesize=4096) = CUDA_SUCCESS
// A refused call also shows the reason its refusal gave (refusal.h):
//   CUDA_TRACE cuLinkAddData_v2(...) = CUDA_ERROR_NO_BINARY_FOR_GPU (cpu backend: cuLinkAddData: k.cubin: ...)
// Pointers and device addresses are hex, sizes and enums decimal, C strings quoted (the ones that are
// names: module file, function and global names, cuGetProcAddress symbols).
#include <string>

#include "core/log.h"
#include "runtime/refusal.h"
#include "runtime/runtime.h"
#include "runtime/trace_format.h"

namespace d4r::runtime {

namespace {

struct TraceState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::Trace;
    const ApiTable* inner = nullptr;
};

const ApiTable& inner() { return *installed_layer<TraceState>()->inner; }

#define D4R_TRACE_FN(exp, base, since, params, args)                                        \
    CUresult trace_##exp params {                                                           \
        clear_refusal();                                                                    \
        CUresult r = inner().exp args;                                                      \
        const auto values = trace_args args;                                                \
        std::string line = format_trace_call(#exp, #args, r, values.data(), values.size()); \
        if (r != CUDA_SUCCESS)                                                              \
            if (std::string why = take_refusal(); !why.empty()) line += " (" + why + ")";   \
        log::write(log::Level::Info, line);                                                 \
        return r;                                                                           \
    }
D4R_CUDA_API(D4R_TRACE_FN)
#undef D4R_TRACE_FN

} // namespace

ApiTable make_trace_table(Runtime& runtime, const ApiTable& inner) {
    runtime.emplace_layer<TraceState>().inner = &inner;
    return ApiTable{
#define D4R_TRACE_REF(exp, base, since, params, args) &trace_##exp,
        D4R_CUDA_API(D4R_TRACE_REF)
#undef D4R_TRACE_REF
    };
}

} // namespace d4r::runtime
