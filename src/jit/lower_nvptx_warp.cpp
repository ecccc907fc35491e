// Lowering for LLVM's NVPTX back end (lower_nvptx.cpp): warp collectives, atomics, textures and surfaces, and the
// tensor-core instructions, as the NVVM intrinsics (or LLVM's atomics) of the same instructions.
#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "ptx/instr_decode.h"
#include "ptx/modifiers.h"

namespace d4r::jit {

using ptx::StateSpace;

Status Lowering::nv_collective(const ptx::WarpCollective& op) {
    using Op = ptx::WarpCollective::Op;
    using Vote = ptx::WarpCollective::Vote;
    using Red = ptx::WarpCollective::Reduction;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const size_t n = in.operands.size();
    const ast::Operand& d = in.operands[0];
    const bool pair = d.kind == ast::OperandKind::Pair;
    const ast::Operand value_dst = pair ? named(d.name) : d;
    switch (op.op) {
    case Op::Shuffle: {
        if (n != 5 || op.type != Type::B32) return refuse("expected shfl.sync.b32 d, a, b, c, membermask");
        static constexpr const char* kModes[] = {"up", "down", "bfly", "idx"};
        LLVMValueRef a = D4R_TRY(value(in.operands[1], Type::B32));
        LLVMValueRef b = D4R_TRY(value(in.operands[2], Type::U32));
        LLVMValueRef c = D4R_TRY(value(in.operands[3], Type::U32));
        LLVMValueRef member = D4R_TRY(value(in.operands[4], Type::U32));
        const std::string name =
            fmt::format("llvm.nvvm.shfl.sync.{}.i32{}", kModes[static_cast<int>(op.shuffle)], pair ? "p" : "");
        LLVMValueRef r = D4R_TRY(nvvm(name, {}, {member, a, b, c}));
        if (!pair) return assign(d, Type::B32, r);
        D4R_TRY(assign(value_dst, Type::B32, l.LLVMBuildExtractValue(ir.builder(), r, 0, "")));
        return assign(named(d.name2), Type::Pred, l.LLVMBuildExtractValue(ir.builder(), r, 1, ""));
    }
    case Op::Vote: {
        if (n != 3) return refuse("expected vote.sync d, p, membermask");
        LLVMValueRef p = D4R_TRY(value(in.operands[1], Type::Pred));
        LLVMValueRef member = D4R_TRY(value(in.operands[2], Type::U32));
        static constexpr const char* kModes[] = {"all", "any", "uni", "ballot"};
        LLVMValueRef r =
            D4R_TRY(nvvm(fmt::format("llvm.nvvm.vote.{}.sync", kModes[static_cast<int>(op.vote)]), {}, {member, p}));
        return assign(d, op.vote == Vote::Ballot ? Type::B32 : Type::Pred, r);
    }
    case Op::Match: {
        if (n != 3) return refuse("expected match.sync d, a, membermask");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], op.type));
        LLVMValueRef member = D4R_TRY(value(in.operands[2], Type::U32));
        const char* width = op.type == Type::B64 ? "i64" : "i32";
        if (!op.all) {
            LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.match.any.sync.{}", width), {}, {member, a}));
            return assign(d, Type::B32, r);
        }
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.match.all.sync.{}p", width), {}, {member, a}));
        D4R_TRY(assign(value_dst, Type::B32, l.LLVMBuildExtractValue(ir.builder(), r, 0, "")));
        if (pair) D4R_TRY(assign(named(d.name2), Type::Pred, l.LLVMBuildExtractValue(ir.builder(), r, 1, "")));
        return ok_status();
    }
    case Op::Reduce: {
        if (n != 3 || ptx::type_bits(op.type) != 32) return refuse("expected redux.sync.op.32-bit-type d, a, mask");
        LLVMValueRef a = D4R_TRY(value(in.operands[1], op.type));
        LLVMValueRef member = D4R_TRY(value(in.operands[2], Type::U32));
        const bool is_signed = op.type == Type::S32;
        const char* name = nullptr;
        switch (op.reduction) {
        case Red::Add:
            name = "add";
            break;
        case Red::Min:
            name = is_signed ? "min" : "umin";
            break;
        case Red::Max:
            name = is_signed ? "max" : "umax";
            break;
        case Red::And:
            name = "and";
            break;
        case Red::Or:
            name = "or";
            break;
        case Red::Xor:
            name = "xor";
            break;
        }
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.redux.sync.{}", name), {}, {a, member}));
        return assign(d, op.type, r);
    }
    case Op::ActiveMask:
        if (n != 1) return refuse("expected activemask.b32 d");
        return assign(d, Type::B32, D4R_TRY(nvvm("llvm.nvvm.activemask", {}, {})));
    }
    return refuse("this warp collective has no NVPTX lowering");
}

