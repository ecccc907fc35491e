// The warpgroup matrix instructions' meaning (see instr_wgmma.h).
#include "ptx/instr_wgmma.h"

#include <charconv>

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;

// The N of "m64nNk16", or 0 when SHAPE is not one.
unsigned shape_n(std::string_view shape) {
    if (shape.size() < 8 || shape.substr(0, 4) != "m64n" || shape.substr(shape.size() - 3) != "k16") return 0;
    const std::string_view digits = shape.substr(4, shape.size() - 7);
    unsigned n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) return 0;
    return n;
}

// imm-scale-a / imm-scale-b: 1 or -1 (true for -1).
Expected<bool> negative_scale(const ast::Operand& o, const char* what) {
    if (o.kind == ast::OperandKind::Integer && (o.integer == 1 || static_cast<int64_t>(o.integer) == -1))
        return static_cast<int64_t>(o.integer) == -1;
    return unsupported(fmt::format("wgmma {} must be the constant 1 or -1", what));
}

Expected<Wgmma> decode_mma_async(const ast::Instruction& in, Modifiers& m) {
    if (!m.take("sync") || !m.take("aligned")) return unsupported("wgmma.mma_async needs .sync.aligned");
    Wgmma x;
    x.op = Wgmma::Op::Mma;
    const std::string_view shape = m.leftover(); // the shape comes first after .sync.aligned
    if (shape_n(shape) == 0)
        return unsupported("wgmma shape not supported (m64nNk16 with f16/bf16 inputs is, N a multiple of 8 to 256)");
    x.n = shape_n(shape);
    m.take(shape);
    if (x.n % 8 != 0 || x.n > 256) return unsupported(fmt::format("wgmma shape .{}: N must be 8, 16, ... 256", shape));
    std::string_view types[3];
    for (auto& t : types) t = m.take_any({"f32", "f16", "bf16"});
    D4R_TRY(finish(m));
    if (types[0].empty() || types[1].empty() || types[2].empty())
        return unsupported("wgmma needs .dtype.atype.btype (.f32 or .f16, then .f16.f16 or .bf16.bf16)");
    if (types[1] != types[2] || types[1] == "f32") return unsupported("wgmma input types not supported");
    if (types[0] == "bf16") return unsupported("wgmma accumulators must be .f32 or .f16");
    x.input = types[1] == "f16" ? ElementFormat::F16 : ElementFormat::BF16;
    x.accumulator = types[0] == "f16" ? Type::F16 : Type::F32;
    if (x.input == ElementFormat::BF16 && x.accumulator == Type::F16)
        return unsupported("bf16 wgmma needs .f32 accumulators");
    x.d_regs = x.accumulator == Type::F32 ? x.n / 2 : x.n / 4;
    if (in.operands.size() < 2) D4R_TRY(expect_operands(in, 8));
    x.a_registers = in.operands[1].kind == ast::OperandKind::Vector;
    D4R_TRY(expect_operands(in, x.a_registers ? 7 : 8));
    if (const ast::Operand& d = in.operands[3]; d.kind == ast::OperandKind::Integer) {
        if (d.integer > 1) return unsupported("wgmma scale-d must be a predicate or the constant 0 or 1");
        x.scale_d = static_cast<int>(d.integer);
    }
    x.negate_a = D4R_TRY(negative_scale(in.operands[4], "imm-scale-a"));
    x.negate_b = D4R_TRY(negative_scale(in.operands[5], "imm-scale-b"));
    for (size_t i = 6; i < in.operands.size(); ++i) {
        const ast::Operand& o = in.operands[i];
        if (o.kind != ast::OperandKind::Integer || o.integer > 1)
            return unsupported("wgmma imm-trans-a / imm-trans-b must be the constant 0 or 1");
        if (o.integer == 1) return unsupported("wgmma with a transposed (MN-major) operand is not supported");
    }
    return x;
}

} // namespace

Expected<Wgmma> decode_wgmma(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    if (m.base() != "wgmma") return unsupported(fmt::format("'{}' is not a warpgroup matrix instruction", m.base()));
    if (m.take("mma_async")) return decode_mma_async(in, m);
    Wgmma x;
    if (m.take("fence"))
        x.op = Wgmma::Op::Fence;
    else if (m.take("commit_group"))
        x.op = Wgmma::Op::CommitGroup;
    else if (m.take("wait_group"))
        x.op = Wgmma::Op::WaitGroup;
    else
        return unsupported("wgmma forms other than mma_async, fence, commit_group and wait_group are not supported");
    if (!m.take("sync") || !m.take("aligned")) return unsupported("wgmma needs .sync.aligned");
    D4R_TRY(finish(m));
    if (x.op == Wgmma::Op::WaitGroup) {
        D4R_TRY(expect_operands(in, 1));
        x.groups = D4R_TRY(decode::integer_constant(in.operands[0]));
    } else {
        D4R_TRY(expect_operands(in, 0));
    }
    return x;
}

} // namespace d4r::ptx
