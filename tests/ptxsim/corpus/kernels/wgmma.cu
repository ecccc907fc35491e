// wgmma.mma_async (Hopper, sm_90a) with f16 inputs: m64n32k16, A from a shared-memory matrix descriptor or from
// registers, B from a descriptor, f32 and f16 accumulators, scale-d 0 and imm-scale-b -1. Each block is one
// warpgroup; it lays A (64 x 16) and B (32 x 16, row n holding column n of the product's B) out in shared memory in
// the unswizzled K-major layout with different core-matrix strides (A: 128 bytes along K, 256 along M; B: 512 along
// K, 128 along N), so the goldens pin down what the descriptor's two byte offsets mean, and the fragments of A and D.
// corpus-arch: sm_90a
#include "common.cuh"

constexpr unsigned kN = 32;

// Byte offset of element (r, k) of a K-major matrix of 8 x 8 core matrices, LBO apart along K and SBO along the rows.
__device__ __forceinline__ unsigned core_offset(unsigned r, unsigned k, unsigned lbo, unsigned sbo) {
    return (r / 8) * sbo + (k / 8) * lbo + (r % 8) * 16 + (k % 8) * 2;
}

__device__ __forceinline__ uint64_t descriptor(const void* smem, unsigned lbo, unsigned sbo) {
    const uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
    return uint64_t((at >> 4) & 0x3fff) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32;
}

// a: 64 x 16 f16 a block, b: 32 x 16 f16 a block (row-major: b[n * 16 + k]), c: 16 f32 a thread, af: 4 words a
// thread (A's register fragment), h: 8 words a thread (f16 accumulators). d32: 16 f32 a thread (A by descriptor,
// f32 accumulators from c), d16: 8 words (A in registers, f16 accumulators from h), d32z: 16 f32 (scale-d 0, B
// negated).
KERNEL void wgmma(const uint16_t* a, const uint16_t* b, const float* c, const uint32_t* af, const uint32_t* h,
                  float* d32, uint32_t* d16, float* d32z) {
    __shared__ __align__(128) uint8_t sa[64 * 32];
    __shared__ __align__(128) uint8_t sb[kN * 32];
    const unsigned t = threadIdx.x, g = gtid();
    const uint16_t* ab = a + blockIdx.x * 64 * 16;
    const uint16_t* bb = b + blockIdx.x * kN * 16;
    for (unsigned i = t; i < 64 * 16; i += 128)
        *reinterpret_cast<uint16_t*>(sa + core_offset(i / 16, i % 16, 128, 256)) = ab[i];
    for (unsigned i = t; i < kN * 16; i += 128)
        *reinterpret_cast<uint16_t*>(sb + core_offset(i / 16, i % 16, 512, 128)) = bb[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const uint64_t da = descriptor(sa, 128, 256), db = descriptor(sb, 512, 128);

    float x[16], z[16];
    for (unsigned i = 0; i < 16; ++i) x[i] = z[i] = c[g * 16 + i];
    uint32_t q[8];
    for (unsigned i = 0; i < 8; ++i) q[i] = h[g * 8 + i];
    const uint32_t a0 = af[g * 4], a1 = af[g * 4 + 1], a2 = af[g * 4 + 2], a3 = af[g * 4 + 3];

    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,"
                 "%14,%15}, %16, %17, p, 1, 1, 0, 0;\n}"
                 : "+f"(x[0]), "+f"(x[1]), "+f"(x[2]), "+f"(x[3]), "+f"(x[4]), "+f"(x[5]), "+f"(x[6]), "+f"(x[7]),
                   "+f"(x[8]), "+f"(x[9]), "+f"(x[10]), "+f"(x[11]), "+f"(x[12]), "+f"(x[13]), "+f"(x[14]), "+f"(x[15])
                 : "l"(da), "l"(db), "r"(1u)
                 : "memory");
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %14, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, "
                 "%12, p, 1, 1, 0;\n}"
                 : "+r"(q[0]), "+r"(q[1]), "+r"(q[2]), "+r"(q[3]), "+r"(q[4]), "+r"(q[5]), "+r"(q[6]), "+r"(q[7])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db), "r"(0u), "r"(1u)
                 : "memory");
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,"
                 "%14,%15}, %16, %17, p, 1, -1, 0, 0;\n}"
                 : "+f"(z[0]), "+f"(z[1]), "+f"(z[2]), "+f"(z[3]), "+f"(z[4]), "+f"(z[5]), "+f"(z[6]), "+f"(z[7]),
                   "+f"(z[8]), "+f"(z[9]), "+f"(z[10]), "+f"(z[11]), "+f"(z[12]), "+f"(z[13]), "+f"(z[14]), "+f"(z[15])
                 : "l"(da), "l"(db), "r"(0u)
                 : "memory");
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (unsigned i = 0; i < 16; ++i) d32[g * 16 + i] = x[i];
    for (unsigned i = 0; i < 8; ++i) d16[g * 8 + i] = q[i];
    for (unsigned i = 0; i < 16; ++i) d32z[g * 16 + i] = z[i];
}