// atom/red: atomicrmw (cmpxchg for cas) on a pointer of the instruction's space, monotonic (PTX's default
// .relaxed; the back end prints atom/red of the operation). inc and dec are uinc_wrap and udec_wrap, which the back
// end expands into a cmpxchg loop computing the same values.
Status Lowering::nv_atomic(const ptx::Atomic& op) {
    using Op = ptx::Atomic::Op;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    const ptx::Modifiers mods(in.opcode);
    for (std::string_view m : {"acquire", "release", "acq_rel", "sc"})
        if (mods.has(m)) return refuse(fmt::format("atom .{} has no NVPTX lowering yet", m));
    const unsigned first = op.address_operand;
    if (in.operands.size() < first + 1 + op.values) return refuse("missing operands");
    const Address a = D4R_TRY(address(in.operands[first], op.space));
    LLVMValueRef p = nv_pointer(a, op.space);
    const bool fp = op.op == Op::Add && (op.type == Type::F32 || op.type == Type::F64 || op.half);
    LLVMValueRef v = D4R_TRY(value(in.operands[first + 1], op.value));
    if (op.half) {
        const bool bf = op.type == Type::BF16 || op.type == Type::BF16x2;
        const bool packed = op.type == Type::F16x2 || op.type == Type::BF16x2;
        // A pair: atomicrmw fadd of <2 x half> (<2 x bfloat>), which LLVM 19 expands into a cmpxchg loop around
        // add.rn.f16x2 (.bf16x2): the same atomic add, in more instructions.
        LLVMTypeRef ht = bf ? ir.bf16 : ir.f16;
        v = l.LLVMBuildBitCast(ir.builder(), v, packed ? ir.vector_of(ht, 2) : ht, "");
    } else if (fp) {
        v = ir.bitcast(v, llvm_type(op.type));
    }
    LLVMValueRef old = nullptr;
    if (op.op == Op::Cas) {
        LLVMValueRef swap = D4R_TRY(value(in.operands[first + 2], op.value));
        LLVMValueRef x = l.LLVMBuildAtomicCmpXchg(ir.builder(), p, v, swap, abi::D4R_LLVMAtomicOrderingMonotonic,
                                                  abi::D4R_LLVMAtomicOrderingMonotonic, 0);
        old = l.LLVMBuildExtractValue(ir.builder(), x, 0, "");
    } else {
        int rmw = 0;
        switch (op.op) {
        case Op::And:
            rmw = abi::D4R_LLVMAtomicRMWBinOpAnd;
            break;
        case Op::Or:
            rmw = abi::D4R_LLVMAtomicRMWBinOpOr;
            break;
        case Op::Xor:
            rmw = abi::D4R_LLVMAtomicRMWBinOpXor;
            break;
        case Op::Exch:
            rmw = abi::D4R_LLVMAtomicRMWBinOpXchg;
            break;
        case Op::Add:
            rmw = fp ? abi::D4R_LLVMAtomicRMWBinOpFAdd : abi::D4R_LLVMAtomicRMWBinOpAdd;
            break;
        case Op::Inc:
            rmw = abi::D4R_LLVMAtomicRMWBinOpUIncWrap;
            break;
        case Op::Dec:
            rmw = abi::D4R_LLVMAtomicRMWBinOpUDecWrap;
            break;
        case Op::Min:
            rmw = op.signed_compare ? abi::D4R_LLVMAtomicRMWBinOpMin : abi::D4R_LLVMAtomicRMWBinOpUMin;
            break;
        case Op::Max:
            rmw = op.signed_compare ? abi::D4R_LLVMAtomicRMWBinOpMax : abi::D4R_LLVMAtomicRMWBinOpUMax;
            break;
        default:
            return refuse("this atomic has no NVPTX lowering");
        }
        old = l.LLVMBuildAtomicRMW(ir.builder(), rmw, p, v, abi::D4R_LLVMAtomicOrderingMonotonic, 0);
    }
    if (!op.result) return ok_status();
    if (fp || op.half) old = l.LLVMBuildBitCast(ir.builder(), old, ir.int_type(ptx::type_bits(op.value)), "");
    return assign(in.operands[0], op.value, old);
}

