// Keys d4r.ini no longer has (src/config/retired_keys.h): an old file that still sets one is told, by key and
// line, that it was removed and has no effect; none of them is exported; the list and the schema stay apart.
#include <gtest/gtest.h>

#include "config/retired_keys.h"
#include "config/schema.h"
#include "config_test_util.h"
#include "core/env_vars.h"

namespace d4r::config {
namespace {

using test::diagnostic_texts;
using test::export_map;
using test::parse_text;
using test::resolve_text;

// The six keys of issue 25 that nothing read, written out independently of the list.
const char* const kRemoved[][3] = {
    {"Kernels", "NativeSwinEncoders", "D4R_NATIVE_SWIN_ENCODERS"},
    {"Interop", "InputSync", "D4R_SHIM_INPUT_SYNC"},
    {"Interop", "LinearInputs", "D4R_SHIM_LINEAR_INPUTS"},
    {"Interop", "DirectOutput", "D4R_SHIM_OUTPUT_DIRECT"},
    {"Interop", "EvalSync", "D4R_SHIM_EVAL_SYNC"},
    {"Interop", "MarkerPollUs", "D4R_SHIM_MARKER_POLL_US"},
};

TEST(RetiredKeys, AnOldFileGetsAWarningNamingTheKeyAndLineNotAGuess) {
    for (const auto& [section, key, variable] : kRemoved) {
        const std::string text = std::string("; old file\n[") + section + "]\n" + key + " = true\n";
        ParsedConfig parsed = parse_text(text);
        EXPECT_FALSE(parsed.has_errors()) << key;
        std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
        ASSERT_EQ(warnings.size(), 1u) << key;
        EXPECT_EQ(warnings[0], std::string("d4r.ini:3: [") + section + "] " + key +
                                   " was removed and has no effect (nothing in d4r ever read it); delete the line");
        EXPECT_EQ(warnings[0].find("unknown key"), std::string::npos) << warnings[0];
        EXPECT_EQ(warnings[0].find("did you mean"), std::string::npos) << warnings[0];
    }
}

TEST(RetiredKeys, AnyCaseAndAnyValueStillWarnsAndNothingIsExported) {
    ParsedConfig parsed = parse_text("[interop]\nmarkerpollus = not a number\nEVALSYNC = 1\n");
    EXPECT_FALSE(parsed.has_errors()); // a retired key's value is not validated: it is ignored
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 2u);
    EXPECT_EQ(warnings[0].rfind("d4r.ini:2: [Interop] MarkerPollUs was removed and has no effect", 0), 0u);
    EXPECT_EQ(warnings[1].rfind("d4r.ini:3: [Interop] EvalSync was removed and has no effect", 0), 0u);

    auto ex = export_map(resolve_text("[Kernels]\nNativeSwinEncoders = false\n[Interop]\nInputSync = false\n"));
    for (const auto& row : kRemoved) EXPECT_EQ(ex.count(row[2]), 0u) << row[2];
}

TEST(RetiredKeys, AnEnvLineSettingARetiredVariableIsToldNothingReadsIt) {
    ParsedConfig parsed = parse_text("[Env]\nD4R_SHIM_EVAL_SYNC = 1\nD4R_SOMETHING_ELSE = 1\n");
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "d4r.ini:2: [Env] D4R_SHIM_EVAL_SYNC has no effect: nothing in d4r reads it (the key "
                           "[Interop] EvalSync that exported it was removed)");
    ASSERT_EQ(parsed.env.size(), 2u); // still passed through verbatim, as every [Env] line is
}

TEST(RetiredKeys, TheListIsTheIssuesSixAndApartFromTheSchemaAndTheVariables) {
    ASSERT_EQ(retired_keys().size(), std::size(kRemoved));
    for (const auto& [section, key, variable] : kRemoved) {
        const RetiredKey* r = find_retired_key(section, key);
        ASSERT_NE(r, nullptr) << key;
        EXPECT_EQ(r->variable, variable);
        EXPECT_EQ(find_retired_variable(variable), r);
        EXPECT_EQ(find_key(section, key), nullptr) << key << " is retired and still in the schema";
        EXPECT_EQ(find_env_var(variable), nullptr) << variable << " is retired and still in the table of variables";
        EXPECT_FALSE(is_schema_variable(variable)) << variable;
    }
    EXPECT_EQ(find_retired_key("DLSS", "ShowWatermark"), nullptr);
    EXPECT_EQ(find_retired_key("Interop", "MotionVectorDilation"), nullptr);
}

TEST(RetiredKeys, WatermarkAndDilationStayAsTheSpecSaysAndAreReadByTheShim) {
    const KeyInfo* watermark = find_key("DLSS", "ShowWatermark");
    ASSERT_NE(watermark, nullptr);
    EXPECT_EQ(watermark->variable, "D4R_SHIM_WATERMARK");
    EXPECT_EQ(watermark->default_value, "false");
    const KeyInfo* dilation = find_key("Interop", "MotionVectorDilation");
    ASSERT_NE(dilation, nullptr);
    EXPECT_EQ(dilation->variable, "D4R_MOTION_DILATION");
    EXPECT_EQ(dilation->default_value, "0");
    EXPECT_EQ(env_var_info(EnvVar::ShimWatermark).reader, "NGX shim (d4r_nvngx.dll)");
    EXPECT_EQ(env_var_info(EnvVar::MotionDilation).reader, "NGX shim (d4r_nvngx.dll)");
}

} // namespace
} // namespace d4r::config
