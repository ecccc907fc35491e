// atom and red on global, shared and generic addresses: and or xor cas exch add inc dec min max on
// 32/64-bit integers, add on f32 and f64. Global operations are atomic with respect to other worker
// threads (std::atomic_ref on the host memory); shared memory belongs to one block, which one worker
// runs, so plain read-modify-write is atomic there. Lanes of a warp apply their operations in lane
// order. Per the ISA, atom.add.f32 on global memory flushes subnormal inputs and results to zero while
// on shared memory it keeps them; both round to nearest even. .add.noftz on f16/bf16 and their packed
// forms rounds each half to nearest even and keeps subnormals; packed forms update the 32-bit word as one.
//
// Instr use: d[0] old value (atom), s[0] operand b, s[1] operand c (cas); base/imm address;
// flags = AtomOp | kWide (64-bit) | kHasResult | kAddr32.
#include <atomic>
#include <bit>

#include <fmt/format.h>

#include "ptx/instr_atomic.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

namespace {

enum class AtomOp : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max, FAdd };
// The front end's operations in the same order (ptx::Atomic::Op), FAdd after them.
static_assert(uint8_t(AtomOp::And) == uint8_t(ptx::Atomic::Op::And) &&
              uint8_t(AtomOp::Cas) == uint8_t(ptx::Atomic::Op::Cas) &&
              uint8_t(AtomOp::Add) == uint8_t(ptx::Atomic::Op::Add) &&
              uint8_t(AtomOp::Max) == uint8_t(ptx::Atomic::Op::Max));
enum AtomFlags : uint16_t { kHasResult = 0x100 };

template <class T>
D4R_INLINE T apply_op(AtomOp op, T old, T b, T c, bool flush_f32) {
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

// T: the integer type the operation compares in (signed for .s32/.s64 min/max).
template <class T, Space S>
Flow exec_atom(Warp& w, const Instr& in, uint32_t mask) {
    using U = std::make_unsigned_t<T>;
    using Slot = SlotOf<T>;
    const AtomOp op = static_cast<AtomOp>(in.flags & 0xff);
    uint64_t addr[32];
    lane_addresses(w, in, addr);
    T b[32], c[32] = {};
    read_lanes(w, in.s[0], b);
    if (op == AtomOp::Cas) read_lanes(w, in.s[1], c);
    T result[32] = {};
    uint32_t m = mask;
    while (m) {
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        m &= m - 1;
        uint64_t a = addr[lane];
        bool shared = S == Space::Shared;
        if constexpr (S == Space::Generic) shared = a - kSharedWindow < kWindowBytes;
        if (S == Space::Generic && !shared && (a - kLocalWindow < kWindowBytes || a - kParamWindow < kWindowBytes)) {
            return fault(w, FaultKind::IllegalAddress, lane, a, sizeof(T),
                         "atomic operation outside global and shared memory");
        }
        uint8_t* p =
            shared ? translate<Space::Shared>(w, lane, S == Space::Generic ? a - kSharedWindow : a, sizeof(T), true)
                   : translate<Space::Global>(w, lane, a, sizeof(T), true);
        if (!p) return Flow::Stop;
        if (shared) {
            T old;
            std::memcpy(&old, p, sizeof old);
            T v = apply_op<T>(op, old, b[lane], c[lane], false);
            std::memcpy(p, &v, sizeof v);
            result[lane] = old;
        } else if (op == AtomOp::Exch || op == AtomOp::Add || op == AtomOp::And || op == AtomOp::Or ||
                   op == AtomOp::Xor) {
            std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
            U bv = U(b[lane]);
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
            result[lane] = T(old);
        } else {
            std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
            U old = ref.load();
            for (;;) {
                U v = U(apply_op<T>(op, T(old), b[lane], c[lane], true));
                if (ref.compare_exchange_weak(old, v)) break;
            }
            result[lane] = T(old);
        }
    }
    if (in.flags & kHasResult) {
        Slot out[32];
        for (int i = 0; i < 32; ++i) out[i] = Slot(U(result[i]));
        store_slot(w, in.d[0], out, mask);
    }
    return Flow::Next;
}

// atom/red .add.noftz on .f16, .bf16, .f16x2, .bf16x2: each half is one IEEE addition rounded to
// nearest even with subnormals kept (NaN results canonical, 0x7fff). The packed forms are atomic as one
// 32-bit unit: a compare-and-swap loop on the whole word.
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

template <bool BF, bool Packed, Space S>
Flow exec_atom_half(Warp& w, const Instr& in, uint32_t mask) {
    using U = std::conditional_t<Packed, uint32_t, uint16_t>;
    constexpr uint32_t kBytes = sizeof(U);
    uint64_t addr[32];
    lane_addresses(w, in, addr);
    uint32_t b[32], result[32] = {};
    read_lanes(w, in.s[0], b);
    uint32_t m = mask;
    while (m) {
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        m &= m - 1;
        uint64_t a = addr[lane];
        bool shared = S == Space::Shared;
        if constexpr (S == Space::Generic) shared = a - kSharedWindow < kWindowBytes;
        if (S == Space::Generic && !shared && (a - kLocalWindow < kWindowBytes || a - kParamWindow < kWindowBytes)) {
            return fault(w, FaultKind::IllegalAddress, lane, a, kBytes,
                         "atomic operation outside global and shared memory");
        }
        const uint64_t sa = S == Space::Generic ? a - kSharedWindow : a;
        uint8_t* p = shared ? translate<Space::Shared>(w, lane, sa, kBytes, true)
                            : translate<Space::Global>(w, lane, a, kBytes, true);
        if (!p) return Flow::Stop;
        const uint32_t bv = Packed ? b[lane] : (b[lane] & 0xffffu);
        if (shared) {
            U old;
            std::memcpy(&old, p, sizeof old);
            U v = static_cast<U>(half_add<BF, Packed>(old, bv));
            std::memcpy(p, &v, sizeof v);
            result[lane] = old;
        } else {
            std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
            U old = ref.load();
            while (!ref.compare_exchange_weak(old, static_cast<U>(half_add<BF, Packed>(old, bv)))) {
            }
            result[lane] = old;
        }
    }
    if (in.flags & kHasResult) store_slot(w, in.d[0], result, mask);
    return Flow::Next;
}

template <bool BF, bool Packed>
ExecFn atom_half_fn(Space s) {
    switch (s) {
    case Space::Global:
        return &exec_atom_half<BF, Packed, Space::Global>;
    case Space::Shared:
        return &exec_atom_half<BF, Packed, Space::Shared>;
    case Space::Generic:
        return &exec_atom_half<BF, Packed, Space::Generic>;
    default:
        return nullptr;
    }
}

// atom/red{.sem}{.scope}{.space}.add.noftz.{f16,bf16,f16x2,bf16x2}.
Status decode_atom_half(InstrDecoder& d, const ptx::Atomic& a, Space space) {
    const Type t = a.type;
    const bool has_result = a.result;
    ExecFn fn = t == Type::F16     ? atom_half_fn<false, false>(space)
                : t == Type::BF16  ? atom_half_fn<true, false>(space)
                : t == Type::F16x2 ? atom_half_fn<false, true>(space)
                                   : atom_half_fn<true, true>(space);
    const Type vt = a.value;
    const size_t first = a.address_operand;
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(first), space));
    uint32_t b = D4R_TRY(d.src(first + 1, vt));
    uint32_t dd = has_result ? D4R_TRY(d.dst(0, vt)) : kNoReg;
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = b;
    in.base = addr.base;
    in.imm = addr.imm;
    in.flags =
        static_cast<uint16_t>((has_result ? kHasResult : 0) | (addr.base != kNoReg && !addr.base_wide ? kAddr32 : 0));
    return ok_status();
}

