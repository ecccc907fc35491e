// d4r ptx list|extract|show: the PTX modules inside NVIDIA files (PTX text, fatbins, ELF and PE
// libraries) — which kernels they define, under which module hash (docs/runtime.md, "Native-kernel overrides"), with
// which parameters.
//
// stdout carries only results (scriptable); diagnostics go to stderr. Exit statuses, for every verb:
// 0 done; 1 a FILE holds no PTX at all; 2 bad usage or a FILE that cannot be read or is malformed
// (the message names the file, module and line), an entry that does not exist, or an extract that
// would overwrite a different file. docs/ptx-tools.md is the user guide.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "core/files.h"
#include "core/strings.h"
#include "ptx/module_hash.h"
#include "ptx/module_index.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ptx::IndexedModule;
using ptx::PtxFile;

std::string sm_or_dash(const IndexedModule& m) { return m.sm.empty() ? "-" : m.sm; }

// Prints why FILE has no PTX; the caller returns kExitFailed.
void report_no_ptx(const PtxFile& file) {
    if (file.kind == ptx::ContainerKind::Unknown)
        fmt::print(stderr, "d4r: {}: no PTX found (not PTX text, a fatbin, an ELF or a PE file)\n", file.path.string());
    else
        fmt::print(stderr, "d4r: {}: no PTX found ({} without PTX modules)\n", file.path.string(),
                   ptx::container_kind_name(file.kind));
}

json module_json(const IndexedModule& m) {
    json entries = json::array();
    for (const ptx::EntryInfo& e : m.index.entries)
        entries.push_back({{"name", e.name},
                           {"line", e.line},
                           {"params", e.params.size()},
                           {"param_size", e.param_block_size},
                           {"param_align", e.param_block_align}});
    json j = {{"index", m.number},
              {"hash", hex64(m.hash)},
              {"sm", m.sm},
              {"origin", m.blob.origin},
              {"offset", m.blob.offset},
              {"bytes", m.text().size()},
              {"version", m.index.version_text()},
              {"targets", m.index.targets},
              {"functions", m.index.funcs.size()},
              {"variables", m.index.variables.size()},
              {"entries", std::move(entries)}};
    j["address_size"] = m.index.address_size ? json(*m.index.address_size) : json(nullptr);
    return j;
}

// ---- list -------------------------------------------------------------------------------------------

struct ListOptions {
    std::vector<std::string> files;
    bool json = false;
    bool with_filename = false;
    bool modules = false;
};

int run_list(const ListOptions& o) {
    int status = kExitOk;
    bool prefix = o.with_filename || o.files.size() > 1;
    json files = json::array();
    for (const std::string& path : o.files) {
        Expected<PtxFile> file = ptx::index_ptx_file(path);
        if (!file) {
            status = std::max(status, report_error(file.error()));
            files.push_back({{"path", path}, {"error", file.error().text()}, {"modules", json::array()}});
            continue;
        }
        if (file->modules.empty()) {
            report_no_ptx(*file);
            status = std::max(status, kExitFailed);
        }
        if (o.json) {
            json modules = json::array();
            for (const IndexedModule& m : file->modules) modules.push_back(module_json(m));
            files.push_back(
                {{"path", path}, {"container", ptx::container_kind_name(file->kind)}, {"modules", std::move(modules)}});
            continue;
        }
        std::string lead = prefix ? path + ": " : "";
        for (const IndexedModule& m : file->modules) {
            if (o.modules) {
                fmt::print("{}{} {} {} {} {}\n", lead, hex64(m.hash), sm_or_dash(m), m.number, m.index.entries.size(),
                           m.blob.origin);
                continue;
            }
            for (const ptx::EntryInfo& e : m.index.entries)
                fmt::print("{}{} {} {}\n", lead, hex64(m.hash), sm_or_dash(m), e.name);
        }
    }
    if (o.json) fmt::print("{}\n", json{{"files", std::move(files)}}.dump(2));
    return status;
}

// ---- extract ----------------------------------------------------------------------------------------

struct ExtractOptions {
    std::string file;
    std::string outdir;
    bool force = false;
};

// "sm_89" stays; anything odd in a container-supplied name cannot reach the file system.
std::string file_safe(std::string_view sm) {
    if (sm.empty()) return "unknown";
    std::string out;
    for (char c : sm) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return out;
}

