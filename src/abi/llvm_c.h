/* d4r ABI: the part of LLVM's C API (the stable `llvm-c` interface of libLLVM) that d4r's PTX JIT calls, declared
 * by d4r from public facts (exported names and parameter lists as LLVM documents them). No LLVM header is used or
 * copied, so building d4r needs no LLVM development files and libd4rcuda no link-time LLVM.
 *
 * Promise: every function here is resolved by name from a libLLVM loaded at run time (jit/llvm_library.h); the
 * handles are opaque. The list (D4R_LLVM_C_FUNCTIONS) is every entry point d4r needs; each exists in libLLVM 15 and
 * later (LLVMGetVersion, below the list, is used where the library has it). In C++ the declarations live in
 * `d4r::abi`. x86-64 Linux only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace d4r::abi {
extern "C" {
#endif

typedef struct d4r_llvm_context* LLVMContextRef;
typedef struct d4r_llvm_module* LLVMModuleRef;
typedef struct d4r_llvm_type* LLVMTypeRef;
typedef struct d4r_llvm_value* LLVMValueRef;
typedef struct d4r_llvm_basic_block* LLVMBasicBlockRef;
typedef struct d4r_llvm_builder* LLVMBuilderRef;
typedef struct d4r_llvm_error* LLVMErrorRef; /* null: success */
typedef struct d4r_llvm_attribute* LLVMAttributeRef;
typedef struct d4r_llvm_orc_ts_context* LLVMOrcThreadSafeContextRef;
typedef struct d4r_llvm_orc_ts_module* LLVMOrcThreadSafeModuleRef;
typedef struct d4r_llvm_orc_lljit_builder* LLVMOrcLLJITBuilderRef;
typedef struct d4r_llvm_orc_lljit* LLVMOrcLLJITRef;
typedef struct d4r_llvm_orc_jit_dylib* LLVMOrcJITDylibRef;
typedef struct d4r_llvm_pass_builder_options* LLVMPassBuilderOptionsRef;
typedef struct d4r_llvm_target_machine* LLVMTargetMachineRef;
typedef struct d4r_llvm_target* LLVMTargetRef;
typedef struct d4r_llvm_target_data* LLVMTargetDataRef;
typedef struct d4r_llvm_memory_buffer* LLVMMemoryBufferRef;
typedef uint64_t LLVMOrcExecutorAddress;
typedef int LLVMBool;

/* LLVMIntPredicate and LLVMRealPredicate (llvm-c/Core.h), by value. */
enum {
    D4R_LLVMIntEQ = 32,
    D4R_LLVMIntNE,
    D4R_LLVMIntUGT,
    D4R_LLVMIntUGE,
    D4R_LLVMIntULT,
    D4R_LLVMIntULE,
    D4R_LLVMIntSGT,
    D4R_LLVMIntSGE,
    D4R_LLVMIntSLT,
    D4R_LLVMIntSLE
};
enum {
    D4R_LLVMRealPredicateFalse = 0,
    D4R_LLVMRealOEQ,
    D4R_LLVMRealOGT,
    D4R_LLVMRealOGE,
    D4R_LLVMRealOLT,
    D4R_LLVMRealOLE,
    D4R_LLVMRealONE,
    D4R_LLVMRealORD,
    D4R_LLVMRealUNO,
    D4R_LLVMRealUEQ,
    D4R_LLVMRealUGT,
    D4R_LLVMRealUGE,
    D4R_LLVMRealULT,
    D4R_LLVMRealULE,
    D4R_LLVMRealUNE,
    D4R_LLVMRealPredicateTrue
};
/* LLVMTypeKind (llvm-c/Core.h): the one d4r tests for. */
enum { D4R_LLVMVectorTypeKind = 13 };
/* LLVMOpcode (llvm-c/Core.h): the memory instructions d4r looks for (jit/zero_stores.h). */
enum { D4R_LLVMAlloca = 26, D4R_LLVMLoad = 27, D4R_LLVMStore = 28 };
/* LLVMVerifierFailureAction: return a status, print nothing. */
enum { D4R_LLVMReturnStatusAction = 2 };
/* LLVMCodeGenOptLevel, LLVMRelocMode, LLVMCodeModel (llvm-c/TargetMachine.h): the values d4r passes. JITDefault is
 * what ORC's LLJIT picks for itself (the large code model on x86-64). LLVMCodeGenFileType: an object file. */