template <class T>
ExecFn atom_fn(Space s) {
    switch (s) {
    case Space::Global:
        return &exec_atom<T, Space::Global>;
    case Space::Shared:
        return &exec_atom<T, Space::Shared>;
    case Space::Generic:
        return &exec_atom<T, Space::Generic>;
    default:
        return nullptr;
    }
}

// The family's meaning is the front end's (ptx/instr_atomic.h); here the handler, address and registers.
Status decode_atom_red(InstrDecoder& d) {
    const ptx::Atomic a = D4R_TRY(d.typed(ptx::decode_atomic));
    const Space space = space_of(a.space);
    if (a.half) return decode_atom_half(d, a, space);
    const bool has_result = a.result;
    Type t = a.type;
    AtomOp op = static_cast<AtomOp>(a.op); // the same order (static_asserts above)
    if (is_float(t)) op = AtomOp::FAdd;
    const unsigned bits = type_bits(t);
    if (op == AtomOp::Add && bits == 64 && is_signed(t)) t = Type::U64; // same bits
    ExecFn fn;
    const bool sign = a.signed_compare;
    if (bits == 32)
        fn = sign ? atom_fn<int32_t>(space) : atom_fn<uint32_t>(space);
    else
        fn = sign ? atom_fn<int64_t>(space) : atom_fn<uint64_t>(space);
    const size_t first = a.address_operand;
    const size_t values = a.values;
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(first), space));
    const Type vt = a.value;
    uint32_t b = D4R_TRY(d.src(first + 1, vt));
    uint32_t c = values == 2 ? D4R_TRY(d.src(first + 2, vt)) : kNoReg;
    uint32_t dd = has_result ? D4R_TRY(d.dst(0, vt)) : kNoReg;
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = b;
    in.s[1] = c;
    in.base = addr.base;
    in.imm = addr.imm;
    in.flags = static_cast<uint16_t>(static_cast<uint16_t>(op) | (has_result ? kHasResult : 0) |
                                     (addr.base != kNoReg && !addr.base_wide ? kAddr32 : 0));
    return ok_status();
}

} // namespace

void add_atomic_ops(OpcodeTable& t) {
    t["atom"] = &decode_atom_red;
    t["red"] = &decode_atom_red;
}

} // namespace d4r::ptxsim
