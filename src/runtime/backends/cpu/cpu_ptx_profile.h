// The cpu backend's PTX profiles (D4R_CPU_PTX_PROFILE): each launch's warp instructions per line of its kernel's PTX,
// appended to one file, so that a kernel's hot lines can be found without a GPU (docs/runtime.md).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "ptxsim/ptxsim.h"

namespace d4r::runtime::cpu {

// The sink for a launch of KERNEL on GRID x BLOCK (ptxsim::LaunchConfig::profile_sink) when D4R_CPU_PTX_PROFILE names
// a file: it appends "# kernel 'KERNEL' grid GXxGYxGZ block BXxBYxBZ: N warp instructions" and the profile's lines.
// Empty when the variable is unset (no profile is kept, the launch may run compiled).
std::function<void(std::string_view)> ptx_profile_sink(const std::string& kernel, const ptxsim::Dim3& grid,
                                                       const ptxsim::Dim3& block);

} // namespace d4r::runtime::cpu
