// d4r demo (see demo.h): scene → NGX CUDA API → libd4rcuda → upscaled frame → metrics, PNGs, report.
#include "demo/demo.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/process.h"
#include "core/statistics.h"
#include "demo/frame_dump.h"
#include "demo/ngx_client.h"
#include "image/half.h"
#include "image/metrics.h"
#include "image/png.h"
#include "image/resample.h"
#include "image/tonemap.h"
#include "scene/scene.h"
#include "upscaler/accumulate_terms.h"
#include "upscaler/cuda_functions.h"
#include "upscaler/native_kernels.h"
#include "upscaler/reference.h"

namespace d4r::demo {

namespace fs = std::filesystem;
using namespace d4r::abi;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string default_native_root(const std::string& exe) {
    // An installed layout first (share/d4r/native beside bin/, see upscaler/native_kernels.h; a build tree has
    // the same layout), then the build tree this binary was built in.
    fs::path installed = upscaler::installed_native_kernel_root(fs::path(exe).parent_path());
    if (is_dir(installed / "cpu")) return installed.string();
    fs::path build = upscaler::build_native_kernel_root();
    if (is_dir(build / "cpu")) return build.string();
    return {};
}

// Whether the kernel root holds code objects for GPUs (a `sm_*` or `gfx*` folder, docs/kernel-sets.md): the runtime
// then picks the device's folder itself.
bool has_gpu_sets(const std::string& root) {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
        const std::string name = e.path().filename().string();
        if (e.is_directory(ec) && (name.starts_with("sm_") || name.starts_with("gfx"))) return true;
    }
    return false;
}

// Everything CUDA the demo owns, freed on every path out.
struct DeviceState {
    const upscaler::CudaFunctions* cuda = nullptr;
    CUdevice device = 0;
    CUcontext context = nullptr;
    std::vector<CUdeviceptr> buffers;
    CUevent start = nullptr, end = nullptr;
    ~DeviceState() {
        if (!cuda || !context) return;
        cuda->cuCtxSynchronize();
        for (CUdeviceptr p : buffers) cuda->cuMemFree_v2(p);
        if (start) cuda->cuEventDestroy_v2(start);
        if (end) cuda->cuEventDestroy_v2(end);
        cuda->cuDevicePrimaryCtxRelease_v2(device);
    }
    Expected<CUdeviceptr> alloc(size_t bytes) {
        CUdeviceptr p = 0;
        if (CUresult r = cuda->cuMemAlloc_v2(&p, bytes)) return upscaler::cuda_error(*cuda, "cuMemAlloc", r);
        buffers.push_back(p);
        return p;
    }
};

struct NgxSession {
    const NgxClient* ngx = nullptr;
    bool initialized = false;
    NVSDK_NGX_Parameter* params = nullptr;
    NVSDK_NGX_Handle* feature = nullptr;
    NVSDK_NGX_Handle* baseline = nullptr;
    ~NgxSession() {
        if (!ngx) return;
        if (feature) ngx->NVSDK_NGX_CUDA_ReleaseFeature(feature);
        if (baseline) ngx->NVSDK_NGX_CUDA_ReleaseFeature(baseline);
        if (params) ngx->NVSDK_NGX_CUDA_DestroyParameters(params);
        if (initialized) ngx->NVSDK_NGX_CUDA_Shutdown();
    }
};

Status ngx_check(const char* call, NVSDK_NGX_Result r) {
    if (r == NVSDK_NGX_Result_Success) return {};
    return make_error(ErrorCode::Invalid, "{} failed: {}", call, ngx_result_name(r));
}

