// ptxsim: cudaGraphSetConditional in kernels. A kernel of a CUDA graph sets the value of a conditional node's
// handle (which decides whether, how often or which body graph runs) through an external function:
//
//   call.uni cudaGraphSetConditional, (handle, value);      handle: .b64, value: .b32
//
// ptxsim hands each active lane's call, in lane order, to the launch's LaunchConfig::set_conditional (the
// cpu backend's graph code); a launch without one, or a handle it does not know, stops with an illegal
// instruction naming the handle.
#include <fmt/format.h>

#include "ptxsim/decoder.h"
#include "ptxsim/exec.h"
#include "ptxsim/lanes.h"
#include "ptxsim/ops.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

constexpr std::string_view kSetConditional = "cudaGraphSetConditional";

// in.s[0], in.s[1]: the handle's and the value's offsets in the function-parameter area.
Flow exec_set_conditional(Warp& w, const Instr& in, uint32_t mask) {
    const auto& set = w.launch->config.set_conditional;
    Flow flow = Flow::Next;
    for_lanes(mask, [&](unsigned l) {
        if (flow != Flow::Next) return;
        const uint8_t* fp = fparam_of(w, l);
        uint64_t handle;
        uint32_t value;
        std::memcpy(&handle, fp + in.s[0], sizeof handle);
        std::memcpy(&value, fp + in.s[1], sizeof value);
        if (!set || !set(handle, value))
            flow = fault(w, FaultKind::IllegalInstruction, l, handle, 0,
                         fmt::format("cudaGraphSetConditional: 0x{:x} is not a conditional handle of this context{}",
                                     handle, set ? "" : " (the launch is not part of a graph that has one)"));
    });
    return flow;
}

} // namespace

bool is_conditional_function(std::string_view name) { return name == kSetConditional; }

Status decode_conditional_call(InstrDecoder& d, const ast::Operand* rets, const ast::Operand* args) {
    const size_t nargs = args ? args->elements.size() : 0, nrets = rets ? rets->elements.size() : 0;
    if (nargs != 2 || nrets != 0) return d.error("cudaGraphSetConditional takes (handle, value) and returns nothing");
    auto param = [&](const ast::Operand& o, uint32_t bytes) -> Expected<uint32_t> {
        auto v = o.kind == ast::OperandKind::Name ? d.lookup(o.name) : std::nullopt;
        if (!v || v->kind != Symbol::Kind::Var || v->space != Space::FuncParam || v->size < bytes)
            return d.error("the arguments of cudaGraphSetConditional must be .param variables of 8 and 4 bytes");
        return static_cast<uint32_t>(v->value);
    };
    const uint32_t handle = D4R_TRY(param(args->elements[0], 8));
    const uint32_t value = D4R_TRY(param(args->elements[1], 4));
    Instr& in = d.emit(&exec_set_conditional);
    in.s[0] = handle;
    in.s[1] = value;
    return ok_status();
}

} // namespace d4r::ptxsim
