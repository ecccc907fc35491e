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
// Instr use: d[0] result; s[0] (and s[1] for the packed forms) sources; flags = float rounding |
// integer rounding << 4 | kFtz | kSat | kIntRound.
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ptx/instr_cvt.h"
#include "ptxsim/lanes.h"
#include "ptxsim/numerics.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

enum CvtFlags : uint16_t { kFtz = 0x100, kSat = 0x200, kIntRound = 0x400, kRelu = 0x800, kSatFinite = 0x1000 };

// A half-precision result with .satfinite (infinities and overflow become the largest finite value of
// that sign; NaN stays NaN) and .relu (negative results and -0 become +0; NaN becomes the canonical NaN).
D4R_INLINE uint32_t small_result(double x, SmallFormat f, Round r, uint16_t flags) {
    uint32_t bits = round_to_small(x, f, r);
    const uint32_t sign = 1u << (f.mantissa_bits + f.exponent_bits);
    const uint32_t inf = ((1u << f.exponent_bits) - 1) << f.mantissa_bits;
    const bool nan = (bits & ~sign) > inf;
    if ((flags & kSatFinite) && (bits & ~sign) == inf) bits = (bits & sign) | (inf - 1);
    if ((flags & kRelu) && !nan && (bits & sign)) bits = 0;
    return bits;
}

// A double NaN narrowed to FORMAT: sign kept, quiet bit set, the payload's top bits kept.
D4R_INLINE uint32_t narrow_nan(uint64_t bits, SmallFormat f) {
    const int mb = f.mantissa_bits;
    const uint32_t sign = static_cast<uint32_t>(bits >> 63) << (mb + f.exponent_bits);
    const uint32_t inf = ((1u << f.exponent_bits) - 1) << mb;
    const uint32_t payload = static_cast<uint32_t>((bits & 0x000fffffffffffffull) >> (52 - mb));
    return sign | inf | payload | (1u << (mb - 1));
}

template <Type T>
struct Repr;
template <>
struct Repr<Type::U8> {
    using type = uint8_t;
};
template <>
struct Repr<Type::U16> {
    using type = uint16_t;
};
template <>
struct Repr<Type::U32> {
    using type = uint32_t;
};
template <>
struct Repr<Type::U64> {
    using type = uint64_t;
};
template <>
struct Repr<Type::S8> {
    using type = int8_t;
};
template <>
struct Repr<Type::S16> {
    using type = int16_t;
};
template <>
struct Repr<Type::S32> {
    using type = int32_t;
};
template <>
struct Repr<Type::S64> {
    using type = int64_t;
};
template <>
struct Repr<Type::F16> {
    using type = uint16_t;
};
template <>
struct Repr<Type::BF16> {
    using type = uint16_t;
};
template <>
struct Repr<Type::F32> {
    using type = float;
};
template <>
struct Repr<Type::F64> {
    using type = double;
};

constexpr bool int_type(Type t) { return t != Type::F16 && t != Type::BF16 && t != Type::F32 && t != Type::F64; }
constexpr bool small_type(Type t) { return t == Type::F16 || t == Type::BF16; }
constexpr SmallFormat small_format(Type t) { return t == Type::F16 ? kF16 : kBF16; }

// The exact value of a floating-point source as a double (f32 inputs flushed under .ftz).
template <Type AT>
D4R_INLINE double float_value(typename Repr<AT>::type a, bool ftz) {
    if constexpr (AT == Type::F32)
        return static_cast<double>(ftz ? flush(a) : a);
    else if constexpr (AT == Type::F64)
        return a;
    else
        return small_to_double(a, small_format(AT));
}

template <class D>
D4R_INLINE D float_to_int(double x) {
    if (x != x) return D(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<D>::min());
    // 2^N as a double: the first value above the range (max itself may not be representable).
    constexpr double hi =
        std::is_signed_v<D> ? -lo : 2.0 * (static_cast<double>(std::numeric_limits<D>::max() / 2) + 1.0);
    if (x <= lo) return std::numeric_limits<D>::min();
    if (x >= hi) return std::numeric_limits<D>::max();
    return static_cast<D>(x);
}

