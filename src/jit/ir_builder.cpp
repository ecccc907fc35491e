// The C++ face over LLVM's C API (see ir_builder.h).
#include "jit/ir_builder.h"

#include <algorithm>
#include <cstring>

namespace d4r::jit {

IrBuilder::IrBuilder(const LlvmLibrary& llvm, LLVMContextRef context, LLVMModuleRef module)
    : m_l(llvm), m_context(context), m_module(module) {
    i1 = m_l.LLVMInt1TypeInContext(context);
    i8 = m_l.LLVMInt8TypeInContext(context);
    i16 = m_l.LLVMInt16TypeInContext(context);
    i32 = m_l.LLVMInt32TypeInContext(context);
    i64 = m_l.LLVMInt64TypeInContext(context);
    i128 = m_l.LLVMInt128TypeInContext(context);
    f32 = m_l.LLVMFloatTypeInContext(context);
    f64 = m_l.LLVMDoubleTypeInContext(context);
    f16 = m_l.LLVMHalfTypeInContext(context);
    bf16 = m_l.LLVMBFloatTypeInContext(context);
    ptr = m_l.LLVMPointerTypeInContext(context, 0);
    void_type = m_l.LLVMVoidTypeInContext(context);
    m_builder = m_l.LLVMCreateBuilderInContext(context);
    m_alloca_builder = m_l.LLVMCreateBuilderInContext(context);
}

IrBuilder::~IrBuilder() {
    m_l.LLVMDisposeBuilder(m_builder);
    m_l.LLVMDisposeBuilder(m_alloca_builder);
}

LLVMTypeRef IrBuilder::int_type(unsigned bits) const {
    switch (bits) {
    case 1:
        return i1;
    case 8:
        return i8;
    case 16:
        return i16;
    case 32:
        return i32;
    case 64:
        return i64;
    default:
        return i128;
    }
}

LLVMValueRef IrBuilder::constant(LLVMTypeRef type, uint64_t value) {
    if (m_l.LLVMGetTypeKind(type) == abi::D4R_LLVMVectorTypeKind)
        return splat(m_l.LLVMConstInt(m_l.LLVMGetElementType(type), value, 0), m_l.LLVMGetVectorSize(type));
    return m_l.LLVMConstInt(type, value, 0);
}

unsigned IrBuilder::lanes(LLVMValueRef v) const {
    LLVMTypeRef t = m_l.LLVMTypeOf(v);
    return m_l.LLVMGetTypeKind(t) == abi::D4R_LLVMVectorTypeKind ? m_l.LLVMGetVectorSize(t) : 0;
}

LLVMTypeRef IrBuilder::scalar_type(LLVMTypeRef t) const {
    return m_l.LLVMGetTypeKind(t) == abi::D4R_LLVMVectorTypeKind ? m_l.LLVMGetElementType(t) : t;
}

LLVMTypeRef IrBuilder::shaped(LLVMTypeRef t, LLVMValueRef like) const {
    const unsigned n = lanes(like);
    if (n == 0 || m_l.LLVMGetTypeKind(t) == abi::D4R_LLVMVectorTypeKind) return t;
    return m_l.LLVMVectorType(t, n);
}

LLVMValueRef IrBuilder::splat(LLVMValueRef scalar, unsigned n) {
    LLVMTypeRef vt = m_l.LLVMVectorType(m_l.LLVMTypeOf(scalar), n);
    LLVMValueRef one =
        m_l.LLVMBuildInsertElement(m_builder, m_l.LLVMGetUndef(vt), scalar, m_l.LLVMConstInt(i32, 0, 0), "");
    return m_l.LLVMBuildShuffleVector(m_builder, one, m_l.LLVMGetUndef(vt),
                                      m_l.LLVMConstNull(m_l.LLVMVectorType(i32, n)), "");
}

void IrBuilder::unify(LLVMValueRef& a, LLVMValueRef& b) {
    const unsigned na = lanes(a), nb = lanes(b);
    if (na == nb) return;
    if (na == 0) a = splat(a, nb);
    if (nb == 0) b = splat(b, na);
}

LLVMValueRef IrBuilder::select(LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
    const unsigned n = std::max({lanes(c), lanes(a), lanes(b)});
    if (n) {
        if (!lanes(c)) c = splat(c, n);
        if (!lanes(a)) a = splat(a, n);
        if (!lanes(b)) b = splat(b, n);
    }
    return m_l.LLVMBuildSelect(m_builder, c, a, b, "");
}

LLVMValueRef IrBuilder::f32_bits(uint32_t bits) { return bitcast(constant(i32, bits), f32); }
LLVMValueRef IrBuilder::f64_bits(uint64_t bits) { return bitcast(constant(i64, bits), f64); }

LLVMBasicBlockRef IrBuilder::new_block(const char* name) {
    return m_l.LLVMAppendBasicBlockInContext(m_context, m_function, name);
}

LLVMValueRef IrBuilder::load(LLVMTypeRef type, LLVMValueRef pointer, unsigned align) {
    LLVMValueRef v = m_l.LLVMBuildLoad2(m_builder, type, pointer, "");
    m_l.LLVMSetAlignment(v, align);
    return v;
}

void IrBuilder::store(LLVMValueRef value, LLVMValueRef pointer, unsigned align) {
    LLVMValueRef s = m_l.LLVMBuildStore(m_builder, value, pointer);
    m_l.LLVMSetAlignment(s, align);
}

LLVMValueRef IrBuilder::byte_offset(LLVMValueRef pointer, LLVMValueRef offset) {
    LLVMValueRef index[1] = {offset};
    return m_l.LLVMBuildGEP2(m_builder, i8, pointer, index, 1, "");
}

LLVMValueRef IrBuilder::resize(LLVMValueRef v, unsigned bits, bool is_signed) {
    const unsigned have = width(scalar_type(m_l.LLVMTypeOf(v)));
    if (have == bits) return v;
    if (have > bits) return trunc(v, int_type(bits));
    return is_signed ? sext(v, int_type(bits)) : zext(v, int_type(bits));
}

LLVMValueRef IrBuilder::intrinsic(std::string_view name, std::initializer_list<LLVMTypeRef> overloads,
                                  std::initializer_list<LLVMValueRef> args) {
    const unsigned id = m_l.LLVMLookupIntrinsicID(name.data(), name.size());
    std::vector<LLVMTypeRef> types(overloads);
    std::vector<LLVMValueRef> values(args);
    // A vector argument: the intrinsic on vectors, every other value argument splatted (the i1 flag of ctlz and
    // cttz is an immediate and stays one).
    unsigned n = 0;
    if (!name.starts_with("llvm.masked.")) // those are called with their vector types as they are
        for (LLVMValueRef v : values) n = std::max(n, lanes(v));
    if (n) {
        for (LLVMTypeRef& t : types)
            if (m_l.LLVMGetTypeKind(t) != abi::D4R_LLVMVectorTypeKind) t = m_l.LLVMVectorType(t, n);
        const bool flag_last = name == "llvm.ctlz" || name == "llvm.cttz";
        for (size_t k = 0; k < values.size(); ++k)
            if (!lanes(values[k]) && !(flag_last && k + 1 == values.size())) values[k] = splat(values[k], n);
    }
    LLVMValueRef fn = m_l.LLVMGetIntrinsicDeclaration(m_module, id, types.data(), types.size());
    return m_l.LLVMBuildCall2(m_builder, m_l.LLVMGlobalGetValueType(fn), fn, values.data(),
                              static_cast<unsigned>(values.size()), "");
}

LLVMValueRef IrBuilder::intrinsic_call(std::string_view name, const std::vector<LLVMValueRef>& args) {
    const unsigned id = m_l.LLVMLookupIntrinsicID(name.data(), name.size());
    LLVMValueRef fn = m_l.LLVMGetIntrinsicDeclaration(m_module, id, nullptr, 0);
    std::vector<LLVMValueRef> values(args);
    return m_l.LLVMBuildCall2(m_builder, m_l.LLVMGlobalGetValueType(fn), fn, values.data(),
                              static_cast<unsigned>(values.size()), "");
}

LLVMValueRef IrBuilder::call(LLVMTypeRef fn_type, LLVMValueRef pointer, std::initializer_list<LLVMValueRef> args) {
    std::vector<LLVMValueRef> values(args);
    return m_l.LLVMBuildCall2(m_builder, fn_type, pointer, values.data(), static_cast<unsigned>(values.size()), "");
}

LLVMValueRef IrBuilder::zeroed_slot(LLVMTypeRef type) {
    m_l.LLVMPositionBuilderAtEnd(m_alloca_builder, m_alloca_block);
    LLVMValueRef slot = m_l.LLVMBuildAlloca(m_alloca_builder, type, "");
    m_l.LLVMBuildStore(m_alloca_builder, m_l.LLVMConstNull(type), slot);
    return slot;
}

LLVMValueRef IrBuilder::words(unsigned count) {
    m_l.LLVMPositionBuilderAtEnd(m_alloca_builder, m_alloca_block);
    LLVMValueRef slot = m_l.LLVMBuildAlloca(m_alloca_builder, m_l.LLVMArrayType(i64, count), "");
    m_l.LLVMSetAlignment(slot, 8);
    return slot;
}

} // namespace d4r::jit
