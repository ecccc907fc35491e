// The table of environment variables joined with the schema (config/env_table.h): every schema variable
// is a row, the d4r.ini key column is derived from the schema, docs/configuration.md's table is the
// generated one, and `show`'s sources.
#include <gtest/gtest.h>

#include "config/env_table.h"
#include "config/schema.h"
#include "config_test_util.h"
#include "test_support.h"

namespace d4r::config {
namespace {

using test::resolve_text;

TEST(EnvTable, EverySchemaVariableIsARow) {
    for (const KeyInfo& key : schema_keys()) {
        for (std::string_view name : key.variables()) {
            const EnvVarInfo* v = find_env_var(name);
            ASSERT_NE(v, nullptr) << "[" << key.section << "] " << key.name << " exports " << name
                                  << ", which is not in src/core/env_vars.cpp";
            EXPECT_EQ(v->name, name) << name << " is an alias; the schema must export the current name";
        }
    }
}

TEST(EnvTable, KeysAreDerivedFromTheSchema) {
    auto names = [](std::string_view variable) {
        std::vector<std::string> out;
        for (const KeyInfo* k : keys_setting(variable)) out.push_back(fmt::format("[{}] {}", k->section, k->name));
        return out;
    };
    EXPECT_EQ(names("D4R_SHIM_MAX_IN_FLIGHT"), std::vector<std::string>{"[Latency] FrameAge"});
    EXPECT_EQ(names("D4R_NATIVE_KERNEL_DIR"), std::vector<std::string>{"[Kernels] NativeKernels"});
    EXPECT_EQ(names("D4R_CUDA_KERNEL_PROFILE"), std::vector<std::string>{"[Debug] Profile"});
    EXPECT_TRUE(names("D4R_CUDA_TRACE").empty());
    std::string table = env_vars_markdown();
    EXPECT_NE(table.find("| `D4R_CPU_WATCHDOG_MS` | an integer from 0 to 3600000 | 0 | cpu backend (libd4rcuda) | "
                         "[Interop] WatchdogMs |"),
              std::string::npos)
        << table;
}

TEST(EnvTable, TableHasARowPerVariable) {
    std::string table = env_vars_markdown();
    for (const EnvVarInfo& v : env_vars()) EXPECT_NE(table.find(fmt::format("| `{}`", v.name)), std::string::npos);
    EXPECT_EQ(static_cast<size_t>(std::count(table.begin(), table.end(), '\n')), env_vars().size() + 2);
}

TEST(EnvTable, DocsTableIsTheGeneratedOne) {
    std::string docs = d4r::test::read_file_text(d4r::test::source_dir() / "docs/configuration.md");
    const std::string begin = "<!-- vars:begin -->\n";
    const std::string end = "<!-- vars:end -->";
    size_t b = docs.find(begin);
    size_t e = docs.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    ASSERT_LT(b, e);
    EXPECT_EQ(docs.substr(b + begin.size(), e - b - begin.size()), env_vars_markdown())
        << "docs/configuration.md is stale: paste the output of 'd4r config vars' between the vars markers";
}

TEST(EnvTable, SourcesInOrderOfPrecedence) {
    const EnvVarInfo& watchdog = env_var_info(EnvVar::CpuWatchdogMs);
    ResolvedConfig r = resolve_text("[Interop]\nWatchdogMs = 500\n");
    VariableSource from_file = variable_source(watchdog, MapEnvironment{}, &r);
    EXPECT_TRUE(from_file.set);
    EXPECT_EQ(from_file.value, "500");
    EXPECT_EQ(from_file.source, "d4r.ini [Interop] WatchdogMs = 500 (d4r.ini:2)");

    VariableSource from_env = variable_source(watchdog, MapEnvironment{{"D4R_CPU_WATCHDOG_MS", "7"}}, &r);
    EXPECT_EQ(from_env.value, "7");
    EXPECT_EQ(from_env.source, "environment");

    VariableSource bad = variable_source(watchdog, MapEnvironment{{"D4R_CPU_WATCHDOG_MS", "soon"}}, &r);
    EXPECT_EQ(bad.source, "environment; not valid: expected an integer from 0 to 3600000, so the default is used");

    VariableSource none = variable_source(env_var_info(EnvVar::CudaTrace), MapEnvironment{}, &r);
    EXPECT_FALSE(none.set);
    EXPECT_EQ(none.source, "default");

    VariableSource alias =
        variable_source(env_var_info(EnvVar::NativeKernelDir), MapEnvironment{{"D4R_ZLUDA_NATIVE_DIR", "/k"}}, nullptr);
    EXPECT_EQ(alias.value, "/k");
    EXPECT_EQ(alias.source, "environment, deprecated alias D4R_ZLUDA_NATIVE_DIR");

    ResolvedConfig off = resolve_text("[Kernels]\nNativeKernels = off\n");
    VariableSource unset = variable_source(env_var_info(EnvVar::NativeKernelDir), MapEnvironment{}, &off);
    EXPECT_FALSE(unset.set);
    EXPECT_NE(unset.source.find("unset by d4r.ini [Kernels] NativeKernels = off"), std::string::npos) << unset.source;

    ResolvedConfig extra = resolve_text("[Env]\nD4R_CUDA_TRACE = 1\n");
    VariableSource env_line = variable_source(env_var_info(EnvVar::CudaTrace), MapEnvironment{}, &extra);
    EXPECT_EQ(env_line.value, "1");
    EXPECT_EQ(env_line.source, "d4r.ini [Env] (d4r.ini:2)");
}

} // namespace
} // namespace d4r::config
