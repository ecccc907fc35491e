// d4r release: building a release folder and its reproducible zip.
#include "package.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "core/sha256.h"
#include "elf_dependencies.h"
#include "elf_glibc.h"
#include "optiscaler_ini.h"
#include "pe_version.h"
#include "redistribution_guard.h"
#include "zip_writer.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The first line a command prints (stdout and stderr), or "" when it cannot run or fails.
std::string first_line_of(const std::string& command) {
    FILE* p = ::popen((command + " 2>&1").c_str(), "r");
    if (!p) return {};
    std::string out;
    std::array<char, 512> buf{};
    while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    const int rc = ::pclose(p);
    if (rc != 0) return {};
    out = out.substr(0, out.find('\n'));
    while (!out.empty() && (out.back() == '\r' || out.back() == ' ')) out.pop_back();
    return out;
}

bool starts_with_elf(const fs::path& p) {
    char head[4] = {};
    std::ifstream in(p, std::ios::binary);
    return in.read(head, 4) && std::equal(head, head + 4,
                                          "\x7f"
                                          "ELF");
}

// One file of the layout: where it comes from and which option or build output it belongs to.
struct Item {
    std::string dest; // relative to the release folder
    fs::path source;
    std::string input; // "--optiscaler", or "" for d4r's own files
};

struct Collector {
    const PackageOptions& o;
    const PackageSay& say;
    std::vector<Item> items;
    std::vector<std::string> missing; // errors (without dev)

    // Reports a missing input: an error, or with dev a warning and nothing added.
    void lack(const std::string& what) {
        if (o.dev) {
            say("warning: --dev: " + what + "; left out of the release");
        } else {
            missing.push_back(what);
        }
    }
    void add(std::string dest, fs::path source, std::string input) {
        items.push_back({std::move(dest), std::move(source), std::move(input)});
    }
    // The first of NAMES (relative to DIR) that is a file, or nullopt.
    static std::optional<fs::path> first_file(const fs::path& dir, std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (is_file(dir / n)) return dir / n;
        return std::nullopt;
    }
    // Licence files at the top of DIR (LICENSE*, LICENCE*, COPYING*, NOTICE*) under d4r/licenses/NAME/.
    void licences(const fs::path& dir, const std::string& name, const std::string& input) {
        std::error_code ec;
        std::vector<fs::path> found;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string f = lower(e.path().filename().string());
            if (!e.is_regular_file(ec)) continue;
            for (const char* prefix : {"license", "licence", "copying", "notice"})
                if (f.rfind(prefix, 0) == 0) found.push_back(e.path());
        }
        std::sort(found.begin(), found.end());
        for (const fs::path& p : found) add("d4r/licenses/" + name + "/" + p.filename().string(), p, input);
    }
    // Every regular file (or link to one) directly in DIR whose name starts with "lib" and holds ".so".
    std::vector<fs::path> shared_libraries(const fs::path& dir) {
        std::vector<fs::path> out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string f = e.path().filename().string();
            if (f.rfind("lib", 0) == 0 && f.find(".so") != std::string::npos && e.is_regular_file(ec))
                out.push_back(e.path());
        }
        std::sort(out.begin(), out.end());
        return out;
    }
};

void collect_build(Collector& c) {
    const fs::path& b = c.o.build_dir;
    const std::pair<const char*, const char*> outputs[] = {
        {"bin/d4r", "d4r/d4r"},
        {"lib/libd4rcuda.so", "d4r/libd4rcuda.so"},
        {"lib/nvcuda.dll.so", "d4r/nvcuda.dll"},
        {"win/d4r_nvngx.dll", "d4r/nvngx.dll"},
        {"win/d4r_ngx.dll", "d4r/d4r_ngx.dll"},
    };
    for (const auto& [from, to] : outputs) {
        if (is_file(b / from))
            c.add(to, b / from, "");
        else
            c.lack(fmt::format("--build {}: has no {} (build the targets d4r, d4rcuda, nvcuda_bridge, d4r_ngx_dll and "
                               "d4r_nvngx_dll)",
                               b.string(), from));
    }
    const fs::path& s = c.o.source_dir;
    const std::pair<const char*, const char*> sources[] = {
        {"packaging/d4r.ini", "d4r/d4r.ini"},
        {"packaging/README.txt", "d4r/README.txt"},
        {"packaging/check.sh", "d4r/check.sh"},
        {"LICENSE", "d4r/licenses/d4r/LICENSE"},
        {"NOTICE", "d4r/licenses/d4r/NOTICE"},
        // The refinement network's model, beside the Windows NGX core that looks for it there (docs/network.md).
        {"models/refine-v2.d4rnet", "d4r/refine-v2.d4rnet"},
    };
    if (!is_file(s / "packaging" / kOptiScalerKeysFile))
        c.lack(fmt::format("--source {}: has no packaging/{}", s.string(), kOptiScalerKeysFile));
    for (const auto& [from, to] : sources) {
        if (is_file(s / from))
            c.add(to, s / from, "");
        else
            c.lack(fmt::format("--source {}: has no {}", s.string(), from));
    }
    for (const BuiltInLibrary& lib : kBuiltInLibraries) {
        const fs::path copyright = c.o.system_doc_dir / lib.debian_package / "copyright";
        if (is_file(copyright))
            c.add(fmt::format("d4r/licenses/{}/copyright", lib.name), copyright, "");
        else
            c.lack(fmt::format("{} is compiled into d4r, and its licence {} is missing (install Debian's {})", lib.name,
                               copyright.string(), lib.debian_package));
    }
}

