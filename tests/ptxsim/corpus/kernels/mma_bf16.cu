// mma.sync with bf16 inputs (f32 accumulators only): m16n8k16 and m16n8k8. Fragments are loaded
// per lane straight from memory (a: 4 words, b: 2 words, c: 4 floats per lane).
// corpus-arch: sm_89
#include "common.cuh"

// d: 8 f32 per lane (k16 then k8).
KERNEL void mma_bf16(const uint32_t* a, const uint32_t* b, const float* c, float* d) {
    unsigned g = gtid();
    uint32_t a0 = a[g * 4], a1 = a[g * 4 + 1], a2 = a[g * 4 + 2], a3 = a[g * 4 + 3];
    uint32_t b0 = b[g * 2], b1 = b[g * 2 + 1];
    float c0 = c[g * 4], c1 = c[g * 4 + 1], c2 = c[g * 4 + 2], c3 = c[g * 4 + 3];
    float* o = d + g * 8;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%7,%8,%9,%10};"
                 : "=f"(o[4]), "=f"(o[5]), "=f"(o[6]), "=f"(o[7])
                 : "r"(a2), "r"(a3), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
}
