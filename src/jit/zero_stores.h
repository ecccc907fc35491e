// d4r's PTX JIT: dropping the zeroing stores of register slots that no read can see, before LLVM's optimiser.
//
// Every PTX register is lowered to a stack slot (an alloca in the entry block) set to zero there, so that a register
// read before any write gives 0 as in the interpreter. LLVM promotes the slots to SSA values; for a slot written in
// two blocks (the entry's zero and its real writes) it places phis with the dominator tree, a walk that grows with the
// blocks the writes dominate: the fused refine block's warp code (19 357 blocks, 9 929 slots) spent 36 of its 50 s of
// compile time there. For a slot whose accesses outside the entry block are in blocks one of which dominates the rest
// and begins with a write (most registers: nvcc's PTX writes a register before it reads it), no read ever sees the
// zero, and without it LLVM promotes the slot from that one write.
//
// Promise: drop_unread_zero_stores() erases, for each alloca of FUNCTION's entry block, that block's one store to it
// when (a) the entry block does nothing else with the slot, (b) every other use of the slot is the address of a load
// or of a store (its address never escapes: not passed to a call, stored, offset or compared), (c) those loads and
// stores are in reachable blocks, one of which dominates the others, and (d) in that block the first of them is a
// store. Every load then reads a value stored before it on every path, so the program computes what it did before.
// It answers how many stores it erased.
#pragma once

#include <cstdint>

#include "jit/llvm_library.h"

namespace d4r::jit {

uint64_t drop_unread_zero_stores(const LlvmLibrary& l, abi::LLVMValueRef function);

} // namespace d4r::jit
