// d4r compare: are two outputs the same? Files (or two folders of files, e.g. two replay outputs) are
// compared element by element as bytes, u8, f16 or f32: identical bytes, the ulp histogram, the largest
// distance and PSNR (docs/runtime.md, "Observability").
//
// Exit statuses: 0 identical, or within --tolerance; 1 they differ beyond it (or sizes or the file sets
// differ); 2 bad usage, an unreadable file, or a folder where the other side has a file.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "cli_common.h"
#include "compare/compare.h"
#include "core/files.h"
#include "core/strings.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using namespace d4r::compare;

struct CompareOptions {
    std::string a, b;
    std::string type = "bytes";
    std::string tolerance_text = "0"; // checked by parse_tolerance: CLI11 reads "-1" as 2^64 - 1
    std::string peak_text;            // checked by parse_peak; empty = from A
    uint64_t tolerance = 0;
    double peak = 0;
};

Expected<uint64_t> parse_tolerance(const std::string& text) {
    auto v = parse_u64(text);
    if (!v)
        return make_error(ErrorCode::Invalid,
                          "--tolerance '{}': expected a whole number 0 or more (ulps for f16/f32, "
                          "units for u8)",
                          text);
    return *v;
}

Expected<double> parse_peak(const std::string& text) {
    if (text.empty()) return 0.0; // not given: the largest magnitude in A
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0)
        return make_error(ErrorCode::Invalid, "--peak '{}': expected a finite number above 0 (the PSNR peak value)",
                          text);
    return v;
}

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

int run_compare(CompareOptions o) {
    auto type = parse_element_type(o.type);
    if (!type) return report_error(type.error());
    auto tolerance = parse_tolerance(o.tolerance_text);
    if (!tolerance) return report_error(tolerance.error());
    o.tolerance = *tolerance;
    auto peak = parse_peak(o.peak_text);
    if (!peak) return report_error(peak.error());
    o.peak = *peak;
    bool dir_a = is_dir(o.a), dir_b = is_dir(o.b);
    if (dir_a != dir_b)
        return report_error(make_error(ErrorCode::Invalid,
                                       "{} is a folder but {} is not: compare two files or two "
                                       "folders",
                                       dir_a ? o.a : o.b, dir_a ? o.b : o.a));
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
    // A name that is a file on one side and something else (a folder, a device) on the other is bad input,
    // not a difference: say which.
    auto check_kinds = [](const std::vector<std::string>& files, const fs::path& root,
                          const fs::path& other) -> Status {
        for (const std::string& n : files) {
            std::error_code ec;
            if (fs::exists(other / n, ec) && !is_file(other / n))
                return make_error(ErrorCode::Invalid, "{} is {}, but {} is a file", (other / n).string(),
                                  is_dir(other / n) ? "a folder" : "not a regular file", (root / n).string());
        }
        return ok_status();
    };
    if (Status s = check_kinds(files_a, o.a, o.b); !s) return report_error(s.error());
    if (Status s = check_kinds(files_b, o.b, o.a); !s) return report_error(s.error());
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
    sub->add_option("--type", o->type, "Element type: bytes (identical or not), u8, f16 or f32")->capture_default_str();
    sub->add_option("--tolerance", o->tolerance_text,
                    "Largest distance accepted, a whole number 0 or more: ulps for f16/f32, units for u8 (bytes: "
                    "must be identical; trailing bytes short of a whole element must always be identical)")
        ->capture_default_str();
    sub->add_option("--peak", o->peak_text,
                    "Peak value for PSNR, a finite number above 0 (default: the largest magnitude in A)");
    set_action(sub, [o] { return run_compare(*o); });
}

} // namespace d4r::cli
