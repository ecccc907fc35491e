// The launcher's pieces without running a game: INI edits that keep everything else, the cvars
// syntax, the restore journal, and the wineserver check against a stand-in socket.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "core/env.h"
#include "release/optiscaler_ini.h"
#include "release/optiscaler_keys.h"
#include "release/restore_journal.h"
#include "release/wineserver.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::TempDir;

const std::vector<IniSetting> kRouting = {
    optiscaler_setting(kDx12Upscaler, "dlss"),
    optiscaler_setting(kHookOriginalNvngxOnly, "true"),
    optiscaler_setting(kLogLevel, "2"),
};

TEST(PlayIni, ReplacesKeysWhereTheyAreAndKeepsEverythingElse) {
    const std::string before = "; OptiScaler config\n[Upscalers]\n; the D3D12 upscaler\nDx12Upscaler=auto\n"
                               "Dx11Upscaler=fsr22\n\n[Hooks]\nHookOriginalNvngxOnly=false\n[Log]\nLogLevel = 4\n";
    const std::string after = apply_ini_settings(before, kRouting);
    EXPECT_EQ(after, "; OptiScaler config\n[Upscalers]\n; the D3D12 upscaler\nDx12Upscaler=dlss\n"
                     "Dx11Upscaler=fsr22\n\n[Hooks]\nHookOriginalNvngxOnly=true\n[Log]\nLogLevel = 2\n");
    EXPECT_TRUE(ini_settings_hold(after, kRouting));
    EXPECT_FALSE(ini_settings_hold(before, kRouting));
    // Applying twice changes nothing more.
    EXPECT_EQ(apply_ini_settings(after, kRouting), after);
}

TEST(PlayIni, ASemicolonAfterAValueIsPartOfTheValueAsOptiScalerReadsIt) {
    // SimpleIni, which OptiScaler reads its ini with, has no comments after a value.
    const std::string before = "[Upscalers]\nDx12Upscaler=dlss ; the D3D12 upscaler\n";
    EXPECT_EQ(ini_value(before, "Upscalers", "Dx12Upscaler"), "dlss ; the D3D12 upscaler");
    EXPECT_FALSE(ini_settings_hold(before, {kRouting[0]}));
    EXPECT_EQ(apply_ini_settings(before, {kRouting[0]}), "[Upscalers]\nDx12Upscaler=dlss\n");
}

TEST(PlayIni, AKeyInItsOwnSectionLeavesTheSameNameElsewhereAlone) {
    const std::string before = "[FrameGen]\nLogLevel=0\n[Log]\nLogLevel=4\n";
    const std::vector<IniSetting> level = {{"Log", "LogLevel", "2"}};
    EXPECT_EQ(apply_ini_settings(before, level), "[FrameGen]\nLogLevel=0\n[Log]\nLogLevel=2\n");
    EXPECT_TRUE(ini_settings_hold("[FrameGen]\nLogLevel=0\n[Log]\nLogLevel=2\n", level));
    EXPECT_FALSE(ini_settings_hold(before, level));
    // A key only in another section is another key: [XeSS] LibraryPath is not [DLSS] LibraryPath.
    const std::vector<IniSetting> library = {optiscaler_setting(kDlssLibraryPath, "Z:\\g\\d4r\\nvngx.dll")};
    EXPECT_EQ(apply_ini_settings("[XeSS]\nLibraryPath=auto\n", library),
              "[XeSS]\nLibraryPath=auto\n\n[DLSS]\nLibraryPath=Z:\\g\\d4r\\nvngx.dll\n");
    EXPECT_FALSE(ini_settings_hold("[XeSS]\nLibraryPath=Z:\\g\\d4r\\nvngx.dll\n", library));
    EXPECT_EQ(ini_value("[XeSS]\nLibraryPath=x\n", "DLSS", "LibraryPath"), std::nullopt);
}

