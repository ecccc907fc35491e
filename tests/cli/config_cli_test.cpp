// d4r config env|check|show|schema|vars|template, end to end through build/bin/d4r.
#include <regex>

#include <gtest/gtest.h>

#include "core/env_vars.h"
#include "test_support.h"

namespace d4r::test {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string lines_before(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "; filler\n";
    return text;
}

TEST(ConfigCli, HelpWorksForEveryVerb) {
    for (std::vector<std::string> args : {std::vector<std::string>{"config", "--help"},
                                          {"config", "env", "--help"},
                                          {"config", "check", "--help"},
                                          {"config", "show", "--help"},
                                          {"config", "schema", "--help"},
                                          {"config", "vars", "--help"},
                                          {"config", "template", "--help"}}) {
        RunResult r = run_d4r(args);
        EXPECT_EQ(r.exit_code, 0) << args[1];
        EXPECT_TRUE(contains(r.out, "Usage")) << args[1] << ": " << r.out;
    }
    RunResult env_help = run_d4r({"config", "env", "--help"});
    EXPECT_TRUE(contains(env_help.out, "--config"));
    EXPECT_TRUE(contains(env_help.out, "export"));
    RunResult top = run_d4r({"config", "--help"});
    for (const char* verb : {"env", "check", "show", "schema", "template"}) EXPECT_TRUE(contains(top.out, verb));
}

// The acceptance rule: `show` lists every variable d4r reads (the table; a scan of src/ keeps the table
// complete, tests/core/env_vars_source_test.cpp), each with its value or default and its source.
TEST(ConfigCli, ShowListsEveryVariableOfTheTable) {
    RunResult r = run_d4r({"config", "show"}, {{"D4R_NO_CONFIG", "1"}, {"D4R_CPU_WATCHDOG_MS", "250"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const size_t section = r.out.find("environment variables (every one d4r reads");
    ASSERT_NE(section, std::string::npos) << r.out;
    const std::string listing = r.out.substr(section);
    for (const EnvVarInfo& v : env_vars())
        EXPECT_TRUE(contains(listing, "    " + std::string(v.name) + (v.name == "D4R_NO_CONFIG" ? "=1" : "")))
            << v.name << " missing from:\n"
            << listing;
    EXPECT_TRUE(std::regex_search(listing, std::regex(R"(D4R_CPU_WATCHDOG_MS=250 +\(environment\))"))) << listing;
    EXPECT_TRUE(std::regex_search(listing, std::regex(R"(D4R_CUDA_BACKEND unset \(= auto\) +\(default\))"))) << listing;
    RunResult vars = run_d4r({"config", "vars"});
    ASSERT_EQ(vars.exit_code, 0) << vars.err;
    EXPECT_TRUE(contains(vars.out, "| `D4R_CUDA_TRACE` | true or false")) << vars.out;
}

TEST(ConfigCli, CheckReportsTheInvalidValueWithFileAndLineAndExits2) {
    TempDir dir;
    dir.write("d4r.ini", lines_before(10) + "[Kernels]\nPreferAccuracy = perhaps\n");
    RunResult r = run_d4r({"config", "check", "--config", "d4r.ini"}, {}, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, "d4r.ini:12: [Kernels] PreferAccuracy must be true or false, not 'perhaps'")) << r.err;
    EXPECT_FALSE(contains(r.out, "ok"));
}

TEST(ConfigCli, CheckReportsEveryError) {
    TempDir dir;
    fs::path file = dir.write("bad.ini", "[DLSS]\nModel = I\n[Latency]\nFrameAge = 4\nno equals here\n");
    RunResult r = run_d4r({"config", "check", "--config", file.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, file.string() + ":2: [DLSS] Model must be one of")) << r.err;
    EXPECT_TRUE(contains(r.err, file.string() + ":4: [Latency] FrameAge must be an integer from 0 to 3, not '4'"));
    EXPECT_TRUE(contains(r.err, file.string() + ":5: "));
    EXPECT_TRUE(contains(r.err, "3 errors"));
}

TEST(ConfigCli, CheckValidFileWithWarningsIsOk) {
    TempDir dir;
    dir.write("d4r.ini", "[Kernels]\nPreferAcuracy = true\nWmma = on\nWmma = off\n");
    RunResult r = run_d4r({"config", "check"}, {}, dir.path()); // found in the working folder
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "d4r.ini: ok\n");
    EXPECT_TRUE(contains(r.err, "d4r.ini:2: unknown key [Kernels] PreferAcuracy; did you mean PreferAccuracy?"));
    EXPECT_TRUE(contains(r.err, "d4r.ini:4: [Kernels] Wmma set again (first at line 3)"));
}

TEST(ConfigCli, CheckShippedFiles) {
    for (const char* path : {"config/d4r.ini.default", "packaging/d4r.ini"}) {
        RunResult r = run_d4r({"config", "check", "--config", (source_dir() / path).string()});
        EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
        EXPECT_TRUE(r.err.empty()) << r.err;
    }
}

TEST(ConfigCli, MissingExplicitFileExits2) {
    for (const char* verb : {"env", "check", "show"}) {
        RunResult r = run_d4r({"config", verb, "--config", "/nonexistent/d4r.ini"});
        EXPECT_EQ(r.exit_code, 2) << verb;
        EXPECT_TRUE(contains(r.err, "/nonexistent/d4r.ini")) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
}

TEST(ConfigCli, EnvPrintsExportsInSchemaOrder) {
    TempDir dir;
    fs::path file = dir.write("g.ini", "[Env]\nMY_VAR = hello world\n[DLSS]\nModel = DLSS4.5\n[Latency]\nFrameAge = 2\n"
                                       "[Kernels]\nNativeKernels = on\n[Paths]\nRuntimeDir = /opt/d4r\n");
    RunResult r = run_d4r({"config", "env", "--config", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(r.out.rfind("export D4R_DLSS_PRESET=13\nexport D4R_SHIM_WATERMARK=0\nexport D4R_NETWORK=0\n"
                          "export D4R_SHIM_SPLIT_FRAME=0\n"
                          "export D4R_SHIM_MAX_IN_FLIGHT=2\nexport D4R_PREFER_ACCURACY=0\n"
                          "export D4R_NATIVE_KERNEL_DIR=/opt/d4r/kernels\n",
                          0),
              0u)
        << r.out;
    EXPECT_TRUE(contains(r.out, "export D4R_RUNTIME_DIR=/opt/d4r\n"));
    // [Env] comes last, shell-quoted.
    std::string last = "export MY_VAR='hello world'\n";
    ASSERT_GE(r.out.size(), last.size());
    EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last);
}

TEST(ConfigCli, EnvOmitsVariablesAlreadySet) {
    TempDir dir;
    fs::path file = dir.write("g.ini", "[DLSS]\nShowWatermark = true\n[Kernels]\nNativeKernels = off\n");
    RunResult r = run_d4r({"config", "env", "--config", file.string()},
                          {{"D4R_SHIM_WATERMARK", "0"}, {"D4R_NATIVE_KERNEL_DIR", "/mine"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(contains(r.out, "D4R_SHIM_WATERMARK"));
    EXPECT_FALSE(contains(r.out, "D4R_NATIVE_KERNEL_DIR")); // neither exported nor unset
    EXPECT_TRUE(contains(r.out, "export D4R_DLSS_PRESET=11\n"));

    RunResult off = run_d4r({"config", "env", "--config", file.string()});
    EXPECT_TRUE(contains(off.out, "unset D4R_NATIVE_KERNEL_DIR\n"));
    EXPECT_TRUE(contains(off.out, "export D4R_SHIM_WATERMARK=1\n"));
}

TEST(ConfigCli, ARemovedKeyIsNamedAsRemovedAndExportsNothing) {
    TempDir dir;
    fs::path file = dir.write("old.ini", "[Kernels]\nNativeSwinEncoders = true\n[Interop]\nEvalSync = true\n");
    RunResult check = run_d4r({"config", "check", "--config", file.string()});
    EXPECT_EQ(check.exit_code, 0) << check.err; // still a valid file
    EXPECT_TRUE(contains(check.err, "old.ini:2: [Kernels] NativeSwinEncoders was removed and has no effect"))
        << check.err;
    EXPECT_TRUE(contains(check.err, "old.ini:4: [Interop] EvalSync was removed and has no effect")) << check.err;
    EXPECT_FALSE(contains(check.err, "unknown key")) << check.err;
    RunResult env = run_d4r({"config", "env", "--config", file.string()});
    EXPECT_EQ(env.exit_code, 0);
    EXPECT_FALSE(contains(env.out, "D4R_NATIVE_SWIN_ENCODERS")) << env.out;
    EXPECT_FALSE(contains(env.out, "D4R_SHIM_EVAL_SYNC")) << env.out;
    RunResult show = run_d4r({"config", "show", "--config", file.string()});
    EXPECT_EQ(show.exit_code, 0);
    EXPECT_FALSE(contains(show.out, "EvalSync")) << show.out;
}

TEST(ConfigCli, EnvInvalidFileExits2WithCleanStdout) {
    TempDir dir;
    fs::path file = dir.write("bad.ini", "[DLSS]\nModel = N\nShowWatermak = on\n");
    RunResult r = run_d4r({"config", "env", "--config", file.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, ":2: [DLSS] Model must be one of"));
    EXPECT_TRUE(contains(r.err, ":3: unknown key [DLSS] ShowWatermak; did you mean ShowWatermark?"));
}

TEST(ConfigCli, EnvOutputEvaluatesInSh) {
    TempDir dir;
    fs::path file = dir.write("g.ini", "[DLSS]\nModel = cnn\n[Game]\nCvars = r.A=1; r.B='x' $HOME `id`\n"
                                       "[Kernels]\nNativeKernels = exact\n[Paths]\nNativeKernelDir = /k dir\n"
                                       "[Env]\nEXTRA = a\"b\n");
    std::string d4r = d4r_binary().string();
    std::string script =
        "eval \"$('" + d4r + "' config env --config '" + file.string() +
        "')\" || exit 9; printf '%s|%s|%s|%s|%s|%s\\n' \"$D4R_DLSS_PRESET\" \"$D4R_UE_CVARS\" "
        "\"$D4R_NATIVE_KERNEL_DIR\" \"$D4R_PREFER_ACCURACY\" \"$EXTRA\" \"${D4R_SHIM_MAX_IN_FLIGHT-unset}\"";
    RunResult r = run_command({"/bin/sh", "-c", script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "5|r.A=1; r.B='x' $HOME `id`|/k dir|1|a\"b|unset\n");
}

TEST(ConfigCli, EnvUnsetWorksInSh) {
    TempDir dir;
    fs::path file = dir.write("g.ini", "[Kernels]\nNativeKernels = off\n");
    // Set it inside the shell (not in d4r's environment), then eval: the unset removes it.
    std::string script = "X=$('" + d4r_binary().string() + "' config env --config '" + file.string() +
                         "'); D4R_NATIVE_KERNEL_DIR=/old; export D4R_NATIVE_KERNEL_DIR; eval \"$X\"; "
                         "echo \"${D4R_NATIVE_KERNEL_DIR-gone}\"";
    RunResult r = run_command({"/bin/sh", "-c", script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "gone\n");
}

TEST(ConfigCli, FileSelectionThroughTheEnvironment) {
    TempDir dir;
    fs::path work = dir.mkdir("work");
    dir.write("work/d4r.ini", "[DLSS]\nModel = A\n");
    fs::path chosen = dir.write("chosen.ini", "[DLSS]\nModel = B\n");
    dir.write("home/.config/d4r/d4r.ini", "[DLSS]\nModel = C\n");
    std::map<std::string, std::string> env{{"HOME", (dir.path() / "home").string()}};

    auto preset = [&](const std::map<std::string, std::string>& e, const fs::path& cwd) {
        RunResult r = run_d4r({"config", "env"}, e, cwd);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        size_t at = r.out.find("D4R_DLSS_PRESET=");
        return at == std::string::npos ? std::string("?") : r.out.substr(at + 16, r.out.find('\n', at) - at - 16);
    };
    EXPECT_EQ(preset(env, work), "1");       // ./d4r.ini
    EXPECT_EQ(preset(env, dir.path()), "3"); // ~/.config/d4r/d4r.ini
    auto with_config = env;
    with_config["D4R_CONFIG"] = chosen.string();
    EXPECT_EQ(preset(with_config, work), "2"); // D4R_CONFIG beats ./d4r.ini
    auto no_config = with_config;
    no_config["D4R_NO_CONFIG"] = "1";
    EXPECT_EQ(preset(no_config, work), "11"); // built-in default K
    RunResult explicit_file = run_d4r({"config", "env", "--config", chosen.string()}, no_config, work);
    EXPECT_TRUE(contains(explicit_file.out, "export D4R_DLSS_PRESET=2\n")); // --config still read

    auto missing = env;
    missing["D4R_CONFIG"] = (dir.path() / "missing.ini").string();
    RunResult r = run_d4r({"config", "check"}, missing, work);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, "missing.ini"));
}

TEST(ConfigCli, ShowNamesTheFileAndEveryKeysOrigin) {
    TempDir dir;
    dir.write("d4r.ini", "[DLSS]\nModel = J\n[Kernels]\nNativeKernels = exact\n[Env]\nFOO = file\nBAR = b\n");
    RunResult r = run_d4r({"config", "show"}, {{"D4R_SHIM_WATERMARK", "1"}, {"FOO", "env"}}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string first_line = r.out.substr(0, r.out.find('\n'));
    EXPECT_TRUE(contains(first_line, "d4r.ini")) << first_line;
    EXPECT_TRUE(contains(first_line, "working folder")) << first_line;
    EXPECT_TRUE(contains(r.out, "[DLSS] Model = J")) << r.out;
    EXPECT_TRUE(contains(r.out, "(d4r.ini:2)"));
    EXPECT_TRUE(contains(r.out, "    D4R_DLSS_PRESET=10\n"));
    EXPECT_TRUE(contains(r.out, "[DLSS] ShowWatermark = true"));
    EXPECT_TRUE(contains(r.out, "(environment D4R_SHIM_WATERMARK)"));
    EXPECT_TRUE(contains(r.out, "[Kernels] PreferAccuracy = true"));
    EXPECT_TRUE(contains(r.out, "(forced by [Kernels] NativeKernels = exact (d4r.ini:4))"));
    EXPECT_TRUE(contains(r.out, "D4R_NATIVE_KERNEL_DIR not exported: no kernel root"));
    EXPECT_TRUE(contains(r.out, "[Paths] ZludaDir = auto"));
    EXPECT_TRUE(contains(r.out, "(default)"));
    EXPECT_TRUE(contains(r.out, "[Env] FOO = env"));
    EXPECT_TRUE(contains(r.out, "(environment FOO)"));
    EXPECT_TRUE(contains(r.out, "FOO not exported: d4r.ini:6 sets file, but the environment wins"));
    EXPECT_TRUE(contains(r.out, "[Env] BAR = b"));
    EXPECT_TRUE(contains(r.out, "(d4r.ini:7)"));
    // Every key is listed.
    for (const char* key : {"[Latency] FrameAge", "[Interop] MotionVectorDilation", "[Launch] GameExe",
                            "[OptiScaler] QualityRatioUltraPerformance", "[Debug] LogDir"})
        EXPECT_TRUE(contains(r.out, key)) << key;
}

TEST(ConfigCli, ShowWithoutAFileSaysSo) {
    RunResult r = run_d4r({"config", "show"}, {{"D4R_NO_CONFIG", "1"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string first_line = r.out.substr(0, r.out.find('\n'));
    EXPECT_TRUE(contains(first_line, "none")) << first_line;
    EXPECT_TRUE(contains(first_line, "D4R_NO_CONFIG=1")) << first_line;
}

TEST(ConfigCli, SchemaIsTheDocsTable) {
    RunResult r = run_d4r({"config", "schema"});
    ASSERT_EQ(r.exit_code, 0);
    std::string docs = read_file_text(source_dir() / "docs/configuration.md");
    EXPECT_TRUE(contains(docs, "<!-- schema:begin -->\n" + r.out + "<!-- schema:end -->"))
        << "docs/configuration.md is stale: paste 'd4r config schema' between the markers";
}

TEST(ConfigCli, TemplatesAreTheShippedFiles) {
    RunResult dev = run_d4r({"config", "template"});
    RunResult release = run_d4r({"config", "template", "--release"});
    ASSERT_EQ(dev.exit_code, 0);
    ASSERT_EQ(release.exit_code, 0);
    EXPECT_EQ(dev.out, read_file_text(source_dir() / "config/d4r.ini.default"));
    EXPECT_EQ(release.out, read_file_text(source_dir() / "packaging/d4r.ini"));
}

} // namespace
} // namespace d4r::test
