// Integer arithmetic and bit operations: add sub (.sat, .cc, addc, subc), mul mad (.lo .hi .wide, .cc,
// madc), mul24 mad24, sad, div rem, abs neg, min max (.relu), and or xor not cnot, shl shr, popc clz
// brev bfind bfe bfi prmt lop3 shf, fns. The packed SIMD forms (min/max .u16x2/.s16x2, dp4a, dp2a) live in
// ops_simd.cpp. Semantics follow the PTX ISA pseudo-code; where the ISA leaves a
// result open (division by zero) the values are those documented in docs/ptxsim.md.
//
// Instr use: d[0] destination; s[0..3] sources in operand order; aux = lop3 LUT / prmt mode (0 generic,
// 1.. f4e b4e rc8 ecl ecr rc16); imm = the count of a shift by an immediate; flags = CarryFlags (.cc,
// addc subc madc), 1 for max and 0 for min (read by .relu).
#include <algorithm>
#include <bit>
#include <type_traits>

#include "ptx/instr_int.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/lanes.h"
#include "ptxsim/ops.h"
#include "ptxsim/ops_simd.h"

namespace d4r::ptxsim {

namespace {

// Arithmetic type for wrapping operations on T without signed overflow (and without the promotion of
// 16-bit operands to int, whose products can overflow).
template <class T>
using UA = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
template <class T>
using Unsigned = std::make_unsigned_t<T>;
template <class T>
constexpr unsigned kBits = sizeof(T) * 8;

template <class T>
using Wider = std::conditional_t<
    std::is_signed_v<T>,
    std::conditional_t<sizeof(T) == 2, int32_t, std::conditional_t<sizeof(T) == 4, int64_t, __int128>>,
    std::conditional_t<sizeof(T) == 2, uint32_t, std::conditional_t<sizeof(T) == 4, uint64_t, unsigned __int128>>>;

struct Add {
    template <class T>
    static T apply(T a, T b) {
        return T(UA<T>(a) + UA<T>(b));
    }
};
struct Sub {
    template <class T>
    static T apply(T a, T b) {
        return T(UA<T>(a) - UA<T>(b));
    }
};
struct MulLo {
    template <class T>
    static T apply(T a, T b) {
        return T(UA<T>(a) * UA<T>(b));
    }
};
struct MulHi {
    template <class T>
    static T apply(T a, T b) {
        return T((Wider<T>(a) * Wider<T>(b)) >> kBits<T>);
    }
};
struct Min {
    template <class T>
    static T apply(T a, T b) {
        return a < b ? a : b;
    }
};
struct Max {
    template <class T>
    static T apply(T a, T b) {
        return a > b ? a : b;
    }
};
struct And {
    template <class T>
    static T apply(T a, T b) {
        return a & b;
    }
};
struct Or {
    template <class T>
    static T apply(T a, T b) {
        return a | b;
    }
};
struct Xor {
    template <class T>
    static T apply(T a, T b) {
        return a ^ b;
    }
};
// Division and remainder by zero give all ones for every type, signed or not (measured on the H200,
// docs/ptxsim.md); INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0 (also measured).
struct Div {
    template <class T>
    static T apply(T a, T b) {
        if (b == 0) return T(~Unsigned<T>(0));
        if constexpr (std::is_signed_v<T>)
            if (b == T(-1)) return T(UA<T>(0) - UA<T>(a));
        return T(a / b);
    }
};
struct Rem {
    template <class T>
    static T apply(T a, T b) {
        if (b == 0) return T(~Unsigned<T>(0));
        if constexpr (std::is_signed_v<T>)
            if (b == T(-1)) return T(0);
        return T(a % b);
    }
};

template <class Op, class T>
Flow exec_bin(Warp& w, const Instr& in, uint32_t mask) {
    map2<T, T, T>(w, in, mask, [](T a, T b) { return Op::apply(a, b); });
    return Flow::Next;
}

// Division keeps a scalar loop per lane: x86 has no vector integer division, and the branches on
// zero divisors would defeat vectorisation anyway.
template <class Op>
ExecFn pick_bin(Type t) {
    return by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_bin<Op, T>; });
}