// tex, tld4, suld.b and sust.b of 2D images through a 64-bit object handle: the unified-mode NVVM intrinsic of the
// same instruction (the object, filtering, addressing and the surface's out-of-range mode are the GPU's).
Status Lowering::nv_texture(const ptx::TextureOp& op) {
    using Op = ptx::TextureOp::Op;
    using Clamp = ptx::TextureOp::Clamp;
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    if (in.operands.size() <= std::max(op.image_operand, op.data_operand)) return refuse("missing operands");
    if (op.geometry != ptx::TextureOp::Geometry::D2) return refuse("an image geometry other than .2d for NVPTX");
    const ast::Operand& image = in.operands[op.image_operand];
    if (image.elements.empty()) return refuse("an image operand without coordinates");
    auto handle_reg = reg(image.name);
    if (!handle_reg || handle_reg->bits != 64)
        return refuse(fmt::format("'{}' is not a 64-bit register (texture references are not supported)", image.name));
    LLVMValueRef handle = D4R_TRY(value(named(image.name), Type::U64));
    const std::vector<const ast::Operand*> coords = ptx::decode::vector_elements(image.elements[0]);
    if (coords.size() < 2) return refuse("missing coordinates");
    const Type ct = op.coordinate == Type::F32 ? Type::F32 : Type::S32;
    LLVMValueRef x = D4R_TRY(value(*coords[size_t(op.coordinates.x)], ct));
    LLVMValueRef y = D4R_TRY(value(*coords[size_t(op.coordinates.y)], ct));
    const std::vector<const ast::Operand*> data = ptx::decode::vector_elements(in.operands[op.data_operand]);
    if (data.size() < op.vector || op.vector > 4) return refuse("unexpected data operand");
    auto element = [&](LLVMValueRef r, unsigned k) {
        return op.vector == 1 && op.op != Op::Tex && op.op != Op::Gather
                   ? r
                   : l.LLVMBuildExtractValue(ir.builder(), r, k, "");
    };
    if (op.op == Op::Tex || op.op == Op::Gather) {
        const char* result = op.data == Type::F32 ? "v4f32" : op.data == Type::S32 ? "v4s32" : "v4u32";
        std::string name;
        if (op.op == Op::Tex) {
            name = fmt::format("llvm.nvvm.tex.unified.2d.{}.{}", result, ct == Type::F32 ? "f32" : "s32");
        } else {
            if (ct != Type::F32) return refuse("tld4 with integer coordinates");
            static constexpr const char* kComponents = "rgba";
            name =
                fmt::format("llvm.nvvm.tld4.unified.{}.2d.{}.f32", kComponents[static_cast<int>(op.component)], result);
        }
        LLVMValueRef r = D4R_TRY(nvvm(name, {}, {handle, x, y}));
        for (unsigned k = 0; k < 4; ++k) {
            if (data[k]->kind == ast::OperandKind::Name && data[k]->name == "_") continue;
            D4R_TRY(assign(*data[k], op.data, element(r, k)));
        }
        return ok_status();
    }
    const unsigned bits = ptx::type_bits(op.data);
    const std::string shape = fmt::format("{}i{}", op.vector == 1 ? "" : fmt::format("v{}", op.vector), bits);
    const char* mode = op.clamp == Clamp::Clamp ? "clamp" : op.clamp == Clamp::Zero ? "zero" : "trap";
    const Type word = op.data == Type::B64 ? Type::B64 : Type::B32;
    LLVMTypeRef element_type = ir.int_type(bits == 8 ? 16 : bits); // the b8 forms carry each byte in 16 bits
    if (op.op == Op::SurfaceLoad) {
        LLVMValueRef r = D4R_TRY(nvvm(fmt::format("llvm.nvvm.suld.2d.{}.{}", shape, mode), {}, {handle, x, y}));
        for (unsigned k = 0; k < op.vector; ++k) {
            if (data[k]->kind == ast::OperandKind::Name && data[k]->name == "_") continue;
            LLVMValueRef v = element(r, k);
            if (bits == 8) v = ir.and_(v, ir.constant(element_type, 0xff));
            D4R_TRY(assign(*data[k], word, ir.resize(v, ptx::type_bits(word), false)));
        }
        return ok_status();
    }
    std::vector<LLVMValueRef> args = {handle, x, y};
    for (unsigned k = 0; k < op.vector; ++k)
        args.push_back(ir.resize(D4R_TRY(value(*data[k], word)), ir.width(element_type), false));
    const std::string name = fmt::format("llvm.nvvm.sust.b.2d.{}.{}", shape, mode);
    if (!ir.has_intrinsic(name)) return refuse(fmt::format("libLLVM {} has no intrinsic {}", l.version, name));
    ir.intrinsic_call(name, args);
    return ok_status();
}

