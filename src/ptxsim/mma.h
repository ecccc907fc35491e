// ptxsim internals: registration and helpers shared by the tensor-core family files. add_mma_ops
// (ops_mma.cpp: mma, ldmatrix) also registers the asynchronous copies of ops_async.cpp (cp.async) and
// the warp matrix instructions of ops_wmma.cpp (wmma).
#pragma once

#include "ptxsim/decoder.h"
#include "ptxsim/exec.h"

namespace d4r::ptxsim {

void add_async_ops(OpcodeTable& table); // cp.async (ops_async.cpp)
void add_wmma_ops(OpcodeTable& table);  // wmma (ops_wmma.cpp)

// A warp-wide matrix collective with the full member mask in in.s[0]: true when all 32 lanes are
// there; otherwise false with the flow to return (wait, or a fault when a lane has exited).
bool whole_warp(Warp& w, const Instr& in, uint32_t mask, CollectiveGroup& g, Flow& flow);

} // namespace d4r::ptxsim