TEST(PlayIni, AddsMissingKeysAfterTheLastKeyOfTheirSectionOrInANewOne) {
    const std::string before = "[Upscalers]\r\nDx11Upscaler=fsr22\r\n\r\n[Other]\r\nA=1";
    const std::string after = apply_ini_settings(before, kRouting);
    EXPECT_EQ(after, "[Upscalers]\r\nDx11Upscaler=fsr22\r\nDx12Upscaler=dlss\r\n\r\n[Other]\r\nA=1\r\n\r\n[Hooks]\r\n"
                     "HookOriginalNvngxOnly=true\r\n\r\n[Log]\r\nLogLevel=2\r\n");
    EXPECT_TRUE(ini_settings_hold(after, kRouting));
    EXPECT_EQ(apply_ini_settings("", {{"SystemSettings", "r.A", "1"}}), "[SystemSettings]\nr.A=1\n");
    // The banner comment before the next section stays with that section; an empty section gets the key
    // right after its header.
    EXPECT_EQ(apply_ini_settings("[Upscalers]\n; one\nDx11Upscaler=auto\n\n\n; ----\n[Hooks]\n; ----\n", kRouting),
              "[Upscalers]\n; one\nDx11Upscaler=auto\nDx12Upscaler=dlss\n\n\n; ----\n[Hooks]\n"
              "HookOriginalNvngxOnly=true\n; ----\n\n[Log]\nLogLevel=2\n");
}

TEST(PlayIni, RepeatedSectionsAndKeysAreReadAsOptiScalerReadsThem) {
    // Section and key names without case; a section may come back; the last line of a key wins.
    const std::string before = "\xEF\xBB\xBF[upscalers]\ndx12upscaler=xess\n[Log]\nLogLevel=1\n[UPSCALERS]\n"
                               "Dx12Upscaler = fsr31\n";
    EXPECT_EQ(ini_value(before, "Upscalers", "Dx12Upscaler"), "fsr31");
    EXPECT_EQ(ini_value(before, "Log", "LogLevel"), "1");
    EXPECT_EQ(ini_value(before, "Log", "LogFile"), std::nullopt);
    const std::string after = apply_ini_settings(before, {kRouting[0], kRouting[2]});
    // The byte-order mark stays; every line of the key gets the value.
    EXPECT_EQ(after, "\xEF\xBB\xBF[upscalers]\ndx12upscaler=dlss\n[Log]\nLogLevel=2\n[UPSCALERS]\n"
                     "Dx12Upscaler = dlss\n");
    EXPECT_TRUE(ini_settings_hold(after, {kRouting[0], kRouting[2]}));
    EXPECT_FALSE(ini_settings_hold("[Upscalers]\nDx12Upscaler=dlss\n[Upscalers]\nDx12Upscaler=xess\n", {kRouting[0]}));
}

// The keys `d4r play` writes, as it writes them with a shim, the overlay off and two quality ratios.
const std::vector<IniSetting> kAllKeys = {
    optiscaler_setting(kDlssLibraryPath, "Z:\\games\\My Game\\d4r\\nvngx.dll"),
    optiscaler_setting(kDx12Upscaler, "dlss"),
    optiscaler_setting(kHookOriginalNvngxOnly, "true"),
    optiscaler_setting(kShowFps, "false"),
    optiscaler_setting(kLogLevel, "2"),
    optiscaler_setting(kQualityRatioOverrideEnabled, "true"),
    {kQualityOverridesSection, "QualityRatioQuality", "1.5"},
    {kQualityOverridesSection, "QualityRatioPerformance", "2.0"},
};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// TEXT as OptiScaler's "Save INI" writes it back (SimpleIni on Windows): "KEY = VALUE", CRLF line endings.
std::string as_saved(const std::string& text) {
    std::string out;
    for (const std::string& l : lines_of(text)) {
        size_t eq = l.find('=');
        const bool key = eq != std::string::npos && !l.empty() && l[0] != ';' && l[0] != '[';
        out += (key ? l.substr(0, eq) + " = " + l.substr(eq + 1) : l) + "\r\n";
    }
    return out;
}

