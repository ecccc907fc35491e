// Lowering integer arithmetic (lower.h) with the interpreter's rules (src/ptxsim/ops_int.cpp): division by zero gives
// all ones, a signed division by -1 wraps, shifts clamp at the width, .sat clamps to the s32 range, the carry chains
// (.cc, addc, subc, madc) keep one carry flag per thread, and the bit-field instructions (bfe bfi bfind bmsk prmt lop3
// shf fns) compute each case of the interpreter's code, with no shift in the IR ever as wide as its value (LLVM makes
// those poison).
#include <fmt/format.h>

#include "jit/lower_impl.h"

namespace d4r::jit {

namespace {

// A select of the unsigned minimum.
LLVMValueRef umin(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b) {
    return ir.select(ir.icmp(abi::D4R_LLVMIntULT, a, b), a, b);
}

// mul24/mad24 (exec_24): 24-bit operands (sign-extended for .s32), their 48-bit product; .lo bits 31..0, .hi 47..16.
LLVMValueRef mul24(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, bool is_signed, bool hi) {
    auto operand = [&](LLVMValueRef v) {
        LLVMValueRef k8 = ir.constant(ir.i32, 8);
        if (is_signed) return ir.sext(ir.ashr(ir.shl(v, k8), k8), ir.i64);
        return ir.zext(ir.and_(v, ir.constant(ir.i32, 0xffffff)), ir.i64);
    };
    LLVMValueRef p = ir.mul(operand(a), operand(b));
    return ir.trunc(hi ? ir.lshr(p, ir.constant(ir.i64, 16)) : p, ir.i32);
}

// bfind (exec_bfind): the position of the most significant non-sign bit (from the top with .shiftamt), all ones
// when there is none.
LLVMValueRef bfind(IrBuilder& ir, LLVMValueRef a, unsigned bits, bool is_signed, bool shift_amount) {
    LLVMTypeRef ty = ir.int_type(bits);
    LLVMValueRef u = a;
    if (is_signed) u = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, a, ir.constant(ty, 0)), ir.not_(a), a);
    LLVMValueRef lz = ir.resize(ir.intrinsic("llvm.ctlz", {ty}, {u, ir.constant(ir.i1, 0)}), 32, false);
    LLVMValueRef r = shift_amount ? lz : ir.sub(ir.constant(ir.i32, bits - 1), lz);
    return ir.select(ir.icmp(abi::D4R_LLVMIntEQ, u, ir.constant(ty, 0)), ir.constant(ir.i32, 0xffffffffu), r);
}

// The field mask of bfe/bfi (kFieldMask): position and length modulo 256 in the narrower forms, the whole 32-bit
// operands in the 64-bit forms.
uint64_t field_mask(unsigned bits) { return bits == 64 ? 0xffffffffull : 0xffull; }

// bfe (exec_bfe): LEN bits of A from POS, sign-extended from the field's last bit inside A for a signed type.
LLVMValueRef bfe(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, unsigned bits, bool is_signed) {
    LLVMTypeRef ty = ir.int_type(bits);
    auto k64 = [&](uint64_t v) { return ir.constant(ir.i64, v); };
    auto kt = [&](uint64_t v) { return ir.constant(ty, v); };
    const uint64_t msb = bits - 1;
    LLVMValueRef pos = ir.and_(ir.zext(b, ir.i64), k64(field_mask(bits)));
    LLVMValueRef len = ir.and_(ir.zext(c, ir.i64), k64(field_mask(bits)));
    LLVMValueRef outside = ir.icmp(abi::D4R_LLVMIntUGT, pos, k64(msb));
    LLVMValueRef pos_t = ir.trunc(ir.select(outside, k64(0), pos), ty); // below the width
    LLVMValueRef field = ir.select(outside, kt(0), ir.lshr(a, pos_t));
    LLVMValueRef avail = ir.select(outside, k64(0), ir.sub(k64(msb + 1), pos));
    LLVMValueRef n = umin(ir, len, avail);
    LLVMValueRef whole = ir.icmp(abi::D4R_LLVMIntUGE, n, k64(bits));
    LLVMValueRef n_t = ir.trunc(ir.select(whole, k64(0), n), ty);
    LLVMValueRef low = ir.select(whole, field, ir.and_(field, ir.sub(ir.shl(kt(1), n_t), kt(1))));
    if (!is_signed) return low;
    LLVMValueRef fill = ir.select(whole, kt(0), ir.shl(kt(~0ull), n_t));
    // The sign bit: bit min(pos + len - 1, msb) of A when len != 0 (pos + len - 1 wraps only for len 0).
    LLVMValueRef at = umin(ir, ir.sub(ir.add(pos, len), k64(1)), k64(msb));
    LLVMValueRef sbit = ir.and_(ir.lshr(a, ir.trunc(at, ty)), kt(1));
    LLVMValueRef negative = ir.and_(ir.icmp(abi::D4R_LLVMIntNE, len, k64(0)), ir.icmp(abi::D4R_LLVMIntNE, sbit, kt(0)));
    return ir.select(negative, ir.or_(low, fill), low);
}

