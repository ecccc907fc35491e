// d4r's PTX JIT internals: the state of one kernel's lowering (lower.h), shared by the files that lower the
// instruction families: lower.cpp (the function, registers, operands, control flow), lower_memory.cpp (ld, st,
// mov, cvta, cp.async, the clock registers), lower_int.cpp, lower_simd.cpp (packed integers), lower_float.cpp
// (f32/f64 and cvt), lower_half.cpp (f16/bf16 and their packed forms), lower_compare.cpp, lower_atomic.cpp (atom,
// red), lower_texture.cpp (textures and surfaces), lower_collective.cpp (warp collectives), lower_warp.cpp (warp code:
// the active mask, its branches and merges, memory access for 32 lanes, runtime helpers lane by lane),
// lower_warp_ops.cpp (warp code's collectives, tensor-core instructions and brx.idx), lower_nvptx.cpp,
// lower_nvptx_numerics.cpp and lower_nvptx_warp.cpp (the NVPTX target's own lowerings: lower.h, lower_kernel_nvptx).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "jit/liveness.h"
#include "jit/lower.h"
#include "ptx/contract.h"
#include "ptx/instruction.h"

namespace d4r::jit {

namespace ast = ptx::ast;
using ptx::Type;

// A register operand named NAME (a pair's or a vector's member read on its own).
inline ast::Operand named(std::string_view name) {
    ast::Operand o;
    o.kind = ast::OperandKind::Name;
    o.name = name;
    return o;
}

class Lowering {
public:
    // NVPTX: lower for LLVM's NVPTX back end (lower_kernel_nvptx) with those objects, else for the host.
    Lowering(IrBuilder& ir, const ptxsim::KernelSource& source, bool warp, const NvptxObjects* nvptx = nullptr);
    Expected<LoweredKernel> run(const char* name);

    // --- for the family files ---
    IrBuilder& ir;
    const ptxsim::KernelSource& source;
    const ast::Function& function;
    const ast::Instruction* current = nullptr; // the instruction being lowered
    // Warp code (lower.h): every register a <32 x T> and every value a vector or a scalar (the same in every lane);
    // the current instruction runs for the lanes of `exec_bits` (an i32 mask).
    const bool warp;
    // Warp code for launches whose block is whole warps in x (uniformity.h, WHOLE_WARPS; lower_kernel).
    bool whole_warps = false;
    // NVPTX code (lower_nvptx.cpp) instead of the host's: one GPU thread per PTX thread, never warp code.
    const bool nvptx;
    // A fused fma (contract.h): the values of its multiplicands at the mul (nullptr otherwise).
    std::array<LLVMValueRef, 2> fused_multiplicands{};

    // Unsupported: "LINE: 'TEXT': WHY" for the current instruction.
    Error refuse(std::string_view why) const;

    // A source operand as type T: an LLVM float/double for f32/f64, i1 for .pred, otherwise an integer of T's width
    // (a register narrower than its slot is truncated, as the interpreter reads it).
    Expected<LLVMValueRef> value(const ast::Operand& o, Type t);
    // Writes V (as `value` gives a T) to the destination register operand D, widened to its slot as the
    // interpreter does (signed types sign-extend).
    Status assign(const ast::Operand& d, Type t, LLVMValueRef v);
    LLVMTypeRef llvm_type(Type t) const; // what value() gives for T

    // The thread's fields (ptxsim/compiled.h).
    LLVMValueRef thread_u32(unsigned offset);
    LLVMValueRef thread_u64(unsigned offset);
    LLVMValueRef thread_ptr(unsigned offset);
    // The function at OFFSET of the thread's CompiledRuntime table (kRuntimeTranslate, ...).
    LLVMValueRef runtime_entry(unsigned offset);

    // Where a fault leaves the function: stores the site of the current instruction and returns kCompiledFault.
    uint32_t site();
    void fault_unless(LLVMValueRef ok);
    // ptxsim's translate() for the current instruction: the host pointer, or the fault path.
    // Warp code: LANE (an i32) is the lane it translates for; by default the first lane the instruction runs for.
    LLVMValueRef translate(ptx::StateSpace space, LLVMValueRef address, unsigned bytes, bool write,
                           LLVMValueRef lane = nullptr);

