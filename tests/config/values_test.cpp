// Value syntax of each schema type (docs/configuration.md: booleans, model letters, ranges).
#include <gtest/gtest.h>

#include "config/schema.h"
#include "config/values.h"

namespace d4r::config {
namespace {

TEST(ParseBool, AcceptsEverySpellingInAnyCase) {
    for (const char* t : {"true", "TRUE", "True", "tRuE", "on", "ON", "On", "yes", "YES", "Yes", "1"})
        EXPECT_EQ(parse_bool(t), true) << t;
    for (const char* f : {"false", "FALSE", "False", "fAlSe", "off", "OFF", "Off", "no", "NO", "No", "0"})
        EXPECT_EQ(parse_bool(f), false) << f;
}

TEST(ParseBool, RejectsEverythingElse) {
    for (const char* bad : {"perhaps", "2", "", "-1", "01", "t", "f", "y", "n", "enabled", "true ", " 1", "yess"})
        EXPECT_FALSE(parse_bool(bad).has_value()) << "'" << bad << "'";
}

TEST(CanonicalValue, BoolNormalisesAndNamesAcceptedValues) {
    const KeyInfo& key = key_info(KeyId::KernelsPreferAccuracy);
    EXPECT_EQ(*canonical_value(key, "YeS"), "true");
    EXPECT_EQ(*canonical_value(key, "0"), "false");
    auto bad = canonical_value(key, "perhaps");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code(), ErrorCode::Invalid);
    EXPECT_EQ(bad.error().message(),
              "must be true or false, not 'perhaps' (accepted: true/on/yes/1, false/off/no/0, any case)");
    EXPECT_FALSE(canonical_value(key, "2").ok());
    EXPECT_FALSE(canonical_value(key, "").ok());
}

TEST(Model, LettersMapToSpecPresetNumbers) {
    // docs/configuration.md: A1 B2 C3 D4 E5 F6 G7 J10 K11 L12 M13.
    const std::pair<const char*, int> expected[] = {{"A", 1}, {"B", 2},  {"C", 3},  {"D", 4},  {"E", 5}, {"F", 6},
                                                    {"G", 7}, {"J", 10}, {"K", 11}, {"L", 12}, {"M", 13}};
    for (auto [letter, preset] : expected) {
        EXPECT_EQ(parse_model(letter), letter);
        EXPECT_EQ(model_preset_number(letter), preset) << letter;
        EXPECT_EQ(model_letter_for_preset(std::to_string(preset)), letter);
    }
    EXPECT_EQ(model_presets().size(), 11u);
}

TEST(Model, LowerCaseAndAliases) {
    EXPECT_EQ(parse_model("k"), "K");
    EXPECT_EQ(parse_model("m"), "M");
    EXPECT_EQ(parse_model("CNN"), "E");
    EXPECT_EQ(parse_model("cnn"), "E");
    EXPECT_EQ(parse_model("DLSS3"), "E");
    EXPECT_EQ(parse_model("dlss4"), "K");
    EXPECT_EQ(parse_model("Transformer"), "K");
    EXPECT_EQ(parse_model("DLSS4.5"), "M");
    EXPECT_EQ(parse_model("dlss4.5"), "M");
}

TEST(Model, InvalidLettersAreErrorsListingTheAcceptedValues) {
    const KeyInfo& key = key_info(KeyId::DlssModel);
    for (const char* bad : {"H", "I", "N", "h", "Z", "", "KK", "DLSS5", "11", "DLSS 4"}) {
        auto v = canonical_value(key, bad);
        ASSERT_FALSE(v.ok()) << bad;
        EXPECT_NE(v.error().message().find("A, B, C, D, E, F, G, J, K, L, M"), std::string::npos);
        EXPECT_NE(v.error().message().find("TRANSFORMER"), std::string::npos);
        EXPECT_NE(v.error().message().find(std::string("not '") + bad + "'"), std::string::npos);
    }
    EXPECT_FALSE(model_letter_for_preset("8").has_value()); // H has no preset number
    EXPECT_FALSE(model_letter_for_preset("x").has_value());
}

TEST(CanonicalValue, IntegerRanges) {
    const KeyInfo& frame_age = key_info(KeyId::LatencyFrameAge);
    for (const char* ok : {"0", "1", "2", "3"}) EXPECT_EQ(*canonical_value(frame_age, ok), ok);
    EXPECT_EQ(*canonical_value(frame_age, "+2"), "2");
    for (const char* bad : {"4", "-1", "x", "", "1.5", "0x1", " 1"}) {
        auto v = canonical_value(frame_age, bad);
        ASSERT_FALSE(v.ok()) << bad;
        EXPECT_EQ(v.error().message(), std::string("must be an integer from 0 to 3, not '") + bad + "'");
    }
    const KeyInfo& block = key_info(KeyId::KernelsImplicitMaxBlock);
    EXPECT_TRUE(canonical_value(block, "32").ok());
    EXPECT_TRUE(canonical_value(block, "1024").ok());
    EXPECT_FALSE(canonical_value(block, "31").ok());
    EXPECT_FALSE(canonical_value(block, "1025").ok());
    const KeyInfo& watchdog = key_info(KeyId::InteropWatchdogMs);
    EXPECT_TRUE(canonical_value(watchdog, "0").ok());
    EXPECT_TRUE(canonical_value(watchdog, "3600000").ok());
    EXPECT_FALSE(canonical_value(watchdog, "3600001").ok());
    const KeyInfo& dilation = key_info(KeyId::InteropMotionVectorDilation);
    EXPECT_TRUE(canonical_value(dilation, "0").ok());
    EXPECT_TRUE(canonical_value(dilation, "8").ok());
    EXPECT_FALSE(canonical_value(dilation, "9").ok());
    const KeyInfo& log_level = key_info(KeyId::OptiScalerLogLevel);
    EXPECT_TRUE(canonical_value(log_level, "4").ok());
    EXPECT_FALSE(canonical_value(log_level, "5").ok());
}

TEST(CanonicalValue, NativeKernelsChoices) {
    const KeyInfo& key = key_info(KeyId::KernelsNativeKernels);
    EXPECT_EQ(*canonical_value(key, "on"), "on");
    EXPECT_EQ(*canonical_value(key, "FAST"), "on");
    EXPECT_EQ(*canonical_value(key, "Exact"), "exact");
    EXPECT_EQ(*canonical_value(key, "off"), "off");
    auto bad = canonical_value(key, "true");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message(), "must be on, fast, exact or off, not 'true'");
}

