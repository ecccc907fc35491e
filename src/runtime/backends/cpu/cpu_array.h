// cpu backend internals: CUDA arrays shared by the array, copy and texture entry points.
#pragma once

#include <memory>

#include "ptxsim/ptxsim_texture.h"
#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

std::shared_ptr<Array> find_array(CUarray h);
// The ptxsim format of a CUarray_format; false for formats ptxsim does not have.
bool to_channel_format(CUarray_format f, ptxsim::ChannelFormat& out);

} // namespace d4r::runtime::cpu
