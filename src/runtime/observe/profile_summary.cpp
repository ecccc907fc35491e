#include "runtime/observe/profile_summary.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "core/statistics.h"
#include "core/strings.h"

namespace d4r::runtime {

namespace {

Expected<std::string_view> field(std::string_view rest, std::string_view key, std::string_view what, size_t line) {
    std::string k = std::string(key) + "=";
    size_t at = rest.find(k);
    while (at != std::string_view::npos && at > 0 && rest[at - 1] != ' ') at = rest.find(k, at + 1);
    if (at == std::string_view::npos)
        return make_error(ErrorCode::Invalid, "{}:{}: KERNEL_PROFILE line without '{}='", what, line, key);
    std::string_view v = rest.substr(at + k.size());
    if (key != "name") v = v.substr(0, v.find(' '));
    while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.remove_suffix(1);
    return v;
}

} // namespace

Expected<std::vector<ProfileLine>> parse_profile_log(std::string_view text, std::string_view what) {
    std::vector<ProfileLine> out;
    size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        size_t at = line.find("KERNEL_PROFILE ");
        if (at == std::string_view::npos) continue;
        std::string_view rest = line.substr(at + 15);
        ProfileLine p;
        std::string_view launch = D4R_TRY(field(rest, "launch", what, line_no));
        std::string_view eligible = D4R_TRY(field(rest, "eligible", what, line_no));
        std::string_view ms = D4R_TRY(field(rest, "gpu_ms", what, line_no));
        std::string_view name = D4R_TRY(field(rest, "name", what, line_no));
        auto n = parse_u64(launch);
        if (!n) return make_error(ErrorCode::Invalid, "{}:{}: launch '{}' is not a number", what, line_no, launch);
        p.launch = *n;
        if (eligible != "0" && eligible != "1")
            return make_error(ErrorCode::Invalid, "{}:{}: eligible '{}' is not 0 or 1", what, line_no, eligible);
        p.eligible = eligible == "1";
        auto [ptr, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), p.gpu_ms);
        if (ec != std::errc() || ptr != ms.data() + ms.size())
            return make_error(ErrorCode::Invalid, "{}:{}: gpu_ms '{}' is not a number", what, line_no, ms);
        if (name.empty()) return make_error(ErrorCode::Invalid, "{}:{}: empty kernel name", what, line_no);
        p.name = std::string(name);
        out.push_back(std::move(p));
    }
    return out;
}

ProfileSummary summarise_profile(const std::vector<ProfileLine>& lines, std::string_view frame_start) {
    ProfileSummary s;
    std::map<std::string, std::vector<double>> times;
    std::map<std::string, KernelSummary> kernels;
    s.frame_start = frame_start.empty() && !lines.empty() ? lines.front().name : std::string(frame_start);
    bool in_frame = false;
    for (const ProfileLine& p : lines) {
        KernelSummary& k = kernels[p.name];
        k.name = p.name;
        k.launches++;
        k.eligible += p.eligible;
        s.launches++;
        if (p.name == s.frame_start) {
            s.frame_ms.push_back(0);
            in_frame = true;
        }
        if (p.gpu_ms < 0) {
            k.untimed++;
            continue;
        }
        times[p.name].push_back(p.gpu_ms);
        k.total_ms += p.gpu_ms;
        s.total_ms += p.gpu_ms;
        if (in_frame) s.frame_ms.back() += p.gpu_ms;
    }
    for (auto& [name, k] : kernels) {
        const auto& t = times[name];
        if (!t.empty()) {
            k.median_ms = median(t);
            k.min_ms = *std::min_element(t.begin(), t.end());
            k.max_ms = *std::max_element(t.begin(), t.end());
        }
        k.share = s.total_ms > 0 ? k.total_ms / s.total_ms : 0;
        s.kernels.push_back(k);
    }
    std::stable_sort(s.kernels.begin(), s.kernels.end(),
                     [](const KernelSummary& a, const KernelSummary& b) { return a.total_ms > b.total_ms; });
    if (!s.frame_ms.empty()) {
        s.frame_median_ms = median(s.frame_ms);
        s.frame_min_ms = *std::min_element(s.frame_ms.begin(), s.frame_ms.end());
        s.frame_max_ms = *std::max_element(s.frame_ms.begin(), s.frame_ms.end());
    }
    return s;
}

std::string format_profile_summary(const ProfileSummary& s) {
    size_t width = 6;
    for (const KernelSummary& k : s.kernels) width = std::max(width, std::min<size_t>(k.name.size(), 60));
    std::string out = fmt::format("{:<{}}  {:>8}  {:>8}  {:>10}  {:>10}  {:>10}  {:>11}  {:>6}\n", "kernel", width,
                                  "launches", "native", "median_ms", "min_ms", "max_ms", "total_ms", "share");
    for (const KernelSummary& k : s.kernels) {
        std::string name = k.name.size() > 60 ? k.name.substr(0, 57) + "..." : k.name;
        out += fmt::format("{:<{}}  {:>8}  {:>8}  {:>10.4f}  {:>10.4f}  {:>10.4f}  {:>11.4f}  {:>5.1f}%\n", name, width,
                           k.launches, k.eligible, k.median_ms, k.min_ms, k.max_ms, k.total_ms, 100 * k.share);
        if (k.untimed) out += fmt::format("  ({} launches of {} were not timed)\n", k.untimed, name);
    }
    out += fmt::format("total: {} launches, {:.4f} GPU ms\n", s.launches, s.total_ms);
    if (!s.frame_ms.empty())
        out += fmt::format("frames: {} (each starts at {}): median {:.4f} ms, min {:.4f} ms, max {:.4f} ms per frame\n",
                           s.frame_ms.size(), s.frame_start, s.frame_median_ms, s.frame_min_ms, s.frame_max_ms);
    return out;
}

} // namespace d4r::runtime
