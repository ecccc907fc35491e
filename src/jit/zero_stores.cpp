// Dropping the zeroing stores no read can see (see zero_stores.h).
#include "jit/zero_stores.h"

#include <unordered_map>

namespace d4r::jit {

namespace {

struct Slot {
    abi::LLVMValueRef zero_store = nullptr; // the entry block's store to the slot
    abi::LLVMBasicBlockRef block = nullptr; // the one block of its other accesses (none yet: nullptr)
    bool first_is_store = false;            // in that block
    bool eligible = true;
};

} // namespace

uint64_t drop_unread_zero_stores(const LlvmLibrary& l, abi::LLVMValueRef function) {
    abi::LLVMBasicBlockRef entry = l.LLVMGetFirstBasicBlock(function);
    if (!entry) return 0;
    std::unordered_map<abi::LLVMValueRef, Slot> slots;
    // The entry block: its allocas, and one store to each (any other use there makes the slot ineligible).
    for (abi::LLVMValueRef i = l.LLVMGetFirstInstruction(entry); i; i = l.LLVMGetNextInstruction(i)) {
        const int opcode = l.LLVMGetInstructionOpcode(i);
        if (opcode == abi::D4R_LLVMAlloca) {
            slots.emplace(i, Slot{});
            continue;
        }
        const int operands = l.LLVMGetNumOperands(i);
        for (int k = 0; k < operands; ++k) {
            auto it = slots.find(l.LLVMGetOperand(i, static_cast<unsigned>(k)));
            if (it == slots.end()) continue;
            Slot& s = it->second;
            if (opcode == abi::D4R_LLVMStore && k == 1 && !s.zero_store)
                s.zero_store = i;
            else
                s.eligible = false;
        }
    }
    if (slots.empty()) return 0;
    // The other blocks, in order: where each slot is accessed, and whether a block's first access is a store.
    for (abi::LLVMBasicBlockRef b = l.LLVMGetNextBasicBlock(entry); b; b = l.LLVMGetNextBasicBlock(b)) {
        for (abi::LLVMValueRef i = l.LLVMGetFirstInstruction(b); i; i = l.LLVMGetNextInstruction(i)) {
            const int opcode = l.LLVMGetInstructionOpcode(i);
            const int operands = l.LLVMGetNumOperands(i);
            for (int k = 0; k < operands; ++k) {
                auto it = slots.find(l.LLVMGetOperand(i, static_cast<unsigned>(k)));
                if (it == slots.end()) continue;
                Slot& s = it->second;
                const bool load = opcode == abi::D4R_LLVMLoad && k == 0;
                const bool store = opcode == abi::D4R_LLVMStore && k == 1;
                if (!load && !store) {
                    s.eligible = false; // the address escapes
                } else if (!s.block) {
                    s.block = b;
                    s.first_is_store = store;
                } else if (s.block != b) {
                    s.eligible = false;
                }
            }
        }
    }
    uint64_t erased = 0;
    for (auto& [slot, s] : slots)
        if (s.eligible && s.zero_store && s.block && s.first_is_store) {
            l.LLVMInstructionEraseFromParent(s.zero_store);
            ++erased;
        }
    return erased;
}

} // namespace d4r::jit
