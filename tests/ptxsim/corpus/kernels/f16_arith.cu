// f16 scalar arithmetic: add/sub/mul/fma with .rn, .ftz, .sat, .relu; neg/abs; min/max with the
// .NaN variants; comparisons. ex2/tanh .approx.f16 go to separate buffers (ISA bound).
// corpus-arch: sm_89
#include "common.cuh"

H_BIN(add_rn, "add.rn.f16") H_BIN(add_rn_ftz, "add.rn.ftz.f16") H_BIN(add_rn_sat, "add.rn.sat.f16")
H_BIN(sub_rn, "sub.rn.f16") H_BIN(mul_rn, "mul.rn.f16") H_BIN(mul_rn_ftz_sat, "mul.rn.ftz.sat.f16")
H_TER(fma_rn, "fma.rn.f16") H_TER(fma_rn_ftz, "fma.rn.ftz.f16") H_TER(fma_rn_sat, "fma.rn.sat.f16")
H_TER(fma_rn_relu, "fma.rn.relu.f16")
H_UN(neg_h, "neg.f16") H_UN(abs_h, "abs.f16") H_UN(neg_ftz, "neg.ftz.f16")
H_BIN(min_h, "min.f16") H_BIN(max_h, "max.f16") H_BIN(min_nan, "min.NaN.f16") H_BIN(max_nan, "max.NaN.f16")
H_BIN(min_ftz, "min.ftz.f16")
H_UN(ex2_h, "ex2.approx.f16") H_UN(tanh_h, "tanh.approx.f16")

__device__ __forceinline__ uint16_t setp_bits(uint16_t a, uint16_t b) {
    uint32_t r;
    asm("{ .reg .pred p0, p1, p2, p3, p4;\n\t"
        "setp.eq.f16 p0, %1, %2;\n\t"
        "setp.lt.f16 p1, %1, %2;\n\t"
        "setp.gtu.f16 p2, %1, %2;\n\t"
        "setp.nan.f16 p3, %1, %2;\n\t"
        "setp.le.ftz.f16 p4, %1, %2;\n\t"
        "selp.u32 %0, 1, 0, p0;\n\t"
        "@p1 or.b32 %0, %0, 2;\n\t"
        "@p2 or.b32 %0, %0, 4;\n\t"
        "@p3 or.b32 %0, %0, 8;\n\t"
        "@p4 or.b32 %0, %0, 16; }"
        : "=r"(r) : "h"(a), "h"(b));
    return (uint16_t)r;
}

// a, b, c: f16 bit patterns. out: 19 halves per thread; ex2_o, tanh_o: 1 per thread.
KERNEL void f16_arith(const uint16_t* a, const uint16_t* b, const uint16_t* c, uint16_t* out, uint16_t* ex2_o,
                      uint16_t* tanh_o) {
    unsigned i = gtid();
    uint16_t x = a[i], y = b[i], z = c[i];
    uint16_t* o = out + i * 19;
    o[0] = add_rn(x, y); o[1] = add_rn_ftz(x, y); o[2] = add_rn_sat(x, y); o[3] = sub_rn(x, y);
    o[4] = mul_rn(x, y); o[5] = mul_rn_ftz_sat(x, y);
    o[6] = fma_rn(x, y, z); o[7] = fma_rn_ftz(x, y, z); o[8] = fma_rn_sat(x, y, z); o[9] = fma_rn_relu(x, y, z);
    o[10] = neg_h(x); o[11] = abs_h(x); o[12] = neg_ftz(x);
    o[13] = min_h(x, y); o[14] = max_h(x, y); o[15] = min_nan(x, y); o[16] = max_nan(x, y); o[17] = min_ftz(x, y);
    o[18] = setp_bits(x, y);
    ex2_o[i] = ex2_h(x);
    tanh_o[i] = tanh_h(x);
}
