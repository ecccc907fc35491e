// Dynamic shared memory (extern __shared__) sized at launch, read through %dynamic_smem_size, viewed
// as f32 and as u16, with a 2D block. Launch with 4096 bytes of dynamic shared memory and a (16,8)
// block; each block consumes 1024 floats of input.
// corpus-arch: sm_89
#include "common.cuh"

// a: 1024 floats per block. out: 4 words per thread.
KERNEL void smem_dynamic(const float* a, uint32_t* out) {
    extern __shared__ float dyn[];
    unsigned n = blockDim.x * blockDim.y;
    unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    unsigned cap = bytes / 4;
    for (unsigned k = t; k < cap; k += n) dyn[k] = a[blockIdx.x * cap + k];
    __syncthreads();
    float s = 0.0f;
    for (unsigned k = t; k < cap; k += n) s = s + dyn[cap - 1 - k];
    const uint16_t* h = reinterpret_cast<const uint16_t*>(dyn);
    uint32_t hv = h[(t * 7u + 3u) % (cap * 2)];
    __syncthreads();
    dyn[t] = s;
    __syncthreads();
    uint32_t* o = out + (blockIdx.x * n + t) * 4;
    o[0] = bytes;
    o[1] = f2u(s);
    o[2] = hv;
    o[3] = f2u(dyn[(t + 1) % n]);
}
