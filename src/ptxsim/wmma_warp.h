// ptxsim internals: one wmma.mma of a whole warp on its matrices, and where each element of a fragment sits in a
// lane's registers (ops_wmma.cpp's mapping: unique element u of lane l is element i = 32u + l of the R x C matrix in
// row-major order, packed low bits first). Shared by the interpreter's handlers (ops_wmma.cpp) and the warp code of
// the PTX JIT (compiled_warp_ops.cpp), so both compute the same bits.
#pragma once

#include <cstdint>

#include "ptx/instr_wmma.h"

namespace d4r::ptxsim {

using ptx::wmma::EType;
using ptx::wmma::WShape;

// The matrices of one wmma.mma as element bits, row-major: A (M x K), B (K x N), C and D (M x N).
struct WmmaMatrices {
    uint64_t a[1024], b[1024], c[256], d[256];
};

struct WmmaSpec {
    WShape shape = WShape::M16N16K16;
    EType ab = EType::F16, c = EType::F32, d = EType::F32;
    bool satfinite = false;
    bool and_popc = false; // b1: popc(a AND b); else XOR
};

// D of M from its A, B and C (the ISA's wmma.mma with ptxsim's measured numerics, ops_wmma.cpp's header).
void wmma_mma(const WmmaSpec& spec, WmmaMatrices& m);

// Element E (0 .. elements - 1) of a lane's fragment of type T, from GET(r): the lane's register r (its 32 bits, or
// 64 for f64). set_fragment_element writes it back: GET(r) the register's word, PUT(r, word) its new word.
template <class Get>
uint64_t fragment_element(EType t, unsigned e, Get&& get) {
    const unsigned bits = ptx::wmma::bits_of(t);
    if (bits == 64) return get(e);
    const unsigned per = 32 / bits;
    const uint32_t v = static_cast<uint32_t>(get(e / per));
    return bits == 32 ? v : (v >> (bits * (e % per))) & ((1u << bits) - 1);
}

template <class Get, class Put>
void set_fragment_element(EType t, unsigned e, uint64_t value, Get&& get, Put&& put) {
    const unsigned bits = ptx::wmma::bits_of(t);
    if (bits >= 32) {
        put(e, bits == 64 ? value : static_cast<uint32_t>(value));
        return;
    }
    const unsigned per = 32 / bits, shift = bits * (e % per);
    const uint32_t field = ((1u << bits) - 1) << shift;
    put(e / per, (static_cast<uint32_t>(get(e / per)) & ~field) | ((static_cast<uint32_t>(value) << shift) & field));
}

} // namespace d4r::ptxsim
