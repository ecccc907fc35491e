// The typed IR's warp collectives (ptx::WarpCollective's shuffle modes and reductions, as a code in a compiled
// kernel's site or helper call) turned into what ptxsim's warp executors take: one definition for the compiled
// collectives (compiled_collectives.cpp) and the warp-wide helpers (compiled_warp_ops.cpp), with the rules both run.
#pragma once

#include <cstdint>

#include "ptx/instr_warp.h"
#include "ptxsim/exec.h"
#include "ptxsim/scalar_warp.h"

namespace d4r::ptxsim {

// F(l) for every lane l set in LANES, lowest first.
template <class F>
void for_each_lane(uint32_t lanes, F f) {
    for (; lanes; lanes &= lanes - 1) f(static_cast<unsigned>(__builtin_ctz(lanes)));
}

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

// vote's predicate result for MODE (all, any, uniform; ballot has none: false) from the ballot P of VOTERS.
inline bool vote_result(uint32_t mode, uint32_t p, uint32_t voters) {
    using V = ptx::WarpCollective::Vote;
    switch (static_cast<V>(mode)) {
    case V::All:
        return p == voters;
    case V::Any:
        return p != 0;
    case V::Uniform:
        return p == 0 || p == voters;
    case V::Ballot:
        break;
    }
    return false;
}

// match.all over PARTS (the lanes taking part) with their values V: whether all are equal.
inline bool match_all(uint32_t parts, const uint64_t (&v)[32]) {
    const uint64_t first = v[__builtin_ctz(parts | 0x80000000u)];
    bool same = true;
    for_each_lane(parts, [&](unsigned l) { same = same && v[l] == first; });
    return same;
}

// match.any: the lanes of PARTS whose value equals lane L's.
inline uint32_t match_any(uint32_t parts, const uint64_t (&v)[32], unsigned l) {
    uint32_t m = 0;
    for_each_lane(parts, [&](unsigned k) { m |= v[k] == v[l] ? lane_bit(k) : 0u; });
    return m;
}

// redux.sync over PARTS with their values V (lanes in order, as the interpreter folds them).
inline uint32_t redux_over(uint32_t mode, bool is_signed, uint32_t parts, const uint32_t (&v)[32]) {
    bool first = true;
    uint32_t acc = 0;
    for_each_lane(parts, [&](unsigned l) {
        acc = first ? v[l] : redux(mode, is_signed, acc, v[l]);
        first = false;
    });
    return acc;
}

} // namespace d4r::ptxsim
