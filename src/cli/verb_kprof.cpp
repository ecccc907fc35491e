// d4r kprof: summarise a D4R_CUDA_KERNEL_PROFILE log per kernel and per frame (docs/runtime.md, "Observability").
#include <fmt/format.h>

#include "cli_common.h"
#include "core/env_vars.h"
#include "core/files.h"
#include "runtime/observe/profile_summary.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

struct KprofOptions {
    std::string log;
    std::string frame_start;
};

int run_kprof(const KprofOptions& o) {
    auto bytes = read_file(o.log, 4ull << 30);
    if (!bytes) return report_error(bytes.error());
    std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    auto lines = runtime::parse_profile_log(text, o.log);
    if (!lines) return report_error(lines.error());
    if (lines->empty())
        return report_error(
            make_error(ErrorCode::Invalid,
                       "{}: no KERNEL_PROFILE lines (run the program with {}=1 and {}=PATH, or capture its stderr)",
                       o.log, env_name(EnvVar::CudaKernelProfile), env_name(EnvVar::LogFile)));
    runtime::ProfileSummary s = runtime::summarise_profile(*lines, o.frame_start);
    fmt::print("{}", runtime::format_profile_summary(s));
    return kExitOk;
}

} // namespace

void register_kprof_verb(CLI::App& root) {
    auto o = std::make_shared<KprofOptions>();
    CLI::App* sub = root.add_subcommand(
        "kprof",
        "Summarise a kernel profile log (D4R_CUDA_KERNEL_PROFILE=1): per kernel launches, median/min/max/total "
        "GPU ms and share; per frame median/min/max GPU ms.");
    sub->add_option("LOG", o->log, "A log file holding KERNEL_PROFILE lines")->required();
    sub->add_option("--frame-start", o->frame_start,
                    "Kernel that starts each frame (default: the first kernel of the log)");
    set_action(sub, [o] { return run_kprof(*o); });
}

} // namespace d4r::cli