    // ptxsim's numerics helpers (CompiledRuntime::f32_op, f64_op, cvt): one lane computed by the interpreter's own
    // scalar functions, for what the lowering does not spell in IR. runtime_float: T is F32 or F64, SOURCES its
    // values (nullptr for those the instruction lacks). runtime_cvt: A and the result are i64 bits.
    LLVMValueRef runtime_float(Type t, uint32_t code, std::array<LLVMValueRef, 3> sources);
    LLVMValueRef runtime_cvt(uint64_t code, LLVMValueRef a);
    // CompiledRuntime::half_op (lower_half.cpp): SOURCES are register words (nullptr for those the instruction
    // lacks), zero-extended to 32 bits; the result is the i32 word.
    LLVMValueRef runtime_half(uint32_t code, std::array<LLVMValueRef, 3> sources);

    // The address an [address] operand names, as a 64-bit value in SPACE (a register base plus offset, a variable's
    // address, or an absolute immediate), and whether it is known at compile time.
    struct Address {
        LLVMValueRef value = nullptr;
        bool constant = false;
        uint64_t constant_value = 0;
        ptx::StateSpace space = ptx::StateSpace::Generic; // the variable's space when the instruction's is generic
        bool narrow = false;                              // below 2^32 (a 32-bit register, or a constant)
        // A register's value (before the offset) and the offset, when the address is one plus the other.
        LLVMValueRef base = nullptr;
        uint64_t offset = 0;
    };
    Expected<Address> address(const ast::Operand& o, ptx::StateSpace space);
    // The address of the variable NAME at PLACE in its own space: a constant for shared, local and parameter memory
    // (offsets the module's text decides), else (a .global or .const variable: a host address, different in each
    // process) read from CompiledThread::variables at the function's entry, so that compiled code can be cached.
    Expected<LLVMValueRef> variable_address(std::string_view name, const ptxsim::VariablePlace& place);
    // What a ld/st names, checked (lower_memory.cpp): its type's width, the access's bytes, the address, and the
    // registers (or `_`) of each vector element.
    struct MemoryOperands {
        ptx::Type raw = ptx::Type::B32; // bN of the type's width
        unsigned bits = 0, bytes = 0, total = 0;
        bool load = false;
        Address address;
        std::vector<const ast::Operand*> elements;
    };
    Expected<MemoryOperands> memory_operands(const ptx::MemoryAccess& op);
    // The checked host pointer of BYTES at A (inline fast paths, translate() otherwise).
    LLVMValueRef pointer(const Address& a, ptx::StateSpace space, unsigned bytes, bool write);
    // Whether a generic access at A (a store when WRITE) checks the global range hit last first, as a global access
    // does: ptxsim's generic windows (shared, local, parameters) lie far above any host address, so an address inside
    // a global range is that global address (memory_access.h, translate<Generic>); the rest goes to translate().
    bool generic_global(const Address& a, bool write) const;

    // Warp code (lower_warp.cpp). The lanes the current instruction runs for, as an i32 and as a <32 x i1>.
    LLVMValueRef exec_bits() const { return m_exec; }
    LLVMValueRef exec_lanes() { return ir.mask_to_lanes(m_exec); }
    LLVMValueRef lane_ids(); // <0, 1, ..., 31>
    // CALL (of scalars) for each of the 32 lanes of ARGS (vectors; a scalar is the same in every lane), the results
    // as a vector of RESULT.
    LLVMValueRef per_lane(LLVMTypeRef result, const std::vector<LLVMValueRef>& args,
                          const std::function<LLVMValueRef(const std::vector<LLVMValueRef>&)>& call);
    Status lower_memory_warp(const ptx::MemoryAccess& op);
    // BODY for each lane the instruction runs for, in lane order (LANE: an i32; the thread's `lane` field set to it
    // for the runtime's faults). BODY gives RESULTS i64 values for its lane; they come back as <32 x i64> vectors.
    Expected<std::vector<LLVMValueRef>>
    each_lane(unsigned results, const std::function<Expected<std::vector<LLVMValueRef>>(LLVMValueRef lane)>& body);
    // Warp code: V's element LANE (an i32 value), or V itself when it is a scalar.
    LLVMValueRef element_of(LLVMValueRef v, LLVMValueRef lane);

