// d4r kernels check: a kernel family's PTX and its native kernels on the same inputs, layer by layer
// (docs/network.md, "Checking native kernels").
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/env_vars.h"
#include "core/files.h"
#include "core/fnv1a.h"
#include "core/process.h"
#include "kernels_check_core.h"
#include "network/core_frame.h"
#include "network/job_file.h"
#include "network/layer_trace.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"
#include "upscaler/cuda_functions.h"
#include "upscaler/native_kernels.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;

struct CheckOptions {
    std::string family = "refine";
    std::string native_root;
    std::string backend = "cpu";
    std::string size = "72x40";
    uint64_t seed = 7;
    std::string model;
    bool fp8 = false; // the test model's refine-v1-fp8 variant
    // Fused plans in both runs (network/plan.h: d4r_nn_block for each f16 block, d4r_nn_coarse_block,
    // d4r_nn_pixel_embed and d4r_nn_pixel_head).
    bool fused = false;
    std::string lib_dir;
    bool accuracy = false;
    bool require_identical = false;
    double min_psnr = 0;
    std::string trace_out; // child mode (hidden)
    std::string write_job; // write the job file of the pass and stop
    std::string trace_in;  // compare this trace (made elsewhere) with the PTX path's
    std::string summary;   // with trace_in: write the comparison as tests/fixtures/amd's summary lines
};

fs::path self_exe() { return fs::read_symlink("/proc/self/exe"); }

Expected<network::Model> model_for(const CheckOptions& o) {
    if (o.model.empty()) return network::nettest::random_model(o.seed, o.fp8);
    return network::read_model(o.model);
}
bool reads_core_frame(const network::Model& model) { return network::reads_core_frame(model.arch); }

// The libcuda of lib_dir (default ../lib beside d4r) in this process, its device 0's primary context current.
Expected<upscaler::CudaFunctions> open_cuda(const CheckOptions& o) {
    fs::path lib = o.lib_dir.empty() ? self_exe().parent_path().parent_path() / "lib" : fs::path(o.lib_dir);
    auto cuda = D4R_TRY(upscaler::load_cuda_functions((lib / "libcuda.so.1").string()));
    abi::CUdevice dev = 0;
    abi::CUcontext ctx = nullptr;
    if (cuda.cuInit(0) != abi::CUDA_SUCCESS || cuda.cuDeviceGet(&dev, 0) != abi::CUDA_SUCCESS ||
        cuda.cuDevicePrimaryCtxRetain(&ctx, dev) != abi::CUDA_SUCCESS || cuda.cuCtxSetCurrent(ctx) != abi::CUDA_SUCCESS)
        return make_error(ErrorCode::NotFound, "no CUDA device on backend {} ({})", o.backend, lib.string());
    return cuda;
}

// The child: one traced forward pass on the libcuda of lib_dir, whatever its environment selects.
int run_child(const CheckOptions& o, uint32_t w, uint32_t h) {
    auto model = model_for(o);
    if (!model) return report_error(model.error());
    auto cuda = open_cuda(o);
    if (!cuda) return report_error(cuda.error());
    // refine-v2 reads the core's frame: the core runs first (kernels_check_core.h).
    const network::PlanOptions options{.fuse_blocks = o.fused, .fuse_pixels = o.fused, .fuse_coarse = o.fused};
    auto trace = reads_core_frame(*model)
                     ? trace_after_core(*cuda, *model, w, h, o.seed, options)
                     : network::trace_forward(*cuda, *model, network::nettest::test_image(w, h, o.seed), w, h,
                                              network::kernel_ptx, options);
    if (!trace) return report_error(trace.error());
    if (Status s = network::write_trace(o.trace_out, *trace); !s) return report_error(s.error());
    return kExitOk;
}

