// d4r: the command-line entry point. Verbs live in verb_*.cpp; this file only wires them up and
// turns parse errors into exit status 2.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_common.h"
#include "core/log.h"
#include "verbs.h"

#ifndef D4R_VERSION
#define D4R_VERSION "0.0.0"
#endif

#if defined(__SANITIZE_ADDRESS__)
// Sanitizer builds only: GCC 12's LeakSanitizer crashes at exit ("Tracer caught signal 11") while scanning
// the dynamic TLS of threads started by a library loaded with dlopen (libd4rcuda's workers, which `d4r
// replay` and `d4r demo` load). Leak checking stays on; thread-local storage is just not used as roots.
extern "C" const char* __lsan_default_options() { return "use_tls=0"; }
#endif

int main(int argc, char** argv) {
    d4r::log::init_from_env();

    CLI::App app("d4r: NVIDIA DLSS on non-NVIDIA GPUs (configuration, diagnostics and developer tools)", "d4r");
    app.set_version_flag("--version", std::string("d4r ") + D4R_VERSION);
    app.require_subcommand(1);
    std::string log_level;
    app.add_option("--log", log_level,
                   "log level for this run: off, error, warn, info, debug, trace (default: D4R_LOG or warn)")
        ->each([](const std::string& value) {
            auto level = d4r::log::parse_level(value);
            if (!level) throw CLI::ValidationError("--log", level.error().text());
            d4r::log::set_level(*level);
        });

    d4r::cli::register_config_verbs(app);
    CLI::App* kernels = app.add_subcommand("kernels", "native kernel sets: selection, manifests, checks");
    kernels->require_subcommand(1);
    d4r::cli::register_kernels_select_verb(*kernels);
    d4r::cli::register_kernels_manifest_verb(*kernels);
    d4r::cli::register_kernels_check_verb(*kernels);
    d4r::cli::register_ptx_verbs(app);
    d4r::cli::register_ptx_run_verb(*app.get_subcommand("ptx"));
    d4r::cli::register_ptx_nvptx_verb(*app.get_subcommand("ptx"));
    d4r::cli::register_gpu_verb(app);
    d4r::cli::register_doctor_verb(app);
    d4r::cli::register_compare_verb(app);
    d4r::cli::register_replay_verb(app);
    d4r::cli::register_kprof_verb(app);
    d4r::cli::register_demo_verb(app);
    d4r::cli::register_elf_verbs(app);
    d4r::cli::register_install_verbs(app);
    d4r::cli::register_package_verb(app);
    d4r::cli::register_play_verbs(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "d4r: error: {}\n", e.what());
        fmt::print(stderr, "run 'd4r --help' (or 'd4r VERB --help') for usage\n");
        return d4r::cli::kExitUsage;
    }
    return d4r::cli::exit_status();
}
