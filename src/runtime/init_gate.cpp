// The init gate (init_gate.h).
#include "runtime/init_gate.h"

#include <atomic>

#include "runtime/layer_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime {

namespace {

struct InitGateState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::InitGate;
    const ApiTable* inner = nullptr;
    std::atomic<bool> open{false}; // the application's cuInit succeeded
};

InitGateState& gate() { return *installed_layer<InitGateState>(); }

#define D4R_GATE(exp, base, since, params, args)                                            \
    CUresult gate_##exp params {                                                            \
        InitGateState& g = gate();                                                          \
        if (!g.open.load(std::memory_order_acquire)) [[unlikely]]                           \
            return refuse(CUDA_ERROR_NOT_INITIALIZED, #exp ": cuInit has not been called"); \
        return g.inner->exp args;                                                           \
    }
D4R_CUDA_API(D4R_GATE)
#undef D4R_GATE

CUresult gate_init(unsigned int flags) {
    InitGateState& g = gate();
    CUresult r = g.inner->cuInit(flags);
    if (r == CUDA_SUCCESS) g.open.store(true, std::memory_order_release);
    return r;
}

} // namespace

ApiTable make_init_gate_table(Runtime& runtime, const ApiTable& inner) {
    InitGateState& state = runtime.emplace_layer<InitGateState>();
    state.inner = &inner;
    ApiTable t = {
#define D4R_GATE_REF(exp, base, since, params, args) &gate_##exp,
        D4R_CUDA_API(D4R_GATE_REF)
#undef D4R_GATE_REF
    };
    t.cuInit = &gate_init;
    // What NVIDIA's driver answers before cuInit passes through untouched.
    t.cuDriverGetVersion = inner.cuDriverGetVersion;
    t.cuGetErrorName = inner.cuGetErrorName;
    t.cuGetErrorString = inner.cuGetErrorString;
    t.cuGetProcAddress = inner.cuGetProcAddress;
    t.cuGetProcAddress_v2 = inner.cuGetProcAddress_v2;
    t.cuGetExportTable = inner.cuGetExportTable;
    return t;
}

} // namespace d4r::runtime
