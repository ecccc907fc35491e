// d4r refine network: a forward pass launch by launch, keeping what each launch wrote (`d4r kernels check`).
//
// Promise: trace_forward() runs plan_forward() on the CUDA library `cuda` (whatever backend and native kernel
// set its process selected) one launch at a time, synchronising after each, and returns every launch's
// output bytes (Launch::out, out_bytes). compare_traces() reports, per launch, identical bytes or how many
// f16 values differ, their ulp histogram and the PSNR against the reference trace.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "network/model_file.h"
#include "network/plan.h"
#include "upscaler/cuda_functions.h"

namespace d4r::network {

struct TraceEntry {
    std::string kernel, layer;
    std::vector<uint8_t> bytes;
};
using LayerTrace = std::vector<TraceEntry>;

// The embedded PTX: each kernel from kernel_ptx() (refine_pipeline.h), so only the modules the plan needs load.
Expected<LayerTrace> trace_forward(const upscaler::CudaFunctions& cuda, const Model& model,
                                   const std::vector<uint16_t>& rgba, uint32_t width, uint32_t height);
// The same with each kernel the model's plan launches taken from the PTX module `ptx_for(kernel)` returns
// (NUL-terminated text defining that .entry; the same text is loaded once): how the fast sm_90 kernels, compiled to
// PTX, run on ptxsim; a module's u32 globals `d4r_dynamic_shared`, `d4r_grid_x` and `d4r_block_z` are honoured as the
// override layer honours a native code object's (docs/runtime.md). OPTIONS lay the plan out (fused blocks: one
// d4r_nn_block entry per block).
using PtxForKernel = std::function<std::string_view(Kernel)>;
Expected<LayerTrace> trace_forward(const upscaler::CudaFunctions& cuda, const Model& model,
                                   const std::vector<uint16_t>& rgba, uint32_t width, uint32_t height,
                                   const PtxForKernel& ptx_for, PlanOptions options = {});

// refine-v2 after the core: the pass over the frame CORE describes (Pipeline::frame_params(); device addresses of
// the same context), writing the network's image into core.output as the pipeline does. Each kernel from PTX_FOR.
Expected<LayerTrace> trace_forward_after_core(const upscaler::CudaFunctions& cuda, const Model& model,
                                              const upscaler::math::Params& core, const PtxForKernel& ptx_for,
                                              PlanOptions options = {});

// A trace as a file (little endian: u32 count, then per entry u32 kernel length, kernel, u32 layer length,
// layer, u64 byte count, bytes).
Status write_trace(const std::filesystem::path& path, const LayerTrace& trace);
Expected<LayerTrace> read_trace(const std::filesystem::path& path);

struct LayerComparison {
    std::string kernel, layer;
    uint64_t values = 0, differ = 0;
    uint32_t max_ulp = 0;
    uint64_t ulps_1 = 0, ulps_2_3 = 0, ulps_4_15 = 0, ulps_16 = 0; // histogram of the differing values
    double psnr_db = 0; // over the whole output, peak = its largest magnitude in the reference; inf if identical
};
// PSNR (peak 1) of two RGBA16F images' RGB after tone() (refine_math.h: v / (1 + v)), i.e. as displayed; 200 when
// identical. The image's own PSNR is dominated by untone(), which magnifies a residual's error by up to
// 1 / (1 - 0.999)^2 beside the brightest pixels.
double displayed_psnr(const std::vector<uint8_t>& reference, const std::vector<uint8_t>& other);

// Entry by entry; a different length or layer name is an Invalid error.
Expected<std::vector<LayerComparison>> compare_traces(const LayerTrace& reference, const LayerTrace& other);

} // namespace d4r::network