// Runs this binary as a child with the native kernel root `root` ("" = none: the PTX path).
Expected<network::LayerTrace> traced_run(const CheckOptions& o, const fs::path& out, const std::string& root,
                                         std::string& log) {
    setenv(env_name(EnvVar::CudaBackend), o.backend.c_str(), 1);
    setenv(env_name(EnvVar::Log), "info", 1);
    setenv(env_name(EnvVar::PreferAccuracy), o.accuracy ? "1" : "0", 1);
    if (root.empty())
        unsetenv(env_name(EnvVar::NativeKernelDir));
    else
        setenv(env_name(EnvVar::NativeKernelDir), root.c_str(), 1);
    std::vector<std::string> argv = {self_exe().string(),   "kernels", "check",  "--trace-out", out.string(),
                                     "--backend",           o.backend, "--size", o.size,        "--seed",
                                     std::to_string(o.seed)};
    if (!o.model.empty()) argv.insert(argv.end(), {"--model", o.model});
    if (o.fp8) argv.push_back("--fp8");
    if (o.fused) argv.push_back("--fused");
    if (!o.lib_dir.empty()) argv.insert(argv.end(), {"--lib-dir", o.lib_dir});
    auto r = run_process(argv, std::chrono::minutes(30));
    if (!r) return std::move(r).error();
    log = r->output;
    if (r->exit_code != 0)
        return make_error(ErrorCode::Invalid, "the {} run exited with {}: {}", root.empty() ? "PTX" : "native",
                          r->exit_code, r->output.substr(r->output.size() > 2000 ? r->output.size() - 2000 : 0));
    return network::read_trace(out);
}

// A private temporary folder, removed with everything in it when it goes out of scope.
struct TempFolder {
    fs::path path;
    TempFolder() = default;
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    ~TempFolder() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
    static Expected<std::unique_ptr<TempFolder>> make() {
        std::string pattern = (fs::temp_directory_path() / "d4r-kernels-check-XXXXXX").string();
        if (!mkdtemp(pattern.data())) return make_error(ErrorCode::Io, "cannot create a temporary folder {}", pattern);
        auto t = std::make_unique<TempFolder>();
        t->path = pattern;
        return t;
    }
};

// One line per launch and a result line (the lowest layer PSNR before the image, and the image as displayed:
// layer_trace.h); true when --require-identical or --min-psnr fails. PTX and OTHER are the compared traces.
bool print_comparison(const CheckOptions& o, const std::vector<network::LayerComparison>& rows,
                      const network::LayerTrace& ptx, const network::LayerTrace& other) {
    fmt::print("{:>3}  {:<18} {:<14} {}\n", "#", "kernel", "layer", "result");
    size_t differing = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const network::LayerComparison& c = rows[i];
        std::string result = "identical";
        if (c.differ) {
            ++differing;
            result =
                fmt::format("{} of {} values differ, max {} ulp (1: {}, 2-3: {}, 4-15: {}, 16+: {}), PSNR {:.1f} dB",
                            c.differ, c.values, c.max_ulp, c.ulps_1, c.ulps_2_3, c.ulps_4_15, c.ulps_16, c.psnr_db);
        }
        fmt::print("{:>3}  {:<18} {:<14} {}\n", i, c.kernel, c.layer, result);
    }
    if (rows.empty() || ptx.empty() || other.empty()) return false;
    const network::LayerComparison& last = rows.back();
    const network::LayerComparison* lowest = nullptr;
    for (size_t i = 0; i + 1 < rows.size(); ++i)
        if (rows[i].differ && (!lowest || rows[i].psnr_db < lowest->psnr_db)) lowest = &rows[i];
    const double displayed = network::displayed_psnr(ptx.back().bytes, other.back().bytes);
    fmt::print("result: {} of {} launches identical; {}the image: {}\n", rows.size() - differing, rows.size(),
               lowest ? fmt::format("lowest layer {} ({}) {:.1f} dB; ", lowest->layer, lowest->kernel, lowest->psnr_db)
                      : std::string(),
               last.differ
                   ? fmt::format("PSNR {:.1f} dB as displayed (tone-mapped), {:.1f} dB linear", displayed, last.psnr_db)
                   : std::string("identical"));
    return (o.require_identical && differing) ||
           (o.min_psnr > 0 && ((lowest && lowest->psnr_db < o.min_psnr) || (last.differ && displayed < o.min_psnr)));
}

