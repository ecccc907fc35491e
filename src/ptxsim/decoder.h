// ptxsim internals: the decoder. Turns the syntax tree of a kernel (and the .func it calls) into a
// Program (ir.h). Instruction families live in ops_*.cpp; each registers a decode function per base
// opcode ("add", "ld", "shfl") in the opcode table. A family decoder consumes the modifiers it
// understands from Modifiers, picks the handler (dispatch.h: from the type suffix and modifiers to the
// executor), and resolves operands and emits through InstrDecoder (emit_op for "d, a, b, ...").
// Anything left unconsumed or not understood is a load-time error naming module, line and text.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ptx/immediate.h"
#include "ptx/instruction.h"
#include "ptx/modifiers.h"
#include "ptxsim/front_end.h"
#include "ptxsim/ir.h"

namespace d4r::ptxsim {

using ptx::Modifiers; // the front end's reader of an opcode's modifiers (ptx/modifiers.h)

struct Symbol {
    enum class Kind : uint8_t { Reg, Pred, Var, Func, Special };
    Kind kind = Kind::Reg;
    Type type = Type::None;
    Space space = Space::Generic; // Var: its state space
    uint64_t value = 0;           // Reg: slot offset; Pred: index; Var: address in its space; Func: function index
    uint64_t size = 0;            // Var: bytes
    bool wide = false;            // Reg: 64-bit slot
    bool dynamic_shared = false;  // Var: an extern .shared array
};

class ProgramBuilder;

// What a family decoder sees of one instruction.
class InstrDecoder {
public:
    InstrDecoder(ProgramBuilder& builder, const ast::Instruction& in, int16_t guard, bool guard_negated);

    const ast::Instruction& ast() const { return m_in; }
    Modifiers& mods() { return m_mods; }
    size_t operand_count() const { return m_in.operands.size(); }
    const ast::Operand& operand(size_t i) const { return m_in.operands[i]; }
    bool in_entry() const;

    // "kernels.ptx:12: MESSAGE in 'add.foo.s32 %r1, %r2, %r3'". error(): what ptxsim does not implement
    // (Unsupported: only the kernels that use it become unavailable); malformed(): PTX no assembler
    // accepts (Invalid: the module fails to load, as ptxas would fail it).
    Error error(std::string_view message) const;
    Error malformed(std::string_view message) const;
    // The front end's error about this instruction (ptx/instr_*.h: no location), located like the two above.
    Error located(const Error& e) const;
    // This instruction's meaning by DECODE (a family's front-end decoder, ptx/instr_<family>.h, or a callable taking
    // the instruction), its error located.
    template <typename Decode>
    auto typed(Decode decode) const -> decltype(decode(std::declval<const ast::Instruction&>())) {
        auto r = decode(m_in);
        if (!r) return located(r.error());
        return r;
    }
    Status expect_operands(size_t n) const;
    Status expect_operands(size_t min, size_t max) const;
    // An error when a modifier was left unconsumed.
    Status finish() const;

    // A register of T's width as a destination ('_' gives a scratch slot).
    Expected<uint32_t> dst(const ast::Operand& o, Type t);
    Expected<uint32_t> dst(size_t i, Type t) { return dst(m_in.operands[i], t); }
    // A register of T's width, a special register, or an immediate (materialised as a constant slot).
    Expected<uint32_t> src(const ast::Operand& o, Type t);
    Expected<uint32_t> src(size_t i, Type t) { return src(m_in.operands[i], t); }
    // Any non-predicate register (width reported), for the instructions that allow wider registers.
    struct Reg {
        uint32_t offset = kNoReg;
        bool wide = false;
        Type declared = Type::None;
    };
    Expected<Reg> reg(const ast::Operand& o);
    Expected<int16_t> pred_dst(const ast::Operand& o);
    // A predicate source, possibly negated (!%p).
    Expected<std::pair<int16_t, bool>> pred_src(const ast::Operand& o);
    // Immediate value of an integer operand.
    Expected<uint64_t> immediate(const ast::Operand& o) const;
    std::optional<Symbol> lookup(std::string_view name) const;