// bfi (exec_bfi): B with LEN bits from POS replaced by A's low bits.
LLVMValueRef bfi(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, LLVMValueRef d, unsigned bits) {
    LLVMTypeRef ty = ir.int_type(bits);
    auto k64 = [&](uint64_t v) { return ir.constant(ir.i64, v); };
    auto kt = [&](uint64_t v) { return ir.constant(ty, v); };
    const uint64_t msb = bits - 1;
    LLVMValueRef pos = ir.and_(ir.zext(c, ir.i64), k64(field_mask(bits)));
    LLVMValueRef len = ir.and_(ir.zext(d, ir.i64), k64(field_mask(bits)));
    LLVMValueRef outside = ir.icmp(abi::D4R_LLVMIntUGT, pos, k64(msb));
    LLVMValueRef n = ir.select(outside, k64(0), umin(ir, len, ir.sub(k64(msb + 1), pos)));
    LLVMValueRef whole = ir.icmp(abi::D4R_LLVMIntUGE, n, k64(bits));
    LLVMValueRef n_t = ir.trunc(ir.select(whole, k64(0), n), ty);
    LLVMValueRef pos_t = ir.trunc(ir.select(outside, k64(0), pos), ty);
    LLVMValueRef m = ir.select(whole, kt(~0ull), ir.sub(ir.shl(kt(1), n_t), kt(1)));
    m = ir.shl(m, pos_t);
    LLVMValueRef r = ir.or_(ir.and_(b, ir.not_(m)), ir.and_(ir.shl(a, pos_t), m));
    return ir.select(ir.icmp(abi::D4R_LLVMIntEQ, n, k64(0)), b, r);
}

// bmsk (exec_bmsk): B bits set from bit A; .wrap takes both modulo 32, .clamp caps them at 32; bits from 32 on
// are cut off.
LLVMValueRef bmsk(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, bool clamp) {
    auto k = [&](uint64_t v) { return ir.constant(ir.i64, v); };
    auto part = [&](LLVMValueRef v) {
        LLVMValueRef w = ir.zext(v, ir.i64);
        return clamp ? umin(ir, w, k(32)) : ir.and_(w, k(31));
    };
    LLVMValueRef start = part(a), end = ir.add(start, part(b)); // both at most 64
    auto ones_from = [&](LLVMValueRef at) {                     // ~0 << at in 32 bits, 0 from 32 on
        LLVMValueRef safe = ir.select(ir.icmp(abi::D4R_LLVMIntUGE, at, k(32)), k(0), at);
        return ir.select(ir.icmp(abi::D4R_LLVMIntUGE, at, k(32)), k(0), ir.shl(k(0xffffffffull), safe));
    };
    return ir.trunc(ir.and_(ones_from(start), ir.not_(ones_from(end))), ir.i32);
}

// prmt (exec_prmt): four bytes picked from the eight of {b, a}; the generic form by C's nibbles (bit 3: the
// picked byte's sign replicated), the other modes by their tables at c[1:0].
LLVMValueRef prmt(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, unsigned mode) {
    auto k64 = [&](uint64_t v) { return ir.constant(ir.i64, v); };
    LLVMValueRef src = ir.or_(ir.shl(ir.zext(b, ir.i64), k64(32)), ir.zext(a, ir.i64));
    LLVMValueRef c64 = ir.zext(c, ir.i64);
    LLVMValueRef r = k64(0);
    for (unsigned k = 0; k < 4; ++k) {
        LLVMValueRef sel;
        if (mode == 0) {
            sel = ir.and_(ir.lshr(c64, k64(4 * k)), k64(0xf));
        } else {
            LLVMValueRef which = ir.and_(c64, k64(3));
            sel = k64(ptx::kPrmtModes[mode - 1][3][k]);
            for (unsigned row = 3; row-- > 0;)
                sel = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, which, k64(row)), k64(ptx::kPrmtModes[mode - 1][row][k]),
                                sel);
        }
        LLVMValueRef byte = ir.and_(ir.lshr(src, ir.shl(ir.and_(sel, k64(7)), k64(3))), k64(0xff));
        if (mode == 0) {
            LLVMValueRef sign =
                ir.select(ir.icmp(abi::D4R_LLVMIntNE, ir.and_(byte, k64(0x80)), k64(0)), k64(0xff), k64(0));
            byte = ir.select(ir.icmp(abi::D4R_LLVMIntNE, ir.and_(sel, k64(8)), k64(0)), sign, byte);
        }
        r = ir.or_(r, ir.shl(byte, k64(8 * k)));
    }
    return ir.trunc(r, ir.i32);
}

