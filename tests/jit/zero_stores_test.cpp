// The PTX JIT's removal of register slots' zeroing stores that no read can see (jit/zero_stores.h): only a slot whose
// accesses outside the entry block are loads and stores in blocks one of which dominates the others and starts with a
// store loses its zero; the function computes what it did.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/llvm_library.h"
#include "jit/zero_stores.h"

using namespace d4r;
using namespace d4r::jit;
using namespace d4r::abi;

namespace {

// The stores in BLOCK.
int stores_in(const LlvmLibrary& l, LLVMBasicBlockRef block) {
    int n = 0;
    for (LLVMValueRef i = l.LLVMGetFirstInstruction(block); i; i = l.LLVMGetNextInstruction(i))
        n += l.LLVMGetInstructionOpcode(i) == D4R_LLVMStore;
    return n;
}

} // namespace

// f(c, p): slot a is written then read in `body` (its zero is dropped); b is read before it is written there (kept);
// s is written in `body` and read in `then`, which `body` dominates (dropped); e is written in `then` and read in
// `done`, which `then` does not dominate (kept: f(0, p) reads its zero); d's address is stored to *p (escapes: kept).
// f(1, p) = a + b + (s + 3) = 5 + 0 + 12, f(0, p) = a + b + e = 5 + 0 + 0.
TEST(ZeroStores, OnlyASlotWrittenFirstInABlockThatDominatesItsOtherAccessesLosesItsZero) {
    auto loaded = load_llvm_library(default_llvm_candidates());
    ASSERT_TRUE(loaded) << loaded.error().text() << " (scripts/install-deps.sh installs llvm-19)";
    const LlvmLibrary& l = **loaded;
    LLVMOrcThreadSafeContextRef ts_context = l.LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef context = l.LLVMOrcThreadSafeContextGetContext(ts_context);
    LLVMModuleRef module = l.LLVMModuleCreateWithNameInContext("zero_stores", context);
    LLVMTypeRef i32 = l.LLVMInt32TypeInContext(context), i1 = l.LLVMInt1TypeInContext(context);
    LLVMTypeRef ptr = l.LLVMPointerTypeInContext(context, 0);
    LLVMTypeRef params[2] = {i1, ptr};
    LLVMValueRef fn = l.LLVMAddFunction(module, "f", l.LLVMFunctionType(i32, params, 2, 0));
    LLVMBasicBlockRef entry = l.LLVMAppendBasicBlockInContext(context, fn, "entry");
    LLVMBasicBlockRef body = l.LLVMAppendBasicBlockInContext(context, fn, "body");
    LLVMBasicBlockRef then = l.LLVMAppendBasicBlockInContext(context, fn, "then");
    LLVMBasicBlockRef done = l.LLVMAppendBasicBlockInContext(context, fn, "done");
    LLVMBuilderRef b = l.LLVMCreateBuilderInContext(context);
    const auto constant = [&](int v) { return l.LLVMConstInt(i32, static_cast<unsigned long long>(v), 0); };
    l.LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef slot[5];
    for (LLVMValueRef& s : slot) {
        s = l.LLVMBuildAlloca(b, i32, "");
        l.LLVMBuildStore(b, constant(0), s);
    }
    const auto [a, before, s, e, d] = slot;
    l.LLVMBuildBr(b, body);
    l.LLVMPositionBuilderAtEnd(b, body);
    l.LLVMBuildStore(b, constant(5), a);
    LLVMValueRef va = l.LLVMBuildLoad2(b, i32, a, "");
    LLVMValueRef vb = l.LLVMBuildLoad2(b, i32, before, "");
    l.LLVMBuildStore(b, constant(7), before);
    l.LLVMBuildStore(b, constant(9), s);
    l.LLVMBuildStore(b, constant(1), d);
    l.LLVMBuildStore(b, d, l.LLVMGetParam(fn, 1)); // d's address escapes
    LLVMValueRef ab = l.LLVMBuildAdd(b, va, vb, "");
    l.LLVMBuildCondBr(b, l.LLVMGetParam(fn, 0), then, done);
    l.LLVMPositionBuilderAtEnd(b, then);
    l.LLVMBuildStore(b, l.LLVMBuildAdd(b, l.LLVMBuildLoad2(b, i32, s, ""), constant(3), ""), e);
    l.LLVMBuildBr(b, done);
    l.LLVMPositionBuilderAtEnd(b, done);
    l.LLVMBuildRet(b, l.LLVMBuildAdd(b, ab, l.LLVMBuildLoad2(b, i32, e, ""), ""));
    l.LLVMDisposeBuilder(b);

    ASSERT_EQ(stores_in(l, entry), 5);
    EXPECT_EQ(drop_unread_zero_stores(l, fn), 2u);
    EXPECT_EQ(stores_in(l, entry), 3);
    EXPECT_EQ(drop_unread_zero_stores(l, fn), 0u) << "a second pass finds nothing more";
    char* message = nullptr;
    EXPECT_FALSE(l.LLVMVerifyModule(module, D4R_LLVMReturnStatusAction, &message)) << (message ? message : "");
    if (message) l.LLVMDisposeMessage(message);

    LLVMOrcLLJITRef lljit = nullptr;
    ASSERT_EQ(take_error_message(l, l.LLVMOrcCreateLLJIT(&lljit, nullptr)), "");
    ASSERT_EQ(
        take_error_message(l, l.LLVMOrcLLJITAddLLVMIRModule(lljit, l.LLVMOrcLLJITGetMainJITDylib(lljit),
                                                            l.LLVMOrcCreateNewThreadSafeModule(module, ts_context))),
        "");
    LLVMOrcExecutorAddress address = 0;
    ASSERT_EQ(take_error_message(l, l.LLVMOrcLLJITLookup(lljit, &address, "f")), "");
    auto* f = reinterpret_cast<int (*)(bool, void**)>(static_cast<uintptr_t>(address));
    void* escaped = nullptr;
    EXPECT_EQ(f(true, &escaped), 17);
    EXPECT_NE(escaped, nullptr);
    EXPECT_EQ(f(false, &escaped), 5);
    EXPECT_EQ(take_error_message(l, l.LLVMOrcDisposeLLJIT(lljit)), "");
    l.LLVMOrcDisposeThreadSafeContext(ts_context);
}
