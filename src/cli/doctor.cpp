#include "doctor.h"

#include <chrono>

#include <fmt/format.h>

#include "config/locate.h"
#include "config/resolve.h"
#include "core/env_vars.h"
#include "core/files.h"
#include "core/process.h"
#include "core/strings.h"
#include "doctor_install.h"
#include "doctor_probes.h"
#include "doctor_windows.h"
#include "kernelset/accuracy_policy.h"
#include "kernelset/gpu_topology.h"
#include "kernelset/kernel_set.h"

namespace d4r::cli {

const char* check_status_name(CheckStatus status) {
    switch (status) {
    case CheckStatus::Ok:
        return "ok";
    case CheckStatus::Warn:
        return "warn";
    case CheckStatus::Fail:
        return "fail";
    }
    return "?";
}

namespace {

using namespace std::chrono_literals;
using config::KeyId;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A configured path, or nullopt when the key is auto/empty.
std::optional<std::string> configured(const config::ResolvedConfig* cfg, KeyId id) {
    if (!cfg) return std::nullopt;
    const config::ResolvedValue& v = cfg->get(id);
    if (v.is_auto()) return std::nullopt;
    return v.value;
}

bool configured_bool(const config::ResolvedConfig* cfg, KeyId id, bool fallback) {
    if (!cfg) return fallback;
    return cfg->get(id).as_bool().value_or(fallback);
}

void check_config(const DoctorOptions& o, const Environment& env, std::vector<CheckLine>& out,
                  std::optional<config::ResolvedConfig>& resolved) {
    auto location = config::locate_config_file(env, o.config, o.cwd);
    if (!location) {
        out.push_back(
            check_line(CheckStatus::Fail, "config", location.error().text(), "fix the path or unset D4R_CONFIG"));
        return;
    }
    auto source = config::read_config_source(*location);
    if (!source) {
        out.push_back(check_line(CheckStatus::Fail, "config", source.error().text()));
        return;
    }
    auto cfg = config::resolve_config(*source, env);
    if (!cfg) {
        std::string text = cfg.error().text();
        size_t count = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
        out.push_back(check_line(CheckStatus::Fail, "config",
                                 count > 1 ? fmt::format("{} (and {} more errors)", first_line(text), count - 1) : text,
                                 "run 'd4r config check' for every error"));
        // Go on with built-in defaults so the other checks still say something useful.
        if (auto defaults = config::resolve_config(config::ConfigSource::none(), env)) resolved = std::move(*defaults);
        return;
    }
    std::string where = location->describe();
    if (!cfg->warnings().empty()) {
        out.push_back(check_line(CheckStatus::Warn, "config",
                                 fmt::format("{}: valid, {} warning(s): {}", where, cfg->warnings().size(),
                                             first_line(cfg->warnings().front().text())),
                                 "run 'd4r config check' to see them all"));
    } else if (!location->path) {
        out.push_back(check_line(CheckStatus::Ok, "config", where,
                                 "copy config/d4r.ini.default to ~/.config/d4r/d4r.ini to change settings"));
    } else {
        out.push_back(check_line(CheckStatus::Ok, "config", where + ": valid"));
    }
    resolved = std::move(*cfg);
}

kernels::ArchDecision check_gpu(const DoctorOptions& o, const Environment& env, std::vector<CheckLine>& out) {
    auto decision = kernels::decide_gpu_arch(env, o.kfd_root);
    kernels::ArchDecision d = decision ? *decision : kernels::ArchDecision{};
    for (const std::string& w : d.warnings) out.push_back(check_line(CheckStatus::Warn, "gpu", w));
    if (d.gpus.empty()) {
        std::string hint = "d4r runs DLSS on AMD Radeon RDNA3/RDNA4 GPUs through the amdgpu driver's KFD";
        if (d.arch.empty()) {
            out.push_back(check_line(CheckStatus::Warn, "gpu",
                                     fmt::format("no AMD GPU found in {}", o.kfd_root.string()),
                                     hint + "; set D4R_GPU_ARCH=gfx… to choose kernels for another machine"));
        } else {
            out.push_back(check_line(
                CheckStatus::Warn, "gpu",
                fmt::format("no AMD GPU found in {}; using {} from {}", o.kfd_root.string(), d.arch, d.source)));
        }
        return d;
    }
    std::string seen;
    for (const kernels::GpuNode& g : d.gpus) {
        seen += fmt::format("{}node {} {} ({} SIMDs)", seen.empty() ? "" : ", ", g.node, g.arch, g.simd_count);
    }
    bool supported = starts_with(d.arch, "gfx110") || starts_with(d.arch, "gfx120");
    out.push_back(check_line(
        supported ? CheckStatus::Ok : CheckStatus::Warn, "gpu",
        fmt::format("using {} (from {}); seen: {}", d.arch, d.source, seen),
        supported ? "" : "d4r's native kernels target RDNA3 (gfx1100-gfx1103) and RDNA4 (gfx1200, gfx1201)"));
    return d;
}

void check_kernels(const config::ResolvedConfig* cfg, const Environment& env, const kernels::ArchDecision& gpu,
                   std::vector<CheckLine>& out) {
    std::string mode = cfg ? cfg->get(KeyId::KernelsNativeKernels).value : "off";
    std::optional<std::string> root = env_text(env, EnvVar::NativeKernelDir);
    std::string root_source = env_name(EnvVar::NativeKernelDir);
    if (!root) {
        if (mode == "off") {
            out.push_back(check_line(CheckStatus::Ok, "kernels",
                                     "native kernels off ([Kernels] NativeKernels = off): every "
                                     "kernel compiles from PTX"));
            return;
        }
        root = cfg ? cfg->kernel_root() : std::nullopt;
        root_source = "[Paths] NativeKernelDir";
        if (!root) {
            out.push_back(check_line(CheckStatus::Warn, "kernels",
                                     fmt::format("NativeKernels = {} but no kernel root is configured", mode),
                                     "set [Paths] NativeKernelDir (or RuntimeDir) in d4r.ini"));
            return;
        }
    }
    if (!is_dir(*root)) {
        out.push_back(check_line(CheckStatus::Fail, "kernels",
                                 fmt::format("kernel root {} (from {}) does not exist", *root, root_source),
                                 "install a release's d4r/kernels folder or fix the path"));
        return;
    }
    bool accuracy = kernels::accuracy_preferred(env) || configured_bool(cfg, KeyId::KernelsPreferAccuracy, false);
    bool fp8 = configured_bool(cfg, KeyId::KernelsNativeFp8, true) && configured_bool(cfg, KeyId::KernelsFp8Wmma, true);
    kernels::Selection s = kernels::select_kernel_set({*root, gpu.arch, accuracy, fp8});
    std::string mode_text = accuracy ? "accuracy mode" : "fast mode";
    if (s.kind == kernels::KernelSetKind::None) {
        out.push_back(check_line(
            CheckStatus::Warn, "kernels",
            fmt::format("{} ({}): no kernel set for {}: every kernel compiles from PTX (slower, still correct)", *root,
                        mode_text, gpu.arch.empty() ? "an unknown GPU" : gpu.arch),
            "run 'd4r kernels select --root " + shell_quote(*root) + " --explain' to see why"));
    } else {
        out.push_back(check_line(CheckStatus::Ok, "kernels",
                                 fmt::format("{} ({}): {} set {}", *root, mode_text,
                                             kernels::kernel_set_kind_name(s.kind), s.path.string())));
    }
    if (accuracy) {
        auto cache = kernels::accuracy_cache_dir(env);
        if (!cache) {
            out.push_back(check_line(CheckStatus::Fail, "kernels", "accuracy JIT cache: " + cache.error().text(),
                                     "set [Paths] CacheDir to a short absolute path"));
        } else {
            out.push_back(check_line(CheckStatus::Ok, "kernels", "accuracy JIT cache: " + cache->string()));
        }
    }
}

void check_nvidia(std::vector<CheckLine>& out) {
    CudaProbe p = probe_cuda_driver();
    if (!p.loaded) {
        out.push_back(check_line(CheckStatus::Warn, "nvidia", "NVIDIA driver (libcuda.so.1) not found: " + p.error,
                                 "only needed to run d4r on an NVIDIA GPU; the cpu backend and ZLUDA do not need it"));
        return;
    }
    std::string version = p.driver_version
                              ? fmt::format("CUDA {}.{}", p.driver_version / 1000, (p.driver_version % 1000) / 10)
                              : "unknown version";
    if (!p.error.empty()) {
        out.push_back(check_line(CheckStatus::Warn, "nvidia", fmt::format("{}: {}", p.library, p.error)));
    } else if (p.init_result != 0) {
        out.push_back(check_line(CheckStatus::Warn, "nvidia",
                                 fmt::format("{} ({}) loaded but cuInit failed with CUresult {}{}", p.library, version,
                                             p.init_result, p.init_result == 100 ? " (no device)" : ""),
                                 "the driver backend needs an NVIDIA GPU; d4r falls back to the cpu backend"));
    } else if (p.device_count == 0) {
        out.push_back(
            check_line(CheckStatus::Warn, "nvidia", fmt::format("{} ({}) sees no device", p.library, version)));
    } else {
        out.push_back(
            check_line(CheckStatus::Ok, "nvidia",
                       fmt::format("{} ({}), {} device(s): {}", p.library, version, p.device_count, p.first_device)));
    }
}

void check_zluda(const config::ResolvedConfig* cfg, std::vector<CheckLine>& out) {
    std::optional<std::string> dir = configured(cfg, KeyId::PathsZludaDir);
    std::string source = "[Paths] ZludaDir";
    if (!dir) {
        if (auto runtime = configured(cfg, KeyId::PathsRuntimeDir)) {
            dir = (std::filesystem::path(*runtime) / "zluda").string();
            source = "[Paths] RuntimeDir/zluda";
        }
    }
    if (!dir) {
        out.push_back(check_line(CheckStatus::Warn, "zluda",
                                 "ZLUDA not configured ([Paths] ZludaDir and RuntimeDir are auto)",
                                 "set [Paths] ZludaDir to the folder holding ZLUDA's libcuda.so to run on an AMD GPU"));
        return;
    }
    for (const char* name : {"libcuda.so", "libcuda.so.1"}) {
        std::filesystem::path lib = std::filesystem::path(*dir) / name;
        if (is_file(lib)) {
            out.push_back(check_line(CheckStatus::Ok, "zluda", fmt::format("{} (from {})", lib.string(), source)));
            return;
        }
    }
    // Only a folder the user named is wrong when it has no ZLUDA; RuntimeDir/zluda is just where a
    // release keeps it, and a development build's RuntimeDir (D4R_RUNTIME_DIR for the bridge) has none.
    const bool named = source == "[Paths] ZludaDir";
    out.push_back(check_line(named ? CheckStatus::Fail : CheckStatus::Warn, "zluda",
                             fmt::format("no libcuda.so in {} (from {})", *dir, source),
                             named ? "point [Paths] ZludaDir at the folder with ZLUDA's libcuda.so"
                                   : "without ZLUDA d4r runs on the cpu backend or NVIDIA's driver; to use an AMD GPU, "
                                     "put ZLUDA's libcuda.so there or set [Paths] ZludaDir"));
}

void check_hip(const config::ResolvedConfig* cfg, std::vector<CheckLine>& out) {
    std::vector<std::string> candidates;
    if (auto rocm = configured(cfg, KeyId::PathsRocmDir)) {
        candidates.push_back((std::filesystem::path(*rocm) / "lib" / "libamdhip64.so").string());
    }
    candidates.push_back("libamdhip64.so");
    std::string last_error;
    for (const std::string& c : candidates) {
        auto found = probe_library(c);
        if (found) {
            out.push_back(
                check_line(CheckStatus::Ok, "hip", "HIP runtime " + *found + " (runs .hsaco native kernels)"));
            return;
        }
        last_error = found.error().text();
    }
    out.push_back(check_line(CheckStatus::Warn, "hip", "HIP runtime (libamdhip64.so) not found: " + last_error,
                             "AMD native kernels need ROCm's HIP runtime; set [Paths] RocmDir"));
}

void check_wine(const DoctorOptions& o, std::vector<CheckLine>& out) {
    std::vector<std::string> found;
    for (const char* name : {"wine64", "wine"})
        if (std::string path = find_in_path(name); !path.empty()) found.push_back(path);
    for (const std::filesystem::path& p : o.wine_fallbacks)
        if (is_file(p)) found.push_back(p.string());
    for (const std::string& path : found) {
        auto r = run_process({path, "--version"}, 20s);
        if (r && r->exit_code == 0) {
            out.push_back(
                check_line(CheckStatus::Ok, "wine", fmt::format("{} ({})", std::string(trim(r->output)), path)));
        } else {
            out.push_back(check_line(CheckStatus::Warn, "wine",
                                     fmt::format("{} does not run: {}", path,
                                                 r ? fmt::format("exit status {}", r->exit_code) : r.error().text()),
                                     "reinstall Wine (apt-get install wine64)"));
        }
        return;
    }
    out.push_back(
        check_line(CheckStatus::Warn, "wine", "Wine not found (wine64 or wine in PATH, /usr/lib/wine/wine64)",
                   "games run under Proton; for d4r's Windows-side tests install wine64 (apt-get install wine64)"));
}

void check_proton(const config::ResolvedConfig* cfg, std::vector<CheckLine>& out) {
    std::optional<std::string> proton = configured(cfg, KeyId::LaunchProtonDir);
    std::optional<std::string> compat = configured(cfg, KeyId::LaunchCompatDataDir);
    if (!proton && !compat) {
        out.push_back(check_line(CheckStatus::Ok, "proton",
                                 "not configured ([Launch] ProtonDir, CompatDataDir): only 'd4r play' needs them"));
        return;
    }
    if (proton) {
        std::filesystem::path script = std::filesystem::path(*proton) / "proton";
        if (!is_dir(*proton))
            out.push_back(
                check_line(CheckStatus::Fail, "proton", fmt::format("[Launch] ProtonDir {} does not exist", *proton)));
        else if (!is_file(script))
            out.push_back(check_line(CheckStatus::Fail, "proton",
                                     fmt::format("[Launch] ProtonDir {} has no 'proton' script", *proton),
                                     "point it at a Proton install, e.g. .../steamapps/common/Proton 9.0"));
        else
            out.push_back(check_line(CheckStatus::Ok, "proton", "Proton " + *proton));
    }
    if (compat) {
        if (!is_dir(*compat))
            out.push_back(check_line(CheckStatus::Fail, "proton",
                                     fmt::format("[Launch] CompatDataDir {} does not exist", *compat)));
        else if (!is_dir(std::filesystem::path(*compat) / "pfx"))
            out.push_back(check_line(CheckStatus::Warn, "proton",
                                     fmt::format("[Launch] CompatDataDir {} has no pfx/ prefix yet", *compat),
                                     "start the game once with Proton to create it"));
        else
            out.push_back(
                check_line(CheckStatus::Ok, "proton", "prefix " + (std::filesystem::path(*compat) / "pfx").string()));
    }
}

// Which data path a game's frames take through the shim, and why (docs/performance.md, "The shim's host data path").
void check_data_path(const config::ResolvedConfig* cfg, const std::filesystem::path& lib_dir,
                     std::vector<CheckLine>& out) {
    const std::string host = "the host path (the frames are read back, converted on the CPU and uploaded for CUDA, "
                             "and the result goes back the same way)";
    if (configured_bool(cfg, KeyId::InteropVramInterop, true))
        out.push_back(check_line(
            CheckStatus::Ok, "datapath",
            "D3D12 games: the mapped path (CUDA reads the frames where the GPU copied them, in D3D12 buffers it maps, "
            "and writes the result into one: no CPU copy; each frame still crosses the bus both ways; formats and row "
            "layouts other than the core's converted on the GPU), else " +
                host +
                " (with the shim's CPU passes, or when CUDA cannot map the buffers); a VRAM path through "
                "vkd3d-proton is not built yet"));
    else
        out.push_back(check_line(CheckStatus::Ok, "datapath",
                                 "D3D12 games: " + host + " for every frame, as [Interop] VramInterop = false asks"));
    const std::filesystem::path front_end = lib_dir / "libd4r_nvngx.so";
    std::error_code ec;
    if (!lib_dir.empty() && std::filesystem::is_regular_file(front_end, ec))
        out.push_back(check_line(CheckStatus::Ok, "datapath",
                                 "native Linux Vulkan games: the VRAM path of " + front_end.string() +
                                     " (the frames stay in memory Vulkan and CUDA share, the result lands in the same "
                                     "frame; formats other than the core's converted on the GPU)" +
                                     (configured_bool(cfg, KeyId::InteropVramInterop, true)
                                          ? std::string()
                                          : std::string("; its host path (through host memory and the CPU) for every "
                                                        "frame while [Interop] VramInterop = false"))));
    else
        out.push_back(check_line(CheckStatus::Warn, "datapath",
                                 "native Linux Vulkan games: the Vulkan front end libd4r_nvngx.so is not in " +
                                     (lib_dir.empty() ? std::string("d4r's lib folder") : lib_dir.string()),
                                 "build it (cmake, with libvulkan-dev installed) or install d4r's lib folder"));
    out.push_back(check_line(CheckStatus::Ok, "datapath",
                             "Windows Vulkan games under Proton: d4r_nvngx.dll's NGX Vulkan entry points, through its "
                             "host path (a Windows program's Vulkan memory cannot be shared with CUDA as a file "
                             "descriptor; the frames are read back, converted on the CPU and uploaded, and the result "
                             "lands in the same frame)"));
}

} // namespace

std::vector<CheckLine> run_doctor(const DoctorOptions& options, const Environment& env) {
    std::vector<CheckLine> out;
    std::optional<config::ResolvedConfig> resolved;
    check_config(options, env, out, resolved);
    const config::ResolvedConfig* cfg = resolved ? &*resolved : nullptr;
    kernels::ArchDecision gpu = check_gpu(options, env, out);
    check_kernels(cfg, env, gpu, out);
    check_nvidia(out);
    check_zluda(cfg, out);
    check_hip(cfg, out);
    check_wine(options, out);
    check_windows_side(env, options.lib_dir, out);
    check_proton(cfg, out);
    check_data_path(cfg, options.lib_dir, out);
    check_install({options.game_dir, options.prefix, options.system_glibc, options.launch_options}, cfg, env, out);
    return out;
}

} // namespace d4r::cli
