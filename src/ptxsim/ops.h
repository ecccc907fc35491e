// ptxsim internals: decoders shared between instruction families (an opcode name like "add" covers
// integer and floating-point forms, "and" covers bits and predicates).
#pragma once

#include "ptxsim/decoder.h"

namespace d4r::ptxsim {

Status decode_float_arith(InstrDecoder& d); // ops_float.cpp: add sub mul mad fma div min max abs neg
Status decode_pred_logic(InstrDecoder& d);  // ops_compare.cpp: and or xor not on .pred

// Half precision (ops_half.cpp). The f32/f64 decoders hand an instruction over when its type is one of
// .f16 .bf16 .f16x2 .bf16x2.
Status decode_half_arith(InstrDecoder& d); // add sub mul fma min max abs neg
Status decode_half_unary(InstrDecoder& d); // ex2 tanh rcp sqrt ... .approx (the same decoder: ptx/instr_half.h)

// cp.async.mbarrier.arrive{.noinc} (ops_mbarrier.cpp), reached through the cp decoder (ops_async.cpp).
Status decode_cp_async_mbarrier_arrive(InstrDecoder& d);

// Calls of CUDA's device runtime (ops_device_launch.cpp): cudaGetParameterBuffer{,V2} and
// cudaLaunchDevice{,V2} for kernel launches from a kernel, cudaStreamCreateWithFlags, cudaStreamDestroy,
// cudaMemcpyAsync, cudaGetLastError, cudaPeekAtLastError and cudaGetErrorString, also under their
// __cudaCDP2 names.
bool is_device_runtime_function(std::string_view name);
Status decode_device_runtime_call(InstrDecoder& d, std::string_view name, const ast::Operand* rets,
                                  const ast::Operand* args);

// malloc, free and __cuda_syscall_aligned_malloc (what CUDA's __nv_aligned_device_malloc calls) on the launch's
// device heap (ops_heap.cpp).
bool is_heap_function(std::string_view name);
Status decode_heap_call(InstrDecoder& d, std::string_view name, const ast::Operand* rets, const ast::Operand* args);

// cudaGraphSetConditional: a graph's conditional value, through LaunchConfig::set_conditional
// (ops_conditional.cpp).
bool is_conditional_function(std::string_view name);
Status decode_conditional_call(InstrDecoder& d, const ast::Operand* rets, const ast::Operand* args);

} // namespace d4r::ptxsim
