// Shared helpers for the ptxsim golden corpus kernels (see ../README.md).
//
// Every kernel is `extern "C"` so its PTX entry name is the plain name used by the case table in
// ../corpus.cpp. Instructions whose modifiers CUDA C++ cannot name are written as inline PTX through
// the small wrappers below; each wrapper is one PTX instruction, so the committed PTX shows exactly
// the instruction under test. Plain `add.f32`/`mul.f32` (no rounding modifier) are avoided on
// purpose: ptxas may contract them into an fma, which would make the hardware result depend on
// the optimiser rather than on the PTX semantics.
#pragma once
#include <stdint.h>

#define KERNEL extern "C" __global__

__device__ __forceinline__ unsigned gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ unsigned lane_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

// ---- f32 -------------------------------------------------------------------------------------
#define F32_UN(name, instr) \
    __device__ __forceinline__ float name(float a) { float r; asm(instr " %0, %1;" : "=f"(r) : "f"(a)); return r; }
#define F32_BIN(name, instr) \
    __device__ __forceinline__ float name(float a, float b) { \
        float r; asm(instr " %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
#define F32_TER(name, instr) \
    __device__ __forceinline__ float name(float a, float b, float c) { \
        float r; asm(instr " %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c)); return r; }

// ---- f64 -------------------------------------------------------------------------------------
#define F64_UN(name, instr) \
    __device__ __forceinline__ double name(double a) { double r; asm(instr " %0, %1;" : "=d"(r) : "d"(a)); return r; }
#define F64_BIN(name, instr) \
    __device__ __forceinline__ double name(double a, double b) { \
        double r; asm(instr " %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b)); return r; }
#define F64_TER(name, instr) \
    __device__ __forceinline__ double name(double a, double b, double c) { \
        double r; asm(instr " %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c)); return r; }

// ---- 32-bit integer / bit patterns --------------------------------------------------------------
#define U32_UN(name, instr) \
    __device__ __forceinline__ uint32_t name(uint32_t a) { \
        uint32_t r; asm(instr " %0, %1;" : "=r"(r) : "r"(a)); return r; }
#define U32_BIN(name, instr) \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) { \
        uint32_t r; asm(instr " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
#define U32_TER(name, instr) \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
        uint32_t r; asm(instr " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }

// ---- 64-bit integer ----------------------------------------------------------------------------
#define U64_UN(name, instr) \
    __device__ __forceinline__ uint64_t name(uint64_t a) { \
        uint64_t r; asm(instr " %0, %1;" : "=l"(r) : "l"(a)); return r; }
#define U64_BIN(name, instr) \
    __device__ __forceinline__ uint64_t name(uint64_t a, uint64_t b) { \
        uint64_t r; asm(instr " %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b)); return r; }
#define U64_TER(name, instr) \
    __device__ __forceinline__ uint64_t name(uint64_t a, uint64_t b, uint64_t c) { \
        uint64_t r; asm(instr " %0, %1, %2, %3;" : "=l"(r) : "l"(a), "l"(b), "l"(c)); return r; }

// ---- 16-bit values (f16, bf16 and 16-bit integers live in .b16 registers) -------------------------
#define H_UN(name, instr) \
    __device__ __forceinline__ uint16_t name(uint16_t a) { \
        uint16_t r; asm(instr " %0, %1;" : "=h"(r) : "h"(a)); return r; }
#define H_BIN(name, instr) \
    __device__ __forceinline__ uint16_t name(uint16_t a, uint16_t b) { \
        uint16_t r; asm(instr " %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); return r; }
#define H_TER(name, instr) \
    __device__ __forceinline__ uint16_t name(uint16_t a, uint16_t b, uint16_t c) { \
        uint16_t r; asm(instr " %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c)); return r; }

// A predicate result turned into 0/1 so it can be stored.
#define SETP_F32(name, instr) \
    __device__ __forceinline__ uint32_t name(float a, float b) { \
        uint32_t r; \
        asm("{ .reg .pred p; " instr " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "f"(a), "f"(b)); \
        return r; }
#define SETP_F64(name, instr) \
    __device__ __forceinline__ uint32_t name(double a, double b) { \
        uint32_t r; \
        asm("{ .reg .pred p; " instr " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "d"(a), "d"(b)); \
        return r; }
#define TESTP_F32(name, instr) \
    __device__ __forceinline__ uint32_t name(float a) { \
        uint32_t r; asm("{ .reg .pred p; " instr " p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "f"(a)); return r; }
#define TESTP_F64(name, instr) \
    __device__ __forceinline__ uint32_t name(double a) { \
        uint32_t r; asm("{ .reg .pred p; " instr " p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "d"(a)); return r; }

__device__ __forceinline__ uint32_t f2u(float f) { return __float_as_uint(f); }
__device__ __forceinline__ float u2f(uint32_t u) { return __uint_as_float(u); }
