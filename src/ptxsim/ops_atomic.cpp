// atom and red on global, shared and generic addresses: and or xor cas exch add inc dec min max on
// 32/64-bit integers, add on f32 and f64. Global operations are atomic with respect to other worker
// threads (std::atomic_ref on the host memory); shared memory belongs to one block, which one worker
// runs, so plain read-modify-write is atomic there. Lanes of a warp apply their operations in lane
// order. Per the ISA, atom.add.f32 on global memory flushes subnormal inputs and results to zero while
// on shared memory it keeps them; both round to nearest even. .add.noftz on f16/bf16 and their packed
// forms rounds each half to nearest even and keeps subnormals; packed forms update the 32-bit word as one.
// One lane's operation is scalar_atomic.h's, which compiled code shares (atomic_op_code below).
//
// Instr use: d[0] old value (atom), s[0] operand b, s[1] operand c (cas); base/imm address;
// flags = AtomOp | kWide (64-bit) | kHasResult | kAddr32.
#include <fmt/format.h>

#include "ptx/instr_atomic.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/scalar_atomic.h"

namespace d4r::ptxsim {

namespace {

// The front end's operations in the same order as AtomOp (scalar_atomic.h), FAdd after them.
static_assert(uint8_t(AtomOp::And) == uint8_t(ptx::Atomic::Op::And) &&
              uint8_t(AtomOp::Cas) == uint8_t(ptx::Atomic::Op::Cas) &&
              uint8_t(AtomOp::Add) == uint8_t(ptx::Atomic::Op::Add) &&
              uint8_t(AtomOp::Max) == uint8_t(ptx::Atomic::Op::Max));
enum AtomFlags : uint16_t { kHasResult = 0x100 };

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
        if (!atomic_lane<T, S>(w, lane, op, addr[lane], b[lane], c[lane], result[lane])) return Flow::Stop;
    }
    if (in.flags & kHasResult) {
        Slot out[32];
        for (int i = 0; i < 32; ++i) out[i] = Slot(U(result[i]));
        store_slot(w, in.d[0], out, mask);
    }
    return Flow::Next;
}

template <bool BF, bool Packed, Space S>
Flow exec_atom_half(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t addr[32];
    lane_addresses(w, in, addr);
    uint32_t b[32], result[32] = {};
    read_lanes(w, in.s[0], b);
    uint32_t m = mask;
    while (m) {
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        m &= m - 1;
        if (!atomic_half_lane<BF, Packed, S>(w, lane, addr[lane], b[lane], result[lane])) return Flow::Stop;
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
