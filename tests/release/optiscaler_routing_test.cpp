// The OptiScaler version decides the keys (src/release/optiscaler_routing.h): the version read from the DLL's
// version resource, the routing table per version, the removal of keys d4r wrote for another version (and only
// those), where nvngx_dlss.dll is found, the release's settings file, and OptiScaler's log.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/strings.h"
#include "optiscaler_test_util.h"
#include "release/optiscaler_ini.h"
#include "release/optiscaler_log.h"
#include "release/optiscaler_routing.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::TempDir;
namespace fs = std::filesystem;

const fs::path kFixtures = test::fixture_dir() / "optiscaler";

std::string version_ini(const std::string& v) {
    return read_file_text(kFixtures / "versions" / ("OptiScaler-" + v + ".ini"));
}
fs::path version_dll(const std::string& v) { return kFixtures / "dll" / ("optiscaler-" + v + ".dll"); }

TEST(OptiScalerVersion, ParsesFileVersions) {
    EXPECT_EQ(parse_optiscaler_version("0.9.4.3"), (OptiScalerVersion{0, 9, 4, 3}));
    EXPECT_EQ(parse_optiscaler_version("0.7.7"), (OptiScalerVersion{0, 7, 7, 0}));
    for (const char* bad : {"", "0.9", "0.9.x.1", "0.9.4.3.2", "0.9.4.", "v0.9.4", " 0.9.4"})
        EXPECT_FALSE(parse_optiscaler_version(bad).has_value()) << bad;
    EXPECT_LT(OptiScalerVersion({0, 9, 0, 10}), kLibrariesKeysFrom);
    EXPECT_GE(OptiScalerVersion({0, 9, 4, 0}), kLibrariesKeysFrom);
}

TEST(OptiScalerDll, ReadsTheVersionOfTheDllUnderAnyOfItsNames) {
    for (const std::string v : {"0.9.4.0", "0.9.0.0", "0.7.7.0"}) {
        for (const char* name : {"dxgi.dll", "winmm.dll", "OptiScaler.asi"}) {
            TempDir t;
            fs::copy_file(version_dll(v), t.path() / name);
            std::optional<OptiScalerDll> dll = find_optiscaler_dll(t.path());
            ASSERT_TRUE(dll.has_value()) << v << " " << name;
            EXPECT_EQ(dll->path.filename(), name);
            ASSERT_TRUE(dll->version.has_value()) << dll->why_unknown;
            EXPECT_EQ(dll->version->text(), v);
        }
    }
}

TEST(OptiScalerDll, AnotherDllIsNotOptiScalerAndAnUnreadableOneIsOfUnknownVersion) {
    TempDir t;
    t.write("d3d12.dll", "MZ vkd3d-proton, no version resource");
    EXPECT_FALSE(find_optiscaler_dll(t.path()).has_value());
    // dxgi.dll without a version resource is OptiScaler only beside an OptiScaler.ini.
    t.write("dxgi.dll", "MZ something");
    EXPECT_FALSE(find_optiscaler_dll(t.path()).has_value());
    t.write("OptiScaler.ini", "[Upscalers]\n");
    std::optional<OptiScalerDll> dll = find_optiscaler_dll(t.path());
    ASSERT_TRUE(dll.has_value());
    EXPECT_FALSE(dll->version.has_value());
    EXPECT_NE(dll->why_unknown.find("no version resource"), std::string::npos) << dll->why_unknown;
    // A real one under another name wins over the unknown dxgi.dll.
    fs::copy_file(version_dll("0.9.0.0"), t.path() / "version.dll");
    dll = find_optiscaler_dll(t.path());
    ASSERT_TRUE(dll && dll->version);
    EXPECT_EQ(dll->path.filename(), "version.dll");
}

