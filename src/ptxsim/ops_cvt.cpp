// cvt between every integer type and f16, bf16, f32, f64: integer rounding (.rni .rzi .rmi .rpi),
// floating rounding (.rn .rz .rm .rp), .ftz, .sat, .relu/.satfinite to f16/bf16; the packed
// cvt.rn.f16x2.f32 / bf16x2; f32 -> tf32 (.rna .rn .rz, .rna.satfinite); FP8 pairs (e4m3x2, e5m2x2) from
// two f32 or an f16x2 (.satfinite, .relu) and back to f16x2. NaN results follow the H200 goldens
// (docs/ptxsim.md, "Half precision and narrow conversions").
//
// Rules (PTX ISA, "cvt"): float-to-integer saturates to the destination range; NaN gives 0 for f32/f16 to
// 32 bits or less, and the sign-bit pattern for 64-bit destinations or f64 sources (measured, H200);
// integer-to-integer truncates or extends (by the source's signedness) unless .sat clamps; .sat on a
// float destination clamps to [0, 1] (NaN gives +0); f16/bf16 results are rounded in software.
//
// The rule of one lane of each form is in scalar_cvt.h (shared with the PTX JIT's helper); here the lane loops,
// the register widths and the dispatch.
//
// Instr use: d[0] result; s[0] (and s[1] for the packed forms) sources; flags = cvt_flags (scalar_cvt.h).
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ptx/instr_cvt.h"
#include "ptxsim/lanes.h"
#include "ptxsim/numerics.h"
#include "ptxsim/ops.h"
#include "ptxsim/scalar_cvt.h"

