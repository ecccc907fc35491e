// The schema table against docs/configuration.md, written out here independently, and its own invariants.
#include <set>

#include <gtest/gtest.h>

#include "config/schema.h"
#include "config/values.h"
#include "core/strings.h"

namespace d4r::config {
namespace {

struct SpecRow {
    const char* section;
    const char* key;
    const char* variables; // space-separated; "" for none
    const char* default_value;
};

// docs/configuration.md's table (plus the brief's decisions: NativeKernels default off, Launch/Game empty).
const SpecRow kSpec[] = {
    {"DLSS", "Model", "D4R_DLSS_PRESET", "K"},
    {"DLSS", "ShowWatermark", "D4R_SHIM_WATERMARK", "false"},
    {"DLSS", "Network", "D4R_NETWORK", "false"},
    {"Latency", "FrameAge", "D4R_SHIM_SPLIT_FRAME D4R_SHIM_MAX_IN_FLIGHT", "0"},
    {"Kernels", "PreferAccuracy", "D4R_PREFER_ACCURACY", "false"},
    {"Kernels", "NativeKernels", "D4R_NATIVE_KERNEL_DIR", "off"},
    {"Kernels", "Wmma", "D4R_ZLUDA_WMMA", "true"},
    {"Kernels", "Fp8Wmma", "D4R_ZLUDA_WMMA_FP8", "true"},
    {"Kernels", "NativeFp8", "D4R_ZLUDA_WMMA_FP8_NATIVE", "true"},
    {"Kernels", "IgnoreDenormals", "D4R_ZLUDA_IGNORE_DENORMAL", "true"},
    {"Kernels", "ImplicitMaxBlock", "D4R_ZLUDA_IMPLICIT_MAX_BLOCK", "256"},
    {"Interop", "VramInterop", "D4R_SHIM_VRAM_INTEROP", "true"},
    {"Interop", "ElideNgxSync", "D4R_ELIDE_NGX_SYNC", "true"},
    {"Interop", "MotionVectorDilation", "D4R_MOTION_DILATION", "0"},
    {"Interop", "WatchdogMs", "D4R_CPU_WATCHDOG_MS", "10000"},
    {"Paths", "RuntimeDir", "D4R_RUNTIME_DIR", "auto"},
    {"Paths", "ZludaDir", "D4R_ZLUDA_DIR", "auto"},
    {"Paths", "RocmDir", "D4R_ROCM_DIR", "auto"},
    {"Paths", "VkD3DDir", "D4R_VKD3D_DIR", "auto"},
    {"Paths", "NativeKernelDir", "D4R_NATIVE_KERNEL_DIR", "auto"},
    {"Paths", "CacheDir", "D4R_ZLUDA_CACHE_HOME", "auto"},
    {"Paths", "NetworkModel", "D4R_NETWORK_MODEL", "auto"},
    {"Launch", "ProtonDir", "", ""},
    {"Launch", "CompatDataDir", "", ""},
    {"Launch", "GameExe", "", ""},
    {"Launch", "GameProfile", "", "true"},
    {"Game", "EngineIni", "D4R_UE_ENGINE_INI", ""},
    {"Game", "Cvars", "D4R_UE_CVARS", ""},
    {"OptiScaler", "FpsOverlay", "D4R_OPTISCALER_FPS_OVERLAY", "true"},
    {"OptiScaler", "LogLevel", "D4R_OPTISCALER_LOG_LEVEL", "2"},
    {"OptiScaler", "QualityRatioUltraQuality", "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_QUALITY", "auto"},
    {"OptiScaler", "QualityRatioQuality", "D4R_OPTISCALER_QUALITY_RATIO_QUALITY", "auto"},
    {"OptiScaler", "QualityRatioBalanced", "D4R_OPTISCALER_QUALITY_RATIO_BALANCED", "auto"},
    {"OptiScaler", "QualityRatioPerformance", "D4R_OPTISCALER_QUALITY_RATIO_PERFORMANCE", "auto"},
    {"OptiScaler", "QualityRatioUltraPerformance", "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_PERFORMANCE", "auto"},
    {"Debug", "Profile", "D4R_CUDA_KERNEL_PROFILE", "false"},
    {"Debug", "LogDir", "D4R_GAME_LOG_DIR", "auto"},
};

TEST(Schema, MatchesSpecRowForRow) {
    ASSERT_EQ(schema_keys().size(), std::size(kSpec));
    for (size_t i = 0; i < std::size(kSpec); ++i) {
        const KeyInfo& k = schema_keys()[i];
        const SpecRow& s = kSpec[i];
        EXPECT_EQ(k.section, s.section) << i;
        EXPECT_EQ(k.name, s.key) << i;
        EXPECT_EQ(k.default_value, s.default_value) << s.key;
        std::string vars;
        for (std::string_view v : k.variables()) vars += (vars.empty() ? "" : " ") + std::string(v);
        EXPECT_EQ(vars, s.variables) << s.key;
        EXPECT_EQ(find_key(s.section, s.key), &k);
        EXPECT_EQ(&key_info(k.id), &k);
    }
}

TEST(Schema, DefaultsAreValidValuesOfTheirType) {
    for (const KeyInfo& k : schema_keys()) {
        auto v = canonical_value(k, k.default_value);
        ASSERT_TRUE(v.ok()) << k.section << "/" << k.name << ": " << v.error().text();
        EXPECT_EQ(*v, k.default_value) << k.name << ": defaults are written canonically";
    }
}

TEST(Schema, HelpTextIsPresentAndTableSafe) {
    for (const KeyInfo& k : schema_keys()) {
        EXPECT_GT(k.help.size(), 20u) << k.name;
        EXPECT_EQ(k.help.find('|'), std::string_view::npos) << k.name;
        EXPECT_EQ(k.help.find('\n'), std::string_view::npos) << k.name;
    }
}

TEST(Schema, KeysUniqueSectionsContiguousVariablesOwnedOnce) {
    std::set<std::string> keys;
    std::set<std::string> exported_by;
    std::vector<std::string_view> sections = schema_sections();
    EXPECT_EQ(sections, (std::vector<std::string_view>{"DLSS", "Latency", "Kernels", "Interop", "Paths", "Launch",
                                                       "Game", "OptiScaler", "Debug", "Env"}));
    for (const KeyInfo& k : schema_keys()) {
        EXPECT_TRUE(keys.insert(to_lower(std::string(k.section) + "/" + std::string(k.name))).second) << k.name;
        // A variable is exported by exactly one key (NativeKernelDir only names NativeKernels' variable).
        if (k.mapping == Mapping::KernelRoot || k.mapping == Mapping::Launcher) continue;
        for (std::string_view v : k.variables()) EXPECT_TRUE(exported_by.insert(std::string(v)).second) << v;
    }
    EXPECT_TRUE(is_schema_variable("D4R_SHIM_MAX_IN_FLIGHT"));
    EXPECT_FALSE(is_schema_variable("D4R_CONFIG"));
    EXPECT_EQ(canonical_section("optiscaler"), "OptiScaler");
    EXPECT_EQ(canonical_section("env"), "Env");
    EXPECT_EQ(canonical_section("Nope"), "");
}

} // namespace
} // namespace d4r::config
