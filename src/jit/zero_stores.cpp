// Dropping the zeroing stores no read can see (see zero_stores.h).
#include "jit/zero_stores.h"

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

namespace d4r::jit {

namespace {

// FUNCTION's blocks with their dominator tree, numbered so that `dominates` is two comparisons (the Cooper, Harvey and
// Kennedy iteration over reverse postorder, then a depth-first walk of the tree).
class Dominators {
public:
    Dominators(const LlvmLibrary& l, abi::LLVMValueRef function) {
        for (abi::LLVMBasicBlockRef b = l.LLVMGetFirstBasicBlock(function); b; b = l.LLVMGetNextBasicBlock(b)) {
            m_index.emplace(b, static_cast<int>(m_index.size()));
        }
        const size_t n = m_index.size();
        std::vector<std::vector<int>> successors(n), predecessors(n);
        for (const auto& [block, i] : m_index) {
            abi::LLVMValueRef terminator = l.LLVMGetBasicBlockTerminator(block);
            const unsigned count = terminator ? l.LLVMGetNumSuccessors(terminator) : 0;
            for (unsigned k = 0; k < count; ++k) {
                const int j = m_index.at(l.LLVMGetSuccessor(terminator, k));
                successors[i].push_back(j);
                predecessors[j].push_back(i);
            }
        }
        // Reverse postorder from the entry (block 0); unreachable blocks keep rpo -1.
        std::vector<int> order, rpo(n, -1);
        std::vector<char> seen(n, 0);
        std::vector<std::pair<int, size_t>> stack{{0, 0}};
        seen[0] = 1;
        while (!stack.empty()) {
            auto& [b, next] = stack.back();
            if (next < successors[b].size()) {
                const int s = successors[b][next++];
                if (!seen[s]) {
                    seen[s] = 1;
                    stack.emplace_back(s, 0);
                }
            } else {
                order.push_back(b);
                stack.pop_back();
            }
        }
        std::reverse(order.begin(), order.end());
        for (size_t k = 0; k < order.size(); ++k) rpo[order[k]] = static_cast<int>(k);
        std::vector<int> idom(n, -1);
        idom[0] = 0;
        const auto intersect = [&](int a, int b) {
            while (a != b) {
                while (rpo[a] > rpo[b]) a = idom[a];
                while (rpo[b] > rpo[a]) b = idom[b];
            }
            return a;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t k = 1; k < order.size(); ++k) {
                const int b = order[k];
                int d = -1;
                for (int p : predecessors[b])
                    if (idom[p] != -1) d = d == -1 ? p : intersect(p, d);
                if (d != idom[b]) {
                    idom[b] = d;
                    changed = true;
                }
            }
        }
        // Pre- and postorder numbers of the tree.
        std::vector<std::vector<int>> children(n);
        for (int b : order)
            if (b != 0) children[idom[b]].push_back(b);
        m_pre.assign(n, -1);
        m_post.assign(n, -1);
        int clock = 0;
        std::vector<std::pair<int, size_t>> walk{{0, 0}};
        m_pre[0] = clock++;
        while (!walk.empty()) {
            auto& [b, next] = walk.back();
            if (next < children[b].size()) {
                const int c = children[b][next++];
                m_pre[c] = clock++;
                walk.emplace_back(c, 0);
            } else {
                m_post[b] = clock++;
                walk.pop_back();
            }
        }
    }
    int index(abi::LLVMBasicBlockRef b) const { return m_index.at(b); }
    bool reachable(int b) const { return m_pre[b] != -1; }
    int preorder(int b) const { return m_pre[b]; }
    // Whether every path from the entry to B passes through A (both reachable).
    bool dominates(int a, int b) const { return m_pre[a] <= m_pre[b] && m_post[b] <= m_post[a]; }

private:
    std::unordered_map<abi::LLVMBasicBlockRef, int> m_index;
    std::vector<int> m_pre, m_post;
};

struct Access {
    int block;
    bool store; // the block's first access to the slot is a store
};

struct Slot {
    abi::LLVMValueRef zero_store = nullptr; // the entry block's store to the slot
    std::vector<Access> blocks;             // each block with an access, in layout order
    bool eligible = true;
};

} // namespace

uint64_t drop_unread_zero_stores(const LlvmLibrary& l, abi::LLVMValueRef function) {
    if (!function) return 0;
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
    const Dominators dom(l, function);
    // The other blocks, in order: which blocks access each slot, and whether a block's first access is a store.
    for (abi::LLVMBasicBlockRef b = l.LLVMGetNextBasicBlock(entry); b; b = l.LLVMGetNextBasicBlock(b)) {
        const int block = dom.index(b);
        for (abi::LLVMValueRef i = l.LLVMGetFirstInstruction(b); i; i = l.LLVMGetNextInstruction(i)) {
            const int opcode = l.LLVMGetInstructionOpcode(i);
            const int operands = l.LLVMGetNumOperands(i);
            for (int k = 0; k < operands; ++k) {
                auto it = slots.find(l.LLVMGetOperand(i, static_cast<unsigned>(k)));
                if (it == slots.end()) continue;
                Slot& s = it->second;
                const bool load = opcode == abi::D4R_LLVMLoad && k == 0;
                const bool store = opcode == abi::D4R_LLVMStore && k == 1;
                if (!load && !store)
                    s.eligible = false; // the address escapes
                else if (s.blocks.empty() || s.blocks.back().block != block)
                    s.blocks.push_back({block, store});
            }
        }
    }
    // A slot's zero is unread when one of its blocks dominates all the others and begins with a store: every path to
    // a load passes a store first. That block is the one first in the tree's preorder, if any block is.
    uint64_t erased = 0;
    for (auto& [slot, s] : slots) {
        if (!s.eligible || !s.zero_store || s.blocks.empty()) continue;
        const bool reachable =
            std::all_of(s.blocks.begin(), s.blocks.end(), [&](const Access& a) { return dom.reachable(a.block); });
        if (!reachable) continue;
        const Access& top = *std::min_element(s.blocks.begin(), s.blocks.end(), [&](const Access& a, const Access& b) {
            return dom.preorder(a.block) < dom.preorder(b.block);
        });
        if (!top.store) continue;
        if (!std::all_of(s.blocks.begin(), s.blocks.end(),
                         [&](const Access& a) { return dom.dominates(top.block, a.block); }))
            continue;
        l.LLVMInstructionEraseFromParent(s.zero_store);
        ++erased;
    }
    return erased;
}

} // namespace d4r::jit
