// ptxsim internals: d4r's measured numerics (src/numerics, shared with the PTX JIT) as ptxsim names them.
#pragma once

#include "numerics/fp.h"
#include "numerics/mma_numerics.h"

namespace d4r::ptxsim {

using namespace d4r::numerics; // NOLINT(google-build-using-namespace): ptxsim's own arithmetic, one namespace over

} // namespace d4r::ptxsim
