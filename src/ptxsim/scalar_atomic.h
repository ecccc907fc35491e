// ptxsim internals: one lane of atom/red (ops_atomic.cpp) as scalar functions. The interpreter's handlers apply
// them to each active lane in lane order; the PTX JIT's runtime helper (compiled_runtime.cpp) applies them to the
// one thread it runs, so compiled code performs each atomic with the interpreter's own code: the same address
// checks and faults, the same operation, the same atomicity.
//
// Promise: atomic_lane and atomic_half_lane check lane LANE's ADDRESS as the handler does (a generic address in
// the local or kernel-parameter window faults; otherwise translate() for shared or global memory, which records
// the fault), then apply the operation: atomically with respect to other worker threads on global memory
// (std::atomic_ref), as a plain read-modify-write on the block's shared memory (one worker runs a block). They
// return false after a fault, else true with the old value in OLD.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ptxsim/memory_access.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

// atom/red's operations: ptx::Atomic::Op's order (ops_atomic.cpp checks it), then a float add.
enum class AtomOp : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max, FAdd };

// OLD combined with B (and C for cas) as the operation does. FLUSH_F32: f32 add flushes subnormal inputs and
// results (global memory, per the ISA); both float adds round to nearest even with canonical NaNs.
template <class T>
D4R_INLINE T atomic_apply(AtomOp op, T old, T b, T c, bool flush_f32) {
    switch (op) {
    case AtomOp::And:
        return old & b;
    case AtomOp::Or:
        return old | b;
    case AtomOp::Xor:
        return old ^ b;
    case AtomOp::Cas:
        return old == b ? c : old;
    case AtomOp::Exch:
        return b;
    case AtomOp::Add:
        return T(std::make_unsigned_t<T>(old) + std::make_unsigned_t<T>(b));
    case AtomOp::Inc:
        return old >= b ? T(0) : T(old + 1);
    case AtomOp::Dec:
        return (old == 0 || old > b) ? b : T(old - 1);
    case AtomOp::Min:
        return old < b ? old : b;
    case AtomOp::Max:
        return old > b ? old : b;
    case AtomOp::FAdd:
        if constexpr (sizeof(T) == 4) {
            float x = std::bit_cast<float>(uint32_t(old)), y = std::bit_cast<float>(uint32_t(b));
            float r = flush_f32 ? flush(canonical(flush(x) + flush(y))) : canonical(x + y);
            return T(std::bit_cast<uint32_t>(r));
        } else {
            double r = canonical(std::bit_cast<double>(uint64_t(old)) + std::bit_cast<double>(uint64_t(b)));
            return T(std::bit_cast<uint64_t>(r));
        }
    }
    return old;
}

// The host pointer of an atomic's BYTES at ADDRESS in space S (Global, Shared or Generic), or null after the
// fault; SHARED says which memory it is in.
template <Space S>
D4R_INLINE uint8_t* atomic_pointer(Warp& w, uint32_t lane, uint64_t a, uint32_t bytes, bool& shared) {
    shared = S == Space::Shared;
    if constexpr (S == Space::Generic) shared = a - kSharedWindow < kWindowBytes;
    if (S == Space::Generic && !shared && (a - kLocalWindow < kWindowBytes || a - kParamWindow < kWindowBytes)) {
        fault(w, FaultKind::IllegalAddress, lane, a, bytes, "atomic operation outside global and shared memory");
        return nullptr;
    }
    return shared ? translate<Space::Shared>(w, lane, S == Space::Generic ? a - kSharedWindow : a, bytes, true)
                  : translate<Space::Global>(w, lane, a, bytes, true);
}

// T: the integer type the operation compares in (signed for .s32/.s64 min/max).
template <class T, Space S>
D4R_INLINE bool atomic_lane(Warp& w, uint32_t lane, AtomOp op, uint64_t a, T b, T c, T& old_value) {
    using U = std::make_unsigned_t<T>;
    bool shared = false;
    uint8_t* p = atomic_pointer<S>(w, lane, a, sizeof(T), shared);
    if (!p) return false;
    if (shared) {
        T old;
        std::memcpy(&old, p, sizeof old);
        T v = atomic_apply<T>(op, old, b, c, false);
        std::memcpy(p, &v, sizeof v);
        old_value = old;
    } else if (op == AtomOp::Exch || op == AtomOp::Add || op == AtomOp::And || op == AtomOp::Or || op == AtomOp::Xor) {
        std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
        U bv = U(b);
        U old;
        switch (op) {
        case AtomOp::Exch:
            old = ref.exchange(bv);
            break;
        case AtomOp::Add:
            old = ref.fetch_add(bv);
            break;
        case AtomOp::And:
            old = ref.fetch_and(bv);
            break;
        case AtomOp::Or:
            old = ref.fetch_or(bv);
            break;
        default:
            old = ref.fetch_xor(bv);
            break;
        }
        old_value = T(old);
    } else {
        std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
        U old = ref.load();
        for (;;) {
            U v = U(atomic_apply<T>(op, T(old), b, c, true));
            if (ref.compare_exchange_weak(old, v)) break;
        }
        old_value = T(old);
    }
    return true;
}

// .add.noftz on f16/bf16 (the low 16 bits) and f16x2/bf16x2: each half one IEEE addition rounded to nearest even
// with subnormals kept (NaN results canonical).
template <bool BF, bool Packed>
D4R_INLINE uint32_t half_add(uint32_t old, uint32_t b) {
    using H = HalfTraits<BF>;
    auto add = [](uint32_t x, uint32_t y) {
        return round_to_small(H::value(x & 0xffffu) + H::value(y & 0xffffu), H::kFormat, Round::Rn);
    };
    if constexpr (Packed)
        return add(old, b) | (add(old >> 16, b >> 16) << 16);
    else
        return add(old, b);
}

// The packed forms are atomic as one 32-bit unit: a compare-and-swap loop on the whole word.
template <bool BF, bool Packed, Space S>
D4R_INLINE bool atomic_half_lane(Warp& w, uint32_t lane, uint64_t a, uint32_t b, uint32_t& old_value) {
    using U = std::conditional_t<Packed, uint32_t, uint16_t>;
    bool shared = false;
    uint8_t* p = atomic_pointer<S>(w, lane, a, sizeof(U), shared);
    if (!p) return false;
    const uint32_t bv = Packed ? b : (b & 0xffffu);
    if (shared) {
        U old;
        std::memcpy(&old, p, sizeof old);
        U v = static_cast<U>(half_add<BF, Packed>(old, bv));
        std::memcpy(p, &v, sizeof v);
        old_value = old;
    } else {
        std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
        U old = ref.load();
        while (!ref.compare_exchange_weak(old, static_cast<U>(half_add<BF, Packed>(old, bv)))) {
        }
        old_value = old;
    }
    return true;
}

} // namespace d4r::ptxsim
