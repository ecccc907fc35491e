// The runtime helpers compiled code calls for what the interpreter's handlers do lane by lane (compiled.h,
// CompiledRuntime::atomic, cp_async, counter, trap): each runs the interpreter's own per-lane code (scalar_atomic.h,
// lane_ops.h) for the one thread, on its warp, so checks, faults and results are the interpreter's.
#include "ptxsim/compiled_ops.h"

#include "ptx/instr_atomic.h"
#include "ptx/instr_move.h"
#include "ptxsim/lane_ops.h"
#include "ptxsim/scalar_atomic.h"

namespace d4r::ptxsim {

namespace {

// atomic_op_code: the operation (AtomOp, bits 0-7), these flags and the space (bits 10-11) and the half form (bits
// 12-14: f16, bf16, f16x2, bf16x2).
constexpr uint32_t kCodeWide = 1u << 8, kCodeSigned = 1u << 9;
constexpr unsigned kCodeSpaceShift = 10, kCodeHalfShift = 12;
enum : uint32_t { kCodeGlobal = 0, kCodeShared = 1, kCodeGeneric = 2 };
enum : uint32_t { kHalfNone = 0, kHalfF16 = 1, kHalfBF16 = 2, kHalfF16x2 = 3, kHalfBF16x2 = 4 };

// The cache of the global range the thread hit last goes back to the compiled code (as compiled_translate does).
void sync_cache(CompiledThread* thread, const Warp& w) {
    thread->cache_base = w.cache_base;
    thread->cache_size = w.cache_size;
}

template <Space S>
bool atomic_in(Warp& w, uint32_t lane, uint32_t code, uint64_t a, uint64_t b, uint64_t c, uint64_t& old) {
    const auto op = static_cast<AtomOp>(code & 0xff);
    switch ((code >> kCodeHalfShift) & 7) {
    case kHalfNone:
        break;
    case kHalfF16:
    case kHalfBF16:
    case kHalfF16x2:
    case kHalfBF16x2: {
        uint32_t o = 0;
        const uint32_t h = (code >> kCodeHalfShift) & 7, bv = static_cast<uint32_t>(b);
        const bool ok = h == kHalfF16     ? atomic_half_lane<false, false, S>(w, lane, a, bv, o)
                        : h == kHalfBF16  ? atomic_half_lane<true, false, S>(w, lane, a, bv, o)
                        : h == kHalfF16x2 ? atomic_half_lane<false, true, S>(w, lane, a, bv, o)
                                          : atomic_half_lane<true, true, S>(w, lane, a, bv, o);
        old = o;
        return ok;
    }
    default:
        return false;
    }
    const bool wide = code & kCodeWide, sign = code & kCodeSigned;
    if (wide && sign) {
        int64_t o = 0;
        const bool ok = atomic_lane<int64_t, S>(w, lane, op, a, int64_t(b), int64_t(c), o);
        old = uint64_t(o);
        return ok;
    }
    if (wide) return atomic_lane<uint64_t, S>(w, lane, op, a, b, c, old);
    if (sign) {
        int32_t o = 0;
        const bool ok = atomic_lane<int32_t, S>(w, lane, op, a, int32_t(uint32_t(b)), int32_t(uint32_t(c)), o);
        old = uint32_t(o);
        return ok;
    }
    uint32_t o = 0;
    const bool ok = atomic_lane<uint32_t, S>(w, lane, op, a, uint32_t(b), uint32_t(c), o);
    old = o;
    return ok;
}

} // namespace

uint32_t atomic_op_code(const ptx::Atomic& a) {
    uint32_t code = static_cast<uint32_t>(a.op); // the same order (ops_atomic.cpp's static_asserts)
    if (a.half) {
        const uint32_t h = a.type == ptx::Type::F16     ? kHalfF16
                           : a.type == ptx::Type::BF16  ? kHalfBF16
                           : a.type == ptx::Type::F16x2 ? kHalfF16x2
                                                        : kHalfBF16x2;
        code |= h << kCodeHalfShift;
    } else {
        if (ptx::is_float(a.type)) code = static_cast<uint32_t>(AtomOp::FAdd);
        if (ptx::type_bits(a.type) == 64) code |= kCodeWide;
        if (a.signed_compare) code |= kCodeSigned;
    }
    const uint32_t space = a.space == ptx::StateSpace::Shared   ? kCodeShared
                           : a.space == ptx::StateSpace::Global ? kCodeGlobal
                                                                : kCodeGeneric;
    return code | space << kCodeSpaceShift;
}

uint32_t compiled_atomic(CompiledThread* thread, uint32_t code, uint64_t address, uint64_t b, uint64_t c,
                         uint64_t* old) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    bool ok = false;
    switch ((code >> kCodeSpaceShift) & 3) {
    case kCodeGlobal:
        ok = atomic_in<Space::Global>(w, thread->lane, code, address, b, c, *old);
        break;
    case kCodeShared:
        ok = atomic_in<Space::Shared>(w, thread->lane, code, address, b, c, *old);
        break;
    default:
        ok = atomic_in<Space::Generic>(w, thread->lane, code, address, b, c, *old);
        break;
    }
    sync_cache(thread, w);
    return ok ? 1 : 0;
}

uint32_t compiled_cp_async(CompiledThread* thread, uint32_t bytes, uint64_t dst, uint64_t src, uint32_t size) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    const bool ok = cp_async_lane(w, thread->lane, bytes, dst, src, size);
    sync_cache(thread, w);
    return ok ? 1 : 0;
}

// emit_counter's handlers (ops_move.cpp): the clock's and the timer's halves are their low and high 32 bits.
uint64_t compiled_counter(CompiledThread* thread, uint32_t which) {
    using Sreg = ptx::Move::Sreg;
    Warp& w = *static_cast<Warp*>(thread->warp);
    switch (static_cast<Sreg>(which)) {
    case Sreg::Clock:
        return uint32_t(clock_cycles(w));
    case Sreg::ClockHi:
        return clock_cycles(w) >> 32;
    case Sreg::Clock64:
        return clock_cycles(w);
    case Sreg::GlobalTimer:
        return global_timer_ns();
    case Sreg::GlobalTimerLo:
        return uint32_t(global_timer_ns());
    case Sreg::GlobalTimerHi:
        return global_timer_ns() >> 32;
    case Sreg::GridId:
        return 1;
    case Sreg::Other:
        break;
    }
    return 0;
}

// exec_trap (ops_control.cpp).
void compiled_trap(CompiledThread* thread, uint32_t breakpoint) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    fault(w, FaultKind::IllegalInstruction, thread->lane, 0, 0, breakpoint ? "brkpt" : "trap");
}

} // namespace d4r::ptxsim