enum { D4R_LLVMCodeGenLevelNone = 0, D4R_LLVMCodeGenLevelDefault = 2 };
enum { D4R_LLVMRelocDefault = 0 };
enum { D4R_LLVMCodeModelJITDefault = 1 };
enum { D4R_LLVMObjectFile = 1 };
/* For the NVPTX lowering (jit/nvptx): LLVMCodeGenFileType's assembly file (PTX text), LLVMAtomicOrdering,
 * LLVMAtomicRMWBinOp, LLVMLinkage and the PTX kernel calling convention (llvm/IR/CallingConv.h), by value. */
enum { D4R_LLVMAssemblyFile = 0 };
enum { D4R_LLVMCodeModelDefault = 0 };
enum {
    D4R_LLVMAtomicOrderingMonotonic = 2,
    D4R_LLVMAtomicOrderingAcquire = 4,
    D4R_LLVMAtomicOrderingRelease = 5,
    D4R_LLVMAtomicOrderingAcquireRelease = 6,
    D4R_LLVMAtomicOrderingSequentiallyConsistent = 7
};
enum {
    D4R_LLVMAtomicRMWBinOpXchg = 0,
    D4R_LLVMAtomicRMWBinOpAdd,
    D4R_LLVMAtomicRMWBinOpSub,
    D4R_LLVMAtomicRMWBinOpAnd,
    D4R_LLVMAtomicRMWBinOpNand,
    D4R_LLVMAtomicRMWBinOpOr,
    D4R_LLVMAtomicRMWBinOpXor,
    D4R_LLVMAtomicRMWBinOpMax,
    D4R_LLVMAtomicRMWBinOpMin,
    D4R_LLVMAtomicRMWBinOpUMax,
    D4R_LLVMAtomicRMWBinOpUMin,
    D4R_LLVMAtomicRMWBinOpFAdd,
    D4R_LLVMAtomicRMWBinOpFSub,
    D4R_LLVMAtomicRMWBinOpFMax,
    D4R_LLVMAtomicRMWBinOpFMin,
    D4R_LLVMAtomicRMWBinOpUIncWrap,
    D4R_LLVMAtomicRMWBinOpUDecWrap
};
enum { D4R_LLVMExternalLinkage = 0, D4R_LLVMInternalLinkage = 8 };
enum { D4R_LLVMCallConvPtxKernel = 71 };

