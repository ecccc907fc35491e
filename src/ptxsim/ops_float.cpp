// f32/f64 arithmetic: add sub mul fma mad div (.rn .rz .rm .rp, .ftz, .sat, .approx, .full), min max
// (.NaN, .xorsign.abs), abs neg, sqrt rcp (.rn exact, .approx), rsqrt sin cos lg2 ex2 tanh (.approx),
// copysign and testp.
//
// Exactness: IEEE operations are the host's (SSE, round-to-nearest-even) or run under RoundScope for
// directed modes; fma uses the hardware FMA instruction when the CPU has one (chosen at decode time)
// and libm's correctly rounded fma otherwise. f32 NaN results are canonical (fp.h); f64 results
// propagate a NaN operand, quieted, chosen as the H200 chooses (f64_nan). Most .approx functions
// are computed in double precision and rounded once, which is within every bound the PTX ISA documents
// for them; sin/cos reduce their argument as the hardware does, div.approx gives 0 for huge divisors
// and rcp.approx.ftz.f64 works on the high word (see docs/ptxsim.md, "Approximate instructions"). The rule of
// one lane of each is in scalar_float.h (shared with the PTX JIT's helpers); here the lane loops and the dispatch.
//
// Instr use: d[0] result; s[0..2] sources in operand order; testp: pd[0] result, flags = TestpOp.
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "ptx/instr_float.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/lanes.h"
#include "ptxsim/numerics.h"
#include "ptxsim/ops.h"
#include "ptxsim/scalar_float.h"

namespace d4r::ptxsim {

namespace {

template <class T, class Op, Round R, bool Ftz, bool Sat>
Flow exec_fbin(Warp& w, const Instr& in, uint32_t mask) {
    RoundScope scope(R);
    map2<T, T, T>(w, in, mask, [](T a, T b) { return fbin_lane<T, Op, R, Ftz, Sat>(a, b); });
    return Flow::Next;
}

// Lane loops of fused multiply-add with the CPU's FMA instructions (selected only when present).
__attribute__((target("avx2,fma"))) void fma_lanes_hw(const float* a, const float* b, const float* c, float* r) {
    for (int i = 0; i < 32; ++i) r[i] = __builtin_fmaf(a[i], b[i], c[i]);
}
__attribute__((target("avx2,fma"))) void fma_lanes_hw(const double* a, const double* b, const double* c, double* r) {
    for (int i = 0; i < 32; ++i) r[i] = __builtin_fma(a[i], b[i], c[i]);
}
template <class T>
void fma_lanes_sw(const T* a, const T* b, const T* c, T* r) {
    for (int i = 0; i < 32; ++i) r[i] = std::fma(a[i], b[i], c[i]);
}

template <class T, Round R, bool Ftz, bool Sat, bool Hw>
Flow exec_fma(Warp& w, const Instr& in, uint32_t mask) {
    RoundScope scope(R);
    T a[32], b[32], c[32], r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    read_lanes(w, in.s[2], c);
    if constexpr (Ftz) {
        for (int i = 0; i < 32; ++i) {
            a[i] = flush(a[i]);
            b[i] = flush(b[i]);
            c[i] = flush(c[i]);
        }
    }
    if constexpr (Hw)
        fma_lanes_hw(a, b, c, r);
    else
        fma_lanes_sw(a, b, c, r);
    for (int i = 0; i < 32; ++i) r[i] = fma_result<T, R, Ftz, Sat>(a[i], b[i], c[i], r[i]);
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

bool cpu_has_fma() {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
    }();
    return has;
}

template <class T, Unary U, Round R, bool Ftz>
Flow exec_funary(Warp& w, const Instr& in, uint32_t mask) {
    RoundScope scope(R);
    T a[32], r[32];
    read_lanes(w, in.s[0], a);
    // The transcendental functions go through libm per lane; sqrt/rcp/abs/neg vectorise.
    for (int i = 0; i < 32; ++i) r[i] = unary_lane<T, U, R, Ftz>(a[i]);
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

Flow exec_rcp_approx_f64(Warp& w, const Instr& in, uint32_t mask) {
    map1<double, double>(w, in, mask, [](double a) { return rcp_approx_ftz_f64(a); });
    return Flow::Next;
}

template <class T, bool IsMax, bool Ftz, bool NaNMode, bool XorSignAbs>
Flow exec_fminmax(Warp& w, const Instr& in, uint32_t mask) {
    map2<T, T, T>(w, in, mask, [](T a, T b) { return minmax_lane<T, IsMax, Ftz, NaNMode, XorSignAbs>(a, b); });
    return Flow::Next;
}

template <class T>
Flow exec_copysign(Warp& w, const Instr& in, uint32_t mask) {
    map2<T, T, T>(w, in, mask, [](T a, T b) { return copysign_lane(a, b); });
    return Flow::Next;
}

template <class T>
Flow exec_testp(Warp& w, const Instr& in, uint32_t mask) {
    T a[32];
    read_lanes(w, in.s[0], a);
    const TestpOp op = static_cast<TestpOp>(in.flags);
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) r |= testp_lane(op, a[i]) ? lane_bit(i) : 0u;
    write_pred(w, in.pd[0], r, mask);
    return Flow::Next;
}

// ----- handler selection: type suffix and runtime modifiers to template instantiations (dispatch.h) -----
// f64 has no .ftz or .sat (the decoders reject them, check_f64_mods), so only its plain forms are
// instantiated.

template <class Op>
ExecFn fbin_fn(Type t, Round r, bool ftz, bool sat) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        return select_round(r, [&]<Round R>() {
            if constexpr (std::is_same_v<T, double>)
                return &exec_fbin<T, Op, R, false, false>;
            else
                return select_flags<2>({ftz, sat}, []<bool F, bool S>() { return &exec_fbin<T, Op, R, F, S>; });
        });
    });
}

