// Every D4R_* variable the code names in a string literal is a row of the table (core/env_vars.h), so
// `d4r config show`, `d4r config vars` and docs/configuration.md cannot miss one; and outside a few files
// (kFilesThatSpellNames) code spells no name at all but goes through the table. Reads the source tree.
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
    // The variables of retired d4r.ini keys (config/retired_keys.cpp): named only to tell an [Env] line that
    // sets one that nothing reads it.
    "D4R_NATIVE_SWIN_ENCODERS",
    "D4R_SHIM_INPUT_SYNC",
    "D4R_SHIM_LINEAR_INPUTS",
    "D4R_SHIM_OUTPUT_DIRECT",
    "D4R_SHIM_EVAL_SYNC",
    "D4R_SHIM_MARKER_POLL_US",
};

// The files that may spell a variable's name in a string literal; everything else goes through the table
// (env_name(EnvVar::X), env_var_info, the readers). Each needs a reason.
const std::set<std::string> kFilesThatSpellNames = {
    "core/env_vars.cpp",       // the table itself
    "config/schema.cpp",       // the d4r.ini schema: which variable each key exports (its own table, checked
                               // against this one by tests/config)
    "config/retired_keys.cpp", // variables no longer in the table (retired d4r.ini keys)
    "bridge/bridge.cpp",       // the Wine bridge: built by wineg++ from its own files, it cannot link the table
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

// The contents of every string literal in C++ TEXT, with its line; comments, character literals and raw
// strings are skipped (a name in a comment is documentation, not a spelling the code uses).
std::vector<std::pair<int, std::string>> string_literals(const std::string& text) {
    std::vector<std::pair<int, std::string>> out;
    int line = 1;
    auto ident = [&](size_t at) { // whether text[at] could end an identifier or a number
        return at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_');
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool after_ident = i > 0 && ident(i - 1);
        if (c == '\n') {
            ++line;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n') ++i;
            --i;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            for (i += 2; i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/'); ++i) line += text[i] == '\n';
            ++i;
        } else if (c == 'R' && i + 1 < text.size() && text[i + 1] == '"' &&
                   (!after_ident || std::string_view("LuU8").find(text[i - 1]) != std::string_view::npos)) {
            // R"delim( ... )delim"
            const size_t open = text.find('(', i);
            const std::string end = ")" + text.substr(i + 2, open - i - 2) + "\"";
            const size_t close = text.find(end, open);
            for (size_t k = i; k < close && k < text.size(); ++k) line += text[k] == '\n';
            out.emplace_back(line, text.substr(open + 1, close - open - 1));
            i = close + end.size() - 1;
        } else if (c == '"' || (c == '\'' && !after_ident)) { // 0xffff'a000: a digit separator, not a literal
            const int start = line;
            std::string body;
            for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
                if (text[i] == '\\' && i + 1 < text.size()) body += text[i++];
                body += text[i];
            }
            if (c == '"') out.emplace_back(start, body);
        }
    }
    return out;
}

TEST(EnvVarsSource, TheLiteralScannerFindsLiteralsAndSkipsComments) {
    auto found = string_literals("// \"D4R_IN_A_COMMENT\"\nf(\"D4R_X\", 'a', \"q\\\"D4R_Y\");\n/* \"D4R_Z\"\n */ "
                                 "g(R\"(D4R_RAW)\");\nn = 0xffff'a000'0000; h(\"D4R_AFTER_SEPARATORS\");\n");
    ASSERT_EQ(found.size(), 4u);
    EXPECT_EQ(found[0], (std::pair<int, std::string>{2, "D4R_X"}));
    EXPECT_EQ(found[1], (std::pair<int, std::string>{2, "q\\\"D4R_Y"}));
    EXPECT_EQ(found[2], (std::pair<int, std::string>{4, "D4R_RAW"}));
    EXPECT_EQ(found[3], (std::pair<int, std::string>{5, "D4R_AFTER_SEPARATORS"}));
}

// Variable names are read, set and printed through the table: a literal that starts with a D4R_ name anywhere
// else in src/ fails here, naming the file and line.
TEST(EnvVarsSource, NamesAreSpelledOnlyInTheTable) {
    const std::regex name("^D4R_[A-Z][A-Z0-9_]*");
    const fs::path src = test::source_dir() / "src";
    size_t scanned = 0;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(src)) {
        if (!e.is_regular_file()) continue;
        const std::string ext = e.path().extension().string();
        if (ext != ".cpp" && ext != ".h" && ext != ".c") continue;
        const std::string rel = fs::relative(e.path(), src).string();
        if (kFilesThatSpellNames.count(rel)) continue;
        ++scanned;
        for (const auto& [line, literal] : string_literals(test::read_file_text(e.path()))) {
            std::smatch m;
            if (!std::regex_search(literal, m, name) || kNotReadVariables.count(m.str())) continue;
            ADD_FAILURE() << "src/" << rel << ":" << line << ": \"" << literal << "\" spells " << m.str()
                          << ": use env_name(EnvVar::...) or the table's readers (core/env_vars.h)";
        }
    }
    EXPECT_GT(scanned, 100u); // the walk saw the tree
    for (const std::string& f : kFilesThatSpellNames)
        EXPECT_TRUE(fs::exists(src / f)) << f << " is gone: remove it from kFilesThatSpellNames";
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