void collect_inputs(Collector& c) {
    const PackageOptions& o = c.o;
    if (!o.optiscaler) {
        c.lack("--optiscaler DIR not given (a folder holding OptiScaler's dxgi.dll or OptiScaler.dll, and "
               "OptiScaler.ini)");
    } else {
        auto dll = Collector::first_file(*o.optiscaler, {"dxgi.dll", "OptiScaler.dll"});
        auto ini = Collector::first_file(*o.optiscaler, {"OptiScaler.ini"});
        if (!dll || !ini) {
            c.lack(fmt::format("--optiscaler {}: must hold dxgi.dll (or OptiScaler.dll) and OptiScaler.ini",
                               o.optiscaler->string()));
        } else {
            c.add("dxgi.dll", *dll, "--optiscaler");
            c.add("OptiScaler.ini", *ini, "--optiscaler");
            c.licences(*o.optiscaler, "OptiScaler", "--optiscaler");
        }
    }
    if (!o.vkd3d) {
        c.lack(
            "--vkd3d DIR not given (a folder holding vkd3d-proton's d3d12.dll and d3d12core.dll, or x64/ with them)");
    } else {
        const fs::path dir = is_file(*o.vkd3d / "d3d12.dll") ? *o.vkd3d : *o.vkd3d / "x64";
        if (!is_file(dir / "d3d12.dll") || !is_file(dir / "d3d12core.dll")) {
            c.lack(fmt::format("--vkd3d {}: must hold d3d12.dll and d3d12core.dll (or x64/ with them)",
                               o.vkd3d->string()));
        } else {
            c.add("d3d12.dll", dir / "d3d12.dll", "--vkd3d");
            c.add("d3d12core.dll", dir / "d3d12core.dll", "--vkd3d");
            c.licences(*o.vkd3d, "vkd3d-proton", "--vkd3d");
        }
    }
    if (!o.zluda) {
        c.lack("--zluda DIR not given (a folder holding ZLUDA's libcuda.so)");
    } else if (!is_file(*o.zluda / "libcuda.so")) {
        c.lack(fmt::format("--zluda {}: must hold libcuda.so", o.zluda->string()));
    } else {
        for (const fs::path& p : c.shared_libraries(*o.zluda))
            c.add("d4r/zluda/" + p.filename().string(), p, "--zluda");
        c.licences(*o.zluda, "ZLUDA", "--zluda");
    }
    if (!o.rocm) {
        c.lack("--rocm DIR not given (a folder holding the ROCm runtime libraries, libamdhip64.so* among them)");
    } else {
        auto libs = c.shared_libraries(*o.rocm);
        const bool hip = std::any_of(libs.begin(), libs.end(), [](const fs::path& p) {
            return p.filename().string().rfind("libamdhip64.so", 0) == 0;
        });
        if (!hip) {
            c.lack(fmt::format("--rocm {}: must hold the HIP runtime libamdhip64.so*", o.rocm->string()));
        } else {
            for (const fs::path& p : libs) c.add("d4r/rocm/" + p.filename().string(), p, "--rocm");
            c.licences(*o.rocm, "ROCm", "--rocm");
        }
    }
    if (!o.kernels) {
        if (o.variant == Variant::Full)
            c.lack("--kernels DIR not given (a kernel root: gfx*/ folders with d4r-kernels.txt and code objects)");
    } else if (!is_dir(*o.kernels)) {
        c.lack(fmt::format("--kernels {}: not a folder (a kernel root: gfx*/ folders with d4r-kernels.txt and code "
                           "objects)",
                           o.kernels->string()));
    } else {
        std::error_code ec;
        std::vector<fs::path> files;
        for (auto it = fs::recursive_directory_iterator(*o.kernels, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file(ec)) files.push_back(it->path());
        std::sort(files.begin(), files.end());
        if (files.empty()) c.lack(fmt::format("--kernels {}: holds no file", o.kernels->string()));
        for (const fs::path& p : files)
            c.add("d4r/kernels/" + p.lexically_relative(*o.kernels).generic_string(), p, "--kernels");
    }
    if (o.nvidia) {
        if (o.variant == Variant::NoNvidia) {
            c.missing.push_back("--nvidia: the nonvidia variant holds no NVIDIA file; leave --nvidia out");
        } else if (!is_file(*o.nvidia / "nvngx_dlss.dll")) {
            c.lack(fmt::format("--nvidia {}: must hold nvngx_dlss.dll", o.nvidia->string()));
        } else {
            c.add("nvngx_dlss.dll", *o.nvidia / "nvngx_dlss.dll", "--nvidia");
            if (is_file(*o.nvidia / "_nvngx.dll")) c.add("d4r/_nvngx.dll", *o.nvidia / "_nvngx.dll", "--nvidia");
        }
    }
}

// The release's OptiScaler.ini with d4r's routing keys (packaging/OptiScaler-d4r.ini) written into it, every
// other byte of OptiScaler's own file kept.
Status route_release_optiscaler(const fs::path& stage, const fs::path& source_dir) {
    const fs::path ini = stage / "OptiScaler.ini";
    if (!is_file(ini)) return ok_status(); // --dev without --optiscaler
    const fs::path keys_file = source_dir / "packaging" / kOptiScalerKeysFile;
    const std::string keys = D4R_TRY_CTX(read_text_file(keys_file, 1 << 20), "--source {}", source_dir.string());
    const std::string text = D4R_TRY(read_text_file(ini, 16 << 20));
    return write_file_atomic(ini, std::string_view(apply_ini_settings(text, ini_settings_in(keys))));
}

Status copy_item(const Item& item, const fs::path& dest) {
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec)
        return make_error(ErrorCode::Io, "{}: cannot create the folder: {}", dest.parent_path().string(), ec.message());
    if (path_exists(dest))
        return make_error(ErrorCode::Invalid, "{}: two inputs give this release file (the second is {})", item.dest,
                          item.source.string());
    fs::copy_file(item.source, dest, ec); // follows links: the release holds the file a link names
    if (ec)
        return make_error(ErrorCode::Io, "cannot copy {} to {}: {}", item.source.string(), dest.string(), ec.message());
    const bool exec = item.dest == "d4r/check.sh" || starts_with_elf(dest);
    fs::permissions(dest, exec ? fs::perms(0755) : fs::perms(0644), ec);
    if (ec) return make_error(ErrorCode::Io, "{}: cannot set its mode: {}", dest.string(), ec.message());
    return ok_status();
}

