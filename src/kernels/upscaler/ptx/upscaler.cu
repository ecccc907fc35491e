// d4r open NGX core: the upscaler's CUDA kernels. Thin wrappers: the math lives in upscaler_math.h, shared
// with the CPU reference and the native CPU kernels. Compiled to upscaler.ptx by make-ptx.sh (committed).
#include "upscaler_math.h"

using namespace d4r::upscaler::math;

extern "C" __global__ void d4r_up_exposure(Params p) {
    __shared__ float partial[kExposureThreads];
    uint32_t t = threadIdx.x;
    partial[t] = exposure_partial(p, t, kExposureThreads);
    __syncthreads();
    if (t == 0) {
        float sum = 0.0f;
        for (uint32_t i = 0; i < kExposureThreads; ++i) sum = sum + partial[i];
        exposure_finish(p, sum);
    }
}

extern "C" __global__ void d4r_up_prepare(Params p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.render_w && y < p.render_h) prepare_pixel(p, static_cast<int32_t>(x), static_cast<int32_t>(y));
}

extern "C" __global__ void d4r_up_accumulate(Params p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.output_w && y < p.output_h) accumulate_pixel(p, static_cast<int32_t>(x), static_cast<int32_t>(y));
}

extern "C" __global__ void d4r_up_sharpen(Params p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.output_w && y < p.output_h) sharpen_pixel(p, static_cast<int32_t>(x), static_cast<int32_t>(y));
}
