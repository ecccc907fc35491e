// d4r's companion libnvrtc.so.13: the target of an NVRTC compilation, and the same options aimed at PTX.
//
// Promise: ptx_twin_options(OPTIONS) is nullopt when OPTIONS ask for no machine code (no
// `--gpu-architecture`/`-arch` option naming an `sm_XY` target: NVRTC then makes PTX only, or its default
// virtual target); otherwise OPTIONS with every `sm_XY[a|f]` of those options replaced by `compute_XY[a|f]`, in
// both spellings NVRTC accepts (`-arch=sm_90`, `-arch sm_90`, `--gpu-architecture=sm_90`,
// `--gpu-architecture sm_90`), everything else unchanged and in order.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace d4r::companion {

std::optional<std::vector<std::string>> ptx_twin_options(const std::vector<std::string>& options);

} // namespace d4r::companion
