// bf16 and bf16x2 arithmetic (add/sub/mul need sm_90; fma/min/max sm_80), .relu, .NaN min/max,
// neg/abs, and ex2.approx.ftz.bf16 (separate buffer, ISA bound).
// corpus-arch: sm_90
#include "common.cuh"

H_BIN(add_rn, "add.rn.bf16") H_BIN(sub_rn, "sub.rn.bf16") H_BIN(mul_rn, "mul.rn.bf16")
H_TER(fma_rn, "fma.rn.bf16") H_TER(fma_rn_relu, "fma.rn.relu.bf16")
H_BIN(min_b, "min.bf16") H_BIN(max_b, "max.bf16") H_BIN(min_nan, "min.NaN.bf16") H_BIN(max_nan, "max.NaN.bf16")
H_UN(neg_b, "neg.bf16") H_UN(abs_b, "abs.bf16")
H_UN(ex2_b, "ex2.approx.ftz.bf16")
U32_BIN(add2, "add.rn.bf16x2") U32_BIN(mul2, "mul.rn.bf16x2") U32_TER(fma2, "fma.rn.bf16x2")
U32_TER(fma2_relu, "fma.rn.relu.bf16x2") U32_BIN(min2, "min.bf16x2") U32_BIN(max2_nan, "max.NaN.bf16x2")
U32_UN(neg2, "neg.bf16x2")

// a, b, c: bf16 halves; x, y, z: bf16x2 words. o16: 11 per thread; o32: 7 per thread; ex2_o: 1 per thread.
KERNEL void bf16_arith(const uint16_t* a, const uint16_t* b, const uint16_t* c, const uint32_t* x,
                       const uint32_t* y, const uint32_t* z, uint16_t* o16, uint32_t* o32, uint16_t* ex2_o) {
    unsigned i = gtid();
    uint16_t p = a[i], q = b[i], r = c[i];
    uint16_t* o = o16 + i * 11;
    o[0] = add_rn(p, q); o[1] = sub_rn(p, q); o[2] = mul_rn(p, q); o[3] = fma_rn(p, q, r);
    o[4] = fma_rn_relu(p, q, r); o[5] = min_b(p, q); o[6] = max_b(p, q); o[7] = min_nan(p, q);
    o[8] = max_nan(p, q); o[9] = neg_b(p); o[10] = abs_b(p);
    uint32_t u = x[i], v = y[i], w = z[i];
    uint32_t* s = o32 + i * 7;
    s[0] = add2(u, v); s[1] = mul2(u, v); s[2] = fma2(u, v, w); s[3] = fma2_relu(u, v, w);
    s[4] = min2(u, v); s[5] = max2_nan(u, v); s[6] = neg2(u);
    ex2_o[i] = ex2_b(p);
}
