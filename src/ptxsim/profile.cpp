#include "ptxsim/profile.h"

#include <algorithm>
#include <map>
#include <string_view>

#include <fmt/format.h>

namespace d4r::ptxsim {

void add_pc_counts(std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (size_t pc = 0; pc < from.size(); ++pc) into[pc] += from[pc];
}

std::string profile_text(const Program& program, const std::vector<uint64_t>& pc_counts) {
    struct Line {
        uint64_t count = 0;
        std::string_view text;
    };
    std::map<uint32_t, Line> lines; // by PTX line
    const size_t n = std::min(pc_counts.size(), program.sources.size());
    for (size_t pc = 0; pc < n; ++pc) {
        if (pc_counts[pc] == 0) continue;
        Line& l = lines[program.sources[pc].line];
        l.count += pc_counts[pc];
        if (l.text.empty()) l.text = program.sources[pc].text;
    }
    std::vector<std::pair<uint32_t, Line>> order(lines.begin(), lines.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
    std::string out;
    for (const auto& [line, l] : order) out += fmt::format("{} {} {}\n", l.count, line, l.text);
    return out;
}

} // namespace d4r::ptxsim
