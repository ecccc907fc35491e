// Effective values, origins and the environment they become (docs/configuration.md mapping and precedence).
#include <gtest/gtest.h>

#include "config/schema.h"
#include "config_test_util.h"

namespace d4r::config {
namespace {

using test::export_map;
using test::resolve_text;
using Exports = std::map<std::string, std::optional<std::string>>;

std::vector<std::string> export_names(const ResolvedConfig& r) {
    std::vector<std::string> names;
    for (const EnvExport& e : compute_exports(r)) names.push_back(e.name);
    return names;
}

TEST(Resolve, DefaultsWithoutAFile) {
    MapEnvironment env;
    auto resolved = resolve_config(ConfigSource::none(), env);
    ASSERT_TRUE(resolved.ok());
    EXPECT_TRUE(resolved->file_name().empty());
    const ResolvedValue& model = resolved->get(KeyId::DlssModel);
    EXPECT_EQ(model.value, "K");
    EXPECT_EQ(model.origin, Origin::Default);
    EXPECT_EQ(model.origin_text, "default");
    Exports ex = export_map(*resolved);
    // Values from docs/configuration.md's default column, exported independently of any file.
    EXPECT_EQ(ex["D4R_DLSS_PRESET"], "11");
    EXPECT_EQ(ex["D4R_SHIM_WATERMARK"], "0");
    EXPECT_EQ(ex["D4R_SHIM_SPLIT_FRAME"], "1");
    EXPECT_EQ(ex["D4R_PREFER_ACCURACY"], "0");
    EXPECT_EQ(ex["D4R_ZLUDA_WMMA"], "1");
    EXPECT_EQ(ex["D4R_ZLUDA_WMMA_FP8"], "1");
    EXPECT_EQ(ex["D4R_ZLUDA_IGNORE_DENORMAL"], "1");
    EXPECT_EQ(ex["D4R_ZLUDA_IMPLICIT_MAX_BLOCK"], "256");
    EXPECT_EQ(ex["D4R_SHIM_VRAM_INTEROP"], "1");
    EXPECT_EQ(ex["D4R_ELIDE_NGX_SYNC"], "1");
    EXPECT_EQ(ex["D4R_MOTION_DILATION"], "0");
    EXPECT_EQ(ex["D4R_OPTISCALER_FPS_OVERLAY"], "1");
    EXPECT_EQ(ex["D4R_OPTISCALER_LOG_LEVEL"], "2");
    EXPECT_EQ(ex["D4R_CUDA_KERNEL_PROFILE"], "0");
    // Native kernels default off (developer default): an unset, never a value.
    ASSERT_TRUE(ex.count("D4R_NATIVE_KERNEL_DIR"));
    EXPECT_FALSE(ex["D4R_NATIVE_KERNEL_DIR"].has_value());
    // auto / empty / NativeFp8-not-false / FrameAge 0: not exported at all.
    for (const char* absent :
         {"D4R_SHIM_MAX_IN_FLIGHT", "D4R_ZLUDA_WMMA_FP8_NATIVE", "D4R_RUNTIME_DIR", "D4R_ZLUDA_DIR", "D4R_ROCM_DIR",
          "D4R_VKD3D_DIR", "D4R_ZLUDA_CACHE_HOME", "D4R_UE_ENGINE_INI", "D4R_UE_CVARS", "D4R_GAME_LOG_DIR",
          "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_QUALITY", "D4R_OPTISCALER_QUALITY_RATIO_QUALITY",
          "D4R_OPTISCALER_QUALITY_RATIO_BALANCED", "D4R_OPTISCALER_QUALITY_RATIO_PERFORMANCE",
          "D4R_OPTISCALER_QUALITY_RATIO_ULTRA_PERFORMANCE",
          // the retired keys' variables (retired_keys.h): nothing read them, nothing exports them now
          "D4R_NATIVE_SWIN_ENCODERS", "D4R_SHIM_INPUT_SYNC", "D4R_SHIM_LINEAR_INPUTS", "D4R_SHIM_OUTPUT_DIRECT",
          "D4R_SHIM_EVAL_SYNC", "D4R_SHIM_MARKER_POLL_US"})
        EXPECT_EQ(ex.count(absent), 0u) << absent;
}

TEST(Resolve, FileValuesCarryTheirLine) {
    ResolvedConfig r = resolve_text("[DLSS]\n\nmodel = cnn\n");
    const ResolvedValue& model = r.get(KeyId::DlssModel);
    EXPECT_EQ(model.value, "E");
    EXPECT_EQ(model.origin, Origin::File);
    EXPECT_EQ(model.line, 3);
    EXPECT_EQ(model.origin_text, "d4r.ini:3");
    EXPECT_EQ(export_map(r)["D4R_DLSS_PRESET"], "5");
    ASSERT_NE(r.find("dlss", "MODEL"), nullptr);
    EXPECT_EQ(r.find("dlss", "MODEL")->value, "E");
    EXPECT_EQ(r.find("DLSS", "Nope"), nullptr);
}

TEST(Resolve, ModelAliasesExportPresetNumbers) {
    EXPECT_EQ(export_map(resolve_text("[DLSS]\nModel = DLSS4\n"))["D4R_DLSS_PRESET"], "11");
    EXPECT_EQ(export_map(resolve_text("[DLSS]\nModel = transformer\n"))["D4R_DLSS_PRESET"], "11");
    EXPECT_EQ(export_map(resolve_text("[DLSS]\nModel = DLSS4.5\n"))["D4R_DLSS_PRESET"], "13");
    EXPECT_EQ(export_map(resolve_text("[DLSS]\nModel = dlss3\n"))["D4R_DLSS_PRESET"], "5");
    EXPECT_EQ(export_map(resolve_text("[DLSS]\nModel = j\n"))["D4R_DLSS_PRESET"], "10");
    EXPECT_EQ(export_map(resolve_text("[DLSS]\nModel = A\n"))["D4R_DLSS_PRESET"], "1");
}

TEST(Resolve, FrameAgeMapping) {
    Exports zero = export_map(resolve_text("[Latency]\nFrameAge = 0\n"));
    EXPECT_EQ(zero["D4R_SHIM_SPLIT_FRAME"], "1");
    EXPECT_EQ(zero.count("D4R_SHIM_MAX_IN_FLIGHT"), 0u);
    for (int n = 1; n <= 3; ++n) {
        Exports ex = export_map(resolve_text("[Latency]\nFrameAge = " + std::to_string(n) + "\n"));
        EXPECT_EQ(ex["D4R_SHIM_SPLIT_FRAME"], "0") << n;
        EXPECT_EQ(ex["D4R_SHIM_MAX_IN_FLIGHT"], std::to_string(n));
    }
    MapEnvironment env;
    for (const char* bad : {"4", "-1", "x"})
        EXPECT_FALSE(
            resolve_config(ConfigSource::from_text("d4r.ini", std::string("[Latency]\nFrameAge = ") + bad), env).ok())
            << bad;
}

TEST(Resolve, PreferAccuracyIsAlwaysExported) {
    EXPECT_EQ(export_map(resolve_text(""))["D4R_PREFER_ACCURACY"], "0");
    EXPECT_EQ(export_map(resolve_text("[Kernels]\nPreferAccuracy = off\n"))["D4R_PREFER_ACCURACY"], "0");
    EXPECT_EQ(export_map(resolve_text("[Kernels]\nPreferAccuracy = Yes\n"))["D4R_PREFER_ACCURACY"], "1");
}

TEST(Resolve, NativeKernelsOnUsesNativeKernelDirElseRuntimeDir) {
    Exports dir =
        export_map(resolve_text("[Kernels]\nNativeKernels = on\n[Paths]\nRuntimeDir = /rt\nNativeKernelDir = /k\n"));
    EXPECT_EQ(dir["D4R_NATIVE_KERNEL_DIR"], "/k");
    EXPECT_EQ(dir["D4R_RUNTIME_DIR"], "/rt");
    EXPECT_EQ(dir["D4R_PREFER_ACCURACY"], "0");

    Exports runtime = export_map(resolve_text("[Kernels]\nNativeKernels = fast\n[Paths]\nRuntimeDir = /opt/d4r/\n"));
    EXPECT_EQ(runtime["D4R_NATIVE_KERNEL_DIR"], "/opt/d4r/kernels");
    Exports runtime2 = export_map(resolve_text("[Kernels]\nNativeKernels = on\n[Paths]\nRuntimeDir = rel/d4r\n"));
    EXPECT_EQ(runtime2["D4R_NATIVE_KERNEL_DIR"], "rel/d4r/kernels");
}

TEST(Resolve, NativeKernelsOnWithoutARootExportsNothingAndSaysSo) {
    ResolvedConfig r = resolve_text("[Kernels]\nNativeKernels = on\n");
    EXPECT_EQ(export_map(r).count("D4R_NATIVE_KERNEL_DIR"), 0u);
    EXPECT_FALSE(r.kernel_root().has_value());
    const auto& plans = r.variables(KeyId::KernelsNativeKernels);
    ASSERT_EQ(plans.size(), 1u);
    EXPECT_EQ(plans[0].state, VariableState::NotExported);
    EXPECT_NE(plans[0].note.find("no kernel root"), std::string::npos);
}

TEST(Resolve, NativeKernelsExactForcesAccuracy) {
    ResolvedConfig r =
        resolve_text("[Kernels]\nPreferAccuracy = false\nNativeKernels = exact\n[Paths]\nNativeKernelDir = /k\n");
    Exports ex = export_map(r);
    EXPECT_EQ(ex["D4R_NATIVE_KERNEL_DIR"], "/k");
    EXPECT_EQ(ex["D4R_PREFER_ACCURACY"], "1");
    const ResolvedValue& accuracy = r.get(KeyId::KernelsPreferAccuracy);
    EXPECT_EQ(accuracy.value, "true");
    EXPECT_EQ(accuracy.as_bool(), true);
    EXPECT_EQ(accuracy.origin, Origin::Implied);
    EXPECT_EQ(accuracy.origin_text, "forced by [Kernels] NativeKernels = exact (d4r.ini:3)");
}

TEST(Resolve, NativeKernelsOffUnsetsTheVariable) {
    ResolvedConfig r = resolve_text("[Kernels]\nNativeKernels = OFF\n[Paths]\nNativeKernelDir = /k\n");
    std::vector<EnvExport> exports = compute_exports(r);
    auto it = std::find_if(exports.begin(), exports.end(),
                           [](const EnvExport& e) { return e.name == "D4R_NATIVE_KERNEL_DIR"; });
    ASSERT_NE(it, exports.end());
    EXPECT_FALSE(it->value.has_value());
    EXPECT_EQ(it->shell(), "unset D4R_NATIVE_KERNEL_DIR");
}

TEST(Resolve, NativeFp8OnlyExportedWhenExplicitlyFalse) {
    EXPECT_EQ(export_map(resolve_text("")).count("D4R_ZLUDA_WMMA_FP8_NATIVE"), 0u);
    EXPECT_EQ(export_map(resolve_text("[Kernels]\nNativeFp8 = true\n")).count("D4R_ZLUDA_WMMA_FP8_NATIVE"), 0u);
    EXPECT_EQ(export_map(resolve_text("[Kernels]\nNativeFp8 = no\n"))["D4R_ZLUDA_WMMA_FP8_NATIVE"], "0");
}

TEST(Resolve, PathsAndStringsVerbatimAutoAndEmptyNotExported) {
    ResolvedConfig r = resolve_text("[Paths]\nZludaDir = /opt/zluda dir\nRocmDir = AUTO\nCacheDir =\n"
                                    "[Game]\nCvars = r.A=1; r.B=2\n[Debug]\nLogDir = /logs\n"
                                    "[OptiScaler]\nQualityRatioBalanced = 1.7\nLogLevel = 4\nFpsOverlay = off\n");
    Exports ex = export_map(r);
    EXPECT_EQ(ex["D4R_ZLUDA_DIR"], "/opt/zluda dir");
    EXPECT_EQ(ex.count("D4R_ROCM_DIR"), 0u);
    EXPECT_EQ(ex.count("D4R_ZLUDA_CACHE_HOME"), 0u);
    EXPECT_EQ(ex["D4R_UE_CVARS"], "r.A=1; r.B=2");
    EXPECT_EQ(ex["D4R_GAME_LOG_DIR"], "/logs");
    EXPECT_EQ(ex["D4R_OPTISCALER_QUALITY_RATIO_BALANCED"], "1.7");
    EXPECT_EQ(ex["D4R_OPTISCALER_LOG_LEVEL"], "4");
    EXPECT_EQ(ex["D4R_OPTISCALER_FPS_OVERLAY"], "0");
    EXPECT_TRUE(r.get(KeyId::PathsRocmDir).is_auto());
    EXPECT_FALSE(r.get(KeyId::PathsZludaDir).is_auto());
}

TEST(Resolve, LaunchKeysHaveNoVariable) {
    ResolvedConfig r = resolve_text("[Launch]\nGameExe = Game.exe\nProtonDir = /p\n");
    EXPECT_EQ(r.get(KeyId::LaunchGameExe).value, "Game.exe");
    EXPECT_TRUE(r.variables(KeyId::LaunchGameExe).empty());
    for (const EnvExport& e : compute_exports(r)) EXPECT_NE(e.value, std::optional<std::string>("Game.exe"));
}

TEST(Resolve, ExportsAreInSchemaOrderThenEnvInFileOrder) {
    ResolvedConfig r = resolve_text("[Env]\nZZZ = 1\nAAA = 2\n[Debug]\nProfile = on\n[DLSS]\nModel = L\n");
    std::vector<std::string> names = export_names(r);
    ASSERT_GE(names.size(), 3u);
    EXPECT_EQ(names.front(), "D4R_DLSS_PRESET");
    EXPECT_EQ(names[names.size() - 3], "D4R_CUDA_KERNEL_PROFILE"); // the last schema variable
    EXPECT_EQ(names[names.size() - 2], "ZZZ");
    EXPECT_EQ(names[names.size() - 1], "AAA");
    // Schema order: the position of each variable follows its key's row.
    std::vector<std::string> schema_vars;
    for (const KeyInfo& k : schema_keys())
        for (std::string_view v : k.variables()) schema_vars.emplace_back(v);
    size_t last = 0;
    for (size_t i = 0; i + 2 < names.size(); ++i) {
        auto pos =
            static_cast<size_t>(std::find(schema_vars.begin(), schema_vars.end(), names[i]) - schema_vars.begin());
        ASSERT_LT(pos, schema_vars.size()) << names[i];
        EXPECT_GE(pos, last) << names[i];
        last = pos;
    }
}

TEST(Resolve, EnvLineReplacesTheSchemaExport) {
    ResolvedConfig r = resolve_text("[Debug]\nProfile = false\n[Env]\nD4R_CUDA_KERNEL_PROFILE = 1\n");
    std::vector<EnvExport> exports = compute_exports(r);
    EXPECT_EQ(std::count_if(exports.begin(), exports.end(),
                            [](const EnvExport& e) { return e.name == "D4R_CUDA_KERNEL_PROFILE"; }),
              1);
    EXPECT_EQ(export_map(r)["D4R_CUDA_KERNEL_PROFILE"], "1");
    EXPECT_EQ(r.variables(KeyId::DebugProfile)[0].state, VariableState::ReplacedByEnv);
}

// --- the environment wins -------------------------------------------------------------------------

TEST(Precedence, EnvironmentVariableWinsOverTheFileAndIsNotExported) {
    ResolvedConfig r = resolve_text("[DLSS]\nShowWatermark = true\nModel = E\n", {{"D4R_SHIM_WATERMARK", "0"}});
    Exports ex = export_map(r);
    EXPECT_EQ(ex.count("D4R_SHIM_WATERMARK"), 0u);
    EXPECT_EQ(ex["D4R_DLSS_PRESET"], "5"); // other keys still come from the file
    const ResolvedValue& w = r.get(KeyId::DlssShowWatermark);
    EXPECT_EQ(w.value, "false");
    EXPECT_EQ(w.origin, Origin::Environment);
    EXPECT_EQ(w.origin_text, "environment D4R_SHIM_WATERMARK");
    const VariablePlan& plan = r.variables(KeyId::DlssShowWatermark)[0];
    EXPECT_EQ(plan.state, VariableState::FromEnvironment);
    EXPECT_EQ(plan.value, "0");
}

TEST(Precedence, EnvironmentWinsEvenOverDefaults) {
    ResolvedConfig r = resolve_text("", {{"D4R_PREFER_ACCURACY", "1"}, {"D4R_DLSS_PRESET", "13"}});
    Exports ex = export_map(r);
    EXPECT_EQ(ex.count("D4R_PREFER_ACCURACY"), 0u);
    EXPECT_EQ(ex.count("D4R_DLSS_PRESET"), 0u);
    EXPECT_EQ(r.get(KeyId::KernelsPreferAccuracy).value, "true");
    EXPECT_EQ(r.get(KeyId::DlssModel).value, "M"); // preset number read back as its letter
    EXPECT_EQ(r.get(KeyId::DlssModel).origin_text, "environment D4R_DLSS_PRESET");
}

TEST(Precedence, UnreadableEnvironmentValueIsShownRaw) {
    ResolvedConfig r = resolve_text("", {{"D4R_SHIM_WATERMARK", "maybe"}});
    const ResolvedValue& w = r.get(KeyId::DlssShowWatermark);
    EXPECT_FALSE(w.decoded);
    EXPECT_EQ(w.value, "D4R_SHIM_WATERMARK=maybe");
    EXPECT_FALSE(w.as_bool().has_value());
    EXPECT_EQ(export_map(r).count("D4R_SHIM_WATERMARK"), 0u);
}

TEST(Precedence, FrameAgeSaysWhichVariableIsSet) {
    ResolvedConfig r = resolve_text("[Latency]\nFrameAge = 2\n", {{"D4R_SHIM_MAX_IN_FLIGHT", "3"}});
    const ResolvedValue& age = r.get(KeyId::LatencyFrameAge);
    EXPECT_EQ(age.origin_text, "environment D4R_SHIM_MAX_IN_FLIGHT");
    EXPECT_EQ(age.value, "3");
    Exports ex = export_map(r);
    EXPECT_EQ(ex["D4R_SHIM_SPLIT_FRAME"], "0"); // still from the file
    EXPECT_EQ(ex.count("D4R_SHIM_MAX_IN_FLIGHT"), 0u);

    ResolvedConfig split = resolve_text("[Latency]\nFrameAge = 2\n", {{"D4R_SHIM_SPLIT_FRAME", "1"}});
    EXPECT_EQ(split.get(KeyId::LatencyFrameAge).value, "0");
    EXPECT_EQ(split.get(KeyId::LatencyFrameAge).origin_text, "environment D4R_SHIM_SPLIT_FRAME");
    EXPECT_EQ(export_map(split).count("D4R_SHIM_SPLIT_FRAME"), 0u);

    ResolvedConfig both = resolve_text("", {{"D4R_SHIM_SPLIT_FRAME", "0"}, {"D4R_SHIM_MAX_IN_FLIGHT", "1"}});
    EXPECT_EQ(both.get(KeyId::LatencyFrameAge).value, "1");
    EXPECT_EQ(both.get(KeyId::LatencyFrameAge).origin_text, "environment D4R_SHIM_SPLIT_FRAME, D4R_SHIM_MAX_IN_FLIGHT");
}

// The deprecated name still counts as set: the file neither exports nor unsets the new one, so the runtime
// (which reads the alias) and `d4r config` agree.
TEST(Precedence, DeprecatedNativeKernelDirAliasInTheEnvironment) {
    ResolvedConfig r = resolve_text("[Kernels]\nNativeKernels = off\n", {{"D4R_ZLUDA_NATIVE_DIR", "/old/k"}});
    Exports ex = export_map(r);
    EXPECT_EQ(ex.count("D4R_NATIVE_KERNEL_DIR"), 0u);
    EXPECT_EQ(ex.count("D4R_ZLUDA_NATIVE_DIR"), 0u);
    EXPECT_EQ(r.get(KeyId::KernelsNativeKernels).value, "on");
    EXPECT_EQ(r.kernel_root(), "/old/k");
}

TEST(Precedence, NativeKernelDirInTheEnvironment) {
    ResolvedConfig r = resolve_text("[Kernels]\nNativeKernels = off\n", {{"D4R_NATIVE_KERNEL_DIR", "/env/k"}});
    // The environment's root wins: no unset, no export.
    Exports ex = export_map(r);
    EXPECT_EQ(ex.count("D4R_NATIVE_KERNEL_DIR"), 0u);
    EXPECT_EQ(r.get(KeyId::KernelsNativeKernels).origin, Origin::Environment);
    EXPECT_EQ(r.get(KeyId::KernelsNativeKernels).value, "on");
    EXPECT_EQ(r.get(KeyId::PathsNativeKernelDir).value, "/env/k");
    EXPECT_EQ(r.kernel_root(), "/env/k");
}

TEST(Precedence, EnvironmentAccuracyWinsOverExact) {
    ResolvedConfig r = resolve_text("[Kernels]\nNativeKernels = exact\n", {{"D4R_PREFER_ACCURACY", "0"}});
    EXPECT_EQ(r.get(KeyId::KernelsPreferAccuracy).value, "false");
    EXPECT_EQ(r.get(KeyId::KernelsPreferAccuracy).origin, Origin::Environment);
    EXPECT_EQ(export_map(r).count("D4R_PREFER_ACCURACY"), 0u);
}

TEST(Precedence, EnvSectionLineAlreadyInTheEnvironmentIsNotExported) {
    ResolvedConfig r = resolve_text("[Env]\nFOO = file\nBAR = file\n", {{"FOO", "env"}});
    Exports ex = export_map(r);
    EXPECT_EQ(ex.count("FOO"), 0u);
    EXPECT_EQ(ex["BAR"], "file");
    ASSERT_EQ(r.env_lines().size(), 2u);
    EXPECT_EQ(r.env_lines()[0].environment_value, "env");
}

TEST(Resolve, InvalidFileFailsWithEveryError) {
    MapEnvironment env;
    auto r = resolve_config(ConfigSource::from_text("x.ini", "[DLSS]\nModel = N\n[Kernels]\nWmma = 2\n"), env);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::Invalid);
    EXPECT_NE(r.error().text().find("x.ini:2: [DLSS] Model"), std::string::npos);
    EXPECT_NE(r.error().text().find("x.ini:4: [Kernels] Wmma"), std::string::npos);
}

TEST(Resolve, WarningsAreKept) {
    ResolvedConfig r = resolve_text("[DLSS]\nModle = K\n");
    ASSERT_EQ(r.warnings().size(), 1u);
    EXPECT_NE(r.warnings()[0].message.find("did you mean Model?"), std::string::npos);
}

TEST(EnvExport, ShellQuotesValues) {
    EXPECT_EQ((EnvExport{"A", "plain/path-1.0"}).shell(), "export A=plain/path-1.0");
    EXPECT_EQ((EnvExport{"A", "two words"}).shell(), "export A='two words'");
    EXPECT_EQ((EnvExport{"A", "it's"}).shell(), "export A='it'\\''s'");
    EXPECT_EQ((EnvExport{"A", ""}).shell(), "export A=''");
    EXPECT_EQ((EnvExport{"A", std::nullopt}).shell(), "unset A");
}

} // namespace
} // namespace d4r::config
