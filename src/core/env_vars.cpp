#include "env_vars.h"

#include <array>
#include <limits>

#include <fmt/format.h>

#include "core/log.h"
#include "core/strings.h"

namespace d4r {

namespace {

using enum EnvType;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

constexpr std::string_view kRuntime = "runtime (libd4rcuda)";
constexpr std::string_view kCpu = "cpu backend (libd4rcuda)";
constexpr std::string_view kShim = "NGX shim (d4r_nvngx.dll)";
constexpr std::string_view kZluda = "ZLUDA (outside d4r); d4r only sets it";
constexpr std::string_view kLauncher = "the game launcher (outside d4r's code); d4r.ini exports it";

// THE table, in EnvVar order. Help texts land in markdown cells: plain sentences, no '|'.
constexpr std::array<EnvVarInfo, kEnvVarCount> kVars{{
    {EnvVar::Log, "D4R_LOG", Enum, "warn", 0, 0, "off,error,warn,warning,info,debug,trace,0,1,2,3,4,5",
     "logging (every component)", "How much d4r logs."},
    {EnvVar::LogFile, "D4R_LOG_FILE", Path, "", 0, 0, "", "logging (every component)",
     "Append the log to this file instead of stderr."},
    {EnvVar::Config, "D4R_CONFIG", Path, "", 0, 0, "", "config (d4r CLI, launcher)",
     "The d4r.ini to read instead of searching ./d4r.ini and ~/.config/d4r/d4r.ini."},
    {EnvVar::NoConfig, "D4R_NO_CONFIG", Bool, "false", 0, 0, "", "config (d4r CLI, launcher)",
     "Read no d4r.ini: the built-in defaults."},
    {EnvVar::GameProfiles, "D4R_GAME_PROFILES", Path, "", 0, 0, "", "config (d4r CLI, launcher)",
     "A game-profiles.ini to use instead of the per-game profiles built into d4r (to try a profile)."},

    {EnvVar::CudaBackend, "D4R_CUDA_BACKEND", String, "auto", 0, 0, "auto, cpu, driver or driver:/path/to/libcuda.so",
     kRuntime, "Which backend runs CUDA calls: the PTX simulator (cpu), NVIDIA's libcuda (driver), or auto."},
    {EnvVar::CudaTrace, "D4R_CUDA_TRACE", Bool, "false", 0, 0, "", kRuntime,
     "Log every CUDA call with its arguments and result (at info level)."},
    {EnvVar::CudaKernelProfile, "D4R_CUDA_KERNEL_PROFILE", Bool, "false", 0, 0, "", kRuntime,
     "Time kernel launches and log one KERNEL_PROFILE line per launch."},
    {EnvVar::CudaKernelProfileFilter, "D4R_CUDA_KERNEL_PROFILE_FILTER", String, "", 0, 0, "a substring of kernel names",
     kRuntime, "Profile only kernels whose name contains this text."},
    {EnvVar::CudaKernelProfileSkip, "D4R_CUDA_KERNEL_PROFILE_SKIP", Integer, "0", 0, kMax, "", kRuntime,
     "Launches to let pass before profiling starts."},
    {EnvVar::CudaKernelProfileLimit, "D4R_CUDA_KERNEL_PROFILE_LIMIT", Integer, "3000", 0, kMax, "", kRuntime,
     "The most launches to profile."},
    {EnvVar::CudaReplayDumpDir, "D4R_CUDA_REPLAY_DUMP_DIR", Path, "", 0, 0, "", kRuntime,
     "Write replay dumps (module, arguments, memory) of selected launches into this folder; unset = off."},
    {EnvVar::CudaReplayDumpFilter, "D4R_CUDA_REPLAY_DUMP_FILTER", String, "", 0, 0, "a substring of kernel names",
     kRuntime, "Dump only kernels whose name contains this text."},
    {EnvVar::CudaReplayDumpSkip, "D4R_CUDA_REPLAY_DUMP_SKIP", Integer, "0", 0, kMax, "", kRuntime,
     "Launches to let pass before dumping starts."},
    {EnvVar::CudaReplayDumpLimit, "D4R_CUDA_REPLAY_DUMP_LIMIT", Integer, "1", 0, kMax, "", kRuntime,
     "The most launches to dump."},
    {EnvVar::NativeKernelDir, "D4R_NATIVE_KERNEL_DIR", Path, "", 0, 0, "", "runtime (libd4rcuda), d4r doctor",
     "Kernel root of the native kernel sets (one folder per GPU target), on every backend; unset = native kernels "
     "off.",
     "D4R_ZLUDA_NATIVE_DIR"},
    {EnvVar::GpuArch, "D4R_GPU_ARCH", String, "", 0, 0, "a gfx target such as gfx1101",
     "kernel sets (runtime, d4r gpu, d4r doctor)", "Force the GPU architecture instead of asking the kernel driver."},
    {EnvVar::ZludaDir, "D4R_ZLUDA_DIR", Path, "", 0, 0, "", "runtime (native kernels), ZLUDA",
     "Folder holding ZLUDA's libcuda.so."},
    {EnvVar::RocmDir, "D4R_ROCM_DIR", Path, "", 0, 0, "", "runtime (native kernels)",
     "Folder of the ROCm runtime libraries (libamdhip64) to load."},
    {EnvVar::ZludaWmmaFp8Native, "D4R_ZLUDA_WMMA_FP8_NATIVE", Bool, "true", 0, 0, "", "runtime (native kernels), ZLUDA",
     "RDNA4: allow the kernel sets built for native FP8 WMMA instructions."},
    {EnvVar::NvrtcLibrary, "D4R_NVRTC_LIBRARY", Path, "", 0, 0, "", "companion libnvrtc.so.13",
     "NVIDIA's libnvrtc.so.13 for d4r's companion to load; unset = searched in LD_LIBRARY_PATH, the CUDA toolkit's "
     "lib64 and the system's library folders."},
    {EnvVar::NvJitLinkLibrary, "D4R_NVJITLINK_LIBRARY", Path, "", 0, 0, "", "companion libnvJitLink.so.13",
     "NVIDIA's libnvJitLink.so.13 for d4r's companion to load; unset = searched as for D4R_NVRTC_LIBRARY."},

    {EnvVar::CpuInstructionBudget, "D4R_CPU_INSTRUCTION_BUDGET", Integer, "0", 0, kMax, "", kCpu,
     "Warp instructions one launch may run before it stops with CUDA_ERROR_LAUNCH_TIMEOUT; 0 = unlimited."},
    {EnvVar::CpuMemoryLimit, "D4R_CPU_MEMORY_LIMIT", Size, "", 0, 0, "", kCpu,
     "Cap on the device memory the cpu backend hands out; unset = physical memory and the cgroup limit."},
    {EnvVar::CpuWatchdogMs, "D4R_CPU_WATCHDOG_MS", Integer, "0", 0, 3600000, "", kCpu,
     "Stop a launch that runs longer than this many milliseconds with CUDA_ERROR_LAUNCH_TIMEOUT; 0 = off."},
    {EnvVar::CpuExec, "D4R_CPU_EXEC", Enum, "jit", 0, 0, "interp,jit", kCpu,
     "How kernels run: jit compiles each kernel at its first launch with the system's libLLVM where the PTX JIT can "
     "(the rest, and every kernel when no libLLVM loads, run interpreted, each logged once with the reason); interp "
     "interprets every kernel."},
    {EnvVar::CpuJitCacheDir, "D4R_CPU_JIT_CACHE_DIR", Path, "", 0, 0, "", kCpu,
     "Folder of the PTX JIT's compile cache; unset = d4r/ptx-jit in the cache base (D4R_ZLUDA_CACHE_HOME, else "
     "$XDG_CACHE_HOME, else ~/.cache, else /tmp)."},
    {EnvVar::CpuJitCacheSize, "D4R_CPU_JIT_CACHE_SIZE", Size, "256M", 0, 0, "", kCpu,
     "The most the PTX JIT's compile cache keeps on disk (the least recently used kernels go first); 0 = no cache: "
     "every process compiles its kernels."},
    {EnvVar::CpuPtxProfile, "D4R_CPU_PTX_PROFILE", Path, "", 0, 0, "", kCpu,
     "Append every launch's PTX profile to this file: the kernel, then the warp instructions issued at each line of "
     "its PTX, the most first (the launch runs interpreted to count them): a kernel's hot lines without a GPU."},

    {EnvVar::PreferAccuracy, "D4R_PREFER_ACCURACY", Bool, "false", 0, 0, "", "kernel sets (runtime, d4r)",
     "Accuracy mode: accuracy kernel sets, a separate JIT cache, and ZLUDA's shortcuts turned off."},
    {EnvVar::ZludaCacheHome, "D4R_ZLUDA_CACHE_HOME", Path, "", 0, 0, "",
     "kernel sets (accuracy mode), ZLUDA, cpu backend (PTX JIT cache)",
     "Base folder of the JIT caches (ZLUDA's, accuracy mode's, the PTX JIT's); unset = $XDG_CACHE_HOME, else "
     "~/.cache, else /tmp."},

    {EnvVar::ZludaIgnoreDenormal, "D4R_ZLUDA_IGNORE_DENORMAL", Bool, "true", 0, 0, "", kZluda,
     "Flush denormal floats to zero in kernels compiled from PTX."},
    {EnvVar::ZludaWmma, "D4R_ZLUDA_WMMA", Bool, "true", 0, 0, "", kZluda,
     "Compile matrix operations to WMMA instructions."},
    {EnvVar::ZludaWmmaFp8, "D4R_ZLUDA_WMMA_FP8", Bool, "true", 0, 0, "", kZluda, "Use WMMA for FP8 matrix operations."},
    {EnvVar::ZludaWmmaF32Acc, "D4R_ZLUDA_WMMA_F32ACC", Bool, "", 0, 0, "", kZluda,
     "Accumulate f16 matrix products in f32 (accuracy mode sets 0)."},
    {EnvVar::ZludaFastMath, "D4R_ZLUDA_FAST_MATH", Bool, "", 0, 0, "", kZluda,
     "Approximate math beyond what the PTX asks for (accuracy mode sets 0)."},
    {EnvVar::ZludaWave64, "D4R_ZLUDA_WAVE64", Bool, "", 0, 0, "", kZluda,
     "Run warps as 64-lane waves (accuracy mode sets 0)."},
    {EnvVar::ZludaImplicitMaxBlock, "D4R_ZLUDA_IMPLICIT_MAX_BLOCK", Integer, "256", 32, 1024, "", kZluda,
     "Threads per block assumed for kernels that declare no maximum block size."},

    {EnvVar::NgxCudaLibrary, "D4R_NGX_CUDA_LIBRARY", Path, "", 0, 0, "", "NGX core",
     "The libcuda the NGX core loads; unset = the one next to the core, then the search path."},
    {EnvVar::Network, "D4R_NETWORK", Bool, "false", 0, 0, "", "NGX core",
     "Refine the open NGX core's output with d4r's refinement network (off until its model reaches its quality goal)."},
    {EnvVar::NetworkModel, "D4R_NETWORK_MODEL", Path, "", 0, 0, "", "NGX core",
     "The refinement network's model file; unset = refine-v2.d4rnet beside the core, else share/d4r/models/ beside its lib folder."},
    {EnvVar::RuntimeDir, "D4R_RUNTIME_DIR", Path, "", 0, 0, "", "Wine bridge (nvcuda.dll), d4r doctor",
     "Folder of libd4rcuda.so; unset = beside the bridge, then the search path."},
    {EnvVar::ElideNgxSync, "D4R_ELIDE_NGX_SYNC", Bool, "true", 0, 0, "",
     "nothing yet; d4r.ini and accuracy mode set it",
     "Skip synchronisations NGX asks for that are known to be redundant."},

    {EnvVar::DlssPreset, "D4R_DLSS_PRESET", String, "", 0, 0, "a preset number 1-13 or letter A-M", kShim,
     "Render preset for every quality mode, instead of the game's hints."},
    {EnvVar::ShimNgxCore, "D4R_SHIM_NGX_CORE", String, "d4r", 0, 0, "d4r, nvidia, or the path of a core DLL", kShim,
     "Which NGX core the shim loads."},
    {EnvVar::ShimMaxInFlight, "D4R_SHIM_MAX_IN_FLIGHT", Integer, "3", 1, 16, "", kShim,
     "Evaluations outstanding on the CUDA worker before the game's thread waits for one."},
    {EnvVar::ShimBlockingSync, "D4R_SHIM_BLOCKING_SYNC", Bool, "false", 0, 0, "", kShim,
     "Wait for the core's output with a blocking event instead of a context synchronisation."},
    {EnvVar::ShimSplitFrame, "D4R_SHIM_SPLIT_FRAME", Bool, "true", 0, 0, "", kShim,
     "Each frame gets its own result; false asks for pipelined results, which the shim does not do yet (noted)."},
    {EnvVar::ShimVramInterop, "D4R_SHIM_VRAM_INTEROP", Bool, "false", 0, 0, "", kShim,
     "Share frames with the CUDA side: the Vulkan front end's VRAM path, D3D12's mapped path (no CPU copy) where a frame's layout allows; 0 sends every frame through the host path (CPU copies and conversions)."},
    {EnvVar::ShimWatermark, "D4R_SHIM_WATERMARK", Bool, "false", 0, 0, "", kShim,
     "Draw a small d4r mark into the top-left corner of every upscaled frame, whichever NGX core produced it."},
    {EnvVar::MotionDilation, "D4R_MOTION_DILATION", Integer, "0", 0, 8, "", kShim,
     "Before the core sees them, replace each motion vector by the front-most pixel's within this radius in "
     "pixels; 0 = off."},

    {EnvVar::VkD3DDir, "D4R_VKD3D_DIR", Path, "", 0, 0, "", kLauncher, "Folder with the patched vkd3d-proton DLLs."},
    {EnvVar::UeEngineIni, "D4R_UE_ENGINE_INI", Path, "", 0, 0, "", kLauncher,
     "Unreal Engine games: the Engine.ini to add the console variables to."},
    {EnvVar::UeCvars, "D4R_UE_CVARS", String, "", 0, 0, "console variables", kLauncher,
     "Unreal Engine games: console variables to set for the session."},
    {EnvVar::OptiScalerFpsOverlay, "D4R_OPTISCALER_FPS_OVERLAY", Bool, "true", 0, 0, "", kLauncher,
     "Show OptiScaler's frame-rate overlay."},
    {EnvVar::OptiScalerLogLevel, "D4R_OPTISCALER_LOG_LEVEL", Integer, "2", 0, 4, "", kLauncher,
     "OptiScaler's log level."},
    {EnvVar::OptiScalerQualityRatioUltraQuality, "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_QUALITY", String, "", 0, 0,
     "a number from 1.0 to 3.0", kLauncher, "Output-to-render ratio of the Ultra Quality mode."},
    {EnvVar::OptiScalerQualityRatioQuality, "D4R_OPTISCALER_QUALITY_RATIO_QUALITY", String, "", 0, 0,
     "a number from 1.0 to 3.0", kLauncher, "Output-to-render ratio of the Quality mode."},
    {EnvVar::OptiScalerQualityRatioBalanced, "D4R_OPTISCALER_QUALITY_RATIO_BALANCED", String, "", 0, 0,
     "a number from 1.0 to 3.0", kLauncher, "Output-to-render ratio of the Balanced mode."},
    {EnvVar::OptiScalerQualityRatioPerformance, "D4R_OPTISCALER_QUALITY_RATIO_PERFORMANCE", String, "", 0, 0,
     "a number from 1.0 to 3.0", kLauncher, "Output-to-render ratio of the Performance mode."},
    {EnvVar::OptiScalerQualityRatioUltraPerformance, "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_PERFORMANCE", String, "", 0, 0,
     "a number from 1.0 to 3.0", kLauncher, "Output-to-render ratio of the Ultra Performance mode."},
    {EnvVar::GameLogDir, "D4R_GAME_LOG_DIR", Path, "", 0, 0, "", kLauncher, "Folder for the game session's logs."},

    {EnvVar::TestInstallStopAfter,
     "D4R_TEST_INSTALL_STOP_AFTER",
     Integer,
     "0",
     0,
     kMax,
     "",
     "d4r install (tests)",
     "Stop the install after this many file operations, to test recovery; 0 = never.",
     {},
     true},
}};

constexpr bool rows_in_id_order() {
    for (size_t i = 0; i < kVars.size(); ++i) {
        if (static_cast<size_t>(kVars[i].id) != i) return false;
    }
    return true;
}
static_assert(rows_in_id_order(), "kVars rows must follow the EnvVar order");

void warn_invalid(const EnvVarInfo& v, const EnvValue& value) {
    if (!log::once(fmt::format("env:invalid:{}", v.name))) return;
    std::string fallback =
        v.default_value.empty() ? std::string("it is ignored") : fmt::format("the default {} is used", v.default_value);
    log::warn("{}={}: expected {}; {}", value.source, value.text, v.accepted_text(), fallback);
}

bool enum_accepts(const EnvVarInfo& v, std::string_view text) {
    for (std::string_view word : split(v.accepted, ','))
        if (iequals(trim(word), trim(text))) return true;
    return false;
}

} // namespace

std::string EnvVarInfo::accepted_text() const {
    switch (type) {
    case Bool:
        return fmt::format("true or false ({})", kBoolWords);
    case Integer:
        if (max == kMax) return fmt::format("an integer from {} up", min);
        return fmt::format("an integer from {} to {}", min, max);
    case Size:
        return "a size in bytes: a number, optionally followed by K, M, G or T";
    case Path:
        return "a path";
    case Enum: {
        std::string out = "one of ";
        auto words = split(accepted, ',');
        for (size_t i = 0; i < words.size(); ++i) {
            if (i) out += i + 1 == words.size() ? " or " : ", ";
            out += trim(words[i]);
        }
        return out;
    }
    case String:
        return accepted.empty() ? std::string("any text") : std::string(accepted);
    }
    return "?";
}

std::span<const EnvVarInfo> env_vars() { return kVars; }

const EnvVarInfo& env_var_info(EnvVar id) { return kVars[static_cast<size_t>(id)]; }

const char* env_name(EnvVar id) { return env_var_info(id).name.data(); } // string_views of literals: NUL-terminated

const EnvVarInfo* find_env_var(std::string_view name) {
    for (const EnvVarInfo& v : kVars)
        if (v.name == name || (!v.alias.empty() && v.alias == name)) return &v;
    return nullptr;
}

std::optional<bool> parse_bool_word(std::string_view text) {
    for (std::string_view t : {"true", "on", "yes", "1"})
        if (iequals(text, t)) return true;
    for (std::string_view f : {"false", "off", "no", "0"})
        if (iequals(text, f)) return false;
    return std::nullopt;
}

bool env_value_valid(const EnvVarInfo& v, std::string_view text) {
    if (trim(text).empty()) return true;
    switch (v.type) {
    case Bool:
        return parse_bool_word(trim(text)).has_value();
    case Integer: {
        auto n = parse_i64(trim(text));
        return n && *n >= v.min && *n <= v.max;
    }
    case Enum:
        return enum_accepts(v, text);
    case Size:
        return parse_byte_size(trim(text)).has_value(); // a reader may refuse more (D4R_CPU_MEMORY_LIMIT: 0)
    case Path:
    case String:
        return true;
    }
    return true;
}

std::optional<EnvValue> env_raw(const Environment& env, EnvVar id) {
    const EnvVarInfo& v = env_var_info(id);
    if (auto value = env.get(v.name)) return EnvValue{std::move(*value), v.name};
    if (v.alias.empty()) return std::nullopt;
    auto old = env.get(v.alias);
    if (!old) return std::nullopt;
    if (log::once(fmt::format("env:alias:{}", v.alias)))
        log::warn("{} is deprecated: it still works, but set {} instead", v.alias, v.name);
    return EnvValue{std::move(*old), v.alias};
}

std::optional<std::string> env_text(const Environment& env, EnvVar id) {
    auto value = env_raw(env, id);
    if (!value || value->text.empty()) return std::nullopt;
    const EnvVarInfo& v = env_var_info(id);
    if (v.type == Enum && !enum_accepts(v, value->text)) {
        warn_invalid(v, *value);
        return std::nullopt;
    }
    return std::move(value->text);
}

bool env_bool(const Environment& env, EnvVar id) {
    const EnvVarInfo& v = env_var_info(id);
    const bool fallback = parse_bool_word(v.default_value).value_or(false);
    auto value = env_raw(env, id);
    if (!value || trim(value->text).empty()) return fallback;
    if (auto b = parse_bool_word(trim(value->text))) return *b; // spaces around an environment value are forgiven
    warn_invalid(v, *value);
    return fallback;
}

std::optional<int64_t> env_int_if_set(const Environment& env, EnvVar id) {
    const EnvVarInfo& v = env_var_info(id);
    auto value = env_raw(env, id);
    if (!value || trim(value->text).empty()) return std::nullopt;
    auto n = parse_i64(trim(value->text));
    if (n && *n >= v.min && *n <= v.max) return *n;
    warn_invalid(v, *value);
    return std::nullopt;
}

int64_t env_int(const Environment& env, EnvVar id) {
    if (auto n = env_int_if_set(env, id)) return *n;
    return parse_i64(env_var_info(id).default_value).value_or(0);
}

std::optional<std::string> AliasedEnvironment::get(std::string_view name) const {
    if (auto value = m_env.get(name)) return value;
    const EnvVarInfo* v = find_env_var(name);
    if (!v || v->name != name || v->alias.empty()) return std::nullopt;
    auto raw = env_raw(m_env, v->id);
    if (!raw) return std::nullopt;
    return std::move(raw->text);
}

} // namespace d4r