int run_extract(const ExtractOptions& o) {
    Expected<PtxFile> file = ptx::index_ptx_file(o.file);
    if (!file) return report_error(file.error());
    if (file->modules.empty()) {
        report_no_ptx(*file);
        return kExitFailed;
    }
    if (path_exists(o.outdir) && !is_dir(o.outdir))
        return report_error(make_error(ErrorCode::Invalid, "{}: exists and is not a folder", o.outdir));

    enum class Action { Write, Unchanged, Replace };
    struct Plan {
        fs::path path;
        std::string_view text;
        Action action = Action::Write;
    };
    std::vector<Plan> plans;
    bool refused = false;
    for (const IndexedModule& m : file->modules) {
        Plan plan{fs::path(o.outdir) / fmt::format("{}-{}-{}.ptx", m.number, file_safe(m.sm), hex64(m.hash)), m.text()};
        if (path_exists(plan.path)) {
            // Read one byte more than expected: enough to tell "longer" from "equal" without reading a huge file.
            Expected<std::string> existing = read_text_file(plan.path, plan.text.size() + 1);
            if (existing && *existing == plan.text) {
                plan.action = Action::Unchanged;
            } else if (o.force) {
                plan.action = Action::Replace;
            } else {
                fmt::print(stderr, "d4r: error: {}: exists and differs from module {} of {} (--force replaces it)\n",
                           plan.path.string(), m.number, o.file);
                refused = true;
            }
        }
        plans.push_back(std::move(plan));
    }
    if (refused) return kExitUsage; // nothing written

    std::error_code ec;
    fs::create_directories(o.outdir, ec);
    if (ec) return report_error(make_error(ErrorCode::Io, "cannot create folder '{}': {}", o.outdir, ec.message()));
    size_t written = 0, unchanged = 0;
    for (const Plan& plan : plans) {
        if (plan.action == Action::Unchanged) {
            fmt::print("unchanged {}\n", plan.path.string());
            ++unchanged;
            continue;
        }
        Status status = write_file_atomic(plan.path, plan.text);
        if (!status) return report_error(status.error());
        fmt::print("{} {} ({} bytes)\n", plan.action == Action::Replace ? "replaced" : "wrote", plan.path.string(),
                   plan.text.size());
        ++written;
    }
    fmt::print(stderr, "d4r: {}: {} PTX module{}: {} written, {} unchanged\n", o.file, plans.size(),
               plans.size() == 1 ? "" : "s", written, unchanged);
    return kExitOk;
}

// ---- show -------------------------------------------------------------------------------------------

struct ShowOptions {
    std::string file;
    std::string entry;
    bool json = false;
};

// Entry names a user plausibly meant: those containing WANTED (a fragment of a mangled name), then those
// a few edits away.
std::vector<std::string> suggest_entries(const std::string& wanted, const std::vector<std::string>& names) {
    constexpr size_t kMaxSuggestions = 5;
    std::vector<std::string> out;
    std::string lower = to_lower(wanted);
    for (const std::string& name : names)
        if (out.size() < kMaxSuggestions && !wanted.empty() && to_lower(name).find(lower) != std::string::npos)
            out.push_back(name);
    std::vector<std::pair<size_t, std::string>> near;
    size_t limit = std::max<size_t>(2, wanted.size() / 3);
    for (const std::string& name : names) {
        if (std::find(out.begin(), out.end(), name) != out.end()) continue;
        // Lengths far apart cannot be within LIMIT edits; skip the quadratic distance for them.
        size_t gap = name.size() > wanted.size() ? name.size() - wanted.size() : wanted.size() - name.size();
        if (gap > limit) continue;
        size_t d = edit_distance(wanted, name);
        if (d <= limit) near.emplace_back(d, name);
    }
    std::sort(near.begin(), near.end());
    for (const auto& [d, name] : near)
        if (out.size() < kMaxSuggestions) out.push_back(name);
    return out;
}

std::string describe_directives(const ptx::KernelDirectives& d) {
    std::vector<std::string> parts;
    auto dim3 = [](const std::array<uint32_t, 3>& v) { return fmt::format("{}, {}, {}", v[0], v[1], v[2]); };
    if (d.maxntid) parts.push_back(".maxntid " + dim3(*d.maxntid));
    if (d.reqntid) parts.push_back(".reqntid " + dim3(*d.reqntid));
    if (d.minnctapersm) parts.push_back(fmt::format(".minnctapersm {}", *d.minnctapersm));
    if (d.maxnreg) parts.push_back(fmt::format(".maxnreg {}", *d.maxnreg));
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : "  ") + p;
    return out;
}

