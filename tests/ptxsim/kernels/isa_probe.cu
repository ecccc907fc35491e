// A probe of results the PTX ISA leaves open (division by zero, NaN bit patterns, .ftz at the normal
// boundary, ...), run on the H200 to pin down ptxsim's choices; docs/ptxsim.md lists its output. Build and
// run on a machine with an NVIDIA GPU: nvcc -arch=sm_90 -O2 -o isa_probe isa_probe.cu && ./isa_probe
#include <cstdint>
#include <cstdio>
#include <cstring>

#define U32(name, asmtext, a, b)                          \
    {                                                     \
        uint32_t r;                                       \
        asm volatile(asmtext : "=r"(r) : "r"(a), "r"(b)); \
        out[n] = r;                                       \
        ++n;                                              \
    }
#define U64(name, asmtext, a, b)                          \
    {                                                     \
        uint64_t r;                                       \
        asm volatile(asmtext : "=l"(r) : "l"(a), "l"(b)); \
        out[n] = r;                                       \
        ++n;                                              \
    }
#define H16(name, asmtext, a)                     \
    {                                             \
        unsigned short r;                         \
        asm volatile(asmtext : "=h"(r) : "r"(a)); \
        out[n] = r;                               \
        ++n;                                      \
    }
#define F16IN(name, asmtext, a)                   \
    {                                             \
        uint32_t r;                               \
        asm volatile(asmtext : "=r"(r) : "h"(a)); \
        out[n] = r;                               \
        ++n;                                      \
    }
#define F64OUT(name, asmtext, a)                  \
    {                                             \
        uint64_t r;                               \
        asm volatile(asmtext : "=l"(r) : "r"(a)); \
        out[n] = r;                               \
        ++n;                                      \
    }
#define F32OUT(name, asmtext, a)                  \
    {                                             \
        uint32_t r;                               \
        asm volatile(asmtext : "=r"(r) : "l"(a)); \
        out[n] = r;                               \
        ++n;                                      \
    }

