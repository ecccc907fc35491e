// f32 add/sub/mul in every rounding mode, with and without .ftz and .sat.
// corpus-arch: sm_89
#include "common.cuh"

F32_BIN(add_rn, "add.rn.f32")
F32_BIN(add_rz, "add.rz.f32")
F32_BIN(add_rm, "add.rm.f32")
F32_BIN(add_rp, "add.rp.f32")
F32_BIN(sub_rn, "sub.rn.f32")
F32_BIN(sub_rm, "sub.rm.f32")
F32_BIN(add_rn_ftz, "add.rn.ftz.f32")
F32_BIN(add_rz_ftz, "add.rz.ftz.f32")
F32_BIN(add_rn_sat, "add.rn.sat.f32")
F32_BIN(sub_rp_ftz_sat, "sub.rp.ftz.sat.f32")
F32_BIN(mul_rn, "mul.rn.f32")
F32_BIN(mul_rz, "mul.rz.f32")
F32_BIN(mul_rm, "mul.rm.f32")
F32_BIN(mul_rp, "mul.rp.f32")
F32_BIN(mul_rn_ftz, "mul.rn.ftz.f32")
F32_BIN(mul_rm_ftz, "mul.rm.ftz.f32")
F32_BIN(mul_rn_sat, "mul.rn.sat.f32")
F32_BIN(mul_rn_ftz_sat, "mul.rn.ftz.sat.f32")

// out: 18 floats per thread.
KERNEL void f32_addmul(const float* a, const float* b, float* out) {
    unsigned i = gtid();
    float x = a[i], y = b[i];
    float* o = out + i * 18;
    o[0] = add_rn(x, y);
    o[1] = add_rz(x, y);
    o[2] = add_rm(x, y);
    o[3] = add_rp(x, y);
    o[4] = sub_rn(x, y);
    o[5] = sub_rm(x, y);
    o[6] = add_rn_ftz(x, y);
    o[7] = add_rz_ftz(x, y);
    o[8] = add_rn_sat(x, y);
    o[9] = sub_rp_ftz_sat(x, y);
    o[10] = mul_rn(x, y);
    o[11] = mul_rz(x, y);
    o[12] = mul_rm(x, y);
    o[13] = mul_rp(x, y);
    o[14] = mul_rn_ftz(x, y);
    o[15] = mul_rm_ftz(x, y);
    o[16] = mul_rn_sat(x, y);
    o[17] = mul_rn_ftz_sat(x, y);
}
