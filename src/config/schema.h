// d4r config: the d4r.ini schema, one typed table.
//
// Promise: every configuration key exists exactly once, as one row of schema_keys(): its section,
// name, type, default, the environment variable(s) it maps to, how it maps, and its help text.
// Nothing else spells a key: the parser validates against this table, the resolver maps it to the
// environment, `d4r config show|schema|template` print it, and docs/configuration.md and the shipped
// d4r.ini files are checked against it. Code elsewhere names a key by its KeyId.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace d4r::config {

// The type of a value as written in d4r.ini.
enum class ValueType {
    Bool,          // true/on/yes/1, false/off/no/0 (any case)
    Integer,       // decimal, within [min, max]
    Ratio,         // "auto" or a decimal number within [min, max]
    Model,         // a DLSS preset letter or alias (values.h)
    NativeKernels, // on (alias fast), exact, off
    Path,          // "auto" or empty: not set; anything else verbatim
    String,        // empty (or "auto"): not set; anything else verbatim
};

// How a key's effective value becomes environment variables.
enum class Mapping {
    Flag,          // NAME=1 or NAME=0, always exported
    FlagOnlyFalse, // NAME=0 only when the file says false; nothing otherwise
    Number,        // NAME=<decimal>
    Verbatim,      // NAME=<value>; nothing when the value is auto or empty
    Preset,        // NAME=<preset number of the model letter>
    FrameAge,      // 0: NAME1=1; N>0: NAME1=0 and NAME2=N
    KernelSwitch,  // on/exact: NAME=<kernel root>; off: unset NAME (exact also forces PreferAccuracy)
    KernelRoot,    // no variable of its own: the kernel root that NativeKernels exports
    Launcher,      // no variable: read by the launcher
};

enum class KeyId {
    DlssModel,
    DlssShowWatermark,
    DlssNetwork,
    LatencyFrameAge,
    KernelsPreferAccuracy,
    KernelsNativeKernels,
    KernelsWmma,
    KernelsFp8Wmma,
    KernelsNativeFp8,
    KernelsIgnoreDenormals,
    KernelsImplicitMaxBlock,
    InteropVramInterop,
    InteropElideNgxSync,
    InteropMotionVectorDilation,
    InteropWatchdogMs,
    PathsRuntimeDir,
    PathsZludaDir,
    PathsRocmDir,
    PathsVkD3DDir,
    PathsNativeKernelDir,
    PathsCacheDir,
    PathsNetworkModel,
    LaunchProtonDir,
    LaunchCompatDataDir,
    LaunchGameExe,
    LaunchGameProfile,
    GameEngineIni,
    GameCvars,
    OptiScalerFpsOverlay,
    OptiScalerLogLevel,
    OptiScalerQualityRatioUltraQuality,
    OptiScalerQualityRatioQuality,
    OptiScalerQualityRatioBalanced,
    OptiScalerQualityRatioPerformance,
    OptiScalerQualityRatioUltraPerformance,
    DebugProfile,
    DebugLogDir,
};
inline constexpr size_t kKeyCount = static_cast<size_t>(KeyId::DebugLogDir) + 1;

struct KeyInfo {
    KeyId id;
    std::string_view section;
    std::string_view name;
    ValueType type;
    std::string_view default_value; // as written in d4r.ini
    Mapping mapping;
    std::string_view variable;        // the (first) environment variable, empty for Launcher
    std::string_view second_variable; // FrameAge's D4R_SHIM_MAX_IN_FLIGHT; empty otherwise
    double min = 0;                   // Integer and Ratio range, inclusive
    double max = 0;
    std::string_view help; // one or two sentences; no '|' (it lands in a markdown table)

    // The variables the key reads from the environment (precedence) and may export.
    std::vector<std::string_view> variables() const;
    size_t index() const { return static_cast<size_t>(id); }
};

// Every key, in schema order (the order of sections, of `show`, of the exports).
std::span<const KeyInfo> schema_keys();
const KeyInfo& key_info(KeyId id);
// Case-insensitive lookup; nullptr when unknown.
const KeyInfo* find_key(std::string_view section, std::string_view name);

// The free-form section whose `NAME = value` lines are passed through verbatim.
inline constexpr std::string_view kEnvSection = "Env";

// Section names in schema order, kEnvSection last.
std::vector<std::string_view> schema_sections();
// The canonical spelling of SECTION (case-insensitive), or empty when unknown.
std::string_view canonical_section(std::string_view section);

// Every variable any key maps to (for spotting an [Env] line that would shadow one).
bool is_schema_variable(std::string_view name);

} // namespace d4r::config
