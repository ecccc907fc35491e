// The atomics' meaning (see instr_atomic.h).
#include "ptx/instr_atomic.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = Atomic::Op;

} // namespace

Expected<Atomic> decode_atomic(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    if (m.base() != "atom" && m.base() != "red")
        return unsupported(fmt::format("'{}' is not an atomic instruction", m.base()));
    Atomic a;
    a.result = m.base() == "atom";
    std::string_view sp = m.take_any({"global", "shared"});
    if (sp.empty() && m.take("shared::cta")) sp = "shared";
    if (m.has("shared::cluster")) return unsupported("cluster shared memory is not supported");
    m.take_memory_hints();
    const std::string_view ops = m.take_any({"and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max"});
    const bool noftz = m.take("noftz");
    if (m.has("v2") || m.has("v4") || m.has("v8")) return unsupported("vector atomics are not supported yet");
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (ops.empty() || a.type == Type::None) return unsupported("atomic needs an operation and a type");
    a.space = decode::state_space(sp);
    const size_t first = a.result ? 1 : 0;
    a.address_operand = static_cast<unsigned>(first);
    a.half = is_half_type(a.type);
    if (a.half || noftz) {
        if (!a.half || !noftz || ops != "add")
            return unsupported("half-precision atomics are .add.noftz on .f16, .bf16, .f16x2, .bf16x2");
        a.op = Op::Add;
        a.value = a.type == Type::F16x2 || a.type == Type::BF16x2 ? Type::B32 : Type::B16;
    } else {
        a.op = ops == "and"    ? Op::And
               : ops == "or"   ? Op::Or
               : ops == "xor"  ? Op::Xor
               : ops == "cas"  ? Op::Cas
               : ops == "exch" ? Op::Exch
               : ops == "add"  ? Op::Add
               : ops == "inc"  ? Op::Inc
               : ops == "dec"  ? Op::Dec
               : ops == "min"  ? Op::Min
                               : Op::Max;
        const unsigned bits = type_bits(a.type);
        const bool bitwise =
            a.op == Op::And || a.op == Op::Or || a.op == Op::Xor || a.op == Op::Cas || a.op == Op::Exch;
        if (bits != 32 && bits != 64)
            return unsupported(fmt::format("atomics on .{} are not supported yet", type_name(a.type)));
        if (is_float(a.type)) {
            if (a.op != Op::Add) return unsupported("floating-point atomics support .add only");
        } else if (!bitwise && is_bits(a.type)) {
            return unsupported(fmt::format(".{} needs a signed or unsigned type", ops));
        }
        if ((a.op == Op::Inc || a.op == Op::Dec) && a.type != Type::U32) return unsupported(".inc/.dec need .u32");
        a.signed_compare = is_signed(a.type) && (a.op == Op::Min || a.op == Op::Max);
        a.value = is_float(a.type) ? a.type : bits == 64 ? Type::B64 : Type::B32;
        a.values = a.op == Op::Cas ? 2 : 1;
    }
    D4R_TRY(expect_operands(in, first + 1 + a.values, first + 2 + a.values)); // an optional cache policy
    a.cache_policy = in.operands.size() == first + 2 + a.values;
    return a;
}

} // namespace d4r::ptx