// --write-job: the pass as a job file for a runner outside d4r (tools/rocjitsu's d4r-rj-run).
// The job of MODEL's pass: over the test image, or for refine-v2 over the core's frame, which the core's PTX makes
// here on the chosen backend as the PTX run of --trace makes it (network/core_frame.h).
Expected<network::Job> job_for(const CheckOptions& o, const network::Model& model, uint32_t w, uint32_t h,
                               const std::string& note) {
    if (!reads_core_frame(model))
        return network::refine_job(model, network::nettest::test_image(w, h, o.seed), w, h, note);
    setenv(env_name(EnvVar::CudaBackend), o.backend.c_str(), 1);
    unsetenv(env_name(EnvVar::NativeKernelDir));
    const upscaler::CudaFunctions cuda = D4R_TRY(open_cuda(o));
    network::CoreFrame frame;
    D4R_TRY(network::with_core_frame(cuda, w, h, o.seed, [&](const upscaler::math::Params& core) -> Status {
        frame = D4R_TRY(network::copy_core_frame(cuda, core));
        return ok_status();
    }));
    return network::refine_job_after_core(model, frame, note);
}

int write_job(const CheckOptions& o, uint32_t w, uint32_t h) {
    auto model = model_for(o);
    if (!model) return report_error(model.error());
    const std::string note = fmt::format("refine {}x{} seed {} {}", w, h, o.seed,
                                         o.model.empty() ? (o.fp8 ? "fp8 test model" : "test model") : o.model);
    auto job = job_for(o, *model, w, h, note);
    if (!job) return report_error(job.error());
    if (Status s = network::write_job(o.write_job, *job); !s) return report_error(s.error());
    uint64_t bytes = 0;
    for (const network::JobRegion& r : job->regions) bytes += r.size;
    fmt::print("wrote {}: {}, {} regions ({} bytes), {} launches\n", o.write_job, note, job->regions.size(), bytes,
               job->launches.size());
    return kExitOk;
}

// The comparison as lines a test reads back (tests/fixtures/amd, tests/network/amd_results_test.cpp): the job's
// parameters, per launch identical or its differences, and the FNV-1a 64 of the bytes of the compared trace; the
// image's PSNR linear and as displayed (tone-mapped, what --min-psnr holds it to).
Status write_summary(const CheckOptions& o, uint32_t w, uint32_t h, const std::vector<network::LayerComparison>& rows,
                     const network::LayerTrace& ptx, const network::LayerTrace& trace) {
    std::string text = fmt::format("family {}\nsize {}x{}\nseed {}\nmodel {}\n", o.family, w, h, o.seed,
                                   o.model.empty() ? (o.fp8 ? "test-fp8" : "test") : o.model);
    size_t identical = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const network::LayerComparison& c = rows[i];
        identical += c.differ == 0;
        const std::string result = c.differ == 0 ? std::string("identical")
                                                 : fmt::format("differ {}/{} max_ulp {} psnr {:.2f}", c.differ,
                                                               c.values, c.max_ulp, c.psnr_db);
        text += fmt::format("launch {} {} {} {} fnv1a64 {:016x}\n", i, c.kernel, c.layer, result,
                            fnv1a64(std::span<const uint8_t>(trace[i].bytes)));
    }
    const network::LayerComparison& last = rows.back();
    text += fmt::format("result {}/{} image {}\n", identical, rows.size(),
                        last.differ ? fmt::format("psnr {:.2f} displayed {:.2f}", last.psnr_db,
                                                  network::displayed_psnr(ptx.back().bytes, trace.back().bytes))
                                    : std::string("identical"));
    return write_file_atomic(o.summary, std::string_view(text));
}

