// ptxsim internals: what ptxas refuses that the parser and the module index accept. A module the
// device's own assembler would reject must not load here either (issue 14, item 17: such modules
// loaded, and a parameter block over the limit was then copied at every launch).
//
// Promise: validate_module() refuses, with an Invalid error "NAME:LINE: reason" for the first fault,
//   - a `.version` newer than the PTX ISA 9.x d4r knows;
//   - a `.target` architecture newer than the sm_90 the cpu backend provides (sm_100, compute_120);
//   - `.address_size 32` (sm_90 code is 64-bit only);
//   - a `.maxntid` or `.reqntid` with a zero dimension;
//   - a name declared twice in one scope (`.reg .b32 %r1; .reg .b32 %r1;`, or a `%r<4>` range and
//     `%r2`), and a parameter named twice;
//   - a kernel's parameter space over the limit: 32764 bytes from PTX ISA 8.1 on sm_70 and newer (CUDA
//     12.1's large parameters), 4096 bytes otherwise.
#pragma once

#include <string_view>

#include "core/status.h"
#include "ptx/module_index.h"
#include "ptxsim/ast.h"

namespace d4r::ptxsim {

Status validate_module(std::string_view text, const ptx::ModuleIndex& index, const ast::Module& module,
                       std::string_view name);

} // namespace d4r::ptxsim