    // Family lowerings (each refuses what it does not lower yet).
    // cvt.sat between integers (lower_int.cpp): A of type FROM clamped into TO's range, as a TO.
    LLVMValueRef saturate_int(LLVMValueRef a, Type from, Type to);
    Status lower_int(const ptx::IntArith& op);
    Status lower_simd(const ptx::PackedInt& op);
    Status lower_float(const ptx::FloatArith& op);
    Status lower_cvt(const ptx::Cvt& op);
    Status lower_cvt_by_runtime(const ptx::Cvt& op);
    Status lower_cvt_tf32(const ptx::Cvt& op);
    Status lower_cvt_half(const ptx::Cvt& op); // cvt.f32.f16 and cvt.rn.f16.f32 in IR
    Status lower_half(const ptx::HalfArith& op);
    Status lower_compare(const ptx::Compare& op);
    Status lower_texture(const ptx::TextureOp& op);
    Status lower_move(const ptx::Move& op);
    Status lower_memory(const ptx::MemoryAccess& op);
    Status lower_control(const ptx::Control& op);
    Status lower_atomic(const ptx::Atomic& op);
    Status lower_async(const ptx::AsyncCopy& op);

    // --- NVPTX code (lower_nvptx.cpp) ---
    // The intrinsic NAME of LLVM's NVPTX back end, refused (naming it) where this libLLVM has no such intrinsic.
    Expected<LLVMValueRef> nvvm(std::string_view name, std::initializer_list<LLVMTypeRef> overloads,
                                std::initializer_list<LLVMValueRef> args);
    LLVMTypeRef nv_pointer_type(ptx::StateSpace space) const; // `ptr addrspace(N)` of a state space
    // The one PTX instruction TEXT ($0.. its operands: the RESULTS outputs, then ARGS) as inline assembly, where LLVM
    // has no intrinsic for it (NvptxObjects::inline_ptx; refused otherwise, naming WHAT). BARRIER: it synchronises
    // (side effects, convergent). The results come back one value per output.
    Expected<std::vector<LLVMValueRef>> nv_inline(std::string_view what, const std::string& text,
                                                  const std::vector<LLVMTypeRef>& results,
                                                  const std::vector<LLVMValueRef>& args, bool barrier = false);
    Expected<LLVMValueRef> nv_special(std::string_view name);
    // A variable's address in its own space (GENERIC: its generic address), from its LLVM object.
    Expected<LLVMValueRef> nv_variable_address(const ptxsim::VariablePlace& place, bool generic);
    LLVMValueRef nv_pointer(const Address& a, ptx::StateSpace space);
    Status nv_declare(const ast::Variable& v);
    void nv_return();
    Status nv_control(const ptx::Control& op);
    Status nv_memory(const ptx::MemoryAccess& op);
    Status nv_move(const ptx::Move& op);
    Status nv_float(const ptx::FloatArith& op, const std::vector<LLVMValueRef>& sources);
    Status nv_cvt(const ptx::Cvt& op);
    Status nv_half(const ptx::HalfArith& op);
    Status nv_collective(const ptx::WarpCollective& op);
    Status nv_atomic(const ptx::Atomic& op);
    Status nv_texture(const ptx::TextureOp& op);
    Status nv_matrix(const ptx::MatrixOp& op);
    Status nv_async(const ptx::AsyncCopy& op);

private:
    struct Reg {
        LLVMValueRef slot = nullptr;
        Type type = Type::None;
        unsigned bits = 32;     // the slot: 1 (a predicate), 32 or 64
        bool uniform = false;   // warp code: one value for every lane (a scalar slot)
        bool in_memory = false; // warp code: a slot warp_matrix reads and writes in place (share_matrix_slots)
    };
    struct Range {
        Type type = Type::None;
        uint64_t count = 0;
    };
    struct Scope {
        std::unordered_map<std::string_view, Reg> regs;
        std::unordered_map<std::string_view, Range> ranges;
        std::map<std::string, Reg, std::less<>> range_regs; // the %rN of this scope's ranges, made on first use
        std::unordered_map<std::string_view, ptxsim::VariablePlace> variables;
    };
    struct Label {
        LLVMBasicBlockRef block = nullptr;
        size_t statement = 0; // where it is in the body (a branch to an earlier one is a loop)
    };
    // Warp code: a place where lanes wait (a label, or the fall-through of a branch back), in body order (key: twice
    // the statement index, plus one for a fall-through). Reaching it merges its waiting lanes into the active ones.
    struct Merge {
        size_t key = 0;
        LLVMBasicBlockRef block = nullptr;
        LLVMValueRef waiting = nullptr; // an i32 slot
    };
    // A loop: the statements from a label to a later branch back to it (every cycle of the control flow holds one).
    struct Loop {
        size_t label = 0, branch = 0; // statement indices
        std::string_view name;        // the label's
        uint32_t branch_line = 0;
    };

