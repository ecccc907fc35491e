// A d4r.ini checked against the schema: errors, warnings, suggestions, duplicates, [Env].
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace d4r::config {
namespace {

using test::diagnostic_texts;
using test::parse_text;

std::string lines_before(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "; filler\n";
    return text;
}

TEST(ConfigFile, InvalidValueNamesFileLineSectionKeyAndAcceptedValues) {
    // The message docs/configuration.md and the brief quote, on line 12.
    ParsedConfig parsed = parse_text(lines_before(10) + "[Kernels]\nPreferAccuracy = perhaps\n");
    ASSERT_TRUE(parsed.has_errors());
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].rfind("d4r.ini:12: [Kernels] PreferAccuracy must be true or false, not 'perhaps'", 0), 0u)
        << errors[0];
    EXPECT_FALSE(parsed.value(KeyId::KernelsPreferAccuracy).has_value());
}

TEST(ConfigFile, KeysAndSectionsAreCaseInsensitiveAndMessagesUseTheSchemaSpelling) {
    ParsedConfig parsed = parse_text("[kernels]\npreferaccuracy = ON\n[LATENCY]\nframeage = 7\n");
    ASSERT_TRUE(parsed.value(KeyId::KernelsPreferAccuracy).has_value());
    EXPECT_EQ(parsed.value(KeyId::KernelsPreferAccuracy)->value, "true");
    EXPECT_EQ(parsed.value(KeyId::KernelsPreferAccuracy)->raw, "ON");
    EXPECT_EQ(parsed.value(KeyId::KernelsPreferAccuracy)->line, 2);
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], "d4r.ini:4: [Latency] FrameAge must be an integer from 0 to 3, not '7'");
}

TEST(ConfigFile, EveryErrorIsReportedNotJustTheFirst) {
    ParsedConfig parsed =
        parse_text("[DLSS]\nModel = H\nShowWatermark = 2\n[Latency]\nFrameAge = -1\nbroken line\n[Kernels\n");
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 5u);
    EXPECT_EQ(errors[0].rfind("d4r.ini:2: [DLSS] Model must be one of", 0), 0u);
    EXPECT_EQ(errors[1].rfind("d4r.ini:3: [DLSS] ShowWatermark must be true or false", 0), 0u);
    EXPECT_EQ(errors[2].rfind("d4r.ini:5: [Latency] FrameAge", 0), 0u);
    EXPECT_EQ(errors[3].rfind("d4r.ini:6: ", 0), 0u);
    EXPECT_EQ(errors[4].rfind("d4r.ini:7: unterminated section header", 0), 0u);
}

TEST(ConfigFile, TrailingCommentMakesAValueInvalidAndSaysWhy) {
    ParsedConfig parsed = parse_text("[Kernels]\nWmma = false ; faster\n");
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("not 'false ; faster'"), std::string::npos);
    EXPECT_NE(errors[0].find("comments must be on a line of their own"), std::string::npos);
}

TEST(ConfigFile, UnknownKeyIsAWarningWithTheClosestKey) {
    ParsedConfig parsed = parse_text("[DLSS]\n\n\n\n[Kernels]\n\nPreferAcuracy = true\n");
    EXPECT_FALSE(parsed.has_errors());
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "d4r.ini:7: unknown key [Kernels] PreferAcuracy; did you mean PreferAccuracy?");
    EXPECT_FALSE(parsed.value(KeyId::KernelsPreferAccuracy).has_value());
}

TEST(ConfigFile, KeyInTheWrongSectionSaysWhereItBelongs) {
    ParsedConfig parsed = parse_text("[DLSS]\nPreferAccuracy = true\n");
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "d4r.ini:2: unknown key [DLSS] PreferAccuracy; PreferAccuracy belongs in [Kernels]");
}

TEST(ConfigFile, UnknownKeyWithNothingCloseListsTheSectionsKeys) {
    ParsedConfig parsed = parse_text("[Debug]\nFrobnicate = 1\n");
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "d4r.ini:2: unknown key [Debug] Frobnicate; known keys of [Debug]: Profile, LogDir");
}

TEST(ConfigFile, UnknownSectionIsOneWarningWithASuggestion) {
    ParsedConfig parsed = parse_text("[Kernals]\nWmma = perhaps\nFoo = 1\n[Zzzzzzzz]\n");
    EXPECT_FALSE(parsed.has_errors()); // keys of an unknown section are ignored, not validated
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 2u);
    EXPECT_EQ(warnings[0], "d4r.ini:1: unknown section [Kernals] (its keys are ignored); did you mean [Kernels]?");
    EXPECT_EQ(warnings[1].rfind("d4r.ini:4: unknown section [Zzzzzzzz] (its keys are ignored); known sections: DLSS, "
                                "Latency, Kernels",
                                0),
              0u)
        << warnings[1];
}