#define D4R_DEMO_CU(call)                                                       \
    do {                                                                        \
        if (CUresult r_ = (call)) return upscaler::cuda_error(cuda, #call, r_); \
    } while (0)

image::Image color_image(const scene::FrameInputs& in) { return image::Image(in.width, in.height, 4, in.color); }

void set_environment(const DemoOptions& o, const std::string& native_root) {
    // libd4rcuda reads these at its first call; the NGX core and the demo share one libd4rcuda.
    setenv(env_name(EnvVar::CudaBackend), o.backend.c_str(), 1);
    unsetenv(env_var_info(EnvVar::NativeKernelDir).alias.data()); // the deprecated alias: only --native decides
    if (o.native && !native_root.empty())
        setenv(env_name(EnvVar::NativeKernelDir), native_root.c_str(), 1);
    else
        unsetenv(env_name(EnvVar::NativeKernelDir));
    setenv(env_name(EnvVar::Network), o.network ? "true" : "false", 1);
    if (!o.network_model.empty())
        setenv(env_name(EnvVar::NetworkModel), fs::absolute(o.network_model).string().c_str(), 1);
}

// PSNR of the frame-to-frame change of `out` against the truth's own change (display values, peak 1).
double temporal_psnr(const image::Image& out, const image::Image& prev_out, const image::Image& truth,
                     const image::Image& prev_truth) {
    double se = 0;
    size_t n = 0;
    for (size_t i = 0; i < out.data.size(); ++i) {
        if (out.channels == 4 && i % 4 == 3) continue;
        double d = (double(out.data[i]) - prev_out.data[i]) - (double(truth.data[i]) - prev_truth.data[i]);
        se += d * d;
        ++n;
    }
    return se == 0 ? 999.0 : 10.0 * std::log10(double(n) / se);
}

// A second d4r process with native kernels off, for the translated/native ratio.
Status measure_translated(const DemoOptions& o, const std::string& scene, DemoReport& report,
                          const Progress& progress) {
    std::string exe = o.self_exe.empty() ? executable_path() : o.self_exe;
    fs::path dir = fs::path(o.out_dir) / "translated";
    std::vector<std::string> argv = {exe,           "demo",
                                     "--scene",     scene,
                                     "--frames",    std::to_string(o.translated_frames),
                                     "--render",    fmt::format("{}x{}", o.render_width, o.render_height),
                                     "--output",    fmt::format("{}x{}", o.output_width, o.output_height),
                                     "--backend",   o.backend,
                                     "--native",    "off",
                                     "--network",   o.network ? "on" : "off",
                                     "--no-images", "--translated-frames",
                                     "0",           "--out",
                                     dir.string()};
    if (!o.lib_dir.empty()) argv.insert(argv.end(), {"--lib-dir", o.lib_dir});
    if (!o.network_model.empty()) argv.insert(argv.end(), {"--network-model", o.network_model});
    progress(
        fmt::format("translated run: {} frames with native kernels off (PTX on the backend)...", o.translated_frames));
    auto r = run_process(argv, std::chrono::minutes(30));
    if (!r) return std::move(r).error();
    if (r->exit_code != 0)
        return make_error(ErrorCode::Invalid, "the translated run exited with {}: {}", r->exit_code,
                          r->output.substr(r->output.size() > 2000 ? r->output.size() - 2000 : 0));
    double translated = D4R_TRY(read_report_median_gpu_ms((dir / "report.json").string()));
    report.translated_median_gpu_ms = translated;
    if (report.median_gpu_ms > 0) report.translated_native_ratio = translated / report.median_gpu_ms;
    report.translated_note = fmt::format("median GPU ms of {} frames with native kernels off", o.translated_frames);
    return {};
}

} // namespace

