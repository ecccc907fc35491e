// Integer add/sub family: wrap-around, saturation, carry chains, abs/neg, sad.
// corpus-arch: sm_89
#include "common.cuh"

U32_BIN(add_sat_s32, "add.sat.s32")
U32_BIN(sub_sat_s32, "sub.sat.s32")
U32_UN(abs_s32, "abs.s32")
U32_UN(neg_s32, "neg.s32")
U32_TER(sad_u32, "sad.u32")
U32_TER(sad_s32, "sad.s32")
U64_UN(abs_s64, "abs.s64")

// out32: 12 words per thread; out64: 4 words per thread.
KERNEL void int_addsub(const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint64_t* x,
                       const uint64_t* y, uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b[i], vc = c[i];
    uint32_t* o = out32 + i * 12;
    o[0] = va + vb;
    o[1] = va - vb;
    o[2] = add_sat_s32(va, vb);
    o[3] = sub_sat_s32(va, vb);
    o[4] = abs_s32(va);
    o[5] = neg_s32(va);
    o[6] = sad_u32(va, vb, vc);
    o[7] = sad_s32(va, vb, vc);
    // 96-bit add and subtract through the carry flag.
    uint32_t r0, r1, r2;
    asm("add.cc.u32 %0, %3, %4;\n\taddc.cc.u32 %1, %5, %6;\n\taddc.u32 %2, %7, %8;"
        : "=r"(r0), "=r"(r1), "=r"(r2) : "r"(va), "r"(vb), "r"(vb), "r"(vc), "r"(vc), "r"(va));
    o[8] = r0 ^ r1;
    o[9] = r2;
    asm("sub.cc.u32 %0, %3, %4;\n\tsubc.cc.u32 %1, %5, %6;\n\tsubc.u32 %2, %7, %8;"
        : "=r"(r0), "=r"(r1), "=r"(r2) : "r"(va), "r"(vb), "r"(vb), "r"(vc), "r"(vc), "r"(va));
    o[10] = r0 ^ r1;
    o[11] = r2;

    uint64_t vx = x[i], vy = y[i];
    uint64_t* p = out64 + i * 4;
    p[0] = vx + vy;
    p[1] = vx - vy;
    p[2] = abs_s64(vx);
    uint64_t q0, q1;
    asm("add.cc.u64 %0, %2, %3;\n\taddc.u64 %1, %3, %2;" : "=l"(q0), "=l"(q1) : "l"(vx), "l"(vy));
    p[3] = q1 ^ q0;
}