TEST(ConfigFile, DuplicateKeyWarnsAndTheLastWins) {
    ParsedConfig parsed = parse_text("[Kernels]\nWmma = on\n[Interop]\n[kernels]\nWMMA = off\n");
    EXPECT_FALSE(parsed.has_errors());
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "d4r.ini:5: [Kernels] Wmma set again (first at line 2); the last value wins");
    ASSERT_TRUE(parsed.value(KeyId::KernelsWmma).has_value());
    EXPECT_EQ(parsed.value(KeyId::KernelsWmma)->value, "false");
    EXPECT_EQ(parsed.value(KeyId::KernelsWmma)->line, 5);
}

TEST(ConfigFile, InvalidDuplicateIsStillAnError) {
    ParsedConfig parsed = parse_text("[Kernels]\nWmma = on\nWmma = maybe\n");
    EXPECT_TRUE(parsed.has_errors());
}

TEST(ConfigFile, KeyOutsideAnySectionIsAnErrorNamingItsSection) {
    ParsedConfig parsed = parse_text("Model = K\nFoo = 1\n[DLSS]\n");
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_EQ(errors[0], "d4r.ini:1: 'Model = K' is outside any section; put it under [DLSS]");
    EXPECT_EQ(errors[1], "d4r.ini:2: 'Foo = 1' is outside any section (keys go under a [Section] header)");
}

TEST(ConfigFile, EnvLinesKeepCaseOrderAndValue) {
    ParsedConfig parsed = parse_text("[env]\nZED = 1\nalpha_2 = some value ; with semicolon\n_x =\n");
    EXPECT_TRUE(parsed.diagnostics.empty());
    ASSERT_EQ(parsed.env.size(), 3u);
    EXPECT_EQ(parsed.env[0].name, "ZED");
    EXPECT_EQ(parsed.env[1].name, "alpha_2");
    EXPECT_EQ(parsed.env[1].value, "some value ; with semicolon");
    EXPECT_EQ(parsed.env[1].line, 3);
    EXPECT_EQ(parsed.env[2].name, "_x");
    EXPECT_EQ(parsed.env[2].value, "");
}

TEST(ConfigFile, EnvBadNamesAreErrorsWithTheLine) {
    ParsedConfig parsed = parse_text("[Env]\n1ABC = x\nA-B = y\nA B = z\nÄ = w\nGOOD = ok\n");
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 4u);
    EXPECT_EQ(errors[0].rfind("d4r.ini:2: [Env] '1ABC' is not a valid variable name", 0), 0u);
    EXPECT_EQ(errors[1].rfind("d4r.ini:3: [Env] 'A-B'", 0), 0u);
    EXPECT_EQ(errors[2].rfind("d4r.ini:4: [Env] 'A B'", 0), 0u);
    EXPECT_EQ(errors[3].rfind("d4r.ini:5: ", 0), 0u);
    ASSERT_EQ(parsed.env.size(), 1u);
    EXPECT_EQ(parsed.env[0].name, "GOOD");
}

TEST(ConfigFile, EnvDuplicatesAreCaseSensitiveAndWarn) {
    ParsedConfig parsed = parse_text("[Env]\nFOO = 1\nfoo = 2\nBAR = 3\nFOO = 4\n");
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "d4r.ini:5: [Env] FOO set again (first at line 2); the last value wins");
    ASSERT_EQ(parsed.env.size(), 3u);
    EXPECT_EQ(parsed.env[0].name, "FOO");
    EXPECT_EQ(parsed.env[0].value, "4");
    EXPECT_EQ(parsed.env[1].name, "foo");
    EXPECT_EQ(parsed.env[2].name, "BAR");
}

TEST(ConfigFile, EnvLineShadowingASchemaVariableWarns) {
    ParsedConfig parsed = parse_text("[Env]\nD4R_CUDA_KERNEL_PROFILE = 1\n");
    std::vector<std::string> warnings = diagnostic_texts(parsed, Severity::Warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("[Debug] Profile"), std::string::npos);
}

TEST(ConfigFile, CrlfAndBomFilesParseCleanly) {
    ParsedConfig parsed = parse_text("\xEF\xBB\xBF[DLSS]\r\nModel = dlss4.5\r\n[Kernels]\r\nWmma = No\r\n");
    EXPECT_TRUE(parsed.diagnostics.empty());
    EXPECT_EQ(parsed.value(KeyId::DlssModel)->value, "M");
    EXPECT_EQ(parsed.value(KeyId::KernelsWmma)->value, "false");
    EXPECT_EQ(parsed.value(KeyId::KernelsWmma)->line, 4);
}

TEST(ConfigFile, NoFileMeansNoValuesAndNoDiagnostics) {
    ParsedConfig parsed = parse_config(ConfigSource::none());
    EXPECT_TRUE(parsed.diagnostics.empty());
    EXPECT_TRUE(parsed.file_name.empty());
    for (const auto& v : parsed.values) EXPECT_FALSE(v.has_value());
}

TEST(ConfigFile, FileNameAsGivenLabelsDiagnostics) {
    ParsedConfig parsed = parse_text("[DLSS]\nModel = Q\n", "../games/x/d4r.ini");
    std::vector<std::string> errors = diagnostic_texts(parsed, Severity::Error);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].rfind("../games/x/d4r.ini:2: ", 0), 0u);
}

} // namespace
} // namespace d4r::config
