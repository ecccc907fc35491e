// Runtime API conformance: which mul/add pairs NVIDIA's PTX assembler contracts into one fused
// multiply-add. The PTX ISA lets a mul and an add (or sub) written without a rounding modifier be
// executed as one fma; whether ptxas does it decides results to the last bit, so ptxsim must do the same.
//
// Each probe computes r = a*b + c (or a variant) through the PTX pattern its name gives, with inputs
// chosen so that the fused result and the separately rounded one differ (a*b is inexact, c cancels
// its rounded value). The host prints the bits and which of the candidate results they are:
// "fused" (one rounding), "separate" (the product rounded, then the sum), "fused-other" where two
// contractions are possible (a sum of two products) and "other" when none matches.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "rt_check.h"

// ---- f32 -------------------------------------------------------------------------------------------
// v: a, b, c, nc (= -c), x, y, c2. o: one result per probe (kF32Probes).
constexpr int kF32Probes = 28;

__global__ void contract_f32(const float* v, float* o) {
    const float a = v[0], b = v[1], c = v[2], nc = v[3], x = v[4], y = v[5], c2 = v[6];
    float r, r2, t;
    // 0: one asm block, the product as the add's first operand; 1: as its second.
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; add.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[0] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; add.f32 %0, %3, t; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[1] = r;
    // 2: product minus nc; 3: nc minus product.
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; sub.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(nc));
    o[2] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; sub.f32 %0, %3, t; }" : "=f"(r) : "f"(a), "f"(b), "f"(nc));
    o[3] = r;
    // 4, 5: the product is also an output of its own.
    asm("{ mul.f32 %1, %2, %3; add.f32 %0, %1, %4; }" : "=f"(r), "=f"(t) : "f"(a), "f"(b), "f"(c));
    o[4] = r;
    o[5] = t;
    // 6, 7: two adds of one product.
    asm("{ .reg .f32 t; mul.f32 t, %2, %3; add.f32 %0, t, %4; add.f32 %1, t, %5; }"
        : "=f"(r), "=f"(r2)
        : "f"(a), "f"(b), "f"(c), "f"(c2));
    o[6] = r;
    o[7] = r2;
    // 8: a branch between the mul and the add (the mul's block dominates the add's).
    asm("{ .reg .f32 t, u; .reg .pred p; mul.f32 t, %1, %2; mov.f32 u, %3; setp.ne.f32 p, %3, 0f00000000;"
        " @p bra C8; add.f32 u, u, 0f3F800000; C8: add.f32 %0, t, u; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(c));
    o[8] = r;
    // 9: mul.rn then add; 10: mul then add.rn; 11: both .ftz; 12: only the mul .ftz; 13: add.sat.
    asm("{ .reg .f32 t; mul.rn.f32 t, %1, %2; add.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[9] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; add.rn.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[10] = r;
    asm("{ .reg .f32 t; mul.ftz.f32 t, %1, %2; add.ftz.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[11] = r;
    asm("{ .reg .f32 t; mul.ftz.f32 t, %1, %2; add.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[12] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; add.sat.f32 %0, t, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[13] = r;
    // 14: neg of the product, then add nc; 15: a mov between.
    asm("{ .reg .f32 t, n; mul.f32 t, %1, %2; neg.f32 n, t; add.f32 %0, n, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(nc));
    o[14] = r;
    asm("{ .reg .f32 t, u; mul.f32 t, %1, %2; mov.f32 u, t; add.f32 %0, u, %3; }" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    o[15] = r;
    // 16: separate asm statements, as intrinsics produce them.
    asm("mul.f32 %0, %1, %2;" : "=f"(t) : "f"(a), "f"(b));
    asm("add.f32 %0, %1, %2;" : "=f"(r) : "f"(t), "f"(c));
    o[16] = r;
    // 17: a sum of two products (either could be contracted); 18: the second product is mul.rn.
    asm("{ .reg .f32 t, u; mul.f32 t, %1, %2; mul.f32 u, %3, %4; add.f32 %0, t, u; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(x), "f"(y));
    o[17] = r;
    asm("{ .reg .f32 t, u; mul.f32 t, %1, %2; mul.rn.f32 u, %3, %4; add.f32 %0, t, u; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(x), "f"(y));
    o[18] = r;
    // 19: a loop: acc = acc - nc; acc = acc + a*b, twice.
    asm("{ .reg .f32 t, acc; .reg .s32 i; .reg .pred p; mov.f32 acc, 0f00000000; mov.s32 i, 0;"
        " L19: sub.f32 acc, acc, %3; mul.f32 t, %1, %2; add.f32 acc, acc, t; add.s32 i, i, 1;"
        " setp.lt.s32 p, i, 2; @p bra L19; mov.f32 %0, acc; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(nc));
    o[19] = r;
    // 20: a predicated mul (predicate true at run time).
    asm("{ .reg .f32 t; .reg .pred p; mov.f32 t, 0f00000000; setp.ne.f32 p, %3, 0f00000000; @p mul.f32 t, %1, %2;"
        " add.f32 %0, t, %3; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(c));
    o[20] = r;
    // 21: a multiplier that is an immediate (1 + 2^-12); 22: an addend that is one (-(1 + 2^-11)).
    asm("{ .reg .f32 t; mul.f32 t, %1, 0f3F800800; add.f32 %0, t, %2; }" : "=f"(r) : "f"(a), "f"(c));
    o[21] = r;
    asm("{ .reg .f32 t; mul.f32 t, %1, %2; add.f32 %0, t, 0fBF801000; }" : "=f"(r) : "f"(a), "f"(b));
    o[22] = r;
    // 23: bar.sync between.
    asm volatile("{ .reg .f32 t; mul.f32 t, %1, %2; bar.sync 0; add.f32 %0, t, %3; }"
                 : "=f"(r)
                 : "f"(a), "f"(b), "f"(c));
    o[23] = r;
    // 24: a multiplicand register redefined between the mul and the add.
    asm("{ .reg .f32 t, q; mov.f32 q, %1; mul.f32 t, q, %2; mov.f32 q, 0f40000000; add.f32 %0, t, %3;"
        " mul.rn.f32 %0, %0, q; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(c));
    o[24] = r;
    // 25: forty unrelated instructions between.
    asm("{ .reg .f32 t, u; mul.f32 t, %1, %2; mov.f32 u, %3;"
        " add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000;"
        " add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000;"
        " add.f32 u, u, 0f3F800000; add.f32 u, u, 0f3F800000; add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000;"
        " add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000;"
        " add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000; add.f32 u, u, 0fBF800000;"
        " add.f32 %0, t, u; }"
        : "=f"(r)
        : "f"(a), "f"(b), "f"(c));
    o[25] = r;
    // 26: what nvcc writes for __fadd_rn(a * b, c) (a contractible mul, then add.rn); 27: for a * b + c.
    o[26] = __fadd_rn(a * b, c);
    o[27] = a * b + c;
}

// ---- f64 -------------------------------------------------------------------------------------------
constexpr int kF64Probes = 7;

__global__ void contract_f64(const double* v, double* o) {
    const double a = v[0], b = v[1], c = v[2], nc = v[3], x = v[4], y = v[5];
    double r, t;
    asm("{ .reg .f64 t; mul.f64 t, %1, %2; add.f64 %0, t, %3; }" : "=d"(r) : "d"(a), "d"(b), "d"(c));
    o[0] = r;
    asm("{ .reg .f64 t; mul.f64 t, %1, %2; sub.f64 %0, t, %3; }" : "=d"(r) : "d"(a), "d"(b), "d"(nc));
    o[1] = r;
    asm("{ mul.f64 %1, %2, %3; add.f64 %0, %1, %4; }" : "=d"(r), "=d"(t) : "d"(a), "d"(b), "d"(c));
    o[2] = r;
    asm("{ .reg .f64 t; mul.rn.f64 t, %1, %2; add.f64 %0, t, %3; }" : "=d"(r) : "d"(a), "d"(b), "d"(c));
    o[3] = r;
    asm("mul.f64 %0, %1, %2;" : "=d"(t) : "d"(a), "d"(b));
    asm("add.f64 %0, %1, %2;" : "=d"(r) : "d"(t), "d"(c));
    o[4] = r;
    asm("{ .reg .f64 t, u; mul.f64 t, %1, %2; mul.f64 u, %3, %4; add.f64 %0, t, u; }"
        : "=d"(r)
        : "d"(a), "d"(b), "d"(x), "d"(y));
    o[5] = r;
    asm("{ .reg .f64 t, u; .reg .pred p; mul.f64 t, %1, %2; mov.f64 u, %3; setp.ne.f64 p, %3, 0d0000000000000000;"
        " @p bra D6; add.f64 u, u, 0d3FF0000000000000; D6: add.f64 %0, t, u; }"
        : "=d"(r)
        : "d"(a), "d"(b), "d"(c));
    o[6] = r;
}

// ---- f16 and f16x2 ---------------------------------------------------------------------------------
constexpr int kF16Probes = 9;

__global__ void contract_f16(const unsigned short* v, unsigned short* o, const unsigned* v2, unsigned* o2) {
    const unsigned short a = v[0], b = v[1], c = v[2], nc = v[3];
    unsigned short r, t;
    asm("{ .reg .b16 t; mul.f16 t, %1, %2; add.f16 %0, t, %3; }" : "=h"(r) : "h"(a), "h"(b), "h"(c));
    o[0] = r;
    asm("{ .reg .b16 t; mul.f16 t, %1, %2; sub.f16 %0, t, %3; }" : "=h"(r) : "h"(a), "h"(b), "h"(nc));
    o[1] = r;
    asm("{ .reg .b16 t; mul.rn.f16 t, %1, %2; add.f16 %0, t, %3; }" : "=h"(r) : "h"(a), "h"(b), "h"(c));
    o[2] = r;
    asm("{ .reg .b16 t; mul.ftz.f16 t, %1, %2; add.ftz.f16 %0, t, %3; }" : "=h"(r) : "h"(a), "h"(b), "h"(c));
    o[3] = r;
    asm("{mul.f16 %0, %1, %2;\n}" : "=h"(t) : "h"(a), "h"(b));
    asm("{add.f16 %0, %1, %2;\n}" : "=h"(r) : "h"(t), "h"(c));
    o[4] = r;
    // What __hadd(__hmul(a, b), c) compiles to (the intrinsics are asm blocks like the two above).
    __half ha, hb, hc;
    std::memcpy(&ha, &a, 2);
    std::memcpy(&hb, &b, 2);
    std::memcpy(&hc, &c, 2);
    __half hr = __hadd(__hmul(ha, hb), hc);
    std::memcpy(&o[5], &hr, 2);
    // f16x2: one block, separate blocks, and __hadd2(__hmul2(...)).
    const unsigned a2 = v2[0], b2 = v2[1], c2 = v2[2];
    unsigned r2, t2;
    asm("{ .reg .b32 t; mul.f16x2 t, %1, %2; add.f16x2 %0, t, %3; }" : "=r"(r2) : "r"(a2), "r"(b2), "r"(c2));
    o2[0] = r2;
    asm("{mul.f16x2 %0, %1, %2;\n}" : "=r"(t2) : "r"(a2), "r"(b2));
    asm("{add.f16x2 %0, %1, %2;\n}" : "=r"(r2) : "r"(t2), "r"(c2));
    o2[1] = r2;
    __half2 h2a, h2b, h2c;
    std::memcpy(&h2a, &a2, 4);
    std::memcpy(&h2b, &b2, 4);
    std::memcpy(&h2c, &c2, 4);
    __half2 h2r = __hadd2(__hmul2(h2a, h2b), h2c);
    std::memcpy(&o2[2], &h2r, 4);
}

// ---- bf16 (PTX for sm_90: mul.bf16 and add.bf16 need it), loaded with cudaLibraryLoadData -----------
static const char kBf16Ptx[] = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry contract_bf16(.param .u64 pv, .param .u64 po)
{
    .reg .b16 a, b, c, nc, t, r;
    .reg .b32 a2, b2, c2, t2, r2;
    .reg .b64 v, o;
    ld.param.u64 v, [pv];
    ld.param.u64 o, [po];
    cvta.to.global.u64 v, v;
    cvta.to.global.u64 o, o;
    ld.global.b16 a, [v];
    ld.global.b16 b, [v+2];
    ld.global.b16 c, [v+4];
    ld.global.b16 nc, [v+6];
    mul.bf16 t, a, b;
    add.bf16 r, t, c;
    st.global.b16 [o], r;
    mul.bf16 t, a, b;
    sub.bf16 r, t, nc;
    st.global.b16 [o+2], r;
    mul.rn.bf16 t, a, b;
    add.bf16 r, t, c;
    st.global.b16 [o+4], r;
    mov.b32 a2, {a, a};
    mov.b32 b2, {b, b};
    mov.b32 c2, {c, c};
    mul.bf16x2 t2, a2, b2;
    add.bf16x2 r2, t2, c2;
    st.global.b32 [o+8], r2;
    ret;
}
)";

// ---- host ------------------------------------------------------------------------------------------
static uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
static uint64_t bits(double f) {
    uint64_t u;
    std::memcpy(&u, &f, 8);
    return u;
}
// The product rounded on its own (volatile: the host compiler must not contract it either).
static float mul_rn(float a, float b) {
    volatile float p = a * b;
    return p;
}
static double mul_rn(double a, double b) {
    volatile double p = a * b;
    return p;
}
static float add_rn(float a, float b) {
    volatile float s = a + b;
    return s;
}
static double add_rn(double a, double b) {
    volatile double s = a + b;
    return s;
}

// Prints one probe: bits and which candidate they are.
static void report_f32(const char* name, float got, float fused, float separate, float other = NAN) {
    const char* kind = bits(fused) == bits(separate) ? (bits(got) == bits(fused) ? "expected" : "other")
                       : bits(got) == bits(fused)    ? "fused"
                       : bits(got) == bits(separate) ? "separate"
                       : bits(got) == bits(other)    ? "fused-other"
                                                     : "other";
    std::printf("f32 %-34s %08x %s\n", name, bits(got), kind);
}
static void report_f64(const char* name, double got, double fused, double separate, double other = NAN) {
    const char* kind = bits(got) == bits(fused)      ? "fused"
                       : bits(got) == bits(separate) ? "separate"
                       : bits(got) == bits(other)    ? "fused-other"
                                                     : "other";
    std::printf("f64 %-34s %016llx %s\n", name, static_cast<unsigned long long>(bits(got)), kind);
}
static void report_16(const char* type, const char* name, unsigned got, unsigned fused, unsigned separate) {
    const char* kind = got == fused ? "fused" : got == separate ? "separate" : "other";
    std::printf("%s %-34s %04x %s\n", type, name, got, kind);
}

static void run_f32() {
    const float a = 1.0f + 0x1p-12f, b = a, c = -(1.0f + 0x1p-11f), nc = -c;
    const float x = -(1.0f + 0x1p-11f), y = 1.0f + 0x1p-13f, c2 = c - 0x1p-22f;
    const float host_v[7] = {a, b, c, nc, x, y, c2};
    float *v, *o;
    CHECK(cudaMalloc(&v, sizeof host_v));
    CHECK(cudaMalloc(&o, kF32Probes * sizeof(float)));
    CHECK(cudaMemcpy(v, host_v, sizeof host_v, cudaMemcpyHostToDevice));
    contract_f32<<<1, 1>>>(v, o);
    CHECK(cudaGetLastError());
    float r[kF32Probes];
    CHECK(cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost));
    const float ab = mul_rn(a, b), xy = mul_rn(x, y);
    const float fused = std::fmaf(a, b, c), separate = add_rn(ab, c);
    report_f32("mul;add (product first)", r[0], fused, separate);
    report_f32("mul;add (product second)", r[1], fused, separate);
    report_f32("mul;sub (product first)", r[2], std::fmaf(a, b, -nc), add_rn(ab, -nc));
    report_f32("mul;sub (product second)", r[3], std::fmaf(-a, b, nc), add_rn(nc, -ab));
    report_f32("mul;add, product also kept", r[4], fused, separate);
    report_f32("  the kept product", r[5], ab, ab);
    report_f32("two adds of one product, 1st", r[6], fused, separate);
    report_f32("two adds of one product, 2nd", r[7], std::fmaf(a, b, c2), add_rn(ab, c2));
    report_f32("mul; branch; add", r[8], fused, separate);
    report_f32("mul.rn;add", r[9], fused, separate);
    report_f32("mul;add.rn", r[10], fused, separate);
    // .ftz changes nothing here (no subnormals), so the candidates are the same.
    report_f32("mul.ftz;add.ftz", r[11], fused, separate);
    report_f32("mul.ftz;add", r[12], fused, separate);
    report_f32("mul;add.sat", r[13], fused, separate);
    report_f32("mul;neg;add", r[14], std::fmaf(-a, b, nc), add_rn(-ab, nc));
    report_f32("mul;mov;add", r[15], fused, separate);
    report_f32("mul;add in separate asm statements", r[16], fused, separate);
    report_f32("mul;mul;add of both", r[17], std::fmaf(a, b, xy), add_rn(ab, xy), std::fmaf(x, y, ab));
    report_f32("mul;mul.rn;add of both", r[18], std::fmaf(a, b, xy), add_rn(ab, xy), std::fmaf(x, y, ab));
    const float acc1f = std::fmaf(a, b, -nc), acc2f = std::fmaf(a, b, add_rn(acc1f, -nc));
    const float acc1s = add_rn(-nc, ab), acc2s = add_rn(add_rn(acc1s, -nc), ab);
    report_f32("loop: sub;mul;add, twice", r[19], acc2f, acc2s);
    report_f32("predicated mul;add", r[20], fused, separate);
    report_f32("mul by an immediate;add", r[21], fused, separate);
    report_f32("mul;add of an immediate", r[22], fused, separate);
    report_f32("mul;bar.sync;add", r[23], fused, separate);
    // 24: (a*b + c) * 2, the 2 written over a multiplicand's register after the mul.
    report_f32("mul;operand redefined;add", r[24], 2.0f * fused, 2.0f * separate);
    report_f32("mul;20 adds;add", r[25], fused, separate);
    report_f32("__fadd_rn(a * b, c)", r[26], fused, separate);
    report_f32("a * b + c", r[27], fused, separate);
    CHECK(cudaFree(v));
    CHECK(cudaFree(o));
}

static void run_f64() {
    const double a = 1.0 + 0x1p-30, b = a, c = -(1.0 + 0x1p-29), nc = -c;
    const double x = -(1.0 + 0x1p-29), y = 1.0 + 0x1p-31;
    const double host_v[6] = {a, b, c, nc, x, y};
    double *v, *o;
    CHECK(cudaMalloc(&v, sizeof host_v));
    CHECK(cudaMalloc(&o, kF64Probes * sizeof(double)));
    CHECK(cudaMemcpy(v, host_v, sizeof host_v, cudaMemcpyHostToDevice));
    contract_f64<<<1, 1>>>(v, o);
    CHECK(cudaGetLastError());
    double r[kF64Probes];
    CHECK(cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost));
    const double ab = mul_rn(a, b), xy = mul_rn(x, y);
    const double fused = std::fma(a, b, c), separate = add_rn(ab, c);
    report_f64("mul;add", r[0], fused, separate);
    report_f64("mul;sub", r[1], std::fma(a, b, -nc), add_rn(ab, -nc));
    report_f64("mul;add, product also kept", r[2], fused, separate);
    report_f64("mul.rn;add", r[3], fused, separate);
    report_f64("mul;add in separate asm statements", r[4], fused, separate);
    report_f64("mul;mul;add of both", r[5], std::fma(a, b, xy), add_rn(ab, xy), std::fma(x, y, ab));
    report_f64("mul; branch; add", r[6], fused, separate);
    CHECK(cudaFree(v));
    CHECK(cudaFree(o));
}

static unsigned short h16(double d) {
    __half h = __double2half(d);
    unsigned short u;
    std::memcpy(&u, &h, 2);
    return u;
}
static unsigned short b16(double d) {
    __nv_bfloat16 h = __double2bfloat16(d);
    unsigned short u;
    std::memcpy(&u, &h, 2);
    return u;
}

static void run_f16() {
    // a = b = 1 + 2^-6: a*b = 1 + 2^-5 + 2^-12 rounds to 1 + 2^-5 in f16; c = -(1 + 2^-5).
    const double a = 1.0 + 0x1p-6, c = -(1.0 + 0x1p-5);
    const double ab = static_cast<double>(__half2float(__double2half(a * a)));
    const unsigned short host_v[4] = {h16(a), h16(a), h16(c), h16(-c)};
    // f16x2: the low halves as above, the high halves a = 1 + 2^-7, c = -(1 + 2^-6) (a*a + c = 2^-14).
    const double ah = 1.0 + 0x1p-7, ch = -(1.0 + 0x1p-6);
    const double abh = static_cast<double>(__half2float(__double2half(ah * ah)));
    const unsigned host_v2[3] = {h16(a) | unsigned(h16(ah)) << 16, h16(a) | unsigned(h16(ah)) << 16,
                                 h16(c) | unsigned(h16(ch)) << 16};
    unsigned short *v, *o;
    unsigned *v2, *o2;
    CHECK(cudaMalloc(&v, sizeof host_v));
    CHECK(cudaMalloc(&o, kF16Probes * 2));
    CHECK(cudaMalloc(&v2, sizeof host_v2));
    CHECK(cudaMalloc(&o2, 3 * 4));
    CHECK(cudaMemcpy(v, host_v, sizeof host_v, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(v2, host_v2, sizeof host_v2, cudaMemcpyHostToDevice));
    contract_f16<<<1, 1>>>(v, o, v2, o2);
    CHECK(cudaGetLastError());
    unsigned short r[kF16Probes];
    unsigned r2[3];
    CHECK(cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r2, o2, sizeof r2, cudaMemcpyDeviceToHost));
    const unsigned fused = h16(a * a + c), separate = h16(ab + c);
    report_16("f16", "mul;add", r[0], fused, separate);
    report_16("f16", "mul;sub", r[1], fused, separate);
    report_16("f16", "mul.rn;add", r[2], fused, separate);
    report_16("f16", "mul.ftz;add.ftz", r[3], fused, separate);
    report_16("f16", "mul;add in separate asm blocks", r[4], fused, separate);
    report_16("f16", "__hadd(__hmul(a, b), c)", r[5], fused, separate);
    const unsigned fused_h = h16(ah * ah + ch), separate_h = h16(abh + ch);
    const char* names[3] = {"mul;add", "mul;add in separate asm blocks", "__hadd2(__hmul2(a, b), c)"};
    for (int i = 0; i < 3; ++i) {
        std::printf("f16x2 %s:\n", names[i]);
        report_16("  low", names[i], r2[i] & 0xffff, fused, separate);
        report_16("  high", names[i], r2[i] >> 16, fused_h, separate_h);
    }
    CHECK(cudaFree(v));
    CHECK(cudaFree(o));
    CHECK(cudaFree(v2));
    CHECK(cudaFree(o2));
}

static void run_bf16() {
    // a = b = 1 + 2^-4: a*b = 1 + 2^-3 + 2^-8 rounds (to even) to 1 + 2^-3 in bf16; c = -(1 + 2^-3).
    const double a = 1.0 + 0x1p-4, c = -(1.0 + 0x1p-3);
    const double ab = static_cast<double>(__bfloat162float(__double2bfloat16(a * a)));
    const unsigned short host_v[4] = {b16(a), b16(a), b16(c), b16(-c)};
    cudaLibrary_t library;
    cudaError_t e = cudaLibraryLoadData(&library, kBf16Ptx, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) {
        print_error("bf16 PTX for sm_90 load", e);
        return;
    }
    cudaKernel_t kernel;
    CHECK(cudaLibraryGetKernel(&kernel, library, "contract_bf16"));
    unsigned short *v, *o;
    CHECK(cudaMalloc(&v, sizeof host_v));
    CHECK(cudaMalloc(&o, 12));
    CHECK(cudaMemcpy(v, host_v, sizeof host_v, cudaMemcpyHostToDevice));
    void* args[] = {&v, &o};
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0, nullptr));
    unsigned short r[6];
    CHECK(cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost));
    const unsigned fused = b16(a * a + c), separate = b16(ab + c);
    report_16("bf16", "mul;add", r[0], fused, separate);
    report_16("bf16", "mul;sub", r[1], fused, separate);
    report_16("bf16", "mul.rn;add", r[2], fused, separate);
    report_16("bf16", "x2 mul;add, low", r[4], fused, separate);
    report_16("bf16", "x2 mul;add, high", r[5], fused, separate);
    CHECK(cudaFree(v));
    CHECK(cudaFree(o));
    CHECK(cudaLibraryUnload(library));
}

int main() {
    run_f32();
    run_f64();
    run_f16();
    run_bf16();
    return finish("rt_contract");
}
