// d4r doctor: prints the health report (doctor.h); exit 1 when a check failed, else 0.
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "core/process.h"
#include "doctor.h"
#include "doctor_report.h"
#include "kernelset/gpu_topology.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

struct DoctorCliOptions {
    std::string config;
    std::string kfd_root = kernels::kDefaultKfdTopology;
    std::string game;
    std::string prefix;
    std::string launch_options;
    std::string glibc;
    std::string report;
    bool json = false;
};

int run(const DoctorCliOptions& o) {
    DoctorOptions options;
    if (!o.config.empty()) options.config = o.config;
    options.kfd_root = o.kfd_root;
    if (!o.game.empty()) options.game_dir = o.game;
    if (!o.prefix.empty()) options.prefix = o.prefix;
    if (!o.launch_options.empty()) options.launch_options = o.launch_options;
    if (!o.glibc.empty()) options.system_glibc = o.glibc;
    std::error_code ec;
    options.cwd = std::filesystem::current_path(ec);
    if (std::string exe = executable_path(); !exe.empty())
        options.lib_dir = std::filesystem::path(exe).parent_path().parent_path() / "lib"; // build/bin/d4r -> build/lib
    std::vector<CheckLine> lines = run_doctor(options, process_environment());
    int counts[3] = {0, 0, 0};
    nlohmann::json checks = nlohmann::json::array();
    std::string text;
    for (const CheckLine& l : lines) {
        ++counts[static_cast<int>(l.status)];
        checks.push_back(
            {{"status", check_status_name(l.status)}, {"check", l.check}, {"message", l.message}, {"hint", l.hint}});
        text += fmt::format("{:<5} {:<8} {}{}\n", check_status_name(l.status), l.check, l.message,
                            l.hint.empty() ? "" : " (hint: " + l.hint + ")");
    }
    text += fmt::format("doctor: {} ok, {} warn, {} fail\n", counts[0], counts[1], counts[2]);
    const std::string json =
        nlohmann::json{{"checks", std::move(checks)}, {"ok", counts[0]}, {"warn", counts[1]}, {"fail", counts[2]}}.dump(
            2) +
        "\n";
    fmt::print("{}", o.json ? json : text);
    if (!o.report.empty()) {
        std::string command = "d4r doctor";
        for (auto [flag, value] : {std::pair{"--config", &o.config},
                                   {"--game", &o.game},
                                   {"--prefix", &o.prefix},
                                   {"--launch-options", &o.launch_options},
                                   {"--glibc", &o.glibc},
                                   {"--kfd-root", &o.kfd_root}})
            if (!value->empty()) command += fmt::format(" {} {}", flag, *value);
        ReportInputs in{text, json, o.config.empty() ? std::nullopt : std::optional<std::string>(o.config), command};
        if (Status s = write_doctor_report(o.report, in, process_environment()); !s) return report_error(s.error());
        fmt::print(stderr, "d4r: report written to {} (read it before you send it: it holds paths and settings)\n",
                   o.report);
    }
    return counts[2] > 0 ? kExitFailed : kExitOk;
}

} // namespace

void register_doctor_verb(CLI::App& root) {
    auto o = std::make_shared<DoctorCliOptions>();
    CLI::App* sub = root.add_subcommand(
        "doctor",
        "check this machine for d4r: config, GPU, kernel set, backends (NVIDIA, ZLUDA, HIP), Wine, the "
        "Windows side (bridge nvcuda.dll, D4R_RUNTIME_DIR, shim and open core DLLs, libd4rcuda as the bridge "
        "loads it), Proton, and with --game an install (files, NVIDIA DLL and kernel sets, OptiScaler), the prefix, the kernel cache, GLIBC needs; one line per check (ok/warn/fail with a hint); exit 1 if any check failed");
    sub->add_option("--config", o->config,
                    "the d4r.ini to check (default: D4R_CONFIG, ./d4r.ini, ~/.config/d4r/d4r.ini)");
    sub->add_option("--kfd-root", o->kfd_root, "KFD topology folder")->capture_default_str();
    sub->add_option("--game", o->game,
                    "a game folder d4r was installed into: check the install, the NVIDIA files and kernel sets, "
                    "OptiScaler's version, routing, nvngx_dlss.dll and log");
    sub->add_option("--prefix", o->prefix,
                    "the game's Steam compatdata/<appid> folder (default: STEAM_COMPAT_DATA_PATH): the Proton "
                    "prefix and its version");
    sub->add_option("--launch-options", o->launch_options,
                    "the game's Steam launch options (e.g. 'd4r play -- %command%'): check that OptiScaler would "
                    "see an NVIDIA GPU with them (PROTON_FORCE_NVAPI)");
    sub->add_option("--glibc", o->glibc,
                    "compare ZLUDA's and ROCm's libraries with this GLIBC version instead of this system's (e.g. "
                    "the oldest distribution you support)");
    sub->add_option("--report", o->report,
                    "also write FILE.zip for a bug report: this report (text and JSON), d4r config show, the newest "
                    "game log folder of d4r play, the system's versions");
    sub->add_flag("--json", o->json,
                  "print the checks as JSON ({checks: [{status, check, message, hint}], ok, warn, fail})");
    set_action(sub, [o] { return run(*o); });
}

} // namespace d4r::cli
