// d4r play / d4r restore: start a game with the configuration applied, and put the Proton prefix back
// (docs/play.md).
#include "cli_common.h"
#include "verbs.h"

namespace d4r::cli {

void register_play_verbs(CLI::App& root) {
    (void)root;
}

} // namespace d4r::cli