Expected<DemoReport> run_demo(const DemoOptions& o, const Progress& progress) {
    auto t_start = Clock::now();
    if (o.frames == 0) return make_error(ErrorCode::Invalid, "--frames must be at least 1");
    if (o.render_width == 0 || o.render_height == 0 || o.output_width < o.render_width ||
        o.output_height < o.render_height)
        return make_error(ErrorCode::Invalid,
                          "render size {}x{} and output size {}x{}: the output must be at least the render size",
                          o.render_width, o.render_height, o.output_width, o.output_height);
    if (o.dump_inputs && o.dump_dir.empty())
        return make_error(ErrorCode::Invalid, "--dump-inputs needs --dump-frames DIR");
    std::string scene_name = o.scene.empty() ? scene::scene_names().front() : o.scene;
    std::unique_ptr<scene::Scene> scene = D4R_TRY(scene::make_scene(scene_name));
    std::string exe = o.self_exe.empty() ? executable_path() : o.self_exe;
    fs::path lib_dir = o.lib_dir.empty() ? fs::path(exe).parent_path().parent_path() / "lib" : fs::path(o.lib_dir);
    std::string native_root = o.native_root.empty() ? default_native_root(exe) : o.native_root;
    if (o.native && native_root.empty())
        progress(
            "native kernels: no CPU kernel set found (share/d4r/native beside bin/ or in the build tree); PTX only");

    DemoReport report;
    report.scene = scene_name;
    report.backend = o.backend;
    report.native = o.native && !native_root.empty();
    report.native_root = report.native ? native_root : "";
    report.render_width = o.render_width;
    report.render_height = o.render_height;
    report.output_width = o.output_width;
    report.output_height = o.output_height;

    std::error_code ec;
    fs::create_directories(o.out_dir, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", o.out_dir, ec.message());
    if (!o.dump_dir.empty()) {
        fs::create_directories(o.dump_dir, ec);
        if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", o.dump_dir, ec.message());
    }

    set_environment(o, native_root);
    std::string cuda_path = (lib_dir / "libcuda.so.1").string();
    setenv(env_name(EnvVar::NgxCudaLibrary), cuda_path.c_str(), 1);
    upscaler::CudaFunctions cuda = D4R_TRY_CTX(upscaler::load_cuda_functions(cuda_path), "the CUDA runtime");
    NgxClient ngx = D4R_TRY(NgxClient::load((lib_dir / "libd4r_ngx.so").string()));

    DeviceState dev;
    dev.cuda = &cuda;
    D4R_DEMO_CU(cuda.cuInit(0));
    D4R_DEMO_CU(cuda.cuDeviceGet(&dev.device, 0));
    D4R_DEMO_CU(cuda.cuDevicePrimaryCtxRetain(&dev.context, dev.device));
    D4R_DEMO_CU(cuda.cuCtxSetCurrent(dev.context));
    {
        void* handle = dlopen(cuda_path.c_str(), RTLD_NOW | RTLD_NOLOAD);
        auto get_name = handle ? reinterpret_cast<PFN_cuDeviceGetName>(dlsym(handle, "cuDeviceGetName")) : nullptr;
        char name[256] = {0};
        if (get_name && get_name(name, sizeof name, dev.device) == CUDA_SUCCESS) report.device = name;
    }
    bool cpu_device = report.device.find("ptxsim") != std::string::npos;
    if (report.native && !cpu_device && !has_gpu_sets(native_root)) {
        // The root holds CPU kernels only (native_root/cpu); on a GPU everything runs from PTX.
        report.native = false;
        report.native_root.clear();
        report.translated_note =
            "not measured (the native kernel root has CPU kernels only; " + report.device + " runs the PTX)";
    }
    progress(fmt::format("d4r demo: scene '{}', {} frames, {}x{} -> {}x{}, device {}, native kernels {}", scene_name,
                         o.frames, o.render_width, o.render_height, o.output_width, o.output_height, report.device,
                         report.native             ? "on (" + native_root + ")"
                         : cpu_device || !o.native ? "off"
                                                   : "off (CPU kernels only)"));

    NgxSession session;
    session.ngx = &ngx;
    D4R_TRY(ngx_check("NVSDK_NGX_CUDA_Init", ngx.NVSDK_NGX_CUDA_Init(0xd4d4, L"/tmp", nullptr, NVSDK_NGX_Version_API)));
    session.initialized = true;
    D4R_TRY(ngx_check("NVSDK_NGX_CUDA_AllocateParameters", ngx.NVSDK_NGX_CUDA_AllocateParameters(&session.params)));
    NVSDK_NGX_Parameter* p = session.params;
    ngx.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_Width, o.render_width);
    ngx.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_Height, o.render_height);
    ngx.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_OutWidth, o.output_width);
    ngx.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_OutHeight, o.output_height);
    ngx.NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_PerfQualityValue, NVSDK_NGX_PerfQuality_Value_MaxQuality);
    ngx.NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags,
                                 NVSDK_NGX_DLSS_Feature_Flags_IsHDR | NVSDK_NGX_DLSS_Feature_Flags_MVLowRes);
    D4R_TRY(ngx_check("NVSDK_NGX_CUDA_CreateFeature",
                      ngx.NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, p, &session.feature)));
    // With the network: the same frames through a feature without it, for the core-alone row.
    NVSDK_NGX_Handle* baseline = nullptr;
    if (o.network) {
        ngx.NVSDK_NGX_Parameter_SetI(p, D4R_NGX_Parameter_Network, 0);
        D4R_TRY(ngx_check("NVSDK_NGX_CUDA_CreateFeature (without the network)",
                          ngx.NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, p, &baseline)));
        session.baseline = baseline;
    }
    report.network = o.network;
    report.network_model = o.network_model;

    const size_t rw = o.render_width, rh = o.render_height, ow = o.output_width, oh = o.output_height;
    CUdeviceptr d_color = D4R_TRY(dev.alloc(rw * rh * 8));
    CUdeviceptr d_depth = D4R_TRY(dev.alloc(rw * rh * 4));
    CUdeviceptr d_motion = D4R_TRY(dev.alloc(rw * rh * 4));
    CUdeviceptr d_exposure = D4R_TRY(dev.alloc(4));
    CUdeviceptr d_output = D4R_TRY(dev.alloc(ow * oh * 8));
    D4R_DEMO_CU(cuda.cuMemsetD8_v2(d_output, 0xff, ow * oh * 8)); // poison: NaN halves if never written
    CUdeviceptr d_core = 0;
    if (o.network) {
        d_core = D4R_TRY(dev.alloc(ow * oh * 8));
        D4R_DEMO_CU(cuda.cuMemsetD8_v2(d_core, 0xff, ow * oh * 8));
    }
    image::Image prev_out_d, prev_core_d, prev_truth_d;
    D4R_DEMO_CU(cuda.cuEventCreate(&dev.start, 0));
    D4R_DEMO_CU(cuda.cuEventCreate(&dev.end, 0));

    // --dump-inputs: the core's CPU reference on the same inputs, for the accumulate step's intermediates.
    static_assert(upscaler::kAccumulateTermPlanes == kFrameDumpTermPlanes);
    std::optional<upscaler::ReferenceUpscaler> reference;
    if (o.dump_inputs) {
        upscaler::PipelineConfig config;
        config.render_width = o.render_width;
        config.render_height = o.render_height;
        config.output_width = o.output_width;
        config.output_height = o.output_height;
        config.hdr = true; // the feature's flags above: IsHDR | MVLowRes
        config.mv_low_res = true;
        upscaler::ReferenceUpscaler created = D4R_TRY(upscaler::ReferenceUpscaler::create(config));
        reference.emplace(std::move(created));
    }
    bool reference_differs = false;

    std::vector<uint16_t> output_bits(ow * oh * 4), core_bits;
    for (uint32_t i = 0; i < o.frames; ++i) {
        FrameStats st;
        st.index = i;
        auto t0 = Clock::now();
        scene::Frame frame = scene->render_frame(i, {o.render_width, o.render_height},
                                                 {o.output_width, o.output_height}, {o.scene_threads});
        st.render_ms = ms_since(t0);
        const scene::FrameInputs& in = frame.inputs;
        std::vector<uint16_t> color = image::floats_to_halves(in.color);
        std::vector<uint16_t> motion = image::floats_to_halves(in.motion);
        D4R_DEMO_CU(cuda.cuMemcpyHtoD_v2(d_color, color.data(), color.size() * 2));
        D4R_DEMO_CU(cuda.cuMemcpyHtoD_v2(d_depth, in.depth.data(), in.depth.size() * 4));
        D4R_DEMO_CU(cuda.cuMemcpyHtoD_v2(d_motion, motion.data(), motion.size() * 2));
        D4R_DEMO_CU(cuda.cuMemcpyHtoD_v2(d_exposure, &in.exposure, 4));

        auto as_ptr = [](CUdeviceptr d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d)); };
        ngx.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Color, as_ptr(d_color));
        ngx.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Depth, as_ptr(d_depth));
        ngx.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_MotionVectors, as_ptr(d_motion));
        ngx.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_ExposureTexture, as_ptr(d_exposure));
        ngx.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Output, as_ptr(d_output));
        ngx.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_Jitter_Offset_X, in.jitter_x);
        ngx.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_Jitter_Offset_Y, in.jitter_y);
        ngx.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_MV_Scale_X, 1.0f);
        ngx.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f);
        ngx.NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_Reset, i == 0 ? 1 : 0);

        auto t1 = Clock::now();
        D4R_DEMO_CU(cuda.cuEventRecord(dev.start, nullptr));
        D4R_TRY(ngx_check("NVSDK_NGX_CUDA_EvaluateFeature_C",
                          ngx.NVSDK_NGX_CUDA_EvaluateFeature_C(session.feature, p, nullptr)));
        D4R_DEMO_CU(cuda.cuEventRecord(dev.end, nullptr));
        D4R_DEMO_CU(cuda.cuEventSynchronize(dev.end));
        st.wall_ms = ms_since(t1);
        float gpu = 0;
        D4R_DEMO_CU(cuda.cuEventElapsedTime(&gpu, dev.start, dev.end));
        st.gpu_ms = gpu;
        D4R_DEMO_CU(cuda.cuMemcpyDtoH_v2(output_bits.data(), d_output, output_bits.size() * 2));
        if (baseline) {
            ngx.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Output, as_ptr(d_core));
            D4R_TRY(ngx_check("NVSDK_NGX_CUDA_EvaluateFeature_C (without the network)",
                              ngx.NVSDK_NGX_CUDA_EvaluateFeature_C(baseline, p, nullptr)));
            D4R_DEMO_CU(cuda.cuCtxSynchronize());
            core_bits.resize(output_bits.size());
            D4R_DEMO_CU(cuda.cuMemcpyDtoH_v2(core_bits.data(), d_core, core_bits.size() * 2));
            report.network_active = report.network_active || core_bits != output_bits;
        }
        if (!o.dump_dir.empty()) { // training pairs: the core's own output (docs/network.md, "Training")
            const std::vector<uint16_t>& core_out = baseline ? core_bits : output_bits;
            FrameDump dump{.width = o.output_width,
                           .height = o.output_height,
                           .exposure = in.exposure,
                           .frame_index = i,
                           .output = rgb_of_rgba_halves(core_out),
                           .truth = rgb_halves(frame.truth),
                           .inputs = std::nullopt};
            if (reference) {
                std::vector<uint16_t> ref_out(ow * oh * 4);
                float exposure = in.exposure;
                upscaler::FrameParams f;
                f.color = upscaler::host_address(color.data());
                f.depth = upscaler::host_address(in.depth.data());
                f.motion = upscaler::host_address(motion.data());
                f.exposure = upscaler::host_address(&exposure);
                f.output = upscaler::host_address(ref_out.data());
                f.render_width = o.render_width;
                f.render_height = o.render_height;
                f.jitter_x = in.jitter_x;
                f.jitter_y = in.jitter_y;
                f.reset = i == 0;
                std::vector<float> terms;
                D4R_TRY_CTX(reference->evaluate(f, o.scene_threads, &terms),
                            "the core's CPU reference (--dump-inputs)");
                if (ref_out != core_out && !reference_differs) {
                    reference_differs = true; // the fast native sets of a GPU are not the PTX's bytes
                    progress(fmt::format("note: frame {}: the CPU reference's output differs from the core's; the "
                                         "dumped terms are the reference's",
                                         i));
                }
                FrameInputs dumped{.render_width = o.render_width,
                                   .render_height = o.render_height,
                                   .jitter_x = in.jitter_x,
                                   .jitter_y = in.jitter_y,
                                   .history = i > 0,
                                   .depth = in.depth,
                                   .color = rgb_of_rgba_halves(color),
                                   .motion = motion,
                                   .terms = {}};
                dumped.terms.reserve(terms.size());
                for (float v : terms) dumped.terms.push_back(image::float_to_half(v));
                dump.inputs = std::move(dumped);
            }
            std::vector<uint8_t> bytes = D4R_TRY(encode_frame_dump(dump));
            D4R_TRY(write_file_atomic(fs::path(o.dump_dir) / frame_dump_name(scene_name, i), bytes));
        }

        image::Image out(o.output_width, o.output_height, 4, image::halves_to_floats(output_bits));
        image::Image input = color_image(in);
        image::Image bicubic = image::resize_bicubic(input, o.output_width, o.output_height);
        image::Image truth_d = image::tonemap(frame.truth, in.exposure);
        image::Image out_d = image::tonemap(out, in.exposure);
        image::Image bicubic_d = image::tonemap(bicubic, in.exposure);
        st.psnr_d4r = D4R_TRY(image::psnr(out_d, truth_d));
        st.ssim_d4r = D4R_TRY(image::ssim(out_d, truth_d));
        st.psnr_bicubic = D4R_TRY(image::psnr(bicubic_d, truth_d));
        st.ssim_bicubic = D4R_TRY(image::ssim(bicubic_d, truth_d));
        image::Image core_d;
        if (baseline) {
            core_d = image::tonemap(
                image::Image(o.output_width, o.output_height, 4, image::halves_to_floats(core_bits)), in.exposure);
            st.psnr_core = D4R_TRY(image::psnr(core_d, truth_d));
            st.ssim_core = D4R_TRY(image::ssim(core_d, truth_d));
        }
        if (i > 0) {
            st.tpsnr_d4r = temporal_psnr(out_d, prev_out_d, truth_d, prev_truth_d);
            if (baseline) st.tpsnr_core = temporal_psnr(core_d, prev_core_d, truth_d, prev_truth_d);
        }
        prev_out_d = out_d;
        prev_core_d = std::move(core_d);
        prev_truth_d = truth_d;
        progress(fmt::format(
            "frame {:>3}/{}: GPU {:8.2f} ms  PSNR d4r {:6.2f} dB, bicubic {:6.2f} dB  SSIM d4r {:.4f}, "
            "bicubic {:.4f}  (scene {:.0f} ms)",
            i + 1, o.frames, st.gpu_ms, st.psnr_d4r, st.psnr_bicubic, st.ssim_d4r, st.ssim_bicubic, st.render_ms));
        report.frames.push_back(st);

        if (i + 1 == o.frames && o.write_images) {
            image::Image bilinear = image::resize_bilinear(input, o.output_width, o.output_height);
            image::Image err = D4R_TRY(image::error_map(out_d, truth_d));
            std::pair<const char*, const image::Image*> files[] = {{"input_bilinear.png", nullptr},
                                                                   {"d4r.png", &out_d},
                                                                   {"bicubic.png", &bicubic_d},
                                                                   {"truth.png", &truth_d},
                                                                   {"error_d4r.png", &err}};
            image::Image bilinear_d = image::tonemap(bilinear, in.exposure);
            files[0].second = &bilinear_d;
            for (auto [name, img] : files) {
                fs::path path = fs::path(o.out_dir) / name;
                D4R_TRY(image::write_png(path, *img));
                report.images.push_back(path.string());
            }
        }
    }

    std::vector<double> gpu, wall, render;
    for (const FrameStats& f : report.frames) {
        gpu.push_back(f.gpu_ms);
        wall.push_back(f.wall_ms);
        render.push_back(f.render_ms);
    }
    report.median_gpu_ms = median(gpu);
    report.median_wall_ms = median(wall);
    report.median_render_ms = median(render);
    uint32_t n = std::min<uint32_t>(8, std::max<uint32_t>(1, (o.frames + 1) / 2));
    report.quality_frames = n;
    for (uint32_t i = o.frames - n; i < o.frames; ++i) {
        const FrameStats& f = report.frames[i];
        report.mean_psnr_d4r += f.psnr_d4r / n;
        report.mean_ssim_d4r += f.ssim_d4r / n;
        report.mean_psnr_bicubic += f.psnr_bicubic / n;
        report.mean_ssim_bicubic += f.ssim_bicubic / n;
        report.mean_psnr_core += f.psnr_core / n;
        report.mean_ssim_core += f.ssim_core / n;
        report.mean_tpsnr_d4r += f.tpsnr_d4r / n;
        report.mean_tpsnr_core += f.tpsnr_core / n;
    }

    if (!report.translated_note.empty()) {
        // already explained (no native kernels for this device)
    } else if (o.translated_frames == 0) {
        report.translated_note = "not measured (--translated-frames 0)";
    } else if (!report.native) {
        report.translated_note = "not measured (native kernels off)";
    } else if (Status s = measure_translated(o, scene_name, report, progress); !s) {
        report.translated_note = "failed: " + s.error().text();
        progress("translated run " + report.translated_note);
    }
    if (!o.dump_dir.empty())
        progress(fmt::format("wrote {} frame dumps to {} ({}-fNNN.d4rframe{})", o.frames, o.dump_dir, scene_name,
                             o.dump_inputs ? ", version 2 with the core's inputs and accumulate terms" : ""));
    report.total_seconds = ms_since(t_start) / 1000;
    D4R_TRY(write_file_atomic(fs::path(o.out_dir) / "report.json", report_json(report)));
    return report;
}

} // namespace d4r::demo