    struct Address {
        Space space = Space::Generic;
        uint32_t base = kNoReg; // register slot, or kNoReg for an absolute address
        bool base_wide = true;
        int64_t imm = 0; // offset, or the whole address in SPACE when base == kNoReg
    };
    // [reg+imm], [symbol+imm] or [imm] for an access declared in SPACE (Generic when no space was
    // written). A symbol of another space than SPACE is an error; in Generic its generic address is used.
    Expected<Address> address(const ast::Operand& o, Space space);
    // The value of a symbol used as an operand (mov %rd, sym): its address in its own space.
    Expected<std::pair<uint64_t, Space>> symbol_address(const ast::Operand& o);

    uint32_t constant(uint64_t bits, bool wide);
    uint32_t scratch(bool wide);
    // A register for a value the instruction prepares for itself (ProgramBuilder::operand_scratch).
    uint32_t operand_scratch(bool wide, int which);
    // The common shape "d, a, b, ...": checks there are 1 + SOURCES.size() operands (at most 4 sources), resolves
    // operands 1.. as sources of the types in SOURCES (s[0..]), then operand 0 as a destination of
    // type DT (d[0]), and emits FN. A null FN (dispatch.h: a type outside what the decoder picked from)
    // is an "unsupported type" error.
    Status emit_op(ExecFn fn, Type dt, std::initializer_list<Type> sources) {
        return emit_op(fn, dt, std::span<const Type>(sources.begin(), sources.size()));
    }
    Status emit_op(ExecFn fn, Type dt, std::span<const Type> sources);
    // The same with the destination and all SOURCES (0 to 3) of type T.
    Status emit_op(ExecFn fn, Type t, size_t sources);
    // fma d, a, b, c with every operand of type T. For an fma that fuses a mul with a sub (contract.h),
    // first emits NEG into a register of its own for each operand the fusion negates (operand 1, the
    // product; operand 3, the addend) and points the fma there. Negation is exact, so the fma's result
    // is the fused one.
    Status emit_fma(ExecFn fma, ExecFn neg, Type t);
    // Appends an instruction with the guard set; the reference is valid until the next emit.
    Instr& emit(ExecFn fn);
    // The instruction emitted last.
    Instr& last();
    // Branch to LABEL: the emitted instruction's aux is patched to the label's pc.
    Status branch_target(std::string_view label);
    ProgramBuilder& builder() { return m_builder; }

private:
    ProgramBuilder& m_builder;
    const ast::Instruction& m_in;
    Modifiers m_mods;
    int16_t m_guard;
    bool m_guard_negated;
};

// The state space an instruction names (the front end's) as ptxsim's: .param names a kernel's parameters until
// InstrDecoder::address resolves a function's.
Space space_of(ptx::StateSpace s);
// The reverse (a kernel's and a function's parameters are both .param).
ptx::StateSpace state_space_of(Space s);

using DecodeFn = Status (*)(InstrDecoder& d);
using OpcodeTable = std::unordered_map<std::string_view, DecodeFn>;

// One registration function per family file (ops_*.cpp).
void add_move_ops(OpcodeTable& table);    // mov, cvta, isspacep
void add_int_ops(OpcodeTable& table);     // integer arithmetic and bit operations; dp4a, dp2a (ops_simd.cpp)
void add_compare_ops(OpcodeTable& table); // setp, set, selp, slct, predicate logic
void add_float_ops(OpcodeTable& table);   // f32/f64 arithmetic and .approx functions
void add_cvt_ops(OpcodeTable& table);     // cvt
void add_memory_ops(OpcodeTable& table);  // ld, st, ldu, prefetch, prefetchu
void add_atomic_ops(OpcodeTable& table);  // atom, red
void add_control_ops(
    OpcodeTable& table);               // bra, brx, call, ret, exit, bar, barrier, membar, fence, trap, brkpt, nanosleep
void add_warp_ops(OpcodeTable& table); // shfl, vote, activemask, match, redux
void add_mma_ops(OpcodeTable& table);  // mma, ldmatrix, cp.async, wmma (ops_mma.cpp, ops_async.cpp, ops_wmma.cpp)
void add_texture_ops(OpcodeTable& table);  // tex, tld4, suld, sust (ops_texture.cpp)
void add_mbarrier_ops(OpcodeTable& table); // mbarrier (ops_mbarrier.cpp)

const OpcodeTable& opcode_table();
using ptx::is_ptx_opcode; // the front end's (ptx/instruction.h)

using ptx::immediate_bits; // the front end's (ptx/immediate.h)

} // namespace d4r::ptxsim
