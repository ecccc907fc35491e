// NVRTC options aimed at PTX (arch_option.h).
#include "companions/nvrtc/arch_option.h"

#include <string_view>

namespace d4r::companion {

namespace {

// "sm_90" -> "compute_90"; anything else unchanged. CHANGED says whether it was.
std::string virtual_arch(std::string_view value, bool& changed) {
    if (value.starts_with("sm_")) {
        changed = true;
        return "compute_" + std::string(value.substr(3));
    }
    return std::string(value);
}

} // namespace

std::optional<std::vector<std::string>> ptx_twin_options(const std::vector<std::string>& options) {
    std::vector<std::string> out;
    out.reserve(options.size());
    bool changed = false;
    for (size_t i = 0; i < options.size(); ++i) {
        std::string_view o = options[i];
        bool matched = false;
        for (std::string_view flag : {"--gpu-architecture", "-arch"}) {
            if (o == flag && i + 1 < options.size()) {
                out.emplace_back(o);
                out.push_back(virtual_arch(options[++i], changed));
                matched = true;
                break;
            }
            if (o.starts_with(flag) && o.size() > flag.size() && o[flag.size()] == '=') {
                out.push_back(std::string(flag) + "=" + virtual_arch(o.substr(flag.size() + 1), changed));
                matched = true;
                break;
            }
        }
        if (!matched) out.emplace_back(o);
    }
    if (!changed) return std::nullopt;
    return out;
}

} // namespace d4r::companion
