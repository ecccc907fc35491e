// f32 min/max NaN and signed-zero rules (.ftz, .NaN, .xorsign.abs), abs/neg/copysign, testp.
// corpus-arch: sm_89
#include "common.cuh"

F32_BIN(min_f, "min.f32")
F32_BIN(max_f, "max.f32")
F32_BIN(min_ftz, "min.ftz.f32")
F32_BIN(max_ftz, "max.ftz.f32")
F32_BIN(min_nan, "min.NaN.f32")
F32_BIN(max_nan, "max.NaN.f32")
F32_BIN(min_xorsign, "min.xorsign.abs.f32")
F32_BIN(max_xorsign, "max.xorsign.abs.f32")
F32_BIN(copysign_f, "copysign.f32")
F32_UN(abs_f, "abs.f32")
F32_UN(neg_f, "neg.f32")
F32_UN(abs_ftz, "abs.ftz.f32")
F32_UN(neg_ftz, "neg.ftz.f32")
TESTP_F32(testp_finite, "testp.finite.f32")
TESTP_F32(testp_infinite, "testp.infinite.f32")
TESTP_F32(testp_number, "testp.number.f32")
TESTP_F32(testp_notanumber, "testp.notanumber.f32")
TESTP_F32(testp_normal, "testp.normal.f32")
TESTP_F32(testp_subnormal, "testp.subnormal.f32")

// out: 14 words per thread (13 results and a testp bit mask).
KERNEL void f32_minmax(const float* a, const float* b, uint32_t* out) {
    unsigned i = gtid();
    float x = a[i], y = b[i];
    uint32_t* o = out + i * 14;
    o[0] = f2u(min_f(x, y));
    o[1] = f2u(max_f(x, y));
    o[2] = f2u(min_ftz(x, y));
    o[3] = f2u(max_ftz(x, y));
    o[4] = f2u(min_nan(x, y));
    o[5] = f2u(max_nan(x, y));
    o[6] = f2u(min_xorsign(x, y));
    o[7] = f2u(max_xorsign(x, y));
    o[8] = f2u(copysign_f(x, y));
    o[9] = f2u(abs_f(x));
    o[10] = f2u(neg_f(x));
    o[11] = f2u(abs_ftz(x));
    o[12] = f2u(neg_ftz(x));
    o[13] = testp_finite(x) | testp_infinite(x) << 1 | testp_number(x) << 2 | testp_notanumber(x) << 3 |
            testp_normal(x) << 4 | testp_subnormal(x) << 5;
}
