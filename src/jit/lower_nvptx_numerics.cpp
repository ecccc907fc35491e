// Lowering for LLVM's NVPTX back end (lower_nvptx.cpp): f32/f64 arithmetic, cvt and half precision where the IR the
// host lowering shares (lower_float.cpp, lower_half.cpp) cannot spell the instruction: the NVVM intrinsic of the same
// instruction, exact IR around one, or (LLVM 19 lacking the intrinsic) the instruction as inline PTX.
#include <fmt/format.h>

#include "jit/float_rules.h"
#include "jit/lower_impl.h"

namespace d4r::jit {

using ptx::Round;

namespace {

const char* round_name(Round r) {
    switch (r) {
    case Round::Rn:
        return "rn";
    case Round::Rz:
        return "rz";
    case Round::Rm:
        return "rm";
    case Round::Rp:
        return "rp";
    case Round::Rna:
        return "rna";
    }
    return "rn";
}

// .satfinite of N f16 (bf16) values in WORD, an integer of 16 N bits rounded to nearest: an infinity (from an
// infinite input or from rounding past the largest finite value) becomes the largest finite value of its sign; NaNs
// stay.
LLVMValueRef satfinite_f16(IrBuilder& ir, LLVMValueRef word, bool bf, unsigned n) {
    LLVMTypeRef t = ir.int_type(16 * n);
    const uint64_t inf = bf ? 0x7f80 : 0x7c00, largest = bf ? 0x7f7f : 0x7bff;
    for (unsigned k = 0; k < n; ++k) {
        const uint64_t shift = 16 * k;
        LLVMValueRef mag = ir.and_(word, ir.constant(t, 0x7fffull << shift));
        LLVMValueRef infinite = ir.icmp(abi::D4R_LLVMIntEQ, mag, ir.constant(t, inf << shift));
        LLVMValueRef sign = ir.and_(word, ir.constant(t, 0x8000ull << shift));
        LLVMValueRef others = ir.and_(word, ir.constant(t, ~(0xffffull << shift)));
        LLVMValueRef saturated = ir.or_(others, ir.or_(sign, ir.constant(t, largest << shift)));
        word = ir.select(infinite, saturated, word);
    }
    return word;
}

} // namespace

// The f32/f64 forms the IR does not spell (lower_float.cpp): directed rounding, the .approx and .full forms,
// .xorsign.abs, as the NVVM intrinsic of the same instruction; .sat (which no f32 intrinsic but add/mul takes) as
// the host lowering spells it, on the rounded result.
Status Lowering::nv_float(const ptx::FloatArith& op, const std::vector<LLVMValueRef>& s) {
    using Op = ptx::FloatArith::Op;
    const ast::Instruction& in = *current;
    const bool f32 = op.type == Type::F32;
    FloatRules fr{ir, f32};
    const char* suffix = f32 ? "f" : "d";
    const std::string ftz = op.ftz ? ".ftz" : "";
    LLVMTypeRef ft = fr.type();
    LLVMValueRef r = nullptr;
    auto call = [&](const std::string& name, std::initializer_list<LLVMValueRef> args) -> Expected<LLVMValueRef> {
        return nvvm(name, {}, args);
    };
    const bool directed = op.round && *op.round != Round::Rn;
    const std::string rnd = op.round ? round_name(*op.round) : "rn";
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Fma:
    case Op::Div:
    case Op::Sqrt:
    case Op::Rcp: {
        if (op.approx || op.full) {
            std::string name;
            if (op.op == Op::Div && op.approx && f32) name = "llvm.nvvm.div.approx" + ftz + ".f";
            if (op.op == Op::Div && op.full && f32) name = "llvm.nvvm.div.full" + ftz;
            if (op.op == Op::Sqrt && op.approx && f32) name = "llvm.nvvm.sqrt.approx" + ftz + ".f";
            if (op.op == Op::Rcp && op.approx && f32) name = "llvm.nvvm.rcp.approx" + ftz + ".f";
            if (op.op == Op::Rcp && op.approx && !f32 && op.ftz) name = "llvm.nvvm.rcp.approx.ftz.d";
            if (name.empty()) return refuse("this approximate form has no NVPTX lowering");
            std::vector<LLVMValueRef> args = {s[0]};
            if (op.op == Op::Div) args.push_back(s[1]);
            if (ir.has_intrinsic(name)) {
                r = ir.intrinsic_call(name, args);
            } else { // div.full and rcp.approx.f32 have no intrinsic in LLVM 19
                const char* base = op.op == Op::Div ? "div" : op.op == Op::Sqrt ? "sqrt" : "rcp";
                const std::string text = fmt::format("{}.{}{}.{} $0, $1{};", base, op.full ? "full" : "approx", ftz,
                                                     f32 ? "f32" : "f64", op.op == Op::Div ? ", $2" : "");
                r = D4R_TRY(nv_inline(text, text, {ft}, args))[0];
            }
            break;
        }
        if (!directed && !op.ftz) return refuse("internal: a round-to-nearest form not spelled in IR");
        const char* base = op.op == Op::Mul    ? "mul"
                           : op.op == Op::Fma  ? "fma"
                           : op.op == Op::Div  ? "div"
                           : op.op == Op::Sqrt ? "sqrt"
                           : op.op == Op::Rcp  ? "rcp"
                                               : "add";
        const std::string name = fmt::format("llvm.nvvm.{}.{}{}.{}", base, rnd, f32 ? ftz : "", suffix);
        if (op.op == Op::Sub) // a - b as a + (-b): the same rounding, exactly (negation is exact)
            r = D4R_TRY(call(name, {s[0], fr.neg_or_abs(s[1], false)}));
        else if (op.op == Op::Fma)
            r = D4R_TRY(call(name, {s[0], s[1], s[2]}));
        else if (op.op == Op::Sqrt || op.op == Op::Rcp)
            r = D4R_TRY(call(name, {s[0]}));
        else
            r = D4R_TRY(call(name, {s[0], s[1]}));
        if (op.sat) r = fr.saturate(r);
        break;
    }
    case Op::Min:
    case Op::Max: {
        if (!op.xorsign || !f32) return refuse("internal: a min/max form not spelled in IR");
        const std::string name =
            fmt::format("llvm.nvvm.f{}{}{}.xorsign.abs.f", op.op == Op::Min ? "min" : "max", ftz, op.nan ? ".nan" : "");
        r = D4R_TRY(call(name, {s[0], s[1]}));
        break;
    }
    case Op::Rsqrt:
    case Op::Sin:
    case Op::Cos:
    case Op::Lg2:
    case Op::Ex2: {
        const char* base = op.op == Op::Rsqrt ? "rsqrt"
                           : op.op == Op::Sin ? "sin"
                           : op.op == Op::Cos ? "cos"
                           : op.op == Op::Lg2 ? "lg2"
                                              : "ex2";
        std::string name = fmt::format("llvm.nvvm.{}.approx{}.{}", base, f32 ? ftz : "", suffix);
        if (!f32 && op.ftz) name = fmt::format("llvm.nvvm.{}.approx.ftz.d", base);
        r = D4R_TRY(call(name, {s[0]}));
        break;
    }
    case Op::Tanh: {
        if (!f32) return refuse("tanh.approx of f64");
        const std::string text = fmt::format("tanh.approx{}.f32 $0, $1;", ftz);
        r = D4R_TRY(nv_inline("tanh.approx.f32", text, {ft}, {s[0]}))[0];
        break;
    }
    default:
        return refuse("this floating-point instruction has no NVPTX lowering");
    }
    return assign(in.operands[0], op.type, r);
}

