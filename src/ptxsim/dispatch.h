// ptxsim internals: from what a decoder read (a PTX type suffix, rounding and flag modifiers) to the
// executor instantiated for it.
//
// Promise: one dispatcher for every instruction family. by_type maps a type suffix to a C++ type and
// hands PICK a TypeTag of it; select_round and select_flags turn a runtime rounding mode or runtime
// flags into template arguments of PICK (a generic lambda, `[]<bool A, bool B>() { return &exec<A, B>; }`; they
// return what PICK returns, so the JIT's numerics helpers pick their scalar functions with them too).
// The executors are the same template instantiations the lambdas name, so dispatching costs nothing at
// run time; a type outside the accepted kinds gives nullptr, which InstrDecoder::emit_op reports.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ptxsim/ir.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

template <class T>
struct TypeTag {
    using type = T;
};

// The C++ stand-in of a half-precision type suffix: .f16 .f16x2 .bf16 .bf16x2.
template <bool BF, bool Packed>
struct HalfFormat {
    static constexpr bool kBF = BF;
    static constexpr bool kPacked = Packed;
};

// Which type suffixes by_type accepts (or them together).
enum TypeKinds : unsigned {
    kIntTypes = 1,   // .s16 .s32 .s64 (signed), .u16 .u32 .u64 and .b16 .b32 .b64 (unsigned)
    kFloatTypes = 2, // .f32 (float) .f64 (double)
    kHalfTypes = 4,  // .f16 .f16x2 .bf16 .bf16x2 (HalfFormat)
};

// PICK(TypeTag<C++ type of T>{}), or nullptr when T is not of KINDS.
template <unsigned Kinds, class Pick>
ExecFn by_type(Type t, const Pick& pick) {
    if constexpr ((Kinds & kIntTypes) != 0) {
        switch (t) {
        case Type::S16:
            return pick(TypeTag<int16_t>{});
        case Type::U16:
        case Type::B16:
            return pick(TypeTag<uint16_t>{});
        case Type::S32:
            return pick(TypeTag<int32_t>{});
        case Type::U32:
        case Type::B32:
            return pick(TypeTag<uint32_t>{});
        case Type::S64:
            return pick(TypeTag<int64_t>{});
        case Type::U64:
        case Type::B64:
            return pick(TypeTag<uint64_t>{});
        default:
            break;
        }
    }
    if constexpr ((Kinds & kFloatTypes) != 0) {
        if (t == Type::F32) return pick(TypeTag<float>{});
        if (t == Type::F64) return pick(TypeTag<double>{});
    }
    if constexpr ((Kinds & kHalfTypes) != 0) {
        switch (t) {
        case Type::F16:
            return pick(TypeTag<HalfFormat<false, false>>{});
        case Type::F16x2:
            return pick(TypeTag<HalfFormat<false, true>>{});
        case Type::BF16:
            return pick(TypeTag<HalfFormat<true, false>>{});
        case Type::BF16x2:
            return pick(TypeTag<HalfFormat<true, true>>{});
        default:
            break;
        }
    }
    return nullptr;
}

// PICK.operator()<R>() for the rounding mode R; .rna and anything else count as .rn.
template <class Pick>
auto select_round(Round r, const Pick& pick) {
    switch (r) {
    case Round::Rz:
        return pick.template operator()<Round::Rz>();
    case Round::Rm:
        return pick.template operator()<Round::Rm>();
    case Round::Rp:
        return pick.template operator()<Round::Rp>();
    default:
        return pick.template operator()<Round::Rn>();
    }
}

// PICK.operator()<FLAGS[0], ..., FLAGS[N-1]>().
template <size_t N, class Pick, bool... B>
auto select_flags(const std::array<bool, N>& flags, const Pick& pick) {
    if constexpr (sizeof...(B) == N)
        return pick.template operator()<B...>();
    else
        return flags[sizeof...(B)] ? select_flags<N, Pick, B..., true>(flags, pick)
                                   : select_flags<N, Pick, B..., false>(flags, pick);
}

} // namespace d4r::ptxsim
