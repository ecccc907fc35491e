/* d4r ABI: the part of LLVM's C API (the stable `llvm-c` interface of libLLVM) that d4r's PTX JIT calls, declared
 * by d4r from public facts (exported names and parameter lists as LLVM documents them). No LLVM header is used or
 * copied, so building d4r needs no LLVM development files and libd4rcuda no link-time LLVM.
 *
 * Promise: every function here is resolved by name from a libLLVM loaded at run time (jit/llvm_library.h); the
 * handles are opaque. The list (D4R_LLVM_C_FUNCTIONS) is every entry point d4r uses; each exists in libLLVM 15 and
 * later. In C++ the declarations live in `d4r::abi`. x86-64 Linux only. */
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
typedef struct d4r_llvm_orc_ts_context* LLVMOrcThreadSafeContextRef;
typedef struct d4r_llvm_orc_ts_module* LLVMOrcThreadSafeModuleRef;
typedef struct d4r_llvm_orc_lljit_builder* LLVMOrcLLJITBuilderRef;
typedef struct d4r_llvm_orc_lljit* LLVMOrcLLJITRef;
typedef struct d4r_llvm_orc_jit_dylib* LLVMOrcJITDylibRef;
typedef uint64_t LLVMOrcExecutorAddress;
typedef int LLVMBool;

/* X(name, return type, parameters) */
#define D4R_LLVM_C_FUNCTIONS(X)                                                                                     \
    X(LLVMInitializeX86TargetInfo, void, (void))                                                                    \
    X(LLVMInitializeX86Target, void, (void))                                                                        \
    X(LLVMInitializeX86TargetMC, void, (void))                                                                      \
    X(LLVMInitializeX86AsmPrinter, void, (void))                                                                    \
    X(LLVMGetDefaultTargetTriple, char*, (void))                                                                    \
    X(LLVMDisposeMessage, void, (char*))                                                                            \
    X(LLVMGetErrorMessage, char*, (LLVMErrorRef))                                                                   \
    X(LLVMDisposeErrorMessage, void, (char*))                                                                       \
    X(LLVMModuleCreateWithNameInContext, LLVMModuleRef, (const char*, LLVMContextRef))                              \
    X(LLVMInt32TypeInContext, LLVMTypeRef, (LLVMContextRef))                                                        \
    X(LLVMFunctionType, LLVMTypeRef, (LLVMTypeRef, LLVMTypeRef*, unsigned, LLVMBool))                               \
    X(LLVMAddFunction, LLVMValueRef, (LLVMModuleRef, const char*, LLVMTypeRef))                                     \
    X(LLVMGetParam, LLVMValueRef, (LLVMValueRef, unsigned))                                                         \
    X(LLVMAppendBasicBlockInContext, LLVMBasicBlockRef, (LLVMContextRef, LLVMValueRef, const char*))                \
    X(LLVMCreateBuilderInContext, LLVMBuilderRef, (LLVMContextRef))                                                 \
    X(LLVMPositionBuilderAtEnd, void, (LLVMBuilderRef, LLVMBasicBlockRef))                                          \
    X(LLVMDisposeBuilder, void, (LLVMBuilderRef))                                                                   \
    X(LLVMBuildAdd, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                        \
    X(LLVMBuildMul, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char*))                        \
    X(LLVMBuildRet, LLVMValueRef, (LLVMBuilderRef, LLVMValueRef))                                                   \
    X(LLVMOrcCreateNewThreadSafeContext, LLVMOrcThreadSafeContextRef, (void))                                       \
    X(LLVMOrcThreadSafeContextGetContext, LLVMContextRef, (LLVMOrcThreadSafeContextRef))                            \
    X(LLVMOrcDisposeThreadSafeContext, void, (LLVMOrcThreadSafeContextRef))                                         \
    X(LLVMOrcCreateNewThreadSafeModule, LLVMOrcThreadSafeModuleRef, (LLVMModuleRef, LLVMOrcThreadSafeContextRef))   \
    X(LLVMOrcCreateLLJIT, LLVMErrorRef, (LLVMOrcLLJITRef*, LLVMOrcLLJITBuilderRef))                                 \
    X(LLVMOrcDisposeLLJIT, LLVMErrorRef, (LLVMOrcLLJITRef))                                                         \
    X(LLVMOrcLLJITGetMainJITDylib, LLVMOrcJITDylibRef, (LLVMOrcLLJITRef))                                           \
    X(LLVMOrcLLJITAddLLVMIRModule, LLVMErrorRef, (LLVMOrcLLJITRef, LLVMOrcJITDylibRef, LLVMOrcThreadSafeModuleRef)) \
    X(LLVMOrcLLJITLookup, LLVMErrorRef, (LLVMOrcLLJITRef, LLVMOrcExecutorAddress*, const char*))

#define D4R_LLVM_C_PFN(name, ret, params) typedef ret(*PFN_##name) params;
D4R_LLVM_C_FUNCTIONS(D4R_LLVM_C_PFN)
#undef D4R_LLVM_C_PFN

#ifdef __cplusplus
}
}
#endif
