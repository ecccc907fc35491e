// f32 fused multiply-add in every rounding mode, .ftz and .sat, and the mad.rn spelling.
// corpus-arch: sm_89
#include "common.cuh"

F32_TER(fma_rn, "fma.rn.f32")
F32_TER(fma_rz, "fma.rz.f32")
F32_TER(fma_rm, "fma.rm.f32")
F32_TER(fma_rp, "fma.rp.f32")
F32_TER(fma_rn_ftz, "fma.rn.ftz.f32")
F32_TER(fma_rz_ftz, "fma.rz.ftz.f32")
F32_TER(fma_rn_sat, "fma.rn.sat.f32")
F32_TER(fma_rn_ftz_sat, "fma.rn.ftz.sat.f32")
F32_TER(mad_rn, "mad.rn.f32")
F32_TER(mad_rp_ftz, "mad.rp.ftz.f32")

// out: 10 floats per thread.
KERNEL void f32_fma(const float* a, const float* b, const float* c, float* out) {
    unsigned i = gtid();
    float x = a[i], y = b[i], z = c[i];
    float* o = out + i * 10;
    o[0] = fma_rn(x, y, z);
    o[1] = fma_rz(x, y, z);
    o[2] = fma_rm(x, y, z);
    o[3] = fma_rp(x, y, z);
    o[4] = fma_rn_ftz(x, y, z);
    o[5] = fma_rz_ftz(x, y, z);
    o[6] = fma_rn_sat(x, y, z);
    o[7] = fma_rn_ftz_sat(x, y, z);
    o[8] = mad_rn(x, y, z);
    o[9] = mad_rp_ftz(x, y, z);
}