ExecFn fma_fn(Type t, Round r, bool ftz, bool sat) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        return select_round(r, [&]<Round R>() {
            if constexpr (std::is_same_v<T, double>)
                return select_flags<1>({cpu_has_fma()}, []<bool Hw>() { return &exec_fma<T, R, false, false, Hw>; });
            else
                return select_flags<3>({ftz, sat, cpu_has_fma()},
                                       []<bool F, bool S, bool Hw>() { return &exec_fma<T, R, F, S, Hw>; });
        });
    });
}

// sqrt and rcp: every rounding mode.
template <Unary U>
ExecFn unary_fn(Type t, Round r, bool ftz) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        return select_round(r, [&]<Round R>() {
            if constexpr (std::is_same_v<T, double>)
                return &exec_funary<T, U, R, false>;
            else
                return select_flags<1>({ftz}, []<bool F>() { return &exec_funary<T, U, R, F>; });
        });
    });
}

// abs, neg and the .approx functions: round to nearest only. F64_FTZ: the f64 form takes .ftz
// (rsqrt.approx.ftz.f64).
template <Unary U, bool F64Ftz = false>
ExecFn unary_rn_fn(Type t, bool ftz) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        if constexpr (std::is_same_v<T, double> && !F64Ftz)
            return &exec_funary<T, U, Round::Rn, false>;
        else
            return select_flags<1>({ftz}, []<bool F>() { return &exec_funary<T, U, Round::Rn, F>; });
    });
}

// sin cos lg2 ex2 .approx, which have an .f32 form only.
template <Unary U>
ExecFn unary_f32_fn(bool ftz) {
    return select_flags<1>({ftz}, []<bool F>() { return &exec_funary<float, U, Round::Rn, F>; });
}

