// The PTX front end: what ptxas refuses that the parser and the module index accept. A module NVIDIA's own
// assembler would reject must not load in d4r either (issue 14, item 17: such modules
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

#include <optional>
#include <string_view>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/module_index.h"

namespace d4r::ptx {

// The newest PTX ISA major version d4r knows (9.x: CUDA 13). A module with a newer `.version` fails to load; the cpu
// backend answers CUDA_ERROR_UNSUPPORTED_PTX_VERSION for it, as NVIDIA's driver does.
inline constexpr uint32_t kNewestPtxIsaMajor = 9;
// The newest target d4r's consumers of PTX compile for (the cpu backend reports compute capability 9.0).
inline constexpr int kNewestSm = 90;

// The number of a .target architecture: "sm_90a" -> 90, "compute_80" -> 80; nullopt for target options ("debug",
// "texmode_independent").
std::optional<int> architecture_number(std::string_view target);

Status validate_module(std::string_view text, const ptx::ModuleIndex& index, const ast::Module& module,
                       std::string_view name);

} // namespace d4r::ptx
