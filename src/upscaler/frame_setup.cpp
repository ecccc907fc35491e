// Frame parameters -> the kernels' parameter block and launch plan (shared by Pipeline and reference).
#include "upscaler/frame_setup.h"

#include <algorithm>
#include <cmath>

namespace d4r::upscaler {

namespace m = math;

namespace {

uint64_t align256(uint64_t v) { return (v + 255) & ~uint64_t(255); }

bool finite(float v) { return std::isfinite(v); }

// The pitch in bytes of a buffer of BPP-byte pixels (0 = packed rows of the resource's width).
uint64_t pitch_of(size_t pitch, uint32_t config_width, uint32_t base_x, uint32_t width, uint32_t bpp) {
    if (pitch) return pitch;
    return uint64_t(std::max(config_width, base_x + width)) * bpp;
}

Status check_buffer(const char* name, CUdeviceptr ptr, size_t pitch, uint32_t base_x, uint32_t width, uint32_t bpp) {
    if (!ptr) return make_error(ErrorCode::Invalid, "{}: no buffer", name);
    if (pitch && pitch < uint64_t(base_x + width) * bpp)
        return make_error(ErrorCode::Invalid, "{}: pitch {} is smaller than (base x {} + width {}) * {} bytes", name,
                          pitch, base_x, width, bpp);
    if (pitch > 0xffffffffu) return make_error(ErrorCode::Invalid, "{}: pitch {} is too large", name, pitch);
    return ok_status();
}

} // namespace

BufferLayout buffer_layout(const PipelineConfig& c) {
    BufferLayout l;
    uint64_t render = align256(uint64_t(c.render_width) * c.render_height * 16);
    uint64_t output = align256(uint64_t(c.output_width) * c.output_height * 16);
    l.prep_color = 0;
    l.motion0 = l.prep_color + render;
    l.motion1 = l.motion0 + render;
    l.history0 = l.motion1 + render;
    l.history1 = l.history0 + output;
    l.exposure = l.history1 + output;
    l.total = l.exposure + 256;
    if (c.keep_network_inputs) {
        l.terms = l.total;
        l.total += align256(uint64_t(c.output_width) * c.output_height * (math::kTermHalves * 2));
        l.geometry = l.total;
        l.total += render;
    }
    return l;
}

WorkBuffers work_buffers_at(uint64_t base, const BufferLayout& l) {
    WorkBuffers b;
    b.prep_color = base + l.prep_color;
    b.motion = {base + l.motion0, base + l.motion1};
    b.history = {base + l.history0, base + l.history1};
    b.exposure = base + l.exposure;
    b.terms = l.terms ? base + l.terms : 0;
    b.geometry = l.geometry ? base + l.geometry : 0;
    return b;
}

Status validate_config(const PipelineConfig& c) {
    if (!c.render_width || !c.render_height || !c.output_width || !c.output_height)
        return make_error(ErrorCode::Invalid, "upscaler: sizes must not be zero (render {}x{}, output {}x{})",
                          c.render_width, c.render_height, c.output_width, c.output_height);
    if (c.render_width > 16384 || c.render_height > 16384 || c.output_width > 16384 || c.output_height > 16384)
        return make_error(ErrorCode::Invalid,
                          "upscaler: sizes above 16384 are not supported (render {}x{}, output {}x{})", c.render_width,
                          c.render_height, c.output_width, c.output_height);
    return ok_status();
}

Status validate_frame(const PipelineConfig& c, const FrameParams& f) {
    if (!f.render_width || !f.render_height || f.render_width > c.render_width || f.render_height > c.render_height)
        return make_error(ErrorCode::Invalid, "upscaler: render size {}x{} is outside 1x1..{}x{}", f.render_width,
                          f.render_height, c.render_width, c.render_height);
    D4R_TRY(check_buffer("colour", f.color, f.color_pitch, f.color_base.x, f.render_width, 8));
    D4R_TRY(check_buffer("depth", f.depth, f.depth_pitch, f.depth_base.x, f.render_width, 4));
    D4R_TRY(check_buffer("motion vectors", f.motion, f.motion_pitch, f.motion_base.x,
                         c.mv_low_res ? f.render_width : c.output_width, 4));
    D4R_TRY(check_buffer("output", f.output, f.output_pitch, f.output_base.x, c.output_width, 8));
    if (!finite(f.jitter_x) || !finite(f.jitter_y) || std::fabs(f.jitter_x) > 1.0f || std::fabs(f.jitter_y) > 1.0f)
        return make_error(ErrorCode::Invalid, "upscaler: jitter offset ({}, {}) is outside [-1, 1]", f.jitter_x,
                          f.jitter_y);
    if (!finite(f.mv_scale_x) || !finite(f.mv_scale_y))
        return make_error(ErrorCode::Invalid, "upscaler: motion vector scale ({}, {}) is not finite", f.mv_scale_x,
                          f.mv_scale_y);
    if (!finite(f.pre_exposure) || f.pre_exposure <= 0.0f)
        return make_error(ErrorCode::Invalid, "upscaler: pre-exposure {} must be positive", f.pre_exposure);
    if (!finite(f.exposure_scale) || f.exposure_scale < 0.0f)
        return make_error(ErrorCode::Invalid, "upscaler: exposure scale {} must not be negative", f.exposure_scale);
    if (!finite(f.sharpness) || f.sharpness < -1.0f || f.sharpness > 1.0f)
        return make_error(ErrorCode::Invalid, "upscaler: sharpness {} is outside [-1, 1]", f.sharpness);
    return ok_status();
}

std::vector<BufferExtent> buffer_extents(const PipelineConfig& c, const FrameParams& f) {
    const uint32_t mv_w = c.mv_low_res ? f.render_width : c.output_width;
    const uint32_t mv_h = c.mv_low_res ? f.render_height : c.output_height;
    const uint32_t mv_cw = c.mv_low_res ? c.render_width : c.output_width;
    auto extent = [](const char* name, CUdeviceptr base, uint64_t pitch, Subrect at, uint32_t width, uint32_t rows,
                     uint32_t bpp) {
        // Rows [at.y, at.y + rows) of `pitch` bytes, the last one only as far as the subrect reaches.
        const uint64_t start = base + uint64_t(at.y) * pitch + uint64_t(at.x) * bpp;
        return BufferExtent{name, start, uint64_t(rows - 1) * pitch + uint64_t(width) * bpp};
    };
    std::vector<BufferExtent> out;
    out.push_back(extent("colour", f.color, pitch_of(f.color_pitch, c.render_width, f.color_base.x, f.render_width, 8),
                         f.color_base, f.render_width, f.render_height, 8));
    out.push_back(extent("depth", f.depth, pitch_of(f.depth_pitch, c.render_width, f.depth_base.x, f.render_width, 4),
                         f.depth_base, f.render_width, f.render_height, 4));
    out.push_back(extent("motion vectors", f.motion, pitch_of(f.motion_pitch, mv_cw, f.motion_base.x, mv_w, 4),
                         f.motion_base, mv_w, mv_h, 4));
    out.push_back(extent("output", f.output,
                         pitch_of(f.output_pitch, c.output_width, f.output_base.x, c.output_width, 8), f.output_base,
                         c.output_width, c.output_height, 8));
    if (f.exposure && !c.auto_exposure) out.push_back(BufferExtent{"exposure", f.exposure, 4});
    return out;
}

m::Params make_params(const PipelineConfig& c, const FrameParams& f, const SequenceState& s, const WorkBuffers& b) {
    m::Params p{};
    uint32_t mv_w = c.mv_low_res ? f.render_width : c.output_width;
    uint32_t mv_h = c.mv_low_res ? f.render_height : c.output_height;
    uint32_t mv_cw = c.mv_low_res ? c.render_width : c.output_width;
    uint64_t cp = pitch_of(f.color_pitch, c.render_width, f.color_base.x, f.render_width, 8);
    uint64_t dp = pitch_of(f.depth_pitch, c.render_width, f.depth_base.x, f.render_width, 4);
    uint64_t mp = pitch_of(f.motion_pitch, mv_cw, f.motion_base.x, mv_w, 4);
    const OutputImage out = output_image(c, f);
    p.color = f.color + f.color_base.y * cp + f.color_base.x * 8ull;
    p.depth = f.depth + f.depth_base.y * dp + f.depth_base.x * 4ull;
    p.motion = f.motion + f.motion_base.y * mp + f.motion_base.x * 4ull;
    p.output = out.address;
    p.exposure_tex = f.exposure;
    p.prep_color = b.prep_color;
    p.motion_cur = b.motion[s.parity];
    p.motion_prev = b.motion[s.parity ^ 1];
    p.history_out = b.history[s.parity];
    p.history_in = b.history[s.parity ^ 1];
    p.exposure_auto = b.exposure;
    p.terms = b.terms;
    p.geometry = b.geometry;
    p.color_pitch = static_cast<uint32_t>(cp);
    p.depth_pitch = static_cast<uint32_t>(dp);
    p.motion_pitch = static_cast<uint32_t>(mp);
    p.output_pitch = static_cast<uint32_t>(out.pitch);
    p.render_w = f.render_width;
    p.render_h = f.render_height;
    p.output_w = c.output_width;
    p.output_h = c.output_height;
    p.render_stride = c.render_width;
    p.output_stride = c.output_width;
    p.motion_w = mv_w;
    p.motion_h = mv_h;

    bool history = s.has_history && !f.reset;
    p.flags =
        (c.hdr ? m::kFlagHdr : 0) | (c.depth_inverted ? m::kFlagDepthInverted : 0) |
        (c.mv_low_res ? m::kFlagMvLowRes : 0) | (history ? m::kFlagHistory : 0) |
        (history && s.prev_render_w == f.render_width && s.prev_render_h == f.render_height ? m::kFlagPrevDepth : 0) |
        (c.sharpening && f.sharpness > 0.0f ? m::kFlagSharpen : 0);
    p.exposure_mode = c.auto_exposure ? m::kExposureAuto : (f.exposure ? m::kExposureTexture : m::kExposureScale);
    // Output-resolution vectors are in output pixels: the kernels want render pixels.
    p.mv_mul_x = c.mv_low_res ? f.mv_scale_x : f.mv_scale_x * (float(f.render_width) / float(c.output_width));
    p.mv_mul_y = c.mv_low_res ? f.mv_scale_y : f.mv_scale_y * (float(f.render_height) / float(c.output_height));
    // MVJittered: a static point's vector is jitter_cur - jitter_prev; remove it.
    if (c.mv_jittered && history) {
        p.mv_jitter_x = f.jitter_x - s.prev_jitter_x;
        p.mv_jitter_y = f.jitter_y - s.prev_jitter_y;
    }
    p.jitter_x = f.jitter_x;
    p.jitter_y = f.jitter_y;
    p.pre_exposure = f.pre_exposure;
    p.exposure_scale = f.exposure_scale > 0.0f ? f.exposure_scale : 1.0f;
    p.sharpness = std::clamp(f.sharpness, 0.0f, 1.0f);
    return p;
}

OutputImage output_image(const PipelineConfig& c, const FrameParams& f) {
    OutputImage o;
    o.pitch = pitch_of(f.output_pitch, c.output_width, f.output_base.x, c.output_width, 8);
    o.address = f.output + f.output_base.y * o.pitch + f.output_base.x * 8ull;
    o.width = c.output_width;
    o.height = c.output_height;
    return o;
}

std::vector<PlannedLaunch> plan_launches(const m::Params& p) {
    std::vector<PlannedLaunch> out;
    auto image = [](uint32_t w, uint32_t h) {
        LaunchShape s;
        s.grid = {(w + m::kBlockX - 1) / m::kBlockX, (h + m::kBlockY - 1) / m::kBlockY, 1};
        s.block = {m::kBlockX, m::kBlockY, 1};
        return s;
    };
    if ((p.flags & m::kFlagHdr) && p.exposure_mode == m::kExposureAuto) {
        LaunchShape s;
        s.block = {m::kExposureThreads, 1, 1};
        out.push_back({KernelId::Exposure, s});
    }
    out.push_back({KernelId::Prepare, image(p.render_w, p.render_h)});
    out.push_back({KernelId::Accumulate, image(p.output_w, p.output_h)});
    if (p.flags & m::kFlagSharpen) out.push_back({KernelId::Sharpen, image(p.output_w, p.output_h)});
    return out;
}

void advance(SequenceState& s, const FrameParams& f) {
    s.has_history = true;
    s.prev_render_w = f.render_width;
    s.prev_render_h = f.render_height;
    s.prev_jitter_x = f.jitter_x;
    s.prev_jitter_y = f.jitter_y;
    s.parity ^= 1;
}

} // namespace d4r::upscaler
