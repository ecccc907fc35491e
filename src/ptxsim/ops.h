// ptxsim internals: decoders shared between instruction families (an opcode name like "add" covers
// integer and floating-point forms, "and" covers bits and predicates).
#pragma once

#include "ptxsim/decoder.h"

namespace d4r::ptxsim {

Status decode_float_arith(InstrDecoder& d); // ops_float.cpp: add sub mul mad fma div min max abs neg
Status decode_pred_logic(InstrDecoder& d);  // ops_compare.cpp: and or xor not on .pred




} // namespace d4r::ptxsim