Status fix_folder_modes(const fs::path& root) {
    std::error_code ec;
    fs::permissions(root, fs::perms(0755), ec);
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_directory(ec)) fs::permissions(it->path(), fs::perms(0755), ec);
    if (ec) return make_error(ErrorCode::Io, "{}: cannot set folder modes: {}", root.string(), ec.message());
    return ok_status();
}

// Every ELF file of the release: its GLIBC needs against the target, and its DT_NEEDED libraries
// against the base system and the bundled files (elf_dependencies.h). Both kinds of problem are
// reported together, one line per file and library.
Expected<DependencyAudit> check_elf_files(const fs::path& root, const std::vector<Item>& items,
                                          const std::string& max) {
    auto target = parse_glibc_version(max);
    if (!target) return Error(ErrorCode::Invalid, "--glibc-max: " + target.error().text());
    std::vector<std::string> above;
    std::vector<ReleaseElf> elfs;
    std::set<std::string> release_files;
    for (const Item& item : items) {
        release_files.insert(item.dest);
        const fs::path p = root / item.dest;
        if (!starts_with_elf(p)) continue;
        auto bytes = read_file(p);
        if (!bytes) return std::move(bytes).error();
        auto needs = read_glibc_needs(*bytes);
        if (!needs)
            return make_error(needs.error().code(), "{} (from {}): cannot read its GLIBC needs: {}", item.dest,
                              item.source.string(), needs.error().text());
        if (needs->highest && *needs->highest > *target)
            above.push_back(fmt::format("{} (from {}) needs GLIBC {} (of {})", item.dest, item.source.string(),
                                        needs->highest->text(), needs->highest_library));
        elfs.push_back({item.dest, item.input, item.source.string(), std::move(*needs)});
    }
    DependencyAudit audit = audit_elf_dependencies(elfs, release_files);
    std::string problems;
    if (!above.empty())
        problems +=
            fmt::format("{} file{} need{} a GLIBC above the target {} (--glibc-max), so {} not load "
                        "on a system with GLIBC {}:\n  {}",
                        above.size(), above.size() == 1 ? "" : "s", above.size() == 1 ? "s" : "", target->text(),
                        above.size() == 1 ? "it would" : "they would", target->text(), fmt::join(above, "\n  "));
    if (!audit.outside.empty()) {
        std::vector<std::string> lines;
        for (const DependencyFinding& f : audit.outside) lines.push_back(f.message);
        problems += fmt::format("{}{} librar{} needed by the release's ELF files would be missing on a system "
                                "that has only the base system ({}):\n  {}",
                                problems.empty() ? "" : "\n", lines.size(), lines.size() == 1 ? "y" : "ies",
                                fmt::join(base_system_libraries(), ", "), fmt::join(lines, "\n  "));
    }
    if (!problems.empty()) return Error(ErrorCode::Invalid, problems);
    return audit;
}

