// f32 division: IEEE div in every rounding mode (exact outputs) and div.approx / div.full, whose
// results the ISA bounds rather than fixes (separate output buffers, compared within the bound).
// corpus-arch: sm_89
#include "common.cuh"

F32_BIN(div_rn, "div.rn.f32")
F32_BIN(div_rz, "div.rz.f32")
F32_BIN(div_rm, "div.rm.f32")
F32_BIN(div_rp, "div.rp.f32")
F32_BIN(div_rn_ftz, "div.rn.ftz.f32")
F32_BIN(div_rp_ftz, "div.rp.ftz.f32")
F32_BIN(div_approx, "div.approx.f32")
F32_BIN(div_approx_ftz, "div.approx.ftz.f32")
F32_BIN(div_full, "div.full.f32")
F32_BIN(div_full_ftz, "div.full.ftz.f32")

// exact: 6 per thread; approx: 2 per thread (div.approx, div.approx.ftz); full: 2 per thread.
KERNEL void f32_div(const float* a, const float* b, float* exact, float* approx, float* full) {
    unsigned i = gtid();
    float x = a[i], y = b[i];
    float* o = exact + i * 6;
    o[0] = div_rn(x, y);
    o[1] = div_rz(x, y);
    o[2] = div_rm(x, y);
    o[3] = div_rp(x, y);
    o[4] = div_rn_ftz(x, y);
    o[5] = div_rp_ftz(x, y);
    approx[i * 2 + 0] = div_approx(x, y);
    approx[i * 2 + 1] = div_approx_ftz(x, y);
    full[i * 2 + 0] = div_full(x, y);
    full[i * 2 + 1] = div_full_ftz(x, y);
}
