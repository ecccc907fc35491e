// d4r doctor: the Windows side (doctor_windows.h).
#include "doctor_windows.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "doctor_probes.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
uint16_t le16(const std::vector<uint8_t>& b, size_t at) { return uint16_t(b[at] | b[at + 1] << 8); }

std::optional<fs::path> first_file(const std::vector<fs::path>& candidates) {
    for (const fs::path& p : candidates)
        if (is_file(p)) return p;
    return std::nullopt;
}

std::string join(const std::vector<fs::path>& paths) {
    std::string text;
    for (const fs::path& p : paths) text += (text.empty() ? "" : ", ") + p.string();
    return text;
}

// The first MAX bytes of PATH are enough for every header test here; the marker of a builtin lies in
// its dynamic string table, near the start of the file.
constexpr uint64_t kMaxRead = 64ull << 20;

constexpr const char* kBuildHint = "build it with the Wine tools installed (scripts/install-deps.sh --for test)";

// bridge: nvcuda.dll.so beside libd4rcuda (a build), or nvcuda.dll in a release folder.
std::optional<fs::path> check_bridge(const fs::path& dir, std::vector<CheckLine>& out) {
    std::vector<fs::path> candidates = {dir / "nvcuda.dll.so", dir / "nvcuda.dll"};
    std::optional<fs::path> found = first_file(candidates);
    if (!found) {
        out.push_back(check_line(CheckStatus::Warn, "bridge",
                                 "nvcuda.dll (the Wine bridge) not found: looked for " + join(candidates),
                                 std::string("only Windows programs need it; ") + kBuildHint));
        return std::nullopt;
    }
    auto bytes = read_file(*found, kMaxRead);
    std::string problem = bytes ? wine_builtin_problem(*bytes) : bytes.error().text();
    if (!problem.empty()) {
        out.push_back(
            check_line(CheckStatus::Fail, "bridge", fmt::format("{}: {}", found->string(), problem),
                       "use build/lib/nvcuda.dll.so as built by wineg++ (src/bridge); " + std::string(kBuildHint)));
        return std::nullopt;
    }
    out.push_back(check_line(CheckStatus::Ok, "bridge", found->string() + ": a Wine builtin nvcuda.dll",
                             "link it as nvcuda.dll beside the program's .exe (docs/bridge.md)"));
    return found;
}

// runtime: D4R_RUNTIME_DIR, where the bridge looks for libd4rcuda first.
void check_runtime_dir(const std::optional<std::string>& runtime_dir, std::vector<CheckLine>& out) {
    if (!runtime_dir) {
        out.push_back(
            check_line(CheckStatus::Ok, "runtime",
                       fmt::format("{} not set: the bridge looks for libd4rcuda.so beside its own file, then on "
                                   "the loader's path",
                                   env_name(EnvVar::RuntimeDir))));
        return;
    }
    if (!is_dir(*runtime_dir)) {
        out.push_back(check_line(CheckStatus::Fail, "runtime",
                                 fmt::format("{}={} is not a folder", env_name(EnvVar::RuntimeDir), *runtime_dir),
                                 "set it to the folder holding libd4rcuda.so (build/lib) or unset it"));
    } else if (!is_file(fs::path(*runtime_dir) / "libd4rcuda.so")) {
        out.push_back(
            check_line(CheckStatus::Fail, "runtime",
                       fmt::format("{}={} holds no libd4rcuda.so", env_name(EnvVar::RuntimeDir), *runtime_dir),
                       "set it to the folder holding libd4rcuda.so (build/lib) or unset it"));
    } else {
        out.push_back(check_line(CheckStatus::Ok, "runtime",
                                 fmt::format("{}={} holds libd4rcuda.so", env_name(EnvVar::RuntimeDir), *runtime_dir)));
    }
}

// shim / ngxcore: a PE x64 DLL in the build layout (../win) or beside the runtime (a release folder).
void check_dll(const char* check, const char* what, const std::vector<fs::path>& candidates,
               std::vector<CheckLine>& out) {
    std::optional<fs::path> found = first_file(candidates);
    if (!found) {
        out.push_back(
            check_line(CheckStatus::Warn, check, fmt::format("{} not found: looked for {}", what, join(candidates)),
                       "only games under Proton need it; build it with mingw-w64 (x86_64-w64-mingw32-g++-posix)"));
        return;
    }
    auto bytes = read_file(*found, kMaxRead);
    std::string problem = bytes ? pe_x64_dll_problem(*bytes) : bytes.error().text();
    if (!problem.empty()) {
        out.push_back(check_line(CheckStatus::Fail, check, fmt::format("{}: {}", found->string(), problem),
                                 "replace it with the DLL the build makes (build/win)"));
        return;
    }
    out.push_back(check_line(CheckStatus::Ok, check, found->string() + ": PE x64 DLL"));
}