TEST(PlayIni, OptiScalersOwnLayoutKeepsEveryOtherLineAndGetsExactlyD4rsKeys) {
    const std::string before = read_file_text(test::fixture_dir() / "optiscaler/OptiScaler.ini");
    ASSERT_NE(before.find("[QualityOverrides]"), std::string::npos) << "fixture missing";
    const std::string after = apply_ini_settings(before, kAllKeys);
    const std::vector<std::string> old_lines = lines_of(before), new_lines = lines_of(after);
    // Every key is in the template already: no line is added or removed, only d4r's lines change.
    ASSERT_EQ(new_lines.size(), old_lines.size());
    size_t changed = 0;
    for (size_t i = 0; i < old_lines.size(); ++i) {
        if (old_lines[i] == new_lines[i]) continue;
        ++changed;
        bool expected = false;
        for (const IniSetting& s : kAllKeys)
            expected |= old_lines[i] == s.key + "=auto" && new_lines[i] == s.key + "=" + s.value;
        EXPECT_TRUE(expected) << "line " << i + 1 << ": '" << old_lines[i] << "' became '" << new_lines[i] << "'";
    }
    EXPECT_EQ(changed, kAllKeys.size());
    for (const IniSetting& s : kAllKeys) EXPECT_EQ(ini_value(after, s.section, s.key), s.value) << s.key;
    // Keys of the same name in other sections keep OptiScaler's default.
    EXPECT_EQ(ini_value(after, "XeSS", "LibraryPath"), "auto");
    EXPECT_EQ(ini_value(after, "FrameGen", "Enabled"), "auto");
    EXPECT_EQ(ini_value(after, "DLSS", "Enabled"), "auto");
    EXPECT_TRUE(ini_settings_hold(after, kAllKeys));
    EXPECT_FALSE(ini_settings_hold(before, kAllKeys));
    EXPECT_EQ(apply_ini_settings(after, kAllKeys), after);
}

TEST(PlayIni, ReappliedAfterSaveIniKeepsOptiScalersRewriteAndTheUsersOtherChoices) {
    // After "Save INI": spaces around '=', CRLF, the user's menu choices, and a key OptiScaler does not know.
    std::string saved = as_saved(read_file_text(test::fixture_dir() / "optiscaler/OptiScaler.ini"));
    auto set = [&](const std::string& from, const std::string& to) {
        size_t at = saved.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        saved.replace(at, from.size(), to);
    };
    set("Dx12Upscaler = auto", "Dx12Upscaler = fsr31");
    set("FpsScale = auto", "FpsScale = 1.500000");
    set("LibraryPath = auto\r\n\r\n; A folder", "LibraryPath = auto\r\nMyOwnKey = kept\r\n\r\n; A folder");
    const std::string after = apply_ini_settings(saved, kAllKeys);
    std::string expected = saved;
    for (const IniSetting& s : kAllKeys) {
        // The key's line in its section: the only one of that name after the section's header.
        size_t header = expected.find("[" + s.section + "]");
        ASSERT_NE(header, std::string::npos) << s.section;
        size_t at = expected.find("\r\n" + s.key + " = ", header);
        ASSERT_NE(at, std::string::npos) << s.key;
        at += 2 + s.key.size() + 3;
        expected.replace(at, expected.find("\r\n", at) - at, s.value);
    }
    EXPECT_EQ(after, expected);
    EXPECT_NE(after.find("Dx12Upscaler = dlss\r\n"), std::string::npos);
    EXPECT_NE(after.find("FpsScale = 1.500000\r\n"), std::string::npos);
    EXPECT_EQ(ini_value(after, "DLSS", "MyOwnKey"), "kept");
    EXPECT_TRUE(ini_settings_hold(after, kAllKeys));
}

TEST(PlayIni, CvarsParseAndBadOnesAreNamed) {
    auto ok = parse_cvars(" r.A=1; r.B = 2 ,r.C=x;");
    ASSERT_TRUE(ok) << ok.error().text();
    ASSERT_EQ(ok->size(), 3u);
    EXPECT_EQ((*ok)[1], (IniSetting{"SystemSettings", "r.B", "2"}));
    EXPECT_EQ((*ok)[2].value, "x");
    auto bad = parse_cvars("r.A=1; r.Broken");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().text().find("'r.Broken'"), std::string::npos) << bad.error().text();
    EXPECT_NE(bad.error().text().find("[Game] Cvars"), std::string::npos);
}

