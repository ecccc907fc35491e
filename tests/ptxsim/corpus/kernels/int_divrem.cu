// Integer division and remainder, signed and unsigned, 32 and 64 bit. Divisors include 0, 1, -1
// and INT_MIN-style edges: PTX leaves division by zero machine-specific, so the goldens record what
// the hardware's division sequence returns.
// corpus-arch: sm_89
#include "common.cuh"

U32_BIN(div_u32, "div.u32")
U32_BIN(rem_u32, "rem.u32")
U32_BIN(div_s32, "div.s32")
U32_BIN(rem_s32, "rem.s32")
U64_BIN(div_u64, "div.u64")
U64_BIN(rem_u64, "rem.u64")
U64_BIN(div_s64, "div.s64")
U64_BIN(rem_s64, "rem.s64")

// out32 / out64: 8 values per thread each.
KERNEL void int_divrem(const uint32_t* a, const uint32_t* b_full, const uint32_t* b_small, const uint64_t* x,
                       const uint64_t* y_full, const uint64_t* y_small, uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b_full[i], vs = b_small[i];
    uint32_t* o = out32 + i * 8;
    o[0] = div_u32(va, vb);
    o[1] = rem_u32(va, vb);
    o[2] = div_s32(va, vb);
    o[3] = rem_s32(va, vb);
    o[4] = div_u32(va, vs);
    o[5] = rem_u32(va, vs);
    o[6] = div_s32(va, vs);
    o[7] = rem_s32(va, vs);
    uint64_t vx = x[i], vy = y_full[i], vz = y_small[i];
    uint64_t* p = out64 + i * 8;
    p[0] = div_u64(vx, vy);
    p[1] = rem_u64(vx, vy);
    p[2] = div_s64(vx, vy);
    p[3] = rem_s64(vx, vy);
    p[4] = div_u64(vx, vz);
    p[5] = rem_u64(vx, vz);
    p[6] = div_s64(vx, vz);
    p[7] = rem_s64(vx, vz);
}