// lop3 (exec_lop3): the OR of the minterms the lookup table names.
LLVMValueRef lop3(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, uint8_t lut) {
    LLVMValueRef r = ir.constant(ir.i32, 0);
    for (unsigned k = 0; k < 8; ++k) {
        if (!(lut & (1u << k))) continue;
        // Minterm K: a where bit 2 of K is set, ~a where it is clear (b: bit 1, c: bit 0).
        LLVMValueRef x = (k & 4) ? a : ir.not_(a), y = (k & 2) ? b : ir.not_(b), z = (k & 1) ? c : ir.not_(c);
        r = ir.or_(r, ir.and_(ir.and_(x, y), z));
    }
    return r;
}

// shf (exec_shf): the 64-bit {b, a} shifted by C (.wrap: modulo 32, .clamp: at most 32); .l the high word, .r the
// low one.
LLVMValueRef shf(IrBuilder& ir, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c, bool left, bool clamp) {
    LLVMValueRef n = clamp ? umin(ir, c, ir.constant(ir.i32, 32)) : ir.and_(c, ir.constant(ir.i32, 31));
    LLVMValueRef v = ir.or_(ir.shl(ir.zext(b, ir.i64), ir.constant(ir.i64, 32)), ir.zext(a, ir.i64));
    LLVMValueRef n64 = ir.zext(n, ir.i64);
    if (left) return ir.trunc(ir.lshr(ir.shl(v, n64), ir.constant(ir.i64, 32)), ir.i32);
    return ir.trunc(ir.lshr(v, n64), ir.i32);
}

// fns (find_nth_set): the |OFF|-th set bit of MASK from bit BASE up (OFF > 0) or down (OFF < 0), BASE included;
// OFF 0 tests bit BASE; all ones when there is none or BASE is above 31. Downwards is upwards in the bit-reversed
// mask; dropping the lowest set bit |OFF| - 1 times is unrolled (|OFF| <= 32 here).
LLVMValueRef fns(IrBuilder& ir, LLVMValueRef mask, LLVMValueRef base, LLVMValueRef off) {
    auto k = [&](uint64_t v) { return ir.constant(ir.i32, v); };
    LLVMValueRef none = k(0xffffffffu);
    LLVMValueRef b = ir.and_(base, k(31)); // BASE where it matters (above 31 finds nothing)
    LLVMValueRef up = ir.icmp(abi::D4R_LLVMIntSGT, off, k(0));
    LLVMValueRef n = ir.select(up, off, ir.sub(k(0), off)); // |OFF|, INT_MIN included
    LLVMValueRef above = ir.and_(mask, ir.shl(k(0xffffffffu), b));
    // Bits 0..BASE: (2 << BASE) - 1, all of them when BASE is 31.
    LLVMValueRef low_mask = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, b, k(31)), none, ir.sub(ir.shl(k(2), b), k(1)));
    LLVMValueRef below = ir.intrinsic("llvm.bitreverse", {ir.i32}, {ir.and_(mask, low_mask)});
    LLVMValueRef m = ir.select(up, above, below);
    for (unsigned step = 1; step < 32; ++step)
        m = ir.select(ir.icmp(abi::D4R_LLVMIntULT, k(step), n), ir.and_(m, ir.sub(m, k(1))), m);
    LLVMValueRef tz = ir.intrinsic("llvm.cttz", {ir.i32}, {m, ir.constant(ir.i1, 0)});
    LLVMValueRef found = ir.select(up, tz, ir.sub(k(31), tz));
    LLVMValueRef r = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, m, k(0)), none, found);
    r = ir.select(ir.icmp(abi::D4R_LLVMIntUGT, n, k(32)), none, r);
    LLVMValueRef at_base = ir.and_(ir.lshr(mask, b), k(1));
    LLVMValueRef zero_off = ir.select(ir.icmp(abi::D4R_LLVMIntNE, at_base, k(0)), b, none);
    r = ir.select(ir.icmp(abi::D4R_LLVMIntEQ, off, k(0)), zero_off, r);
    return ir.select(ir.icmp(abi::D4R_LLVMIntUGT, base, k(31)), none, r);
}

} // namespace

