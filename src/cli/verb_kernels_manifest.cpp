// PLACEHOLDER: replaced by the real verb.
#include "verbs.h"

namespace d4r::cli {
void register_kernels_manifest_verb(CLI::App& kernels) { (void)kernels; }
} // namespace d4r::cli