TEST(CanonicalValue, RatiosAreAutoOrPlainNumbersInRange) {
    const KeyInfo& key = key_info(KeyId::OptiScalerQualityRatioQuality);
    EXPECT_EQ(*canonical_value(key, "AUTO"), "auto");
    EXPECT_EQ(*canonical_value(key, "1.5"), "1.5");
    EXPECT_EQ(*canonical_value(key, "1.0"), "1.0");
    EXPECT_EQ(*canonical_value(key, "3"), "3");
    for (const char* bad : {"0.99", "3.01", "", "nan", "inf", "1e0", "-1.5", ".5", "1.", "1.2.3", "abc"})
        EXPECT_FALSE(canonical_value(key, bad).ok()) << bad;
}

TEST(CanonicalValue, PathsAndStringsAreVerbatim) {
    const KeyInfo& path = key_info(KeyId::PathsZludaDir);
    EXPECT_EQ(*canonical_value(path, "/opt/zluda dir;#x"), "/opt/zluda dir;#x");
    EXPECT_EQ(*canonical_value(path, "Auto"), "auto");
    EXPECT_EQ(*canonical_value(path, ""), "");
    EXPECT_TRUE(is_auto("auto"));
    EXPECT_TRUE(is_auto("AUTO"));
    EXPECT_TRUE(is_auto(""));
    EXPECT_FALSE(is_auto("./auto"));
}

} // namespace
} // namespace d4r::config
