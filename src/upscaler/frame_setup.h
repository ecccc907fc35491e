// d4r open NGX core: turning one frame's DLSS parameters into the upscaler kernels' parameter block and
// launch plan. Shared by the Pipeline (device memory) and the ReferenceUpscaler (host memory), so both
// validate identically and hand the kernels identical bytes.
//
// Promise: validate_frame() rejects (Invalid, naming the field) everything the kernels cannot handle
// before anything runs; make_params() is a pure function of its inputs; advance() is the only place the
// per-sequence state changes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "kernels/upscaler/ptx/upscaler_math.h"
#include "upscaler/host_kernels.h"
#include "upscaler/pipeline.h"

namespace d4r::upscaler {

// The bytes of one of the game's buffers the kernels touch for a frame: [start, start + bytes).
struct BufferExtent {
    const char* name = "";
    uint64_t start = 0;
    uint64_t bytes = 0;
};

// Every caller buffer a frame reads or writes (colour, depth, motion vectors, output, and the exposure
// texture when one is given), with its subrect base, pitch and rows applied. Call after validate_frame().
std::vector<BufferExtent> buffer_extents(const PipelineConfig& c, const FrameParams& f);

// What survives from one frame to the next.
struct SequenceState {
    bool has_history = false; // a frame was evaluated since creation
    uint32_t prev_render_w = 0, prev_render_h = 0;
    float prev_jitter_x = 0, prev_jitter_y = 0;
    uint32_t parity = 0; // which of the ping-pong buffers this frame writes
};

// The upscaler's own buffers (device or host addresses), sized by buffer_layout().
struct WorkBuffers {
    uint64_t prep_color = 0;           // float4, config render size
    std::array<uint64_t, 2> motion{};  // float4, config render size (ping-pong)
    std::array<uint64_t, 2> history{}; // float4, output size (ping-pong)
    uint64_t exposure = 0;             // float
    uint64_t terms = 0;    // math::kTermHalves halves, output size (PipelineConfig::keep_network_inputs), or 0
    uint64_t geometry = 0; // float4, config render size (PipelineConfig::keep_network_inputs), or 0
};

// Offsets of each buffer inside one allocation of `total` bytes (256-byte aligned).
struct BufferLayout {
    uint64_t prep_color = 0, motion0 = 0, motion1 = 0, history0 = 0, history1 = 0, exposure = 0, terms = 0,
             geometry = 0, total = 0;
};
BufferLayout buffer_layout(const PipelineConfig& config);
WorkBuffers work_buffers_at(uint64_t base, const BufferLayout& layout);

// Config sanity (sizes non-zero, output at least the render size in neither dimension smaller than 1).
Status validate_config(const PipelineConfig& config);
// Invalid naming the first bad field. Pitches: 0 means rows of max(config width, base.x + width)
// pixels of the buffer's format (the resource is at least the configured size).
Status validate_frame(const PipelineConfig& config, const FrameParams& frame);

math::Params make_params(const PipelineConfig& config, const FrameParams& frame, const SequenceState& state,
                         const WorkBuffers& buffers);

struct PlannedLaunch {
    KernelId kernel;
    LaunchShape shape;
};
// The kernels of one frame, in order.
std::vector<PlannedLaunch> plan_launches(const math::Params& params);

void advance(SequenceState& state, const FrameParams& frame);

// The output image of a frame: its first pixel's address (subrect base applied), row pitch and size.
struct OutputImage {
    uint64_t address = 0;
    uint64_t pitch = 0;
    uint32_t width = 0, height = 0;
};
OutputImage output_image(const PipelineConfig& config, const FrameParams& frame);

} // namespace d4r::upscaler
