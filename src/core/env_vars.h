// d4r core: the table of every environment variable d4r reads, and the typed readers over it.
//
// Promise: every D4R_* variable the code reads is one row of env_vars(): its name, type, default,
// accepted values, the component that reads it and a one-line help. Code reads a variable only through
// the readers below, by EnvVar: one rule for booleans (d4r.ini's: true/on/yes/1, false/off/no/0, any
// case); a value that does not fit the type warns once, naming the variable, the value and what is
// accepted, and the reader returns the default. A deprecated alias still works and warns once.
// The d4r.ini key that sets a variable is not stored here: src/config derives it from the schema.
// Lives in core (no Linux-only headers) because the Windows shim and NGX DLLs compile it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/env.h"

namespace d4r {

enum class EnvType {
    Bool,    // true/on/yes/1, false/off/no/0, any case
    Integer, // decimal within [min, max]
    Size,    // bytes: a number, optionally followed by K, M, G or T
    Path,    // a file or folder; empty = not set
    Enum,    // one of `accepted` (any case)
    String,  // free text; `accepted` says what is meant
};

enum class EnvVar {
    // Logging and configuration (every component).
    Log,
    LogFile,
    Config,
    NoConfig,
    GameProfiles,
    // The CUDA runtime (libd4rcuda).
    CudaBackend,
    CudaTrace,
    CudaKernelProfile,
    CudaKernelProfileFilter,
    CudaKernelProfileSkip,
    CudaKernelProfileLimit,
    CudaReplayDumpDir,
    CudaReplayDumpFilter,
    CudaReplayDumpSkip,
    CudaReplayDumpLimit,
    NativeKernelDir,
    GpuArch,
    ZludaDir,
    RocmDir,
    ZludaWmmaFp8Native,
    // d4r's companion libraries (libnvrtc.so.13, libnvJitLink.so.13 beside libd4rcuda).
    NvrtcLibrary,
    NvJitLinkLibrary,
    // The cpu backend (ptxsim).
    CpuInstructionBudget,
    CpuMemoryLimit,
    CpuWatchdogMs,
    CpuExec,
    CpuJitCacheDir,
    CpuJitCacheSize,
    CpuPtxProfile,
    // Kernel sets and accuracy mode.
    PreferAccuracy,
    ZludaCacheHome,
    // Read by ZLUDA (outside d4r); d4r.ini and accuracy mode set them.
    ZludaIgnoreDenormal,
    ZludaWmma,
    ZludaWmmaFp8,
    ZludaWmmaF32Acc,
    ZludaFastMath,
    ZludaWave64,
    ZludaImplicitMaxBlock,
    // The NGX core and the Windows side.
    NgxCudaLibrary,
    Network,
    NetworkModel,
    RuntimeDir,
    ElideNgxSync,
    // The NGX shim (d4r_nvngx.dll).
    DlssPreset,
    ShimNgxCore,
    ShimMaxInFlight,
    ShimBlockingSync,
    ShimSplitFrame,
    ShimVramInterop,
    ShimWatermark,
    MotionDilation,
    // For the game launcher (outside d4r's code): d4r.ini exports them.
    VkD3DDir,
    UeEngineIni,
    UeCvars,
    OptiScalerFpsOverlay,
    OptiScalerLogLevel,
    OptiScalerQualityRatioUltraQuality,
    OptiScalerQualityRatioQuality,
    OptiScalerQualityRatioBalanced,
    OptiScalerQualityRatioPerformance,
    OptiScalerQualityRatioUltraPerformance,
    GameLogDir,
    // Tests only.
    TestInstallStopAfter,
};
inline constexpr size_t kEnvVarCount = static_cast<size_t>(EnvVar::TestInstallStopAfter) + 1;

struct EnvVarInfo {
    EnvVar id;
    std::string_view name;
    EnvType type;
    std::string_view default_value; // as the reader takes it when unset; empty = unset, nothing
    int64_t min = 0;                // Integer range, inclusive
    int64_t max = 0;
    std::string_view accepted;   // Enum: comma-separated words; String: what is meant
    std::string_view reader;     // the component that reads it
    std::string_view help;       // one sentence; no '|' (it lands in a markdown table)
    std::string_view alias = {}; // a deprecated old name that still works (warns once)
    bool test_only = false;      // a hook for the test suite, not for users

    size_t index() const { return static_cast<size_t>(id); }
    // What a value must look like ("true or false (...)", "an integer from 1 to 8", ...).
    std::string accepted_text() const;
};

std::span<const EnvVarInfo> env_vars();
const EnvVarInfo& env_var_info(EnvVar id);
// The variable's name ("D4R_LOG"): how code outside the table spells one, for reading, setting and messages
// (a test fails when a "D4R_..." literal appears elsewhere in src/). NUL-terminated: every name is a literal.
const char* env_name(EnvVar id);
// By name or by deprecated alias; nullptr when unknown.
const EnvVarInfo* find_env_var(std::string_view name);

// The one boolean rule (d4r.ini's): true/on/yes/1, false/off/no/0, any case, nothing around them;
// nullopt otherwise. The ini parser trims values first, and so does env_bool.
std::optional<bool> parse_bool_word(std::string_view text);
inline constexpr std::string_view kBoolWords = "true/on/yes/1, false/off/no/0";

// Where a variable's value comes from.
struct EnvValue {
    std::string text;        // the raw value
    std::string_view source; // the name it was read under (the alias when only that is set)
};

// Whether TEXT is a value the readers of V accept (an empty value always is: it means unset).
bool env_value_valid(const EnvVarInfo& v, std::string_view text);

// The raw value, or nullopt when unset. Reading the deprecated alias warns once. An empty value counts
// as set (readers of paths treat it as unset).
std::optional<EnvValue> env_raw(const Environment& env, EnvVar id);
// Text of a Path/String/Enum variable; nullopt when unset or empty. Enum values outside `accepted`
// warn once and give nullopt.
std::optional<std::string> env_text(const Environment& env, EnvVar id);
// A Bool variable: its value, the default when unset, empty or invalid (invalid warns once).
bool env_bool(const Environment& env, EnvVar id);
// An Integer variable: its value, the default (0 when none) when unset, empty, not a number or out of
// range (the last two warn once).
int64_t env_int(const Environment& env, EnvVar id);
// Like env_int, but nullopt when unset, empty or invalid.
std::optional<int64_t> env_int_if_set(const Environment& env, EnvVar id);

// ENV as the readers see it: get(NAME) falls back to NAME's deprecated alias (which warns once), so code
// that asks "is this variable set?" by name (the d4r.ini resolver) agrees with the readers.
class AliasedEnvironment final : public Environment {
public:
    explicit AliasedEnvironment(const Environment& env) : m_env(env) {}
    std::optional<std::string> get(std::string_view name) const override;

private:
    const Environment& m_env;
};

} // namespace d4r