// d4rcuda: libd4rcuda as the bridge resolves it (D4R_RUNTIME_DIR, beside the bridge's file with links
// resolved, the loader's path), loaded in a child process, with cuInit.
void check_bridge_load(const std::optional<std::string>& runtime_dir, const std::optional<fs::path>& bridge,
                       std::vector<CheckLine>& out) {
    std::vector<std::string> candidates;
    if (runtime_dir) candidates.push_back((fs::path(*runtime_dir) / "libd4rcuda.so").string());
    if (bridge)
        candidates.push_back(
            (fs::path(resolved_path_or_same(bridge->string())).parent_path() / "libd4rcuda.so").string());
    candidates.push_back("libd4rcuda.so");
    std::string tried;
    for (const std::string& c : candidates) {
        auto loaded = probe_library_symbol(c, "cuInit");
        if (loaded) {
            out.push_back(check_line(CheckStatus::Ok, "d4rcuda",
                                     fmt::format("the bridge would load {} (cuInit found)", *loaded)));
            return;
        }
        tried += (tried.empty() ? "" : "; ") + loaded.error().text();
    }
    out.push_back(check_line(bridge ? CheckStatus::Fail : CheckStatus::Warn, "d4rcuda",
                             "the bridge could not load libd4rcuda.so: " + tried,
                             "set D4R_RUNTIME_DIR to the folder holding libd4rcuda.so (build/lib), or keep it beside "
                             "nvcuda.dll.so"));
}

} // namespace

std::string pe_x64_dll_problem(const std::vector<uint8_t>& b) {
    if (b.size() < 0x40 || b[0] != 'M' || b[1] != 'Z') return "not a PE file (no MZ header)";
    uint32_t pe = le32(b, 0x3c);
    if (pe > b.size() || b.size() - pe < 24 || std::memcmp(&b[pe], "PE\0\0", 4) != 0)
        return "not a PE file (no PE signature)";
    uint16_t machine = le16(b, pe + 4);
    if (machine != 0x8664) return fmt::format("a PE file for machine 0x{:04x}, not x86-64 (0x8664)", machine);
    uint16_t characteristics = le16(b, pe + 22);
    if (!(characteristics & 0x2000)) return "a PE x64 program, not a DLL";
    return "";
}

std::string wine_builtin_problem(const std::vector<uint8_t>& b) {
    if (b.size() < 64 || std::memcmp(b.data(),
                                     "\x7f"
                                     "ELF",
                                     4) != 0) {
        if (b.size() >= 2 && b[0] == 'M' && b[1] == 'Z')
            return "a PE file, not d4r's bridge (NVIDIA's nvcuda.dll, or another Windows DLL?)";
        return "not an ELF file";
    }
    if (b[4] != 2 || le16(b, 18) != 62) return "an ELF file, but not for x86-64";
    if (le16(b, 16) != 3) return "an ELF file, but not a shared library";
    static const char kMarker[] = "__wine_spec_nt_header";
    auto it = std::search(b.begin(), b.end(), kMarker, kMarker + sizeof kMarker - 1);
    if (it == b.end()) return "an ELF shared library, but not a Wine builtin (no __wine_spec_nt_header)";
    return "";
}

void check_windows_side(const Environment& env, const fs::path& lib_dir, std::vector<CheckLine>& out) {
    const std::string runtime_env = env_text(env, EnvVar::RuntimeDir).value_or("");
    std::optional<std::string> runtime_dir;
    if (!runtime_env.empty()) runtime_dir = runtime_env;
    fs::path dir = runtime_env.empty() ? lib_dir : fs::path(runtime_env);
    if (dir.filename().empty()) dir = dir.parent_path(); // "x/lib/": its parent is x
    std::optional<fs::path> bridge = check_bridge(dir, out);
    check_runtime_dir(runtime_dir, out);
    check_dll("shim", "d4r_nvngx.dll (the NGX shim)",
              {dir.parent_path() / "win" / "d4r_nvngx.dll", dir / "d4r_nvngx.dll", dir / "nvngx.dll"}, out);
    check_dll("ngxcore", "d4r_ngx.dll (the open NGX core)",
              {dir.parent_path() / "win" / "d4r_ngx.dll", dir / "d4r_ngx.dll"}, out);
    check_bridge_load(runtime_dir, bridge, out);
}

} // namespace d4r::cli
