// The typed IR's warp collectives (ptx::WarpCollective's shuffle modes and reductions, as a code in a compiled
// kernel's site or helper call) turned into what ptxsim's warp executors take: one definition for the compiled
// collectives (compiled_collectives.cpp) and the warp-wide helpers (compiled_warp_ops.cpp).
#pragma once

#include <cstdint>

#include "ptx/instr_warp.h"
#include "ptxsim/scalar_warp.h"

namespace d4r::ptxsim {

inline ShflMode shfl_mode(uint32_t mode) {
    using S = ptx::WarpCollective::Shuffle;
    switch (static_cast<S>(mode)) {
    case S::Up:
        return ShflMode::Up;
    case S::Down:
        return ShflMode::Down;
    case S::Butterfly:
        return ShflMode::Bfly;
    case S::Index:
        break;
    }
    return ShflMode::Idx;
}

// ACC combined with V by the reduction MODE (signed min/max where IS_SIGNED).
inline uint32_t redux(uint32_t mode, bool is_signed, uint32_t acc, uint32_t v) {
    using R = ptx::WarpCollective::Reduction;
    switch (static_cast<R>(mode)) {
    case R::Add:
        return redux_step<ReduxOp::Add>(acc, v);
    case R::Min:
        return is_signed ? redux_step<ReduxOp::MinS>(acc, v) : redux_step<ReduxOp::MinU>(acc, v);
    case R::Max:
        return is_signed ? redux_step<ReduxOp::MaxS>(acc, v) : redux_step<ReduxOp::MaxU>(acc, v);
    case R::And:
        return redux_step<ReduxOp::And>(acc, v);
    case R::Or:
        return redux_step<ReduxOp::Or>(acc, v);
    case R::Xor:
        break;
    }
    return redux_step<ReduxOp::Xor>(acc, v);
}

} // namespace d4r::ptxsim
