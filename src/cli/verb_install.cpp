// d4r install / d4r uninstall: a release into a game folder, and back out (docs/install.md).
#include <memory>

#include <fmt/format.h>

#include "cli_common.h"
#include "release/install.h"
#include "verbs.h"

#ifndef D4R_VERSION
#define D4R_VERSION "0.0.0"
#endif

namespace d4r::cli {

namespace {

struct InstallArgs {
    std::string game_dir;
    std::string release;
    std::string nvidia;
    bool dry_run = false;
    bool force = false;
    bool repair = false;
};

struct UninstallArgs {
    std::string game_dir;
    bool purge = false;
    bool dry_run = false;
};

void say(std::string_view line) { fmt::print("{}\n", line); }

int run_install(const InstallArgs& a) {
    if (a.repair) {
        if (a.dry_run || a.force || !a.release.empty() || !a.nvidia.empty())
            return report_error(Error(ErrorCode::Invalid, "--repair takes only GAME_DIR"));
        auto repaired = release::repair(a.game_dir, say);
        if (!repaired) return report_error(repaired.error());
        if (!*repaired) say(fmt::format("{}: no interrupted install or uninstall to repair", a.game_dir));
        return kExitOk;
    }
    release::InstallOptions o;
    o.game_dir = a.game_dir;
    if (!a.release.empty()) o.release = a.release;
    if (!a.nvidia.empty()) o.nvidia = a.nvidia;
    o.dry_run = a.dry_run;
    o.force = a.force;
    o.d4r_version = D4R_VERSION;
    if (Status s = release::install(o, say); !s) return report_error(s.error());
    return kExitOk;
}

int run_uninstall(const UninstallArgs& a) {
    if (Status s = release::uninstall(a.game_dir, a.purge, a.dry_run, say); !s) return report_error(s.error());
    return kExitOk;
}

} // namespace

void register_install_verbs(CLI::App& root) {
    auto i = std::make_shared<InstallArgs>();
    CLI::App* install = root.add_subcommand(
        "install", "write a release into the folder of a game's exe (backing up every file it replaces) and record it "
                   "in d4r-install.json; an interrupted install or uninstall is completed or rolled back first");
    install->add_option("GAME_DIR", i->game_dir, "the game's install folder (or the folder of its exe)")->required();
    install
        ->add_option("--release", i->release,
                     "the release zip (as d4r package writes it; unpacked into a temporary folder that is removed "
                     "afterwards, its SHA-256 recorded in the manifest) or the unpacked release folder (default: "
                     "the release the running d4r belongs to, the parent of its d4r/ folder)")
        ->type_name("ZIP_OR_DIR");
    install->add_option("--nvidia", i->nvidia,
                        "a folder with your nvngx_dlss.dll (and _nvngx.dll if you have it) to copy in; checked against "
                        "the release's kernel manifests. d4r never downloads NVIDIA files");
    install->add_flag("--dry-run", i->dry_run, "print the chosen folder and every file it would write; change nothing");
    install->add_flag("--force", i->force,
                      "re-install over an existing install: uninstall it first, so the backups stay the originals");
    install->add_flag("--repair", i->repair,
                      "only complete or roll back an interrupted install/uninstall under GAME_DIR");
    set_action(install, [i] { return run_install(*i); });

    auto u = std::make_shared<UninstallArgs>();
    CLI::App* uninstall = root.add_subcommand(
        "uninstall",
        "undo d4r install: remove the files it created, restore the files it replaced, remove the "
        "folders it created; a d4r.ini you edited is kept unless --purge. Exit 2 when there is no install");
    uninstall->add_option("GAME_DIR", u->game_dir, "the game folder given to d4r install")->required();
    uninstall->add_flag("--purge", u->purge, "also remove a d4r.ini edited since the install");
    uninstall->add_flag("--dry-run", u->dry_run, "print what it would remove and restore; change nothing");
    set_action(uninstall, [u] { return run_uninstall(*u); });
}

} // namespace d4r::cli