__global__ void probe(uint64_t* out, const uint32_t* in32, const uint64_t* in64) {
    int n = 0;
    uint32_t seven = in32[0], zero = in32[1], mseven = in32[2], imin = in32[3], mone = in32[4];
    uint32_t nanp = in32[5], one = in32[6], inf = in32[7], pz = in32[8], nz = in32[9], nnanp = in32[10];
    uint32_t fltmin = in32[11], almost1 = in32[12], h_nan = in32[13], h_nnan = in32[14];
    uint64_t d_nanp = in64[0], d_one = in64[1], d_zero = in64[2], d_inf = in64[3], d_mone = in64[4];
    uint64_t l7 = in64[5], lz = in64[6], lm7 = in64[7], lmin = in64[8], lmone = in64[9];
    U32("div.u32 7/0", "div.u32 %0, %1, %2;", seven, zero);
    U32("rem.u32 7%0", "rem.u32 %0, %1, %2;", seven, zero);
    U32("div.s32 7/0", "div.s32 %0, %1, %2;", seven, zero);
    U32("div.s32 -7/0", "div.s32 %0, %1, %2;", mseven, zero);
    U32("rem.s32 -7%0", "rem.s32 %0, %1, %2;", mseven, zero);
    U32("div.s32 min/-1", "div.s32 %0, %1, %2;", imin, mone);
    U32("rem.s32 min%-1", "rem.s32 %0, %1, %2;", imin, mone);
    U64("div.u64 7/0", "div.u64 %0, %1, %2;", l7, lz);
    U64("rem.u64 7%0", "rem.u64 %0, %1, %2;", l7, lz);
    U64("div.s64 7/0", "div.s64 %0, %1, %2;", l7, lz);
    U64("div.s64 -7/0", "div.s64 %0, %1, %2;", lm7, lz);
    U64("rem.s64 -7%0", "rem.s64 %0, %1, %2;", lm7, lz);
    U64("div.s64 min/-1", "div.s64 %0, %1, %2;", lmin, lmone);
    U32("add.f32 nanp+1", "add.f32 %0, %1, %2;", nanp, one);
    U32("mul.f32 0*inf", "mul.f32 %0, %1, %2;", pz, inf);
    U32("fma.rn.f32 nanp", "fma.rn.f32 %0, %1, %2, %2;", nanp, one);
    U64("add.f64 nanp+1", "add.f64 %0, %1, %2;", d_nanp, d_one);
    U64("mul.f64 0*inf", "mul.f64 %0, %1, %2;", d_zero, d_inf);
    U64("div.rn.f64 0/0", "div.rn.f64 %0, %1, %2;", d_zero, d_zero);
    U64("sqrt.rn.f64 -1", "sqrt.rn.f64 %0, %1;", d_mone, d_mone);
    U64("fma.rn.f64 nanp", "fma.rn.f64 %0, %1, %2, %2;", d_nanp, d_one);
    U32("neg.f32 nanp", "neg.f32 %0, %1;", nanp, one);
    U32("abs.f32 -nanp", "abs.f32 %0, %1;", nnanp, one);
    U64("neg.f64 nanp", "neg.f64 %0, %1;", d_nanp, d_one);
    U64("abs.f64 nanp", "abs.f64 %0, %1;", d_nanp, d_one);
    U32("min.f32 -0,+0", "min.f32 %0, %1, %2;", nz, pz);
    U32("min.f32 +0,-0", "min.f32 %0, %1, %2;", pz, nz);
    U32("max.f32 -0,+0", "max.f32 %0, %1, %2;", nz, pz);
    U32("max.f32 +0,-0", "max.f32 %0, %1, %2;", pz, nz);
    U32("min.f32 nanp,nanp", "min.f32 %0, %1, %2;", nanp, nanp);
    U32("min.NaN.f32 1,nanp", "min.NaN.f32 %0, %1, %2;", one, nanp);
    U32("max.xorsign.abs.f32 nanp,1", "max.xorsign.abs.f32 %0, %1, %2;", nanp, one);
    U64("min.f64 nanp,nanp", "min.f64 %0, %1, %2;", d_nanp, d_nanp);
    H16("cvt.rn.f16.f32 nanp", "cvt.rn.f16.f32 %0, %1;", nanp);
    H16("cvt.rn.f16.f32 -nanp", "cvt.rn.f16.f32 %0, %1;", nnanp);
    H16("cvt.rn.bf16.f32 nanp", "cvt.rn.bf16.f32 %0, %1;", nanp);
    H16("cvt.rn.relu.f16.f32 -0", "cvt.rn.relu.f16.f32 %0, %1;", nz);
    H16("cvt.rn.relu.f16.f32 -nanp", "cvt.rn.relu.f16.f32 %0, %1;", nnanp);
    H16("cvt.rn.satfinite.f16.f32 nanp", "cvt.rn.satfinite.f16.f32 %0, %1;", nanp);
    F16IN("cvt.f32.f16 7e01", "cvt.f32.f16 %0, %1;", (unsigned short)h_nan);
    F16IN("cvt.f32.f16 fd01", "cvt.f32.f16 %0, %1;", (unsigned short)h_nnan);
    F32OUT("cvt.rn.f32.f64 nanp", "cvt.rn.f32.f64 %0, %1;", d_nanp);
    F64OUT("cvt.f64.f32 nanp", "cvt.f64.f32 %0, %1;", nanp);
    U32("cvt.rni.f32.f32 nanp", "cvt.rni.f32.f32 %0, %1;", nanp, one);
    U32("cvt.sat.f32.f32 nanp", "cvt.sat.f32.f32 %0, %1;", nanp, one);
    U32("add.sat.f32 nanp", "add.sat.f32 %0, %1, %2;", nanp, one);
    U32("sqrt.approx.f32 -1", "sqrt.approx.f32 %0, %1;", 0xbf800000u, one);
    U32("sqrt.rn.f32 -1", "sqrt.rn.f32 %0, %1;", 0xbf800000u, one);
    U32("lg2.approx.f32 -1", "lg2.approx.f32 %0, %1;", 0xbf800000u, one);
    U32("ex2.approx.f32 nanp", "ex2.approx.f32 %0, %1;", nanp, one);
    U32("sin.approx.f32 inf", "sin.approx.f32 %0, %1;", inf, one);
    U32("tanh.approx.f32 nanp", "tanh.approx.f32 %0, %1;", nanp, one);
    U32("rcp.rn.f32 nanp", "rcp.rn.f32 %0, %1;", nanp, one);
    U32("mul.rn.ftz.f32 min*almost1", "mul.rn.ftz.f32 %0, %1, %2;", fltmin, almost1);
    U32("mul.rn.f32 min*almost1", "mul.rn.f32 %0, %1, %2;", fltmin, almost1);
    U32("copysign.f32 -1,nanp", "copysign.f32 %0, %1, %2;", 0xbf800000u, nanp);
    U32("div.full.f32 1/3", "div.full.f32 %0, %1, %2;", one, 0x40400000u);
    U32("div.approx.f32 1/3", "div.approx.f32 %0, %1, %2;", one, 0x40400000u);
    U32("div.approx.f32 1/big", "div.approx.f32 %0, %1, %2;", one, 0x7e800000u);
    U32("rcp.approx.f32 3", "rcp.approx.f32 %0, %1;", 0x40400000u, one);
    U32("sqrt.approx.f32 2", "sqrt.approx.f32 %0, %1;", 0x40000000u, one);
    U32("div.s16 -7/0",
        "{ .reg .b16 a, b, c; cvt.u16.u32 a, %1; cvt.u16.u32 b, %2; div.s16 c, a, b; cvt.u32.u16 %0, c; }", mseven,
        zero);
    U32("div.u16 7/0",
        "{ .reg .b16 a, b, c; cvt.u16.u32 a, %1; cvt.u16.u32 b, %2; div.u16 c, a, b; cvt.u32.u16 %0, c; }", seven,
        zero);
    out[127] = n;
}

