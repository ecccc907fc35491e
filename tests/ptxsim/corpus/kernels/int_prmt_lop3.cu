// Byte permute in every mode and three-input logic with a spread of lookup tables.
// corpus-arch: sm_89
#include "common.cuh"

U32_TER(prmt, "prmt.b32")
U32_TER(prmt_f4e, "prmt.b32.f4e")
U32_TER(prmt_b4e, "prmt.b32.b4e")
U32_TER(prmt_rc8, "prmt.b32.rc8")
U32_TER(prmt_ecl, "prmt.b32.ecl")
U32_TER(prmt_ecr, "prmt.b32.ecr")
U32_TER(prmt_rc16, "prmt.b32.rc16")

#define LOP3(lut) \
    __device__ __forceinline__ uint32_t lop3_##lut(uint32_t a, uint32_t b, uint32_t c) { \
        uint32_t r; asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
LOP3(0x96)
LOP3(0xE8)
LOP3(0xCA)
LOP3(0x1E)
LOP3(0x80)
LOP3(0xFE)
LOP3(0x00)
LOP3(0xFF)
LOP3(0x5A)
LOP3(0x3C)
LOP3(0x01)
LOP3(0x6B)

// out: 19 words per thread.
KERNEL void int_prmt_lop3(const uint32_t* a, const uint32_t* b, const uint32_t* sel, uint32_t* out) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b[i], vs = sel[i];
    uint32_t* o = out + i * 19;
    o[0] = prmt(va, vb, vs);
    o[1] = prmt_f4e(va, vb, vs);
    o[2] = prmt_b4e(va, vb, vs);
    o[3] = prmt_rc8(va, vb, vs);
    o[4] = prmt_ecl(va, vb, vs);
    o[5] = prmt_ecr(va, vb, vs);
    o[6] = prmt_rc16(va, vb, vs);
    o[7] = lop3_0x96(va, vb, vs);
    o[8] = lop3_0xE8(va, vb, vs);
    o[9] = lop3_0xCA(va, vb, vs);
    o[10] = lop3_0x1E(va, vb, vs);
    o[11] = lop3_0x80(va, vb, vs);
    o[12] = lop3_0xFE(va, vb, vs);
    o[13] = lop3_0x00(va, vb, vs);
    o[14] = lop3_0xFF(va, vb, vs);
    o[15] = lop3_0x5A(va, vb, vs);
    o[16] = lop3_0x3C(va, vb, vs);
    o[17] = lop3_0x01(va, vb, vs);
    o[18] = lop3_0x6B(va, vb, vs);
}
