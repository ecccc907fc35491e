// wmma's meaning (see instr_wmma.h).
#include "ptx/instr_wmma.h"

#include <optional>
#include <vector>

#include "ptx/instr_decode.h"
#include "ptx/validate.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using wmma::EType;
using wmma::Frag;
using wmma::WShape;

constexpr const char* kShapes = "m16n16k16, m32n8k16, m8n32k16, m16n16k8, m8n8k4, m8n8k32, m8n8k128 are";

std::optional<WShape> take_shape(Modifiers& m) {
    const std::string_view s =
        m.take_any({"m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128"});
    if (s == "m16n16k16") return WShape::M16N16K16;
    if (s == "m32n8k16") return WShape::M32N8K16;
    if (s == "m8n32k16") return WShape::M8N32K16;
    if (s == "m16n16k8") return WShape::M16N16K8;
    if (s == "m8n8k4") return WShape::M8N8K4;
    if (s == "m8n8k32") return WShape::M8N8K32;
    if (s == "m8n8k128") return WShape::M8N8K128;
    return std::nullopt;
}

std::optional<EType> etype_of(std::string_view t) {
    if (t == "f16") return EType::F16;
    if (t == "bf16") return EType::BF16;
    if (t == "f32") return EType::F32;
    if (t == "s8") return EType::S8;
    if (t == "u8") return EType::U8;
    if (t == "s32") return EType::S32;
    if (t == "tf32") return EType::TF32;
    if (t == "f64") return EType::F64;
    if (t == "s4") return EType::S4;
    if (t == "u4") return EType::U4;
    if (t == "b1") return EType::B1;
    return std::nullopt;
}

// The next type modifier a wmma instruction names ("" when none is left).
std::string_view take_type_name(Modifiers& m) {
    return m.take_any({"f16", "bf16", "f32", "s8", "u8", "s32", "tf32", "f64", "s4", "u4", "b1"});
}

// The architecture number of a .target ("sm_75" -> 75), 0 when none.
int target_sm(std::string_view t) { return architecture_number(t).value_or(0); }

// Sub-byte and single-bit wmma need sm_75 (ptxas refuses them for older targets).
Status sub_byte_target(std::string_view target) {
    const int sm = target_sm(target);
    if (sm != 0 && sm < 75)
        return unsupported(
            fmt::format("sub-byte and single-bit wmma need .target sm_75 or later (the module targets {})", target));
    return ok_status();
}

Expected<Wmma> decode_ldst(const ast::Instruction& in, Modifiers& m, bool store, std::string_view target) {
    Wmma w;
    w.op = store ? Wmma::Op::Store : Wmma::Op::Load;
    const std::string_view which = store ? (m.take("d") ? "d" : "") : m.take_any({"a", "b", "c"});
    if (which.empty()) return unsupported(store ? "wmma.store needs .d" : "wmma.load needs .a, .b or .c");
    if (!m.take("sync") || !m.take("aligned")) return unsupported("wmma needs .sync.aligned");
    const std::string_view layout = m.take_any({"row", "col"});
    if (layout.empty()) return unsupported("wmma.load/store needs .row or .col");
    const std::optional<WShape> shape = take_shape(m);
    if (!shape) return unsupported(fmt::format("wmma shape not supported ({})", kShapes));
    const std::string_view space = m.take_any({"global", "shared", "shared::cta"});
    const std::string_view tname = take_type_name(m);
    D4R_TRY(finish(m));
    const std::optional<EType> t = etype_of(tname);
    if (!t) return unsupported(fmt::format("wmma type '.{}' is not supported", tname));
    const Frag f = which == "a" ? Frag::A : which == "b" ? Frag::B : Frag::C;
    const bool acc = f == Frag::C;
    const bool ok_type = acc ? (*t == EType::F16 || *t == EType::F32 || *t == EType::S32 || *t == EType::F64)
                             : wmma::input_fits(*shape, *t);
    const bool acc_fits = !acc || (*shape == WShape::M8N8K4       ? *t == EType::F64
                                   : *shape == WShape::M16N16K8   ? *t == EType::F32
                                   : wmma::sub_byte_shape(*shape) ? *t == EType::S32
                                                                  : *t != EType::F64);
    if (!ok_type || !acc_fits)
        return unsupported(fmt::format("wmma fragment {} of type .{} does not exist for this shape", which, tname));
    if (wmma::sub_byte_shape(*shape)) {
        // The ISA has sub-byte A row-major and B column-major only.
        if (f == Frag::A && layout != "row")
            return unsupported(fmt::format("wmma.load.a of .{} must be .row (sub-byte A is row-major only)", tname));
        if (f == Frag::B && layout != "col")
            return unsupported(fmt::format("wmma.load.b of .{} must be .col (sub-byte B is column-major only)", tname));
        D4R_TRY(sub_byte_target(target));
    }
    D4R_TRY(expect_operands(in, 2, 3));
    w.shape = *shape;
    w.fragment = f;
    w.col = layout == "col";
    w.type = *t;
    w.regs = wmma::regs_of(f, *shape, *t);
    w.space = decode::state_space(space);
    w.stride = in.operands.size() == 3;
    return w;
}

