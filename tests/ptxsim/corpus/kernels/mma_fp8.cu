// mma.sync m16n8k32 with FP8 inputs (sm_89+): e4m3 x e4m3, e5m2 x e5m2, e4m3 x e5m2 and e5m2 x e4m3
// into f32 accumulators, and e4m3 x e4m3 into f16 accumulators. Fragments per lane from memory
// (a: 4 words = 16 fp8, b: 2 words = 8 fp8, c: 4 floats or 2 f16x2 words).
// corpus-arch: sm_89
#include "common.cuh"

#define MMA_FP8_F32(ta, tb, o, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3) \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." ta "." tb ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
                 "{%8,%9}, {%10,%11,%12,%13};" \
                 : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3]) \
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3))

// d: 16 f32 per lane (e4m3.e4m3, e5m2.e5m2, e4m3.e5m2, e5m2.e4m3); d16: 2 words per lane.
KERNEL void mma_fp8(const uint32_t* a, const uint32_t* b, const float* c, const uint32_t* h, float* d,
                    uint32_t* d16) {
    unsigned g = gtid();
    uint32_t a0 = a[g * 4], a1 = a[g * 4 + 1], a2 = a[g * 4 + 2], a3 = a[g * 4 + 3];
    uint32_t b0 = b[g * 2], b1 = b[g * 2 + 1];
    float c0 = c[g * 4], c1 = c[g * 4 + 1], c2 = c[g * 4 + 2], c3 = c[g * 4 + 3];
    float* o = d + g * 16;
    MMA_FP8_F32("e4m3", "e4m3", o, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    MMA_FP8_F32("e5m2", "e5m2", (o + 4), a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    MMA_FP8_F32("e4m3", "e5m2", (o + 8), a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    MMA_FP8_F32("e5m2", "e4m3", (o + 12), a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    uint32_t h0 = h[g * 2], h1 = h[g * 2 + 1];
    uint32_t* q = d16 + g * 2;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(q[0]), "=r"(q[1])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(h0), "r"(h1));
}
