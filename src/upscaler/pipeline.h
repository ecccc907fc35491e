// d4r open NGX core: the upscaling pipeline on a CUDA device, driven only through the CUDA driver API.
//
// Promise: a Pipeline owns its module (the upscaler's PTX, embedded in the library), its history
// and scratch buffers in one CUDA context, and launches the upscaler's kernels for one frame per
// evaluate() on the caller's stream. It never synchronises the stream itself and never touches the
// caller's buffers other than reading the inputs and writing the output. All errors come back as
// values naming the CUDA call and its CUresult. The same algorithm exists on the host
// (reference.h) and as native CPU kernels (src/kernels/upscaler/cpu); the three agree within the tolerances
// their tests state.
//
// Buffer conventions (the canonical formats the NGX shim converts every accepted format to), all linear
// device memory, rows tightly packed unless a pitch is given (pitch 0 = width * bytes per pixel):
//   colour   RGBA16F, render resolution, linear (HDR when Flags.IsHDR, else [0,1] LDR)
//   depth    R32F, render resolution; 0 = near, 1 = far (or the reverse with DepthInverted)
//   motion   RG16F, render resolution (MVLowRes) or output resolution; in pixels of that resolution
//            after multiplying by mv_scale; points from the pixel's position in this frame to the
//            same surface point's position in the previous frame (prev = current + mv)
//   exposure R32F, one texel, or 0 (then exposure_scale / auto exposure apply)
//   output   RGBA16F, output resolution
// Jitter: render pixel (x, y) holds the scene sampled at render-pixel coordinates
// (x + 0.5 + jitter_x, y + 0.5 + jitter_y), jitter in [-0.5, 0.5].
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "abi/cuda.h"
#include "core/status.h"
#include "upscaler/cuda_functions.h"

namespace d4r::upscaler {

namespace math {
struct Params;
}

using abi::CUdeviceptr;
using abi::CUstream;

// Fixed at creation (DLSS's create parameters).
struct PipelineConfig {
    uint32_t render_width = 0; // the largest render size evaluate() will see
    uint32_t render_height = 0;
    uint32_t output_width = 0;
    uint32_t output_height = 0;
    bool hdr = false;            // Flags.IsHDR
    bool mv_low_res = true;      // Flags.MVLowRes: motion vectors at render resolution
    bool mv_jittered = false;    // Flags.MVJittered: motion vectors include the jitter difference
    bool depth_inverted = false; // Flags.DepthInverted
    bool sharpening = false;     // Flags.DoSharpening
    bool auto_exposure = false;  // Flags.AutoExposure
    // d4r_up_accumulate also stores each output pixel's accumulate terms (math::Params::terms: 32 bytes a pixel of
    // output size more memory) and d4r_up_prepare each render pixel's geometry (math::Params::geometry: 16 bytes a
    // pixel of render size), which refine-v2's pixel kernels then read instead of computing them again.
    bool keep_network_inputs = false;
};

struct Subrect {
    uint32_t x = 0, y = 0;
};

// Per evaluation (DLSS's evaluate parameters).
struct FrameParams {
    CUdeviceptr color = 0, depth = 0, motion = 0, exposure = 0, output = 0;
    size_t color_pitch = 0, depth_pitch = 0, motion_pitch = 0, output_pitch = 0; // bytes; 0 = packed
    uint32_t render_width = 0, render_height = 0;             // this frame's render size (subrect dimensions)
    Subrect color_base, depth_base, motion_base, output_base; // DLSS.Input.*.Subrect.Base, Output
    float jitter_x = 0, jitter_y = 0;                         // Jitter.Offset.X/Y, render pixels
    float mv_scale_x = 1, mv_scale_y = 1;                     // MV.Scale.X/Y
    float pre_exposure = 1;                                   // DLSS.Pre.Exposure (colour was multiplied by it)
    float exposure_scale = 1;                                 // DLSS.Exposure.Scale
    float sharpness = 0;                                      // Sharpness, [-1, 1]; used when config.sharpening
    bool reset = false;                                       // Reset: drop the history
};

class Pipeline {
public:
    // Loads the module into the current context of `cuda` and allocates history at output size.
    // REPLACEMENT_PTX (NUL-terminated when not empty) is a second PTX module whose kernels take the place of the
    // embedded module's kernels of the same names (tests: a native set's fast kernel compiled to PTX, run on
    // ptxsim against the PTX path; the kernels of a replacement must keep the PTX's parameter block).
    static Expected<std::unique_ptr<Pipeline>> create(const CudaFunctions& cuda, const PipelineConfig& config,
                                                      std::string_view replacement_ptx = {});
    virtual ~Pipeline() = default;
    // Enqueues one frame on `stream`. Invalid params (sizes beyond the config, null required
    // buffers) give Invalid without launching anything.
    virtual Status evaluate(const FrameParams& frame, CUstream stream) = 0;
    virtual const PipelineConfig& config() const = 0;
    // The kernels' parameter block of the last evaluate() (its buffers: the frame's prepared inputs, the history
    // it read and the one it wrote, the output), or nullptr before the first: what refine-v2 reads after the core.
    virtual const math::Params* frame_params() const = 0;
};

} // namespace d4r::upscaler