/* X(name, return type, parameters) */
#define D4R_LLVM_C_FUNCTIONS(X)                                                                                        \
    X(LLVMInitializeX86TargetInfo, void, (void))                                                                       \
    X(LLVMInitializeX86Target, void, (void))                                                                           \
    X(LLVMInitializeX86TargetMC, void, (void))                                                                         \
    X(LLVMInitializeX86AsmPrinter, void, (void))                                                                       \
    X(LLVMGetDefaultTargetTriple, char*, (void))                                                                       \
    X(LLVMDisposeMessage, void, (char*))                                                                               \
    X(LLVMGetErrorMessage, char*, (LLVMErrorRef))                                                                      \
    X(LLVMDisposeErrorMessage, void, (char*))                                                                          \
    X(LLVMModuleCreateWithNameInContext, LLVMModuleRef, (const char*, LLVMContextRef))                                 \
    X(LLVMInt32TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                           \
    X(LLVMFunctionType, LLVMTypeRef, (LLVMTypeRef, LLVMTypeRef*, unsigned, LLVMBool))                                  \
    X(LLVMAddFunction, LLVMValueRef, (LLVMModuleRef, const char*, LLVMTypeRef))                                        \
    X(LLVMGetParam, LLVMValueRef, (LLVMValueRef, unsigned))                                                            \
    X(LLVMAppendBasicBlockInContext, LLVMBasicBlockRef, (LLVMContextRef, LLVMValueRef, const char*))                   \
    X(LLVMCreateBuilderInContext, LLVMBuilderRef, (LLVMContextRef))                                                    \
    X(LLVMPositionBuilderAtEnd, void, (LLVMBuilderRef, LLVMBasicBlockRef))                                             \
    X(LLVMDisposeBuilder, void, (LLVMBuilderRef))                                                                      \
    X(LLVMBuildAdd, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                           \
    X(LLVMBuildMul, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                           \
    X(LLVMBuildRet, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef))                                                      \
    X(LLVMOrcCreateNewThreadSafeContext, LLVMOrcThreadSafeContextRef, (void))                                          \
    X(LLVMOrcThreadSafeContextGetContext, LLVMContextRef, (LLVMOrcThreadSafeContextRef))                               \
    X(LLVMOrcDisposeThreadSafeContext, void, (LLVMOrcThreadSafeContextRef))                                            \
    X(LLVMOrcCreateNewThreadSafeModule, LLVMOrcThreadSafeModuleRef, (LLVMModuleRef, LLVMOrcThreadSafeContextRef))      \
    X(LLVMOrcCreateLLJIT, LLVMErrorRef, (LLVMOrcLLJITRef*, LLVMOrcLLJITBuilderRef))                                    \
    X(LLVMOrcDisposeLLJIT, LLVMErrorRef, (LLVMOrcLLJITRef))                                                            \
    X(LLVMOrcLLJITGetMainJITDylib, LLVMOrcJITDylibRef, (LLVMOrcLLJITRef))                                              \
    X(LLVMOrcLLJITAddLLVMIRModule, LLVMErrorRef, (LLVMOrcLLJITRef, LLVMOrcJITDylibRef, LLVMOrcThreadSafeModuleRef))    \
    X(LLVMOrcLLJITLookup, LLVMErrorRef, (LLVMOrcLLJITRef, LLVMOrcExecutorAddress*, const char*))                       \
    X(LLVMInt1TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                            \
    X(LLVMInt8TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                            \
    X(LLVMInt16TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                           \
    X(LLVMInt64TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                           \
    X(LLVMInt128TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                          \
    X(LLVMFloatTypeInContext, LLVMTypeRef, (LLVMContextRef))                                                           \
    X(LLVMDoubleTypeInContext, LLVMTypeRef, (LLVMContextRef))                                                          \
    X(LLVMVoidTypeInContext, LLVMTypeRef, (LLVMContextRef))                                                            \
    X(LLVMPointerTypeInContext, LLVMTypeRef, (LLVMContextRef, unsigned))                                               \
    X(LLVMGetIntTypeWidth, unsigned, (LLVMTypeRef))                                                                    \
    X(LLVMTypeOf, LLVMTypeRef, (LLVMValueRef))                                                                         \
    X(LLVMConstInt, LLVMValueRef, (LLVMTypeRef, unsigned long long, LLVMBool))                                         \
    X(LLVMGlobalGetValueType, LLVMTypeRef, (LLVMValueRef))                                                             \
    X(LLVMLookupIntrinsicID, unsigned, (const char*, size_t))                                                          \
    X(LLVMGetIntrinsicDeclaration, LLVMValueRef, (LLVMModuleRef, unsigned, LLVMTypeRef*, size_t))                      \
    X(LLVMGetInsertBlock, LLVMBasicBlockRef, (LLVMBuilderRef))                                                         \
    X(LLVMGetBasicBlockTerminator, LLVMValueRef, (LLVMBasicBlockRef))                                                  \
    X(LLVMBuildAlloca, LLVMValueRef, (LLVMBuilderRef, LLVMTypeRef, const char*))                                       \
    X(LLVMBuildLoad2, LLVMValueRef, (LLVMBuilderRef, LLVMTypeRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildStore, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef))                                      \
    X(LLVMSetAlignment, void, (LLVMValueRef, unsigned))                                                                \
    X(LLVMBuildGEP2, LLVMValueRef, (LLVMBuilderRef, LLVMTypeRef, LLVMValueRef, LLVMValueRef*, unsigned, const char*))  \
    X(LLVMBuildSub, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                           \
    X(LLVMBuildUDiv, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildSDiv, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildURem, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildSRem, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildShl, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                           \
    X(LLVMBuildLShr, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildAShr, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildAnd, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                           \
    X(LLVMBuildOr, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                            \
    X(LLVMBuildXor, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                           \
    X(LLVMBuildNot, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, const char*))                                         \
    X(LLVMBuildFAdd, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildFSub, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildFMul, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildFDiv, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                          \
    X(LLVMBuildICmp, LLVMValueRef, (LLVMBuilderRef, int, LLVMValueRef, LLVMValueRef, const char*))                     \
    X(LLVMBuildFCmp, LLVMValueRef, (LLVMBuilderRef, int, LLVMValueRef, LLVMValueRef, const char*))                     \
    X(LLVMBuildSelect, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, LLVMValueRef, const char*))          \
    X(LLVMBuildTrunc, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                          \
    X(LLVMBuildZExt, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                           \
    X(LLVMBuildSExt, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                           \
    X(LLVMBuildBitCast, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                        \
    X(LLVMBuildIntToPtr, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                       \
    X(LLVMBuildPtrToInt, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                       \
    X(LLVMBuildFPExt, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                          \
    X(LLVMBuildFPTrunc, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                        \
    X(LLVMBuildSIToFP, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                         \
    X(LLVMBuildUIToFP, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                         \
    X(LLVMBuildBr, LLVMValueRef, (LLVMBuilderRef, LLVMBasicBlockRef))                                                  \
    X(LLVMBuildCondBr, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMBasicBlockRef, LLVMBasicBlockRef))             \
    X(LLVMBuildCall2, LLVMValueRef, (LLVMBuilderRef, LLVMTypeRef, LLVMValueRef, LLVMValueRef*, unsigned, const char*)) \
    X(LLVMVerifyModule, LLVMBool, (LLVMModuleRef, int, char**))                                                        \
    X(LLVMPrintModuleToString, char*, (LLVMModuleRef))                                                                 \
    X(LLVMDisposeModule, void, (LLVMModuleRef))                                                                        \
    X(LLVMCreatePassBuilderOptions, LLVMPassBuilderOptionsRef, (void))                                                 \
    X(LLVMDisposePassBuilderOptions, void, (LLVMPassBuilderOptionsRef))                                                \
    X(LLVMRunPasses, LLVMErrorRef, (LLVMModuleRef, const char*, LLVMTargetMachineRef, LLVMPassBuilderOptionsRef))      \
    X(LLVMSetDataLayout, void, (LLVMModuleRef, const char*))                                                           \
    X(LLVMSetTarget, void, (LLVMModuleRef, const char*))                                                               \
    X(LLVMOrcLLJITGetDataLayoutStr, const char*, (LLVMOrcLLJITRef))                                                    \
    X(LLVMOrcLLJITGetTripleString, const char*, (LLVMOrcLLJITRef))                                                     \
    X(LLVMBuildPhi, LLVMValueRef, (LLVMBuilderRef, LLVMTypeRef, const char*))                                          \
    X(LLVMAddIncoming, void, (LLVMValueRef, LLVMValueRef*, LLVMBasicBlockRef*, unsigned))                              \
    X(LLVMSetVolatile, void, (LLVMValueRef, LLVMBool))                                                                 \
    X(LLVMConstNull, LLVMValueRef, (LLVMTypeRef))                                                                      \
    X(LLVMBuildSwitch, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMBasicBlockRef, unsigned))                      \
    X(LLVMAddCase, void, (LLVMValueRef, LLVMValueRef, LLVMBasicBlockRef))                                              \
    X(LLVMArrayType, LLVMTypeRef, (LLVMTypeRef, unsigned))                                                             \
    X(LLVMVectorType, LLVMTypeRef, (LLVMTypeRef, unsigned))                                                            \
    X(LLVMGetTypeKind, int, (LLVMTypeRef))                                                                             \
    X(LLVMGetElementType, LLVMTypeRef, (LLVMTypeRef))                                                                  \
    X(LLVMGetVectorSize, unsigned, (LLVMTypeRef))                                                                      \
    X(LLVMGetUndef, LLVMValueRef, (LLVMTypeRef))                                                                       \
    X(LLVMBuildInsertElement, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, LLVMValueRef, const char*))   \
    X(LLVMBuildExtractElement, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                \
    X(LLVMBuildShuffleVector, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, LLVMValueRef, const char*))   \
    X(LLVMCreateStringAttribute, LLVMAttributeRef, (LLVMContextRef, const char*, unsigned, const char*, unsigned))     \
    X(LLVMAddAttributeAtIndex, void, (LLVMValueRef, unsigned, LLVMAttributeRef))                                       \
    X(LLVMGetHostCPUName, char*, (void))                                                                               \
    X(LLVMGetHostCPUFeatures, char*, (void))                                                                           \
    X(LLVMGetTargetFromTriple, LLVMBool, (const char*, LLVMTargetRef*, char**))                                        \
    X(LLVMCreateTargetMachine, LLVMTargetMachineRef,                                                                   \
      (LLVMTargetRef, const char*, const char*, const char*, int, int, int))                                           \
    X(LLVMDisposeTargetMachine, void, (LLVMTargetMachineRef))                                                          \
    X(LLVMCreateTargetDataLayout, LLVMTargetDataRef, (LLVMTargetMachineRef))                                           \
    X(LLVMSetModuleDataLayout, void, (LLVMModuleRef, LLVMTargetDataRef))                                               \
    X(LLVMDisposeTargetData, void, (LLVMTargetDataRef))                                                                \
    X(LLVMTargetMachineEmitToMemoryBuffer, LLVMBool,                                                                   \
      (LLVMTargetMachineRef, LLVMModuleRef, int, char**, LLVMMemoryBufferRef*))                                        \
    X(LLVMCreateMemoryBufferWithMemoryRangeCopy, LLVMMemoryBufferRef, (const char*, size_t, const char*))              \
    X(LLVMGetBufferStart, const char*, (LLVMMemoryBufferRef))                                                          \
    X(LLVMGetBufferSize, size_t, (LLVMMemoryBufferRef))                                                                \
    X(LLVMDisposeMemoryBuffer, void, (LLVMMemoryBufferRef))                                                            \
    X(LLVMOrcLLJITAddObjectFile, LLVMErrorRef, (LLVMOrcLLJITRef, LLVMOrcJITDylibRef, LLVMMemoryBufferRef))             \
    X(LLVMGetNamedFunction, LLVMValueRef, (LLVMModuleRef, const char*))                                                \
    X(LLVMGetFirstBasicBlock, LLVMBasicBlockRef, (LLVMValueRef))                                                       \
    X(LLVMGetNextBasicBlock, LLVMBasicBlockRef, (LLVMBasicBlockRef))                                                   \
    X(LLVMGetFirstInstruction, LLVMValueRef, (LLVMBasicBlockRef))                                                      \
    X(LLVMGetNextInstruction, LLVMValueRef, (LLVMValueRef))                                                            \
    X(LLVMBuildAtomicRMW, LLVMValueRef, (LLVMBuilderRef, int, LLVMValueRef, LLVMValueRef, int, LLVMBool))              \
    X(LLVMBuildAtomicCmpXchg, LLVMValueRef,                                                                            \
      (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, LLVMValueRef, int, int, LLVMBool))                                  \
    X(LLVMBuildExtractValue, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, unsigned, const char*))                      \
    X(LLVMBuildAddrSpaceCast, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, const char*))                  \
    X(LLVMBuildFence, LLVMValueRef, (LLVMBuilderRef, int, LLVMBool, const char*))                                      \
    X(LLVMSetFunctionCallConv, void, (LLVMValueRef, unsigned))                                                         \
    X(LLVMAddGlobalInAddressSpace, LLVMValueRef, (LLVMModuleRef, LLVMTypeRef, const char*, unsigned))                  \
    X(LLVMSetInitializer, void, (LLVMValueRef, LLVMValueRef))                                                          \
    X(LLVMSetLinkage, void, (LLVMValueRef, int))                                                                       \
    X(LLVMSetGlobalConstant, void, (LLVMValueRef, LLVMBool))                                                           \
    X(LLVMConstStringInContext, LLVMValueRef, (LLVMContextRef, const char*, unsigned, LLVMBool))                       \
    X(LLVMHalfTypeInContext, LLVMTypeRef, (LLVMContextRef))                                                            \
    X(LLVMBFloatTypeInContext, LLVMTypeRef, (LLVMContextRef))                                                          \
    X(LLVMContextCreate, LLVMContextRef, (void))                                                                       \
    X(LLVMContextDispose, void, (LLVMContextRef))                                                                      \
    X(LLVMBuildRetVoid, LLVMValueRef, (LLVMBuilderRef))                                                                \
    X(LLVMBuildFNeg, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, const char*))                                        \
    X(LLVMIntrinsicIsOverloaded, LLVMBool, (unsigned))                                                                 \
    X(LLVMConstArray, LLVMValueRef, (LLVMTypeRef, LLVMValueRef*, unsigned))                                            \
    X(LLVMStructTypeInContext, LLVMTypeRef, (LLVMContextRef, LLVMTypeRef*, unsigned, LLVMBool))                        \
    X(LLVMGetEnumAttributeKindForName, unsigned, (const char*, size_t))                                                \
    X(LLVMCreateEnumAttribute, LLVMAttributeRef, (LLVMContextRef, unsigned, uint64_t))                                 \
    X(LLVMAddCallSiteAttribute, void, (LLVMValueRef, unsigned, LLVMAttributeRef))                                      \
    X(LLVMGetInlineAsm, LLVMValueRef,                                                                                  \
      (LLVMTypeRef, const char*, size_t, const char*, size_t, LLVMBool, LLVMBool, int, LLVMBool))                      \
    X(LLVMGetNumOperands, int, (LLVMValueRef))                                                                         \
    X(LLVMGetOperand, LLVMValueRef, (LLVMValueRef, unsigned))                                                          \
    X(LLVMGetInstructionOpcode, int, (LLVMValueRef))                                                                   \
    X(LLVMInstructionEraseFromParent, void, (LLVMValueRef))                                                            \
    X(LLVMGetNumSuccessors, unsigned, (LLVMValueRef))                                                                  \
    X(LLVMGetSuccessor, LLVMBasicBlockRef, (LLVMValueRef, unsigned))

/* Resolved when the library exports it (libLLVM 16 and later), not required: the version for the compile cache's
 * key (jit/llvm_library.h, LlvmLibrary::version). */
typedef void (*PFN_LLVMGetVersion)(unsigned*, unsigned*, unsigned*);

#define D4R_LLVM_C_PFN(name, ret, params) typedef ret(*PFN_##name) params;
D4R_LLVM_C_FUNCTIONS(D4R_LLVM_C_PFN)
#undef D4R_LLVM_C_PFN

#ifdef __cplusplus
}
}
#endif
