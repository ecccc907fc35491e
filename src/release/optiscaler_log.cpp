// d4r release: what OptiScaler's own log says about its DLSS backend (optiscaler_log.h).
#include "optiscaler_log.h"

#include <algorithm>

#include "core/strings.h"
#include "optiscaler_ini.h"
#include "optiscaler_routing.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

// The message of a log line: after "[time] [L] ", else the whole line.
std::string_view message_of(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("[")) {
        size_t first = line.find("] [");
        if (first != std::string_view::npos) {
            size_t second = line.find("] ", first + 3);
            if (second != std::string_view::npos) return line.substr(second + 2);
        }
    }
    return line;
}

} // namespace

OptiScalerLogFindings read_optiscaler_log(std::string_view text) {
    OptiScalerLogFindings f;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        const std::string_view msg = message_of(line);
        std::string trimmed(line);
        if (!trimmed.empty() && trimmed.back() == '\r') trimmed.pop_back();
        if (msg.find("Not running on Nvidia") != std::string_view::npos) {
            f.nvidia = false;
            f.nvidia_line = trimmed;
        } else if (msg.find("Running on Nvidia") != std::string_view::npos) {
            f.nvidia = true;
            f.nvidia_line = trimmed;
        }
        if (msg.find("nvngx_dlss.dll not found") != std::string_view::npos) {
            f.dlss_missing = true;
            f.dlss_line = trimmed;
        }
        // "NVNGXProxy::InitNVNGX _nvngx.dll loaded from Z:\...\d4r\nvngx.dll, ptr: 7FFA12340000"
        if (size_t at = msg.find("nvngx.dll loaded from "); at != std::string_view::npos) {
            std::string_view path = msg.substr(at + std::string_view("nvngx.dll loaded from ").size());
            if (size_t comma = path.find(", ptr:"); comma != std::string_view::npos) path = path.substr(0, comma);
            f.core = std::string(path);
            f.core_line = trimmed;
        }
    }
    return f;
}

std::optional<fs::path> find_optiscaler_log(const fs::path& folder, std::string_view ini_text) {
    std::string stem = "OptiScaler";
    fs::path dir = folder;
    if (auto v = ini_value(ini_text, "Log", "LogFileName"); v && !v->empty() && *v != "auto") {
        const fs::path named = unix_path_of(folder, *v);
        if (!named.empty()) {
            stem = named.stem().string();
            dir = named.parent_path();
        }
    }
    std::optional<fs::path> best;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const std::string lname = to_lower(name), lstem = to_lower(stem);
        if (!lname.ends_with(".log")) continue;
        const std::string base = lname.substr(0, lname.size() - 4);
        if (base != lstem && !(base.size() > lstem.size() + 1 && base.starts_with(lstem + "_") &&
                               std::all_of(base.begin() + long(lstem.size()) + 1, base.end(),
                                           [](char c) { return c >= '0' && c <= '9'; })))
            continue;
        std::error_code e2;
        const auto t = fs::last_write_time(it->path(), e2);
        if (e2) continue;
        if (!best || t > best_time || (t == best_time && it->path() > *best)) {
            best = it->path();
            best_time = t;
        }
    }
    return best;
}

} // namespace d4r::release
