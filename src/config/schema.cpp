#include "schema.h"

#include <array>

#include "core/strings.h"

namespace d4r::config {

namespace {

using enum ValueType;
using enum Mapping;

// THE table. Order matters: it is the order of `show`, of the exports and of the shipped files.
// Help texts become ini comments and markdown cells: plain sentences, no '|'.
constexpr std::array<KeyInfo, kKeyCount> kKeys{{
    {KeyId::DlssModel, "DLSS", "Model", Model, "K", Preset, "D4R_DLSS_PRESET", "", 0, 0,
     "DLSS model (render preset) the shim requests from the NGX core. Exported as the preset number."},
    {KeyId::DlssShowWatermark, "DLSS", "ShowWatermark", Bool, "false", Flag, "D4R_SHIM_WATERMARK", "", 0, 0,
     "Draw a small d4r mark into the top-left corner of every upscaled frame (the shim draws it after the NGX "
     "core, whichever core that is), so you can see that d4r produced the frame."},

    {KeyId::DlssNetwork, "DLSS", "Network", Bool, "false", Flag, "D4R_NETWORK", "", 0, 0,
     "d4r's open NGX core only: refine its output with d4r's own transformer network (docs/network.md): sharper, "
     "steadier frames (+1.5 dB), at a GPU cost of about 4.6 ms a 4K frame on an H100, hence off by default; "
     "NVIDIA's DLSS is not affected."},

    {KeyId::LatencyFrameAge, "Latency", "FrameAge", Integer, "0", FrameAge, "D4R_SHIM_SPLIT_FRAME",
     "D4R_SHIM_MAX_IN_FLIGHT", 0, 3,
     "How many frames the upscaler may lag behind the game. 0 splits each frame (lowest latency); "
     "1 to 3 let up to that many frames be in flight (more throughput, more latency)."},

    {KeyId::KernelsPreferAccuracy, "Kernels", "PreferAccuracy", Bool, "false", Flag, "D4R_PREFER_ACCURACY", "", 0, 0,
     "Accuracy mode: the runtime turns off denormal flushing, fast math, F32-accumulate and wave64 shortcuts "
     "and NGX sync elision, uses the accuracy kernel sets and a separate JIT cache. Slower. Always exported."},
    {KeyId::KernelsNativeKernels, "Kernels", "NativeKernels", NativeKernels, "off", KernelSwitch,
     "D4R_NATIVE_KERNEL_DIR", "", 0, 0,
     "Hand-written native kernels instead of kernels compiled from PTX. on (alias fast): the fast set; "
     "exact: the accuracy set, which also forces PreferAccuracy = true; off: every kernel compiles from PTX. "
     "The kernel root is [Paths] NativeKernelDir, else RuntimeDir/kernels."},
    {KeyId::KernelsWmma, "Kernels", "Wmma", Bool, "true", Flag, "D4R_ZLUDA_WMMA", "", 0, 0,
     "Let ZLUDA compile matrix operations to WMMA (matrix core) instructions."},
    {KeyId::KernelsFp8Wmma, "Kernels", "Fp8Wmma", Bool, "true", Flag, "D4R_ZLUDA_WMMA_FP8", "", 0, 0,
     "Let ZLUDA use WMMA for FP8 matrix operations."},
    {KeyId::KernelsNativeFp8, "Kernels", "NativeFp8", Bool, "true", FlagOnlyFalse, "D4R_ZLUDA_WMMA_FP8_NATIVE", "", 0,
     0,
     "RDNA4 only: use the GPU's native FP8 WMMA instructions. Exported (as 0) only when set to false in the file; "
     "otherwise the runtime decides from the GPU."},
    {KeyId::KernelsIgnoreDenormals, "Kernels", "IgnoreDenormals", Bool, "true", Flag, "D4R_ZLUDA_IGNORE_DENORMAL", "",
     0, 0, "Flush denormal floats to zero in kernels compiled from PTX (faster; accuracy mode turns it off)."},
    {KeyId::KernelsImplicitMaxBlock, "Kernels", "ImplicitMaxBlock", Integer, "256", Number,
     "D4R_ZLUDA_IMPLICIT_MAX_BLOCK", "", 32, 1024,
     "Threads per block ZLUDA assumes for kernels that declare no maximum block size."},

    {KeyId::InteropVramInterop, "Interop", "VramInterop", Bool, "true", Flag, "D4R_SHIM_VRAM_INTEROP", "", 0, 0,
     "Share frames with the CUDA side instead of copying them through the CPU (Vulkan: the VRAM path; D3D12: the mapped path)."},
    {KeyId::InteropElideNgxSync, "Interop", "ElideNgxSync", Bool, "true", Flag, "D4R_ELIDE_NGX_SYNC", "", 0, 0,
     "Skip synchronisations NGX asks for that the shim knows to be redundant (accuracy mode turns it off)."},
    {KeyId::InteropMotionVectorDilation, "Interop", "MotionVectorDilation", Integer, "0", Number, "D4R_MOTION_DILATION",
     "", 0, 8,
     "Before the upscaler sees them, replace each motion vector by the one of the front-most (nearest depth) pixel "
     "within this radius in pixels, which keeps thin foreground edges moving with their object; 0 = off."},
    {KeyId::InteropWatchdogMs, "Interop", "WatchdogMs", Integer, "10000", Number, "D4R_CPU_WATCHDOG_MS", "", 0, 3600000,
     "Stop a CUDA kernel of the cpu backend that runs longer than this many milliseconds with "
     "CUDA_ERROR_LAUNCH_TIMEOUT, as a display GPU's watchdog does, instead of freezing the game; 0 = off. "
     "Plain CUDA programs, which do not read d4r.ini, run without it."},

    {KeyId::PathsRuntimeDir, "Paths", "RuntimeDir", Path, "auto", Verbatim, "D4R_RUNTIME_DIR", "", 0, 0,
     "Folder of the d4r runtime (libd4rcuda; in a release also kernels/). auto: the launcher finds it."},
    {KeyId::PathsZludaDir, "Paths", "ZludaDir", Path, "auto", Verbatim, "D4R_ZLUDA_DIR", "", 0, 0,
     "Folder holding ZLUDA's libcuda.so."},
    {KeyId::PathsRocmDir, "Paths", "RocmDir", Path, "auto", Verbatim, "D4R_ROCM_DIR", "", 0, 0,
     "Folder of the ROCm runtime libraries ZLUDA loads."},
    {KeyId::PathsVkD3DDir, "Paths", "VkD3DDir", Path, "auto", Verbatim, "D4R_VKD3D_DIR", "", 0, 0,
     "Folder with the patched vkd3d-proton d3d12.dll and d3d12core.dll."},
    {KeyId::PathsNativeKernelDir, "Paths", "NativeKernelDir", Path, "auto", KernelRoot, "D4R_NATIVE_KERNEL_DIR", "", 0,
     0,
     "Kernel root (one folder per GPU target). auto: RuntimeDir/kernels. Exported only through "
     "[Kernels] NativeKernels."},
    {KeyId::PathsCacheDir, "Paths", "CacheDir", Path, "auto", Verbatim, "D4R_ZLUDA_CACHE_HOME", "", 0, 0,
     "Base folder of the JIT caches (ZLUDA's, and the cpu backend's PTX JIT in d4r/ptx-jit). auto: "
     "$XDG_CACHE_HOME, else ~/.cache, else /tmp."},
    {KeyId::PathsNetworkModel, "Paths", "NetworkModel", Path, "auto", Verbatim, "D4R_NETWORK_MODEL", "", 0, 0,
     "The refinement network's model file. auto: refine-v2.d4rnet beside the NGX core, else share/d4r/models."},

    {KeyId::LaunchProtonDir, "Launch", "ProtonDir", Path, "", Launcher, "", "", 0, 0,
     "Proton installation the launcher runs the game with. Empty: the launcher's choice."},
    {KeyId::LaunchCompatDataDir, "Launch", "CompatDataDir", Path, "", Launcher, "", "", 0, 0,
     "The game's Proton prefix (its compatdata folder). Empty: the launcher's choice."},
    {KeyId::LaunchGameExe, "Launch", "GameExe", Path, "", Launcher, "", "", 0, 0,
     "The game's executable. Empty: the launcher's choice."},
    {KeyId::LaunchGameProfile, "Launch", "GameProfile", Bool, "true", Launcher, "", "", 0, 0,
     "Apply d4r's profile for this game's exe (packaging/game-profiles.ini), if it has one."},

    {KeyId::GameEngineIni, "Game", "EngineIni", Path, "", Verbatim, "D4R_UE_ENGINE_INI", "", 0, 0,
     "Unreal Engine games: the game's Engine.ini, to which Cvars are added for the session."},
    {KeyId::GameCvars, "Game", "Cvars", String, "", Verbatim, "D4R_UE_CVARS", "", 0, 0,
     "Unreal Engine games: console variables to set for the session, passed verbatim."},

    {KeyId::OptiScalerFpsOverlay, "OptiScaler", "FpsOverlay", Bool, "true", Flag, "D4R_OPTISCALER_FPS_OVERLAY", "", 0,
     0, "Show OptiScaler's frame-rate overlay."},
    {KeyId::OptiScalerLogLevel, "OptiScaler", "LogLevel", Integer, "2", Number, "D4R_OPTISCALER_LOG_LEVEL", "", 0, 4,
     "OptiScaler's log level: 0 trace, 1 debug, 2 info, 3 warning, 4 error."},
    {KeyId::OptiScalerQualityRatioUltraQuality, "OptiScaler", "QualityRatioUltraQuality", Ratio, "auto", Verbatim,
     "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_QUALITY", "", 1.0, 3.0,
     "Output-to-render size ratio of the Ultra Quality mode. auto: OptiScaler's default."},
    {KeyId::OptiScalerQualityRatioQuality, "OptiScaler", "QualityRatioQuality", Ratio, "auto", Verbatim,
     "D4R_OPTISCALER_QUALITY_RATIO_QUALITY", "", 1.0, 3.0,
     "Output-to-render size ratio of the Quality mode. auto: OptiScaler's default."},
    {KeyId::OptiScalerQualityRatioBalanced, "OptiScaler", "QualityRatioBalanced", Ratio, "auto", Verbatim,
     "D4R_OPTISCALER_QUALITY_RATIO_BALANCED", "", 1.0, 3.0,
     "Output-to-render size ratio of the Balanced mode. auto: OptiScaler's default."},
    {KeyId::OptiScalerQualityRatioPerformance, "OptiScaler", "QualityRatioPerformance", Ratio, "auto", Verbatim,
     "D4R_OPTISCALER_QUALITY_RATIO_PERFORMANCE", "", 1.0, 3.0,
     "Output-to-render size ratio of the Performance mode. auto: OptiScaler's default."},
    {KeyId::OptiScalerQualityRatioUltraPerformance, "OptiScaler", "QualityRatioUltraPerformance", Ratio, "auto",
     Verbatim, "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_PERFORMANCE", "", 1.0, 3.0,
     "Output-to-render size ratio of the Ultra Performance mode. auto: OptiScaler's default."},

    {KeyId::DebugProfile, "Debug", "Profile", Bool, "false", Flag, "D4R_CUDA_KERNEL_PROFILE", "", 0, 0,
     "Time the session's kernel launches: the runtime logs a KERNEL_PROFILE line for each of the first 3000 "
     "(at info level, so also set D4R_LOG=info)."},
    {KeyId::DebugLogDir, "Debug", "LogDir", Path, "auto", Verbatim, "D4R_GAME_LOG_DIR", "", 0, 0,
     "Folder for the game session's logs. auto: ~/.cache/d4r/logs/game-EXE-TIME/."},
}};

// The table is indexed by KeyId: a row out of place would silently answer for the wrong key.
constexpr bool rows_in_id_order() {
    for (size_t i = 0; i < kKeys.size(); ++i) {
        if (static_cast<size_t>(kKeys[i].id) != i) return false;
    }
    return true;
}
static_assert(rows_in_id_order(), "kKeys rows must follow the KeyId order");

} // namespace

std::vector<std::string_view> KeyInfo::variables() const {
    std::vector<std::string_view> names;
    if (!variable.empty()) names.push_back(variable);
    if (!second_variable.empty()) names.push_back(second_variable);
    return names;
}

std::span<const KeyInfo> schema_keys() { return kKeys; }

const KeyInfo& key_info(KeyId id) { return kKeys[static_cast<size_t>(id)]; }

const KeyInfo* find_key(std::string_view section, std::string_view name) {
    for (const KeyInfo& key : kKeys) {
        if (iequals(key.section, section) && iequals(key.name, name)) return &key;
    }
    return nullptr;
}

std::vector<std::string_view> schema_sections() {
    std::vector<std::string_view> sections;
    for (const KeyInfo& key : kKeys) {
        if (sections.empty() || sections.back() != key.section) sections.push_back(key.section);
    }
    sections.push_back(kEnvSection);
    return sections;
}

std::string_view canonical_section(std::string_view section) {
    if (iequals(section, kEnvSection)) return kEnvSection;
    for (const KeyInfo& key : kKeys) {
        if (iequals(key.section, section)) return key.section;
    }
    return {};
}

bool is_schema_variable(std::string_view name) {
    for (const KeyInfo& key : kKeys) {
        if (key.variable == name || key.second_variable == name) return true;
    }
    return false;
}

} // namespace d4r::config
