// Deterministic special registers in a 3D grid of 3D blocks whose size is not a multiple of 32:
// %tid, %ntid, %ctaid, %nctaid, %laneid, %lanemask_*, %dynamic_smem_size.
// Launch: grid (3,2,2), block (10,3,2) = 60 threads (a full and a partial warp), 256 dynamic bytes.
// corpus-arch: sm_89
#include "common.cuh"

#define SREG(name, reg) \
    __device__ __forceinline__ uint32_t name() { uint32_t r; asm volatile("mov.u32 %0, " reg ";" : "=r"(r)); return r; }
SREG(lanemask_eq, "%%lanemask_eq")
SREG(lanemask_le, "%%lanemask_le")
SREG(lanemask_lt, "%%lanemask_lt")
SREG(lanemask_ge, "%%lanemask_ge")
SREG(lanemask_gt, "%%lanemask_gt")
SREG(dyn_smem, "%%dynamic_smem_size")

// out: 20 words per thread, in linear thread order.
KERNEL void special_regs(uint32_t* out) {
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned nthr = blockDim.x * blockDim.y * blockDim.z;
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    uint32_t* o = out + (block * nthr + t) * 20;
    o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
    o[3] = blockDim.x; o[4] = blockDim.y; o[5] = blockDim.z;
    o[6] = blockIdx.x; o[7] = blockIdx.y; o[8] = blockIdx.z;
    o[9] = gridDim.x; o[10] = gridDim.y; o[11] = gridDim.z;
    o[12] = lane_id();
    o[13] = lanemask_eq(); o[14] = lanemask_le(); o[15] = lanemask_lt();
    o[16] = lanemask_ge(); o[17] = lanemask_gt();
    o[18] = dyn_smem();
    o[19] = __activemask();
}
