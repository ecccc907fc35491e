// d4r replay: re-run a replay dump (D4R_CUDA_REPLAY_DUMP_DIR, docs/runtime.md, "Observability") on any backend,
// optionally with a native kernel set, and save the allocations and arrays after the launch for `d4r compare`.
//
// The dump runs through libd4rcuda (build/lib/libd4rcuda.so beside this binary, or --library), loaded
// exactly as an application loads it, so the backend choice, native overrides, trace and profile
// behave as in a real run.

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/env_vars.h"
#include "core/files.h"
#include "core/process.h"
#include "runtime/backend.h"
#include "runtime/observe/replay.h"
#include "runtime/runtime.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;

struct ReplayOptions {
    std::string dump;
    std::string backend = "auto";
    std::string native;
    std::string out;
    std::string library;
};

std::string default_library() {
    std::string exe = executable_path();
    if (exe.empty()) return "libd4rcuda.so";
    return (fs::path(exe).parent_path().parent_path() / "lib" / "libd4rcuda.so").string();
}

int run_replay(const ReplayOptions& o) {
    if (!is_dir(o.dump))
        return report_error(make_error(ErrorCode::NotFound,
                                       "{}: not a dump folder (expected a replay-<seq>-<kernel>/ "
                                       "folder written by D4R_CUDA_REPLAY_DUMP_DIR)",
                                       o.dump));
    auto choice = runtime::parse_backend_choice(o.backend);
    if (!choice) return report_error(choice.error());
    if (!o.native.empty() && !is_dir(o.native))
        return report_error(make_error(ErrorCode::NotFound, "--native {}: no such folder", o.native));
    // The library reads its configuration at its first call: set it before loading.
    setenv(env_name(EnvVar::CudaBackend), o.backend.c_str(), 1);
    unsetenv(env_var_info(EnvVar::NativeKernelDir).alias.data()); // the deprecated alias: only --native decides
    if (!o.native.empty())
        setenv(env_name(EnvVar::NativeKernelDir), o.native.c_str(), 1);
    else
        unsetenv(env_name(EnvVar::NativeKernelDir));
    unsetenv(env_name(EnvVar::CudaReplayDumpDir)); // never dump the replay itself
    if (!env_raw(process_environment(), EnvVar::Log)) setenv(env_name(EnvVar::Log), "info", 1);
    std::string library = o.library.empty() ? default_library() : o.library;
    auto lib = runtime::make_driver_backend(library);
    if (!lib) return report_error(lib.error());
    fs::path out = o.out.empty() ? fs::path(o.dump) / "replay" : fs::path(o.out);
    auto result =
        runtime::replay_dump((*lib)->table(), o.dump, out, [](const std::string& line) { fmt::print("{}\n", line); });
    if (!result) {
        Error e = std::move(result).error();
        e.add_context(fmt::format("replaying {}", o.dump));
        return report_error(e);
    }
    fmt::print("done: {:.4f} GPU ms; {} allocations and {} arrays written to {}\n", result->gpu_ms,
               result->manifest.allocs.size(), result->manifest.arrays.size(), out.string());
    if (is_dir(fs::path(o.dump) / "after"))
        fmt::print("compare with the original run: d4r compare {} {}\n", (fs::path(o.dump) / "after").string(),
                   out.string());
    return kExitOk;
}

} // namespace

void register_replay_verb(CLI::App& root) {
    auto o = std::make_shared<ReplayOptions>();
    CLI::App* sub = root.add_subcommand(
        "replay", "Re-run one kernel launch saved by D4R_CUDA_REPLAY_DUMP_DIR on a chosen backend (optionally with a "
                  "native kernel set), texture and surface objects recreated over the dumped arrays and memory, and "
                  "write the allocations and arrays after the launch, for `d4r compare DUMP/after OUT`.");
    sub->add_option("DUMP", o->dump, "A dump folder (replay-<seq>-<kernel>/)")->required();
    sub->add_option("--backend", o->backend, "auto, cpu, driver or driver:/path/libcuda.so (as D4R_CUDA_BACKEND)")
        ->capture_default_str();
    sub->add_option("--native", o->native, "Native kernel root (as D4R_ZLUDA_NATIVE_DIR); default: none, PTX only");
    sub->add_option("--out", o->out,
                    "Folder for alloc-<i>.bin and array-<j>.bin after the launch (default DUMP/replay)");
    sub->add_option("--library", o->library, "libd4rcuda to run through (default ../lib/libd4rcuda.so beside d4r)");
    set_action(sub, [o] { return run_replay(*o); });
}

} // namespace d4r::cli
