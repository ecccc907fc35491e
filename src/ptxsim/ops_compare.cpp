// Comparisons and selection: setp (every comparison, .and/.or/.xor combining, two destinations), set,
// selp, slct, and predicate logic (and/or/xor/not on .pred).
//
// Instr use: s[0], s[1] compared values (set/setp), s[2] slct's selector; pd[0], pd[1] setp's results;
// ps[0] the combining predicate (setp/set) or selp's selector; flags = comparison | bool op << 8.
#include <cmath>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

#include "ptx/instr_compare.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/lanes.h"
#include "ptxsim/numerics.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

// The comparison and its combining op are the front end's (ptx/instr_compare.h); flags holds their values.
using Cmp = ptx::Compare::Cmp;
using BoolOp = ptx::Compare::Combine;

// Fills r[i] (0 or all ones) with the comparison of every lane; one loop per comparison so each vectorises.
template <class T>
D4R_INLINE void compare_lanes(Cmp c, const T (&a)[32], const T (&b)[32], uint32_t (&r)[32]) {
#define D4R_CMP_LOOP(expr)                \
    for (int i = 0; i < 32; ++i) {        \
        T x = a[i], y = b[i];             \
        r[i] = (expr) ? 0xffffffffu : 0u; \
    }                                     \
    break;
    if constexpr (std::is_floating_point_v<T>) {
        switch (c) {
        case Cmp::Eq:
            D4R_CMP_LOOP(x == y)
        case Cmp::Ne:
            D4R_CMP_LOOP(x < y || x > y)
        case Cmp::Lt:
            D4R_CMP_LOOP(x < y)
        case Cmp::Le:
            D4R_CMP_LOOP(x <= y)
        case Cmp::Gt:
            D4R_CMP_LOOP(x > y)
        case Cmp::Ge:
            D4R_CMP_LOOP(x >= y)
        case Cmp::Equ:
            D4R_CMP_LOOP(!(x < y || x > y))
        case Cmp::Neu:
            D4R_CMP_LOOP(!(x == y))
        case Cmp::Ltu:
            D4R_CMP_LOOP(!(x >= y))
        case Cmp::Leu:
            D4R_CMP_LOOP(!(x > y))
        case Cmp::Gtu:
            D4R_CMP_LOOP(!(x <= y))
        case Cmp::Geu:
            D4R_CMP_LOOP(!(x < y))
        case Cmp::Num:
            D4R_CMP_LOOP(x == x && y == y)
        case Cmp::Nan:
            D4R_CMP_LOOP(x != x || y != y)
        default:
            for (int i = 0; i < 32; ++i) r[i] = 0;
            break;
        }
    } else {
        switch (c) {
        case Cmp::Eq:
            D4R_CMP_LOOP(x == y)
        case Cmp::Ne:
            D4R_CMP_LOOP(x != y)
        case Cmp::Lt:
        case Cmp::Lo:
            D4R_CMP_LOOP(x < y)
        case Cmp::Le:
        case Cmp::Ls:
            D4R_CMP_LOOP(x <= y)
        case Cmp::Gt:
        case Cmp::Hi:
            D4R_CMP_LOOP(x > y)
        default:
            D4R_CMP_LOOP(x >= y)
        }
    }
#undef D4R_CMP_LOOP
}

