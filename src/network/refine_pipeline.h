// d4r refine network: the forward pass on a CUDA device, driven only through the CUDA driver API.
//
// Promise: a RefinePipeline owns its modules (the refine kernels' PTX, embedded in the library: only the modules
// that define a kernel the model's plan launches, so an f16 model never loads refine_fp8.ptx), the model's
// weights and its work buffers in the caller's current CUDA context, for images up to the size it was
// created for. refine() enqueues the launches of plan_forward() on the caller's stream, refining an RGBA16F
// image in place; it never synchronises the stream. Errors are values naming the CUDA call and its result.
#pragma once

#include <memory>

#include "network/model_file.h"
#include "network/plan.h"
#include "upscaler/cuda_functions.h"

namespace d4r::network {

class RefinePipeline {
public:
    static Expected<std::unique_ptr<RefinePipeline>> create(const upscaler::CudaFunctions& cuda, const Model& model,
                                                            uint32_t max_width, uint32_t max_height);
    virtual ~RefinePipeline() = default;
    // Refines the width x height RGBA16F image at `image` (row pitch in bytes; 0 = packed) in place. CORE is the
    // upscaler's parameter block of the frame that wrote `image` (upscaler::Pipeline::frame_params()), which
    // refine-v2 needs (it reads the core's buffers: an Invalid error without it) and refine-v1 ignores.
    virtual Status refine(abi::CUdeviceptr image, size_t pitch, uint32_t width, uint32_t height, abi::CUstream stream,
                          const upscaler::math::Params* core = nullptr) = 0;
};

// The refine kernels' PTX modules, NUL-terminated in memory. Four: two, because a driver compiles a module whole and
// d4r_nn_linear_fp8 needs sm_89 (docs/network.md, "The FP8 layers"):
//  * refine_ptx(): src/kernels/refine/ptx/refine.ptx, .target sm_80: every kernel but d4r_nn_linear_fp8;
//  * refine_fp8_ptx(): refine_fp8.ptx, .target sm_89: d4r_nn_linear_fp8 alone;
// refine-v2's, whose kernels no refine-v1 model needs:
//  * refine_v2_ptx(): refine_v2.ptx, .target sm_80: refine-v2's pixel kernels (d4r_nn_pixel_features, _blend) and
//    d4r_nn_linear_wide (d4r_nn_linear for the layer shapes the native sets' linears do not take);
// and the fused plans' (plan.h, PlanOptions):
//  * refine_block_ptx(): refine_block.ptx, .target sm_80: d4r_nn_block.
// A pipeline fuses blocks when the CUDA library says d4r_nn_block runs a native kernel (libd4rcuda's
// d4rFuncIsNative: a kernel set that serves it is made for fused plans); otherwise, and over a CUDA library
// without that entry point, its plan is unfused. Either gives the same bytes; the choice is logged once.
std::string_view refine_ptx();
std::string_view refine_fp8_ptx();
std::string_view refine_v2_ptx();
std::string_view refine_block_ptx();
// The module that defines `kernel` (one of the four above): what every loader of the refine kernels asks.
std::string_view kernel_ptx(Kernel kernel);

} // namespace d4r::network
