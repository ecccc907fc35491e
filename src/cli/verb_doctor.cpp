// PLACEHOLDER: replaced by the real verb.
#include "verbs.h"

namespace d4r::cli {
void register_doctor_verb(CLI::App& root) { (void)root; }
} // namespace d4r::cli
