// Packed f16x2 arithmetic (each half rounded on its own), comparisons with two predicates, set.f16x2,
// and ex2.approx.f16x2 (separate buffer, ISA bound).
// corpus-arch: sm_89
#include "common.cuh"

U32_BIN(add_rn, "add.rn.f16x2") U32_BIN(add_rn_ftz_sat, "add.rn.ftz.sat.f16x2") U32_BIN(sub_rn, "sub.rn.f16x2")
U32_BIN(mul_rn, "mul.rn.f16x2") U32_BIN(mul_rn_ftz, "mul.rn.ftz.f16x2")
U32_TER(fma_rn, "fma.rn.f16x2") U32_TER(fma_rn_relu, "fma.rn.relu.f16x2") U32_TER(fma_rn_ftz_sat, "fma.rn.ftz.sat.f16x2")
U32_UN(neg_h2, "neg.f16x2") U32_UN(abs_h2, "abs.f16x2")
U32_BIN(min_h2, "min.f16x2") U32_BIN(max_nan_h2, "max.NaN.f16x2")
U32_BIN(set_lt_h2, "set.lt.f16x2.f16x2") U32_BIN(set_geu_u32, "set.geu.u32.f16x2")
U32_UN(ex2_h2, "ex2.approx.f16x2")

__device__ __forceinline__ uint32_t setp2_bits(uint32_t a, uint32_t b) {
    uint32_t r;
    asm("{ .reg .pred p0, p1, q0, q1;\n\t"
        "setp.ltu.f16x2 p0|p1, %1, %2;\n\t"
        "setp.ne.f16x2 q0|q1, %1, %2;\n\t"
        "selp.u32 %0, 1, 0, p0;\n\t"
        "@p1 or.b32 %0, %0, 2;\n\t"
        "@q0 or.b32 %0, %0, 4;\n\t"
        "@q1 or.b32 %0, %0, 8; }"
        : "=r"(r) : "r"(a), "r"(b));
    return r;
}

// a, b, c: f16x2 words. out: 15 words per thread; ex2_o: 1 per thread.
KERNEL void f16x2_arith(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* out, uint32_t* ex2_o) {
    unsigned i = gtid();
    uint32_t x = a[i], y = b[i], z = c[i];
    uint32_t* o = out + i * 15;
    o[0] = add_rn(x, y); o[1] = add_rn_ftz_sat(x, y); o[2] = sub_rn(x, y); o[3] = mul_rn(x, y);
    o[4] = mul_rn_ftz(x, y); o[5] = fma_rn(x, y, z); o[6] = fma_rn_relu(x, y, z); o[7] = fma_rn_ftz_sat(x, y, z);
    o[8] = neg_h2(x); o[9] = abs_h2(x); o[10] = min_h2(x, y); o[11] = max_nan_h2(x, y);
    o[12] = set_lt_h2(x, y); o[13] = set_geu_u32(x, y); o[14] = setp2_bits(x, y);
    ex2_o[i] = ex2_h2(x);
}