// min/max.relu.s32: negative results become 0.
Flow exec_minmax_relu(Warp& w, const Instr& in, uint32_t mask) {
    const bool is_max = in.flags != 0;
    map2<int32_t, int32_t, int32_t>(w, in, mask, [is_max](int32_t a, int32_t b) {
        int32_t r = is_max ? (a > b ? a : b) : (a < b ? a : b);
        return r < 0 ? int32_t(0) : r;
    });
    return Flow::Next;
}

template <class T, bool IsSub>
Flow exec_addsub_sat(Warp& w, const Instr& in, uint32_t mask) {
    map2<T, T, T>(w, in, mask, [](T a, T b) {
        int64_t r = IsSub ? int64_t(a) - int64_t(b) : int64_t(a) + int64_t(b);
        r = r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? INT32_MAX : r;
        return T(r);
    });
    return Flow::Next;
}

// Extended precision: carry (add) or borrow (sub) per lane in w.carry.
enum CarryFlags : uint16_t { kCarryIn = 1, kCarryOut = 2, kSubtract = 4, kMadHi = 8, kMad = 16 };

template <class T>
Flow exec_carry(Warp& w, const Instr& in, uint32_t mask) {
    using U = Unsigned<T>;
    U a[32], b[32], c[32] = {}, r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    const uint16_t f = in.flags;
    if (f & kMad) read_lanes(w, in.s[2], c);
    uint32_t cin = (f & kCarryIn) ? w.carry : 0u;
    uint32_t cout = 0;
    for (int i = 0; i < 32; ++i) {
        U x = a[i], y = b[i];
        if (f & kMad) {
            using W = Wider<U>;
            W p = W(x) * W(y);
            x = (f & kMadHi) ? U(p >> kBits<U>) : U(p);
            y = c[i];
        }
        U ci = (cin >> i) & 1;
        U res;
        bool out;
        if (f & kSubtract) {
            res = U(x - y - ci);
            out = x < y || (x == y && ci); // borrow
        } else {
            U s = U(x + y);
            res = U(s + ci);
            out = s < x || res < s;
        }
        r[i] = res;
        cout |= out ? lane_bit(i) : 0u;
    }
    write_lanes(w, in.d[0], r, mask);
    if (f & kCarryOut) w.carry = (w.carry & ~mask) | (cout & mask);
    return Flow::Next;
}

ExecFn carry_fn(Type t) {
    switch (t) {
    case Type::U32:
    case Type::S32:
        return &exec_carry<uint32_t>;
    case Type::U64:
    case Type::S64:
        return &exec_carry<uint64_t>;
    default:
        return nullptr;
    }
}

template <class T>
Flow exec_mul_wide(Warp& w, const Instr& in, uint32_t mask) {
    using W = Wider<T>;
    map2<W, T, T>(w, in, mask, [](T a, T b) { return W(W(a) * W(b)); });
    return Flow::Next;
}

template <class T>
Flow exec_mad_wide(Warp& w, const Instr& in, uint32_t mask) {
    using W = Wider<T>;
    using U = Unsigned<W>;
    map3<W, T, T, W>(w, in, mask, [](T a, T b, W c) { return W(U(W(a) * W(b)) + U(c)); });
    return Flow::Next;
}

template <class T>
Flow exec_mad_lo(Warp& w, const Instr& in, uint32_t mask) {
    map3<T, T, T, T>(w, in, mask, [](T a, T b, T c) { return T(UA<T>(a) * UA<T>(b) + UA<T>(c)); });
    return Flow::Next;
}

template <class T>
Flow exec_mad_hi(Warp& w, const Instr& in, uint32_t mask) {
    map3<T, T, T, T>(w, in, mask, [](T a, T b, T c) { return T(UA<T>(MulHi::apply(a, b)) + UA<T>(c)); });
    return Flow::Next;
}

Flow exec_mad_hi_sat(Warp& w, const Instr& in, uint32_t mask) {
    map3<int32_t, int32_t, int32_t, int32_t>(w, in, mask, [](int32_t a, int32_t b, int32_t c) {
        int64_t r = ((int64_t(a) * int64_t(b)) >> 32) + int64_t(c);
        return int32_t(r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? INT32_MAX : r);
    });
    return Flow::Next;
}

