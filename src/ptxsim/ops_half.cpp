// f16, bf16 and their packed x2 forms: arithmetic with the rounding of the PTX ISA.
#include <fmt/format.h>

#include "ptxsim/ops.h"

namespace d4r::ptxsim {

Status decode_half_arith(InstrDecoder& d) {
    return d.error(fmt::format("{}.{} is not supported yet", d.mods().base(), type_name(d.mods().peek_type())));
}

Status decode_half_unary(InstrDecoder& d) {
    return d.error(fmt::format("{}.{} is not supported yet", d.mods().base(), type_name(d.mods().peek_type())));
}

} // namespace d4r::ptxsim
