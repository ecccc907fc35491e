// mov (registers, immediates, special registers, symbol addresses, vector pack/unpack), cvta and
// isspacep.
//
// Instr use: d[0] destination (pack: d[0]; unpack: d[0..n-1]); s[0] source (pack: s[0..n-1]);
// count = number of pack/unpack elements; imm = window base for cvta; flags = space for isspacep.
#include <algorithm>
#include <chrono>

#include "ptx/instr_move.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lane_ops.h"
#include "ptxsim/lanes.h"

namespace d4r::ptxsim {

namespace {

template <class S>
Flow exec_copy(Warp& w, const Instr& in, uint32_t mask) {
    map1<S, S>(w, in, mask, [](S v) { return v; });
    return Flow::Next;
}

Flow exec_mov_pred(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t v = in.ps[0] >= 0 ? read_pred(w, in.ps[0], in.ps_neg[0]) : (in.imm ? kFullMask : 0u);
    write_pred(w, in.pd[0], v, mask);
    return Flow::Next;
}

} // namespace

// %clock64: the SM cycle counter, advancing at kClockRateKhz with wall time (a kernel spinning until N
// cycles have passed spins N / rate seconds, as on the GPU), strictly increasing for each warp. %clock and
// %clock_hi are its low and high 32 bits, as SR_CLOCKLO/SR_CLOCKHI are on NVIDIA's GPUs (exec_clock below).
uint64_t clock_cycles(Warp& w) {
    static const auto epoch = std::chrono::steady_clock::now();
    const uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch).count());
    // ns * rate / 10^6 without overflow for any process lifetime.
    constexpr uint64_t kRate = kClockRateKhz;
    const uint64_t cycles = ns / 1000000 * kRate + ns % 1000000 * kRate / 1000000;
    w.last_clock = std::max(cycles, w.last_clock + 1);
    return w.last_clock;
}

uint64_t global_timer_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