// mul24 / mad24: 24-bit operands (sign-extended for .s32), 48-bit product; .lo takes bits 31..0,
// .hi bits 47..16.
template <class T, bool Hi, bool Mad>
Flow exec_24(Warp& w, const Instr& in, uint32_t mask) {
    auto op = [](T a, T b, T c) {
        int64_t x, y;
        if constexpr (std::is_signed_v<T>) {
            x = int64_t(int32_t(uint32_t(a) << 8) >> 8);
            y = int64_t(int32_t(uint32_t(b) << 8) >> 8);
        } else {
            x = int64_t(uint32_t(a) & 0xffffff);
            y = int64_t(uint32_t(b) & 0xffffff);
        }
        uint64_t p = static_cast<uint64_t>(x * y);
        uint32_t r = Hi ? uint32_t(p >> 16) : uint32_t(p);
        return T(Mad ? r + uint32_t(c) : r);
    };
    if constexpr (Mad)
        map3<T, T, T, T>(w, in, mask, op);
    else
        map2<T, T, T>(w, in, mask, [op](T a, T b) { return op(a, b, T(0)); });
    return Flow::Next;
}

template <class T>
Flow exec_sad(Warp& w, const Instr& in, uint32_t mask) {
    map3<T, T, T, T>(w, in, mask, [](T a, T b, T c) {
        Unsigned<T> diff =
            a < b ? Unsigned<T>(Unsigned<T>(b) - Unsigned<T>(a)) : Unsigned<T>(Unsigned<T>(a) - Unsigned<T>(b));
        return T(UA<T>(c) + UA<T>(diff));
    });
    return Flow::Next;
}

template <class T, bool Neg>
Flow exec_absneg(Warp& w, const Instr& in, uint32_t mask) {
    map1<T, T>(w, in, mask, [](T a) { return (Neg || a < 0) ? T(UA<T>(0) - UA<T>(a)) : a; });
    return Flow::Next;
}

template <class T>
Flow exec_not(Warp& w, const Instr& in, uint32_t mask) {
    map1<T, T>(w, in, mask, [](T a) { return T(~a); });
    return Flow::Next;
}

template <class T>
Flow exec_cnot(Warp& w, const Instr& in, uint32_t mask) {
    map1<T, T>(w, in, mask, [](T a) { return T(a == 0 ? 1 : 0); });
    return Flow::Next;
}

enum class ShiftKind : uint8_t { Left, RightLogical, RightArith };

template <class T, ShiftKind K>
Flow exec_shift(Warp& w, const Instr& in, uint32_t mask) {
    map2<T, T, uint32_t>(w, in, mask, [](T a, uint32_t b) {
        // Shift amounts beyond the width clamp to the width (the ISA's rule, not C's undefined behaviour).
        if constexpr (K == ShiftKind::Left)
            return b >= kBits<T> ? T(0) : T(Unsigned<T>(a) << b);
        else if constexpr (K == ShiftKind::RightLogical)
            return b >= kBits<T> ? T(0) : T(Unsigned<T>(a) >> b);
        else
            return b >= kBits<T> ? T(a < 0 ? -1 : 0) : T(a >> b);
    });
    return Flow::Next;
}

// The common shift by an immediate: one count for every lane vectorises without per-lane shifts.
template <class T, ShiftKind K>
Flow exec_shift_imm(Warp& w, const Instr& in, uint32_t mask) {
    const uint32_t n = static_cast<uint32_t>(in.imm);
    if (n >= kBits<T>) {
        map1<T, T>(w, in, mask, [](T a) { return K == ShiftKind::RightArith ? T(a < 0 ? -1 : 0) : T(0); });
    } else if constexpr (K == ShiftKind::Left) {
        map1<T, T>(w, in, mask, [n](T a) { return T(Unsigned<T>(a) << n); });
    } else if constexpr (K == ShiftKind::RightLogical) {
        map1<T, T>(w, in, mask, [n](T a) { return T(Unsigned<T>(a) >> n); });
    } else {
        map1<T, T>(w, in, mask, [n](T a) { return T(a >> n); });
    }
    return Flow::Next;
}

template <class T>
Flow exec_popc(Warp& w, const Instr& in, uint32_t mask) {
    map1<uint32_t, T>(w, in, mask, [](T a) { return uint32_t(std::popcount(a)); });
    return Flow::Next;
}

