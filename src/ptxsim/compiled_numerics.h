// ptxsim internals: the numerics helpers of CompiledRuntime (compiled.h), for compiled_runner.cpp's runtime table.
#pragma once

#include <cstdint>

namespace d4r::ptxsim {

float compiled_f32_op(uint32_t code, float a, float b, float c);
double compiled_f64_op(uint32_t code, double a, double b, double c);
uint64_t compiled_cvt(uint64_t code, uint64_t a);
uint32_t compiled_half_op(uint32_t code, uint32_t a, uint32_t b, uint32_t c);

} // namespace d4r::ptxsim