template <Type DT, Type AT>
D4R_INLINE typename Repr<DT>::type convert(typename Repr<AT>::type a, Round fr, Round ir, uint16_t flags) {
    using D = typename Repr<DT>::type;
    using A = typename Repr<AT>::type;
    const bool ftz = flags & kFtz, sat = flags & kSat;
    if constexpr (int_type(AT) && int_type(DT)) {
        if (sat) {
            // Clamp the source value into the destination range.
            if constexpr (std::is_signed_v<A>) {
                int64_t v = a;
                int64_t lo = std::is_signed_v<D> ? int64_t(std::numeric_limits<D>::min()) : 0;
                if (v < lo) return D(lo);
                if (std::is_signed_v<D> || sizeof(D) < 8) {
                    int64_t hi = int64_t(std::numeric_limits<D>::max());
                    if (v > hi) return D(hi);
                }
                return D(v);
            } else {
                uint64_t v = a;
                uint64_t hi = uint64_t(std::numeric_limits<D>::max());
                return D(v > hi ? hi : v);
            }
        }
        return static_cast<D>(a);
    } else if constexpr (int_type(AT)) {
        D r;
        if constexpr (DT == Type::F32 || DT == Type::F64) {
            r = static_cast<D>(a); // under the RoundScope of the handler
            if (DT == Type::F32 && ftz) r = flush(r);
            if (sat) r = saturate(r);
        } else {
            double v = std::is_signed_v<A> ? s64_to_double_odd(int64_t(a)) : u64_to_double_odd(uint64_t(a));
            if (sat) v = saturate(v);
            r = static_cast<D>(small_result(v, small_format(DT), fr, flags));
        }
        return r;
    } else if constexpr (int_type(DT)) {
        double x = round_integer(float_value<AT>(a, ftz), ir);
        if (x != x) {
            // NaN (H200, corpus cvt_f2i/cvt_d2i): a 64-bit destination, or an f64 source, gives the
            // "integer indefinite" pattern (sign bit only), signed or unsigned; f32/f16 -> 32 bits gives 0.
            if constexpr (sizeof(D) == 8)
                return D(0x8000000000000000ull);
            else if constexpr (AT == Type::F64 && sizeof(D) == 4)
                return D(0x80000000u);
            else
                return D(0);
        }
        return float_to_int<D>(x);
    } else {
        if constexpr (small_type(AT) && (DT == Type::F32 || DT == Type::F64)) {
            // Widening a NaN (H200 goldens, corpus cvt_f2h): bf16 -> f32 is the plain 16-bit shift (even a
            // signalling NaN stays one); f16 -> f64 keeps the sign and payload, quieted; f16 -> f32 gives
            // the canonical NaN (below). bf16 -> f64 is taken to behave like f16 -> f64.
            const uint32_t mb = AT == Type::F16 ? 10 : 7;
            const uint32_t inf = AT == Type::F16 ? 0x7c00u : 0x7f80u;
            if ((a & 0x7fffu) > inf) {
                if constexpr (DT == Type::F32 && AT == Type::BF16) return std::bit_cast<float>(uint32_t(a) << 16);
                if constexpr (DT == Type::F64) {
                    return std::bit_cast<double>((uint64_t(a >> 15) << 63) | 0x7ff8000000000000ull |
                                                 (uint64_t(a & ((1u << mb) - 1)) << (52 - mb)));
                }
            }
        }
        double x = float_value<AT>(a, ftz);
        if (flags & kIntRound) x = round_integer(x, ir);
        if (sat) x = saturate(x);
        if constexpr (DT == Type::F64) {
            // f32 -> f64 keeps a NaN's payload (cvtss2sd), like the H200, except under .ftz, which gives
            // the canonical f32 NaN widened; f16 NaNs come out canonical; cvt.rXi.f64.f64 quiets the NaN
            // and keeps sign and payload (H200 goldens, corpus f32_round).
            if (x != x) {
                if constexpr (AT == Type::F64)
                    return std::bit_cast<double>(std::bit_cast<uint64_t>(x) | 0x0008000000000000ull);
                else if (AT != Type::F32 || ftz)
                    return std::bit_cast<double>(0x7fffffffe0000000ull);
            }
            return x;
        } else if constexpr (DT == Type::F32) {
            // f64 -> f32 narrows a NaN's payload (cvtsd2ss, as measured); f32 and f16 sources give the
            // canonical NaN. Rounding happens under the handler's RoundScope.
            float f = static_cast<float>(x);
            if (AT != Type::F64) f = canonical(f);
            return ftz ? flush(f) : f;
        } else {
            if constexpr (AT == Type::F64) {
                // f64 -> f16/bf16 keeps a NaN's sign and the top of its payload, quieted (H200 goldens,
                // corpus cvt_f2h); f32 sources give the canonical NaN.
                if (x != x && !(flags & kRelu))
                    return static_cast<D>(narrow_nan(std::bit_cast<uint64_t>(a), small_format(DT)));
            }
            return static_cast<D>(small_result(x, small_format(DT), fr, flags));
        }
    }
}

