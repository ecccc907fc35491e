// ptxsim internals: registration shared by the tensor-core family files. add_mma_ops (ops_mma.cpp:
// mma, ldmatrix) also registers the asynchronous copies of ops_async.cpp (cp.async).
#pragma once

#include "ptxsim/decoder.h"

namespace d4r::ptxsim {

void add_async_ops(OpcodeTable& table); // cp.async (ops_async.cpp)

} // namespace d4r::ptxsim
