// ptxsim internals: registration and helpers shared by the tensor-core family files. add_mma_ops
// (ops_mma.cpp: mma, ldmatrix) also registers the asynchronous copies of ops_async.cpp (cp.async), the warp
// matrix instructions of ops_wmma.cpp (wmma) and the warpgroup ones of ops_wgmma.cpp (wgmma).
#pragma once

#include "ptxsim/decoder.h"
#include "ptxsim/exec.h"

namespace d4r::ptxsim {

void add_async_ops(OpcodeTable& table); // cp.async (ops_async.cpp)
void add_wmma_ops(OpcodeTable& table);  // wmma (ops_wmma.cpp)
void add_wgmma_ops(OpcodeTable& table); // wgmma (ops_wgmma.cpp)

// A warp-wide matrix collective with the full member mask in in.s[0]: true when all 32 lanes are
// there; otherwise false with the flow to return (wait, or a fault when a lane has exited).
bool whole_warp(Warp& w, const Instr& in, uint32_t mask, CollectiveGroup& g, Flow& flow);

// Reads a register list {%r1, %r2, ...} of exactly N 32-bit registers (64-bit for WIDE: wmma's f64 fragments), sources
// or destinations, into OUT; WHAT names the operand in errors.
Status register_list(InstrDecoder& d, const ast::Operand& o, unsigned n, std::vector<uint32_t>& out, const char* what,
                     bool wide = false);

} // namespace d4r::ptxsim
