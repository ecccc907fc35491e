// The packed integer instructions' meaning (see instr_simd.h).
#include "ptx/instr_simd.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = PackedInt::Op;

// The two .u32/.s32 type modifiers of dp4a/dp2a/vabsdiff4, in written order (atype, btype).
Status dot_types(Modifiers& m, PackedInt& p) {
    const Type ta = m.take_type();
    const Type tb = m.take_type();
    auto ok = [](Type t) { return t == Type::U32 || t == Type::S32; };
    if (!ok(ta) || !ok(tb)) return unsupported(fmt::format("{} needs two types from .u32 and .s32", m.base()));
    p.a_signed = ta == Type::S32;
    p.b_signed = tb == Type::S32;
    return ok_status();
}

} // namespace

bool is_packed_minmax(const Modifiers& m) { return m.has("u16x2") || m.has("s16x2"); }

Expected<PackedInt> decode_simd(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    const std::string_view base = m.base();
    PackedInt p;
    if (base == "min" || base == "max") {
        p.op = base == "max" ? Op::Max : Op::Min;
        p.relu = m.take("relu");
        p.halves_signed = m.take("s16x2");
        if (!p.halves_signed && !m.take("u16x2")) return unsupported("packed min/max needs .u16x2 or .s16x2");
        D4R_TRY(finish(m));
        if (p.relu && !p.halves_signed) return unsupported(".relu needs a signed type (.s16x2)");
        p.sources = 2;
    } else if (base == "dp4a") {
        D4R_TRY(dot_types(m, p));
        D4R_TRY(finish(m));
    } else if (base == "dp2a") {
        const std::string_view mode = m.take_any({"lo", "hi"});
        D4R_TRY(dot_types(m, p));
        D4R_TRY(finish(m));
        if (mode.empty()) return unsupported("dp2a needs .lo or .hi");
        p.op = Op::Dot2;
        p.high = mode == "hi";
    } else if (base == "vabsdiff4") {
        // Only the reduction form without byte selectors: the per-lane forms (.sat, merge masks) are refused.
        const bool add = m.take("add");
        const Type td = m.take_type();
        if (td != Type::U32 && td != Type::S32) return unsupported("vabsdiff4 needs .u32 or .s32 types");
        D4R_TRY(dot_types(m, p));
        D4R_TRY(finish(m));
        if (!add) return unsupported("vabsdiff4 is supported only in its reduction form (.add)");
        p.op = Op::AbsDiff4Add;
    } else {
        return unsupported(fmt::format("'{}' is not a packed integer instruction", base));
    }
    D4R_TRY(expect_operands(in, 1 + p.sources));
    return p;
}

} // namespace d4r::ptx
