// The matrix instructions' meaning (see instr_matrix.h).
#include "ptx/instr_matrix.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;

ElementFormat format_of(std::string_view t) {
    return t == "f16"    ? ElementFormat::F16
           : t == "bf16" ? ElementFormat::BF16
           : t == "e4m3" ? ElementFormat::E4M3
           : t == "e5m2" ? ElementFormat::E5M2
                         : ElementFormat::F32;
}

Expected<MatrixOp> decode_mma(const ast::Instruction& in, Modifiers& m) {
    if (!m.take("sync") || !m.take("aligned")) return unsupported("mma needs .sync.aligned");
    const std::string_view shape = m.take_any({"m16n8k8", "m16n8k16", "m16n8k32"});
    if (shape.empty()) return unsupported("mma shape not supported (m16n8k8, m16n8k16, m16n8k32 are)");
    if (!m.take("row") || !m.take("col") || in.opcode.find(".row.col") == std::string_view::npos)
        return unsupported("mma layouts other than .row.col are not supported");
    std::string_view types[4];
    for (auto& t : types) t = m.take_any({"f32", "f16", "bf16", "e4m3", "e5m2"});
    D4R_TRY(finish(m));
    for (auto& t : types)
        if (t.empty()) return unsupported("mma needs .dtype.atype.btype.ctype");
    const std::string_view dt = types[0], at = types[1], bt = types[2], ct = types[3];
    if (dt != ct) return unsupported("mma with different result and accumulator types is not supported");
    if (dt != "f32" && dt != "f16") return unsupported("mma accumulators must be .f32 or .f16");
    const bool fp8 = (at == "e4m3" || at == "e5m2") && (bt == "e4m3" || bt == "e5m2");
    const bool acc16 = dt == "f16";
    MatrixOp x;
    x.k = shape == "m16n8k8" ? 8 : shape == "m16n8k16" ? 16 : 32;
    if (fp8) {
        if (x.k != 32) return unsupported("FP8 mma needs shape m16n8k32");
    } else {
        if (at != bt || (at != "f16" && at != "bf16")) return unsupported("mma input types not supported");
        if (x.k == 32) return unsupported("m16n8k32 needs FP8 inputs");
        if (at == "bf16" && acc16) return unsupported("bf16 mma needs .f32 accumulators");
    }
    D4R_TRY(expect_operands(in, 4));
    x.op = MatrixOp::Op::Mma;
    x.accumulator = acc16 ? Type::F16 : Type::F32;
    x.a = format_of(at);
    x.b = format_of(bt);
    x.a_regs = x.k == 8 ? 2 : 4;
    x.b_regs = x.k == 8 ? 1 : 2;
    x.c_regs = acc16 ? 2 : 4;
    return x;
}

Expected<MatrixOp> decode_ldmatrix(const ast::Instruction& in, Modifiers& m) {
    if (!m.take("sync") || !m.take("aligned")) return unsupported("ldmatrix needs .sync.aligned");
    if (!m.take("m8n8")) return unsupported("ldmatrix shape not supported (m8n8 is)");
    const std::string_view num = m.take_any({"x1", "x2", "x4"});
    MatrixOp x;
    x.op = MatrixOp::Op::LoadMatrix;
    x.transpose = m.take("trans");
    const std::string_view space = m.take_any({"shared", "shared::cta"});
    const bool b16 = m.take("b16");
    D4R_TRY(finish(m));
    if (num.empty() || !b16) return unsupported("ldmatrix needs .x1/.x2/.x4 and .b16");
    x.matrices = static_cast<unsigned>(num[1] - '0');
    x.space = decode::state_space(space);
    D4R_TRY(expect_operands(in, 2));
    return x;
}

} // namespace

Expected<MatrixOp> decode_matrix(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    if (m.base() == "mma") return decode_mma(in, m);
    if (m.base() == "ldmatrix") return decode_ldmatrix(in, m);
    return unsupported(fmt::format("'{}' is not a matrix instruction d4r types", m.base()));
}

} // namespace d4r::ptx
