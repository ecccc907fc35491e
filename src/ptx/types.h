// The PTX front end (docs/ptx-front-end.md): PTX's types (`.u32`, `.f16x2`, ...) with their names and widths, and
// the rounding modes of its instructions. What every consumer of PTX (ptxsim, the JIT) shares.
#pragma once

#include <cstdint>
#include <string_view>

namespace d4r::ptx {

enum class Type : uint8_t {
    None,
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F64,
    TF32,
};

// "u32" (no dot) -> Type::U32; Type::None when NAME is not a type.
Type parse_type(std::string_view name);
const char* type_name(Type t); // "u32"
unsigned type_bits(Type t);    // 0 for None, 1 for Pred
inline bool is_signed(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }
inline bool is_unsigned(Type t) { return t == Type::U8 || t == Type::U16 || t == Type::U32 || t == Type::U64; }
inline bool is_bits(Type t) {
    return t == Type::B8 || t == Type::B16 || t == Type::B32 || t == Type::B64 || t == Type::B128;
}
inline bool is_integer(Type t) { return is_signed(t) || is_unsigned(t) || is_bits(t); }
// The four half-precision types (which family an add, min or ex2 of them belongs to).
inline bool is_half_type(Type t) { return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2; }
inline bool is_float(Type t) {
    return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 || t == Type::F32 ||
           t == Type::F64 || t == Type::TF32;
}

// The state space an instruction names (`ld.global`, `st.shared::cta`); Generic when it names none.
enum class StateSpace : uint8_t { Generic, Global, Shared, Local, Const, Param };

// Rounding modes of float results (.rn .rz .rm .rp, and .rna of cvt.tf32), also used for the integer rounding
// of .rni .rzi .rmi .rpi.
enum class Round : uint8_t { Rn, Rz, Rm, Rp, Rna };

} // namespace d4r::ptx