TEST(OptiScalerRouting, EachVersionGetsTheKeysItReads) {
    auto keys = [](std::optional<OptiScalerVersion> v) {
        RoutingInputs in;
        in.version = v;
        in.shim = "Z:\\g\\d4r\\nvngx.dll";
        std::set<std::string> out;
        for (const IniSetting& s : routing_edit(in).set) out.insert(s.section + "/" + s.key + "=" + s.value);
        return out;
    };
    const std::set<std::string> v094 = keys(OptiScalerVersion{0, 9, 4, 0});
    EXPECT_TRUE(v094.count("Libraries/NvngxPath=Z:\\g\\d4r\\nvngx.dll"));
    EXPECT_FALSE(v094.count("DLSS/LibraryPath=Z:\\g\\d4r\\nvngx.dll"));
    EXPECT_TRUE(v094.count("FrameGen/Enabled=false") && v094.count("FrameGen/FGInput=nofg"));
    EXPECT_FALSE(v094.count("FrameGen/FGType=nofg"));
    for (const char* k : {"Upscalers/Dx12Upscaler=dlss", "DLSS/Enabled=true", "Inputs/EnableDlssInputs=true",
                          "Hooks/HookOriginalNvngxOnly=true", "NvApi/OverrideNvapiDll=false", "Spoofing/Dxgi=true"})
        EXPECT_TRUE(v094.count(k)) << k;
    EXPECT_EQ(keys(std::nullopt), v094); // unknown: the newest set

    const std::set<std::string> v090 = keys(OptiScalerVersion{0, 9, 0, 10});
    EXPECT_TRUE(v090.count("DLSS/LibraryPath=Z:\\g\\d4r\\nvngx.dll"));
    EXPECT_FALSE(v090.count("Libraries/NvngxPath=Z:\\g\\d4r\\nvngx.dll"));
    EXPECT_TRUE(v090.count("FrameGen/Enabled=false"));
    // [FrameGen] Enabled came back in 0.9.0.2.
    EXPECT_FALSE(keys(OptiScalerVersion{0, 9, 0, 0}).count("FrameGen/Enabled=false"));

    const std::set<std::string> v077 = keys(OptiScalerVersion{0, 7, 7, 0});
    EXPECT_TRUE(v077.count("FrameGen/FGType=nofg"));
    EXPECT_FALSE(v077.count("FrameGen/FGInput=nofg"));
    EXPECT_TRUE(v077.count("DLSS/LibraryPath=Z:\\g\\d4r\\nvngx.dll"));

    // No shim: no path key; a DLSS folder only when given.
    RoutingInputs none;
    none.dlss_folder = "Z:\\g\\Engine\\Binaries";
    bool path_key = false, dlss_key = false;
    for (const IniSetting& s : routing_edit(none).set) {
        path_key |= s.key == "NvngxPath" || s.key == "LibraryPath";
        dlss_key |= s.key == "NvngxDlssPath" && s.value == "Z:\\g\\Engine\\Binaries";
    }
    EXPECT_FALSE(path_key);
    EXPECT_TRUE(dlss_key);
}

TEST(OptiScalerRouting, TemplatesKeepEveryUserByteAndHoldOnlyTheKeysTheirVersionReads) {
    struct Case {
        std::string version, ini;
        std::vector<std::pair<std::string, std::string>> absent; // keys this version does not read
    };
    const Case cases[] = {
        {"0.9.4.0", "0.9.4", {{"DLSS", "LibraryPath"}, {"FrameGen", "FGType"}, {"DLSS", "NvngxPath"}}},
        {"0.9.0.0", "0.9.0", {{"Libraries", "NvngxPath"}, {"FrameGen", "FGType"}}},
        {"0.7.7.0", "0.7.7", {{"Libraries", "NvngxPath"}, {"FrameGen", "FGInput"}, {"FrameGen", "Enabled"}}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.version);
        const std::string original = version_ini(c.ini);
        RoutingInputs in;
        in.version = parse_optiscaler_version(c.version);
        in.shim = "Z:\\g\\d4r\\nvngx.dll";
        const RoutingEdit edit = routing_edit(in);
        const std::string routed = apply_routing(original, edit);
        for (const IniSetting& s : edit.set) EXPECT_EQ(ini_value(routed, s.section, s.key), s.value) << s.key;
        for (const auto& [section, key] : c.absent) EXPECT_FALSE(ini_value(routed, section, key)) << key;
        EXPECT_EQ(without_d4r_keys(routed), without_d4r_keys(original));
        // A key in its template's section is set in place: the line count grows only by keys the template lacks.
        EXPECT_TRUE(routed.find("; Menu scale (the user changed this one)") != std::string::npos);
        // Applying twice changes nothing.
        EXPECT_EQ(apply_routing(routed, edit), routed);
    }
    // Windows line endings stay Windows line endings.
    const std::string crlf = version_ini("0.9.0");
    RoutingInputs in;
    in.version = OptiScalerVersion{0, 9, 0, 0};
    in.shim = "Z:\\g\\d4r\\nvngx.dll";
    const std::string routed = apply_routing(crlf, routing_edit(in));
    EXPECT_NE(routed.find("LibraryPath=Z:\\g\\d4r\\nvngx.dll\r\n"), std::string::npos);
    EXPECT_EQ(std::count(routed.begin(), routed.end(), '\n'), std::count(routed.begin(), routed.end(), '\r'));
}

