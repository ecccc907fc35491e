// ptxsim internals: packed integer SIMD instructions (ops_simd.cpp), split from the integer family
// (ops_int.cpp), which hands over the packed forms of shared opcode names.
#pragma once

#include "ptxsim/decoder.h"

namespace d4r::ptxsim {

// True when an integer min/max names a packed type (.u16x2, .s16x2): decode it with decode_simd_minmax.
bool is_simd_minmax(const Modifiers& m);
// min/max{.relu}.{u16x2,s16x2} d, a, b (the base name says which).
Status decode_simd_minmax(InstrDecoder& d);
// Registers dp4a and dp2a.
void add_simd_ops(OpcodeTable& table);

} // namespace d4r::ptxsim