template <class T>
Flow exec_clz(Warp& w, const Instr& in, uint32_t mask) {
    map1<uint32_t, T>(w, in, mask, [](T a) { return uint32_t(std::countl_zero(a)); });
    return Flow::Next;
}

template <class T>
T bit_reverse(T v) {
    T r = 0;
    for (unsigned i = 0; i < kBits<T>; ++i) r |= T((v >> i) & 1) << (kBits<T> - 1 - i);
    return r;
}

template <class T>
Flow exec_brev(Warp& w, const Instr& in, uint32_t mask) {
    map1<T, T>(w, in, mask, [](T a) { return bit_reverse(a); });
    return Flow::Next;
}

template <class T, bool ShiftAmt>
Flow exec_bfind(Warp& w, const Instr& in, uint32_t mask) {
    map1<uint32_t, T>(w, in, mask, [](T a) {
        Unsigned<T> u = Unsigned<T>(a);
        if (std::is_signed_v<T> && a < 0) u = Unsigned<T>(~u);
        if (u == 0) return 0xffffffffu;
        uint32_t pos = kBits<T> - 1 - uint32_t(std::countl_zero(u));
        return ShiftAmt ? kBits<T> - 1 - pos : pos;
    });
    return Flow::Next;
}

// bfe/bfi take position and length modulo 256 (ISA) in their 32-bit forms; the 64-bit forms, which
// ptxas expands into 32-bit operations, use the whole 32-bit operands (H200 goldens of corpus int_bits).
template <class T>
constexpr uint64_t kFieldMask = sizeof(T) == 8 ? 0xffffffffull : 0xffull;

template <class T>
Flow exec_bfe(Warp& w, const Instr& in, uint32_t mask) {
    using U = Unsigned<T>;
    map3<T, T, uint32_t, uint32_t>(w, in, mask, [](T a, uint32_t b, uint32_t c) {
        constexpr uint64_t msb = kBits<T> - 1;
        const uint64_t pos = b & kFieldMask<T>, len = c & kFieldMask<T>;
        U ua = U(a);
        U sbit = 0;
        if (std::is_signed_v<T> && len != 0) sbit = (ua >> std::min(pos + len - 1, msb)) & 1;
        U field = pos > msb ? U(0) : U(ua >> pos);
        uint64_t avail = pos > msb ? 0 : msb - pos + 1;
        uint64_t n = std::min(len, avail);
        U low = n >= kBits<T> ? field : U(field & U((U(1) << n) - 1));
        U fill = n >= kBits<T> ? U(0) : U(~U(0) << n);
        return T(sbit ? U(low | fill) : low);
    });
    return Flow::Next;
}

// bmsk.{clamp,wrap}.b32 d, a, b: a mask of b bits from bit a. .wrap takes a and b modulo 32, .clamp
// caps them at 32; bits at and past 32 are cut off.
template <bool Clamp>
Flow exec_bmsk(Warp& w, const Instr& in, uint32_t mask) {
    map2<uint32_t, uint32_t, uint32_t>(w, in, mask, [](uint32_t a, uint32_t b) {
        const uint64_t start = Clamp ? std::min<uint32_t>(a, 32) : (a & 31u);
        const uint64_t width = Clamp ? std::min<uint32_t>(b, 32) : (b & 31u);
        const uint64_t end = start + width;
        const uint64_t low = start >= 32 ? 0 : (~uint64_t(0) << start);
        const uint64_t high = end >= 32 ? 0 : (~uint64_t(0) << end);
        return uint32_t(low & ~high);
    });
    return Flow::Next;
}

template <class T>
Flow exec_bfi(Warp& w, const Instr& in, uint32_t mask) {
    using U = Unsigned<T>;
    map4<T, T, T, uint32_t, uint32_t>(w, in, mask, [](T a, T b, uint32_t c, uint32_t d) {
        constexpr uint64_t msb = kBits<T> - 1;
        const uint64_t pos = c & kFieldMask<T>, len = d & kFieldMask<T>;
        uint64_t n = pos > msb ? 0 : std::min(len, msb - pos + 1);
        if (n == 0) return b;
        U m = n >= kBits<T> ? U(~U(0)) : U((U(1) << n) - 1);
        m = U(m << pos);
        return T((U(b) & U(~m)) | (U(U(a) << pos) & m));
    });
    return Flow::Next;
}