TEST(PlayJournal, BacksUpRestoresAndRemovesWhatItCreated) {
    TempDir t;
    const fs::path kept = t.write("game/OptiScaler.ini", "original\n");
    const fs::path created = t.path() / "game/Engine.ini";
    const fs::path foreign = t.path() / "pfx/d3d12.dll";
    const fs::path dir = t.path() / "restore";
    auto j = begin_journal(dir, "/some/prefix", "game",
                           {{kept.string(), "OptiScaler.ini", false, true, {}, {}},
                            {created.string(), "Engine.ini", false, true, {}, {}},
                            {foreign.string(), "prefix d3d12.dll", false, false, {}, {}}});
    ASSERT_TRUE(j) << j.error().text();
    EXPECT_EQ(j->key, journal_key("/some/prefix"));
    EXPECT_TRUE(journal_owner_alive(*j));
    const fs::path path = journal_path(dir, j->key);
    ASSERT_TRUE(fs::exists(path));

    t.write("game/OptiScaler.ini", "changed\n");
    t.write("game/Engine.ini", "[SystemSettings]\n");
    t.write("pfx/d3d12.dll", "proton's\n");
    std::vector<std::string> said;
    auto s = restore_journal(path, [&](std::string_view l) { said.emplace_back(l); });
    ASSERT_TRUE(s) << s.error().text();
    EXPECT_EQ(read_file_text(kept), "original\n");
    EXPECT_FALSE(fs::exists(created));
    EXPECT_TRUE(fs::exists(foreign)); // not d4r's to remove
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(fs::exists(dir / j->key));
    EXPECT_EQ(said.size(), 2u);
}

TEST(PlayJournal, MalformedJournalIsNamed) {
    TempDir t;
    const fs::path p = t.write("r/abc.json", "{\"format\": \"d4r-restore-journal 1\", \"key\": 1}");
    auto j = read_journal(p);
    ASSERT_FALSE(j);
    EXPECT_NE(j.error().text().find(p.string()), std::string::npos) << j.error().text();
}

// A stand-in wineserver: a listening unix socket where Wine puts the server's.
class StandInServer {
public:
    StandInServer(const fs::path& socket, bool listening) {
        fs::create_directories(socket.parent_path());
        m_fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, socket.c_str(), sizeof(addr.sun_path) - 1);
        EXPECT_EQ(::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << std::strerror(errno);
        if (listening) {
            EXPECT_EQ(::listen(m_fd, 4), 0);
        }
    }
    ~StandInServer() { ::close(m_fd); }

private:
    int m_fd = -1;
};

TEST(PlayWineserver, SocketOfThePrefixIsFoundWithItsPid) {
    TempDir t;
    const fs::path prefix = t.mkdir("pfx");
    auto path = wineserver_socket_path(prefix, t.path());
    ASSERT_TRUE(path) << path.error().text();
    struct stat st{};
    ASSERT_EQ(::stat(prefix.c_str(), &st), 0);
    char expected[128];
    std::snprintf(expected, sizeof(expected), ".wine-%u/server-%llx-%llx/socket", ::getuid(),
                  static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino));
    EXPECT_EQ(*path, t.path() / expected);

    EXPECT_FALSE(find_wineserver(prefix, t.path()));
    {
        StandInServer server(*path, true);
        auto found = find_wineserver(prefix, t.path());
        ASSERT_TRUE(found);
        EXPECT_EQ(found->pid, ::getpid());
        EXPECT_EQ(found->socket, path->string());
        // Another prefix has another socket.
        EXPECT_FALSE(find_wineserver(t.mkdir("other"), t.path()));
    }
    fs::remove(*path);
    // A socket left by a crashed server (nobody listens) is not a running server.
    StandInServer stale(*path, false);
    EXPECT_FALSE(find_wineserver(prefix, t.path()));
}

} // namespace
} // namespace d4r::release