template <class T, bool Ftz>
D4R_INLINE uint32_t compare_mask(Warp& w, const Instr& in) {
    T a[32], b[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    if constexpr (Ftz) {
        for (int i = 0; i < 32; ++i) {
            a[i] = flush(a[i]);
            b[i] = flush(b[i]);
        }
    }
    uint32_t r[32];
    compare_lanes<T>(static_cast<Cmp>(in.flags & 0xff), a, b, r);
    return pack_mask(r);
}

D4R_INLINE uint32_t combine(uint32_t v, const Warp& w, const Instr& in) {
    BoolOp op = static_cast<BoolOp>(in.flags >> 8);
    if (op == BoolOp::None) return v;
    uint32_t c = read_pred(w, in.ps[0], in.ps_neg[0]);
    return op == BoolOp::And ? (v & c) : op == BoolOp::Or ? (v | c) : (v ^ c);
}

template <class T, bool Ftz>
Flow exec_setp(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t v = compare_mask<T, Ftz>(w, in);
    write_pred(w, in.pd[0], combine(v, w, in), mask);
    if (in.pd[1] >= 0) write_pred(w, in.pd[1], combine(~v, w, in), mask);
    return Flow::Next;
}

// set: d = all ones (integer destination) or 1.0f (f32 destination) when the combined test holds.
template <class T, bool Ftz, bool FloatDst>
Flow exec_set(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t v = combine(compare_mask<T, Ftz>(w, in), w, in);
    uint32_t r[32];
    const uint32_t one = FloatDst ? 0x3f800000u : 0xffffffffu;
    for (int i = 0; i < 32; ++i) r[i] = (v & lane_bit(i)) ? one : 0u;
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

// f16/bf16 comparisons: the halves are widened to f32 (exactly) and compared like f32. Packed forms
// compare the low halves into the first result (p, or d's low half) and the high halves into the
// second (q, or d's high half).
template <bool BF, bool Ftz>
D4R_INLINE uint32_t compare_half_mask(const Instr& in, const uint32_t (&a)[32], const uint32_t (&b)[32],
                                      unsigned shift) {
    float x[32], y[32];
    for (int i = 0; i < 32; ++i) {
        uint32_t ha = (a[i] >> shift) & 0xffffu, hb = (b[i] >> shift) & 0xffffu;
        if constexpr (Ftz) {
            ha = HalfTraits<BF>::flush(ha);
            hb = HalfTraits<BF>::flush(hb);
        }
        x[i] = HalfTraits<BF>::to_float(ha);
        y[i] = HalfTraits<BF>::to_float(hb);
    }
    uint32_t r[32];
    compare_lanes<float>(static_cast<Cmp>(in.flags & 0xff), x, y, r);
    return pack_mask(r);
}

template <bool BF, bool Packed, bool Ftz>
Flow exec_setp_half(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t a[32], b[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    const uint32_t lo = compare_half_mask<BF, Ftz>(in, a, b, 0);
    write_pred(w, in.pd[0], combine(lo, w, in), mask);
    if constexpr (Packed) {
        const uint32_t hi = compare_half_mask<BF, Ftz>(in, a, b, 16);
        write_pred(w, in.pd[1], combine(hi, w, in), mask);
    } else {
        if (in.pd[1] >= 0) write_pred(w, in.pd[1], combine(~lo, w, in), mask);
    }
    return Flow::Next;
}

// set with half sources: d = in.aux (the destination's "true": all ones, 1.0 in its format) where the
// combined test holds, per element (per half for packed sources).
template <bool BF, bool Packed, bool Ftz>
Flow exec_set_half(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t a[32], b[32], r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    const uint32_t one = static_cast<uint32_t>(in.aux);
    const uint32_t lo = combine(compare_half_mask<BF, Ftz>(in, a, b, 0), w, in);
    uint32_t hi = 0;
    if constexpr (Packed) hi = combine(compare_half_mask<BF, Ftz>(in, a, b, 16), w, in);
    for (int i = 0; i < 32; ++i) {
        const uint32_t l = (lo & lane_bit(i)) ? one : 0u;
        if constexpr (Packed)
            r[i] = (l & 0xffffu) | ((hi & lane_bit(i)) ? one & 0xffff0000u : 0u);
        else
            r[i] = l;
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

template <class S>
Flow exec_selp(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t c = read_pred(w, in.ps[0], in.ps_neg[0]);
    S a[32], b[32], r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    for (int i = 0; i < 32; ++i) r[i] = (c & lane_bit(i)) ? a[i] : b[i];
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

// slct: d = c >= 0 ? a : b, with c .s32 or .f32 (-0.0 >= 0 holds; NaN selects b).
template <class S, class C, bool Ftz>
Flow exec_slct(Warp& w, const Instr& in, uint32_t mask) {
    S a[32], b[32], r[32];
    C c[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    read_lanes(w, in.s[2], c);
    for (int i = 0; i < 32; ++i) {
        C v = c[i];
        if constexpr (Ftz) v = flush(v);
        r[i] = v >= C(0) ? a[i] : b[i];
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

Flow exec_pred_logic(Warp& w, const Instr& in, uint32_t mask) {
    const uint32_t a = in.flags == 5 ? 0 : read_pred(w, in.ps[0], in.ps_neg[0]);
    uint32_t r;
    switch (in.flags) {
    case 0:
        r = a & read_pred(w, in.ps[1], in.ps_neg[1]);
        break;
    case 1:
        r = a | read_pred(w, in.ps[1], in.ps_neg[1]);
        break;
    case 2:
        r = a ^ read_pred(w, in.ps[1], in.ps_neg[1]);
        break;
    case 3:
        r = ~a;
        break;
    case 4:
        r = a;
        break;
    default: // 5: a constant, in imm
        r = in.imm ? ~0u : 0u;
        break;
    }
    write_pred(w, in.pd[0], r, mask);
    return Flow::Next;
}

// ----- handler selection: type suffix and modifiers to template instantiations (dispatch.h) -----

// PICK.operator()<T, Ftz>() for the comparison's type: signed types compare as unsigned under lo/ls/hi/hs;
// .ftz applies to .f32 only.
template <class Pick>
ExecFn cmp_fn(Type t, bool ftz, Cmp c, const Pick& pick) {
    const bool unsigned_cmp = c == Cmp::Lo || c == Cmp::Ls || c == Cmp::Hi || c == Cmp::Hs;
    return by_type < kIntTypes |
           kFloatTypes > (t, [&]<class T>(TypeTag<T>) -> ExecFn {
               if constexpr (std::is_same_v<T, float>)
                   return ftz ? pick.template operator()<T, true>() : pick.template operator()<T, false>();
               else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
                   return unsigned_cmp ? pick.template operator()<std::make_unsigned_t<T>, false>()
                                       : pick.template operator()<T, false>();
               else
                   return pick.template operator()<T, false>();
           });
}

// PICK.operator()<BF, Packed, Ftz>() for a half-precision type; .ftz applies to .f16 and .f16x2 only.
template <class Pick>
ExecFn half_cmp_fn(Type t, bool ftz, const Pick& pick) {
    return by_type<kHalfTypes>(t, [&]<class H>(TypeTag<H>) -> ExecFn {
        if constexpr (H::kBF)
            return pick.template operator()<true, H::kPacked, false>();
        else
            return ftz ? pick.template operator()<false, H::kPacked, true>()
                       : pick.template operator()<false, H::kPacked, false>();
    });
}

// ----- decoders: the family's meaning is the front end's (ptx/instr_compare.h); here the handler and operands -----

uint16_t compare_flags(const ptx::Compare& c) {
    return static_cast<uint16_t>(static_cast<uint16_t>(c.cmp) | (static_cast<uint16_t>(c.combine) << 8));
}

// The combining predicate of a setp or set, its last operand ({-1, false} when it combines nothing).
Expected<std::pair<int16_t, bool>> combining_pred(InstrDecoder& d, const ptx::Compare& c) {
    if (c.combine == BoolOp::None) return std::pair<int16_t, bool>{-1, false};
    return d.pred_src(d.operand(c.sources));
}

// The registers' width of a half type (immediates of .b16/.b32 are taken as bits).
Type half_reg(Type t) { return (t == Type::F16x2 || t == Type::BF16x2) ? Type::B32 : Type::B16; }

Status emit_setp(InstrDecoder& d, const ptx::Compare& c) {
    Type t = c.type;
    const bool half = is_half_type(t);
    ExecFn fn = half ? half_cmp_fn(t, c.ftz, []<bool BF, bool P, bool F>() { return &exec_setp_half<BF, P, F>; })
                     : cmp_fn(t, c.ftz, c.cmp, []<class T, bool F>() { return &exec_setp<T, F>; });
    if (!fn) return d.error(fmt::format("setp.{} is not supported", type_name(t)));
    if (half) t = half_reg(t);
    const ast::Operand& dst = d.operand(0);
    int16_t p = -1, q = -1;
    if (c.dst_kind == ptx::Compare::Dst::PredPair) {
        ast::Operand a = dst, b = dst;
        a.kind = b.kind = ast::OperandKind::Name;
        b.name = dst.name2;
        p = D4R_TRY(d.pred_dst(a));
        q = D4R_TRY(d.pred_dst(b));
    } else {
        p = D4R_TRY(d.pred_dst(dst));
    }
    uint32_t a = D4R_TRY(d.src(1, t)), b = D4R_TRY(d.src(2, t));
    const std::pair<int16_t, bool> cp = D4R_TRY(combining_pred(d, c));
    Instr& in = d.emit(fn);
    in.pd[0] = p;
    in.pd[1] = q;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = cp.first;
    in.ps_neg[0] = cp.second;
    in.flags = compare_flags(c);
    return ok_status();
}

// set with a half-precision source: the destination's "true" (all ones, 1.0 in its format; per half for packed
// sources) goes into aux.
Status emit_set_half(InstrDecoder& d, const ptx::Compare& c) {
    const uint64_t one = ptx::set_half_true_bits(c.dst);
    if (one == 0) return d.error(fmt::format("set.{}.{} is not a PTX form", type_name(c.dst), type_name(c.type)));
    ExecFn fn = half_cmp_fn(c.type, c.ftz, []<bool BF, bool P, bool F>() { return &exec_set_half<BF, P, F>; });
    const Type sreg = half_reg(c.type);
    uint32_t a = D4R_TRY(d.src(1, sreg)), b = D4R_TRY(d.src(2, sreg));
    const std::pair<int16_t, bool> cp = D4R_TRY(combining_pred(d, c));
    uint32_t dd = D4R_TRY(d.dst(0, type_bits(c.dst) == 16 ? Type::B16 : Type::B32));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = cp.first;
    in.ps_neg[0] = cp.second;
    in.aux = one;
    in.flags = compare_flags(c);
    return ok_status();
}

Status emit_set(InstrDecoder& d, const ptx::Compare& c) {
    if (is_half_type(c.type)) return emit_set_half(d, c);
    const Type st = c.type;
    ExecFn fn = c.dst == Type::F32 ? cmp_fn(st, c.ftz, c.cmp, []<class T, bool F>() { return &exec_set<T, F, true>; })
                                   : cmp_fn(st, c.ftz, c.cmp, []<class T, bool F>() { return &exec_set<T, F, false>; });
    if (!fn) return d.error(fmt::format("set with source .{} is not supported", type_name(st)));
    uint32_t a = D4R_TRY(d.src(1, st)), b = D4R_TRY(d.src(2, st));
    const std::pair<int16_t, bool> cp = D4R_TRY(combining_pred(d, c));
    uint32_t dd = D4R_TRY(d.dst(0, c.dst));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = cp.first;
    in.ps_neg[0] = cp.second;
    in.flags = compare_flags(c);
    return ok_status();
}

Status emit_selp(InstrDecoder& d, const ptx::Compare& c) {
    const Type t = c.type;
    uint32_t a = D4R_TRY(d.src(1, t)), b = D4R_TRY(d.src(2, t));
    auto p = D4R_TRY(d.pred_src(d.operand(3)));
    uint32_t dd = D4R_TRY(d.dst(0, t));
    Instr& in = d.emit(type_bits(t) == 64 ? &exec_selp<uint64_t> : &exec_selp<uint32_t>);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = p.first;
    in.ps_neg[0] = p.second;
    return ok_status();
}

Status emit_slct(InstrDecoder& d, const ptx::Compare& c) {
    const Type t = c.type, selector = c.src[2];
    const bool wide = type_bits(t) == 64;
    ExecFn fn;
    if (selector == Type::S32)
        fn = wide ? &exec_slct<uint64_t, int32_t, false> : &exec_slct<uint32_t, int32_t, false>;
    else if (c.ftz)
        fn = wide ? &exec_slct<uint64_t, float, true> : &exec_slct<uint32_t, float, true>;
    else
        fn = wide ? &exec_slct<uint64_t, float, false> : &exec_slct<uint32_t, float, false>;
    uint32_t a = D4R_TRY(d.src(1, t)), b = D4R_TRY(d.src(2, t)), s = D4R_TRY(d.src(3, selector));
    uint32_t dd = D4R_TRY(d.dst(0, t));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.s[2] = s;
    return ok_status();
}

// and/or/xor/not on .pred. A source may be an integer constant (nonzero is true): such an operation folds to a
// copy, a negation (op 3) or a constant (op 5).
Status emit_pred_logic(InstrDecoder& d, const ptx::Compare& c) {
    using Op = ptx::Compare::Op;
    const bool unary = c.op == Op::Not;
    int16_t p = D4R_TRY(d.pred_dst(d.operand(0)));
    uint16_t op = c.op == Op::And ? 0 : c.op == Op::Or ? 1 : c.op == Op::Xor ? 2 : 3;
    auto constant = [&](int i) -> std::optional<bool> {
        const ast::Operand& o = d.operand(i);
        if (o.kind != ast::OperandKind::Integer) return std::nullopt;
        return o.integer != 0;
    };
    std::optional<bool> ca = constant(1), cb = unary ? std::nullopt : constant(2);
    int reg = 1; // the operand that is a register when one of two is constant
    if (ca && !unary && !cb) {
        std::swap(ca, cb);
        reg = 2;
    }
    std::pair<int16_t, bool> a{0, false}, b{0, false};
    bool value = false;
    if (ca) { // every source constant
        value = unary ? !*ca : op == 0 ? (*ca && *cb) : op == 1 ? (*ca || *cb) : (*ca != *cb);
        op = 5;
    } else {
        a = D4R_TRY(d.pred_src(d.operand(reg)));
        if (cb) {
            const bool k = *cb;
            if (op == 0)
                op = k ? 4 : 5; // a & true = a, a & false = false
            else if (op == 1)
                op = k ? 5 : 4; // a | true = true, a | false = a
            else
                op = k ? 3 : 4; // a ^ true = !a, a ^ false = a
            value = op == 5 && k;
        } else if (!unary) {
            b = D4R_TRY(d.pred_src(d.operand(2)));
        }
    }
    Instr& in = d.emit(&exec_pred_logic);
    in.pd[0] = p;
    in.ps[0] = a.first;
    in.ps_neg[0] = a.second;
    in.ps[1] = b.first;
    in.ps_neg[1] = b.second;
    in.flags = op;
    in.imm = value ? 1 : 0;
    return ok_status();
}

Status emit_compare(InstrDecoder& d, const ptx::Compare& c) {
    using Op = ptx::Compare::Op;
    switch (c.op) {
    case Op::Setp:
        return emit_setp(d, c);
    case Op::Set:
        return emit_set(d, c);
    case Op::Selp:
        return emit_selp(d, c);
    case Op::Slct:
        return emit_slct(d, c);
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Not:
        return emit_pred_logic(d, c);
    }
    return d.error("unknown comparison");
}

Status decode_compare_family(InstrDecoder& d) { return emit_compare(d, D4R_TRY(d.typed(ptx::decode_compare))); }

} // namespace

// Reached from the integer family's and/or/xor/not (ops_int.cpp) when the type is .pred.
Status decode_pred_logic(InstrDecoder& d) { return decode_compare_family(d); }

void add_compare_ops(OpcodeTable& t) {
    for (const char* name : {"setp", "set", "selp", "slct"}) t[name] = &decode_compare_family;
}

} // namespace d4r::ptxsim
