// The PTX front end: the value an immediate operand has for the type an instruction reads it as.
//
// Promise: immediate_bits() gives the bits every consumer of PTX (ptxsim, the JIT) uses for a literal: an integer
// literal truncated to the type's width (or converted to f32/f64 for a float type), a 0f/0d literal's raw bits (a
// 0f literal widened exactly for an f64), a decimal float literal rounded to the type; Unsupported for the
// combinations that have no value (an integer literal for a half type, a float literal for an integer type of
// another width, an operand that is not a literal).
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

Expected<uint64_t> immediate_bits(const ast::Operand& o, Type t);

} // namespace d4r::ptx