    Expected<Reg> reg(std::string_view name);
    const ptxsim::VariablePlace* variable(std::string_view name) const;
    Expected<LLVMValueRef> special(std::string_view name);
    Status declare(const ast::Variable& v, uint32_t index);
    Status lower_instruction(const ast::Instruction& in, size_t statement);
    Status lower_typed(const ptx::TypedInstruction& typed);
    Status lower_carry(const ptx::IntArith& op, const std::vector<LLVMValueRef>& sources);
    LLVMValueRef carry_slot();
    Status lower_branch_table(const ast::Instruction& in);
    void poll_watchdog();
    LLVMTypeRef slot_type(unsigned bits); // a register's slot: iBITS, or <32 x iBITS> in warp code
    LLVMTypeRef reg_type(const Reg& r);   // R's slot (a uniform register's is a scalar in warp code too)
    LLVMValueRef register_slot(std::string_view name, Reg& r); // a new register's slot
    void share_matrix_slots();
    bool uniform_register(std::string_view name) const;
    // Warp code's control flow (lower_warp.cpp).
    void make_merges();
    const Merge* merge_at(size_t key) const;
    void skip_after(size_t key);      // no lane active: on to the first merge after KEY (done when none)
    void enter_merge(const Merge& m); // at M's block: its waiting lanes join
    Status warp_branch(const Label& target);
    Status warp_exit();
    Status warp_instruction(const ast::Instruction& in, const ptx::TypedInstruction& typed);
    Status warp_refusals(const ptx::TypedInstruction& typed);
    void find_loops();
    // Warp code's warp-wide instructions (lower_warp_ops.cpp).
    Status warp_collective(const ptx::WarpCollective& op);
    Status warp_sync_lanes();
    Status warp_matrix(const ptx::MatrixOp& op);
    Status warp_wmma(const ptx::Wmma& op);
    Status warp_wmma_memory(const ptx::Wmma& op);
    Status warp_wgmma(const ptx::Wgmma& op);
    Status warp_branch_table(const ast::Instruction& in);
    // The first lane the instruction runs for (an i32), and whether V is the same in every lane it runs for (an i1).
    LLVMValueRef first_lane();
    LLVMValueRef same_in_lanes(LLVMValueRef v);
    // The registers of warp_collective (compiled.h: register R at words + 32 R, BITS wide).
    LLVMValueRef warp_words();
    void put_register(unsigned r, LLVMValueRef v, unsigned bits);
    LLVMValueRef get_register(unsigned r, unsigned bits);
    // warp_matrix's registers (compiled.h): pointers in the words buffer, K the register's place, each to scratch
    // slot K. point_value: V's lanes (if any) there; point_list: the registers of a register list operand there (the
    // lanes copied when READ); take_list: after the call, the registers from their slots.
    Status point_list(const ast::Operand& list, unsigned count, unsigned first, unsigned bits, bool read,
                      const char* what);
    Status take_list(const ast::Operand& list, unsigned count, unsigned first, unsigned bits);
    void point_value(unsigned k, LLVMValueRef v, unsigned bits);
    LLVMValueRef scratch(unsigned k);
    // Calls the runtime's ENTRY (warp_collective or warp_matrix) with CODE for the running lanes; faults as it says:
    // at once, or, DEFER, at flush_pending() (a failed helper records the warp's fault and its site, and the helpers
    // after it do nothing and fail too, so the instructions in between may run: deferrable() ones only touch
    // registers). Straight runs of tensor-core instructions then need no branch each (a GEMM's unrolled loop has
    // thousands).
    void call_warp_helper(unsigned entry, uint32_t code, bool defer = true);
    void flush_pending();
    static bool deferrable(const ptx::TypedInstruction& typed);
    Status lower_barrier(const ptx::Control& op);
    Status lower_warp_sync();
    Status lower_collective(const ptx::WarpCollective& op);
    Status lower_mma(const ptx::MatrixOp& op);
    Status lower_ldmatrix(const ptx::MatrixOp& op);
    // Stops the thread with STATUS (a kernel with barriers or collectives): saves the registers live after the
    // current instruction, lets BEFORE_RETURN write the state's other fields, returns; the code after it resumes
    // there with the registers restored.
    Status suspend(uint32_t status, const std::function<void(LLVMValueRef state)>& before_return);
    uint32_t state_offset(const Reg& r);
    void spill_shuffled();
    LLVMValueRef slot_value(const Reg& r, Type t);

