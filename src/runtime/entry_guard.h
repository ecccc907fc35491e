// The exception barrier and the unimplemented answer of libd4rcuda's exported entry points.
//
// Promise: nothing thrown below an exported function reaches the application. exception_result() turns
// the exception being handled into a CUresult (std::bad_alloc: CUDA_ERROR_OUT_OF_MEMORY; anything else:
// CUDA_ERROR_UNKNOWN) and logs it once per entry point, naming the function. unimplemented() is the
// answer of the entry points NVIDIA exports and d4r does not implement: CUDA_ERROR_NOT_SUPPORTED, with a
// warning naming the function once.
#pragma once

#include "abi/cuda.h"

namespace d4r::runtime {

// Call only from a catch block.
d4r::abi::CUresult exception_result(const char* function) noexcept;

d4r::abi::CUresult unimplemented(const char* function) noexcept;

} // namespace d4r::runtime
