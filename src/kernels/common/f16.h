// d4r kernels: the f16 <-> f32 conversions every kernel family shares, compiled identically by nvcc (device:
// the cvt instructions), a host C++ compiler and clang's HIP device compilation (both: bit manipulation giving
// the same results), and the few libm calls the shared scalar code makes (floor_f, sqrt_f, bits_of).
//
// Promise: half_to_float is exact; float_to_half rounds to nearest-even as cvt.rn.f16.f32 does (NaN becomes
// the canonical 0x7fff, overflow infinity, subnormals kept). On the HIP device floor_f and sqrt_f are
// clang's builtins (v_floor_f32; the correctly rounded f32 square root clang emits for HIP by default), so
// with -ffp-contract=off the AMD kernels give the bytes of the host and nvcc builds; the host and nvcc code
// is unchanged (floorf, sqrtf, std::memcpy).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifndef D4R_HD
#ifdef __CUDACC__
#define D4R_HD __host__ __device__ __forceinline__
#elif defined(__HIP__) // clang -x hip without HIP's headers: the attributes are spelled out
#define D4R_HD __attribute__((host, device, always_inline)) inline
#else
#define D4R_HD inline
#endif
#endif

namespace d4r::kernels {

// The bits of a float, and a float of bits (std::memcpy has no HIP device version without HIP's headers).
D4R_HD uint32_t bits_of(float f) {
    uint32_t x;
#ifdef __HIP_DEVICE_COMPILE__
    __builtin_memcpy(&x, &f, 4);
#else
    std::memcpy(&x, &f, 4);
#endif
    return x;
}
D4R_HD float float_of(uint32_t x) {
    float f;
#ifdef __HIP_DEVICE_COMPILE__
    __builtin_memcpy(&f, &x, 4);
#else
    std::memcpy(&f, &x, 4);
#endif
    return f;
}
D4R_HD float floor_f(float v) {
#ifdef __HIP_DEVICE_COMPILE__
    return __builtin_floorf(v);
#else
    return floorf(v);
#endif
}
D4R_HD float sqrt_f(float v) {
#ifdef __HIP_DEVICE_COMPILE__
    return __builtin_sqrtf(v);
#else
    return sqrtf(v);
#endif
}

D4R_HD float half_to_float(uint16_t h) {
#ifdef __CUDA_ARCH__
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0) {
        if (m == 0) {
            bits = sign;
        } else { // subnormal: normalise
            uint32_t exp = 113;
            while (!(m & 0x400u)) {
                m <<= 1;
                --exp;
            }
            bits = sign | (exp << 23) | ((m & 0x3ffu) << 13);
        }
    } else if (e == 31) {
        bits = sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0u);
    } else {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    }
    return float_of(bits);
#endif
}

D4R_HD uint16_t float_to_half(float f) {
#ifdef __CUDA_ARCH__
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    uint32_t x = bits_of(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return static_cast<uint16_t>(0x7fffu);         // NaN: canonical, as cvt does
    if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // >= 65520 rounds to infinity
    if (x < 0x38800000u) {                                              // below 2^-14: subnormal or zero
        if (x <= 0x33000000u) return static_cast<uint16_t>(sign);       // <= 2^-25 rounds to 0 (even)
        uint32_t e = x >> 23, m = (x & 0x7fffffu) | 0x800000u, shift = 126u - e;
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u))) ++r;
        return static_cast<uint16_t>(sign | r);
    }
    uint32_t r = x - 0x38000000u, h = r >> 13, rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
#endif
}

} // namespace d4r::kernels