template <Type DT, Type AT>
Flow exec_cvt(Warp& w, const Instr& in, uint32_t mask) {
    using D = typename Repr<DT>::type;
    using A = typename Repr<AT>::type;
    const Round fr = static_cast<Round>(in.flags & 0xf);
    const Round ir = static_cast<Round>((in.flags >> 4) & 0xf);
    const uint16_t flags = in.flags;
    RoundScope scope(small_type(DT) ? Round::Rn : fr);
    map1<D, A>(w, in, mask, [fr, ir, flags](A a) { return convert<DT, AT>(a, fr, ir, flags); });
    return Flow::Next;
}

// cvt.rn{.relu}.f16x2.f32 d, a, b: d = {cvt(a) in the upper half, cvt(b) in the lower}.
template <Type DT>
Flow exec_cvt_pack(Warp& w, const Instr& in, uint32_t mask) {
    const Round fr = static_cast<Round>(in.flags & 0xf);
    const uint16_t flags = in.flags;
    map2<uint32_t, float, float>(w, in, mask, [fr, flags](float a, float b) {
        uint32_t hi = small_result(static_cast<double>(a), small_format(DT), fr, flags);
        uint32_t lo = small_result(static_cast<double>(b), small_format(DT), fr, flags);
        return (hi << 16) | lo;
    });
    return Flow::Next;
}

// cvt.rna{.satfinite}.tf32.f32, cvt.rn/.rz.tf32.f32: the f32 rounded to tf32 (10 mantissa bits), as f32
// bits with the low 13 bits zero (H200 goldens, corpus cvt_f2h): .rna truncates a NaN's payload (a
// signalling NaN whose payload lies in the dropped bits becomes infinity), .rn/.rz give 0x7fffe000 for
// every NaN. .satfinite then takes one tf32 ulp off any result with an all-ones exponent, which maps
// infinities and overflow to the largest finite value and NaNs to other NaNs (0x7fffffff -> 0x7fffc000).
template <Round R, bool SatFinite>
Flow exec_cvt_tf32(Warp& w, const Instr& in, uint32_t mask) {
    map1<uint32_t, uint32_t>(w, in, mask, [](uint32_t a) -> uint32_t {
        uint32_t r;
        if ((a & 0x7fffffffu) > 0x7f800000u)
            r = R == Round::Rna ? a & 0xffffe000u : 0x7fffe000u;
        else
            r = round_to_small(static_cast<double>(std::bit_cast<float>(a)), kTF32, R) << 13;
        if (SatFinite && (r & 0x7f800000u) == 0x7f800000u) r -= 0x2000u;
        return r;
    });
    return Flow::Next;
}

// FP8 with .satfinite (the only form the ISA has for these destinations): round to nearest even; values
// beyond the largest finite one, infinities included, give it (e4m3 448, e5m2 57344) with their sign;
// NaN gives 0x7f; .relu makes negative results (and -0) +0.
D4R_INLINE uint32_t to_fp8(double x, bool e5m2, bool relu) {
    if (x != x) return 0x7fu;
    const bool neg = std::signbit(x);
    const uint64_t max = e5m2 ? 0x7bu : 0x7eu;
    uint64_t mag = std::isinf(x) ? max : round_magnitude(x, e5m2 ? kE5M2 : kE4M3, Round::Rn, neg);
    if (mag > max) mag = max;
    if (relu && neg) return 0;
    return static_cast<uint32_t>(mag | (neg ? 0x80u : 0u));
}

