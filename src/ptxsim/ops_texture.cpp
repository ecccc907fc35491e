// Placeholder: registers nothing yet.
#include "ptxsim/decoder.h"

namespace d4r::ptxsim {

void add_texture_ops(OpcodeTable&) {}

} // namespace d4r::ptxsim