namespace {

enum class ClockPart : uint8_t { Low, High, Full };

// Writes the 64-bit counter VALUE (or its low or high half) to every lane of MASK.
template <ClockPart P>
void write_counter(Warp& w, const Instr& in, uint32_t mask, uint64_t value) {
    if constexpr (P == ClockPart::Full) {
        uint64_t v[32];
        for (uint64_t& x : v) x = value;
        write_lanes(w, in.d[0], v, mask);
    } else {
        uint32_t v[32];
        for (uint32_t& x : v) x = static_cast<uint32_t>(P == ClockPart::High ? value >> 32 : value);
        write_lanes(w, in.d[0], v, mask);
    }
}

template <ClockPart P>
Flow exec_clock(Warp& w, const Instr& in, uint32_t mask) {
    write_counter<P>(w, in, mask, clock_cycles(w));
    return Flow::Next;
}

// %globaltimer: nanoseconds of the host's real-time clock (the GPU's global timer counts ns too);
// %globaltimer_lo / %globaltimer_hi: its halves.
template <ClockPart P>
Flow exec_globaltimer(Warp& w, const Instr& in, uint32_t mask) {
    write_counter<P>(w, in, mask, global_timer_ns());
    return Flow::Next;
}

// Pack N elements of W bits (each in a 32-bit slot) into one register of N*W bits.
template <int N, int W>
Flow exec_pack(Warp& w, const Instr& in, uint32_t mask) {
    using D = std::conditional_t<N * W == 64, uint64_t, uint32_t>;
    D r[32] = {};
    for (int k = 0; k < N; ++k) {
        if constexpr (W == 64) {
            uint64_t e[32];
            read_lanes(w, in.s[k], e);
            for (int i = 0; i < 32; ++i) r[i] |= static_cast<D>(e[i]);
        } else {
            uint32_t e[32];
            read_lanes(w, in.s[k], e);
            constexpr uint64_t m = W == 32 ? 0xffffffffull : ((1ull << W) - 1);
            for (int i = 0; i < 32; ++i) r[i] |= static_cast<D>((e[i] & m)) << (k * W);
        }
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

template <int N, int W>
Flow exec_unpack(Warp& w, const Instr& in, uint32_t mask) {
    using S = std::conditional_t<N * W == 64, uint64_t, uint32_t>;
    S a[32];
    read_lanes(w, in.s[0], a);
    for (int k = 0; k < N; ++k) {
        uint32_t e[32];
        constexpr uint64_t m = W == 32 ? 0xffffffffull : ((1ull << W) - 1);
        for (int i = 0; i < 32; ++i) e[i] = static_cast<uint32_t>((static_cast<uint64_t>(a[i]) >> (k * W)) & m);
        write_lanes(w, in.d[k], e, mask);
    }
    return Flow::Next;
}

template <int N, int W>
ExecFn pack_fn(bool pack) {
    return pack ? &exec_pack<N, W> : &exec_unpack<N, W>;
}

// cvta: generic = window + space address (to generic), or the reverse (cvta.to).
template <class S, bool ToGeneric>
Flow exec_cvta(Warp& w, const Instr& in, uint32_t mask) {
    const S window = static_cast<S>(in.imm);
    map1<S, S>(w, in, mask, [window](S a) { return ToGeneric ? S(a + window) : S(a - window); });
    return Flow::Next;
}

bool in_window(uint64_t a, uint64_t base) { return a - base < kWindowBytes; }

Flow exec_isspacep(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t a[32];
    read_lanes(w, in.s[0], a);
    Space s = static_cast<Space>(in.flags);
    const Program& p = *w.launch->program;
    uint32_t res = 0;
    for (int i = 0; i < 32; ++i) {
        bool shared = in_window(a[i], kSharedWindow), local = in_window(a[i], kLocalWindow),
             param = in_window(a[i], kParamWindow);
        bool r = false;
        switch (s) {
        case Space::Shared:
            r = shared;
            break;
        case Space::Local:
            r = local;
            break;
        case Space::KernelParam:
            r = param;
            break;
        case Space::Const:
            r = a[i] - p.const_segment < p.const_segment_bytes;
            break;
        default:
            r = !shared && !local && !param;
            break;
        }
        res |= r ? lane_bit(i) : 0u;
    }
    write_pred(w, in.pd[0], res, mask);
    return Flow::Next;
}

// ----- decoders: the family's meaning is the front end's (ptx/instr_move.h); here the handler and operands -----

Status emit_pack(InstrDecoder& d, const ptx::Move& mv) {
    const bool pack = mv.form == ptx::Move::Form::Pack;
    const ast::Operand& vec = d.operand(pack ? 1 : 0);
    const ast::Operand& scalar = d.operand(pack ? 0 : 1);
    const unsigned n = mv.elements;
    const Type elem = pack ? mv.src : mv.dst;
    const unsigned w = type_bits(elem);
    ExecFn fn = nullptr;
    if (n == 2 && w == 32)
        fn = pack_fn<2, 32>(pack);
    else if (n == 2 && w == 16)
        fn = pack_fn<2, 16>(pack);
    else if (n == 2 && w == 8)
        fn = pack_fn<2, 8>(pack);
    else if (n == 4 && w == 16)
        fn = pack_fn<4, 16>(pack);
    else if (n == 4 && w == 8)
        fn = pack_fn<4, 8>(pack);
    else
        return d.error("unsupported vector form of mov");
    Instr in;
    if (pack) {
        in.d[0] = D4R_TRY(d.dst(scalar, mv.type));
        for (unsigned k = 0; k < n; ++k) in.s[k] = D4R_TRY(d.src(vec.elements[k], elem));
    } else {
        in.s[0] = D4R_TRY(d.src(scalar, mv.type));
        for (unsigned k = 0; k < n; ++k) in.d[k] = D4R_TRY(d.dst(vec.elements[k], elem));
    }
    in.count = static_cast<uint8_t>(n);
    Instr& out = d.emit(fn);
    std::copy(std::begin(in.d), std::end(in.d), out.d);
    std::copy(std::begin(in.s), std::end(in.s), out.s);
    out.count = in.count;
    return ok_status();
}

// mov of %clock %clock_hi %clock64 %globaltimer %globaltimer_lo %globaltimer_hi, and of %gridid (which reads 1).
Status emit_counter(InstrDecoder& d, const ptx::Move& mv) {
    using Sreg = ptx::Move::Sreg;
    uint32_t dd = D4R_TRY(d.dst(d.operand(0), mv.type));
    ExecFn fn = nullptr;
    switch (mv.sreg) {
    case Sreg::Clock:
        fn = &exec_clock<ClockPart::Low>;
        break;
    case Sreg::ClockHi:
        fn = &exec_clock<ClockPart::High>;
        break;
    case Sreg::Clock64:
        fn = &exec_clock<ClockPart::Full>;
        break;
    case Sreg::GlobalTimer:
        fn = &exec_globaltimer<ClockPart::Full>;
        break;
    case Sreg::GlobalTimerLo:
        fn = &exec_globaltimer<ClockPart::Low>;
        break;
    case Sreg::GlobalTimerHi:
        fn = &exec_globaltimer<ClockPart::High>;
        break;
    case Sreg::GridId: {
        Instr& in = d.emit(&exec_copy<uint64_t>);
        in.d[0] = dd;
        in.s[0] = d.constant(1, true);
        return ok_status();
    }
    case Sreg::Other:
        return d.error("not a counter");
    }
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    return ok_status();
}

Status emit_mov(InstrDecoder& d, const ptx::Move& mv) {
    using Form = ptx::Move::Form;
    const Type t = mv.type;
    const ast::Operand& dst = d.operand(0);
    const ast::Operand& src = d.operand(1);
    if (t == Type::Pred) {
        int16_t pd = D4R_TRY(d.pred_dst(dst));
        std::pair<int16_t, bool> ps{-1, false};
        if (mv.form != Form::Immediate) ps = D4R_TRY(d.pred_src(src));
        Instr& in = d.emit(&exec_mov_pred);
        in.pd[0] = pd;
        if (mv.form == Form::Immediate) {
            in.imm = src.integer != 0;
        } else {
            in.ps[0] = ps.first;
            in.ps_neg[0] = ps.second;
        }
        return ok_status();
    }
    if (mv.form == Form::Pack || mv.form == Form::Unpack) return emit_pack(d, mv);
    if (mv.form == Form::Special && mv.sreg != ptx::Move::Sreg::Other) return emit_counter(d, mv);
    // A register, an immediate, a special register or a symbol's address: InstrDecoder::src tells them apart.
    uint32_t ss = D4R_TRY(d.src(src, t));
    uint32_t dd = D4R_TRY(d.dst(dst, t));
    Instr& in = d.emit(type_bits(t) == 64 ? &exec_copy<uint64_t> : &exec_copy<uint32_t>);
    in.d[0] = dd;
    in.s[0] = ss;
    return ok_status();
}

uint64_t window_of(Space s) {
    switch (s) {
    case Space::Shared:
        return kSharedWindow;
    case Space::Local:
        return kLocalWindow;
    case Space::KernelParam:
        return kParamWindow;
    default:
        return 0;
    }
}

Status emit_cvta(InstrDecoder& d, const ptx::Move& mv) {
    const Type t = mv.type;
    uint32_t ss = D4R_TRY(d.src(d.operand(1), t));
    uint32_t dd = D4R_TRY(d.dst(d.operand(0), t));
    const bool wide = t == Type::U64, to = mv.to_space;
    ExecFn fn = wide ? (to ? &exec_cvta<uint64_t, false> : &exec_cvta<uint64_t, true>)
                     : (to ? &exec_cvta<uint32_t, false> : &exec_cvta<uint32_t, true>);
    Instr& in = d.emit(fn);
    in.d[0] = dd;
    in.s[0] = ss;
    in.imm = static_cast<int64_t>(window_of(space_of(mv.space)));
    return ok_status();
}

Status emit_isspacep(InstrDecoder& d, const ptx::Move& mv) {
    int16_t p = D4R_TRY(d.pred_dst(d.operand(0)));
    uint32_t a = D4R_TRY(d.src(d.operand(1), mv.src));
    Instr& in = d.emit(&exec_isspacep);
    in.pd[0] = p;
    in.s[0] = a;
    in.flags = static_cast<uint16_t>(space_of(mv.space));
    return ok_status();
}

Status decode_move_family(InstrDecoder& d) {
    const ptx::Move mv = D4R_TRY(d.typed(ptx::decode_move));
    switch (mv.op) {
    case ptx::Move::Op::Mov:
        return emit_mov(d, mv);
    case ptx::Move::Op::Cvta:
        return emit_cvta(d, mv);
    case ptx::Move::Op::Isspacep:
        return emit_isspacep(d, mv);
    }
    return d.error("unknown move");
}

} // namespace

void add_move_ops(OpcodeTable& t) {
    for (const char* name : {"mov", "cvta", "isspacep"}) t[name] = &decode_move_family;
}

} // namespace d4r::ptxsim
