// d4r package: assembles a release folder and its reproducible zip (docs/packaging.md).
#include <fmt/format.h>

#include "cli_common.h"
#include "verbs.h"

namespace d4r::cli {

void register_package_verb(CLI::App& root) {
    CLI::App* package = root.add_subcommand("package", "build a release folder and its reproducible zip (maintainers)");
    set_action(package, [] {
        fmt::print(stderr, "d4r: error: package: not implemented yet\n");
        return kExitFailed;
    });
}

} // namespace d4r::cli
