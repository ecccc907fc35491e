// Test helpers shared by every suite: scratch folders, fixture paths, and running build/bin/d4r.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace d4r::test {

namespace fs = std::filesystem;

// A fresh empty folder under the system temp dir, removed (recursively) on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return m_path; }
    // Writes TEXT to path()/RELATIVE, creating parent folders; returns the full path.
    fs::path write(const fs::path& relative, const std::string& text) const;
    fs::path mkdir(const fs::path& relative) const;

private:
    fs::path m_path;
};

fs::path fixture_dir(); // tests/fixtures
fs::path source_dir();  // the repository root
fs::path d4r_binary();  // build/bin/d4r of this build
std::string read_file_text(const fs::path& path);

// A make-ptx.sh record (NAME.ptx.sources: "SHA256  FILE" lines, FILE relative to the record's folder, and an
// "nvcc:" line) checked against the files as they are now: one line per file whose bytes differ from its recorded
// hash, or that cannot be read or the record cannot be parsed; NAMED gets every file the record names.
std::vector<std::string> stale_ptx_sources(const fs::path& record, std::vector<std::string>* named = nullptr);

struct RunResult {
    int exit_code = -1;
    std::string out; // stdout
    std::string err; // stderr
};

// Runs ARGS (argv[0] included) with a clean, controlled environment: only PATH, HOME (a temp dir
// unless given) and the variables in ENV are set, so the developer's own D4R_* never leak in.
RunResult run_command(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {},
                      const std::optional<fs::path>& cwd = std::nullopt);
// run_command with build/bin/d4r as argv[0].
RunResult run_d4r(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {},
                  const std::optional<fs::path>& cwd = std::nullopt);

} // namespace d4r::test