json entry_json(const IndexedModule& m, const ptx::EntryInfo& e) {
    json params = json::array();
    for (const ptx::ParamInfo& p : e.params) {
        json jp = {{"name", p.name},   {"type", p.type},     {"vector", p.vector},
                   {"dims", p.dims},   {"offset", p.offset}, {"size", p.size},
                   {"align", p.align}, {"line", p.line},     {"declaration", p.describe()}};
        if (p.is_pointer) jp["pointer"] = {{"space", p.pointer_space}, {"align", p.pointer_align}};
        params.push_back(std::move(jp));
    }
    json directives = json::object();
    if (e.directives.maxntid) directives["maxntid"] = *e.directives.maxntid;
    if (e.directives.reqntid) directives["reqntid"] = *e.directives.reqntid;
    if (e.directives.minnctapersm) directives["minnctapersm"] = *e.directives.minnctapersm;
    if (e.directives.maxnreg) directives["maxnreg"] = *e.directives.maxnreg;
    return {{"module", {{"index", m.number}, {"hash", hex64(m.hash)}, {"sm", m.sm}, {"origin", m.blob.origin}}},
            {"line", e.line},
            {"linkage", e.linkage},
            {"param_size", e.param_block_size},
            {"param_align", e.param_block_align},
            {"directives", std::move(directives)},
            {"params", std::move(params)}};
}

void print_entry(const IndexedModule& m, const ptx::EntryInfo& e) {
    fmt::print("module {} ({}, hash {}, {}), line {}{}\n", m.number, sm_or_dash(m), hex64(m.hash), m.blob.origin,
               e.line, e.linkage.empty() ? "" : ", " + e.linkage);
    std::string directives = describe_directives(e.directives);
    if (!directives.empty()) fmt::print("  {}\n", directives);
    if (e.params.empty()) {
        fmt::print("  no parameters (0 bytes)\n");
        return;
    }
    fmt::print("  {} parameter{}, {} bytes, alignment {}\n", e.params.size(), e.params.size() == 1 ? "" : "s",
               e.param_block_size, e.param_block_align);
    size_t width = std::string_view("declaration").size();
    for (const ptx::ParamInfo& p : e.params) width = std::max(width, p.describe().size());
    fmt::print("  {:>8} {:>8} {:>6}  {:<{}}  {}\n", "offset", "size", "align", "declaration", width, "name");
    for (const ptx::ParamInfo& p : e.params)
        fmt::print("  {:>8} {:>8} {:>6}  {:<{}}  {}\n", p.offset, p.size, p.align, p.describe(), width, p.name);
}

int run_show(const ShowOptions& o) {
    Expected<PtxFile> file = ptx::index_ptx_file(o.file);
    if (!file) return report_error(file.error());
    if (file->modules.empty()) {
        report_no_ptx(*file);
        return kExitFailed;
    }
    std::vector<std::pair<const IndexedModule*, const ptx::EntryInfo*>> found;
    std::vector<std::string> names;
    std::set<std::string> seen;
    for (const IndexedModule& m : file->modules) {
        if (const ptx::EntryInfo* e = m.index.find_entry(o.entry)) found.emplace_back(&m, e);
        for (const ptx::EntryInfo& e : m.index.entries)
            if (seen.insert(e.name).second) names.push_back(e.name);
    }
    if (found.empty()) {
        std::vector<std::string> suggestions = suggest_entries(o.entry, names);
        std::string hint;
        if (!suggestions.empty()) {
            hint = "; did you mean ";
            for (size_t i = 0; i < suggestions.size(); ++i) hint += (i ? ", '" : "'") + suggestions[i] + "'";
            hint += "?";
        } else {
            hint = fmt::format(" ({} entries; 'd4r ptx list {}' lists them)", names.size(), shell_quote(o.file));
        }
        return report_error(make_error(ErrorCode::NotFound, "{}: no entry '{}'{}", o.file, o.entry, hint));
    }
    if (o.json) {
        json definitions = json::array();
        for (const auto& [m, e] : found) definitions.push_back(entry_json(*m, *e));
        fmt::print("{}\n", json{{"file", o.file}, {"entry", o.entry}, {"definitions", std::move(definitions)}}.dump(2));
        return kExitOk;
    }
    fmt::print("entry {} in {}", o.entry, o.file);
    if (found.size() > 1) fmt::print(" (defined by {} modules)", found.size());
    fmt::print("\n");
    for (const auto& [m, e] : found) print_entry(*m, *e);
    return kExitOk;
}

} // namespace

