// Surface loads and stores (suld.b / sust.b on 2D surfaces, x in bytes) with .clamp, .zero and
// .trap out-of-range modes. Each thread reads the source surface at data-driven coordinates (some
// outside the surface) and writes one texel of the destination surface (every texel written once).
// Launch with a 2D grid whose threads cover the destination exactly.
// corpus-arch: sm_89
#include "common.cuh"

// 8-byte texels (e.g. RGBA16F). xs, ys: texel coordinates. out: 4 words per thread.
KERNEL void surf2d_b64(unsigned long long src, unsigned long long dst, const int* xs, const int* ys,
                       uint32_t* out) {
    unsigned px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned g = py * (gridDim.x * blockDim.x) + px;
    int x = xs[g] * 8, y = ys[g];
    uint32_t* o = out + g * 4;
    asm volatile("suld.b.2d.v2.b32.clamp {%0, %1}, [%2, {%3, %4}];" : "=r"(o[0]), "=r"(o[1]) : "l"(src), "r"(x), "r"(y));
    asm volatile("suld.b.2d.v2.b32.zero {%0, %1}, [%2, {%3, %4}];" : "=r"(o[2]), "=r"(o[3]) : "l"(src), "r"(x), "r"(y));
    uint32_t v0 = o[0] ^ o[3], v1 = o[1] + 1u;
    asm volatile("sust.b.2d.v2.b32.trap [%0, {%1, %2}], {%3, %4};" :: "l"(dst), "r"((int)px * 8), "r"((int)py), "r"(v0),
                 "r"(v1) : "memory");
}

// 4-byte texels (e.g. R32F, RGBA8). out: 3 words per thread.
KERNEL void surf2d_b32(unsigned long long src, unsigned long long dst, const int* xs, const int* ys,
                       uint32_t* out) {
    unsigned px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned g = py * (gridDim.x * blockDim.x) + px;
    int x = xs[g] * 4, y = ys[g];
    uint32_t* o = out + g * 3;
    asm volatile("suld.b.2d.b32.clamp %0, [%1, {%2, %3}];" : "=r"(o[0]) : "l"(src), "r"(x), "r"(y));
    asm volatile("suld.b.2d.b32.zero %0, [%1, {%2, %3}];" : "=r"(o[1]) : "l"(src), "r"(x), "r"(y));
    uint32_t b0, b1, b2, b3;
    asm volatile("suld.b.2d.v4.b8.zero {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3) : "l"(src), "r"(x), "r"(y));
    o[2] = b0 | b1 << 8 | b2 << 16 | b3 << 24;
    asm volatile("sust.b.2d.b32.trap [%0, {%1, %2}], %3;" :: "l"(dst), "r"((int)px * 4), "r"((int)py),
                 "r"(o[0] * 3u + o[1]) : "memory");
}
