// PLACEHOLDER: replaced by the real verb.
#include "verbs.h"

namespace d4r::cli {
void register_config_verbs(CLI::App& root) { (void)root; }
} // namespace d4r::cli
