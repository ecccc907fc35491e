// d4r compare: are two outputs the same? Files (or two folders of files, e.g. two replay outputs) are
// compared element by element as bytes, u8, f16 or f32: identical bytes, the ulp histogram, the largest
// distance and PSNR (docs/runtime.md, "Observability").
//
// Exit statuses: 0 identical, or within --tolerance; 1 they differ beyond it (or sizes or the file sets
// differ); 2 bad usage or an unreadable file.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli_common.h"
#include "compare/compare.h"
#include "core/files.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using namespace d4r::compare;

struct CompareOptions {
    std::string a, b;
    std::string type = "bytes";
    uint64_t tolerance = 0;
    double peak = 0;
};

constexpr uint64_t kMaxCompareBytes = 8ull << 30;

Expected<bool> compare_files(const fs::path& a, const fs::path& b, ElementType type, const CompareOptions& o,
                             const std::string& label) {
    auto da = read_file(a, kMaxCompareBytes);
    if (!da) return std::move(da).error();
    auto db = read_file(b, kMaxCompareBytes);
    if (!db) return std::move(db).error();
    std::span<const uint8_t> sa(reinterpret_cast<const uint8_t*>(da->data()), da->size());
    std::span<const uint8_t> sb(reinterpret_cast<const uint8_t*>(db->data()), db->size());
    Comparison c = compare_buffers(sa, sb, type, o.peak);
    bool ok = c.within(o.tolerance, type);
    std::string verdict = c.identical ? "same" : ok ? "within tolerance" : "DIFFERENT";
    fmt::print("{}: {}\n", label, verdict);
    if (!c.identical) {
        std::string report = format_comparison(c, type);
        size_t pos = 0;
        while (pos < report.size()) {
            size_t nl = report.find('\n', pos);
            fmt::print("  {}\n", report.substr(pos, nl - pos));
            pos = nl == std::string::npos ? report.size() : nl + 1;
        }
    }
    return ok;
}

int run_compare(const CompareOptions& o) {
    auto type = parse_element_type(o.type);
    if (!type) return report_error(type.error());
    bool dir_a = is_dir(o.a), dir_b = is_dir(o.b);
    if (dir_a != dir_b)
        return report_error(make_error(ErrorCode::Invalid, "{} and {}: compare two files or two folders", o.a, o.b));
    if (!dir_a) {
        auto ok = compare_files(o.a, o.b, *type, o, fmt::format("{} vs {}", o.a, o.b));
        if (!ok) return report_error(ok.error());
        return *ok ? kExitOk : kExitFailed;
    }
    auto names_a = list_directory(o.a);
    if (!names_a) return report_error(names_a.error());
    auto names_b = list_directory(o.b);
    if (!names_b) return report_error(names_b.error());
    std::vector<std::string> files_a, files_b;
    for (const fs::path& p : *names_a)
        if (is_file(fs::path(o.a) / p.filename())) files_a.push_back(p.filename().string());
    for (const fs::path& p : *names_b)
        if (is_file(fs::path(o.b) / p.filename())) files_b.push_back(p.filename().string());
    std::sort(files_a.begin(), files_a.end());
    std::sort(files_b.begin(), files_b.end());
    bool all_ok = true;
    size_t compared = 0;
    for (const std::string& n : files_a) {
        if (!std::binary_search(files_b.begin(), files_b.end(), n)) {
            fmt::print("{}: only in {}\n", n, o.a);
            all_ok = false;
            continue;
        }
        auto ok = compare_files(fs::path(o.a) / n, fs::path(o.b) / n, *type, o, n);
        if (!ok) return report_error(ok.error());
        all_ok = all_ok && *ok;
        ++compared;
    }
    for (const std::string& n : files_b) {
        if (!std::binary_search(files_a.begin(), files_a.end(), n)) {
            fmt::print("{}: only in {}\n", n, o.b);
            all_ok = false;
        }
    }
    fmt::print("{} files compared: {}\n", compared, all_ok ? "all match" : "differences found");
    return all_ok ? kExitOk : kExitFailed;
}

} // namespace

void register_compare_verb(CLI::App& root) {
    auto o = std::make_shared<CompareOptions>();
    CLI::App* sub = root.add_subcommand(
        "compare", "Compare two outputs (files, or two folders of files such as replay outputs): identical bytes, "
                   "the f16/f32 ulp histogram and PSNR. Exit 0 when identical or within --tolerance, 1 when they "
                   "differ, 2 on bad input.");
    sub->add_option("A", o->a, "First file or folder")->required();
    sub->add_option("B", o->b, "Second file or folder")->required();
    sub->add_option("--type", o->type, "Element type: bytes (identical or not), u8, f16 or f32")
        ->capture_default_str();
    sub->add_option("--tolerance", o->tolerance,
                    "Largest distance accepted, in ulps for f16/f32 and units for u8 (bytes: must be identical)")
        ->capture_default_str();
    sub->add_option("--peak", o->peak, "Peak value for PSNR (default: the largest magnitude in A)");
    set_action(sub, [o] { return run_compare(*o); });
}

} // namespace d4r::cli
