// Integer min/max (32-bit, 64-bit, packed 16x2, .relu) and the SIMD dot products dp4a/dp2a.
// corpus-arch: sm_90
#include "common.cuh"

U32_BIN(min_u32, "min.u32")
U32_BIN(max_u32, "max.u32")
U32_BIN(min_s32, "min.s32")
U32_BIN(max_s32, "max.s32")
U32_BIN(min_relu_s32, "min.relu.s32")
U32_BIN(max_relu_s32, "max.relu.s32")
U32_BIN(min_u16x2, "min.u16x2")
U32_BIN(max_s16x2, "max.s16x2")
U32_BIN(min_relu_s16x2, "min.relu.s16x2")
U32_BIN(max_relu_s16x2, "max.relu.s16x2")
U32_TER(dp4a_uu, "dp4a.u32.u32")
U32_TER(dp4a_ss, "dp4a.s32.s32")
U32_TER(dp4a_su, "dp4a.s32.u32")
U32_TER(dp4a_us, "dp4a.u32.s32")
U32_TER(dp2a_lo_ss, "dp2a.lo.s32.s32")
U32_TER(dp2a_hi_uu, "dp2a.hi.u32.u32")
U32_TER(dp2a_lo_us, "dp2a.lo.u32.s32")
U64_BIN(min_s64, "min.s64")
U64_BIN(max_u64, "max.u64")

// out32: 17 per thread; out64: 2 per thread.
KERNEL void int_minmax(const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint64_t* x,
                       const uint64_t* y, uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b[i], vc = c[i];
    uint32_t* o = out32 + i * 17;
    o[0] = min_u32(va, vb);
    o[1] = max_u32(va, vb);
    o[2] = min_s32(va, vb);
    o[3] = max_s32(va, vb);
    o[4] = min_relu_s32(va, vb);
    o[5] = max_relu_s32(va, vb);
    o[6] = min_u16x2(va, vb);
    o[7] = max_s16x2(va, vb);
    o[8] = min_relu_s16x2(va, vb);
    o[9] = max_relu_s16x2(va, vb);
    o[10] = dp4a_uu(va, vb, vc);
    o[11] = dp4a_ss(va, vb, vc);
    o[12] = dp4a_su(va, vb, vc);
    o[13] = dp4a_us(va, vb, vc);
    o[14] = dp2a_lo_ss(va, vb, vc);
    o[15] = dp2a_hi_uu(va, vb, vc);
    o[16] = dp2a_lo_us(va, vb, vc);
    out64[i * 2 + 0] = min_s64(x[i], y[i]);
    out64[i * 2 + 1] = max_u64(x[i], y[i]);
}
