// The PTX front end (docs/ptx-front-end.md): the syntax tree of one PTX module, as the parser reads it. Every
// string_view points into the module text, which its owner keeps alive. Nothing here knows what an instruction
// means: that is instruction.h's job (the typed instructions every consumer of PTX shares).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace d4r::ptx::ast {

enum class OperandKind : uint8_t {
    Name,    // %r1, %tid.x, a label, a variable or function name, '_' (sink)
    Integer, // 42, -1, 0xff
    Float,   // 0f3F800000, 0d..., 1.5
    Address, // [base], [base+imm], [imm]: base is a register or symbol name (may be empty)
    Vector,  // {a, b, c, d}: elements are Name or immediates
    Pair,    // a|b (two destinations: setp, shfl)
    List,    // (a, b): call argument or return lists
};

struct Operand {
    OperandKind kind = OperandKind::Name;
    bool negated = false;          // !%p
    std::string_view name;         // Name, Address base, Pair first
    std::string_view name2;        // Pair second
    uint64_t integer = 0;          // Integer (two's complement of a negative literal); Address offset
    int64_t offset = 0;            // Address: the signed immediate offset
    double real = 0;               // Float value
    unsigned float_bits = 0;       // 32 for 0f..., 64 for 0d..., 0 for a decimal literal
    uint64_t raw_bits = 0;         // raw bits of a 0f/0d literal
    std::vector<Operand> elements; // Vector / List
};

struct Instruction {
    std::string_view guard; // predicate register of @%p / @!%p, empty when unguarded
    bool guard_negated = false;
    std::string_view opcode; // "ld.global.nc.v4.u32", with ::-qualifiers kept ("cp.async.L2::128B")
    std::vector<Operand> operands;
    uint32_t line = 0;
    std::string_view text; // the whole instruction as written, guard and ';' excluded
    // Set only on the fma the decoder puts in place of a mul/add pair it fuses (contract.h): bit 0 fused,
    // bit 1 negate operand 1 (the product), bit 2 negate operand 3 (the addend). Never set by the parser.
    uint8_t contracted = 0;
};

// A declared type: ".align 16 .v4 .f32" etc.
struct TypeSpec {
    std::string_view type; // ".f32", ".b8", ".pred"
    unsigned vector = 1;
    uint64_t align = 0; // 0 when not given
};

struct Initializer {
    enum class Kind : uint8_t { Integer, Float, Symbol } kind = Kind::Integer;
    uint64_t integer = 0;
    double real = 0;
    unsigned float_bits = 0;
    uint64_t raw_bits = 0;
    std::string_view symbol; // Symbol: address of this variable / function (generic() allowed)
    int64_t offset = 0;      // Symbol + offset
};

struct Variable {
    std::string_view space; // ".global", ".const", ".shared", ".local", ".param", ".reg"
    TypeSpec type;
    std::string_view name;
    std::vector<uint64_t> dims; // [N][M]; an unsized dimension is 0 (extern .shared arrays, sized by initializer)
    int64_t range = -1;         // %r<N>: N (declares name0..nameN-1); -1 for a plain name
    bool is_extern = false;
    std::vector<Initializer> init; // flattened
    bool has_init = false;
    uint32_t line = 0;
};

// One statement of a function body, in order.
struct Statement {
    enum class Kind : uint8_t { Instruction, Label, Declaration, BlockOpen, BlockClose } kind = Kind::Instruction;
    uint32_t index = 0; // into Function::instructions / labels / declarations
};

struct Label {
    std::string_view name;
    uint32_t line = 0;
};

// name: .branchtargets L0, L1, ...;  (the jump table of brx.idx)
struct BranchTable {
    std::string_view name;
    std::vector<std::string_view> labels;
    uint32_t line = 0;
};

struct Function {
    std::string_view name;
    bool is_entry = false;
    bool defined = false;          // has a body
    std::vector<Variable> params;  // .param (and .reg for old-style func params)
    std::vector<Variable> returns; // .func return parameters
    std::vector<Statement> body;
    std::vector<Instruction> instructions;
    std::vector<Label> labels;
    std::vector<Variable> declarations;
    std::vector<BranchTable> tables;
    uint32_t line = 0;
};

struct Module {
    std::vector<Function> functions; // in module order (prototypes included)
    std::vector<Variable> variables; // module scope: .global, .const, .shared
    uint32_t address_size = 64;
};

} // namespace d4r::ptx::ast