Flow exec_prmt(Warp& w, const Instr& in, uint32_t mask) {
    const unsigned mode = static_cast<unsigned>(in.aux); // 0 generic, 1.. specialised
    map3<uint32_t, uint32_t, uint32_t, uint32_t>(w, in, mask, [mode](uint32_t a, uint32_t b, uint32_t c) {
        uint64_t src = (uint64_t(b) << 32) | a;
        uint32_t r = 0;
        for (unsigned k = 0; k < 4; ++k) {
            uint32_t byte;
            if (mode == 0) {
                uint32_t sel = (c >> (4 * k)) & 0xf;
                byte = uint32_t(src >> (8 * (sel & 7))) & 0xff;
                if (sel & 8) byte = (byte & 0x80) ? 0xff : 0x00;
            } else {
                uint32_t sel = ptx::kPrmtModes[mode - 1][c & 3][k];
                byte = uint32_t(src >> (8 * sel)) & 0xff;
            }
            r |= byte << (8 * k);
        }
        return r;
    });
    return Flow::Next;
}

Flow exec_lop3(Warp& w, const Instr& in, uint32_t mask) {
    const uint32_t lut = static_cast<uint32_t>(in.aux);
    uint32_t a[32], b[32], c[32], r[32] = {};
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    read_lanes(w, in.s[2], c);
    for (unsigned k = 0; k < 8; ++k) {
        if (!(lut & (1u << k))) continue;
        uint32_t ma = (k & 4) ? 0u : kFullMask, mb = (k & 2) ? 0u : kFullMask, mc = (k & 1) ? 0u : kFullMask;
        for (int i = 0; i < 32; ++i) r[i] |= (a[i] ^ ma) & (b[i] ^ mb) & (c[i] ^ mc);
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

template <bool Left, bool Clamp>
Flow exec_shf(Warp& w, const Instr& in, uint32_t mask) {
    map3<uint32_t, uint32_t, uint32_t, uint32_t>(w, in, mask, [](uint32_t a, uint32_t b, uint32_t c) {
        uint32_t n = Clamp ? (c < 32 ? c : 32) : (c & 31);
        uint64_t v = (uint64_t(b) << 32) | a;
        return Left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
    });
    return Flow::Next;
}

// fns: the position of the |offset|-th set bit of MASK counted from bit BASE towards the most (offset > 0)
// or least (offset < 0) significant end, BASE itself included; offset 0 tests bit BASE alone; all ones
// when there is no such bit (the ISA's pseudo-code). A BASE above 31 (undefined in the ISA) finds nothing.
D4R_INLINE uint32_t find_nth_set(uint32_t mask, uint32_t base, int32_t offset) {
    if (base > 31) return 0xffffffffu;
    if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
    uint32_t n = offset > 0 ? uint32_t(offset) : 0u - uint32_t(offset); // |offset|, INT_MIN included
    if (n > 32) return 0xffffffffu;
    if (offset > 0) {
        uint32_t m = mask & (0xffffffffu << base);
        for (uint32_t k = 1; k < n && m; ++k) m &= m - 1; // drop the lowest set bits
        return m ? uint32_t(std::countr_zero(m)) : 0xffffffffu;
    }
    uint32_t m = base == 31 ? mask : mask & ((2u << base) - 1);
    for (uint32_t k = 1; k < n && m; ++k) m &= ~(0x80000000u >> std::countl_zero(m)); // drop the highest
    return m ? 31u - uint32_t(std::countl_zero(m)) : 0xffffffffu;
}

Flow exec_fns(Warp& w, const Instr& in, uint32_t mask) {
    map3<uint32_t, uint32_t, uint32_t, int32_t>(
        w, in, mask, [](uint32_t m, uint32_t base, int32_t off) { return find_nth_set(m, base, off); });
    return Flow::Next;
}

// ----- decoders: the family's meaning is the front end's (ptx/instr_int.h); here the handler and operands -----

// The shift executor for T's width: signed for the arithmetic right shift, unsigned otherwise; IMM: the
// shift by an immediate count.
template <ShiftKind K>
ExecFn shift_fn(Type t, bool imm) {
    return by_type<kIntTypes>(t, [imm]<class T>(TypeTag<T>) {
        using S = std::conditional_t<K == ShiftKind::RightArith, std::make_signed_t<T>, std::make_unsigned_t<T>>;
        return imm ? &exec_shift_imm<S, K> : &exec_shift<S, K>;
    });
}

template <ShiftKind K>
Status emit_shift(InstrDecoder& d, Type t) {
    D4R_TRY(d.expect_operands(3));
    const ast::Operand& amount = d.operand(2);
    if (amount.kind == ast::OperandKind::Integer) {
        uint32_t a = D4R_TRY(d.src(1, t));
        uint32_t dd = D4R_TRY(d.dst(0, t));
        Instr& in = d.emit(shift_fn<K>(t, true));
        in.d[0] = dd;
        in.s[0] = a;
        in.imm = static_cast<int64_t>(std::min<uint64_t>(amount.integer & 0xffffffffu, 64));
        return ok_status();
    }
    return d.emit_op(shift_fn<K>(t, false), t, {t, Type::U32});
}

Status emit_int(InstrDecoder& d, const ptx::IntArith& a) {
    using Op = ptx::IntArith::Op;
    using Mode = ptx::IntArith::Mode;
    const Type t = a.type;
    auto op = [&](ExecFn fn) { return d.emit_op(fn, a.dst, std::span<const Type>(a.src.data(), a.sources)); };
    auto with_flags = [&](ExecFn fn, uint16_t flags) -> Status {
        D4R_TRY(op(fn));
        d.last().flags = flags;
        return ok_status();
    };
    const bool hi = a.mode == Mode::Hi;
    switch (a.op) {
    case Op::Add:
    case Op::Sub: {
        const bool sub = a.op == Op::Sub;
        if (a.cc) return with_flags(carry_fn(t), kCarryOut | (sub ? kSubtract : 0));
        if (a.sat) return op(sub ? &exec_addsub_sat<int32_t, true> : &exec_addsub_sat<int32_t, false>);
        return op(sub ? pick_bin<Sub>(t) : pick_bin<Add>(t));
    }
    case Op::AddC:
    case Op::SubC:
        return with_flags(carry_fn(t), kCarryIn | (a.cc ? kCarryOut : 0) | (a.op == Op::SubC ? kSubtract : 0));
    case Op::Mul:
        if (a.mode == Mode::Wide)
            return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_mul_wide<T>; }));
        return op(hi ? pick_bin<MulHi>(t) : pick_bin<MulLo>(t));
    case Op::Mad:
        if (a.mode == Mode::Wide)
            return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_mad_wide<T>; }));
        if (a.sat) return op(&exec_mad_hi_sat);
        if (a.cc) return with_flags(carry_fn(t), kCarryOut | kMad | (hi ? kMadHi : 0));
        return op(hi ? by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_mad_hi<T>; })
                     : by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_mad_lo<T>; }));
    case Op::MadC:
        return with_flags(carry_fn(t), kCarryIn | kMad | (a.cc ? kCarryOut : 0) | (hi ? kMadHi : 0));
    case Op::Mul24:
    case Op::Mad24: {
        const bool mad = a.op == Op::Mad24;
        if (t == Type::S32)
            return op(hi ? (mad ? &exec_24<int32_t, true, true> : &exec_24<int32_t, true, false>)
                         : (mad ? &exec_24<int32_t, false, true> : &exec_24<int32_t, false, false>));
        return op(hi ? (mad ? &exec_24<uint32_t, true, true> : &exec_24<uint32_t, true, false>)
                     : (mad ? &exec_24<uint32_t, false, true> : &exec_24<uint32_t, false, false>));
    }
    case Op::Sad:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_sad<T>; }));
    case Op::Div:
        return op(pick_bin<Div>(t));
    case Op::Rem:
        return op(pick_bin<Rem>(t));
    case Op::Abs:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_absneg<T, false>; }));
    case Op::Neg:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_absneg<T, true>; }));
    case Op::Min:
    case Op::Max: {
        const bool is_max = a.op == Op::Max;
        return with_flags(a.relu ? &exec_minmax_relu : is_max ? pick_bin<Max>(t) : pick_bin<Min>(t), is_max ? 1 : 0);
    }
    case Op::And:
        return op(pick_bin<And>(t));
    case Op::Or:
        return op(pick_bin<Or>(t));
    case Op::Xor:
        return op(pick_bin<Xor>(t));
    case Op::Not:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_not<T>; }));
    case Op::Cnot:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_cnot<T>; }));
    case Op::Shl:
        return emit_shift<ShiftKind::Left>(d, t);
    case Op::Shr:
        return is_signed(t) ? emit_shift<ShiftKind::RightArith>(d, t) : emit_shift<ShiftKind::RightLogical>(d, t);
    case Op::Popc:
        return op(t == Type::B32 ? &exec_popc<uint32_t> : &exec_popc<uint64_t>);
    case Op::Clz:
        return op(t == Type::B32 ? &exec_clz<uint32_t> : &exec_clz<uint64_t>);
    case Op::Brev:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_brev<T>; }));
    case Op::Bfind: {
        const bool s = a.shift_amount;
        switch (t) {
        case Type::U32:
            return op(s ? &exec_bfind<uint32_t, true> : &exec_bfind<uint32_t, false>);
        case Type::S32:
            return op(s ? &exec_bfind<int32_t, true> : &exec_bfind<int32_t, false>);
        case Type::U64:
            return op(s ? &exec_bfind<uint64_t, true> : &exec_bfind<uint64_t, false>);
        default:
            return op(s ? &exec_bfind<int64_t, true> : &exec_bfind<int64_t, false>);
        }
    }
    case Op::Bfe:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_bfe<T>; }));
    case Op::Bfi:
        return op(by_type<kIntTypes>(t, []<class T>(TypeTag<T>) { return &exec_bfi<T>; }));
    case Op::Bmsk:
        return op(a.clamp ? &exec_bmsk<true> : &exec_bmsk<false>);
    case Op::Prmt:
        D4R_TRY(op(&exec_prmt));
        d.last().aux = a.permute;
        return ok_status();
    case Op::Lop3: {
        uint32_t x = D4R_TRY(d.src(1, t)), y = D4R_TRY(d.src(2, t)), z = D4R_TRY(d.src(3, t));
        uint32_t dd = D4R_TRY(d.dst(0, t));
        Instr& in = d.emit(&exec_lop3);
        in.d[0] = dd;
        in.s[0] = x;
        in.s[1] = y;
        in.s[2] = z;
        in.aux = a.lut;
        return ok_status();
    }
    case Op::Shf:
        return op(a.left ? (a.clamp ? &exec_shf<true, true> : &exec_shf<true, false>)
                         : (a.clamp ? &exec_shf<false, true> : &exec_shf<false, false>));
    case Op::Fns:
        return op(&exec_fns);
    }
    return d.error("unknown integer operation");
}

