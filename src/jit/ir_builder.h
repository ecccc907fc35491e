// d4r's PTX JIT: a small C++ face over LLVM's C API (abi/llvm_c.h) for building one function's IR: the types
// the lowering uses, constants, intrinsic calls and the instructions, each a one-liner over the loaded library.
//
// Promise: nothing here decides semantics; it only spells LLVM instructions. Every call goes through the table of
// the libLLVM that jit/llvm_library.h loaded.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "jit/llvm_library.h"

namespace d4r::jit {

using abi::LLVMBasicBlockRef;
using abi::LLVMBuilderRef;
using abi::LLVMContextRef;
using abi::LLVMModuleRef;
using abi::LLVMTypeRef;
using abi::LLVMValueRef;

class IrBuilder {
public:
    IrBuilder(const LlvmLibrary& llvm, LLVMContextRef context, LLVMModuleRef module);
    ~IrBuilder();
    IrBuilder(const IrBuilder&) = delete;
    IrBuilder& operator=(const IrBuilder&) = delete;

    const LlvmLibrary& llvm() const { return m_l; }
    LLVMContextRef context() const { return m_context; }
    LLVMModuleRef module() const { return m_module; }
    LLVMBuilderRef builder() const { return m_builder; }

    LLVMTypeRef i1, i8, i16, i32, i64, i128, f32, f64, f16, bf16, ptr, void_type;
    LLVMTypeRef int_type(unsigned bits) const;
    unsigned width(LLVMTypeRef integer) const { return m_l.LLVMGetIntTypeWidth(integer); }

    // An integer constant; of a vector type, VALUE in every lane.
    LLVMValueRef constant(LLVMTypeRef type, uint64_t value);
    LLVMValueRef f32_bits(uint32_t bits);
    LLVMValueRef f64_bits(uint64_t bits);

    // Vectors (the warp-wide lowering: one lane per element). Every operation above and below takes scalars and
    // vectors alike: an operand that is a scalar where another is a vector is splatted, a cast to a scalar type of a
    // vector casts each lane, an intrinsic with a vector argument is overloaded on vectors.
    static constexpr unsigned kLanes = 32;
    unsigned lanes(LLVMValueRef v) const; // 0 for a scalar
    LLVMTypeRef scalar_type(LLVMTypeRef t) const;
    LLVMTypeRef vector_of(LLVMTypeRef scalar, unsigned n = kLanes) { return m_l.LLVMVectorType(scalar, n); }
    // T as a vector when LIKE is one (T itself when it already is a vector or LIKE is a scalar).
    LLVMTypeRef shaped(LLVMTypeRef t, LLVMValueRef like) const;
    LLVMValueRef splat(LLVMValueRef scalar, unsigned n = kLanes);
    // Both as vectors when either is one.
    void unify(LLVMValueRef& a, LLVMValueRef& b);
    LLVMValueRef extract(LLVMValueRef v, unsigned lane) {
        return m_l.LLVMBuildExtractElement(m_builder, v, m_l.LLVMConstInt(i32, lane, 0), "");
    }
    LLVMValueRef insert(LLVMValueRef v, LLVMValueRef x, unsigned lane) {
        return m_l.LLVMBuildInsertElement(m_builder, v, x, m_l.LLVMConstInt(i32, lane, 0), "");
    }
    LLVMValueRef undef(LLVMTypeRef t) { return m_l.LLVMGetUndef(t); }
    // A lane mask between its two forms: an i32 (bit k: lane k) and a <32 x i1>.
    LLVMValueRef mask_to_bits(LLVMValueRef lanes) { return m_l.LLVMBuildBitCast(m_builder, lanes, i32, ""); }
    LLVMValueRef mask_to_lanes(LLVMValueRef bits) { return m_l.LLVMBuildBitCast(m_builder, bits, vector_of(i1), ""); }

    // Blocks of the function being built.
    void set_function(LLVMValueRef fn) { m_function = fn; }
    LLVMValueRef function() const { return m_function; }
    LLVMBasicBlockRef new_block(const char* name = "");
    void position(LLVMBasicBlockRef block) { m_l.LLVMPositionBuilderAtEnd(m_builder, block); }
    LLVMBasicBlockRef current() const { return m_l.LLVMGetInsertBlock(m_builder); }
    bool terminated() const { return m_l.LLVMGetBasicBlockTerminator(current()) != nullptr; }
    void br(LLVMBasicBlockRef to) { m_l.LLVMBuildBr(m_builder, to); }
    void cond_br(LLVMValueRef c, LLVMBasicBlockRef yes, LLVMBasicBlockRef no) {
        m_l.LLVMBuildCondBr(m_builder, c, yes, no);
    }
    // A branch the code expects to go to YES (LIKELY) or to NO: LLVM's llvm.expect, so that its code generation lays
    // the other side out of the way and places spills there (a slow path's call clobbers every vector register).
    void expect_br(LLVMValueRef c, bool likely, LLVMBasicBlockRef yes, LLVMBasicBlockRef no) {
        cond_br(intrinsic("llvm.expect", {i1}, {c, constant(i1, likely ? 1 : 0)}), yes, no);
    }
    void ret(LLVMValueRef v) { m_l.LLVMBuildRet(m_builder, v); }