Expected<Wmma> decode_mma(const ast::Instruction& in, Modifiers& m, std::string_view target) {
    Wmma w;
    w.op = Wmma::Op::Mma;
    if (!m.take("sync") || !m.take("aligned")) return unsupported("wmma needs .sync.aligned");
    const std::string_view la = m.take_any({"row", "col"}), lb = m.take_any({"row", "col"});
    if (la.empty() || lb.empty()) return unsupported("wmma.mma needs the A and B layouts");
    const std::optional<WShape> shape = take_shape(m);
    if (!shape) return unsupported(fmt::format("wmma shape not supported ({})", kShapes));
    m.take("rn"); // f64: the only rounding
    w.satfinite = m.take("satfinite");
    // Single-bit: wmma.mma.xor.popc / wmma.mma.and.popc.
    const std::string_view bit_op = m.take_any({"xor", "and"});
    const bool popc = m.take("popc");
    std::vector<std::string_view> names;
    for (std::string_view t; !(t = take_type_name(m)).empty();) names.push_back(t);
    D4R_TRY(finish(m));
    // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype.
    if (names.size() != 2 && names.size() != 4)
        return unsupported("wmma.mma needs .dtype.ctype or .dtype.atype.btype.ctype");
    std::vector<EType> types;
    for (std::string_view n : names) {
        const std::optional<EType> t = etype_of(n);
        if (!t) return unsupported(fmt::format("wmma type '.{}' is not supported", n));
        types.push_back(*t);
    }
    const EType dt = types.front(), ct = types.back();
    const EType ab = names.size() == 2 ? EType::F16 : types[1];
    // The ISA: A and B have the same type (both .s8 or both .u8, both .s4 or both .u4, both .b1).
    if (names.size() == 4 && types[1] != types[2])
        return unsupported(
            fmt::format("wmma.mma A and B types must be the same (.{} and .{} given)", names[1], names[2]));
    if (names.size() == 2 && (dt == EType::S32 || dt == EType::F64))
        return unsupported("wmma.mma needs .dtype.atype.btype.ctype for these types");
    if (!wmma::input_fits(*shape, ab))
        return unsupported(fmt::format("wmma.mma inputs .{} do not exist for this shape", names[1]));
    const bool is_int = ab == EType::S8 || ab == EType::U8 || wmma::sub_byte(ab);
    const bool float_acc = (dt == EType::F16 || dt == EType::F32) && (ct == EType::F16 || ct == EType::F32);
    if (is_int             ? (dt != EType::S32 || ct != EType::S32)
        : ab == EType::F64 ? (dt != EType::F64 || ct != EType::F64)
                           : (ab == EType::F16 ? !float_acc : (dt != EType::F32 || ct != EType::F32)))
        return unsupported("wmma.mma accumulator types do not fit its inputs");
    if (w.satfinite && (!is_int || ab == EType::B1))
        return unsupported("wmma.mma .satfinite is supported for s8/u8/s4/u4 inputs only");
    if (ab == EType::B1 ? (bit_op.empty() || !popc) : (!bit_op.empty() || popc))
        return unsupported(ab == EType::B1 ? "wmma.mma with .b1 inputs needs .xor.popc or .and.popc"
                                           : "wmma.mma .xor/.and/.popc exist for .b1 inputs only");
    if (wmma::sub_byte(ab)) {
        if (la != "row" || lb != "col")
            return unsupported(
                fmt::format("wmma.mma with .{} inputs must be .row.col (.{}.{} given)", names[1], la, lb));
        D4R_TRY(sub_byte_target(target));
        if (bit_op == "and" && target_sm(target) != 0 && target_sm(target) < 80)
            return unsupported(
                fmt::format("wmma.mma.and.popc needs .target sm_80 or later (the module targets {})", target));
    }
    D4R_TRY(expect_operands(in, 4));
    w.shape = *shape;
    w.a_col = la == "col";
    w.b_col = lb == "col";
    w.type = ab;
    w.d_type = dt;
    w.c_type = ct;
    w.bit_op = bit_op == "and" ? Wmma::BitOp::AndPopc : bit_op == "xor" ? Wmma::BitOp::XorPopc : Wmma::BitOp::None;
    w.d_regs = wmma::regs_of(Frag::C, *shape, dt);
    w.a_regs = wmma::regs_of(Frag::A, *shape, ab);
    w.b_regs = wmma::regs_of(Frag::B, *shape, ab);
    w.c_regs = wmma::regs_of(Frag::C, *shape, ct);
    return w;
}

} // namespace

Expected<Wmma> decode_wmma(const ast::Instruction& in, std::string_view target) {
    Modifiers m(in.opcode);
    if (m.base() != "wmma") return unsupported(fmt::format("'{}' is not wmma", m.base()));
    if (m.take("load")) return decode_ldst(in, m, false, target);
    if (m.take("store")) return decode_ldst(in, m, true, target);
    if (m.take("mma")) return decode_mma(in, m, target);
    return unsupported("wmma needs .load, .store or .mma");
}

} // namespace d4r::ptx