// mma.sync (f16 and bf16 inputs, m16n8k8 and m16n8k16) and ldmatrix: the NVVM intrinsic of the same shape and types,
// fragments as the registers hold them.
Status Lowering::nv_matrix(const ptx::MatrixOp& op) {
    const ast::Instruction& in = *current;
    const LlvmLibrary& l = ir.llvm();
    if (op.op == ptx::MatrixOp::Op::LoadMatrix) {
        if (in.operands.size() != 2 || in.operands[0].kind != ast::OperandKind::Vector ||
            in.operands[0].elements.size() != op.matrices)
            return refuse("expected ldmatrix {d...}, [a]");
        if (op.space != StateSpace::Shared && op.space != StateSpace::Generic)
            return refuse("ldmatrix reads shared memory");
        const Address a = D4R_TRY(address(in.operands[1], op.space));
        LLVMValueRef p = nv_pointer(a, op.space);
        if (op.space == StateSpace::Generic)
            p = l.LLVMBuildAddrSpaceCast(ir.builder(), p, nv_pointer_type(StateSpace::Shared), "");
        const std::string name =
            fmt::format("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{}{}.b16", op.matrices, op.transpose ? ".trans" : "");
        LLVMValueRef r = D4R_TRY(nvvm(name, {nv_pointer_type(StateSpace::Shared)}, {p}));
        for (unsigned k = 0; k < op.matrices; ++k)
            D4R_TRY(assign(in.operands[0].elements[k], Type::B32,
                           op.matrices == 1 ? r : l.LLVMBuildExtractValue(ir.builder(), r, k, "")));
        return ok_status();
    }
    using Format = ptx::ElementFormat;
    if (in.operands.size() != 4) return refuse("expected mma d, a, b, c");
    const unsigned counts[4] = {op.c_regs, op.a_regs, op.b_regs, op.c_regs};
    for (unsigned k = 0; k < 4; ++k)
        if (in.operands[k].kind != ast::OperandKind::Vector || in.operands[k].elements.size() != counts[k])
            return refuse("expected register lists of the fragments' sizes");
    const bool f16 = op.a == Format::F16 && op.b == Format::F16;
    const bool bf16 = op.a == Format::BF16 && op.b == Format::BF16;
    const bool acc16 = op.accumulator == Type::F16;
    const bool fp8 = (op.a == Format::E4M3 || op.a == Format::E5M2) && (op.b == Format::E4M3 || op.b == Format::E5M2);
    if (fp8 && op.k == 32) { // no intrinsic in LLVM 19: the instruction itself, on the fragments' registers
        auto format = [](Format f) { return f == Format::E4M3 ? "e4m3" : "e5m2"; };
        const char* acc = acc16 ? "f16" : "f32";
        std::string text =
            fmt::format("mma.sync.aligned.m16n8k32.row.col.{}.{}.{}.{} ", acc, format(op.a), format(op.b), acc);
        unsigned next = 0;
        const unsigned counts_in_order[4] = {op.c_regs, op.a_regs, op.b_regs, op.c_regs};
        for (unsigned k = 0; k < 4; ++k) {
            text += k ? ", {" : "{";
            for (unsigned r = 0; r < counts_in_order[k]; ++r) text += fmt::format("{}${}", r ? ", " : "", next++);
            text += "}";
        }
        text += ";";
        std::vector<LLVMValueRef> args;
        for (unsigned k = 1; k < 3; ++k)
            for (const ast::Operand& e : in.operands[k].elements) args.push_back(D4R_TRY(value(e, Type::B32)));
        for (const ast::Operand& e : in.operands[3].elements)
            args.push_back(D4R_TRY(value(e, acc16 ? Type::B32 : Type::F32)));
        const std::vector<LLVMTypeRef> results(op.c_regs, acc16 ? ir.i32 : ir.f32);
        const std::vector<LLVMValueRef> d = D4R_TRY(nv_inline(text, text, results, args));
        for (unsigned k = 0; k < op.c_regs; ++k)
            D4R_TRY(assign(in.operands[0].elements[k], acc16 ? Type::B32 : Type::F32, d[k]));
        return ok_status();
    }
    if ((!f16 && !bf16) || (op.k != 8 && op.k != 16))
        return refuse("mma.sync of these formats: LLVM 19 has intrinsics for f16 and bf16 m16n8k8/k16 only");
    if (bf16 && acc16) return refuse("bf16 mma with f16 accumulators");
    LLVMTypeRef h2 = ir.vector_of(ir.f16, 2);
    std::vector<LLVMValueRef> args;
    for (unsigned k = 1; k < 3; ++k)
        for (const ast::Operand& e : in.operands[k].elements) {
            LLVMValueRef w = D4R_TRY(value(e, Type::B32));
            args.push_back(f16 ? l.LLVMBuildBitCast(ir.builder(), w, h2, "") : w);
        }
    for (const ast::Operand& e : in.operands[3].elements)
        args.push_back(acc16 ? l.LLVMBuildBitCast(ir.builder(), D4R_TRY(value(e, Type::B32)), h2, "")
                             : D4R_TRY(value(e, Type::F32)));
    const std::string name =
        bf16 ? fmt::format("llvm.nvvm.mma.m16n8k{}.row.col.bf16", op.k)
             : fmt::format("llvm.nvvm.mma.m16n8k{}.row.col.{}", op.k, acc16 ? "f16.f16" : "f32.f32");
    if (!ir.has_intrinsic(name)) return refuse(fmt::format("libLLVM {} has no intrinsic {}", l.version, name));
    LLVMValueRef r = ir.intrinsic_call(name, args);
    for (unsigned k = 0; k < op.c_regs; ++k) {
        LLVMValueRef v = l.LLVMBuildExtractValue(ir.builder(), r, k, "");
        if (acc16)
            D4R_TRY(assign(in.operands[0].elements[k], Type::B32, l.LLVMBuildBitCast(ir.builder(), v, ir.i32, "")));
        else
            D4R_TRY(assign(in.operands[0].elements[k], Type::F32, v));
    }
    return ok_status();
}

} // namespace d4r::jit
