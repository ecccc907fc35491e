// d4r-rj-run self-test probes for gfx12 (RDNA4, wave32): f16 and fp8 WMMA, the K order of the A/B operands,
// plus the common probes.
#include "probes_common.h"

typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef int int2v __attribute__((ext_vector_type(2)));

// Where lane half h (lane / 16) keeps K for operand slot i (0..7), in two conventions:
//   0 (rocjitsu's wmma_input_loc): lanes 0-15 hold K 0..7, lanes 16-31 K 8..15;
//   1 (AMD's matrix instruction calculator): lane m holds K 0-3 and 8-11, lane m+16 K 4-7 and 12-15.
DEVICE static inline int k_of(int convention, int h, int i) {
    return convention == 0 ? h * 8 + i : (i < 4 ? 4 * h + i : 8 + 4 * h + (i - 4));
}

// D = A * B + C, A built in convention ca and B in convention cb. D: lane half h holds rows 8h + j of
// column lane % 16 in c[j] (the same in both conventions).
KERNEL void wmma_f32_f16(const _Float16* A, const _Float16* B, const float* C, float* D, int ca, int cb) {
    const u32 lane = __builtin_amdgcn_workitem_id_x();
    const int r = lane % 16, h = lane / 16;
    half8 a, b;
    for (int i = 0; i < 8; ++i) {
        a[i] = A[r * 16 + k_of(ca, h, i)];
        b[i] = B[k_of(cb, h, i) * 16 + r];
    }
    float8 c;
    for (int j = 0; j < 8; ++j) c[j] = C[(h * 8 + j) * 16 + r];
    c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c);
    for (int j = 0; j < 8; ++j) D[(h * 8 + j) * 16 + r] = c[j];
}

// The same with OCP E4M3 (gfx12 "fp8") operands, convention 0.
KERNEL void wmma_f32_fp8(const unsigned char* A, const unsigned char* B, const float* C, float* D) {
    const u32 lane = __builtin_amdgcn_workitem_id_x();
    const int r = lane % 16, h = lane / 16;
    unsigned char a[8], b[8];
    for (int i = 0; i < 8; ++i) {
        a[i] = A[r * 16 + h * 8 + i];
        b[i] = B[(h * 8 + i) * 16 + r];
    }
    int2v av, bv;
    __builtin_memcpy(&av, a, 8);
    __builtin_memcpy(&bv, b, 8);
    float8 c;
    for (int j = 0; j < 8; ++j) c[j] = C[(h * 8 + j) * 16 + r];
    c = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(av, bv, c);
    for (int j = 0; j < 8; ++j) D[(h * 8 + j) * 16 + r] = c[j];
}

// Raw register images: slot i of lane l is Ar[8l + i] (Br the same), C = 0. With sequential f32 accumulation in
// K, the order in which the emulator visits the slots shows which K each slot is (the self-test's K-order probe).
KERNEL void wmma_regs(const _Float16* Ar, const _Float16* Br, float* D) {
    const u32 lane = __builtin_amdgcn_workitem_id_x();
    const int r = lane % 16, h = lane / 16;
    half8 a, b;
    for (int i = 0; i < 8; ++i) {
        a[i] = Ar[lane * 8 + i];
        b[i] = Br[lane * 8 + i];
    }
    float8 c = {};
    c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c);
    for (int j = 0; j < 8; ++j) D[(h * 8 + j) * 16 + r] = c[j];
}