// cvt forms the IR does not spell (lower_float.cpp): directed rounding of floats (d2f, i2f, ...), the half
// conversions, the packed ones; each the NVVM intrinsic of that instruction, or IR where IR's rounding is the PTX
// instruction's (fpext, and fptrunc to f16/bf16, both round to nearest even).
Status Lowering::nv_cvt(const ptx::Cvt& op) {
    using Form = ptx::Cvt::Form;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const Type dt = op.dst, at = op.src;
    const Round round = op.round.value_or(Round::Rn);
    const std::string rnd = round_name(round);
    auto half_type = [&](Type t) { return t == Type::BF16 || t == Type::BF16x2 ? ir.bf16 : ir.f16; };
    auto is_half = [](Type t) { return t == Type::F16 || t == Type::BF16; };
    if (op.form == Form::Pack) { // cvt.rn|rz{.relu}.f16x2|bf16x2.f32 d, a, b: a in the high half
        if (round != Round::Rn && round != Round::Rz) return refuse("a packed conversion rounding other than rn/rz");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::F32)), b = D4R_TRY(value(in.operands[2], Type::F32));
        const bool bf = dt == Type::BF16; // the decoder gives a pair's element type
        const std::string name =
            fmt::format("llvm.nvvm.ff2{}x2.{}{}", bf ? "bf16" : "f16", rnd, op.relu ? ".relu" : "");
        LLVMValueRef r = l.LLVMBuildBitCast(ir.builder(), D4R_TRY(nvvm(name, {}, {a, b})), ir.i32, "");
        if (op.satfinite) r = satfinite_f16(ir, r, bf, 2);
        return assign(in.operands[0], Type::B32, r);
    }
    if (op.form == Form::ToFp8 || op.form == Form::FromFp8) { // no intrinsics in LLVM 19: the instruction itself
        const char* fp8 = op.e5m2 ? "e5m2x2" : "e4m3x2";
        const std::string relu = op.relu ? ".relu" : "";
        if (op.form == Form::FromFp8) {
            const std::string text = fmt::format("cvt.rn{}.f16x2.{} $0, $1;", relu, fp8);
            LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B16));
            return assign(in.operands[0], Type::B32, D4R_TRY(nv_inline(text, text, {ir.i32}, {a}))[0]);
        }
        if (!op.satfinite) return refuse("a conversion to FP8 without .satfinite");
        if (op.src == Type::F32) {
            const std::string text = fmt::format("cvt.rn.satfinite{}.{}.f32 $0, $1, $2;", relu, fp8);
            LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::F32)), b = D4R_TRY(value(in.operands[2], Type::F32));
            return assign(in.operands[0], Type::B16, D4R_TRY(nv_inline(text, text, {ir.i16}, {a, b}))[0]);
        }
        const std::string text = fmt::format("cvt.rn.satfinite{}.{}.f16x2 $0, $1;", relu, fp8);
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B32));
        return assign(in.operands[0], Type::B16, D4R_TRY(nv_inline(text, text, {ir.i16}, {a}))[0]);
    }
    if (op.form != Form::Convert) return refuse("this cvt form has no NVPTX lowering in LLVM 19");
    if (op.satfinite && !(is_half(dt) && at == Type::F32 && round == Round::Rn))
        return refuse("cvt .satfinite of these types has no NVPTX lowering in LLVM 19");
    const bool f_dst = dt == Type::F32 || dt == Type::F64, f_src = at == Type::F32 || at == Type::F64;
    const bool i_src = ptx::is_integer(at);
    // From f16/bf16: exact (fpext), then as from f32/f64.
    if (is_half(at)) {
        if (!f_dst || op.relu || op.sat || op.int_round) return refuse("this conversion from a half type");
        LLVMValueRef h = ir.bitcast(D4R_TRY(value(in.operands[1], Type::B16)), half_type(at));
        return assign(in.operands[0], dt, ir.fpext(h, llvm_type(dt)));
    }
    // To f16/bf16.
    if (is_half(dt)) {
        const bool bf = dt == Type::BF16;
        // The conversion of an f32 toward zero or to nearest (.relu), as 16 bits: f2bf16, or the low half of the
        // packed conversion of (0, x).
        auto from_f32 = [&](LLVMValueRef x, const std::string& mode) -> Expected<LLVMValueRef> {
            if (bf) return ir.bitcast(D4R_TRY(nvvm(fmt::format("llvm.nvvm.f2bf16.{}", mode), {}, {x})), ir.i16);
            LLVMValueRef pair = D4R_TRY(nvvm(fmt::format("llvm.nvvm.ff2f16x2.{}", mode), {}, {ir.f32_bits(0), x}));
            return ir.trunc(l.LLVMBuildBitCast(ir.builder(), pair, ir.i32, ""), ir.i16);
        };
        LLVMValueRef bits = nullptr;
        if (op.relu) {
            if (at != Type::F32 || (round != Round::Rn && round != Round::Rz)) return refuse("this .relu conversion");
            bits = D4R_TRY(from_f32(D4R_TRY(value(in.operands[1], Type::F32)), rnd + ".relu"));
        } else if (round == Round::Rn && f_src && !op.ftz) { // fptrunc rounds to nearest even, as cvt.rn does
            bits = ir.bitcast(ir.fptrunc(D4R_TRY(value(in.operands[1], at)), half_type(dt)), ir.i16);
        } else if (round == Round::Rn && i_src && !op.sat) { // cvt.rn.f16.s32 and the like
            const bool wide = ptx::type_bits(at) == 64, is_signed = ptx::is_signed(at);
            LLVMValueRef a = ir.resize(D4R_TRY(value(in.operands[1], at)), wide ? 64 : 32, is_signed);
            bits = ir.bitcast(is_signed ? ir.sitofp(a, half_type(dt)) : ir.uitofp(a, half_type(dt)), ir.i16);
        } else if (round != Round::Rn && !op.ftz && !op.sat && !op.satfinite &&
                   (f_src || (i_src && ptx::type_bits(at) <= 32))) {
            // A directed rounding: toward zero through f32 (rz of rz is rz: the f16 and bf16 values are f32
            // values), then .rm/.rp step the magnitude one unit up where the result is inexact and the rounding is
            // away from zero for its sign (an overflow then reaches the infinity, an underflow the least subnormal).
            LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
            LLVMValueRef wide = nullptr; // the source, exactly, in f64
            LLVMValueRef negative = nullptr, nan = ir.constant(ir.i1, 0);
            LLVMValueRef x = nullptr;
            if (f_src) {
                FloatRules src{ir, at == Type::F32};
                wide = at == Type::F32 ? ir.fpext(a, ir.f64) : a;
                negative = ir.icmp(abi::D4R_LLVMIntNE, ir.and_(src.bits(a), src.k(src.sign_bit())), src.k(0));
                nan = src.is_nan(a);
                x = at == Type::F32 ? a : D4R_TRY(nvvm("llvm.nvvm.d2f.rz", {}, {a}));
            } else {
                const bool is_signed = ptx::is_signed(at);
                LLVMValueRef a32 = ir.resize(a, 32, is_signed);
                wide = is_signed ? ir.sitofp(a32, ir.f64) : ir.uitofp(a32, ir.f64);
                negative =
                    is_signed ? ir.icmp(abi::D4R_LLVMIntSLT, a32, ir.constant(ir.i32, 0)) : ir.constant(ir.i1, 0);
                // (not llvm.nvvm.i2f.rz, which LLVM 19's InstCombine makes a conversion to nearest)
                const std::string text = fmt::format("cvt.rz.f32.{}32 $0, $1;", is_signed ? "s" : "u");
                x = D4R_TRY(nv_inline(text, text, {ir.f32}, {a32}))[0];
            }
            bits = D4R_TRY(from_f32(x, "rz"));
            if (round == Round::Rm || round == Round::Rp) {
                LLVMValueRef back = ir.fpext(ir.bitcast(bits, half_type(dt)), ir.f64);
                LLVMValueRef inexact = ir.and_(ir.fcmp(abi::D4R_LLVMRealUNE, back, wide), ir.not_(nan));
                LLVMValueRef away = round == Round::Rm ? negative : ir.not_(negative);
                bits = ir.select(ir.and_(inexact, away), ir.add(bits, ir.constant(ir.i16, 1)), bits);
            } else if (round != Round::Rz) {
                return refuse("this rounding to a half type");
            }
            if (at == Type::F64) { // a NaN keeps its sign and the top of its payload, quieted (ptxsim's narrow_nan)
                const uint64_t mantissa = bf ? 7 : 10, inf = bf ? 0x7f80 : 0x7c00;
                LLVMValueRef b = ir.bitcast(a, ir.i64);
                LLVMValueRef sign = ir.trunc(ir.lshr(b, ir.constant(ir.i64, 48)), ir.i16);
                sign = ir.and_(sign, ir.constant(ir.i16, 0x8000));
                LLVMValueRef payload = ir.trunc(
                    ir.lshr(ir.and_(b, ir.constant(ir.i64, 0x000fffffffffffffull)), ir.constant(ir.i64, 52 - mantissa)),
                    ir.i16);
                LLVMValueRef quiet = ir.constant(ir.i16, inf | (1ull << (mantissa - 1)));
                bits = ir.select(nan, ir.or_(sign, ir.or_(payload, quiet)), bits);
            }
        } else {
            return refuse("this conversion to a half type has no NVPTX lowering in LLVM 19");
        }
        if (op.satfinite) bits = satfinite_f16(ir, bits, bf, 1);
        return assign(in.operands[0], Type::B16, bits);
    }
    if (op.relu) return refuse("cvt .relu of this type");
    // Integer to float with a directed rounding: i2f/ui2f/ll2f/ull2f (f32), ll2d/ull2d (f64; 32-bit ones are exact).
    if (i_src && f_dst) {
        const bool wide = ptx::type_bits(at) == 64;
        const bool is_signed = ptx::is_signed(at);
        LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
        LLVMValueRef r = nullptr;
        if (dt == Type::F64 && !wide) {
            r = is_signed ? ir.sitofp(a, ir.f64) : ir.uitofp(a, ir.f64);
        } else if (round == Round::Rz) {
            // LLVM 19's InstCombine turns llvm.nvvm.{i,ui,ll,ull}2{f,d}.rz into sitofp/uitofp, which round to
            // nearest (found by this round trip on the corpus case cvt_i2f): the instruction itself instead.
            a = ir.resize(a, wide ? 64 : 32, is_signed);
            const std::string text = fmt::format("cvt.rz.{}.{}{} $0, $1;", dt == Type::F32 ? "f32" : "f64",
                                                 is_signed ? "s" : "u", wide ? 64 : 32);
            r = D4R_TRY(nv_inline(text, text, {llvm_type(dt)}, {a}))[0];
        } else {
            a = ir.resize(a, wide ? 64 : 32, is_signed);
            const std::string name = fmt::format("llvm.nvvm.{}{}2{}.{}", is_signed ? "" : "u", wide ? "ll" : "i",
                                                 dt == Type::F32 ? "f" : "d", rnd);
            r = D4R_TRY(nvvm(name, {}, {a}));
        }
        FloatRules fr{ir, dt == Type::F32};
        if (dt == Type::F32 && op.ftz) r = fr.flush(r);
        if (op.sat) r = fr.saturate(r);
        return assign(in.operands[0], dt, r);
    }
    // f64 to f32 with a directed rounding (d2f), f32 to f32/f64 the same.
    if (f_src && f_dst && at == Type::F64 && dt == Type::F32) {
        LLVMValueRef a = D4R_TRY(value(in.operands[1], at));
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.d2f.{}{}", rnd, op.ftz ? ".ftz" : ""), {}, {a}));
        FloatRules fr{ir, true};
        if (op.sat) r = fr.saturate(r);
        return assign(in.operands[0], dt, r);
    }
    return refuse("this cvt has no NVPTX lowering");
}

