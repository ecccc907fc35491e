// ptxsim internals: the PTX front end (src/ptx: parser, syntax tree, validation, contraction; docs/ptx-front-end.md) as
// ptxsim names it. ptxsim is one consumer of the front end; it does not parse PTX itself.
#pragma once

#include "ptx/ast.h"
#include "ptx/contract.h"
#include "ptx/parser.h"
#include "ptx/validate.h"

namespace d4r::ptxsim {

namespace ast = ptx::ast;
using ptx::Contraction;
using ptx::Contractions;
using ptx::find_contractions;
using ptx::fused_instruction;
using ptx::kContracted;
using ptx::kNegateAddend;
using ptx::kNegateProduct;

} // namespace d4r::ptxsim