TEST(OptiScalerRouting, KeysD4rWroteForAnotherVersionGoAndTheUsersStay) {
    const std::string before =
        "[DLSS]\nEnabled=true\nLibraryPath=Z:\\games\\G\\d4r\\nvngx.dll\nNvngxPath=Z:\\g\\d4r_nvngx.dll\n"
        "[FrameGen]\nFGType=nofg\n[Libraries]\nNvngxPath=auto\n";
    RoutingInputs in;
    in.version = OptiScalerVersion{0, 9, 4, 0};
    in.shim = "Z:\\games\\G\\d4r\\nvngx.dll";
    const std::string after = apply_routing(before, routing_edit(in));
    EXPECT_FALSE(ini_value(after, "DLSS", "LibraryPath"));
    EXPECT_FALSE(ini_value(after, "DLSS", "NvngxPath"));
    EXPECT_FALSE(ini_value(after, "FrameGen", "FGType"));
    EXPECT_EQ(ini_value(after, "Libraries", "NvngxPath"), "Z:\\games\\G\\d4r\\nvngx.dll");

    // The user's own values of the same keys are not d4r's: they stay.
    const std::string mine = "[DLSS]\nLibraryPath=C:\\tools\\my_nvngx.dll\n[FrameGen]\nFGType=optifg\n";
    const std::string kept = apply_routing(mine, routing_edit(in));
    EXPECT_EQ(ini_value(kept, "DLSS", "LibraryPath"), "C:\\tools\\my_nvngx.dll");
    EXPECT_EQ(ini_value(kept, "FrameGen", "FGType"), "optifg");

    // Going back to an old OptiScaler takes d4r's [Libraries] NvngxPath out again.
    in.version = OptiScalerVersion{0, 7, 7, 0};
    const std::string old = apply_routing(after, routing_edit(in));
    EXPECT_FALSE(ini_value(old, "Libraries", "NvngxPath"));
    EXPECT_EQ(ini_value(old, "DLSS", "LibraryPath"), "Z:\\games\\G\\d4r\\nvngx.dll");
}

TEST(OptiScalerRouting, AProfileOverridesAValueOrAddsAKey) {
    RoutingInputs in;
    in.version = OptiScalerVersion{0, 9, 4, 0};
    in.overrides = {{"Spoofing", "Dxgi", "false"}, {"Hotfix", "Something", "1"}};
    const RoutingEdit edit = routing_edit(in);
    auto value = [&](std::string_view section, std::string_view key) -> std::string {
        for (const IniSetting& s : edit.set)
            if (s.section == section && s.key == key) return s.value;
        return "";
    };
    EXPECT_EQ(value("Spoofing", "Dxgi"), "false");
    EXPECT_EQ(value("Hotfix", "Something"), "1");
}

TEST(OptiScalerRouting, NamesD4rsShimAndPaths) {
    for (const char* yes : {"Z:\\g\\d4r\\nvngx.dll", "z:/g/D4R/NVNGX.DLL", "d4r\\nvngx.dll", "Z:\\g\\d4r_nvngx.dll",
                            "Z:\\g\\d4r\\d4r_nvngx.dll"})
        EXPECT_TRUE(names_d4r_shim(yes)) << yes;
    for (const char* no : {"Z:\\g\\nvngx.dll", "Z:\\g\\notd4r\\nvngx.dll", "Z:\\g\\d4r\\_nvngx.dll", "", "auto"})
        EXPECT_FALSE(names_d4r_shim(no)) << no;
    EXPECT_EQ(windows_path("/home/u/Game/d4r/nvngx.dll"), "Z:\\home\\u\\Game\\d4r\\nvngx.dll");
    EXPECT_EQ(unix_path_of("/g", "Z:\\x\\y.dll"), fs::path("/x/y.dll"));
    EXPECT_EQ(unix_path_of("/g", "d4r\\nvngx.dll"), fs::path("/g/d4r/nvngx.dll"));
    EXPECT_TRUE(unix_path_of("/g", "C:\\x.dll").empty());
}

