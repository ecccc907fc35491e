// Packed integer SIMD: min/max on two 16-bit halves (.u16x2, .s16x2, .relu for .s16x2) and the dot
// products dp4a (four bytes) and dp2a (two halves times two bytes, .lo/.hi), every signedness form.
// Semantics are the PTX ISA's pseudo-code: each lane of a packed operand is zero- or sign-extended by its
// type, and dp4a/dp2a accumulate into c with 32-bit wrap-around (c is .s32 unless both types are .u32,
// which only matters for the extension of c, and a 32-bit sum wraps the same either way).
//
// Also vabsdiff4 in its reduction form (.add): d = c + the sum of the four byte lanes' |a - b|.
//
// Instr use: d[0] destination; s[0..2] sources in operand order.
#include "ptxsim/ops_simd.h"
#include "ptx/instr_simd.h"

#include <cstdint>

#include <fmt/format.h>

#include "ptxsim/lanes.h"

namespace d4r::ptxsim {

namespace {

template <bool Signed>
D4R_INLINE int32_t half_of(uint32_t v, unsigned k) {
    uint32_t h = (v >> (16 * k)) & 0xffffu;
    return Signed ? int32_t(int16_t(uint16_t(h))) : int32_t(h);
}

template <bool Signed>
D4R_INLINE int32_t byte_of(uint32_t v, unsigned k) {
    uint32_t b = (v >> (8 * k)) & 0xffu;
    return Signed ? int32_t(int8_t(uint8_t(b))) : int32_t(b);
}

template <bool Signed, bool IsMax, bool Relu>
Flow exec_minmax16x2(Warp& w, const Instr& in, uint32_t mask) {
    map2<uint32_t, uint32_t, uint32_t>(w, in, mask, [](uint32_t a, uint32_t b) {
        uint32_t r = 0;
        for (unsigned k = 0; k < 2; ++k) {
            int32_t x = half_of<Signed>(a, k), y = half_of<Signed>(b, k);
            int32_t v = IsMax ? (x > y ? x : y) : (x < y ? x : y);
            if (Relu && v < 0) v = 0;
            r |= (uint32_t(v) & 0xffffu) << (16 * k);
        }
        return r;
    });
    return Flow::Next;
}

template <bool SA, bool SB>
Flow exec_dp4a(Warp& w, const Instr& in, uint32_t mask) {
    map3<uint32_t, uint32_t, uint32_t, uint32_t>(w, in, mask, [](uint32_t a, uint32_t b, uint32_t c) {
        uint32_t acc = c;
        for (unsigned k = 0; k < 4; ++k) acc += uint32_t(byte_of<SA>(a, k) * byte_of<SB>(b, k));
        return acc;
    });
    return Flow::Next;
}

template <bool SA, bool SB, bool Hi>
Flow exec_dp2a(Warp& w, const Instr& in, uint32_t mask) {
    map3<uint32_t, uint32_t, uint32_t, uint32_t>(w, in, mask, [](uint32_t a, uint32_t b, uint32_t c) {
        constexpr unsigned sel = Hi ? 2 : 0;
        uint32_t acc = c;
        for (unsigned k = 0; k < 2; ++k) acc += uint32_t(half_of<SA>(a, k) * byte_of<SB>(b, sel + k));
        return acc;
    });
    return Flow::Next;
}

template <bool SA, bool SB>
Flow exec_vabsdiff4_add(Warp& w, const Instr& in, uint32_t mask) {
    map3<uint32_t, uint32_t, uint32_t, uint32_t>(w, in, mask, [](uint32_t a, uint32_t b, uint32_t c) {
        uint32_t acc = c;
        for (unsigned k = 0; k < 4; ++k) {
            int32_t diff = byte_of<SA>(a, k) - byte_of<SB>(b, k);
            acc += uint32_t(diff < 0 ? -diff : diff);
        }
        return acc;
    });
    return Flow::Next;
}

template <bool Hi>
ExecFn dp2a_fn(bool sa, bool sb) {
    if (sa) return sb ? &exec_dp2a<true, true, Hi> : &exec_dp2a<true, false, Hi>;
    return sb ? &exec_dp2a<false, true, Hi> : &exec_dp2a<false, false, Hi>;
}

template <bool Signed, bool IsMax>
ExecFn minmax_fn(bool relu) {
    return relu ? &exec_minmax16x2<Signed, IsMax, true> : &exec_minmax16x2<Signed, IsMax, false>;
}

} // namespace

namespace {

// The family's meaning is the front end's (ptx/instr_simd.h); here the handlers.
Status decode_simd(InstrDecoder& d) {
    const ptx::PackedInt p = D4R_TRY(d.typed(ptx::decode_simd));
    using Op = ptx::PackedInt::Op;
    const bool sa = p.a_signed, sb = p.b_signed;
    switch (p.op) {
    case Op::Dot4:
        return d.emit_op(sa ? (sb ? &exec_dp4a<true, true> : &exec_dp4a<true, false>)
                            : (sb ? &exec_dp4a<false, true> : &exec_dp4a<false, false>),
                         Type::B32, 3);
    case Op::Dot2:
        return d.emit_op(p.high ? dp2a_fn<true>(sa, sb) : dp2a_fn<false>(sa, sb), Type::B32, 3);
    case Op::AbsDiff4Add:
        return d.emit_op(sa ? (sb ? &exec_vabsdiff4_add<true, true> : &exec_vabsdiff4_add<true, false>)
                            : (sb ? &exec_vabsdiff4_add<false, true> : &exec_vabsdiff4_add<false, false>),
                         Type::B32, 3);
    case Op::Min:
    case Op::Max: {
        const bool is_max = p.op == Op::Max;
        ExecFn fn = p.halves_signed ? (is_max ? minmax_fn<true, true>(p.relu) : minmax_fn<true, false>(p.relu))
                                    : (is_max ? minmax_fn<false, true>(false) : minmax_fn<false, false>(false));
        return d.emit_op(fn, Type::B32, 2);
    }
    }
    return d.error("unknown packed integer operation");
}

} // namespace

bool is_simd_minmax(const Modifiers& m) { return ptx::is_packed_minmax(m); }

Status decode_simd_minmax(InstrDecoder& d) { return decode_simd(d); }

void add_simd_ops(OpcodeTable& t) {
    t["dp4a"] = &decode_simd;
    t["dp2a"] = &decode_simd;
    t["vabsdiff4"] = &decode_simd;
}

} // namespace d4r::ptxsim
