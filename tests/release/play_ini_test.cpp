// The launcher's pieces without running a game: INI edits that keep everything else, the cvars
// syntax, the restore journal, and the wineserver check against a stand-in socket.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "core/env.h"
#include "release/optiscaler_ini.h"
#include "release/restore_journal.h"
#include "release/wineserver.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::TempDir;

const std::vector<IniSetting> kRouting = {
    {"Upscalers", "Dx12Upscaler", "dlss"},
    {"DLSS", "HookOriginalNvngxOnly", "true"},
    {"Log", "LogLevel", "2"},
};

TEST(PlayIni, ReplacesKeysWhereTheyAreAndKeepsEverythingElse) {
    const std::string before = "; OptiScaler config\n[Upscalers]\n; the D3D12 upscaler\nDx12Upscaler=auto ; xess, "
                               "fsr\nDx11Upscaler=fsr22\n\n[Hooks]\nHookOriginalNvngxOnly=false\n[Log]\nLogLevel = 4\n";
    const std::string after = apply_ini_settings(before, kRouting);
    EXPECT_EQ(after, "; OptiScaler config\n[Upscalers]\n; the D3D12 upscaler\nDx12Upscaler=dlss ; xess, "
                     "fsr\nDx11Upscaler=fsr22\n\n[Hooks]\nHookOriginalNvngxOnly=true\n[Log]\nLogLevel = 2\n");
    EXPECT_TRUE(ini_settings_hold(after, kRouting));
    EXPECT_FALSE(ini_settings_hold(before, kRouting));
    // Applying twice changes nothing more.
    EXPECT_EQ(apply_ini_settings(after, kRouting), after);
}

TEST(PlayIni, AKeyInItsOwnSectionLeavesTheSameNameElsewhereAlone) {
    const std::string before = "[FrameGen]\nLogLevel=0\n[Log]\nLogLevel=4\n";
    const std::vector<IniSetting> level = {{"Log", "LogLevel", "2"}};
    EXPECT_EQ(apply_ini_settings(before, level), "[FrameGen]\nLogLevel=0\n[Log]\nLogLevel=2\n");
    EXPECT_TRUE(ini_settings_hold("[FrameGen]\nLogLevel=0\n[Log]\nLogLevel=2\n", level));
    EXPECT_FALSE(ini_settings_hold(before, level));
}

TEST(PlayIni, AddsMissingKeysToTheirSectionOrANewOne) {
    const std::string before = "[Upscalers]\r\nDx11Upscaler=fsr22\r\n\r\n[Other]\r\nA=1";
    const std::string after = apply_ini_settings(before, kRouting);
    EXPECT_EQ(after, "[Upscalers]\r\nDx11Upscaler=fsr22\r\nDx12Upscaler=dlss\r\n\r\n[Other]\r\nA=1\r\n\r\n[DLSS]\r\n"
                     "HookOriginalNvngxOnly=true\r\n\r\n[Log]\r\nLogLevel=2\r\n");
    EXPECT_TRUE(ini_settings_hold(after, kRouting));
    EXPECT_EQ(apply_ini_settings("", {{"SystemSettings", "r.A", "1"}}), "[SystemSettings]\nr.A=1\n");
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
                           {{kept.string(), "OptiScaler.ini"},
                            {created.string(), "Engine.ini"},
                            {foreign.string(), "prefix d3d12.dll", false, false}});
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
        if (listening) EXPECT_EQ(::listen(m_fd, 4), 0);
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
