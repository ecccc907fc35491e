// d4r release: which folder of a game holds the game's exe.
#include "game_layout.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/log.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Folders never searched: d4r's own and redistributable / anti-cheat folders.
bool is_skipped_folder(const std::string& name) {
    static const char* const kSkipped[] = {
        "d4r",     "d4r-backup",    "_commonredist", "redist",      "redistributables",
        "directx", "easyanticheat", "battleye",      "__installer", "support"};
    const std::string n = lower(name);
    return std::any_of(std::begin(kSkipped), std::end(kSkipped), [&](const char* s) { return n == s; });
}

struct Exe {
    fs::path relative; // to the game folder
    uint64_t size = 0;
};

std::string describe(const fs::path& folder_rel, const Exe& exe) {
    return fmt::format("{} ({}, {:.1f} MiB)", folder_rel.empty() ? "the game folder" : folder_rel.string(),
                       exe.relative.filename().string(), double(exe.size) / (1024.0 * 1024.0));
}

} // namespace

bool is_helper_exe(const fs::path& relative) {
    static const char* const kHelpers[] = {"crashreport", "crashhandler", "crashpad",  "unins",   "setup",
                                           "vc_redist",   "vcredist",     "dxsetup",   "prereq",  "easyanticheat",
                                           "battleye",    "dotnet",       "uninstall", "cleanup", "installer"};
    const std::string name = lower(relative.filename().string());
    return std::any_of(std::begin(kHelpers), std::end(kHelpers),
                       [&](const char* h) { return name.find(h) != std::string::npos; });
}

Expected<ExeFolderChoice> find_exe_folder(const fs::path& game_dir_in) {
    std::error_code ec;
    if (!fs::is_directory(game_dir_in, ec))
        return make_error(ErrorCode::NotFound, "{}: not a folder (give the game's install folder)",
                          game_dir_in.string());
    fs::path game_dir = fs::absolute(game_dir_in, ec).lexically_normal();
    if (!game_dir.has_filename()) game_dir = game_dir.parent_path(); // "Game/" -> "Game"

    std::vector<Exe> exes;
    auto it = fs::recursive_directory_iterator(game_dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::directory_entry& e = *it;
        std::error_code e2;
        if (e.is_directory(e2)) {
            if (e.is_symlink(e2) || is_skipped_folder(e.path().filename().string()) ||
                it.depth() + 1 >= kMaxSearchDepth)
                it.disable_recursion_pending();
            continue;
        }
        if (!e.is_regular_file(e2) || !ends_with(lower(e.path().filename().string()), ".exe")) continue;
        const fs::path rel = e.path().lexically_relative(game_dir);
        if (is_helper_exe(rel)) {
            log::debug("install: skipping helper program {}", rel.string());
            continue;
        }
        exes.push_back({rel, e.file_size(e2)});
    }
    if (ec) return make_error(ErrorCode::Io, "{}: cannot list the folder: {}", game_dir.string(), ec.message());
    if (exes.empty())
        return make_error(ErrorCode::NotFound,
                          "{}: no game .exe found (searched {} levels; helper programs such as crash reporters and "
                          "installers are ignored): give the folder that holds the game's .exe",
                          game_dir.string(), kMaxSearchDepth);

    // Largest exe per folder (ties: the first name in order).
    std::sort(exes.begin(), exes.end(), [](const Exe& a, const Exe& b) { return a.relative < b.relative; });
    std::map<fs::path, Exe> largest;
    for (const Exe& x : exes) {
        auto [pos, inserted] = largest.try_emplace(x.relative.parent_path(), x);
        if (!inserted && x.size > pos->second.size) pos->second = x;
    }
    auto choose = [&](const fs::path& rel, std::string reason) {
        return ExeFolderChoice{rel.empty() ? game_dir : (game_dir / rel).lexically_normal(),
                               largest.at(rel).relative.filename().string(), std::move(reason)};
    };

    // 1. Unreal Engine: <Project>/Binaries/Win64 with <Project> other than Engine.
    std::vector<fs::path> unreal;
    for (const auto& [folder, exe] : largest) {
        const fs::path win64 = folder.filename(), binaries = folder.parent_path().filename();
        const fs::path project = folder.parent_path().parent_path();
        if (lower(win64.string()) == "win64" && lower(binaries.string()) == "binaries" && !project.empty() &&
            lower(project.filename().string()) != "engine")
            unreal.push_back(folder);
    }
    if (unreal.size() > 1) {
        std::vector<fs::path> shipping;
        for (const fs::path& f : unreal)
            for (const Exe& x : exes)
                if (x.relative.parent_path() == f &&
                    ends_with(lower(x.relative.filename().string()), "-shipping.exe")) {
                    shipping.push_back(f);
                    break;
                }
        if (shipping.size() == 1)
            return choose(shipping[0], fmt::format("Unreal Engine layout: {} is the only <Project>/Binaries/Win64 "
                                                   "holding a *-Shipping.exe",
                                                   shipping[0].string()));
    }
    if (unreal.size() == 1) {
        std::string others;
        for (const auto& [folder, exe] : largest)
            if (folder != unreal[0]) others += (others.empty() ? "" : ", ") + describe(folder, exe);
        return choose(unreal[0], fmt::format("Unreal Engine layout: the game's exe lives in <Project>/Binaries/Win64{}",
                                             others.empty() ? "" : fmt::format(" (not used: {})", others)));
    }
    if (unreal.empty()) {
        // 2. An exe directly in the game folder.
        if (largest.count(fs::path())) return choose(fs::path(), "the game folder itself holds an .exe");
        // 3. Only one folder.
        if (largest.size() == 1) return choose(largest.begin()->first, "the only folder holding an .exe");
        // 4. A clearly largest exe.
        std::vector<std::pair<fs::path, Exe>> by_size(largest.begin(), largest.end());
        std::stable_sort(by_size.begin(), by_size.end(),
                         [](const auto& a, const auto& b) { return a.second.size > b.second.size; });
        if (by_size[0].second.size > 2 * by_size[1].second.size)
            return choose(
                by_size[0].first,
                fmt::format("its {} is more than twice as large as any other folder's largest .exe (next: {})",
                            by_size[0].second.relative.filename().string(),
                            describe(by_size[1].first, by_size[1].second)));
    }
    std::string list;
    const std::vector<fs::path> candidates = unreal.empty() ? [&] {
        std::vector<fs::path> v;
        for (const auto& [f, e] : largest) v.push_back(f);
        return v;
    }()
                                                            : unreal;
    for (const fs::path& f : candidates) list += "\n  " + describe(f, largest.at(f));
    return make_error(ErrorCode::Invalid,
                      "{}: cannot tell which folder holds the game's exe; candidates:{}\ngive the folder that holds "
                      "the game's exe instead (e.g. d4r install \"{}\")",
                      game_dir.string(), list, (game_dir / candidates.front()).string());
}

} // namespace d4r::release