    std::vector<Scope> m_scopes;
    LLVMBasicBlockRef m_entry = nullptr;                                     // the function's first block
    std::vector<std::string> m_variables;                                    // LoweredKernel::variables
    std::unordered_map<std::string_view, LLVMValueRef> m_variable_addresses; // loaded at the entry, by name
    std::unordered_map<std::string_view, Label> m_labels;
    std::vector<Loop> m_loops;
    LLVMValueRef m_atomic_old = nullptr; // an i64 slot for the runtime's atomic to return the old value in
    size_t m_statement = 0;
    LLVMValueRef m_thread = nullptr;
    LLVMValueRef m_carry = nullptr; // the thread's carry flag (.cc), an i1 slot made on first use
    LLVMTypeRef m_translate_type = nullptr;
    std::vector<ptxsim::CompiledKernel::Site> m_sites;
    int64_t m_site = -1; // the current instruction's site, once it has one
    ptx::Contractions m_contractions;
    std::unordered_map<uint32_t, std::array<LLVMValueRef, 2>> m_mul_sources; // mul index -> its multiplicands

    // A kernel with barriers: each thread stops at a barrier and resumes after it (compiled.h), keeping the
    // registers live there in its state.
    std::unique_ptr<Liveness> m_liveness; // set when the kernel has barriers
    LLVMValueRef m_dispatch = nullptr;    // the entry's switch on the resumption point
    // Warp code: whether this call starts the warp (not a resumption: an i1 of the entry), and the registers that
    // something after a stop may write. Any other register live at a stop holds the value it had at every earlier
    // stop, where it was live too and saved: only a call that starts the warp saves it.
    LLVMValueRef m_at_start = nullptr;
    std::unordered_set<std::string_view> m_written_after_stops;
    std::unordered_map<LLVMValueRef, uint32_t> m_state_offset; // a register's slot -> its offset in the state
    uint32_t m_state_bytes = ptxsim::kStateRegisters;
    uint32_t m_stops = 0;                     // resumption points so far
    std::vector<std::string_view> m_shuffled; // registers shfl reads from other lanes
    std::vector<ptxsim::CollectiveSite> m_collectives;
    uint32_t m_index = 0; // the current instruction's index in the function

    // NVPTX code: the variables' LLVM objects (the module's globals, then the kernel's own .shared globals and
    // .local allocas) by VariablePlace::address, their addresses once computed, and the parameter block (an alloca
    // holding the kernel's arguments at their offsets, which ld.param reads).
    std::vector<LLVMValueRef> m_objects;
    bool m_inline_ptx = false;
    const NvptxObjects* m_nvptx_objects = nullptr;
    // A .param variable that is an object (a device function's parameter, a call's argument: a pointer to its bytes)
    // has this bit in its VariablePlace::address, beside its index; a kernel's parameters are offsets in its block.
    static constexpr uint64_t kParamObject = 1ull << 63;
    Status nv_call(const ptx::Control& op);
    Status nv_function_parameters();
    std::vector<ptx::StateSpace> m_object_spaces;
    std::map<std::pair<uint64_t, bool>, LLVMValueRef> m_object_addresses;
    LLVMValueRef m_param_block = nullptr;