// Half precision (f16, bf16 and their pairs): add, sub and mul as the fma intrinsic of their modifiers with a
// neutral operand (a + b = fma(a, 1, b), a - b = fma(b, -1, a), a * b = fma(a, b, -0): one rounding, the same
// zeros and NaNs), min/max/ex2 as their intrinsics, neg as LLVM's fneg (neg.f16), bf16 neg/abs as theirs.
Status Lowering::nv_half(const ptx::HalfArith& op) {
    using Op = ptx::HalfArith::Op;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const bool bf = op.type == Type::BF16 || op.type == Type::BF16x2;
    const bool packed = op.type == Type::F16x2 || op.type == Type::BF16x2;
    LLVMTypeRef et = bf ? ir.bf16 : ir.f16;
    LLVMTypeRef vt = packed ? ir.vector_of(et, 2) : et;
    const std::string suffix = std::string(bf ? "bf16" : "f16") + (packed ? "x2" : "");
    std::vector<LLVMValueRef> s;
    for (unsigned k = 0; k < op.sources; ++k) s.push_back(ir.bitcast(D4R_TRY(value(in.operands[1 + k], op.reg)), vt));
    auto constant = [&](uint16_t f16_bits, uint16_t bf16_bits) {
        LLVMValueRef one = ir.bitcast(ir.constant(ir.i16, bf ? bf16_bits : f16_bits), et);
        if (!packed) return one;
        LLVMValueRef v = ir.insert(ir.undef(vt), one, 0);
        return ir.insert(v, one, 1);
    };
    const std::string mods = std::string(op.ftz ? ".ftz" : "") + (op.sat ? ".sat" : "") + (op.relu ? ".relu" : "");
    LLVMValueRef r = nullptr;
    switch (op.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Fma: {
        if (op.round && *op.round != Round::Rn) return refuse("a half rounding other than .rn");
        const std::string name = fmt::format("llvm.nvvm.fma.rn{}.{}", mods, suffix);
        LLVMValueRef one = constant(0x3c00, 0x3f80), minus_one = constant(0xbc00, 0xbf80),
                     minus_zero = constant(0x8000, 0x8000);
        if (op.op == Op::Add) r = D4R_TRY(nvvm(name, {}, {s[0], one, s[1]}));
        if (op.op == Op::Sub) r = D4R_TRY(nvvm(name, {}, {s[1], minus_one, s[0]}));
        if (op.op == Op::Mul) r = D4R_TRY(nvvm(name, {}, {s[0], s[1], minus_zero}));
        if (op.op == Op::Fma) r = D4R_TRY(nvvm(name, {}, {s[0], s[1], s[2]}));
        break;
    }
    case Op::Min:
    case Op::Max: {
        const std::string name =
            fmt::format("llvm.nvvm.f{}{}{}{}.{}", op.op == Op::Min ? "min" : "max", op.ftz ? ".ftz" : "",
                        op.nan ? ".nan" : "", op.xorsign ? ".xorsign.abs" : "", suffix);
        r = D4R_TRY(nvvm(name, {}, {s[0], s[1]}));
        break;
    }
    case Op::Ex2:
    case Op::Tanh: {
        const char* base = op.op == Op::Ex2 ? "ex2" : "tanh";
        const std::string name = fmt::format("llvm.nvvm.{}.approx{}.{}", base, op.ftz ? ".ftz" : "", suffix);
        if (ir.has_intrinsic(name)) {
            r = ir.intrinsic_call(name, {s[0]});
            break;
        }
        // ex2.approx.ftz.bf16 and tanh.approx have no intrinsic in LLVM 19: on the register's bits.
        LLVMTypeRef word = ir.int_type(ptx::type_bits(op.reg));
        const std::string text = fmt::format("{}.approx{}.{} $0, $1;", base, op.ftz ? ".ftz" : "", suffix);
        LLVMValueRef w = l.LLVMBuildBitCast(ir.builder(), s[0], word, "");
        return assign(in.operands[0], op.reg, D4R_TRY(nv_inline(text, text, {word}, {w}))[0]);
    }
    case Op::Neg:
    case Op::Abs: {
        if (bf) { // neg.bf16 and abs.bf16 have intrinsics (and no .ftz form)
            if (op.ftz) return refuse(".ftz of a bf16 neg or abs");
            r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.{}.{}", op.op == Op::Neg ? "neg" : "abs", suffix), {}, {s[0]}));
            break;
        }
        if (op.op == Op::Abs || op.ftz) {
            // LLVM 19 widens fabs of f16 to f32 (cvt, abs.f32, cvt: another NaN) and has no .ftz form: the
            // instruction itself, on the register's bits.
            LLVMTypeRef word = ir.int_type(ptx::type_bits(op.reg));
            const std::string text =
                fmt::format("{}{}.{} $0, $1;", op.op == Op::Neg ? "neg" : "abs", op.ftz ? ".ftz" : "", suffix);
            LLVMValueRef w = l.LLVMBuildBitCast(ir.builder(), s[0], word, "");
            return assign(in.operands[0], op.reg, D4R_TRY(nv_inline(text, text, {word}, {w}))[0]);
        }
        r = l.LLVMBuildFNeg(ir.builder(), s[0], ""); // neg.f16 / neg.f16x2
        break;
    }
    }
    return assign(in.operands[0], op.reg, l.LLVMBuildBitCast(ir.builder(), r, ir.int_type(ptx::type_bits(op.reg)), ""));
}

} // namespace d4r::jit
