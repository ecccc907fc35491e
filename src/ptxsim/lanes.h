// ptxsim internals: element-wise lane loops for ALU handlers. Each reads its sources as whole slots,
// applies F to all 32 lanes (the compiler vectorises the loop: no per-lane branches on the mask) and
// writes back under MASK. Destination and sources may be the same register.
#pragma once

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

template <class D, class A, class F>
D4R_INLINE void map1(Warp& w, const Instr& in, uint32_t mask, F f) {
    A a[32];
    D r[32];
    read_lanes(w, in.s[0], a);
    for (int i = 0; i < 32; ++i) r[i] = f(a[i]);
    write_lanes(w, in.d[0], r, mask);
}

template <class D, class A, class B, class F>
D4R_INLINE void map2(Warp& w, const Instr& in, uint32_t mask, F f) {
    A a[32];
    B b[32];
    D r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    for (int i = 0; i < 32; ++i) r[i] = f(a[i], b[i]);
    write_lanes(w, in.d[0], r, mask);
}

template <class D, class A, class B, class C, class F>
D4R_INLINE void map3(Warp& w, const Instr& in, uint32_t mask, F f) {
    A a[32];
    B b[32];
    C c[32];
    D r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    read_lanes(w, in.s[2], c);
    for (int i = 0; i < 32; ++i) r[i] = f(a[i], b[i], c[i]);
    write_lanes(w, in.d[0], r, mask);
}

template <class D, class A, class B, class C, class E, class F>
D4R_INLINE void map4(Warp& w, const Instr& in, uint32_t mask, F f) {
    A a[32];
    B b[32];
    C c[32];
    E e[32];
    D r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    read_lanes(w, in.s[2], c);
    read_lanes(w, in.s[3], e);
    for (int i = 0; i < 32; ++i) r[i] = f(a[i], b[i], c[i], e[i]);
    write_lanes(w, in.d[0], r, mask);
}

// Lane-by-lane index loops, for operations that need the lane number (no vectorisation expected).
template <class F>
D4R_INLINE void for_lanes(uint32_t mask, F f) {
    while (mask) {
        unsigned i = static_cast<unsigned>(__builtin_ctz(mask));
        mask &= mask - 1;
        f(i);
    }
}

} // namespace d4r::ptxsim