    // Warp code.
    std::vector<Merge> m_merges;     // by key
    LLVMValueRef m_active = nullptr; // an i32 slot: the lanes that run
    LLVMValueRef m_exec = nullptr;   // the current instruction's lanes (i32)
    LLVMValueRef m_lane_ids = nullptr;
    LLVMValueRef m_warp_words = nullptr;        // the runtime's warp-wide helpers' registers (made on first use)
    LLVMBasicBlockRef m_fault_return = nullptr; // returns kCompiledFault (the failed helper stored the site)
    LLVMValueRef m_scratch = nullptr;           // 32 slots of 32 64-bit lanes for warp_matrix's registers
    LLVMValueRef m_wide_scratch = nullptr;      // slots 32 .. kMatrixSlots - 1 (wgmma's long lists), made when needed
    std::unordered_map<std::string_view, uint32_t> m_shared_slot; // register -> its slot in memory (share_matrix_slots)
    std::vector<LLVMValueRef> m_memory_slots;
    LLVMValueRef m_pending_ok = nullptr; // deferred helpers: whether the last one (so every one) succeeded
    unsigned m_deferred = 0;             // helper calls since the last check
    static constexpr unsigned kDeferredCalls = 16;
    static constexpr unsigned kMatrixSlots = 136; // warp_matrix's registers: wgmma m64n256 f32 (128 + 4 + 3) at most
    bool m_guarded = false;                       // the current instruction has a guard
    // generic_global: whether the module has .const variables (found at its first generic store).
    mutable std::optional<bool> m_const_variables;
    // Warp code: the block's shared memory and its size, loaded once at the function's entry.
    LLVMValueRef m_shared = nullptr, m_shared_bytes = nullptr;
    // Warp code: the shared accesses of a straight run of code through one base register (shared_group): checked
    // together, once, at the first of them. ROWS and WORDS: every lane runs, each half-warp's base addresses are
    // consecutive (rows) or equal (words), and the range from the least to the greatest offset of the group is
    // aligned and inside shared memory for both halves. By statement index of each member.
    struct SharedGroup {
        LLVMValueRef rows = nullptr, words = nullptr;
    };
    std::unordered_map<size_t, SharedGroup> m_shared_groups;
    // The members of the current access's group (this statement first), or none when it has no other: the later
    // unguarded shared accesses of the same width through the same base register with an offset of the same
    // alignment, up to a label, a branch, an exit, a barrier or a write of the register. Their offsets (32-bit,
    // signed) in MIN and MAX.
    std::vector<size_t> shared_group(const ptx::MemoryAccess& op, std::string_view base, int64_t offset, int64_t& min,
                                     int64_t& max) const;
    // Warp code where no branch diverges (m_uniform_known): the registers that may differ between lanes; every
    // other one is a scalar (one value for all lanes that have not exited: uniformity.h).
    bool m_uniform_known = false;
    std::unordered_set<std::string_view> m_divergent;
    // The registers some lane waiting at a merge may still read (live there): a write by the active lanes keeps the
    // others' values. Any other register is written in every lane (the inactive lanes never read it again).
    std::unordered_set<std::string_view> m_waiting_live;
    void find_waiting_live();
    // Host code: the registers whose every read is a source of an f32 add, sub, mul or fma rounding to nearest
    // (lower_float.cpp). Such an instruction gives the canonical NaN for any NaN source, so an f32 result written to
    // one of them need not be made canonical itself: no instruction sees its NaN's bits (an fma chain's accumulator
    // then waits for one rule per chain, not one per step).
    std::unordered_set<std::string_view> m_nan_absorbed;
    void find_nan_absorbed();
};

} // namespace d4r::jit
