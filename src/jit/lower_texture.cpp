// Lowering textures and surfaces (lower.h): tex, tld4, suld.b and sust.b in every form the front end decodes
// (ptx/instr_texture.h). A thread function calls ptxsim's helper CompiledRuntime::image once per instruction; warp
// code calls warp_matrix's image form once for the warp (the lanes in lane order, the object looked up once per
// distinct handle). Both run the interpreter's own code (src/ptxsim/ops_texture.cpp, texture.cpp): the object lookup
// in the launch's image table, the geometry check, the sampling and the surface addressing with its
// .trap/.clamp/.zero modes. A fault (no such object, a surface access out of range under .trap, ...) is recorded by
// the helper as the interpreter records it, for the first faulting lane; the compiled code then returns
// kCompiledFault (the helper stored the instruction's site).
#include <fmt/format.h>

#include "jit/lower_impl.h"
#include "ptx/instr_decode.h"

namespace d4r::jit {

Status Lowering::lower_texture(const ptx::TextureOp& op) {
    using Op = ptx::TextureOp::Op;
    const ast::Instruction& in = *current;
    if (nvptx) return nv_texture(op);
    if (in.operands.size() <= std::max(op.image_operand, op.data_operand)) return refuse("missing operands");
    // [handle, {coordinates}]: the handle a 64-bit register (the interpreter takes no .texref/.surfref variable).
    const ast::Operand& image = in.operands[op.image_operand];
    if (image.elements.empty()) return refuse("an image operand without coordinates");
    auto handle_reg = reg(image.name);
    if (!handle_reg || handle_reg->bits != 64)
        return refuse(fmt::format("'{}' is not a 64-bit register (texture references are not supported)", image.name));
    LLVMValueRef handle = D4R_TRY(value(named(image.name), Type::U64));
    // The coordinates' bits (x, y, z of the instruction's coordinate type, the layer .u32), 0 where there is none.
    const std::vector<const ast::Operand*> coords = ptx::decode::vector_elements(image.elements[0]);
    auto coordinate = [&](int index, Type t) -> Expected<LLVMValueRef> {
        if (index < 0) return ir.constant(ir.i32, 0);
        if (size_t(index) >= coords.size()) return refuse("missing coordinates");
        LLVMValueRef v = D4R_TRY(value(*coords[size_t(index)], t));
        return t == Type::F32 ? ir.bitcast(v, ir.i32) : v;
    };
    const ptx::TextureOp::Coordinates& l = op.coordinates;
    LLVMValueRef x = D4R_TRY(coordinate(l.x, op.coordinate)), y = D4R_TRY(coordinate(l.y, op.coordinate));
    LLVMValueRef z = D4R_TRY(coordinate(l.z, op.coordinate)), layer = D4R_TRY(coordinate(l.layer, Type::U32));
    // The data: tex/tld4 results of their type; surface elements in 32-bit registers, 64-bit ones for .b64 (as the
    // interpreter's decoder reads and writes them).
    const bool surface = op.op == Op::SurfaceLoad || op.op == Op::SurfaceStore;
    const Type word = !surface || op.data != Type::B64 ? Type::B32 : Type::B64;
    const std::vector<const ast::Operand*> data = ptx::decode::vector_elements(in.operands[op.data_operand]);
    if (data.size() < op.vector || op.vector > 4) return refuse("unexpected data operand");
    if (warp) {
        // One call of the runtime's warp_matrix for the warp (its image form: the lanes in lane order, the object
        // looked up once), the registers' lanes in scratch slots: handle, x, y, z, layer, then the four data words.
        point_value(0, handle, 64);
        for (unsigned k = 0; k < 4; ++k) point_value(1 + k, std::array{x, y, z, layer}[k], 32);
        for (unsigned k = 0; k < 4; ++k) {
            LLVMValueRef v = nullptr;
            if (op.op == Op::SurfaceStore && k < op.vector) v = D4R_TRY(value(*data[k], word));
            point_value(5 + k, v, 64);
        }
        call_warp_helper(ptxsim::kRuntimeWarpMatrix, ptxsim::warp_image_code(op), false);
        if (op.op == Op::SurfaceStore) return ok_status();
        for (unsigned k = 0; k < op.vector; ++k) {
            LLVMValueRef v = ir.load(ir.vector_of(ir.i64), scratch(5 + k), 8);
            D4R_TRY(assign(*data[k], word, ir.resize(v, ptx::type_bits(word), false)));
        }
        return ok_status();
    }
    LLVMValueRef buffer = ir.words(4);
    std::vector<LLVMValueRef> stored;
    if (op.op == Op::SurfaceStore)
        for (unsigned k = 0; k < op.vector; ++k) stored.push_back(ir.resize(D4R_TRY(value(*data[k], word)), 64, false));
    LLVMTypeRef params[8] = {ir.ptr, ir.i32, ir.i64, ir.i32, ir.i32, ir.i32, ir.i32, ir.ptr};
    LLVMTypeRef fn_type = ir.llvm().LLVMFunctionType(ir.i32, params, 8, 0);
    LLVMValueRef fn = runtime_entry(ptxsim::kRuntimeImage);
    const unsigned results = op.op == Op::SurfaceStore ? 0 : op.vector;
    for (unsigned k = 0; k < stored.size(); ++k) ir.store(stored[k], ir.field(buffer, 8 * k), 8);
    LLVMValueRef done = ir.call(
        fn_type, fn, {m_thread, ir.constant(ir.i32, ptxsim::image_op_code(op)), handle, x, y, z, layer, buffer});
    fault_unless(ir.icmp(abi::D4R_LLVMIntNE, done, ir.constant(ir.i32, 0)));
    std::vector<LLVMValueRef> out;
    for (unsigned k = 0; k < results; ++k) out.push_back(ir.load(ir.i64, ir.field(buffer, 8 * k), 8));
    for (unsigned k = 0; k < results; ++k)
        D4R_TRY(assign(*data[k], word, ir.resize(out[k], ptx::type_bits(word), false)));
    return ok_status();
}

} // namespace d4r::jit
