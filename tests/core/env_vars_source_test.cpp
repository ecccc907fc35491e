// Every D4R_* variable the code names in a string literal is a row of the table (core/env_vars.h), so
// `d4r config show`, `d4r config vars` and docs/configuration.md cannot miss one. Reads the source tree.
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "core/env_vars.h"
#include "test_support.h"

namespace d4r {
namespace {

namespace fs = std::filesystem;

// Names that appear in string literals under src/ but are not variables d4r reads: names only written
// for a child process, log tags, and the like. Each needs a comment saying why.
const std::set<std::string> kNotReadVariables = {
    "D4R_MINGW_CXX", // a CMake cache entry that d4r package reads from CMakeCache.txt (release/package.cpp)
    "D4R_WINEGXX",   // likewise
};

// "D4R_NAME literal -> the files that spell it, for every .cpp/.h/.c under src/.
std::map<std::string, std::set<std::string>> literal_names() {
    std::map<std::string, std::set<std::string>> found;
    const std::regex literal("\"(D4R_[A-Z0-9_]+)");
    const fs::path src = test::source_dir() / "src";
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(src)) {
        if (!e.is_regular_file()) continue;
        const std::string ext = e.path().extension().string();
        if (ext != ".cpp" && ext != ".h" && ext != ".c") continue;
        const std::string text = test::read_file_text(e.path());
        for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it)
            found[(*it)[1].str()].insert(fs::relative(e.path(), src).string());
    }
    return found;
}

TEST(EnvVarsSource, EveryVariableTheCodeNamesIsInTheTable) {
    std::map<std::string, std::set<std::string>> found = literal_names();
    // The scan works: it sees readers in several components.
    ASSERT_TRUE(found.count("D4R_CUDA_BACKEND"));
    ASSERT_TRUE(found.count("D4R_SHIM_MAX_IN_FLIGHT"));
    ASSERT_TRUE(found.count("D4R_GPU_ARCH"));
    for (const auto& [name, files] : found) {
        if (kNotReadVariables.count(name)) continue;
        std::string where;
        for (const std::string& f : files) where += " " + f;
        EXPECT_NE(find_env_var(name), nullptr)
            << name << " (in" << where << ") is not in the table of variables: add a row to src/core/env_vars.cpp "
            << "(and regenerate docs/configuration.md), or list it in kNotReadVariables with the reason";
    }
}

TEST(EnvVarsSource, ExclusionsAreStillNeeded) {
    std::map<std::string, std::set<std::string>> found = literal_names();
    for (const std::string& name : kNotReadVariables) {
        EXPECT_TRUE(found.count(name)) << name << " no longer appears in src/: remove it from kNotReadVariables";
        EXPECT_EQ(find_env_var(name), nullptr) << name << " is in the table: remove it from kNotReadVariables";
    }
}

} // namespace
} // namespace d4r
