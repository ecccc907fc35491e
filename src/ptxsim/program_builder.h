// ptxsim internals: builds one kernel's Program from the syntax tree. Lays out what is static per
// kernel (registers in the arena, shared memory, per-thread local and function-parameter areas, call
// stack depth), then decodes the entry and every .func it reaches into one code array, resolving
// labels and call targets. Recursion is found here: the functions on a call-graph cycle get a
// FrameLayout (what a call into them saves, recursion.h), since registers are allocated statically per
// function.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ptx/module_index.h"
#include "ptxsim/decoder.h"
#include "ptxsim/front_end.h"
#include "ptxsim/ir.h"
#include "ptxsim/ptxsim.h"

namespace d4r::ptxsim {

// Module-scope facts every kernel's builder shares.
struct ModuleContext {
    const ast::Module* ast = nullptr;
    std::string_view name;
    std::string target; // the first .target architecture ("sm_80", "compute_75"), "" when none is named
    std::unordered_map<std::string_view, Symbol> globals;     // .global / .const variables at their host addresses
    std::unordered_map<std::string_view, uint32_t> shared;    // module-scope .shared: index into ast->variables
    std::unordered_map<std::string_view, uint32_t> functions; // name -> index into ast->functions
    std::vector<uint32_t> address_taken; // defined .func whose address the module uses (indirect call targets)
    uint64_t global_segment = 0, global_bytes = 0, const_segment = 0, const_bytes = 0;
};

// Largest register arena of one warp; a module asking more is refused at load time.
inline constexpr uint32_t kMaxArenaBytes = 64u << 20;
inline constexpr uint32_t kMaxLocalBytes = 512u * 1024; // per thread (CUDA allows 512 KiB)

class ProgramBuilder {
public:
    ProgramBuilder(const ModuleContext& ctx, Program& program) : m_ctx(ctx), m_prog(program) {}

    // The kernel ENTRY (an index into ast->functions) and everything it calls.
    Status build_kernel(uint32_t entry, const ptx::EntryInfo& info);
    // A .func on its own, to validate functions no kernel calls.
    Status build_function(uint32_t function);

    // For InstrDecoder.
    const ModuleContext& ctx() const { return m_ctx; }
    Program& program() { return m_prog; }
    bool in_entry() const { return m_in_entry; }
    const ast::Function& current() const { return *m_current; }
    std::optional<Symbol> lookup(std::string_view name) const;
    uint32_t constant(uint64_t bits, bool wide);
    uint32_t scratch(bool wide) { return wide ? m_scratch64 : m_scratch32; }
    // Registers for values an instruction prepares for itself (WHICH 0 or 1: two may be live at once),
    // allocated when first asked for. Never a sink, never a declared register.
    uint32_t operand_scratch(bool wide, int which) {
        uint32_t& slot = m_operand_scratch[wide ? 1 : 0][which ? 1 : 0];
        if (slot == kNoReg) slot = alloc_slot(wide);
        return slot;
    }
    void add_label_fixup(uint32_t pc, std::string_view label) { m_label_fixups.push_back({pc, label}); }
    // The index in Program::branch_tables of the current function's .branchtargets NAME (-1: none).
    int64_t branch_table(std::string_view name);
    // A call site whose possible callees are FUNCTIONS (indices); their pcs are patched after decoding.
    uint32_t add_call_site(const std::vector<uint32_t>& functions, bool indirect);
    const std::vector<Symbol>* formals(uint32_t function) const; // params then returns, fparam offsets
    uint32_t return_count(uint32_t function) const;

private:
    struct FunctionLayout {
        std::vector<Symbol> formals; // params, then returns
        uint32_t returns = 0;
    };

    Status prepare(const std::vector<uint32_t>& functions);
    Status collect_calls(uint32_t function, std::vector<uint32_t>& callees) const;
    Status reachable(uint32_t entry, std::vector<uint32_t>& out);
    Status layout_shared(const std::vector<uint32_t>& functions);
    Status decode_function(uint32_t function);
    Status declare(const ast::Variable& v, std::unordered_map<std::string_view, Symbol>& scope, uint32_t function,
                   uint32_t decl_index);
    Status decode_instruction(const ast::Instruction& in);
    Status finish();
    uint32_t alloc_slot(bool wide);
    Expected<uint32_t> alloc_area(uint32_t& used, uint64_t bytes, uint64_t align, uint32_t limit, const char* what,
                                  uint32_t line);
    Error error_at(uint32_t line, std::string message) const;     // Unsupported: the kernel is unavailable
    Error malformed_at(uint32_t line, std::string message) const; // Invalid: the module does not load

    const ModuleContext& m_ctx;
    Program& m_prog;
    const ptx::EntryInfo* m_entry_info = nullptr;
    const ast::Function* m_current = nullptr;
    uint32_t m_current_index = 0;
    bool m_in_entry = false;

    struct RangeDecl {
        Symbol first; // the symbol of name0
        uint64_t count = 0;
    };
    std::optional<Symbol> range_lookup(std::string_view name) const;

    std::vector<std::unordered_map<std::string_view, Symbol>> m_scopes;
    // Hidden registers (copies of a fused mul's multiplicands, contract.h): their names live here.
    std::deque<std::string> m_hidden_names;
    Status save_multiplicands(const ast::Instruction& mul, uint32_t mul_index);
    size_t m_save_scope = 0; // the current function's outermost scope, where hidden registers are declared
    std::string_view saved_name(uint32_t mul_index, int operand) const;
    std::vector<std::unordered_map<std::string_view, RangeDecl>> m_ranges; // %r<N> declarations per scope
    std::unordered_map<std::string_view, Symbol> m_shared_symbols;         // module-scope .shared
    uint32_t m_arena = 0;
    uint32_t m_const_arena = 0;                        // bytes of constants (placed after the registers by finish())
    static constexpr uint32_t kConstTag = 0x40000000u; // marks a constant offset until relocation
    uint32_t m_scratch32 = kNoReg, m_scratch64 = kNoReg;
    uint32_t m_operand_scratch[2][2] = {{kNoReg, kNoReg}, {kNoReg, kNoReg}};
    std::unordered_map<uint64_t, uint32_t> m_const32, m_const64;
    std::vector<std::pair<uint32_t, uint64_t>> m_const_values32, m_const_values64;

    std::unordered_map<std::string_view, uint32_t> m_labels; // of the current function
    std::vector<std::pair<uint32_t, std::string_view>> m_label_fixups;
    std::unordered_map<std::string_view, uint32_t> m_tables;                      // of the current function
    std::vector<std::tuple<uint32_t, uint32_t, std::string_view>> m_table_fixups; // table, entry, label
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> m_call_fixups;          // site, target, function
    std::unordered_map<uint32_t, uint32_t> m_function_pc;
    std::unordered_map<uint32_t, FunctionLayout> m_layouts;

    std::unordered_map<std::string_view, uint32_t> m_shared_offsets;             // module-scope shared
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_function_shared_offsets; // (function, decl) -> offset
    uint32_t m_shared = 0;
    uint32_t m_local = 0;
    uint32_t m_fparam = 0;

    // Recursion (recursion.h): the functions on a call-graph cycle and what a call into them saves.
    std::unordered_set<uint32_t> m_recursive;
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> m_formal_range; // [begin, end) of the formals
    std::vector<FrameLayout::Slots> m_frame_regs;     // register slots of the function being decoded
    std::unordered_map<uint32_t, int32_t> m_frame_of; // recursive function -> index in Program::frames
    void record_slots(uint32_t offset, uint64_t count, bool wide);
};

} // namespace d4r::ptxsim
