#include <set>

#include <gtest/gtest.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "core/strings.h"
#include "test_support.h"

namespace d4r {
namespace {

// Captures what the readers warn, through the log's file sink.
struct LogCapture {
    test::TempDir dir;
    std::filesystem::path file = dir.path() / "log.txt";
    LogCapture() { EXPECT_TRUE(log::set_file(file.string()).ok()); }
    ~LogCapture() { log::set_stderr(); }
    std::string text() const { return test::read_file_text(file); }
};

TEST(EnvVars, TableIsComplete) {
    std::set<std::string_view> names;
    for (const EnvVarInfo& v : env_vars()) {
        EXPECT_TRUE(v.name.starts_with("D4R_")) << v.name;
        EXPECT_TRUE(names.insert(v.name).second) << "twice: " << v.name;
        EXPECT_FALSE(v.help.empty()) << v.name;
        EXPECT_FALSE(v.reader.empty()) << v.name;
        EXPECT_EQ(v.help.find('|'), std::string_view::npos) << v.name;
        EXPECT_EQ(&env_var_info(v.id), &v);
        if (v.type == EnvType::Bool && !v.default_value.empty()) {
            EXPECT_TRUE(parse_bool_word(v.default_value)) << v.name;
        }
        if (v.type == EnvType::Integer) {
            EXPECT_LE(v.min, v.max) << v.name;
            auto d = parse_i64(v.default_value);
            ASSERT_TRUE(d) << v.name;
            EXPECT_GE(*d, v.min) << v.name;
            EXPECT_LE(*d, v.max) << v.name;
        }
        if (v.type == EnvType::Enum) {
            EXPECT_FALSE(v.accepted.empty()) << v.name;
        }
        if (v.test_only) {
            EXPECT_TRUE(v.name.starts_with("D4R_TEST_")) << v.name;
        }
    }
    EXPECT_EQ(names.size(), kEnvVarCount);
    EXPECT_EQ(find_env_var("D4R_CUDA_TRACE"), &env_var_info(EnvVar::CudaTrace));
    EXPECT_EQ(find_env_var("D4R_NOT_A_VARIABLE"), nullptr);
}

TEST(EnvVars, OneBooleanRule) {
    for (const char* t : {"1", "true", "TRUE", "On", "yes"}) EXPECT_EQ(parse_bool_word(t), true) << t;
    for (const char* f : {"0", "false", "Off", "NO"}) EXPECT_EQ(parse_bool_word(f), false) << f;
    for (const char* x : {"", "2", "maybe", "enabled", " yes "}) // the callers trim
        EXPECT_EQ(parse_bool_word(x), std::nullopt) << x;
    EXPECT_TRUE(env_bool(MapEnvironment{{"D4R_CUDA_TRACE", " yes "}}, EnvVar::CudaTrace));
}

TEST(EnvVars, BoolReaderUsesTheDefaultAndWarnsOnceOnABadValue) {
    EXPECT_FALSE(env_bool(MapEnvironment{}, EnvVar::CudaTrace));
    EXPECT_TRUE(env_bool(MapEnvironment{}, EnvVar::ShimSplitFrame));
    EXPECT_TRUE(env_bool(MapEnvironment{{"D4R_CUDA_TRACE", "on"}}, EnvVar::CudaTrace));
    EXPECT_FALSE(env_bool(MapEnvironment{{"D4R_SHIM_SPLIT_FRAME", "No"}}, EnvVar::ShimSplitFrame));
    LogCapture capture;
    MapEnvironment bad{{"D4R_SHIM_BLOCKING_SYNC", "maybe"}};
    EXPECT_FALSE(env_bool(bad, EnvVar::ShimBlockingSync));
    EXPECT_FALSE(env_bool(bad, EnvVar::ShimBlockingSync));
    std::string text = capture.text();
    EXPECT_NE(text.find("D4R_SHIM_BLOCKING_SYNC=maybe: expected true or false (true/on/yes/1, false/off/no/0); the "
                        "default false is used"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("D4R_SHIM_BLOCKING_SYNC", text.find("D4R_SHIM_BLOCKING_SYNC") + 1), std::string::npos)
        << "warned twice: " << text;
}

TEST(EnvVars, IntegerReaderChecksTheRange) {
    EXPECT_EQ(env_int(MapEnvironment{}, EnvVar::ShimMaxInFlight), 3);
    EXPECT_EQ(env_int(MapEnvironment{{"D4R_SHIM_MAX_IN_FLIGHT", "16"}}, EnvVar::ShimMaxInFlight), 16);
    EXPECT_EQ(env_int_if_set(MapEnvironment{}, EnvVar::CpuWatchdogMs), std::nullopt);
    LogCapture capture;
    EXPECT_EQ(env_int(MapEnvironment{{"D4R_SHIM_MAX_IN_FLIGHT", "17"}}, EnvVar::ShimMaxInFlight), 3);
    EXPECT_EQ(env_int_if_set(MapEnvironment{{"D4R_CPU_WATCHDOG_MS", "soon"}}, EnvVar::CpuWatchdogMs), std::nullopt);
    std::string text = capture.text();
    EXPECT_NE(text.find("D4R_SHIM_MAX_IN_FLIGHT=17: expected an integer from 1 to 16; the default 3 is used"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("D4R_CPU_WATCHDOG_MS=soon: expected an integer from 0 to 3600000"), std::string::npos) << text;
}

TEST(EnvVars, EnumReaderRefusesUnknownWords) {
    EXPECT_EQ(env_text(MapEnvironment{{"D4R_LOG", "Debug"}}, EnvVar::Log), "Debug");
    LogCapture capture;
    EXPECT_EQ(env_text(MapEnvironment{{"D4R_LOG", "loud"}}, EnvVar::Log), std::nullopt);
    EXPECT_NE(capture.text().find("D4R_LOG=loud: expected one of off, error, warn"), std::string::npos)
        << capture.text();
}

TEST(EnvVars, DeprecatedAliasStillWorksAndWarnsOnce) {
    LogCapture capture;
    MapEnvironment old{{"D4R_ZLUDA_NATIVE_DIR", "/k"}};
    auto raw = env_raw(old, EnvVar::NativeKernelDir);
    ASSERT_TRUE(raw);
    EXPECT_EQ(raw->text, "/k");
    EXPECT_EQ(raw->source, "D4R_ZLUDA_NATIVE_DIR");
    EXPECT_EQ(env_text(old, EnvVar::NativeKernelDir), "/k");
    // The new name wins over the alias.
    MapEnvironment both{{"D4R_ZLUDA_NATIVE_DIR", "/old"}, {"D4R_NATIVE_KERNEL_DIR", "/new"}};
    EXPECT_EQ(env_text(both, EnvVar::NativeKernelDir), "/new");
    EXPECT_EQ(find_env_var("D4R_ZLUDA_NATIVE_DIR"), &env_var_info(EnvVar::NativeKernelDir));
    std::string text = capture.text();
    const std::string warning = "D4R_ZLUDA_NATIVE_DIR is deprecated: it still works, but set D4R_NATIVE_KERNEL_DIR";
    EXPECT_NE(text.find(warning), std::string::npos) << text;
    EXPECT_EQ(text.find(warning, text.find(warning) + 1), std::string::npos) << "warned twice: " << text;
}

TEST(EnvVars, ValueValidity) {
    EXPECT_TRUE(env_value_valid(env_var_info(EnvVar::CudaTrace), "Yes"));
    EXPECT_FALSE(env_value_valid(env_var_info(EnvVar::CudaTrace), "maybe"));
    EXPECT_TRUE(env_value_valid(env_var_info(EnvVar::CudaTrace), ""));
    EXPECT_FALSE(env_value_valid(env_var_info(EnvVar::ShimMaxInFlight), "0"));
    EXPECT_TRUE(env_value_valid(env_var_info(EnvVar::Log), "TRACE"));
    EXPECT_TRUE(env_value_valid(env_var_info(EnvVar::CpuJitCacheSize), "64M"));
    EXPECT_TRUE(env_value_valid(env_var_info(EnvVar::CpuJitCacheSize), "0"));
    EXPECT_FALSE(env_value_valid(env_var_info(EnvVar::CpuJitCacheSize), "lots"));
    EXPECT_FALSE(env_value_valid(env_var_info(EnvVar::Log), "loud"));
}

TEST(EnvVars, EmptyPathIsUnset) {
    EXPECT_EQ(env_text(MapEnvironment{{"D4R_LOG_FILE", ""}}, EnvVar::LogFile), std::nullopt);
    EXPECT_EQ(env_text(MapEnvironment{{"D4R_LOG_FILE", "/x"}}, EnvVar::LogFile), "/x");
}

} // namespace
} // namespace d4r

namespace d4r {
namespace {

TEST(EnvVars, AliasedEnvironmentAnswersForTheNewName) {
    MapEnvironment old{{"D4R_ZLUDA_NATIVE_DIR", "/k"}, {"OTHER", "x"}};
    AliasedEnvironment env(old);
    EXPECT_EQ(env.get("D4R_NATIVE_KERNEL_DIR"), "/k");
    EXPECT_EQ(env.get("OTHER"), "x");
    EXPECT_EQ(env.get("D4R_CUDA_TRACE"), std::nullopt);
}

} // namespace
} // namespace d4r
