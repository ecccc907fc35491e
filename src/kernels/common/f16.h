// d4r kernels: the f16 <-> f32 conversions every kernel family shares, compiled identically by nvcc (device:
// the cvt instructions) and a host C++ compiler (bit manipulation giving the same results).
//
// Promise: half_to_float is exact; float_to_half rounds to nearest-even as cvt.rn.f16.f32 does (NaN becomes
// the canonical 0x7fff, overflow infinity, subnormals kept).
#pragma once

#include <cstdint>
#include <cstring>

#ifndef D4R_HD
#ifdef __CUDACC__
#define D4R_HD __host__ __device__ __forceinline__
#else
#define D4R_HD inline
#endif
#endif

namespace d4r::kernels {

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
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
#endif
}

D4R_HD uint16_t float_to_half(float f) {
#ifdef __CUDA_ARCH__
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    uint32_t x;
    std::memcpy(&x, &f, 4);
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