// ops_cvt.cpp's convert() with .sat between integers: a signed source clamps to TO's minimum (0 when unsigned) and,
// unless TO is u64/b64, its maximum; an unsigned source to TO's maximum.
LLVMValueRef Lowering::saturate_int(LLVMValueRef a, Type from, Type to) {
    const unsigned bits = ptx::type_bits(to);
    const bool to_signed = ptx::is_signed(to);
    const uint64_t hi = to_signed ? (1ull << (bits - 1)) - 1 : bits == 64 ? ~0ull : (1ull << bits) - 1;
    LLVMValueRef top = ir.constant(ir.i64, hi);
    LLVMValueRef v;
    if (ptx::is_signed(from)) {
        v = ir.resize(a, 64, true);
        LLVMValueRef lo = ir.constant(ir.i64, to_signed ? ~hi : 0); // -2^(bits-1) or 0
        v = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, v, lo), lo, v);
        if (to_signed || bits < 64) v = ir.select(ir.icmp(abi::D4R_LLVMIntSGT, v, top), top, v);
    } else {
        v = ir.resize(a, 64, false);
        v = ir.select(ir.icmp(abi::D4R_LLVMIntUGT, v, top), top, v);
    }
    return ir.resize(v, bits, false);
}

LLVMValueRef Lowering::carry_slot() {
    if (!m_carry) m_carry = ir.zeroed_slot(slot_type(1)); // the interpreter's carry starts clear (each lane's)
    return m_carry;
}

// add.cc sub.cc addc subc mad.cc madc as exec_carry computes them: unsigned arithmetic of the width, a carry (add)
// or borrow (sub) in and out of the thread's flag; mad's addend is the low or high half of the unsigned product.
Status Lowering::lower_carry(const ptx::IntArith& op, const std::vector<LLVMValueRef>& s) {
    using Op = ptx::IntArith::Op;
    const bool carry_in = op.op == Op::AddC || op.op == Op::SubC || op.op == Op::MadC;
    const bool subtract = op.op == Op::Sub || op.op == Op::SubC;
    const bool mad = op.op == Op::Mad || op.op == Op::MadC;
    const unsigned bits = ptx::type_bits(op.type);
    if (bits != 32 && bits != 64) return refuse("a carry of this width");
    if (mad && op.mode == ptx::IntArith::Mode::Wide) return refuse("mad.wide with a carry");
    LLVMTypeRef ty = ir.int_type(bits);
    LLVMValueRef x = s[0], y = s[1];
    if (mad) {
        LLVMTypeRef wide = ir.int_type(bits * 2);
        LLVMValueRef p = ir.mul(ir.zext(x, wide), ir.zext(y, wide));
        x = op.mode == ptx::IntArith::Mode::Hi ? ir.trunc(ir.lshr(p, ir.constant(wide, bits)), ty) : ir.trunc(p, ty);
        y = s[2];
    }
    LLVMValueRef cin = carry_in ? ir.load(slot_type(1), carry_slot()) : ir.constant(ir.i1, 0);
    LLVMValueRef ci = ir.zext(cin, ty);
    LLVMValueRef r, out;
    if (subtract) {
        r = ir.sub(ir.sub(x, y), ci);
        out = ir.or_(ir.icmp(abi::D4R_LLVMIntULT, x, y), ir.and_(ir.icmp(abi::D4R_LLVMIntEQ, x, y), cin));
    } else {
        LLVMValueRef sum = ir.add(x, y);
        r = ir.add(sum, ci);
        out = ir.or_(ir.icmp(abi::D4R_LLVMIntULT, sum, x), ir.icmp(abi::D4R_LLVMIntULT, r, sum));
    }
    D4R_TRY(assign(current->operands[0], op.dst, r));
    if (op.cc) { // warp code: the lanes that run it set their carry
        if (warp) out = ir.select(exec_lanes(), out, ir.load(slot_type(1), carry_slot()));
        ir.store(out, carry_slot());
    }
    return ok_status();
}

