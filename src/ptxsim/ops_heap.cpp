// ptxsim: malloc and free in kernels. CUDA's in-kernel malloc/free, C++ new/delete (nvcc compiles them to the
// same calls) and __nv_aligned_device_malloc reach PTX as calls of external functions:
//
//   call.uni (ret), malloc, (size);                                    ret: the block, or 0
//   call.uni free, (pointer);                                          free(0) does nothing
//   call.uni (ret), __cuda_syscall_aligned_malloc, (size, alignment);
//
// ptxsim runs them on the launch's device heap (LaunchConfig::heap, device_heap.h), lane by lane in lane order.
// A request the heap cannot hold returns 0, as on the GPU. Freeing an address malloc did not return (or
// freeing twice: undefined in CUDA) stops the launch with an illegal address, naming it, rather than
// corrupting the heap.
#include <fmt/format.h>

#include "ptxsim/decoder.h"
#include "ptxsim/exec.h"
#include "ptxsim/lanes.h"
#include "ptxsim/ops.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

enum class HeapCall : uint8_t { Malloc, Free, AlignedMalloc };

struct HeapShape {
    std::string_view name;
    HeapCall call;
    uint32_t args;   // each an 8-byte .param
    bool has_result; // an 8-byte pointer
};

constexpr HeapShape kHeapCalls[] = {
    {"malloc", HeapCall::Malloc, 1, true},
    {"free", HeapCall::Free, 1, false},
    {"__cuda_syscall_aligned_malloc", HeapCall::AlignedMalloc, 2, true},
};

const HeapShape* find_heap_call(std::string_view name) {
    for (const HeapShape& c : kHeapCalls)
        if (c.name == name) return &c;
    return nullptr;
}

uint64_t read_u64(const uint8_t* fp, uint32_t offset) {
    uint64_t v;
    std::memcpy(&v, fp + offset, sizeof v);
    return v;
}

// in.s[0], in.s[1]: the arguments' offsets in the function-parameter area; in.aux: the result's; in.flags: the
// HeapCall.
Flow exec_heap(Warp& w, const Instr& in, uint32_t mask) {
    DeviceHeap* heap = w.launch->config.heap.get();
    const HeapCall call = static_cast<HeapCall>(in.flags);
    Flow flow = Flow::Next;
    for_lanes(mask, [&](unsigned l) {
        if (flow != Flow::Next) return;
        uint8_t* fp = fparam_of(w, l);
        const uint64_t a = read_u64(fp, in.s[0]);
        switch (call) {
        case HeapCall::Malloc:
        case HeapCall::AlignedMalloc: {
            const uint64_t alignment = call == HeapCall::Malloc ? DeviceHeap::kMinAlignment : read_u64(fp, in.s[1]);
            const uint64_t block = heap->allocate(a, alignment);
            std::memcpy(fp + in.aux, &block, sizeof block);
            break;
        }
        case HeapCall::Free:
            if (a != 0 && !heap->release(a))
                flow = fault(w, FaultKind::IllegalAddress, l, a, 0,
                             fmt::format("free(0x{:x}): not a block malloc returned, or freed already", a));
            break;
        }
    });
    return flow;
}

} // namespace

bool is_heap_function(std::string_view name) { return find_heap_call(name) != nullptr; }

Status decode_heap_call(InstrDecoder& d, std::string_view name, const ast::Operand* rets, const ast::Operand* args) {
    const HeapShape& shape = *find_heap_call(name);
    const size_t nargs = args ? args->elements.size() : 0, nrets = rets ? rets->elements.size() : 0;
    if (nargs != shape.args || nrets > (shape.has_result ? 1u : 0u))
        return d.error(fmt::format("{} takes {} argument(s) and returns {}", name, shape.args,
                                   shape.has_result ? "a pointer" : "nothing"));
    auto param = [&](const ast::Operand& o) -> Expected<uint32_t> {
        auto v = o.kind == ast::OperandKind::Name ? d.lookup(o.name) : std::nullopt;
        if (!v || v->kind != Symbol::Kind::Var || v->space != Space::FuncParam || v->size < 8)
            return d.error(fmt::format("the arguments of {} must be 8-byte .param variables", name));
        return static_cast<uint32_t>(v->value);
    };
    uint32_t offsets[2] = {};
    for (size_t i = 0; i < nargs; ++i) offsets[i] = D4R_TRY(param(args->elements[i]));
    // A malloc whose result is ignored still allocates; its result goes to a scratch slot of the area.
    uint32_t ret = offsets[0];
    if (nrets == 1) ret = D4R_TRY(param(rets->elements[0]));
    d.builder().program().device_heap = true;
    Instr& in = d.emit(&exec_heap);
    in.flags = static_cast<uint16_t>(shape.call);
    in.s[0] = offsets[0];
    in.s[1] = offsets[1];
    in.aux = ret;
    return ok_status();
}

} // namespace d4r::ptxsim
