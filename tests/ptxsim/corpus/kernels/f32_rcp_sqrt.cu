// f32 reciprocal and square root: IEEE forms in every rounding mode (exact), and the .approx
// forms (rcp, sqrt, rsqrt; separate buffers compared within the ISA bound).
// corpus-arch: sm_89
#include "common.cuh"

F32_UN(rcp_rn, "rcp.rn.f32")
F32_UN(rcp_rz, "rcp.rz.f32")
F32_UN(rcp_rm, "rcp.rm.f32")
F32_UN(rcp_rp, "rcp.rp.f32")
F32_UN(rcp_rn_ftz, "rcp.rn.ftz.f32")
F32_UN(sqrt_rn, "sqrt.rn.f32")
F32_UN(sqrt_rz, "sqrt.rz.f32")
F32_UN(sqrt_rm, "sqrt.rm.f32")
F32_UN(sqrt_rp, "sqrt.rp.f32")
F32_UN(sqrt_rn_ftz, "sqrt.rn.ftz.f32")
F32_UN(rcp_approx, "rcp.approx.f32")
F32_UN(rcp_approx_ftz, "rcp.approx.ftz.f32")
F32_UN(sqrt_approx, "sqrt.approx.f32")
F32_UN(sqrt_approx_ftz, "sqrt.approx.ftz.f32")
F32_UN(rsqrt_approx, "rsqrt.approx.f32")
F32_UN(rsqrt_approx_ftz, "rsqrt.approx.ftz.f32")

// exact: 10 per thread; rcp_a, sqrt_a, rsqrt_a: 2 per thread each (plain, .ftz).
KERNEL void f32_rcp_sqrt(const float* a, float* exact, float* rcp_a, float* sqrt_a, float* rsqrt_a) {
    unsigned i = gtid();
    float x = a[i];
    float* o = exact + i * 10;
    o[0] = rcp_rn(x);
    o[1] = rcp_rz(x);
    o[2] = rcp_rm(x);
    o[3] = rcp_rp(x);
    o[4] = rcp_rn_ftz(x);
    o[5] = sqrt_rn(x);
    o[6] = sqrt_rz(x);
    o[7] = sqrt_rm(x);
    o[8] = sqrt_rp(x);
    o[9] = sqrt_rn_ftz(x);
    rcp_a[i * 2 + 0] = rcp_approx(x);
    rcp_a[i * 2 + 1] = rcp_approx_ftz(x);
    sqrt_a[i * 2 + 0] = sqrt_approx(x);
    sqrt_a[i * 2 + 1] = sqrt_approx_ftz(x);
    rsqrt_a[i * 2 + 0] = rsqrt_approx(x);
    rsqrt_a[i * 2 + 1] = rsqrt_approx_ftz(x);
}