Status decode_int_family(InstrDecoder& d) { return emit_int(d, D4R_TRY(d.typed(ptx::decode_int))); }

// The opcodes the float (and half) family shares; min/max also the SIMD family's; and/or/xor/not predicate logic.
Status decode_int_or_float(InstrDecoder& d) {
    if (is_float(d.mods().peek_type())) return decode_float_arith(d);
    return decode_int_family(d);
}

Status decode_int_or_pred(InstrDecoder& d) {
    if (d.mods().peek_type() == Type::Pred) return decode_pred_logic(d);
    return decode_int_family(d);
}

Status decode_minmax(InstrDecoder& d) {
    if (is_simd_minmax(d.mods())) return decode_simd_minmax(d);
    return decode_int_or_float(d);
}

} // namespace

void add_int_ops(OpcodeTable& t) {
    for (const char* name : {"add", "sub", "mul", "mad", "div", "abs", "neg"}) t[name] = &decode_int_or_float;
    for (const char* name : {"and", "or", "xor", "not"}) t[name] = &decode_int_or_pred;
    t["min"] = &decode_minmax;
    t["max"] = &decode_minmax;
    for (const char* name : {"addc", "subc", "madc",  "mul24", "mad24", "sad",  "rem",  "cnot", "shl", "shr", "popc",
                             "clz",  "brev", "bfind", "bfe",   "bfi",   "bmsk", "prmt", "lop3", "shf", "fns"})
        t[name] = &decode_int_family;
    add_simd_ops(t);
}

} // namespace d4r::ptxsim