    // Memory: a typed load or store at a pointer with an alignment.
    LLVMValueRef load(LLVMTypeRef type, LLVMValueRef pointer, unsigned align = 1);
    void store(LLVMValueRef value, LLVMValueRef pointer, unsigned align = 1);
    LLVMValueRef byte_offset(LLVMValueRef pointer, LLVMValueRef offset); // i8 GEP
    LLVMValueRef field(LLVMValueRef base, unsigned offset) { return byte_offset(base, constant(i64, offset)); }

    // Integer and float arithmetic.
    LLVMValueRef add(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildAdd(m_builder, a, b, "");
    }
    LLVMValueRef sub(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildSub(m_builder, a, b, "");
    }
    LLVMValueRef mul(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildMul(m_builder, a, b, "");
    }
    LLVMValueRef udiv(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildUDiv(m_builder, a, b, "");
    }
    LLVMValueRef sdiv(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildSDiv(m_builder, a, b, "");
    }
    LLVMValueRef urem(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildURem(m_builder, a, b, "");
    }
    LLVMValueRef srem(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildSRem(m_builder, a, b, "");
    }
    LLVMValueRef shl(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildShl(m_builder, a, b, "");
    }
    LLVMValueRef lshr(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildLShr(m_builder, a, b, "");
    }
    LLVMValueRef ashr(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildAShr(m_builder, a, b, "");
    }
    LLVMValueRef and_(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildAnd(m_builder, a, b, "");
    }
    LLVMValueRef or_(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildOr(m_builder, a, b, "");
    }
    LLVMValueRef xor_(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildXor(m_builder, a, b, "");
    }
    LLVMValueRef not_(LLVMValueRef a) { return m_l.LLVMBuildNot(m_builder, a, ""); }
    LLVMValueRef fadd(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildFAdd(m_builder, a, b, "");
    }
    LLVMValueRef fsub(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildFSub(m_builder, a, b, "");
    }
    LLVMValueRef fmul(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildFMul(m_builder, a, b, "");
    }
    LLVMValueRef fdiv(LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildFDiv(m_builder, a, b, "");
    }
    LLVMValueRef icmp(int predicate, LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildICmp(m_builder, predicate, a, b, "");
    }
    LLVMValueRef fcmp(int predicate, LLVMValueRef a, LLVMValueRef b) {
        unify(a, b);
        return m_l.LLVMBuildFCmp(m_builder, predicate, a, b, "");
    }
    LLVMValueRef select(LLVMValueRef c, LLVMValueRef a, LLVMValueRef b);

    // Conversions.
    LLVMValueRef trunc(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildTrunc(m_builder, v, shaped(t, v), ""); }
    LLVMValueRef zext(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildZExt(m_builder, v, shaped(t, v), ""); }
    LLVMValueRef sext(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildSExt(m_builder, v, shaped(t, v), ""); }
    // An integer to width BITS: truncated, or extended by SIGNED.
    LLVMValueRef resize(LLVMValueRef v, unsigned bits, bool is_signed);
    LLVMValueRef bitcast(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildBitCast(m_builder, v, shaped(t, v), ""); }
    LLVMValueRef int_to_ptr(LLVMValueRef v) { return m_l.LLVMBuildIntToPtr(m_builder, v, shaped(ptr, v), ""); }
    LLVMValueRef fpext(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildFPExt(m_builder, v, shaped(t, v), ""); }
    LLVMValueRef fptrunc(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildFPTrunc(m_builder, v, shaped(t, v), ""); }
    LLVMValueRef sitofp(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildSIToFP(m_builder, v, shaped(t, v), ""); }
    LLVMValueRef uitofp(LLVMValueRef v, LLVMTypeRef t) { return m_l.LLVMBuildUIToFP(m_builder, v, shaped(t, v), ""); }

    // A call of the intrinsic NAME ("llvm.fma") overloaded on OVERLOADS.
    LLVMValueRef intrinsic(std::string_view name, std::initializer_list<LLVMTypeRef> overloads,
                           std::initializer_list<LLVMValueRef> args);
    // A call of the intrinsic NAME, which is not overloaded, with ARGS.
    LLVMValueRef intrinsic_call(std::string_view name, const std::vector<LLVMValueRef>& args);
    // Whether this libLLVM knows the intrinsic NAME, overloaded on as many types as OVERLOADS says (0: not
    // overloaded); intrinsic() and intrinsic_call() must not be called for one it does not.
    bool has_intrinsic(std::string_view name, size_t overloads = 0) const {
        const unsigned id = m_l.LLVMLookupIntrinsicID(name.data(), name.size());
        return id != 0 && (m_l.LLVMIntrinsicIsOverloaded(id) != 0) == (overloads != 0);
    }
    // An indirect call through POINTER of a function of type FN_TYPE.
    LLVMValueRef call(LLVMTypeRef fn_type, LLVMValueRef pointer, std::initializer_list<LLVMValueRef> args);

    // A stack slot in the function's entry block (allocas block), set to zero there.
    void set_alloca_block(LLVMBasicBlockRef block) { m_alloca_block = block; }
    LLVMValueRef zeroed_slot(LLVMTypeRef type);
    // COUNT 64-bit words of stack in the entry block, not initialised (what a runtime helper reads or fills).
    LLVMValueRef words(unsigned count);

private:
    const LlvmLibrary& m_l;
    LLVMContextRef m_context;
    LLVMModuleRef m_module;
    LLVMBuilderRef m_builder;
    LLVMBuilderRef m_alloca_builder;
    LLVMValueRef m_function = nullptr;
    LLVMBasicBlockRef m_alloca_block = nullptr;
};

} // namespace d4r::jit
