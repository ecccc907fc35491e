// d4r doctor: prints the health report (doctor.h); exit 1 when a check failed, else 0.
#include <filesystem>

#include <fmt/format.h>

#include "cli_common.h"
#include "doctor.h"
#include "kernelset/gpu_topology.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

struct DoctorCliOptions {
    std::string config;
    std::string kfd_root = kernels::kDefaultKfdTopology;
};

int run(const DoctorCliOptions& o) {
    DoctorOptions options;
    if (!o.config.empty()) options.config = o.config;
    options.kfd_root = o.kfd_root;
    std::error_code ec;
    options.cwd = std::filesystem::current_path(ec);
    std::vector<CheckLine> lines = run_doctor(options, process_environment());
    int counts[3] = {0, 0, 0};
    for (const CheckLine& l : lines) {
        ++counts[static_cast<int>(l.status)];
        fmt::print("{:<5} {:<8} {}{}\n", check_status_name(l.status), l.check, l.message,
                   l.hint.empty() ? "" : " (hint: " + l.hint + ")");
    }
    fmt::print("doctor: {} ok, {} warn, {} fail\n", counts[0], counts[1], counts[2]);
    return counts[2] > 0 ? kExitFailed : kExitOk;
}

} // namespace

void register_doctor_verb(CLI::App& root) {
    auto o = std::make_shared<DoctorCliOptions>();
    CLI::App* sub = root.add_subcommand(
        "doctor", "check this machine for d4r: config, GPU, kernel set, backends (NVIDIA, ZLUDA, HIP), Wine, Proton; "
                  "one line per check (ok/warn/fail with a hint); exit 1 if any check failed");
    sub->add_option("--config", o->config, "the d4r.ini to check (default: D4R_CONFIG, ./d4r.ini, ~/.config/d4r/d4r.ini)");
    sub->add_option("--kfd-root", o->kfd_root, "KFD topology folder")->capture_default_str();
    set_action(sub, [o] { return run(*o); });
}

} // namespace d4r::cli
