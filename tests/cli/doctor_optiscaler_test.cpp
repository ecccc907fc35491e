// d4r doctor --game on OptiScaler 0.9.4 folders (src/cli/doctor_optiscaler.h): a correct folder passes the
// optiscaler and nvapi checks; NvngxPath missing or naming nothing, a 0.9.4 ini with only [DLSS] LibraryPath, a
// launch without PROTON_FORCE_NVAPI and no nvngx_dlss.dll where OptiScaler looks each fail naming the key and
// the fix; OptiScaler's log, written the way 0.9.4 writes it, is read after a run.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace d4r::cli {
namespace {

using test::read_file_text;
using test::run_d4r;
using test::RunResult;
using test::TempDir;
namespace fs = std::filesystem;

const fs::path kFixtures = test::fixture_dir() / "optiscaler";

// The lines of OUT for CHECK with STATUS ("ok", "warn", "fail").
std::vector<std::string> lines_of(const std::string& out, const std::string& status, const std::string& check) {
    std::vector<std::string> found;
    size_t start = 0;
    while (start < out.size()) {
        size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string l = out.substr(start, end - start);
        if (l.rfind(status, 0) == 0 && l.find(" " + check + " ") != std::string::npos) found.push_back(l);
        start = end + 1;
    }
    return found;
}

bool has(const std::string& out, const std::string& status, const std::string& check, const std::string& text) {
    for (const std::string& l : lines_of(out, status, check))
        if (l.find(text) != std::string::npos) return true;
    return false;
}

// A game folder with OptiScaler 0.9.4 that d4r install routed to the shim, and its Proton prefix.
struct Routed {
    TempDir t;
    fs::path game = t.path() / "Game";
    fs::path compat = t.mkdir("compat");
    Routed() {
        t.write("rel/d4r/nvngx.dll", "MZ shim");
        t.write("Game/Game.exe", "game");
        t.write("Game/nvngx_dlss.dll", "MZ the game's DLSS");
        fs::copy_file(kFixtures / "dll/optiscaler-0.9.4.0.dll", game / "dxgi.dll");
        t.write("Game/OptiScaler.ini", read_file_text(kFixtures / "versions/OptiScaler-0.9.4.ini"));
        t.write("compat/version", "1730000000 proton-9.0-4\n");
        t.write("compat/pfx/drive_c/windows/system32/nvapi64.dll", "MZ dxvk-nvapi");
        RunResult r = run_d4r({"install", game.string(), "--release", (t.path() / "rel").string()},
                              {{"HOME", t.path().string()}});
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    }
    RunResult doctor(const std::string& launch = "d4r play -- %command%",
                     std::map<std::string, std::string> env = {}) const {
        env.emplace("D4R_NO_CONFIG", "1");
        env.emplace("HOME", (t.path() / "home").string());
        std::vector<std::string> args = {"doctor",       "--kfd-root",  (t.path() / "no-kfd").string(),
                                         "--game",       game.string(), "--prefix",
                                         compat.string()};
        if (!launch.empty()) args.insert(args.end(), {"--launch-options", launch});
        return run_d4r(args, env, t.path());
    }
    void set_ini(const std::string& text) const { t.write("Game/OptiScaler.ini", text); }
    std::string ini() const { return read_file_text(game / "OptiScaler.ini"); }
};

// TEXT with the line starting with PREFIX replaced by WITH (removed when WITH is empty).
std::string replace_line(std::string text, const std::string& prefix, const std::string& with) {
    size_t at = text.find("\n" + prefix);
    EXPECT_NE(at, std::string::npos) << prefix;
    if (at == std::string::npos) return text;
    size_t end = text.find('\n', at + 1);
    text.replace(at + 1, end - at, with.empty() ? "" : with + "\n");
    return text;
}

TEST(DoctorOptiScaler, ACorrectFolderPasses) {
    Routed g;
    RunResult r = g.doctor();
    EXPECT_TRUE(lines_of(r.out, "fail", "optiscaler").empty()) << r.out;
    EXPECT_TRUE(lines_of(r.out, "fail", "nvapi").empty()) << r.out;
    EXPECT_TRUE(has(r.out, "ok", "optiscaler",
                    "OptiScaler 0.9.4.0 (dxgi.dll): its NGX core path is [Libraries] "
                    "NvngxPath"))
        << r.out;
    EXPECT_TRUE(has(r.out, "ok", "optiscaler", "DLSS routed to Z:")) << r.out;
    EXPECT_TRUE(has(r.out, "ok", "optiscaler", "finds nvngx_dlss.dll at " + (g.game / "nvngx_dlss.dll").string()))
        << r.out;
    EXPECT_TRUE(has(r.out, "ok", "optiscaler", "no OptiScaler log in")) << r.out;
    EXPECT_TRUE(has(r.out, "ok", "nvapi", "d4r play in the launch options sets PROTON_FORCE_NVAPI=1")) << r.out;
    EXPECT_TRUE(has(r.out, "ok", "nvapi", "Proton 1730000000 proton-9.0-4; dxvk-nvapi (nvapi64.dll) is in the prefix"))
        << r.out;
    EXPECT_TRUE(has(r.out, "ok", "profile", "no game profile for Game.exe")) << r.out;
    // The launch options of a user who sets the variables themselves.
    r = g.doctor("PROTON_FORCE_NVAPI=1 DXVK_NVAPI_GPU_ARCH=AD100 %command%");
    EXPECT_TRUE(has(r.out, "ok", "nvapi", "the launch options set PROTON_FORCE_NVAPI=1")) << r.out;
}

TEST(DoctorOptiScaler, AGamesProfileIsShownAndItsValuesExpected) {
    Routed g;
    fs::rename(g.game / "Game.exe", g.game / "rdr2.exe");
    // What d4r install writes for it (d4r play would write the same).
    std::string ini = g.ini();
    ini.replace(ini.find("\nDxgi=true\n"), 11, "\nDxgi=false\n");
    g.set_ini(ini);
    RunResult r = g.doctor();
    EXPECT_TRUE(has(r.out, "ok", "profile", "OptiScaler [Spoofing] Dxgi=false (OptiScaler Quirks.h")) << r.out;
    EXPECT_TRUE(lines_of(r.out, "warn", "optiscaler").empty()) << r.out;
    // d4r's usual value is now the odd one.
    ini.replace(ini.find("\nDxgi=false\n"), 12, "\nDxgi=true\n");
    g.set_ini(ini);
    r = g.doctor();
    EXPECT_TRUE(has(r.out, "warn", "optiscaler", "[Spoofing] Dxgi is true (d4r writes false")) << r.out;
}

TEST(DoctorOptiScaler, NvngxPathMissingOrNamingNothingFails) {
    Routed g;
    const std::string routed = g.ini();
    g.set_ini(replace_line(routed, "NvngxPath=", ""));
    RunResult r = g.doctor();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has(r.out, "fail", "optiscaler", "[Libraries] NvngxPath is not set")) << r.out;
    EXPECT_NE(r.out.find("'d4r play' writes the keys this OptiScaler reads"), std::string::npos) << r.out;

