// d4r elf glibc: the highest GLIBC version each ELF file needs, checked against a target.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/files.h"
#include "release/elf_dependencies.h"
#include "release/elf_glibc.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

constexpr uint64_t kMaxElfBytes = uint64_t(2) << 30;

struct GlibcOptions {
    std::vector<std::string> paths;
    std::string max = "2.41";
    bool all = false;
    bool needed = false;
};

bool starts_with_elf_magic(const fs::path& path) {
    char head[4] = {};
    std::ifstream in(path, std::ios::binary);
    return in.read(head, 4) && std::memcmp(head,
                                           "\x7f"
                                           "ELF",
                                           4) == 0;
}

// The files to check: named files as they are, folders walked for regular files that start with the
// ELF magic (others are skipped: a release folder holds DLLs, inis and licences too).
Expected<std::vector<fs::path>> files_to_check(const std::vector<std::string>& paths) {
    std::vector<fs::path> out;
    for (const std::string& p : paths) {
        std::error_code ec;
        if (!fs::is_directory(p, ec)) {
            out.emplace_back(p);
            continue;
        }
        std::vector<fs::path> found;
        for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
            if (starts_with_elf_magic(it->path())) found.push_back(it->path());
        }
        if (ec) return make_error(ErrorCode::Io, "{}: cannot list the folder: {}", p, ec.message());
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    return out;
}

// --needed: the libraries the loader must find, each marked against the base system a release may
// rely on (docs/packaging.md), and the highest libstdc++ versions asked.
void print_needed(const release::GlibcNeeds& needs) {
    for (const std::string& library : needs.needed)
        fmt::print("  needs {}{}\n", library,
                   release::is_base_system_library(library) ? " (base system)" : " (not in the base system)");
    for (const char* prefix : {"GLIBCXX_", "CXXABI_"})
        if (auto v = release::highest_version(needs, prefix))
            fmt::print("  highest {}: {} (of {})\n", std::string_view(prefix).substr(0, std::strlen(prefix) - 1),
                       v->name, v->library);
}

int run_glibc(const GlibcOptions& o) {
    auto target = release::parse_glibc_version(o.max);
    if (!target) return report_error(Error(ErrorCode::Invalid, "--max: " + target.error().text()));
    auto files = files_to_check(o.paths);
    if (!files) return report_error(files.error());
    int status = kExitOk;
    size_t above = 0;
    for (const fs::path& file : *files) {
        auto bytes = read_file(file, kMaxElfBytes);
        if (!bytes) {
            report_error(bytes.error());
            status = kExitUsage;
            continue;
        }
        auto needs = release::read_glibc_needs(*bytes);
        if (!needs) {
            report_error(Error(needs.error().code(), fmt::format("{}: {}", file.string(), needs.error().text())));
            status = kExitUsage;
            continue;
        }
        if (!needs->highest) {
            fmt::print("{}: no GLIBC version needed\n", file.string());
        } else {
            const bool too_new = *needs->highest > *target;
            fmt::print("{}: GLIBC {} (of {}){}\n", file.string(), needs->highest->text(), needs->highest_library,
                       too_new ? fmt::format(" is above the target {}", target->text()) : "");
            if (too_new) ++above;
        }
        if (o.needed) print_needed(*needs);
        if (o.all)
            for (const release::VersionNeed& n : needs->needs) fmt::print("  {} {}\n", n.library, n.version);
    }
    if (status != kExitOk) return status;
    if (above) {
        fmt::print(stderr, "d4r: error: {} of {} files need a GLIBC above {}: they will not load on a system with {}\n",
                   above, files->size(), target->text(), target->text());
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace

void register_elf_verbs(CLI::App& root) {
    CLI::App* elf = root.add_subcommand("elf", "Linux ELF files a release bundles: their GLIBC and library needs");
    elf->require_subcommand(1);
    auto o = std::make_shared<GlibcOptions>();
    CLI::App* glibc = elf->add_subcommand(
        "glibc", "print the highest GLIBC version each ELF file needs (folders: every ELF file inside); exit 1 "
                 "when one is above --max, 2 when a file is not a readable ELF64 file");
    glibc->add_option("FILE", o->paths, "ELF files or folders")->required();
    glibc->add_option("--max", o->max, "the oldest GLIBC the files must load on")->capture_default_str();
    glibc->add_flag("--all", o->all, "also list every version each file asks of each library");
    glibc->add_flag("--needed", o->needed,
                    "also list the libraries each file needs (DT_NEEDED), marked against the base system a release may "
                    "rely on, and the highest GLIBCXX_ and CXXABI_ versions asked");
    set_action(glibc, [o] { return run_glibc(*o); });
}

} // namespace d4r::cli