// --trace: a trace made elsewhere (d4r-rj-run on rocjitsu) against the PTX path's trace computed here.
int compare_trace_file(const CheckOptions& o, uint32_t w, uint32_t h) {
    auto other = network::read_trace(o.trace_in);
    if (!other) return report_error(other.error());
    auto dir = TempFolder::make();
    if (!dir) return report_error(dir.error());
    std::string ptx_log;
    auto ptx = traced_run(o, (*dir)->path / "ptx.trace", "", ptx_log);
    if (!ptx) return report_error(ptx.error());
    auto rows = network::compare_traces(*ptx, *other);
    if (!rows) {
        Error e = rows.error();
        return report_error(e.add_context(o.trace_in));
    }
    fmt::print("d4r kernels check: family {}, PTX on backend {} against the trace {}, {}x{}, {} (seed {})\n", o.family,
               o.backend, o.trace_in, w, h, o.model.empty() ? (o.fp8 ? "fp8 test model" : "test model") : o.model,
               o.seed);
    const bool failed = print_comparison(o, *rows, *ptx, *other);
    if (!o.summary.empty()) {
        if (Status s = write_summary(o, w, h, *rows, *ptx, *other); !s) return report_error(s.error());
    }
    return failed ? kExitFailed : kExitOk;
}

int run_check(const CheckOptions& o) {
    if (o.family != "refine")
        return report_error(
            make_error(ErrorCode::Invalid, "--family '{}': the families with a layer trace are: refine", o.family));
    uint32_t w = 0, h = 0;
    if (std::sscanf(o.size.c_str(), "%ux%u", &w, &h) != 2 || w < 8 || h < 8 || w > 4096 || h > 4096)
        return report_error(make_error(ErrorCode::Invalid, "--size '{}': expected WxH, 8..4096 each", o.size));
    if (!o.trace_out.empty()) return run_child(o, w, h);
    if (o.fp8 && !o.model.empty())
        return report_error(make_error(ErrorCode::Invalid, "--fp8 is the test model's variant: not with --model"));
    if (!o.write_job.empty() && !o.trace_in.empty())
        return report_error(make_error(ErrorCode::Invalid, "--write-job and --trace: give one of them"));
    if (!o.write_job.empty() && o.fused)
        return report_error(make_error(ErrorCode::Invalid, "--fused: a job holds the unfused plan (the AMD sets, which "
                                                           "run jobs, have no d4r_nn_block)"));
    if (!o.write_job.empty()) return write_job(o, w, h);
    if (!o.trace_in.empty()) return compare_trace_file(o, w, h);
    auto model = model_for(o); // for the kernels its plan launches
    if (!model) return report_error(model.error());

    std::string root = o.native_root;
    if (root.empty()) {
        fs::path installed = upscaler::installed_native_kernel_root(self_exe().parent_path());
        root = (is_dir(installed) ? installed : upscaler::build_native_kernel_root()).string();
    }
    if (!is_dir(root)) return report_error(make_error(ErrorCode::NotFound, "--native-root {}: no such folder", root));
    // The two traces live in a private temporary folder, removed on every path out.
    auto dir = TempFolder::make();
    if (!dir) return report_error(dir.error());
    std::string ptx_log, native_log;
    auto ptx = traced_run(o, (*dir)->path / "ptx.trace", "", ptx_log);
    if (!ptx) return report_error(ptx.error());
    // A network after the core: the native run serves the network's kernels only, so that the core runs from PTX in
    // both runs and both passes read the same frame.
    std::string native_root = root;
    if (reads_core_frame(*model)) {
        const fs::path only = (*dir)->path / "network-kernels";
        if (Status s = network_only_root(root, only); !s) return report_error(s.error());
        native_root = only.string();
    }
    auto native = traced_run(o, (*dir)->path / "native.trace", native_root, native_log);
    if (!native) return report_error(native.error());
    auto rows = network::compare_traces(*ptx, *native);
    if (!rows) return report_error(rows.error());

    // The kernels the model's plan launches (refine-v1: 7; refine-v1-fp8: 8, d4r_nn_linear_fp8 too).
    const std::vector<network::Kernel> used =
        network::plan_kernels(model->arch, {.fuse_blocks = o.fused, .fuse_pixels = o.fused, .fuse_coarse = o.fused});
    size_t served = 0;
    for (network::Kernel k : used)
        served +=
            native_log.find(fmt::format("native kernels: serving {} ", network::kernel_name(k))) != std::string::npos;
    fmt::print("d4r kernels check: family {}, {} on backend {}, {} set of {}, {}x{}{}{}, {} (seed {})\n", o.family,
               "PTX against native kernels", o.backend, o.accuracy ? "accuracy" : "fast", root, w, h,
               o.fused ? ", fused plan" : "",
               reads_core_frame(*model) ? " after three frames of the core (from PTX in both runs)" : "",
               o.model.empty() ? (o.fp8 ? "fp8 test model" : "test model") : o.model, o.seed);
    fmt::print("native kernels served: {} of {}\n", served, used.size());
    const bool failed = print_comparison(o, *rows, *ptx, *native);
    if (served == 0) {
        fmt::print(stderr,
                   "d4r: error: the native run served no kernel of the family: nothing was compared "
                   "(is {} a set for backend {}?)\n",
                   root, o.backend);
        return kExitFailed;
    }
    return failed ? kExitFailed : kExitOk;
}

} // namespace