    g.set_ini(replace_line(routed, "NvngxPath=", "NvngxPath=Z:\\nowhere\\nvngx.dll"));
    r = g.doctor();
    EXPECT_TRUE(has(r.out, "fail", "optiscaler", "[Libraries] NvngxPath Z:\\nowhere\\nvngx.dll names no file"))
        << r.out;

    // A folder holding NVIDIA's _nvngx.dll loads that, not the shim.
    g.t.write("Game/nv/_nvngx.dll", "MZ nvidia core");
    g.set_ini(replace_line(routed, "NvngxPath=", "NvngxPath=" + ("Z:" + (g.game / "nv").string())));
    r = g.doctor();
    EXPECT_TRUE(has(r.out, "fail", "optiscaler", "is a folder: OptiScaler loads its _nvngx.dll")) << r.out;
}

TEST(DoctorOptiScaler, A094IniWithOnlyTheOldLibraryPathFails) {
    Routed g;
    std::string ini = replace_line(g.ini(), "NvngxPath=", "");
    g.set_ini(ini + "[DLSS]\nLibraryPath=Z:" + (g.game / "d4r/nvngx.dll").string() + "\n");
    RunResult r = g.doctor();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has(r.out, "fail", "optiscaler",
                    "[Libraries] NvngxPath is not set, so OptiScaler loads the driver's NGX core, not d4r's shim; "
                    "[DLSS] LibraryPath is set, but OptiScaler 0.9.4.0 does not read it (it is read before 0.9.1)"))
        << r.out;
}

