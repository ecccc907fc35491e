// The PTX front end: multiply-add contraction as NVIDIA's PTX assembler does it (every consumer of PTX fuses
// exactly these pairs: ptxsim, and the JIT).
//
// The PTX ISA lets a mul and an add/sub written without a rounding modifier be executed as one fused
// multiply-add, and ptxas does so; the results differ from separate rounding in the last bit, so d4r
// must fuse exactly the pairs ptxas fuses. The rules, read from the SASS ptxas 13.0 writes for sm_90
// (tests/ptxsim/contract/, docs/numerics.md "Multiply-add contraction"):
//   * the mul is f32, f64, f16, f16x2, bf16 or bf16x2, unguarded, with neither a rounding modifier nor
//     .sat; the add/sub has the same type, no rounding modifier and the same .ftz (.sat is kept);
//   * EVERY use of the product is such an add/sub in the mul's basic block, directly or through mov
//     and neg copies (a neg flips the product's sign); one other use of any kind (a store, a compare, a
//     mul, an add.rn, an add of the product to itself, a read in another block) and nothing is fused;
//   * an add of two fusable products fuses its first operand's.
// Not modelled: ptxas unrolls loops and may then fuse a product that the next iteration also uses in
// the copy where it is used last; ptxsim keeps such a loop-carried product unfused.
// Promise: find_contractions() proposes exactly the fusions these rules make. ptxas fuses with the
// multiplicands' values at the mul; where a multiplicand register is overwritten before the add,
// `save_multiplicands` asks the decoder to copy them aside at the mul.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/ast.h"

namespace d4r::ptx {

struct Contraction {
    uint32_t mul = 0;                // index into Function::instructions of the mul
    uint8_t product_operand = 1;     // the add's operand (1 or 2) that carries the product
    bool negate_product = false;     // fma(-a, b, c)
    bool negate_addend = false;      // fma(a, b, -c)
    bool save_multiplicands = false; // a multiplicand register changes between the mul and the add
};

struct Contractions {
    std::unordered_map<uint32_t, Contraction> fused; // add/sub instruction index -> its mul
    std::vector<uint32_t> saved_muls;                // muls whose register multiplicands must be copied
};

Contractions find_contractions(const ast::Function& f);

// The fma that replaces ADD (fused with MUL as X says): "fma.rn[.ftz][.sat].TYPE d, a, b, c" with the
// add's guard, line and text, and ast::Instruction::contracted set.
ast::Instruction fused_instruction(const ast::Instruction& add, const ast::Instruction& mul, const Contraction& x);

inline constexpr uint8_t kContracted = 1, kNegateProduct = 2, kNegateAddend = 4;

} // namespace d4r::ptx