void register_kernels_check_verb(CLI::App& kernels) {
    auto o = std::make_shared<CheckOptions>();
    CLI::App* sub = kernels.add_subcommand(
        "check", "run a kernel family's PTX and its native kernels on the same inputs, layer by layer, and report "
                 "identical bytes or the ulp histogram and PSNR of each layer");
    sub->add_option("--family", o->family, "kernel family (refine)")->capture_default_str();
    sub->add_option("--native-root", o->native_root,
                    "kernel root of the native set (default: share/d4r/native beside bin/, else the build's)");
    sub->add_flag("--accuracy", o->accuracy, "accuracy mode: the root's accuracy set (D4R_PREFER_ACCURACY=1)");
    sub->add_option("--backend", o->backend, "CUDA backend of both runs (cpu, driver, driver:/path/libcuda.so)")
        ->capture_default_str();
    sub->add_option("--size", o->size, "image size WxH")->capture_default_str();
    sub->add_option("--seed", o->seed, "seed of the test model and image")->capture_default_str();
    sub->add_option("--model", o->model, "a model file instead of the test model");
    sub->add_flag("--fp8", o->fp8, "the test model's refine-v1-fp8 variant (enc2's linears in e4m3)");
    sub->add_flag(
        "--fused", o->fused,
        "fused plans in both runs: each transformer block with f16 weights is one d4r_nn_block launch, the coarse "
        "level (merge, enc2, expand) one d4r_nn_coarse_block launch, and refine-v2's pixel features with its embed "
        "one d4r_nn_pixel_embed launch and its head with the blend one d4r_nn_pixel_head launch");
    sub->add_option("--lib-dir", o->lib_dir, "folder with libcuda.so.1 (default ../lib beside d4r)");
    sub->add_flag("--require-identical", o->require_identical, "exit 1 unless every layer is identical");
    sub->add_option("--min-psnr", o->min_psnr,
                    "exit 1 if a layer's PSNR, or the image's as displayed (tone-mapped), is below this (dB; 0 = off)");
    sub->add_option("--write-job", o->write_job,
                    "write the pass (model, image, launches at fixed addresses) as a job file for a runner outside "
                    "d4r, such as tools/rocjitsu's d4r-rj-run, and stop");
    sub->add_option("--trace", o->trace_in,
                    "compare this trace file (one launch's output after another, from such a runner) with the PTX "
                    "path's trace computed here, instead of running a native set");
    sub->add_option("--summary", o->summary,
                    "with --trace: also write the comparison as summary lines (job parameters, per launch the "
                    "result and the FNV-1a 64 of its bytes), as tests/fixtures/amd holds them");
    sub->add_option("--trace-out", o->trace_out, "(internal) write one run's trace to this file")->group("");
    set_action(sub, [o] { return run_check(*o); });
}

} // namespace d4r::cli
