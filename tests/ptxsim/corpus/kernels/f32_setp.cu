// f32 comparisons: every setp operator, ordered and unordered, .ftz, predicate combining (.and/.or
// with a second predicate), set (u32 and f32 results) and selp.
// corpus-arch: sm_89
#include "common.cuh"

SETP_F32(s_eq, "setp.eq.f32")
SETP_F32(s_ne, "setp.ne.f32")
SETP_F32(s_lt, "setp.lt.f32")
SETP_F32(s_le, "setp.le.f32")
SETP_F32(s_gt, "setp.gt.f32")
SETP_F32(s_ge, "setp.ge.f32")
SETP_F32(s_equ, "setp.equ.f32")
SETP_F32(s_neu, "setp.neu.f32")
SETP_F32(s_ltu, "setp.ltu.f32")
SETP_F32(s_leu, "setp.leu.f32")
SETP_F32(s_gtu, "setp.gtu.f32")
SETP_F32(s_geu, "setp.geu.f32")
SETP_F32(s_num, "setp.num.f32")
SETP_F32(s_nan, "setp.nan.f32")
SETP_F32(s_eq_ftz, "setp.eq.ftz.f32")
SETP_F32(s_lt_ftz, "setp.lt.ftz.f32")
SETP_F32(s_geu_ftz, "setp.geu.ftz.f32")

// out: 5 words per thread: predicate bit mask, set.ltu.u32, set.ge.f32, selp by setp.and/or.
KERNEL void f32_setp(const float* a, const float* b, uint32_t* out) {
    unsigned i = gtid();
    float x = a[i], y = b[i];
    uint32_t* o = out + i * 5;
    o[0] = s_eq(x, y) | s_ne(x, y) << 1 | s_lt(x, y) << 2 | s_le(x, y) << 3 | s_gt(x, y) << 4 |
           s_ge(x, y) << 5 | s_equ(x, y) << 6 | s_neu(x, y) << 7 | s_ltu(x, y) << 8 | s_leu(x, y) << 9 |
           s_gtu(x, y) << 10 | s_geu(x, y) << 11 | s_num(x, y) << 12 | s_nan(x, y) << 13 |
           s_eq_ftz(x, y) << 14 | s_lt_ftz(x, y) << 15 | s_geu_ftz(x, y) << 16;
    uint32_t r;
    asm("set.ltu.u32.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(y));
    o[1] = r;
    float f;
    asm("set.ge.ftz.f32.f32 %0, %1, %2;" : "=f"(f) : "f"(x), "f"(y));
    o[2] = f2u(f);
    asm("{ .reg .pred p, q;\n\t"
        "setp.gt.f32 p, %1, 0f00000000;\n\t"
        "setp.lt.and.f32 q, %1, %2, p;\n\t"
        "selp.b32 %0, %1, %2, q; }"
        : "=r"(r) : "f"(x), "f"(y));
    o[3] = r;
    asm("{ .reg .pred p, q, n;\n\t"
        "setp.nan.f32 n, %2, %2;\n\t"
        "setp.ge.or.f32 p|q, %1, %2, n;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t"
        "@q add.u32 %0, %0, 2; }"
        : "=r"(r) : "f"(x), "f"(y));
    o[4] = r;
}
