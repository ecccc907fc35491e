// ptxsim internals: the per-lane rules of the warp collectives (shfl's source lane, redux's step), shared by the
// interpreter's handlers (ops_warp.cpp) and the collectives of compiled kernels (compiled_collectives.cpp).
#pragma once

#include <cstdint>

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };

// The lane LANE reads (its own when the source is outside the segment: VALID false).
D4R_INLINE uint32_t shfl_source(ShflMode mode, unsigned lane, uint32_t b, uint32_t c, bool& valid) {
    int bval = static_cast<int>(b & 0x1f);
    int cval = static_cast<int>(c & 0x1f);
    int segmask = static_cast<int>((c >> 8) & 0x1f);
    int max_lane = (int(lane) & segmask) | (cval & ~segmask);
    int min_lane = int(lane) & segmask;
    int j;
    switch (mode) {
    case ShflMode::Up:
        j = int(lane) - bval;
        valid = j >= max_lane;
        break;
    case ShflMode::Down:
        j = int(lane) + bval;
        valid = j <= max_lane;
        break;
    case ShflMode::Bfly:
        j = int(lane) ^ bval;
        valid = j <= max_lane;
        break;
    default:
        j = min_lane | (bval & ~segmask);
        valid = j <= max_lane;
        break;
    }
    return valid ? static_cast<uint32_t>(j) & 31 : lane;
}

enum class ReduxOp : uint8_t { Add, MinU, MinS, MaxU, MaxS, And, Or, Xor };

template <ReduxOp Op>
D4R_INLINE uint32_t redux_step(uint32_t acc, uint32_t v) {
    if constexpr (Op == ReduxOp::Add)
        return acc + v; // truncated to 32 bits (ISA)
    else if constexpr (Op == ReduxOp::MinU)
        return v < acc ? v : acc;
    else if constexpr (Op == ReduxOp::MaxU)
        return v > acc ? v : acc;
    else if constexpr (Op == ReduxOp::MinS)
        return int32_t(v) < int32_t(acc) ? v : acc;
    else if constexpr (Op == ReduxOp::MaxS)
        return int32_t(v) > int32_t(acc) ? v : acc;
    else if constexpr (Op == ReduxOp::And)
        return acc & v;
    else if constexpr (Op == ReduxOp::Or)
        return acc | v;
    else
        return acc ^ v;
}

} // namespace d4r::ptxsim
