// Runs synthetic frames (synthetic.h) through the upscaler: on a CUDA driver API table (Pipeline) or on
// the host (ReferenceUpscaler), with the same buffer layouts (subrects, explicit pitches), so tests can
// compare outputs byte for byte. Header-only: used by d4r_upscaler_tests and the upscaler_probe helper.
#pragma once

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "synthetic.h"
#include "upscaler/pipeline.h"
#include "upscaler/reference.h"

namespace d4r::upscaler::test {

struct RunOptions {
    PipelineConfig config;
    Scene scene;
    uint32_t frames = 3;
    uint32_t render_w = 0, render_h = 0; // this frame's render size (0 = the config's)
    Subrect color_base, depth_base, motion_base, output_base;
    uint32_t pad = 0; // extra pixels per row: explicit pitches when non-zero
    float sharpness = 0.0f;
    float pre_exposure = 1.0f;
    float exposure_texture = 0.0f; // 0: no exposure texture
    float exposure_scale = 1.0f;
    float mv_scale = 1.0f; // motion vectors are stored divided by this and MV.Scale undoes it
    int reset_frame = -1;
    std::string_view replacement_ptx; // run_pipeline: kernels replacing the embedded PTX's (Pipeline::create)
};

// One frame's buffers in host memory, laid out as the options say; FrameParams has offsets (not addresses).
struct Staged {
    std::vector<uint8_t> color, depth, motion, output;
    float exposure = 0.0f;
    FrameParams params;
};

inline Staged stage_frame(const RunOptions& o, uint32_t t) {
    const PipelineConfig& c = o.config;
    uint32_t rw = o.render_w ? o.render_w : c.render_width, rh = o.render_h ? o.render_h : c.render_height;
    Frame f = render_frame(o.scene, t, rw, rh, c.depth_inverted);
    Staged s;
    FrameParams& p = s.params;
    // Rows of max(resource width, base.x + w) pixels (pitch 0), or base.x + w + pad (explicit pitch).
    auto place = [&](std::vector<uint8_t>& buf, size_t& pitch, Subrect base, uint32_t cfg_w, uint32_t w, uint32_t h,
                     uint32_t bpp, const void* src) {
        size_t row = size_t(o.pad ? base.x + w + o.pad : std::max(cfg_w, base.x + w)) * bpp;
        pitch = o.pad ? row : 0;
        buf.assign(row * (base.y + h + 1), 0x5a);
        if (src)
            for (uint32_t y = 0; y < h; ++y)
                std::memcpy(buf.data() + (base.y + y) * row + size_t(base.x) * bpp,
                            static_cast<const uint8_t*>(src) + size_t(y) * w * bpp, size_t(w) * bpp);
    };
    place(s.color, p.color_pitch, o.color_base, c.render_width, rw, rh, 8, f.color.data());
    place(s.depth, p.depth_pitch, o.depth_base, c.render_width, rw, rh, 4, f.depth.data());
    if (c.mv_low_res) {
        std::vector<uint16_t> mv(f.motion.size());
        for (size_t i = 0; i < mv.size(); ++i)
            mv[i] = math::float_to_half(math::half_to_float(f.motion[i]) / o.mv_scale);
        place(s.motion, p.motion_pitch, o.motion_base, c.render_width, rw, rh, 4, mv.data());
    } else { // at output resolution, in output pixels, sampled at output pixel centres
        std::vector<uint16_t> mv(size_t(c.output_width) * c.output_height * 2);
        float sx = float(rw) / float(c.output_width), sy = float(rh) / float(c.output_height);
        for (uint32_t y = 0; y < c.output_height; ++y)
            for (uint32_t x = 0; x < c.output_width; ++x) {
                Rgb col;
                float d, mx, my;
                o.scene.sample((float(x) + 0.5f) * sx, (float(y) + 0.5f) * sy, t, col, d, mx, my);
                mv[(size_t(y) * c.output_width + x) * 2] = math::float_to_half(mx / sx / o.mv_scale);
                mv[(size_t(y) * c.output_width + x) * 2 + 1] = math::float_to_half(my / sy / o.mv_scale);
            }
        place(s.motion, p.motion_pitch, o.motion_base, c.output_width, c.output_width, c.output_height, 4, mv.data());
    }
    place(s.output, p.output_pitch, o.output_base, c.output_width, c.output_width, c.output_height, 8, nullptr);
    s.exposure = o.exposure_texture;
    p.render_width = rw;
    p.render_height = rh;
    p.color_base = o.color_base;
    p.depth_base = o.depth_base;
    p.motion_base = o.motion_base;
    p.output_base = o.output_base;
    p.jitter_x = f.jx;
    p.jitter_y = f.jy;
    p.mv_scale_x = o.mv_scale;
    p.mv_scale_y = o.mv_scale;
    p.pre_exposure = o.pre_exposure;
    p.exposure_scale = o.exposure_scale;
    p.sharpness = o.sharpness;
    p.reset = static_cast<int>(t) == o.reset_frame;
    return s;
}

// The output subrect of a staged output buffer, tightly packed (RGBA16F).
inline std::vector<uint16_t> extract_output(const RunOptions& o, const Staged& s) {
    const PipelineConfig& c = o.config;
    size_t row = s.params.output_pitch ? s.params.output_pitch : size_t(o.output_base.x + c.output_width) * 8;
    std::vector<uint16_t> out(size_t(c.output_width) * c.output_height * 4);
    for (uint32_t y = 0; y < c.output_height; ++y)
        std::memcpy(out.data() + size_t(y) * c.output_width * 4,
                    s.output.data() + (o.output_base.y + y) * row + size_t(o.output_base.x) * 8,
                    size_t(c.output_width) * 8);
    return out;
}

// S's parameters with its buffers' host addresses (the exposure texture's only when the options use one).
inline FrameParams host_frame(const RunOptions& o, Staged& s) {
    FrameParams p = s.params;
    p.color = host_address(s.color.data());
    p.depth = host_address(s.depth.data());
    p.motion = host_address(s.motion.data());
    p.output = host_address(s.output.data());
    p.exposure = o.exposure_texture != 0.0f ? host_address(&s.exposure) : 0;
    return p;
}

using FrameSink = std::function<void(uint32_t frame, const std::vector<uint16_t>& output)>;

inline Status run_reference(const RunOptions& o, const FrameSink& sink, unsigned threads = 1) {
    auto created = ReferenceUpscaler::create(o.config);
    if (!created) return created.error();
    ReferenceUpscaler& ref = *created;
    for (uint32_t t = 0; t < o.frames; ++t) {
        Staged s = stage_frame(o, t);
        D4R_TRY(ref.evaluate(host_frame(o, s), threads));
        sink(t, extract_output(o, s));
    }
    return ok_status();
}

// Called after each frame's evaluate and synchronisation, before the output is read back (a network after the core).
using AfterEvaluate = std::function<Status(uint32_t frame, const Pipeline& pipeline)>;

// Runs the frames through a Pipeline in the current context of CUDA (synchronising after each frame).
// FRAME_MS receives each evaluate's time from launch to completion; AFTER, when set, runs after each evaluate.
inline Status run_pipeline(const CudaFunctions& cuda, const RunOptions& o, const FrameSink& sink,
                           std::vector<double>* frame_ms = nullptr, const AfterEvaluate& after = {}) {
    using abi::CUdeviceptr;
    auto check = [&](const char* what, abi::CUresult r) -> Status {
        if (r != abi::CUDA_SUCCESS) return cuda_error(cuda, what, r);
        return ok_status();
    };
    auto created = Pipeline::create(cuda, o.config, o.replacement_ptx);
    if (!created) return created.error();
    std::unique_ptr<Pipeline>& pipeline = *created;
    Staged first = stage_frame(o, 0);
    CUdeviceptr dc = 0, dd = 0, dm = 0, dout = 0, de = 0;
    D4R_TRY(check("cuMemAlloc", cuda.cuMemAlloc_v2(&dc, first.color.size())));
    D4R_TRY(check("cuMemAlloc", cuda.cuMemAlloc_v2(&dd, first.depth.size())));
    D4R_TRY(check("cuMemAlloc", cuda.cuMemAlloc_v2(&dm, first.motion.size())));
    D4R_TRY(check("cuMemAlloc", cuda.cuMemAlloc_v2(&dout, first.output.size())));
    D4R_TRY(check("cuMemAlloc", cuda.cuMemAlloc_v2(&de, 4)));
    Status result;
    for (uint32_t t = 0; t < o.frames && result; ++t) {
        Staged s = t == 0 ? first : stage_frame(o, t); // a copy: 'first' sized the buffers above
        result = [&]() -> Status {
            D4R_TRY(check("cuMemcpyHtoD", cuda.cuMemcpyHtoD_v2(dc, s.color.data(), s.color.size())));
            D4R_TRY(check("cuMemcpyHtoD", cuda.cuMemcpyHtoD_v2(dd, s.depth.data(), s.depth.size())));
            D4R_TRY(check("cuMemcpyHtoD", cuda.cuMemcpyHtoD_v2(dm, s.motion.data(), s.motion.size())));
            D4R_TRY(check("cuMemcpyHtoD", cuda.cuMemcpyHtoD_v2(dout, s.output.data(), s.output.size())));
            D4R_TRY(check("cuMemcpyHtoD", cuda.cuMemcpyHtoD_v2(de, &s.exposure, 4)));
            FrameParams p = s.params;
            p.color = dc;
            p.depth = dd;
            p.motion = dm;
            p.output = dout;
            p.exposure = o.exposure_texture != 0.0f ? de : 0;
            auto start = std::chrono::steady_clock::now();
            D4R_TRY(pipeline->evaluate(p, nullptr));
            D4R_TRY(check("cuCtxSynchronize", cuda.cuCtxSynchronize()));
            if (frame_ms)
                frame_ms->push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            if (after) D4R_TRY(after(t, *pipeline));
            D4R_TRY(check("cuMemcpyDtoH", cuda.cuMemcpyDtoH_v2(s.output.data(), dout, s.output.size())));
            sink(t, extract_output(o, s));
            return ok_status();
        }();
    }
    for (CUdeviceptr p : {dc, dd, dm, dout, de}) cuda.cuMemFree_v2(p);
    return result;
}

// The options upscaler_probe runs (and tests compare it with): an HDR scene with a moving object,
// exposure scale and pre-exposure, sharpening.
inline RunOptions probe_options(uint32_t rw, uint32_t rh, uint32_t ow, uint32_t oh, uint32_t frames) {
    RunOptions o;
    o.config.render_width = rw;
    o.config.render_height = rh;
    o.config.output_width = ow;
    o.config.output_height = oh;
    o.config.hdr = true;
    o.config.sharpening = true;
    o.scene.object = true;
    o.scene.hdr_gain = 2.0f;
    o.frames = frames;
    o.pre_exposure = 1.5f;
    o.exposure_scale = 0.8f;
    o.sharpness = 0.4f;
    return o;
}

// cuInit, device 0's primary context made current.
inline Status open_context(const CudaFunctions& cuda) {
    abi::CUresult r = cuda.cuInit(0);
    if (r != abi::CUDA_SUCCESS) return cuda_error(cuda, "cuInit", r);
    abi::CUdevice dev = 0;
    if ((r = cuda.cuDeviceGet(&dev, 0)) != abi::CUDA_SUCCESS) return cuda_error(cuda, "cuDeviceGet", r);
    abi::CUcontext ctx = nullptr;
    if ((r = cuda.cuDevicePrimaryCtxRetain(&ctx, dev)) != abi::CUDA_SUCCESS)
        return cuda_error(cuda, "cuDevicePrimaryCtxRetain", r);
    if ((r = cuda.cuCtxSetCurrent(ctx)) != abi::CUDA_SUCCESS) return cuda_error(cuda, "cuCtxSetCurrent", r);
    return ok_status();
}

} // namespace d4r::upscaler::test