TEST(OptiScalerRouting, FindsNvngxDlssWhereOptiScalerLooks) {
    TempDir t;
    const fs::path exe = t.mkdir("Game/MyGame/Binaries/Win64");
    EXPECT_FALSE(find_dlss_as_optiscaler(exe, ""));
    // Unreal keeps it under Engine/Plugins: outside OptiScaler's search, found by d4r for NvngxDlssPath.
    t.write("Game/Engine/Plugins/DLSS/Binaries/ThirdParty/Win64/nvngx_dlss.dll", "dlss");
    EXPECT_FALSE(find_dlss_as_optiscaler(exe, ""));
    std::optional<fs::path> game = find_game_dlss(exe);
    ASSERT_TRUE(game.has_value());
    EXPECT_EQ(game->parent_path(), t.path() / "Game/Engine/Plugins/DLSS/Binaries/ThirdParty/Win64");
    // [Libraries] NvngxDlssPath naming that folder, as d4r writes it.
    const std::string ini = "[Libraries]\nNvngxDlssPath=" + windows_path(game->parent_path()) + "\n";
    EXPECT_EQ(find_dlss_as_optiscaler(exe, ini), game);
    // Beside the exe (any case) or below it.
    t.write("Game/MyGame/Binaries/Win64/sub/NVNGX_DLSS.DLL", "dlss");
    EXPECT_EQ(find_dlss_as_optiscaler(exe, ""), exe / "sub/NVNGX_DLSS.DLL");
}

TEST(OptiScalerRouting, TheReleasesSettingsFileIsTheTableFor094) {
    const std::string file = read_file_text(test::source_dir() / "packaging/OptiScaler-d4r.ini");
    RoutingInputs in;
    in.version = OptiScalerVersion{0, 9, 4, 0};
    in.shim = "d4r\\nvngx.dll";
    std::vector<IniSetting> want = routing_edit(in).set;
    std::vector<IniSetting> have = ini_settings_in(file);
    auto key = [](const IniSetting& s) { return to_lower(s.section + "/" + s.key) + "=" + s.value; };
    std::set<std::string> w, h;
    for (const IniSetting& s : want) w.insert(key(s));
    for (const IniSetting& s : have) h.insert(key(s));
    EXPECT_EQ(h, w);
    EXPECT_EQ(have.size(), h.size()); // no key twice
}

TEST(OptiScalerLog, ReadsTheLinesD4rCaresAbout) {
    OptiScalerLogFindings f = read_optiscaler_log(read_file_text(kFixtures / "logs/routed.log"));
    EXPECT_EQ(f.nvidia, true);
    EXPECT_FALSE(f.dlss_missing);
    EXPECT_EQ(f.core, "Z:\\games\\Game\\Binaries\\Win64\\d4r\\nvngx.dll");
    EXPECT_TRUE(f.nvidia_line.starts_with("[18:21:07.106012] [I] Running on Nvidia")) << f.nvidia_line;

    f = read_optiscaler_log(read_file_text(kFixtures / "logs/not-nvidia.log"));
    EXPECT_EQ(f.nvidia, false);
    EXPECT_FALSE(f.core);

    f = read_optiscaler_log(read_file_text(kFixtures / "logs/dlss-missing.log"));
    EXPECT_EQ(f.nvidia, true);
    EXPECT_TRUE(f.dlss_missing);
    EXPECT_FALSE(f.dlss_line.ends_with("\r")) << f.dlss_line;

    f = read_optiscaler_log(read_file_text(kFixtures / "logs/other-core.log"));
    ASSERT_TRUE(f.core);
    EXPECT_FALSE(names_d4r_shim(*f.core));

    f = read_optiscaler_log("");
    EXPECT_FALSE(f.nvidia || f.dlss_missing || f.core);
}

TEST(OptiScalerLog, FindsTheNewestLogOfTheFolder) {
    TempDir t;
    EXPECT_FALSE(find_optiscaler_log(t.path(), ""));
    t.write("OptiScaler_100.log", "old");
    t.write("Other.log", "not OptiScaler's");
    t.write("OptiScaler_.log", "not a tick suffix");
    fs::last_write_time(t.path() / "OptiScaler_100.log", fs::file_time_type::clock::now() - std::chrono::hours(1));
    t.write("OptiScaler_200.log", "new");
    EXPECT_EQ(find_optiscaler_log(t.path(), ""), t.path() / "OptiScaler_200.log");
    t.write("logs/my.log", "named");
    EXPECT_EQ(find_optiscaler_log(t.path(), "[Log]\nLogFileName=logs\\my.log\n"), t.path() / "logs/my.log");
}

} // namespace
} // namespace d4r::release