void register_ptx_verbs(CLI::App& root) {
    CLI::App* ptx = root.add_subcommand("ptx", "PTX modules inside NVIDIA files (PTX text, fatbins, ELF .so/.o, PE "
                                               ".dll/.exe): list kernels and module hashes, extract modules, show "
                                               "kernel parameters");
    ptx->require_subcommand(1);
    ptx->footer("Exit status: 0 done, 1 a FILE holds no PTX, 2 bad usage or a FILE that cannot be read or is "
                "malformed.\nHashes are FNV-1a 64 of the module text without trailing NULs, as d4r-kernels.txt "
                "lists them. See docs/ptx-tools.md.");

    auto list_options = std::make_shared<ListOptions>();
    CLI::App* list = ptx->add_subcommand("list", "one line 'HASH SM ENTRY' per kernel (.entry) of every PTX module, "
                                                 "in file order then module and entry order");
    list->add_option("FILE", list_options->files, "PTX text, fatbin, ELF or PE files to read")->required();
    list->add_flag("--json", list_options->json,
                   "print JSON instead: files[] with path, container and modules[] (index, hash, sm, origin, offset, "
                   "bytes, version, targets, address_size, entries[] with name, line, params, param_size, "
                   "param_align); a file that failed has 'error'");
    list->add_flag("-H,--with-filename", list_options->with_filename,
                   "prefix every line with 'FILE: ' (the default when several files are given)");
    list->add_flag("--modules", list_options->modules,
                   "one line per module instead: 'HASH SM INDEX ENTRIES ORIGIN' (ENTRIES: how many kernels)");
    list->footer("SM is the module's architecture ('-' when neither the container nor .target names one).\n"
                 "Exit status: 0 listed, 1 some FILE holds no PTX (named on stderr; the others are still listed), "
                 "2 some FILE is missing, unreadable or malformed.");
    set_action(list, [list_options] { return run_list(*list_options); });

    auto extract_options = std::make_shared<ExtractOptions>();
    CLI::App* extract = ptx->add_subcommand("extract", "write every PTX module of FILE to "
                                                       "OUTDIR/<index>-<sm>-<hash>.ptx (text without trailing NULs, so "
                                                       "the file hashes to <hash>)");
    extract->add_option("FILE", extract_options->file, "PTX text, fatbin, ELF or PE file")->required();
    extract->add_option("OUTDIR", extract_options->outdir, "output folder (created when missing)")->required();
    extract->add_flag("--force", extract_options->force, "replace existing files whose content differs");
    extract->footer("Files are written atomically. An existing identical file is left alone ('unchanged'); an "
                    "existing different one stops the run before anything is written (exit 2) unless --force.\n"
                    "Exit status: 0 done, 1 FILE holds no PTX, 2 bad input or a differing file in the way.");
    set_action(extract, [extract_options] { return run_extract(*extract_options); });

    auto show_options = std::make_shared<ShowOptions>();
    CLI::App* show = ptx->add_subcommand("show", "the parameters of kernel ENTRY (offset, size, alignment, PTX "
                                                 "declaration; total parameter-block size) in every module of FILE "
                                                 "that defines it");
    show->add_option("FILE", show_options->file, "PTX text, fatbin, ELF or PE file")->required();
    show->add_option("ENTRY", show_options->entry, "kernel name exactly as in '.entry NAME' (mangled)")->required();
    show->add_flag("--json", show_options->json,
                   "print JSON: file, entry, definitions[] with module (index, hash, sm, origin), line, linkage, "
                   "param_size, param_align, directives, params[] (name, type, vector, dims, offset, size, align, "
                   "declaration, pointer)");
    show->footer("Offsets follow CUDA's layout: each parameter at the next multiple of its alignment; the block "
                 "size is the end of the last parameter.\nExit status: 0 shown, 1 FILE holds no PTX, 2 bad input or "
                 "no such entry (close names are suggested).");
    set_action(show, [show_options] { return run_show(*show_options); });
}

} // namespace d4r::cli
