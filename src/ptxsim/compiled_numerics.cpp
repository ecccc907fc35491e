// The numerics helpers compiled code calls (compiled.h, CompiledRuntime::f32_op, f64_op, cvt, half_op): one lane
// computed by the scalar functions the interpreter's handlers apply to every lane (scalar_float.h, scalar_cvt.h,
// scalar_half.h), picked from the instruction's code as ops_float.cpp, ops_cvt.cpp and ops_half.cpp pick their
// handlers, in the same rounding mode.
#include "ptxsim/compiled_numerics.h"

#include <bit>
#include <type_traits>

#include "ptx/instr_cvt.h"
#include "ptx/instr_float.h"
#include "ptx/instr_half.h"
#include "ptxsim/compiled.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/scalar_cvt.h"
#include "ptxsim/scalar_float.h"
#include "ptxsim/scalar_half.h"

namespace d4r::ptxsim {

namespace {

// float_op_code: the operation (bits 0-7), the rounding (8-11, .rn when none is written) and these modifiers.
constexpr uint32_t kCodeFtz = 1u << 12, kCodeSat = 1u << 13, kCodeApprox = 1u << 14, kCodeNaN = 1u << 15,
                   kCodeXorSign = 1u << 16;

// A value the compiler must take as changed here, so that its computation stays between the rounding mode's
// change and its restoration (GCC moves floating-point arithmetic on registers across fesetround calls even with
// -frounding-math; the handlers are safe because they read and write warp memory).
template <class T>
D4R_INLINE void pin(T& v) {
    asm volatile("" : "+m"(v));
}

template <class T>
using Lane = T (*)(T, T, T);

// --- one lane of each handler, in its rounding mode ---

template <class T, class Op, Round R, bool F, bool S>
T fbin_entry(T a, T b, T /*unused*/) {
    RoundScope scope(R);
    pin(a);
    pin(b);
    T r = fbin_lane<T, Op, R, F, S>(a, b);
    pin(r);
    return r;
}

template <class T, Round R, bool F, bool S>
T fma_entry(T a, T b, T c) {
    RoundScope scope(R);
    pin(a);
    pin(b);
    pin(c);
    T r = fma_lane<T, R, F, S>(a, b, c);
    pin(r);
    return r;
}

template <class T, Unary U, Round R, bool F>
T unary_entry(T a, T /*unused*/, T /*unused*/) {
    RoundScope scope(R);
    pin(a);
    T r = unary_lane<T, U, R, F>(a);
    pin(r);
    return r;
}

template <class T, bool M, bool F, bool N, bool X>
T minmax_entry(T a, T b, T /*unused*/) {
    return minmax_lane<T, M, F, N, X>(a, b);
}

template <class T>
T copysign_entry(T a, T b, T /*unused*/) {
    return copysign_lane(a, b);
}

double rcp_approx_entry(double a, double /*unused*/, double /*unused*/) { return rcp_approx_ftz_f64(a); }

// --- the scalar function of a code, chosen as ops_float.cpp's emit_float chooses the handler ---

template <class T, class Op>
Lane<T> fbin_pick(Round r, bool ftz, bool sat) {
    return select_round(r, [&]<Round R>() -> Lane<T> {
        if constexpr (std::is_same_v<T, double>)
            return &fbin_entry<T, Op, R, false, false>;
        else
            return select_flags<2>({ftz, sat}, []<bool F, bool S>() -> Lane<T> { return &fbin_entry<T, Op, R, F, S>; });
    });
}

template <class T>
Lane<T> fma_pick(Round r, bool ftz, bool sat) {
    return select_round(r, [&]<Round R>() -> Lane<T> {
        if constexpr (std::is_same_v<T, double>)
            return &fma_entry<T, R, false, false>;
        else
            return select_flags<2>({ftz, sat}, []<bool F, bool S>() -> Lane<T> { return &fma_entry<T, R, F, S>; });
    });
}

// sqrt and rcp: every rounding mode.
template <class T, Unary U>
Lane<T> unary_pick(Round r, bool ftz) {
    return select_round(r, [&]<Round R>() -> Lane<T> {
        if constexpr (std::is_same_v<T, double>)
            return &unary_entry<T, U, R, false>;
        else
            return select_flags<1>({ftz}, []<bool F>() -> Lane<T> { return &unary_entry<T, U, R, F>; });
    });
}

// abs, neg and the .approx functions: round to nearest; F64_FTZ: the f64 form takes .ftz (rsqrt.approx.ftz.f64).
template <class T, Unary U, bool F64Ftz = false>
Lane<T> unary_rn_pick(bool ftz) {
    if constexpr (std::is_same_v<T, double> && !F64Ftz)
        return &unary_entry<T, U, Round::Rn, false>;
    else
        return select_flags<1>({ftz}, []<bool F>() -> Lane<T> { return &unary_entry<T, U, Round::Rn, F>; });
}

// sin cos lg2 ex2 tanh: .f32 only.
template <class T, Unary U>
Lane<T> unary_f32_pick(bool ftz) {
    if constexpr (std::is_same_v<T, float>)
        return select_flags<1>({ftz}, []<bool F>() -> Lane<T> { return &unary_entry<float, U, Round::Rn, F>; });
    else
        return nullptr;
}

template <class T>
Lane<T> float_pick(uint32_t code) {
    using Op = ptx::FloatArith::Op;
    constexpr bool kF64 = std::is_same_v<T, double>;
    const auto op = static_cast<Op>(code & 0xffu);
    const auto round = static_cast<Round>((code >> 8) & 0xfu);
    const bool ftz = code & kCodeFtz, sat = code & kCodeSat, approx = code & kCodeApprox;
    switch (op) {
    case Op::Add:
        return fbin_pick<T, FAdd>(round, ftz, sat);
    case Op::Sub:
        return fbin_pick<T, FSub>(round, ftz, sat);
    case Op::Mul:
        return fbin_pick<T, FMul>(round, ftz, sat);
    case Op::Fma:
        return fma_pick<T>(round, ftz, sat);
    case Op::Div:
        if constexpr (!kF64)
            if (approx)
                return select_flags<1>(
                    {ftz}, []<bool F>() -> Lane<T> { return &fbin_entry<float, FDivApprox, Round::Rn, F, false>; });
        return fbin_pick<T, FDiv>(round, ftz, false);
    case Op::Min:
    case Op::Max: {
        const bool is_max = op == Op::Max;
        if constexpr (kF64) // no modifiers on f64
            return select_flags<1>({is_max},
                                   []<bool M>() -> Lane<T> { return &minmax_entry<T, M, false, false, false>; });
        else
            return select_flags<4>(
                {is_max, ftz, static_cast<bool>(code & kCodeNaN), static_cast<bool>(code & kCodeXorSign)},
                []<bool M, bool F, bool N, bool X>() -> Lane<T> { return &minmax_entry<T, M, F, N, X>; });
    }
    case Op::Abs:
        return unary_rn_pick<T, Unary::Abs>(ftz);
    case Op::Neg:
        return unary_rn_pick<T, Unary::Neg>(ftz);
    case Op::Sqrt:
        return unary_pick<T, Unary::Sqrt>(round, ftz);
    case Op::Rcp:
        if constexpr (kF64)
            if (approx) return &rcp_approx_entry;
        return unary_pick<T, Unary::Rcp>(round, ftz);
    case Op::Rsqrt:
        return unary_rn_pick<T, Unary::Rsqrt, true>(ftz);
    case Op::Sin:
        return unary_f32_pick<T, Unary::Sin>(ftz);
    case Op::Cos:
        return unary_f32_pick<T, Unary::Cos>(ftz);
    case Op::Lg2:
        return unary_f32_pick<T, Unary::Lg2>(ftz);
    case Op::Ex2:
        return unary_f32_pick<T, Unary::Ex2>(ftz);
    case Op::Tanh:
        return unary_f32_pick<T, Unary::Tanh>(false); // the handler ignores .ftz
    case Op::Copysign:
        return &copysign_entry<T>;
    case Op::Testp:
        break;
    }
    return nullptr;
}

// --- cvt ---

template <class V>
D4R_INLINE V from_bits(uint64_t b) {
    if constexpr (std::is_same_v<V, float>)
        return std::bit_cast<float>(static_cast<uint32_t>(b));
    else if constexpr (std::is_same_v<V, double>)
        return std::bit_cast<double>(b);
    else
        return static_cast<V>(b); // the low bits, as the handler reads a narrow type from its slot
}

template <class V>
D4R_INLINE uint64_t to_bits(V v) {
    if constexpr (std::is_same_v<V, float>)
        return std::bit_cast<uint32_t>(v);
    else if constexpr (std::is_same_v<V, double>)
        return std::bit_cast<uint64_t>(v);
    else
        return static_cast<std::make_unsigned_t<V>>(v);
}

using CvtLane = uint64_t (*)(uint64_t a, uint16_t flags);

template <Type DT, Type AT>
uint64_t convert_entry(uint64_t bits, uint16_t flags) {
    using D = typename Repr<DT>::type;
    using A = typename Repr<AT>::type;
    const auto fr = static_cast<Round>(flags & 0xf);
    const auto ir = static_cast<Round>((flags >> 4) & 0xf);
    RoundScope scope(cvt_scope_round<DT>(fr));
    A a = from_bits<A>(bits);
    pin(a);
    D r = convert<DT, AT>(a, fr, ir, flags);
    pin(r);
    return to_bits(r);
}

// --- half precision ---

// half_op_code: the operation (bits 0-7), the type (8-15) and these modifiers.
constexpr uint32_t kHalfFtz = 1u << 16, kHalfSat = 1u << 17, kHalfRelu = 1u << 18, kHalfNaN = 1u << 19,
                   kHalfXorSign = 1u << 20;

using HalfLane = uint32_t (*)(uint32_t, uint32_t, uint32_t);

template <class E, bool Packed>
uint32_t half_entry(uint32_t a, uint32_t b, uint32_t c) {
    return half_lane<E, Packed>(a, b, c);
}

} // namespace

float compiled_f32_op(uint32_t code, float a, float b, float c) {
    const Lane<float> fn = float_pick<float>(code);
    return fn ? fn(a, b, c) : std::bit_cast<float>(kCanonicalNaN32);
}

double compiled_f64_op(uint32_t code, double a, double b, double c) {
    const Lane<double> fn = float_pick<double>(code);
    return fn ? fn(a, b, c) : std::bit_cast<double>(kCanonicalNaN64);
}

uint32_t compiled_half_op(uint32_t code, uint32_t a, uint32_t b, uint32_t c) {
    ptx::HalfArith h;
    h.op = static_cast<ptx::HalfArith::Op>(code & 0xffu);
    h.type = static_cast<Type>((code >> 8) & 0xffu);
    h.ftz = code & kHalfFtz;
    h.sat = code & kHalfSat;
    h.relu = code & kHalfRelu;
    h.nan = code & kHalfNaN;
    h.xorsign = code & kHalfXorSign;
    const HalfLane fn = pick_half<HalfLane>(h, []<class E, bool P>() -> HalfLane { return &half_entry<E, P>; });
    return fn ? fn(a, b, c) : kCanonicalNaN16;
}

// CODE: cvt_flags (bits 0-15), the destination and source types (16-23, 24-31), the form (32-39), e5m2 (40).
uint64_t compiled_cvt(uint64_t code, uint64_t a) {
    using Form = ptx::Cvt::Form;
    const auto flags = static_cast<uint16_t>(code & 0xffffu);
    const auto dt = static_cast<Type>((code >> 16) & 0xffu);
    const auto at = static_cast<Type>((code >> 24) & 0xffu);
    const auto form = static_cast<Form>((code >> 32) & 0xffu);
    const bool e5m2 = (code >> 40) & 1u;
    const bool relu = flags & kRelu;
    const auto fr = static_cast<Round>(flags & 0xf);
    const auto hi = static_cast<uint32_t>(a >> 32), lo = static_cast<uint32_t>(a);
    switch (form) {
    case Form::Convert: {
        const CvtLane fn =
            select_cvt<CvtLane>(dt, at, []<Type D, Type A>() -> CvtLane { return &convert_entry<D, A>; });
        return fn ? fn(a, flags) : 0;
    }
    case Form::Pack:
        return dt == Type::F16 ? pack_lane<Type::F16>(std::bit_cast<float>(hi), std::bit_cast<float>(lo), fr, flags)
                               : pack_lane<Type::BF16>(std::bit_cast<float>(hi), std::bit_cast<float>(lo), fr, flags);
    case Form::ToTf32:
        return select_tf32(fr, (flags & kSatFinite) != 0,
                           []<Round R, bool S>() -> uint32_t (*)(uint32_t) { return &tf32_lane<R, S>; })(lo);
    case Form::ToFp8:
        if (at == Type::F32) return f32_to_fp8x2(std::bit_cast<float>(hi), std::bit_cast<float>(lo), e5m2, relu);
        return f16x2_to_fp8x2(lo, e5m2, relu);
    case Form::FromFp8:
        return fp8x2_to_f16x2(lo, e5m2, relu);
    }
    return 0;
}

uint32_t float_op_code(const ptx::FloatArith& f) {
    return static_cast<uint32_t>(f.op) | (static_cast<uint32_t>(f.round.value_or(Round::Rn)) << 8) |
           (f.ftz ? kCodeFtz : 0) | (f.sat ? kCodeSat : 0) | (f.approx ? kCodeApprox : 0) | (f.nan ? kCodeNaN : 0) |
           (f.xorsign ? kCodeXorSign : 0);
}

uint32_t half_op_code(const ptx::HalfArith& h) {
    return static_cast<uint32_t>(h.op) | (static_cast<uint32_t>(h.type) << 8) | (h.ftz ? kHalfFtz : 0) |
           (h.sat ? kHalfSat : 0) | (h.relu ? kHalfRelu : 0) | (h.nan ? kHalfNaN : 0) | (h.xorsign ? kHalfXorSign : 0);
}

uint64_t cvt_op_code(const ptx::Cvt& c) {
    return uint64_t(cvt_flags(c)) | (uint64_t(c.dst) << 16) | (uint64_t(c.src) << 24) | (uint64_t(c.form) << 32) |
           (uint64_t(c.e5m2 ? 1 : 0) << 40);
}

} // namespace d4r::ptxsim