static const char* names[] = {"div.u32 7/0",
                              "rem.u32 7%0",
                              "div.s32 7/0",
                              "div.s32 -7/0",
                              "rem.s32 -7%0",
                              "div.s32 min/-1",
                              "rem.s32 min%-1",
                              "div.u64 7/0",
                              "rem.u64 7%0",
                              "div.s64 7/0",
                              "div.s64 -7/0",
                              "rem.s64 -7%0",
                              "div.s64 min/-1",
                              "add.f32 nanp+1",
                              "mul.f32 0*inf",
                              "fma.rn.f32 nanp",
                              "add.f64 nanp+1",
                              "mul.f64 0*inf",
                              "div.rn.f64 0/0",
                              "sqrt.rn.f64 -1",
                              "fma.rn.f64 nanp",
                              "neg.f32 nanp",
                              "abs.f32 -nanp",
                              "neg.f64 nanp",
                              "abs.f64 nanp",
                              "min.f32 -0,+0",
                              "min.f32 +0,-0",
                              "max.f32 -0,+0",
                              "max.f32 +0,-0",
                              "min.f32 nanp,nanp",
                              "min.NaN.f32 1,nanp",
                              "max.xorsign.abs.f32 nanp,1",
                              "min.f64 nanp,nanp",
                              "cvt.rn.f16.f32 nanp",
                              "cvt.rn.f16.f32 -nanp",
                              "cvt.rn.bf16.f32 nanp",
                              "cvt.rn.relu.f16.f32 -0",
                              "cvt.rn.relu.f16.f32 -nanp",
                              "cvt.rn.satfinite.f16.f32 nanp",
                              "cvt.f32.f16 7e01",
                              "cvt.f32.f16 fd01",
                              "cvt.rn.f32.f64 nanp",
                              "cvt.f64.f32 nanp",
                              "cvt.rni.f32.f32 nanp",
                              "cvt.sat.f32.f32 nanp",
                              "add.sat.f32 nanp",
                              "sqrt.approx.f32 -1",
                              "sqrt.rn.f32 -1",
                              "lg2.approx.f32 -1",
                              "ex2.approx.f32 nanp",
                              "sin.approx.f32 inf",
                              "tanh.approx.f32 nanp",
                              "rcp.rn.f32 nanp",
                              "mul.rn.ftz.f32 min*almost1",
                              "mul.rn.f32 min*almost1",
                              "copysign.f32 -1,nanp",
                              "div.full.f32 1/3",
                              "div.approx.f32 1/3",
                              "div.approx.f32 1/big",
                              "rcp.approx.f32 3",
                              "sqrt.approx.f32 2",
                              "div.s16 -7/0",
                              "div.u16 7/0"};

int main() {
    uint32_t h32[16] = {7, 0,           (uint32_t)-7, 0x80000000u, 0xffffffffu, 0x7fc12345u, 0x3f800000u, 0x7f800000u,
                        0, 0x80000000u, 0xffc12345u,  0x00800000u, 0x3f7fffffu, 0x7e01,      0xfd01,      0};
    uint64_t h64[10] = {
        0x7ff8000000012345ull, 0x3ff0000000000000ull, 0,           0x7ff0000000000000ull, 0xbff0000000000000ull, 7, 0,
        (uint64_t)-7,          0x8000000000000000ull, (uint64_t)-1};
    uint64_t* d_out;
    uint32_t* d32;
    uint64_t* d64;
    cudaMalloc(&d_out, 128 * 8);
    cudaMalloc(&d32, sizeof h32);
    cudaMalloc(&d64, sizeof h64);
    cudaMemcpy(d32, h32, sizeof h32, cudaMemcpyHostToDevice);
    cudaMemcpy(d64, h64, sizeof h64, cudaMemcpyHostToDevice);
    probe<<<1, 1>>>(d_out, d32, d64);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("error %s\n", cudaGetErrorString(e));
        return 1;
    }
    uint64_t out[128];
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    int n = (int)out[127];
    for (int i = 0; i < n && i < (int)(sizeof names / sizeof names[0]); ++i)
        printf("%-34s 0x%llx\n", names[i], (unsigned long long)out[i]);
    return 0;
}
