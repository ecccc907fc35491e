// mma.sync with f16 inputs: m16n8k16 and m16n8k8, f32 and f16 accumulators.
// Each lane loads its own fragment registers straight from memory (a: 4 words, b: 2 words, c: 4
// floats or 2 f16x2 words per lane), so the goldens pin down the hardware's fragment layout too.
// corpus-arch: sm_89
#include "common.cuh"

// a: 4 words/lane, b: 2 words/lane, c: 4 f32/lane, h: 2 f16x2 words/lane.
// d32: 8 f32/lane (k16 then k8, f32 accumulators); d16: 4 words/lane (k16 then k8, f16 accumulators).
// (PTX requires the accumulator and result types to match for these shapes.)
KERNEL void mma_f16(const uint32_t* a, const uint32_t* b, const float* c, const uint32_t* h, float* d32,
                    uint32_t* d16) {
    unsigned g = gtid();
    uint32_t a0 = a[g * 4], a1 = a[g * 4 + 1], a2 = a[g * 4 + 2], a3 = a[g * 4 + 3];
    uint32_t b0 = b[g * 2], b1 = b[g * 2 + 1];
    float c0 = c[g * 4], c1 = c[g * 4 + 1], c2 = c[g * 4 + 2], c3 = c[g * 4 + 3];
    uint32_t h0 = h[g * 2], h1 = h[g * 2 + 1];
    float* o = d32 + g * 8;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%7,%8,%9,%10};"
                 : "=f"(o[4]), "=f"(o[5]), "=f"(o[6]), "=f"(o[7])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    uint32_t* q = d16 + g * 4;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(q[0]), "=r"(q[1])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(h0), "r"(h1));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
                 : "=r"(q[2]), "=r"(q[3])
                 : "r"(a2), "r"(a3), "r"(b1), "r"(h0), "r"(h1));
}
