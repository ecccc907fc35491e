// PLACEHOLDER: replaced by the real verb.
#include "verbs.h"

namespace d4r::cli {
void register_kernels_select_verb(CLI::App& kernels) { (void)kernels; }
} // namespace d4r::cli