// "GLIBCXX_3.4.30 (d4r/d4r), CXXABI_1.3.9 (d4r/d4r)", or "none" when no file uses libstdc++.
std::string libstdcxx_text(const DependencyAudit& audit) {
    std::vector<std::string> parts;
    for (const auto* need : {&audit.glibcxx, &audit.cxxabi})
        if (*need) parts.push_back(fmt::format("{} ({})", (*need)->highest.name, (*need)->path));
    return parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, ", "));
}

std::string utc_date(int64_t t) {
    const time_t tt = time_t(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string cmake_cache_value(const fs::path& build_dir, const std::string& key) {
    auto text = read_text_file(build_dir / "CMakeCache.txt", 16u << 20);
    if (!text) return {};
    for (size_t at = 0; at < text->size();) {
        size_t nl = text->find('\n', at);
        if (nl == std::string::npos) nl = text->size();
        const std::string_view line(text->data() + at, nl - at);
        if (line.rfind(key + ":", 0) == 0) {
            const size_t eq = line.find('=');
            if (eq != std::string_view::npos) return std::string(line.substr(eq + 1));
        }
        at = nl + 1;
    }
    return {};
}

std::string tool_version(const std::string& command) {
    const std::string v = first_line_of(command + " --version");
    return v.empty() ? "not found" : v;
}

std::string build_info(const PackageOptions& o, int64_t timestamp, const DependencyAudit& audit) {
    std::string commit = first_line_of("git -C " + shell_quote(o.source_dir.string()) + " rev-parse HEAD");
    if (commit.empty()) commit = "unknown (the source folder is not a git checkout)";
    std::string cxx = cmake_cache_value(o.build_dir, "CMAKE_CXX_COMPILER");
    if (cxx.empty()) cxx = "g++";
    std::string cmake = cmake_cache_value(o.build_dir, "CMAKE_COMMAND");
    if (cmake.empty()) cmake = "cmake";
    std::string out = "# BUILD_INFO.txt: how this d4r release was built (written by d4r package).\n";
    out += fmt::format("d4r version: {}\n", o.d4r_version);
    out += fmt::format("variant: {}\n", variant_name(o.variant));
    out += fmt::format("git commit: {}\n", commit);
    out += fmt::format("date: {} (SOURCE_DATE_EPOCH={})\n", utc_date(timestamp), timestamp);
    out += fmt::format("glibc target: {}\n", o.glibc_max);
    out += fmt::format("libstdc++ needed: {}\n", libstdcxx_text(audit));
    out += fmt::format("c++ compiler ({}): {}\n", cxx, tool_version(shell_quote(cxx)));
    // The tools the build used, from its CMakeCache.txt; without one, the names on PATH.
    auto cached = [&](const char* key, const char* fallback) {
        std::string v = cmake_cache_value(o.build_dir, key);
        return v.empty() || v.find("NOTFOUND") != std::string::npos ? std::string(fallback) : v;
    };
    const std::string mingw = cached("D4R_MINGW_CXX", "x86_64-w64-mingw32-g++-posix");
    const std::string wine = cached("D4R_WINEGXX", "winegcc");
    out += fmt::format("mingw g++ ({}): {}\n", mingw, tool_version(shell_quote(mingw)));
    out += fmt::format("winegcc ({}): {}\n", wine, tool_version(shell_quote(wine)));
    if (lower(cxx).find("clang") == std::string::npos &&
        lower(cmake_cache_value(o.build_dir, "CMAKE_C_COMPILER")).find("clang") == std::string::npos)
        out += "clang: not used\n";
    else
        out += fmt::format("clang: {}\n", tool_version("clang"));
    out += fmt::format("cmake ({}): {}\n", cmake, tool_version(shell_quote(cmake)));
    return out;
}

Expected<std::string> sources_text(const fs::path& root, const std::vector<Item>& items) {
    std::string out = "# SOURCES.txt: where each third-party file of this release came from (written by d4r package).\n"
                      "# release path<TAB>option<TAB>source path<TAB>version (from its version resource)<TAB>sha256\n";
    std::vector<const Item*> third;
    for (const Item& i : items)
        if (!i.input.empty()) third.push_back(&i);
    std::sort(third.begin(), third.end(), [](const Item* a, const Item* b) { return a->dest < b->dest; });
    for (const Item* i : third) {
        auto bytes = read_file(root / i->dest);
        if (!bytes) return std::move(bytes).error();
        const auto version = pe_file_version(*bytes);
        out +=
            fmt::format("{}\t{}\t{}\t{}\t{}\n", i->dest, i->input, fs::absolute(i->source).lexically_normal().string(),
                        version.value_or("unknown"), sha256_hex(std::span<const uint8_t>(*bytes)));
    }
    return out;
}

} // namespace

Expected<Variant> parse_variant(std::string_view text) {
    if (text == "full") return Variant::Full;
    if (text == "nonvidia") return Variant::NoNvidia;
    return make_error(ErrorCode::Invalid, "--variant '{}': accepted values are full and nonvidia", text);
}

const char* variant_name(Variant v) { return v == Variant::Full ? "full" : "nonvidia"; }

Expected<int64_t> resolve_timestamp(const std::optional<std::string>& source_date_epoch, const fs::path& source_dir) {
    auto parse = [](std::string_view s, int64_t& out) {
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc() && end == s.data() + s.size() && out >= 0;
    };
    int64_t t = 0;
    if (source_date_epoch) {
        if (!parse(*source_date_epoch, t))
            return make_error(ErrorCode::Invalid,
                              "SOURCE_DATE_EPOCH '{}': accepted is a number of seconds since 1970-01-01 UTC",
                              *source_date_epoch);
        return t;
    }
    const std::string git = first_line_of("git -C " + shell_quote(source_dir.string()) + " log -1 --format=%ct");
    if (parse(git, t)) return t;
    log::info("package: no SOURCE_DATE_EPOCH and {} is not a git checkout: the zip's timestamp is {} (1980-01-01)",
              source_dir.string(), kFallbackSourceDateEpoch);
    return kFallbackSourceDateEpoch;
}

std::optional<fs::path> source_dir_of_build(const fs::path& build_dir) {
    const std::string v = cmake_cache_value(build_dir, "CMAKE_HOME_DIRECTORY");
    if (v.empty()) return std::nullopt;
    return fs::path(v);
}

Expected<PackageResult> package_release(const PackageOptions& o, const PackageSay& say) {
    if (o.d4r_version.empty()) return make_error(ErrorCode::Invalid, "package: no d4r version given");
    if (auto target = parse_glibc_version(o.glibc_max); !target)
        return Error(ErrorCode::Invalid, "--glibc-max: " + target.error().text());
    for (const auto* opt : {&o.optiscaler, &o.vkd3d, &o.zluda, &o.rocm, &o.kernels, &o.nvidia})
        if (*opt && !is_dir(**opt)) return make_error(ErrorCode::NotFound, "{}: not a folder", (*opt)->string());
    if (!is_dir(o.build_dir)) return make_error(ErrorCode::NotFound, "--build {}: not a folder", o.build_dir.string());
    const int64_t timestamp = D4R_TRY(resolve_timestamp(o.source_date_epoch, o.source_dir));

    Collector c{o, say, {}, {}};
    collect_build(c);
    collect_inputs(c);
    if (!c.missing.empty())
        return make_error(
            ErrorCode::Invalid, "the release cannot be built; missing input{} (--dev leaves {} out):\n  {}",
            c.missing.size() == 1 ? "" : "s", c.missing.size() == 1 ? "it" : "them", fmt::join(c.missing, "\n  "));

    std::error_code ec;
    fs::create_directories(o.out_dir, ec);
    if (ec) return make_error(ErrorCode::Io, "{}: cannot create: {}", o.out_dir.string(), ec.message());
    const std::string name = fmt::format("d4r-{}-{}", o.d4r_version, variant_name(o.variant));
    PackageResult r;
    r.folder = o.out_dir / name;
    r.zip = o.out_dir / (name + ".zip");
    r.sha256_file = o.out_dir / (name + ".zip.sha256");
    r.timestamp = timestamp;
    const fs::path stage = o.out_dir / fmt::format(".{}.tmp-{}", name, ::getpid());
    fs::remove_all(stage, ec);
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code ignored;
            if (!p.empty()) fs::remove_all(p, ignored);
        }
    } cleanup{stage};

    for (const Item& item : c.items) D4R_TRY(copy_item(item, stage / item.dest));
    D4R_TRY(route_release_optiscaler(stage, o.source_dir));
    const DependencyAudit audit = D4R_TRY(check_elf_files(stage, c.items, o.glibc_max));
    for (const DependencyFinding& f : audit.from_rocm) say("note: " + f.message);
    say("libstdc++: the release needs " + libstdcxx_text(audit));
    if (o.variant == Variant::NoNvidia) {
        const auto found = D4R_TRY(find_nvidia_content(stage));
        if (!found.empty()) {
            std::vector<std::string> lines;
            for (const GuardFinding& f : found) {
                auto it = std::find_if(c.items.begin(), c.items.end(), [&](const Item& i) { return i.dest == f.path; });
                lines.push_back(fmt::format("{}{}: {}", f.path,
                                            it != c.items.end() ? fmt::format(" (from {})", it->source.string()) : "",
                                            f.reason));
            }
            return make_error(ErrorCode::Invalid,
                              "the nonvidia variant must hold no NVIDIA code, but {} file{} do{}:\n  {}\nleave those "
                              "inputs out, or build the full variant",
                              lines.size(), lines.size() == 1 ? "" : "s", lines.size() == 1 ? "es" : "",
                              fmt::join(lines, "\n  "));
        }
    }
    fs::create_directories(stage / "d4r/source", ec);
    if (ec) return make_error(ErrorCode::Io, "{}: cannot create: {}", (stage / "d4r/source").string(), ec.message());
    // D4R_TRY returns from a statement expression: not inside another call's arguments, where the
    // temporaries built before it would not be destroyed.
    const std::string sources = D4R_TRY(sources_text(stage, c.items));
    D4R_TRY(write_file_atomic(stage / "d4r/source/SOURCES.txt", std::string_view(sources)));
    const std::string info = build_info(o, timestamp, audit);
    D4R_TRY(write_file_atomic(stage / "d4r/BUILD_INFO.txt", std::string_view(info)));
    for (const char* f : {"d4r/source/SOURCES.txt", "d4r/BUILD_INFO.txt"}) {
        fs::permissions(stage / f, fs::perms(0644), ec);
        if (ec) return make_error(ErrorCode::Io, "{}: cannot set its mode: {}", (stage / f).string(), ec.message());
    }
    D4R_TRY(fix_folder_modes(stage));

    auto entries = D4R_TRY(zip_entries_of_tree(stage, name + "/"));
    r.files =
        size_t(std::count_if(entries.begin(), entries.end(), [](const ZipEntry& e) { return e.name.back() != '/'; }));
    D4R_TRY(write_zip(r.zip, std::move(entries), timestamp));
    r.sha256 = D4R_TRY(sha256_file_hex(r.zip));
    D4R_TRY(write_file_atomic(r.sha256_file,
                              std::string_view(fmt::format("{}  {}\n", r.sha256, r.zip.filename().string()))));
    fs::remove_all(r.folder, ec);
    if (ec)
        return make_error(ErrorCode::Io, "{}: cannot replace the previous release folder: {}", r.folder.string(),
                          ec.message());
    fs::rename(stage, r.folder, ec);
    if (ec)
        return make_error(ErrorCode::Io, "cannot rename {} to {}: {}", stage.string(), r.folder.string(), ec.message());
    cleanup.p.clear();
    return r;
}

} // namespace d4r::release
