// d4r refine network (docs/network.md): its CUDA kernels. The scalar math lives in refine_math.h (shared with
// the C++ reference and the CPU kernels); the matrix products are mma.sync.m16n8k16 with f16 operands and an
// f16 accumulator, chained over K in steps of 16. Compiled to refine.ptx by make-ptx.sh (committed) for sm_80: the
// FP8 linear needs sm_89 and lives in a module of its own (refine_fp8.cu), so this one still loads on A100 and RTX 30.
#include "attention_mma.cuh"

using namespace d4r::refine::math;

extern "C" __global__ void d4r_nn_patchify(PatchParams p) {
    uint32_t token = blockIdx.x * blockDim.x + threadIdx.x;
    if (token < p.grid_w * p.grid_h) patchify_token(p, token);
}

extern "C" __global__ void d4r_nn_unpatchify(PatchParams p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.width && y < p.height) unpatchify_pixel(p, x, y);
}

extern "C" __global__ void d4r_nn_layernorm(NormParams p) {
    uint32_t token = blockIdx.x * blockDim.x + threadIdx.x;
    if (token >= p.tokens) return;
    uint64_t at = static_cast<uint64_t>(token) * p.channels;
    layernorm_token(reinterpret_cast<const uint16_t*>(p.in) + at, reinterpret_cast<const uint16_t*>(p.gamma),
                    reinterpret_cast<const uint16_t*>(p.beta), reinterpret_cast<uint16_t*>(p.out) + at, p.channels);
}

extern "C" __global__ void d4r_nn_merge(RegroupParams p) {
    uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < p.grid_w * p.grid_h * p.channels) merge_element(p, index);
}

extern "C" __global__ void d4r_nn_expand(RegroupParams p) {
    uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < p.grid_w * p.grid_h * p.channels) expand_element(p, index);
}

// One warp per 16 tokens, every output column (linear_mma.cuh).
extern "C" __global__ void d4r_nn_linear(LinearParams p) { linear_warp(p); }

// One warp per (window, head) (attention_mma.cuh).
extern "C" __global__ void d4r_nn_attention(AttnParams p) {
    __shared__ uint16_t sp[kWindowTokens * kWindowTokens];
    __shared__ uint32_t tokens[kWindowTokens];
    attention_window(p, blockIdx.x, blockIdx.y, threadIdx.x, sp, tokens);
}
