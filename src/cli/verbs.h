// d4r command: the verbs. Each register function adds its subcommands under the given parent.
#pragma once

#include <CLI/CLI.hpp>

namespace d4r::cli {

void register_config_verbs(CLI::App& root);             // d4r config env|check|show   (verb_config.cpp)
void register_kernels_select_verb(CLI::App& kernels);   // d4r kernels select          (verb_kernels_select.cpp)
void register_kernels_manifest_verb(CLI::App& kernels); // d4r kernels manifest        (verb_kernels_manifest.cpp)
void register_kernels_check_verb(CLI::App& kernels);    // d4r kernels check           (verb_kernels_check.cpp)
void register_ptx_verbs(CLI::App& root);                // d4r ptx list|extract|show   (verb_ptx.cpp)
void register_ptx_run_verb(CLI::App& ptx);              // d4r ptx run                 (verb_ptx_run.cpp)
void register_ptx_nvptx_verb(CLI::App& ptx);            // d4r ptx nvptx               (verb_ptx_nvptx.cpp)
void register_gpu_verb(CLI::App& root);                 // d4r gpu                     (verb_gpu.cpp)
void register_doctor_verb(CLI::App& root);              // d4r doctor                  (verb_doctor.cpp)
void register_compare_verb(CLI::App& root);             // d4r compare                 (verb_compare.cpp)
void register_replay_verb(CLI::App& root);              // d4r replay                  (verb_replay.cpp)
void register_kprof_verb(CLI::App& root);               // d4r kprof                   (verb_kprof.cpp)
void register_demo_verb(CLI::App& root);                // d4r demo                    (verb_demo.cpp)
void register_elf_verbs(CLI::App& root);                // d4r elf glibc               (verb_elf.cpp)
void register_install_verbs(CLI::App& root);            // d4r install, d4r uninstall  (verb_install.cpp)
void register_package_verb(CLI::App& root);             // d4r package                 (verb_package.cpp)
void register_play_verbs(CLI::App& root);               // d4r play, d4r restore       (verb_play.cpp)

} // namespace d4r::cli