// The family's meaning is the front end's (ptx/instr_float.h); here the handler and operands.
Status emit_float(InstrDecoder& d, const ptx::FloatArith& f) {
    using Op = ptx::FloatArith::Op;
    const Type t = f.type;
    const Round round = f.round.value_or(Round::Rn);
    switch (f.op) {
    case Op::Add:
        return d.emit_op(fbin_fn<FAdd>(t, round, f.ftz, f.sat), t, 2);
    case Op::Sub:
        return d.emit_op(fbin_fn<FSub>(t, round, f.ftz, f.sat), t, 2);
    case Op::Mul:
        return d.emit_op(fbin_fn<FMul>(t, round, f.ftz, f.sat), t, 2);
    case Op::Fma:
        // A fma fused from a mul and a sub (contract.h) negates its operands with neg first (emit_fma).
        return d.emit_fma(fma_fn(t, round, f.ftz, f.sat), unary_rn_fn<Unary::Neg>(t, false), t);
    case Op::Div:
        // .approx (for |b| <= 2^126) and .full are within 2 ulp on hardware; the exact quotient is within
        // that bound. div.approx by |b| > 2^126 gives 0 (FDivApprox).
        return d.emit_op(
            t == Type::F32 && f.approx
                ? select_flags<1>({f.ftz}, []<bool F>() { return &exec_fbin<float, FDivApprox, Round::Rn, F, false>; })
                : fbin_fn<FDiv>(t, round, f.ftz, false),
            t, 2);
    case Op::Min:
    case Op::Max: {
        const bool is_max = f.op == Op::Max;
        ExecFn fn = by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
            if constexpr (std::is_same_v<T, double>) // no modifiers on f64
                return select_flags<1>({is_max}, []<bool M>() { return &exec_fminmax<T, M, false, false, false>; });
            else
                return select_flags<4>({is_max, f.ftz, f.nan, f.xorsign},
                                       []<bool M, bool F, bool N, bool X>() { return &exec_fminmax<T, M, F, N, X>; });
        });
        return d.emit_op(fn, t, 2);
    }
    case Op::Abs:
        return d.emit_op(unary_rn_fn<Unary::Abs>(t, f.ftz), t, 1);
    case Op::Neg:
        return d.emit_op(unary_rn_fn<Unary::Neg>(t, f.ftz), t, 1);
    case Op::Sqrt:
        // .approx is within 2^-23 relative: the exact result satisfies it.
        return d.emit_op(unary_fn<Unary::Sqrt>(t, round, f.ftz), t, 1);
    case Op::Rcp:
        // .approx.f32 is within 1 ulp: the exact result satisfies it; rcp.approx.ftz.f64 is its own rule.
        return d.emit_op(t == Type::F64 && f.approx ? &exec_rcp_approx_f64 : unary_fn<Unary::Rcp>(t, round, f.ftz), t,
                         1);
    case Op::Rsqrt:
        return d.emit_op(unary_rn_fn<Unary::Rsqrt, true>(t, f.ftz), t, 1);
    case Op::Sin:
        return d.emit_op(unary_f32_fn<Unary::Sin>(f.ftz), t, 1);
    case Op::Cos:
        return d.emit_op(unary_f32_fn<Unary::Cos>(f.ftz), t, 1);
    case Op::Lg2:
        return d.emit_op(unary_f32_fn<Unary::Lg2>(f.ftz), t, 1);
    case Op::Ex2:
        return d.emit_op(unary_f32_fn<Unary::Ex2>(f.ftz), t, 1);
    case Op::Tanh:
        return d.emit_op(&exec_funary<float, Unary::Tanh, Round::Rn, false>, t, 1);
    case Op::Copysign:
        return d.emit_op(by_type<kFloatTypes>(t, []<class T>(TypeTag<T>) { return &exec_copysign<T>; }), t, 2);
    case Op::Testp: {
        int16_t p = D4R_TRY(d.pred_dst(d.operand(0)));
        uint32_t a = D4R_TRY(d.src(1, t));
        Instr& in = d.emit(by_type<kFloatTypes>(t, []<class T>(TypeTag<T>) { return &exec_testp<T>; }));
        in.pd[0] = p;
        in.s[0] = a;
        in.flags = static_cast<uint16_t>(f.test);
        return ok_status();
    }
    }
    return d.error("unknown floating-point operation");
}

Status decode_float_family(InstrDecoder& d) { return emit_float(d, D4R_TRY(d.typed(ptx::decode_float))); }

Status decode_float_unary_entry(InstrDecoder& d) {
    if (is_half_type(d.mods().peek_type())) return decode_half_unary(d);
    return decode_float_family(d);
}

} // namespace

Status decode_float_arith(InstrDecoder& d) {
    if (is_half_type(d.mods().peek_type())) return decode_half_arith(d);
    return decode_float_family(d);
}

void add_float_ops(OpcodeTable& t) {
    t["fma"] = &decode_float_arith;
    for (const char* name : {"sqrt", "rcp", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"})
        t[name] = &decode_float_unary_entry;
    t["copysign"] = &decode_float_family;
    t["testp"] = &decode_float_family;
}

} // namespace d4r::ptxsim