// The f16 encoding of an FP8 value (exact). NaN (e4m3 0x7f/0xff, e5m2 exponent 31 with a mantissa) gives
// the canonical f16 NaN; .relu makes negative values +0.
D4R_INLINE uint32_t fp8_to_f16(uint32_t v, bool e5m2, bool relu) {
    v &= 0xffu;
    const bool neg = v & 0x80u;
    uint32_t r;
    if (e5m2) {
        r = v << 8; // e5m2 is the top byte of an f16
        if ((r & 0x7fffu) > 0x7c00u) return kCanonicalNaN16;
    } else {
        if ((v & 0x7fu) == 0x7fu) return kCanonicalNaN16;
        // e4m3 has no infinities: exponent 15 holds finite values (256 .. 448), so decode it by hand.
        const uint32_t e = (v >> 3) & 0xfu, m = v & 7u;
        const double mag = e == 0 ? std::ldexp(double(m), -9) : std::ldexp(double(8 + m), int(e) - 10);
        r = round_to_small(mag, kF16, Round::Rn) | (neg ? 0x8000u : 0u);
    }
    if (relu && neg) return 0;
    return r;
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b: a in the high byte, b in the low one.
template <bool E5M2>
Flow exec_cvt_f32_fp8x2(Warp& w, const Instr& in, uint32_t mask) {
    const bool relu = in.flags & kRelu;
    map2<uint32_t, float, float>(
        w, in, mask, [relu](float a, float b) { return (to_fp8(a, E5M2, relu) << 8) | to_fp8(b, E5M2, relu); });
    return Flow::Next;
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a: each half rounded once, the high half to the high byte.
template <bool E5M2>
Flow exec_cvt_f16x2_fp8x2(Warp& w, const Instr& in, uint32_t mask) {
    const bool relu = in.flags & kRelu;
    map1<uint32_t, uint32_t>(w, in, mask, [relu](uint32_t a) {
        const uint32_t hi = to_fp8(small_to_double(a >> 16, kF16), E5M2, relu);
        const uint32_t lo = to_fp8(small_to_double(a & 0xffffu, kF16), E5M2, relu);
        return (hi << 8) | lo;
    });
    return Flow::Next;
}

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: the high byte to the high half.
template <bool E5M2>
Flow exec_cvt_fp8x2_f16x2(Warp& w, const Instr& in, uint32_t mask) {
    const bool relu = in.flags & kRelu;
    map1<uint32_t, uint32_t>(
        w, in, mask, [relu](uint32_t a) { return (fp8_to_f16(a >> 8, E5M2, relu) << 16) | fp8_to_f16(a, E5M2, relu); });
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

constexpr Type kCvtTypes[] = {Type::U8,  Type::U16, Type::U32, Type::U64,  Type::S8,  Type::S16,
                              Type::S32, Type::S64, Type::F16, Type::BF16, Type::F32, Type::F64};

template <Type DT, size_t... I>
ExecFn pick_src(Type at, std::index_sequence<I...>) {
    ExecFn fn = nullptr;
    ((at == kCvtTypes[I] ? (fn = &exec_cvt<DT, kCvtTypes[I]>, 0) : 0), ...);
    return fn;
}

template <size_t... I>
ExecFn pick_cvt(Type dt, Type at, std::index_sequence<I...> seq) {
    ExecFn fn = nullptr;
    ((dt == kCvtTypes[I] ? (fn = pick_src<kCvtTypes[I]>(at, seq), 0) : 0), ...);
    return fn;
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
    const uint16_t half_flags = static_cast<uint16_t>((c.relu ? kRelu : 0) | (c.satfinite ? kSatFinite : 0));
    const Round fr = c.round.value_or(Round::Rn);
    const Round ir = c.int_round.value_or(Round::Rn);
    if (c.form == ptx::Cvt::Form::ToTf32) {
        uint32_t a = D4R_TRY(d.src(1, Type::B32));
        uint32_t dd = D4R_TRY(d.dst(0, Type::B32));
        ExecFn fn = fr == Round::Rn   ? &exec_cvt_tf32<Round::Rn, false>
                    : fr == Round::Rz ? &exec_cvt_tf32<Round::Rz, false>
                    : c.satfinite     ? &exec_cvt_tf32<Round::Rna, true>
                                      : &exec_cvt_tf32<Round::Rna, false>;
        Instr& in = d.emit(fn);
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
        in.flags = static_cast<uint16_t>(static_cast<uint16_t>(fr) | half_flags);
        return ok_status();
    }
    const Type dt = c.dst, at = c.src;
    ExecFn fn = pick_cvt(dt, at, std::make_index_sequence<std::size(kCvtTypes)>{});
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
    in.flags = static_cast<uint16_t>(static_cast<uint16_t>(fr) | (static_cast<uint16_t>(ir) << 4) | (c.ftz ? kFtz : 0) |
                                     (c.sat ? kSat : 0) | (c.int_round ? kIntRound : 0) | half_flags);
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
