// f64 division, reciprocal and square root in every rounding mode (exact), plus the .approx forms
// rcp.approx.ftz.f64 and rsqrt.approx.f64 (compared within the ISA bound).
// corpus-arch: sm_89
#include "common.cuh"

F64_BIN(div_rn, "div.rn.f64")
F64_BIN(div_rz, "div.rz.f64")
F64_BIN(div_rm, "div.rm.f64")
F64_BIN(div_rp, "div.rp.f64")
F64_UN(rcp_rn, "rcp.rn.f64")
F64_UN(rcp_rz, "rcp.rz.f64")
F64_UN(rcp_rm, "rcp.rm.f64")
F64_UN(rcp_rp, "rcp.rp.f64")
F64_UN(sqrt_rn, "sqrt.rn.f64")
F64_UN(sqrt_rz, "sqrt.rz.f64")
F64_UN(sqrt_rm, "sqrt.rm.f64")
F64_UN(sqrt_rp, "sqrt.rp.f64")
F64_UN(rcp_approx_ftz, "rcp.approx.ftz.f64")
F64_UN(rsqrt_approx, "rsqrt.approx.f64")

// exact: 12 per thread; rcp_a: 1 per thread; rsqrt_a: 1 per thread.
KERNEL void f64_divsqrt(const double* a, const double* b, double* exact, double* rcp_a, double* rsqrt_a) {
    unsigned i = gtid();
    double x = a[i], y = b[i];
    double* o = exact + i * 12;
    o[0] = div_rn(x, y);
    o[1] = div_rz(x, y);
    o[2] = div_rm(x, y);
    o[3] = div_rp(x, y);
    o[4] = rcp_rn(y);
    o[5] = rcp_rz(y);
    o[6] = rcp_rm(y);
    o[7] = rcp_rp(y);
    o[8] = sqrt_rn(x);
    o[9] = sqrt_rz(x);
    o[10] = sqrt_rm(x);
    o[11] = sqrt_rp(x);
    rcp_a[i] = rcp_approx_ftz(y);
    rsqrt_a[i] = rsqrt_approx(x);
}
