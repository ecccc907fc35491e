// d4r refine network, fast sm_90 kernels: what every one of them uses (f16 pairs, the f32-accumulator mma).
#pragma once

#include "kernels/refine/ptx/refine_math.h"

namespace d4r::refine::fast {

using namespace math;

__device__ __forceinline__ uint32_t pack(uint16_t lo, uint16_t hi) {
    return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
}
__device__ __forceinline__ uint32_t load_pair(const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); }
// f16(lo) | f16(hi) << 16, both rounded to nearest-even (float_to_half's rule) by one instruction.
__device__ __forceinline__ uint32_t pack_f32(float lo, float hi) {
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); // the first source goes to the upper half
    return r;
}
__device__ __forceinline__ uint16_t low(uint32_t v) { return static_cast<uint16_t>(v & 0xffffu); }
__device__ __forceinline__ uint16_t high(uint32_t v) { return static_cast<uint16_t>(v >> 16); }

// d += a * b for one m16n8k16 tile: f16 operands, f32 accumulators (A row-major 16x16, B "col" 16x8).
__device__ __forceinline__ void mma_f32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two halves from global memory through the read-only path.
__device__ __forceinline__ uint32_t ldg_pair(const uint16_t* p) {
    return __ldg(reinterpret_cast<const unsigned int*>(p));
}

// Four 8 x 8 matrices of halves from shared memory (ldmatrix .x4): lane l gives the address of row l % 8 of matrix
// l / 8 (16-byte aligned); register i receives matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const uint16_t* p) {
    const uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(at));
}

// The A fragment of a 16 x 16 tile at P in shared memory (rows 16-byte aligned): lane l gives the address of row
// l % 16, columns 8 (l / 16) ...
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const uint16_t* p) { ldmatrix_x4(a, p); }

// The B fragments of two K steps of an 8-column tile whose weights are rows in shared memory (row n holding column n's
// K values, 16-byte aligned): b0, b1 of the step at K, then of the step at K + 16, as four 8 x 8 matrices by one
// ldmatrix where they were four 32-bit loads. ROW is the thread's row (column g of the tile: lane % 8) at K plus
// 8 (lane / 8) halves.
__device__ __forceinline__ void load_b_rows(uint32_t (&b)[4], const uint16_t* row) { ldmatrix_x4(b, row); }

// Four transposed 8 x 8 matrices at P in shared memory (lane l gives the address of row l, 16-byte aligned): the
// B fragments (b0, b1 of one K step, then of the next) of a 16 x 8 tile whose K runs down 32 rows from P.
__device__ __forceinline__ void load_b_trans(uint32_t (&b)[4], const uint16_t* p) {
    const uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                 : "r"(at));
}

// cp.async (sm_80): 16 bytes from global SRC to shared DST without passing through registers, of which the first BYTES
// are read and the rest are zeros (BYTES 0: 16 zeros, SRC not read). A thread's copies are complete (and visible to
// the block after a barrier) once it has waited for them (cp_async_wait_all).
__device__ __forceinline__ void cp_async16(uint16_t* dst, const uint16_t* src, uint32_t bytes) {
    const uint32_t at = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// The GPUs the sm_90 fast set's persistent grids are sized for (d4r_grid_x: blocks an SM times this): the H100 SXM's
// and the H200's SMs. And whether BLOCKS blocks of SHARED_BYTES dynamic shared memory each fit on one of those SMs
// (228 KB an SM, 1 KB of it reserved a block).
inline constexpr uint32_t kSm90Sms = 132;
constexpr bool fits_on_sm90(uint32_t blocks, uint32_t shared_bytes) {
    return blocks * (shared_bytes + 1024) <= 228 * 1024;
}

} // namespace d4r::refine::fast
