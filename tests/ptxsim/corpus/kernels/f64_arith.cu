// f64 add/sub/mul/fma in every rounding mode, min/max, abs/neg and comparisons.
// corpus-arch: sm_89
#include "common.cuh"

F64_BIN(add_rn, "add.rn.f64")
F64_BIN(add_rz, "add.rz.f64")
F64_BIN(add_rm, "add.rm.f64")
F64_BIN(add_rp, "add.rp.f64")
F64_BIN(sub_rn, "sub.rn.f64")
F64_BIN(mul_rn, "mul.rn.f64")
F64_BIN(mul_rz, "mul.rz.f64")
F64_BIN(mul_rm, "mul.rm.f64")
F64_BIN(mul_rp, "mul.rp.f64")
F64_TER(fma_rn, "fma.rn.f64")
F64_TER(fma_rz, "fma.rz.f64")
F64_TER(fma_rm, "fma.rm.f64")
F64_TER(fma_rp, "fma.rp.f64")
F64_BIN(min_d, "min.f64")
F64_BIN(max_d, "max.f64")
F64_UN(abs_d, "abs.f64")
F64_UN(neg_d, "neg.f64")
SETP_F64(s_lt, "setp.lt.f64")
SETP_F64(s_equ, "setp.equ.f64")
SETP_F64(s_ge, "setp.ge.f64")
SETP_F64(s_neu, "setp.neu.f64")
SETP_F64(s_nan, "setp.nan.f64")
TESTP_F64(t_normal, "testp.normal.f64")
TESTP_F64(t_subnormal, "testp.subnormal.f64")

// out: 18 doubles per thread (17 results and a predicate bit mask as an integer).
KERNEL void f64_arith(const double* a, const double* b, const double* c, uint64_t* out) {
    unsigned i = gtid();
    double x = a[i], y = b[i], z = c[i];
    uint64_t* o = out + i * 18;
    o[0] = __double_as_longlong(add_rn(x, y));
    o[1] = __double_as_longlong(add_rz(x, y));
    o[2] = __double_as_longlong(add_rm(x, y));
    o[3] = __double_as_longlong(add_rp(x, y));
    o[4] = __double_as_longlong(sub_rn(x, y));
    o[5] = __double_as_longlong(mul_rn(x, y));
    o[6] = __double_as_longlong(mul_rz(x, y));
    o[7] = __double_as_longlong(mul_rm(x, y));
    o[8] = __double_as_longlong(mul_rp(x, y));
    o[9] = __double_as_longlong(fma_rn(x, y, z));
    o[10] = __double_as_longlong(fma_rz(x, y, z));
    o[11] = __double_as_longlong(fma_rm(x, y, z));
    o[12] = __double_as_longlong(fma_rp(x, y, z));
    o[13] = __double_as_longlong(min_d(x, y));
    o[14] = __double_as_longlong(max_d(x, y));
    o[15] = __double_as_longlong(abs_d(x));
    o[16] = __double_as_longlong(neg_d(x));
    o[17] = s_lt(x, y) | s_equ(x, y) << 1 | s_ge(x, y) << 2 | s_neu(x, y) << 3 | s_nan(x, y) << 4 |
            t_normal(x) << 5 | t_subnormal(x) << 6;
}
