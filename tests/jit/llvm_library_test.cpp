// The PTX JIT's LLVM side (jit/llvm_library.h): the system's libLLVM, loaded at run time through its C API,
// compiles IR d4r builds and runs it; a missing library or function is named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/llvm_library.h"

using namespace d4r;
using namespace d4r::jit;
using namespace d4r::abi;

// madd(x, y) = x * y + x, built with the C API, compiled by ORC's LLJIT and called.
TEST(LlvmLibrary, TheSystemLibraryCompilesAndRunsAFunction) {
    const std::vector<std::string> candidates = default_llvm_candidates();
    auto loaded = load_llvm_library(candidates);
    ASSERT_TRUE(loaded) << loaded.error().text() << " (scripts/install-deps.sh installs llvm-19)";
    const LlvmLibrary& llvm = **loaded;

    LLVMOrcThreadSafeContextRef ts_context = llvm.LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef context = llvm.LLVMOrcThreadSafeContextGetContext(ts_context);
    LLVMModuleRef module = llvm.LLVMModuleCreateWithNameInContext("madd", context);
    LLVMTypeRef i32 = llvm.LLVMInt32TypeInContext(context);
    LLVMTypeRef params[2] = {i32, i32};
    LLVMValueRef fn = llvm.LLVMAddFunction(module, "madd", llvm.LLVMFunctionType(i32, params, 2, 0));
    LLVMBuilderRef builder = llvm.LLVMCreateBuilderInContext(context);
    llvm.LLVMPositionBuilderAtEnd(builder, llvm.LLVMAppendBasicBlockInContext(context, fn, "entry"));
    LLVMValueRef x = llvm.LLVMGetParam(fn, 0), y = llvm.LLVMGetParam(fn, 1);
    llvm.LLVMBuildRet(builder, llvm.LLVMBuildAdd(builder, llvm.LLVMBuildMul(builder, x, y, "p"), x, "s"));
    llvm.LLVMDisposeBuilder(builder);

    LLVMOrcLLJITRef lljit = nullptr;
    ASSERT_EQ(take_error_message(llvm, llvm.LLVMOrcCreateLLJIT(&lljit, nullptr)), "");
    ASSERT_EQ(take_error_message(
                  llvm, llvm.LLVMOrcLLJITAddLLVMIRModule(lljit, llvm.LLVMOrcLLJITGetMainJITDylib(lljit),
                                                         llvm.LLVMOrcCreateNewThreadSafeModule(module, ts_context))),
              "");
    LLVMOrcExecutorAddress address = 0;
    ASSERT_EQ(take_error_message(llvm, llvm.LLVMOrcLLJITLookup(lljit, &address, "madd")), "");
    auto* madd = reinterpret_cast<int (*)(int, int)>(static_cast<uintptr_t>(address));
    EXPECT_EQ(madd(6, 7), 48);
    EXPECT_EQ(madd(-3, 5), -18);
    EXPECT_EQ(take_error_message(llvm, llvm.LLVMOrcDisposeLLJIT(lljit)), "");
    llvm.LLVMOrcDisposeThreadSafeContext(ts_context);

    // A second load answers the same table.
    auto again = load_llvm_library(candidates);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *loaded);
}

TEST(LlvmLibrary, ALibraryThatIsMissingOrIsNotLlvmIsNamed) {
    const std::vector<std::string> candidates = {"/nonexistent/libLLVM.so", "libz.so.1"};
    auto loaded = load_llvm_library(candidates);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.error().code(), ErrorCode::NotFound);
    const std::string text = loaded.error().text();
    EXPECT_NE(text.find("/nonexistent/libLLVM.so:"), std::string::npos) << text;
    EXPECT_NE(text.find("libz.so.1: does not export LLVMInitializeX86TargetInfo"), std::string::npos) << text;
}
