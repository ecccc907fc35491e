// The routing of an instruction to its family's decoder (see instruction.h).
#include "ptx/instruction.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

template <typename T>
Expected<TypedInstruction> typed(Expected<T> r) {
    if (!r) return r.error();
    return TypedInstruction(std::move(*r));
}

bool any_of(std::string_view base, std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
        if (base == n) return true;
    return false;
}

} // namespace

Expected<TypedInstruction> decode_instruction(const ast::Instruction& in, const DecodeContext& context) {
    const Modifiers m(in.opcode);
    const std::string_view base = m.base();
    const Type first_type = m.peek_type();
    // The opcodes several families share: by the (first) type written.
    if (any_of(base, {"add", "sub", "mul", "mad", "div", "abs", "neg", "min", "max"})) {
        if ((base == "min" || base == "max") && is_packed_minmax(m)) return typed(decode_simd(in));
        if (is_half_type(first_type)) return typed(decode_half(in));
        if (is_float(first_type)) return typed(decode_float(in));
        return typed(decode_int(in));
    }
    if (any_of(base, {"and", "or", "xor", "not"}))
        return first_type == Type::Pred ? typed(decode_compare(in)) : typed(decode_int(in));
    if (any_of(base, {"fma", "sqrt", "rcp", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"}))
        return is_half_type(first_type) ? typed(decode_half(in)) : typed(decode_float(in));
    if (any_of(base, {"copysign", "testp"})) return typed(decode_float(in));
    if (any_of(base, {"addc", "subc", "madc",  "mul24", "mad24", "sad",  "rem",  "cnot", "shl", "shr", "popc",
                      "clz",  "brev", "bfind", "bfe",   "bfi",   "bmsk", "prmt", "lop3", "shf", "fns"}))
        return typed(decode_int(in));
    if (base == "cvt") return typed(decode_cvt(in));
    if (any_of(base, {"setp", "set", "selp", "slct"})) return typed(decode_compare(in));
    if (any_of(base, {"mov", "cvta", "isspacep"})) return typed(decode_move(in));
    if (any_of(base, {"ld", "ldu", "st", "prefetch", "prefetchu"})) return typed(decode_memory(in));
    if (any_of(base, {"bra", "brx", "exit", "ret", "call", "bar", "barrier", "membar", "fence", "trap", "brkpt",
                      "nanosleep"}))
        return typed(decode_control(in));
    if (any_of(base, {"shfl", "vote", "match", "redux", "activemask"})) return typed(decode_warp(in));
    if (any_of(base, {"atom", "red"})) return typed(decode_atomic(in));
    if (any_of(base, {"mma", "ldmatrix"})) return typed(decode_matrix(in));
    if (base == "cp") {
        // cp.async.mbarrier.arrive is the mbarrier family's; the rest of cp.async the asynchronous copies'.
        if (m.has("mbarrier")) return typed(decode_mbarrier(in));
        return typed(decode_async(in));
    }
    if (base == "mbarrier") return typed(decode_mbarrier(in));
    if (any_of(base, {"tex", "tld4", "suld", "sust"})) return typed(decode_texture(in));
    if (any_of(base, {"dp4a", "dp2a", "vabsdiff4"})) return typed(decode_simd(in));
    if (base == "wmma") return typed(decode_wmma(in, context.target));
    if (base == "wgmma") return typed(decode_wgmma(in));
    if (!is_ptx_opcode(base)) return Error(ErrorCode::Invalid, fmt::format("'{}' is not a PTX instruction", base));
    return decode::unsupported(fmt::format("'{}' is not typed by the front end yet", base));
}

bool is_ptx_opcode(std::string_view base) {
    static constexpr std::string_view kOpcodes[] = {
        "abs",          "activemask",    "add",       "addc",       "alloca",
        "and",          "applypriority", "atom",      "bar",        "barrier",
        "bfe",          "bfi",           "bfind",     "bmsk",       "bra",
        "brev",         "brkpt",         "brx",       "call",       "clusterlaunchcontrol",
        "clz",          "cnot",          "copysign",  "cos",        "cp",
        "createpolicy", "cvt",           "cvta",      "discard",    "div",
        "dp2a",         "dp4a",          "elect",     "ex2",        "exit",
        "fence",        "fma",           "fns",       "getctarank", "griddepcontrol",
        "isspacep",     "istypeof",      "ld",        "ldmatrix",   "ldu",
        "lg2",          "lop3",          "mad",       "mad24",      "madc",
        "mapa",         "match",         "max",       "mbarrier",   "membar",
        "min",          "mma",           "mov",       "movmatrix",  "mul",
        "mul24",        "multimem",      "nanosleep", "neg",        "not",
        "or",           "pmevent",       "popc",      "prefetch",   "prefetchu",
        "prmt",         "rcp",           "red",       "redux",      "rem",
        "ret",          "rsqrt",         "sad",       "selp",       "set",
        "setmaxnreg",   "setp",          "shf",       "shfl",       "shl",
        "shr",          "sin",           "slct",      "sqrt",       "st",
        "stackrestore", "stacksave",     "stmatrix",  "sub",        "subc",
        "suld",         "suq",           "sured",     "sust",       "szext",
        "tanh",         "tcgen05",       "tensormap", "testp",      "tex",
        "tld4",         "trap",          "txq",       "vabsdiff",   "vabsdiff2",
        "vabsdiff4",    "vadd",          "vadd2",     "vadd4",      "vavrg2",
        "vavrg4",       "vmad",          "vmax",      "vmax2",      "vmax4",
        "vmin",         "vmin2",         "vmin4",     "vote",       "vset",
        "vset2",        "vset4",         "vshl",      "vshr",       "vsub",
        "vsub2",        "vsub4",         "wgmma",     "wmma",       "xor"};
    for (std::string_view op : kOpcodes)
        if (op == base) return true;
    return false;
}

} // namespace d4r::ptx