// --- integers ---

Status Lowering::lower_int(const ptx::IntArith& op) {
    using Op = ptx::IntArith::Op;
    using Mode = ptx::IntArith::Mode;
    const ast::Instruction& in = *current;
    const Type t = op.type;
    const unsigned bits = ptx::type_bits(t);
    const bool sgn = ptx::is_signed(t);
    if (bits != 16 && bits != 32 && bits != 64) return refuse("an integer width the JIT does not lower");
    if (in.operands.size() < 1 + op.sources) return refuse("missing operands");
    std::vector<LLVMValueRef> s;
    for (unsigned k = 0; k < op.sources; ++k) s.push_back(D4R_TRY(value(in.operands[1 + k], op.src[k])));
    // The interpreter's order: add/sub.cc before .sat, mad.wide and mad.hi.sat before .cc (the front end allows
    // neither pair).
    const bool mad_plain = op.op == Op::Mad && (op.mode == Mode::Wide || op.sat);
    if ((op.cc && !mad_plain) || op.op == Op::AddC || op.op == Op::SubC || op.op == Op::MadC) return lower_carry(op, s);
    LLVMTypeRef ty = ir.int_type(bits);
    auto kc = [&](uint64_t v) { return ir.constant(ty, v); };
    auto widen = [&](LLVMValueRef v) { return ir.resize(v, bits * 2, sgn); };
    auto high = [&](LLVMValueRef a, LLVMValueRef b) { // the high half of the double-width product
        LLVMValueRef p = ir.mul(widen(a), widen(b));
        return ir.trunc(ir.lshr(p, ir.constant(ir.int_type(bits * 2), bits)), ty);
    };
    auto clamp_s32 = [&](LLVMValueRef wide64) { // an i64 clamped to the s32 range, as an i32
        LLVMValueRef lo = ir.constant(ir.i64, static_cast<uint64_t>(int64_t(INT32_MIN)));
        LLVMValueRef hi = ir.constant(ir.i64, INT32_MAX);
        LLVMValueRef v = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, wide64, lo), lo, wide64);
        return ir.trunc(ir.select(ir.icmp(abi::D4R_LLVMIntSGT, v, hi), hi, v), ir.i32);
    };
    LLVMValueRef r = nullptr;
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
        if (op.sat) {
            LLVMValueRef a = ir.sext(s[0], ir.i64), b = ir.sext(s[1], ir.i64);
            r = clamp_s32(op.op == Op::Add ? ir.add(a, b) : ir.sub(a, b));
        } else {
            r = op.op == Op::Add ? ir.add(s[0], s[1]) : ir.sub(s[0], s[1]);
        }
        break;
    case Op::Mul:
        if (op.mode == Mode::Hi)
            r = high(s[0], s[1]);
        else if (op.mode == Mode::Wide)
            r = ir.mul(widen(s[0]), widen(s[1]));
        else
            r = ir.mul(s[0], s[1]);
        break;
    case Op::Mad:
        if (op.mode == Mode::Hi && op.sat) {
            LLVMValueRef p = ir.ashr(ir.mul(ir.sext(s[0], ir.i64), ir.sext(s[1], ir.i64)), ir.constant(ir.i64, 32));
            r = clamp_s32(ir.add(p, ir.sext(s[2], ir.i64)));
        } else if (op.mode == Mode::Hi) {
            r = ir.add(high(s[0], s[1]), s[2]);
        } else if (op.mode == Mode::Wide) {
            r = ir.add(ir.mul(widen(s[0]), widen(s[1])), s[2]);
        } else {
            r = ir.add(ir.mul(s[0], s[1]), s[2]);
        }
        break;
    case Op::Div:
    case Op::Rem: {
        // By zero: all ones; signed by -1: the wrapped negation (div) or 0 (rem). The divisor LLVM sees is never 0
        // or -1 (both undefined there).
        LLVMValueRef zero = ir.icmp(abi::D4R_LLVMIntEQ, s[1], kc(0));
        LLVMValueRef minus = sgn ? ir.icmp(abi::D4R_LLVMIntEQ, s[1], kc(~0ull)) : ir.constant(ir.i1, 0);
        LLVMValueRef safe = ir.select(ir.or_(zero, minus), kc(1), s[1]);
        LLVMValueRef q;
        if (op.op == Op::Div)
            q = sgn ? ir.sdiv(s[0], safe) : ir.udiv(s[0], safe);
        else
            q = sgn ? ir.srem(s[0], safe) : ir.urem(s[0], safe);
        LLVMValueRef by_minus = op.op == Op::Div ? ir.sub(kc(0), s[0]) : kc(0);
        r = ir.select(zero, kc(~0ull), ir.select(minus, by_minus, q));
        break;
    }
    case Op::Abs:
        r = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, s[0], kc(0)), ir.sub(kc(0), s[0]), s[0]);
        break;
    case Op::Neg:
        r = ir.sub(kc(0), s[0]);
        break;
    case Op::Min:
    case Op::Max: {
        const bool is_max = op.op == Op::Max;
        int pred = is_max ? (sgn ? abi::D4R_LLVMIntSGT : abi::D4R_LLVMIntUGT)
                          : (sgn ? abi::D4R_LLVMIntSLT : abi::D4R_LLVMIntULT);
        r = ir.select(ir.icmp(pred, s[0], s[1]), s[0], s[1]);
        if (op.relu) r = ir.select(ir.icmp(abi::D4R_LLVMIntSLT, r, kc(0)), kc(0), r);
        break;
    }
    case Op::And:
        r = ir.and_(s[0], s[1]);
        break;
    case Op::Or:
        r = ir.or_(s[0], s[1]);
        break;
    case Op::Xor:
        r = ir.xor_(s[0], s[1]);
        break;
    case Op::Not:
        r = ir.not_(s[0]);
        break;
    case Op::Cnot:
        r = ir.zext(ir.icmp(abi::D4R_LLVMIntEQ, s[0], kc(0)), ty);
        break;
    case Op::Shl:
    case Op::Shr: {
        // Amounts of the width or more clamp to the width.
        LLVMValueRef amount = s[1]; // .u32
        LLVMValueRef over = ir.icmp(abi::D4R_LLVMIntUGE, amount, ir.constant(ir.i32, bits));
        LLVMValueRef safe = ir.resize(ir.select(over, ir.constant(ir.i32, 0), amount), bits, false);
        if (op.op == Op::Shl)
            r = ir.select(over, kc(0), ir.shl(s[0], safe));
        else if (sgn)
            r = ir.select(over, ir.ashr(s[0], kc(bits - 1)), ir.ashr(s[0], safe));
        else
            r = ir.select(over, kc(0), ir.lshr(s[0], safe));
        break;
    }
    case Op::Popc:
        r = ir.resize(ir.intrinsic("llvm.ctpop", {ty}, {s[0]}), 32, false);
        break;
    case Op::Clz:
        r = ir.resize(ir.intrinsic("llvm.ctlz", {ty}, {s[0], ir.constant(ir.i1, 0)}), 32, false);
        break;
    case Op::Brev:
        r = ir.intrinsic("llvm.bitreverse", {ty}, {s[0]});
        break;
    case Op::Mul24:
    case Op::Mad24:
        r = mul24(ir, s[0], s[1], sgn, op.mode == Mode::Hi);
        if (op.op == Op::Mad24) r = ir.add(r, s[2]);
        break;
    case Op::Sad: { // c + |a - b|, the difference taken as unsigned
        LLVMValueRef less = ir.icmp(sgn ? abi::D4R_LLVMIntSLT : abi::D4R_LLVMIntULT, s[0], s[1]);
        r = ir.add(s[2], ir.select(less, ir.sub(s[1], s[0]), ir.sub(s[0], s[1])));
        break;
    }
    case Op::Bfind:
        r = bfind(ir, s[0], bits, sgn, op.shift_amount);
        break;
    case Op::Bfe:
        r = bfe(ir, s[0], s[1], s[2], bits, sgn);
        break;
    case Op::Bfi:
        r = bfi(ir, s[0], s[1], s[2], s[3], bits);
        break;
    case Op::Bmsk:
        r = bmsk(ir, s[0], s[1], op.clamp);
        break;
    case Op::Prmt:
        if (op.permute > 6) return refuse("an unknown prmt mode");
        r = prmt(ir, s[0], s[1], s[2], op.permute);
        break;
    case Op::Lop3:
        r = lop3(ir, s[0], s[1], s[2], op.lut);
        break;
    case Op::Shf:
        r = shf(ir, s[0], s[1], s[2], op.left, op.clamp);
        break;
    case Op::Fns:
        r = fns(ir, s[0], s[1], s[2]);
        break;
    default:
        return refuse("this integer instruction is not compiled yet");
    }
    return assign(in.operands[0], op.dst, r);
}

} // namespace d4r::jit
