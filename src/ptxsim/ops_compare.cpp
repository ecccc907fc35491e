// Comparisons and selection: setp (every comparison, .and/.or/.xor combining, two destinations), set,
// selp, slct, and predicate logic (and/or/xor/not on .pred).
//
// Instr use: s[0], s[1] compared values (set/setp), s[2] slct's selector; pd[0], pd[1] setp's results;
// ps[0] the combining predicate (setp/set) or selp's selector; flags = comparison | bool op << 8.
#include <cmath>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

#include "ptxsim/dispatch.h"
#include "ptxsim/fp.h"
#include "ptxsim/lanes.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : uint8_t { None, And, Or, Xor };

constexpr std::string_view kCmpNames[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                          "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

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

struct CompareMods {
    Cmp cmp = Cmp::Eq;
    BoolOp op = BoolOp::None;
    bool ftz = false;
};

Expected<CompareMods> compare_mods(InstrDecoder& d, Type t) {
    Modifiers& m = d.mods();
    CompareMods r;
    bool found = false;
    for (size_t i = 0; i < std::size(kCmpNames); ++i) {
        if (m.take(kCmpNames[i])) {
            r.cmp = static_cast<Cmp>(i);
            found = true;
            break;
        }
    }
    if (!found) return d.error("missing comparison operator");
    std::string_view op = m.take_any({"and", "or", "xor"});
    r.op = op == "and" ? BoolOp::And : op == "or" ? BoolOp::Or : op == "xor" ? BoolOp::Xor : BoolOp::None;
    r.ftz = m.take("ftz");
    bool float_cmp = r.cmp >= Cmp::Equ || r.cmp == Cmp::Num || r.cmp == Cmp::Nan;
    bool unsigned_only = r.cmp == Cmp::Lo || r.cmp == Cmp::Ls || r.cmp == Cmp::Hi || r.cmp == Cmp::Hs;
    if (float_cmp && !is_float(t)) return d.error("unordered comparisons need a floating-point type");
    if (unsigned_only && is_float(t)) return d.error("lo/ls/hi/hs compare integers");
    if (r.ftz && t != Type::F32 && t != Type::F16 && t != Type::F16x2)
        return d.error(".ftz needs .f32, .f16 or .f16x2");
    if (is_bits(t) && r.cmp != Cmp::Eq && r.cmp != Cmp::Ne && !unsigned_only)
        return d.error("bit-size types compare with eq and ne only");
    return r;
}

Status decode_setp(InstrDecoder& d) {
    Modifiers& m = d.mods();
    Type t = m.peek_type();
    CompareMods cm = D4R_TRY(compare_mods(d, t));
    m.take_type();
    D4R_TRY(d.finish());
    const bool half = is_half_type(t);
    ExecFn fn = half ? half_cmp_fn(t, cm.ftz, []<bool BF, bool P, bool F>() { return &exec_setp_half<BF, P, F>; })
                     : cmp_fn(t, cm.ftz, cm.cmp, []<class T, bool F>() { return &exec_setp<T, F>; });
    if (!fn) return d.error(fmt::format("setp.{} is not supported", type_name(t)));
    if (half) t = (t == Type::F16x2 || t == Type::BF16x2) ? Type::B32 : Type::B16; // the registers' width
    D4R_TRY(d.expect_operands(cm.op == BoolOp::None ? 3 : 4));
    const ast::Operand& dst = d.operand(0);
    int16_t p = -1, q = -1;
    if (dst.kind == ast::OperandKind::Pair) {
        ast::Operand a = dst, b = dst;
        a.kind = b.kind = ast::OperandKind::Name;
        b.name = dst.name2;
        p = D4R_TRY(d.pred_dst(a));
        q = D4R_TRY(d.pred_dst(b));
    } else {
        p = D4R_TRY(d.pred_dst(dst));
    }
    uint32_t a = D4R_TRY(d.src(1, t)), b = D4R_TRY(d.src(2, t));
    std::pair<int16_t, bool> c{-1, false};
    if (cm.op != BoolOp::None) c = D4R_TRY(d.pred_src(d.operand(3)));
    Instr& in = d.emit(fn);
    in.pd[0] = p;
    in.pd[1] = q;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = c.first;
    in.ps_neg[0] = c.second;
    in.flags = static_cast<uint16_t>(static_cast<uint16_t>(cm.cmp) | (static_cast<uint16_t>(cm.op) << 8));
    return ok_status();
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype with a half-precision source: .f16/.bf16 sources write .u16,
// .s16, .u32, .s32 (all ones), .f16/.bf16 (1.0) or .f32 (1.0); packed sources write .u32/.s32 (0xffff
// per half) or .f16x2/.bf16x2 (1.0 per half).
Status decode_set_half(InstrDecoder& d, Type dt, Type st, const CompareMods& cm) {
    const bool packed = st == Type::F16x2 || st == Type::BF16x2;
    uint64_t one = 0;
    Type reg = Type::B32;
    switch (dt) {
    case Type::U32:
    case Type::S32:
        one = 0xffffffffu;
        break;
    case Type::U16:
    case Type::S16:
        one = 0xffffu;
        reg = Type::B16;
        break;
    case Type::F32:
        one = 0x3f800000u;
        break;
    case Type::F16:
        one = 0x3c00u;
        reg = Type::B16;
        break;
    case Type::BF16:
        one = 0x3f80u;
        reg = Type::B16;
        break;
    case Type::F16x2:
        one = 0x3c003c00u;
        break;
    case Type::BF16x2:
        one = 0x3f803f80u;
        break;
    default:
        break;
    }
    const bool dst_packed = dt == Type::F16x2 || dt == Type::BF16x2;
    const bool ok = one != 0 && (packed ? (dst_packed || dt == Type::U32 || dt == Type::S32) : !dst_packed);
    if (!ok) return d.error(fmt::format("set.{}.{} is not a PTX form", type_name(dt), type_name(st)));
    ExecFn fn = half_cmp_fn(st, cm.ftz, []<bool BF, bool P, bool F>() { return &exec_set_half<BF, P, F>; });
    D4R_TRY(d.expect_operands(cm.op == BoolOp::None ? 3 : 4));
    const Type sreg = packed ? Type::B32 : Type::B16;
    uint32_t a = D4R_TRY(d.src(1, sreg)), b = D4R_TRY(d.src(2, sreg));
    std::pair<int16_t, bool> c{-1, false};
    if (cm.op != BoolOp::None) c = D4R_TRY(d.pred_src(d.operand(3)));
    uint32_t dd = D4R_TRY(d.dst(0, reg));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = c.first;
    in.ps_neg[0] = c.second;
    in.aux = one;
    in.flags = static_cast<uint16_t>(static_cast<uint16_t>(cm.cmp) | (static_cast<uint16_t>(cm.op) << 8));
    return ok_status();
}

Status decode_set(InstrDecoder& d) {
    Modifiers& m = d.mods();
    // set.cmp{.bool}{.ftz}.dtype.stype: the first type is the destination's.
    Type dt = m.peek_type();
    m.take_type();
    Type st = m.peek_type();
    CompareMods cm = D4R_TRY(compare_mods(d, st));
    m.take_type();
    D4R_TRY(d.finish());
    if (is_half_type(st)) return decode_set_half(d, dt, st, cm);
    if (dt != Type::U32 && dt != Type::S32 && dt != Type::F32) return d.error("set writes .u32, .s32 or .f32");
    ExecFn fn = dt == Type::F32 ? cmp_fn(st, cm.ftz, cm.cmp, []<class T, bool F>() { return &exec_set<T, F, true>; })
                                : cmp_fn(st, cm.ftz, cm.cmp, []<class T, bool F>() { return &exec_set<T, F, false>; });
    if (!fn) return d.error(fmt::format("set with source .{} is not supported", type_name(st)));
    D4R_TRY(d.expect_operands(cm.op == BoolOp::None ? 3 : 4));
    uint32_t a = D4R_TRY(d.src(1, st)), b = D4R_TRY(d.src(2, st));
    std::pair<int16_t, bool> c{-1, false};
    if (cm.op != BoolOp::None) c = D4R_TRY(d.pred_src(d.operand(3)));
    uint32_t dd = D4R_TRY(d.dst(0, dt));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = c.first;
    in.ps_neg[0] = c.second;
    in.flags = static_cast<uint16_t>(static_cast<uint16_t>(cm.cmp) | (static_cast<uint16_t>(cm.op) << 8));
    return ok_status();
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

Status decode_selp(InstrDecoder& d) {
    Type t = d.mods().take_type();
    D4R_TRY(d.finish());
    if (t == Type::None || t == Type::Pred || type_bits(t) > 64) return d.error("selp needs a 16-, 32- or 64-bit type");
    D4R_TRY(d.expect_operands(4));
    uint32_t a = D4R_TRY(d.src(1, t)), b = D4R_TRY(d.src(2, t));
    auto c = D4R_TRY(d.pred_src(d.operand(3)));
    uint32_t dd = D4R_TRY(d.dst(0, t));
    Instr& in = d.emit(type_bits(t) == 64 ? &exec_selp<uint64_t> : &exec_selp<uint32_t>);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.ps[0] = c.first;
    in.ps_neg[0] = c.second;
    return ok_status();
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

Status decode_slct(InstrDecoder& d) {
    Modifiers& m = d.mods();
    bool ftz = m.take("ftz");
    Type dt = m.take_type();
    Type ct = m.take_type();
    D4R_TRY(d.finish());
    if (dt == Type::None || type_bits(dt) > 64 || (ct != Type::S32 && ct != Type::F32))
        return d.error("slct needs a data type and .s32 or .f32");
    if (ftz && ct != Type::F32) return d.error(".ftz needs an .f32 selector");
    D4R_TRY(d.expect_operands(4));
    bool wide = type_bits(dt) == 64;
    ExecFn fn;
    if (ct == Type::S32)
        fn = wide ? &exec_slct<uint64_t, int32_t, false> : &exec_slct<uint32_t, int32_t, false>;
    else if (ftz)
        fn = wide ? &exec_slct<uint64_t, float, true> : &exec_slct<uint32_t, float, true>;
    else
        fn = wide ? &exec_slct<uint64_t, float, false> : &exec_slct<uint32_t, float, false>;
    uint32_t a = D4R_TRY(d.src(1, dt)), b = D4R_TRY(d.src(2, dt)), c = D4R_TRY(d.src(3, ct));
    uint32_t dd = D4R_TRY(d.dst(0, dt));
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = a;
    in.s[1] = b;
    in.s[2] = c;
    return ok_status();
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

} // namespace

Status decode_pred_logic(InstrDecoder& d) {
    Modifiers& m = d.mods();
    std::string_view base = m.base();
    m.take_type();
    D4R_TRY(d.finish());
    bool unary = base == "not";
    D4R_TRY(d.expect_operands(unary ? 2 : 3));
    int16_t p = D4R_TRY(d.pred_dst(d.operand(0)));
    uint16_t op = base == "and" ? 0 : base == "or" ? 1 : base == "xor" ? 2 : 3;
    // A source may be an integer constant (nvcc writes `xor.pred %p1, %p2, -1` for a negation): nonzero is
    // true. Such an operation folds to a copy, a negation (op 3) or a constant (op 5).
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
            const bool c = *cb;
            if (op == 0)
                op = c ? 4 : 5; // a & true = a, a & false = false
            else if (op == 1)
                op = c ? 5 : 4; // a | true = true, a | false = a
            else
                op = c ? 3 : 4; // a ^ true = !a, a ^ false = a
            value = op == 5 && c;
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

void add_compare_ops(OpcodeTable& t) {
    t["setp"] = &decode_setp;
    t["set"] = &decode_set;
    t["selp"] = &decode_selp;
    t["slct"] = &decode_slct;
}

} // namespace d4r::ptxsim
