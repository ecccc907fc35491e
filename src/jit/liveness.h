// d4r's PTX JIT: which registers are live after an instruction of a function (used where a compiled thread stops
// at a barrier: only the registers live there are kept for its resumption).
//
// Promise: live_after() over-approximates, never under-approximates: every register some path from the
// instruction reads before writing it is in the set. Every name an operand or guard mentions counts as read (labels
// and variables too: the caller keeps only the names that are registers); an instruction writes its first operand
// only when it is unguarded and its opcode is one whose first operand is a destination. Control flow follows labels,
// `bra` (a guarded one may fall through) and `exit`/`ret`; `brx.idx` goes to every label of the function.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptx/ast.h"

namespace d4r::jit {

// Whether IN's first operand is a destination it writes (when it runs: a guard aside).
bool writes_first_operand(const ptx::ast::Instruction& in);
// Appends the names O mentions (registers, and labels, variables or special registers: callers keep what they need).
void operand_names(const ptx::ast::Operand& o, std::vector<std::string_view>& out);

class Liveness {
public:
    explicit Liveness(const ptx::ast::Function& f);
    // The names live after instruction INDEX (into Function::instructions), sorted by first use.
    std::vector<std::string_view> live_after(uint32_t instruction) const;
    // The names live before instruction INDEX.
    std::vector<std::string_view> live_before(uint32_t instruction) const;
    // A slot for each name of NAMES (0, 1, ...), two names sharing one only where no instruction has both live
    // before or after it or writes one while the other is live there (a write with no reader after it counts too).
    // Names are taken in the order they first occur; each goes to the first slot it fits.
    std::unordered_map<std::string_view, uint32_t> share_slots(const std::vector<std::string_view>& names) const;
    // The names some instruction that can run after one of INSTRUCTIONS (indices into Function::instructions) may
    // write, guarded or not (over-approximates: every name of a first operand that is a destination).
    std::unordered_set<std::string_view> written_after(const std::vector<uint32_t>& instructions) const;

private:
    std::vector<std::string_view> m_names;
    std::vector<std::vector<uint32_t>> m_defs;     // per position: the names it writes
    std::vector<std::vector<uint32_t>> m_writes;   // per position: the names it may write (guarded too)
    std::vector<std::vector<uint32_t>> m_succ;     // per position: where control goes next
    std::vector<uint32_t> m_order;                 // instruction index -> position in body order
    std::vector<std::vector<uint64_t>> m_live_out; // per position: a bit set over m_names
    std::vector<std::vector<uint64_t>> m_live_in;
};

} // namespace d4r::jit
