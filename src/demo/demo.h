// d4r demo: the main job without NVIDIA files — a synthetic scene's game-like frames go through the
// open NGX core's CUDA API (libd4r_ngx.so), d4r's CUDA runtime (libd4rcuda) and, on the cpu backend,
// the upscaler's native CPU kernels; the temporally upscaled result is measured against ground truth
// next to a bicubic spatial upscale of the same input.
//
// Promise: run_demo configures the runtime (D4R_CUDA_BACKEND, D4R_NATIVE_KERNEL_DIR) before loading
// it, renders, uploads, evaluates and downloads every frame, reports progress per frame, writes the
// PNGs of the last frame (display-mapped: bilinear input, d4r output, bicubic, ground truth, error map)
// and report.json into the output folder, with dump_dir a frame dump per frame there (frame_dump.h;
// each file written atomically), and returns the report.
// Every failure is an error naming the step (CUDA call, NGX call with its result, file). Quality is
// summarised over the last half of the frames, at most the last 8 (the first frames have no history).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::demo {

struct DemoOptions {
    std::string scene; // "" = the first scene
    uint32_t frames = 16;
    uint32_t render_width = 640, render_height = 360;
    uint32_t output_width = 1280, output_height = 720;
    std::string backend = "auto"; // D4R_CUDA_BACKEND
    bool native = true;           // serve the upscaler's native kernels (cpu backend)
    std::string out_dir = "out/demo";
    bool write_images = true;
    // Frames of a second run with native kernels off (PTX on the backend) for the translated/native
    // ratio; 0 = no second run. Only meaningful when native kernels exist for the backend (cpu).
    uint32_t translated_frames = 3;
    std::string lib_dir;     // holds libd4r_ngx.so and libcuda.so.1 ("" = ../lib beside the binary)
    std::string native_root; // "" = the CPU kernel set beside bin/ (installed or built), else the build tree's
    std::string self_exe;    // the d4r binary, for the translated run ("" = /proc/self/exe)
    // The refinement network (docs/network.md): on = the d4r row is core + network, and a second feature
    // without it (D4R.Network = 0) gives the core-alone row of the same frames.
    bool network = false;
    // With network: the model file the core loads (D4R_NETWORK_MODEL for it), "" = the core's choice (the variable
    // as set, else refine-v2.d4rnet); the caller has checked that it reads.
    std::string network_model;
    // A folder for a frame dump of every frame (frame_dump.h: the core's output and the truth, f16), "" = none.
    std::string dump_dir;
    // With dump_dir: version 2 dumps that also hold the core's inputs (render colour, depth, motion, jitter) and
    // the accumulate step's intermediates (history before the clamp ...), from the CPU reference of the core run
    // beside it on the same inputs (upscaler/accumulate_terms.h).
    bool dump_inputs = false;
    unsigned scene_threads = 0; // threads rendering the scene, 0 = every core
};

struct FrameStats {
    uint32_t index = 0;
    double render_ms = 0; // scene rendering on the CPU (not part of the upscaler's cost)
    double gpu_ms = 0;    // the evaluation between two events on the NGX stream
    double wall_ms = 0;   // the evaluation call plus waiting for it
    double psnr_d4r = 0, ssim_d4r = 0;
    double psnr_bicubic = 0, ssim_bicubic = 0;
    double psnr_core = 0, ssim_core = 0; // the core alone (network on only)
    // Temporal stability: PSNR of the frame-to-frame change against the truth's own change (display domain;
    // higher is steadier). 0 for the first frame.
    double tpsnr_d4r = 0, tpsnr_core = 0;
};

struct DemoReport {
    std::string scene, device, backend;
    bool native = false;
    std::string native_root;
    uint32_t render_width = 0, render_height = 0, output_width = 0, output_height = 0;
    std::vector<FrameStats> frames;
    uint32_t quality_frames = 0; // how many of the last frames the means cover
    double median_gpu_ms = 0, median_wall_ms = 0, median_render_ms = 0;
    double mean_psnr_d4r = 0, mean_ssim_d4r = 0, mean_psnr_bicubic = 0, mean_ssim_bicubic = 0;
    bool network = false;        // the d4r row includes the refinement network
    bool network_active = false; // its output differed from the core alone in some frame
    std::string network_model;   // DemoOptions::network_model, as given ("" = the core's choice)
    double mean_psnr_core = 0, mean_ssim_core = 0, mean_tpsnr_d4r = 0, mean_tpsnr_core = 0;
    double translated_median_gpu_ms = 0; // 0 when not measured
    double translated_native_ratio = 0;  // translated / native GPU ms, 0 when not measured
    std::string translated_note;         // why it was not measured, or how
    double total_seconds = 0;
    std::vector<std::string> images; // written files
};

using Progress = std::function<void(const std::string&)>;

Expected<DemoReport> run_demo(const DemoOptions& options, const Progress& progress);

// report.json's text, and the table the verb prints.
std::string report_json(const DemoReport& report);
std::string report_table(const DemoReport& report);
// Reads back the fields run_demo's translated run needs (median GPU ms); errors name the file.
Expected<double> read_report_median_gpu_ms(const std::string& path);

} // namespace d4r::demo