namespace d4r::ptxsim {

namespace {

template <Type DT, Type AT>
Flow exec_cvt(Warp& w, const Instr& in, uint32_t mask) {
    using D = typename Repr<DT>::type;
    using A = typename Repr<AT>::type;
    const Round fr = static_cast<Round>(in.flags & 0xf);
    const Round ir = static_cast<Round>((in.flags >> 4) & 0xf);
    const uint16_t flags = in.flags;
    RoundScope scope(cvt_scope_round<DT>(fr));
    map1<D, A>(w, in, mask, [fr, ir, flags](A a) { return convert<DT, AT>(a, fr, ir, flags); });
    return Flow::Next;
}

template <Type DT>
Flow exec_cvt_pack(Warp& w, const Instr& in, uint32_t mask) {
    const Round fr = static_cast<Round>(in.flags & 0xf);
    const uint16_t flags = in.flags;
    map2<uint32_t, float, float>(w, in, mask, [fr, flags](float a, float b) { return pack_lane<DT>(a, b, fr, flags); });
    return Flow::Next;
}

template <Round R, bool SatFinite>
Flow exec_cvt_tf32(Warp& w, const Instr& in, uint32_t mask) {
    map1<uint32_t, uint32_t>(w, in, mask, [](uint32_t a) { return tf32_lane<R, SatFinite>(a); });
    return Flow::Next;
}

template <bool E5M2>
Flow exec_cvt_f32_fp8x2(Warp& w, const Instr& in, uint32_t mask) {
    const bool relu = in.flags & kRelu;
    map2<uint32_t, float, float>(w, in, mask, [relu](float a, float b) { return f32_to_fp8x2(a, b, E5M2, relu); });
    return Flow::Next;
}

template <bool E5M2>
Flow exec_cvt_f16x2_fp8x2(Warp& w, const Instr& in, uint32_t mask) {
    const bool relu = in.flags & kRelu;
    map1<uint32_t, uint32_t>(w, in, mask, [relu](uint32_t a) { return f16x2_to_fp8x2(a, E5M2, relu); });
    return Flow::Next;
}

template <bool E5M2>
Flow exec_cvt_fp8x2_f16x2(Warp& w, const Instr& in, uint32_t mask) {
    const bool relu = in.flags & kRelu;
    map1<uint32_t, uint32_t>(w, in, mask, [relu](uint32_t a) { return fp8x2_to_f16x2(a, E5M2, relu); });
    return Flow::Next;
}

// Low 32 bits of a 64-bit register (a cvt source narrower than its register).
Flow exec_truncate(Warp& w, const Instr& in, uint32_t mask) {
    map1<uint32_t, uint64_t>(w, in, mask, [](uint64_t v) { return uint32_t(v); });
    return Flow::Next;
}

// A cvt result of `count` bits widened into a 64-bit register.
template <bool Signed>
Flow exec_extend(Warp& w, const Instr& in, uint32_t mask) {
    const unsigned shift = 64 - in.count;
    map1<uint64_t, uint32_t>(w, in, mask, [shift](uint32_t v) {
        uint64_t x = uint64_t(v) << shift;
        return Signed ? uint64_t(int64_t(x) >> shift) : x >> shift;
    });
    return Flow::Next;
}

// The FP8 forms (ptx::Cvt::Form::ToFp8 / FromFp8).
Status emit_cvt_fp8(InstrDecoder& d, const ptx::Cvt& c) {
    const uint16_t flags = c.relu ? kRelu : 0;
    if (c.form == ptx::Cvt::Form::ToFp8 && c.src == Type::F32) {
        uint32_t a = D4R_TRY(d.src(1, Type::F32)), b = D4R_TRY(d.src(2, Type::F32));
        uint32_t dd = D4R_TRY(d.dst(0, Type::B16));
        Instr& in = d.emit(c.e5m2 ? &exec_cvt_f32_fp8x2<true> : &exec_cvt_f32_fp8x2<false>);
        in.d[0] = dd;
        in.s[0] = a;
        in.s[1] = b;
        in.flags = flags;
        return ok_status();
    }
    const bool to_fp8 = c.form == ptx::Cvt::Form::ToFp8;
    uint32_t a = D4R_TRY(d.src(1, to_fp8 ? Type::B32 : Type::B16));
    uint32_t dd = D4R_TRY(d.dst(0, to_fp8 ? Type::B16 : Type::B32));
    Instr& in = d.emit(to_fp8 ? (c.e5m2 ? &exec_cvt_f16x2_fp8x2<true> : &exec_cvt_f16x2_fp8x2<false>)
                              : (c.e5m2 ? &exec_cvt_fp8x2_f16x2<true> : &exec_cvt_fp8x2_f16x2<false>));
    in.d[0] = dd;
    in.s[0] = a;
    in.flags = flags;
    return ok_status();
}

// cvt's meaning is the front end's (ptx/instr_cvt.h); here its handler and operands.
Status decode_cvt(InstrDecoder& d) {
    const ptx::Cvt c = D4R_TRY(d.typed(ptx::decode_cvt));
    if (c.form == ptx::Cvt::Form::ToFp8 || c.form == ptx::Cvt::Form::FromFp8) return emit_cvt_fp8(d, c);
    if (c.form == ptx::Cvt::Form::ToTf32) {
        uint32_t a = D4R_TRY(d.src(1, Type::B32));
        uint32_t dd = D4R_TRY(d.dst(0, Type::B32));
        Instr& in = d.emit(select_tf32(c.round.value_or(Round::Rn), c.satfinite,
                                       []<Round R, bool S>() -> ExecFn { return &exec_cvt_tf32<R, S>; }));
        in.d[0] = dd;
        in.s[0] = a;
        return ok_status();
    }
    if (c.form == ptx::Cvt::Form::Pack) {
        uint32_t a = D4R_TRY(d.src(1, Type::F32)), b = D4R_TRY(d.src(2, Type::F32));
        uint32_t dd = D4R_TRY(d.dst(0, Type::B32));
        Instr& in = d.emit(c.dst == Type::F16 ? &exec_cvt_pack<Type::F16> : &exec_cvt_pack<Type::BF16>);
        in.d[0] = dd;
        in.s[0] = a;
        in.s[1] = b;
        in.flags = cvt_flags(c);
        return ok_status();
    }
    const Type dt = c.dst, at = c.src;
    ExecFn fn = select_cvt<ExecFn>(dt, at, []<Type D, Type A>() -> ExecFn { return &exec_cvt<D, A>; });
    if (!fn) return d.error(fmt::format("cvt.{}.{} is not supported", type_name(dt), type_name(at)));
    // cvt allows registers wider than its types: a 64-bit source read as .s8 uses its low bits, a
    // 32-bit result written to a 64-bit register is extended by the destination type's signedness.
    const ast::Operand& so = d.operand(1);
    const ast::Operand& dop = d.operand(0);
    uint32_t a;
    auto narrow_from_wide = [&](const ast::Operand& o, Type t) -> Expected<bool> {
        if (o.kind != ast::OperandKind::Name || type_bits(t) == 64) return false;
        auto s = d.lookup(o.name);
        return s && s->kind == Symbol::Kind::Reg && s->wide;
    };
    if (D4R_TRY(narrow_from_wide(so, at))) {
        InstrDecoder::Reg r = D4R_TRY(d.reg(so));
        a = d.scratch(false);
        Instr& t = d.emit(&exec_truncate);
        t.d[0] = a;
        t.s[0] = r.offset;
    } else {
        a = D4R_TRY(d.src(1, at));
    }
    bool widen = D4R_TRY(narrow_from_wide(dop, dt));
    uint32_t dd = widen ? d.scratch(false) : D4R_TRY(d.dst(0, dt));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.flags = cvt_flags(c);
    if (widen) {
        InstrDecoder::Reg r = D4R_TRY(d.reg(dop));
        Instr& e = d.emit(is_signed(dt) ? &exec_extend<true> : &exec_extend<false>);
        e.d[0] = r.offset;
        e.s[0] = dd;
        e.count = static_cast<uint8_t>(type_bits(dt));
    }
    return ok_status();
}

} // namespace

void add_cvt_ops(OpcodeTable& t) { t["cvt"] = &decode_cvt; }

} // namespace d4r::ptxsim
