// The shipped d4r.ini files and docs/configuration.md against the schema, so none can drift.
#include <gtest/gtest.h>

#include "config/render.h"
#include "config/schema.h"
#include "config_test_util.h"
#include "core/strings.h"
#include "test_support.h"

namespace d4r::config {
namespace {

using d4r::test::read_file_text;
using d4r::test::source_dir;

struct Shipped {
    const char* path;
    TemplateFlavor flavor;
    const char* native_kernels;
};
const Shipped kShipped[] = {
    {"config/d4r.ini.default", TemplateFlavor::Developer, "off"},
    {"packaging/d4r.ini", TemplateFlavor::Release, "on"},
};

TEST(ShippedFiles, ParseWithoutErrorsOrWarnings) {
    for (const Shipped& s : kShipped) {
        ParsedConfig parsed = test::parse_text(read_file_text(source_dir() / s.path), s.path);
        EXPECT_TRUE(parsed.diagnostics.empty()) << s.path << ": " << parsed.diagnostics.front().text();
    }
}

TEST(ShippedFiles, PreferAccuracyFalseAndNativeKernelsAsSpecified) {
    for (const Shipped& s : kShipped) {
        ParsedConfig parsed = test::parse_text(read_file_text(source_dir() / s.path), s.path);
        ASSERT_TRUE(parsed.value(KeyId::KernelsPreferAccuracy).has_value()) << s.path;
        EXPECT_EQ(parsed.value(KeyId::KernelsPreferAccuracy)->value, "false") << s.path;
        ASSERT_TRUE(parsed.value(KeyId::KernelsNativeKernels).has_value()) << s.path;
        EXPECT_EQ(parsed.value(KeyId::KernelsNativeKernels)->value, s.native_kernels) << s.path;
        // With no environment, the release exports the kernel root only once a root is known.
        MapEnvironment env;
        auto resolved = resolve_parsed(parsed, env);
        ASSERT_TRUE(resolved.ok());
        EXPECT_EQ(resolved->get(KeyId::KernelsPreferAccuracy).as_bool(), false);
    }
}

TEST(ShippedFiles, EveryKeyIsSetWithACommentAboveIt) {
    for (const Shipped& s : kShipped) {
        std::string text = read_file_text(source_dir() / s.path);
        ParsedConfig parsed = test::parse_text(text, s.path);
        std::vector<std::string_view> lines = split(text, '\n');
        for (const KeyInfo& k : schema_keys()) {
            ASSERT_TRUE(parsed.value(k.id).has_value()) << s.path << " lacks [" << k.section << "] " << k.name;
            int line = parsed.value(k.id)->line;
            ASSERT_GE(line, 2);
            EXPECT_TRUE(starts_with(lines[static_cast<size_t>(line - 2)], ";"))
                << s.path << ":" << line << ": no comment above " << k.name;
        }
    }
}

TEST(ShippedFiles, AreTheGeneratedTemplates) {
    for (const Shipped& s : kShipped) {
        EXPECT_EQ(read_file_text(source_dir() / s.path), ini_template(s.flavor))
            << s.path << " is stale: regenerate it with 'd4r config template"
            << (s.flavor == TemplateFlavor::Release ? " --release" : "") << "' (docs/configuration.md)";
    }
}

TEST(Docs, ReferenceTableIsTheSchema) {
    std::string docs = read_file_text(source_dir() / "docs/configuration.md");
    const std::string begin = "<!-- schema:begin -->\n";
    const std::string end = "<!-- schema:end -->";
    size_t b = docs.find(begin);
    size_t e = docs.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    ASSERT_LT(b, e);
    EXPECT_EQ(docs.substr(b + begin.size(), e - b - begin.size()), schema_markdown())
        << "docs/configuration.md is stale: paste the output of 'd4r config schema' between the markers";
}

TEST(Docs, TableHasARowPerKey) {
    std::string table = schema_markdown();
    for (const KeyInfo& k : schema_keys()) {
        std::string cell = fmt::format("| {} | {} |", k.section, k.name);
        EXPECT_NE(table.find(cell), std::string::npos) << cell;
        if (!k.variable.empty()) {
            EXPECT_NE(table.find(fmt::format("`{}`", k.variable)), std::string::npos);
        }
    }
    // Header, separator, one row per key, and [Env].
    EXPECT_EQ(static_cast<size_t>(std::count(table.begin(), table.end(), '\n')), schema_keys().size() + 3);
}

} // namespace
} // namespace d4r::config