TEST(DoctorOptiScaler, ALaunchWithoutProtonForceNvapiFails) {
    Routed g;
    RunResult r = g.doctor("%command%");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has(r.out, "fail", "nvapi",
                    "OptiScaler would see no NVIDIA GPU and turn its DLSS backend off: the "
                    "launch options '%command%' set no PROTON_FORCE_NVAPI"))
        << r.out;
    EXPECT_NE(r.out.find("hint: launch options: d4r play -- %command%"), std::string::npos) << r.out;
    r = g.doctor("PROTON_FORCE_NVAPI=0 %command%");
    EXPECT_TRUE(has(r.out, "fail", "nvapi", "the launch options set PROTON_FORCE_NVAPI=0")) << r.out;
    // d4r play keeps a user's own value.
    r = g.doctor("d4r play -- %command%", {{"PROTON_FORCE_NVAPI", "0"}});
    EXPECT_TRUE(has(r.out, "fail", "nvapi", "d4r play keeps your PROTON_FORCE_NVAPI=0")) << r.out;
    // Unknown launch: a warning that says what to give.
    r = g.doctor("");
    EXPECT_TRUE(has(r.out, "warn", "nvapi", "the game's launch options were not given (--launch-options)")) << r.out;
}

TEST(DoctorOptiScaler, NoNvngxDlssWhereOptiScalerLooksFails) {
    Routed g;
    fs::remove(g.game / "nvngx_dlss.dll");
    RunResult r = g.doctor();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has(r.out, "fail", "optiscaler",
                    "OptiScaler 0.9.4.0 finds no nvngx_dlss.dll ([Libraries] NvngxDlssPath is not set; none under"))
        << r.out;
    EXPECT_NE(r.out.find("or name its folder in [Libraries] NvngxDlssPath"), std::string::npos) << r.out;
    // Named in NvngxDlssPath: found.
    g.t.write("elsewhere/nvngx_dlss.dll", "MZ dlss");
    g.set_ini(replace_line(g.ini(), "NvngxDlssPath=", "NvngxDlssPath=Z:" + (g.t.path() / "elsewhere").string()));
    r = g.doctor();
    EXPECT_TRUE(has(r.out, "ok", "optiscaler", "finds nvngx_dlss.dll at " + (g.t.path() / "elsewhere").string()))
        << r.out;
}

TEST(DoctorOptiScaler, ReadsOptiScalersLogAfterARun) {
    Routed g;
    struct Case {
        const char* log;
        const char* status;
        const char* text;
    };
    const Case cases[] = {
        {"routed.log", "ok", "OptiScaler loaded d4r's shim (Z:\\games\\Game\\Binaries\\Win64\\d4r\\nvngx.dll)"},
        {"not-nvidia.log", "fail", "\"[18:30:01.000731] [I] Not running on Nvidia, disabling DLSS\""},
        {"dlss-missing.log", "fail",
         "CheckDlss nvngx_dlss.dll not found, disabling DLSS\": OptiScaler turned DLSS off"},
        {"other-core.log", "fail", "_nvngx.dll as its NGX core, not d4r's shim"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.log);
        fs::copy_file(kFixtures / "logs" / c.log, g.game / "OptiScaler.log", fs::copy_options::overwrite_existing);
        RunResult r = g.doctor();
        EXPECT_TRUE(has(r.out, c.status, "optiscaler", c.text)) << r.out;
    }
}

} // namespace
} // namespace d4r::cli
