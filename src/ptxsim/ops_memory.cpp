// ld, ldu, st and prefetch in every state space (global, shared, local, const, param, generic), scalar
// and .v2/.v4, every integer and float width. Cache operators, eviction priorities and memory-order
// qualifiers do not change results in this sequentially consistent memory and are accepted and ignored.
//
// Instr use: base/imm address (kAddr32 in flags for a 32-bit base register); ld: d[0..n-1] destination
// slots; st: s[0..n-1] value slots; count = vector length; flags bit 0: sign-extend (s8/s16/s32 loads),
// bit 1: destination/source slots are 64-bit.
#include <fmt/format.h>

#include "ptx/instr_decode.h"
#include "ptx/instr_memory.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"

namespace d4r::ptxsim {

namespace {

enum MemFlags : uint16_t { kSignExtend = 1, kWideSlot = 2 };

template <unsigned Bytes>
using Raw =
    std::conditional_t<Bytes == 1, uint8_t,
                       std::conditional_t<Bytes == 2, uint16_t, std::conditional_t<Bytes == 4, uint32_t, uint64_t>>>;

template <unsigned Bytes>
D4R_INLINE uint64_t extend(uint64_t v, bool sign) {
    if (!sign || Bytes == 8) return v;
    constexpr unsigned shift = 64 - 8 * Bytes;
    return static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
}

// Whole-warp bounds check: when every active lane's access is aligned and the span from the lowest to the
// highest address lies inside one range — the allocation the warp used last (global, generic), or the
// block's shared memory — the per-lane translation is skipped. *BASE receives what to add to an address
// to get the host pointer (0 for global addresses, which are host addresses). For a full warp the
// result also says whether the lanes read consecutive elements (lane i at first + i * BYTES) or one
// address, which loads serve with one copy.
enum class WarpAccess { Checked, Gather, Contiguous, Uniform };

template <Space S>
D4R_INLINE WarpAccess warp_fast_path(const Warp& w, const uint64_t (&addr)[32], uint32_t mask, uint32_t bytes,
                                     uintptr_t* base) {
    if constexpr (S != Space::Global && S != Space::Generic && S != Space::Shared) {
        return WarpAccess::Checked;
    } else {
        uint64_t range_base, range_size;
        if constexpr (S == Space::Shared) {
            *base = reinterpret_cast<uintptr_t>(w.block->shared);
            range_base = 0;
            range_size = w.block->shared_bytes;
        } else {
            *base = 0;
            range_base = w.cache_base;
            range_size = w.cache_size;
        }
        if (range_size < bytes) return WarpAccess::Checked;
        if (mask == kFullMask) {
            // Branch-free loops of subtractions and ORs the compiler vectorises with plain SSE2 (no 64-bit
            // compares needed): an address below the range makes `addr - base` wrap, one above its last
            // element makes `last - addr` wrap, and either sets bit 63 (addresses and ranges are below
            // 2^63: host addresses and 32-bit shared offsets).
            const uint64_t last = range_base + range_size - bytes;
            uint64_t out = 0, bits = 0, off_contig = 0, off_uniform = 0;
            for (int i = 0; i < 32; ++i) {
                out |= (addr[i] - range_base) | (last - addr[i]);
                bits |= addr[i];
                off_contig |= addr[i] ^ (addr[0] + uint64_t(i) * bytes);
                off_uniform |= addr[i] ^ addr[0];
            }
            if ((out >> 63) != 0 || (bits & (bytes - 1)) != 0) return WarpAccess::Checked;
            if (off_uniform == 0) return WarpAccess::Uniform;
            return off_contig == 0 ? WarpAccess::Contiguous : WarpAccess::Gather;
        }
        uint64_t first = addr[__builtin_ctz(mask)];
        uint64_t lo = first, hi = first, bits = 0;
        for (int i = 0; i < 32; ++i) {
            uint64_t a = (mask & lane_bit(i)) ? addr[i] : first;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
            bits |= a;
        }
        if ((bits & (bytes - 1)) != 0) return WarpAccess::Checked;
        return range_holds(range_base, range_size, lo, hi - lo + bytes) ? WarpAccess::Gather : WarpAccess::Checked;
    }
}

// Writes raw loaded values (R per lane) to a destination slot, extending to the slot's width.
template <unsigned Bytes>
D4R_INLINE void put_loaded(Warp& w, uint32_t slot, const Raw<Bytes> (&raw)[32], uint32_t mask, uint16_t flags) {
    using R = Raw<Bytes>;
    const bool sign = flags & kSignExtend;
    if (flags & kWideSlot) {
        uint64_t out[32];
        for (int i = 0; i < 32; ++i) out[i] = extend<Bytes>(uint64_t(raw[i]), sign);
        store_slot(w, slot, out, mask);
    } else if constexpr (Bytes == 4) {
        store_slot(w, slot, raw, mask);
    } else {
        uint32_t out[32];
        for (int i = 0; i < 32; ++i) out[i] = static_cast<uint32_t>(extend<Bytes>(uint64_t(R(raw[i])), sign));
        store_slot(w, slot, out, mask);
    }
}

template <Space S, unsigned Bytes, unsigned N>
Flow exec_ld(Warp& w, const Instr& in, uint32_t mask) {
    using R = Raw<Bytes>;
    constexpr uint32_t total = Bytes * N;
    uint64_t addr[32];
    lane_addresses(w, in, addr);
    R v[N][32];
    constexpr bool per_thread = S == Space::Local || S == Space::FuncParam;
    uintptr_t base = 0;
    if (!per_thread && in.base == kNoReg) {
        // One address for every lane (a parameter or a symbol): translate and read once.
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
        const uint8_t* p = translate<S>(w, lane, addr[0], total, false);
        if (!p) return Flow::Stop;
        for (unsigned k = 0; k < N; ++k) {
            R x;
            __builtin_memcpy(&x, p + k * Bytes, Bytes);
            for (int i = 0; i < 32; ++i) v[k][i] = x;
        }
    } else if (WarpAccess kind = warp_fast_path<S>(w, addr, mask, total, &base); kind != WarpAccess::Checked) {
        if (kind == WarpAccess::Contiguous && N == 1) {
            __builtin_memcpy(&v[0][0], reinterpret_cast<const uint8_t*>(base + addr[0]), 32 * Bytes);
        } else if (kind == WarpAccess::Uniform) {
            const uint8_t* p = reinterpret_cast<const uint8_t*>(base + addr[0]);
            for (unsigned k = 0; k < N; ++k) {
                R x;
                __builtin_memcpy(&x, p + k * Bytes, Bytes);
                for (int i = 0; i < 32; ++i) v[k][i] = x;
            }
        } else if (mask == kFullMask) {
            for (int i = 0; i < 32; ++i) {
                const uint8_t* p = reinterpret_cast<const uint8_t*>(base + addr[i]);
                for (unsigned k = 0; k < N; ++k) __builtin_memcpy(&v[k][i], p + k * Bytes, Bytes);
            }
        } else {
            const uint64_t first = addr[__builtin_ctz(mask)];
            for (int i = 0; i < 32; ++i) {
                const uint8_t* p = reinterpret_cast<const uint8_t*>(base + ((mask & lane_bit(i)) ? addr[i] : first));
                for (unsigned k = 0; k < N; ++k) __builtin_memcpy(&v[k][i], p + k * Bytes, Bytes);
            }
        }
    } else {
        for (unsigned k = 0; k < N; ++k)
            for (int i = 0; i < 32; ++i) v[k][i] = 0;
        uint32_t m = mask;
        while (m) {
            uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
            m &= m - 1;
            const uint8_t* p = translate<S>(w, lane, addr[lane], total, false);
            if (!p) return Flow::Stop;
            for (unsigned k = 0; k < N; ++k) __builtin_memcpy(&v[k][lane], p + k * Bytes, Bytes);
        }
    }
    for (unsigned k = 0; k < N; ++k) put_loaded<Bytes>(w, in.d[k], v[k], mask, in.flags);
    return Flow::Next;
}

template <Space S, unsigned Bytes, unsigned N>
Flow exec_st(Warp& w, const Instr& in, uint32_t mask) {
    using R = Raw<Bytes>;
    constexpr uint32_t total = Bytes * N;
    uint64_t addr[32];
    lane_addresses(w, in, addr);
    uint64_t v[N][32];
    for (unsigned k = 0; k < N; ++k) {
        if (in.flags & kWideSlot) {
            read_lanes(w, in.s[k], v[k]);
        } else {
            uint32_t t[32];
            read_lanes(w, in.s[k], t);
            for (int i = 0; i < 32; ++i) v[k][i] = t[i];
        }
    }
    // Lanes store in lane order: when several lanes write one address, the highest lane's value stays
    // (CUDA leaves the winner unspecified; this choice is deterministic).
    // A generic store while the cached range is the module's constant segment goes through translate, which faults
    // there, as it does when the range is not cached.
    bool checked = false;
    if constexpr (S == Space::Generic) {
        const Program& prog = *w.launch->program;
        checked = prog.const_segment_bytes != 0 && w.cache_base == prog.const_segment;
    }
    if (uintptr_t base = 0; !checked && warp_fast_path<S>(w, addr, mask, total, &base) != WarpAccess::Checked) {
        for_lanes(mask, [&](unsigned lane) {
            uint8_t* p = reinterpret_cast<uint8_t*>(base + addr[lane]);
            for (unsigned k = 0; k < N; ++k) {
                R x = static_cast<R>(v[k][lane]);
                __builtin_memcpy(p + k * Bytes, &x, Bytes);
            }
        });
        return Flow::Next;
    }
    uint32_t m = mask;
    while (m) {
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        m &= m - 1;
        uint8_t* p = translate<S>(w, lane, addr[lane], total, true);
        if (!p) return Flow::Stop;
        for (unsigned k = 0; k < N; ++k) {
            R x = static_cast<R>(v[k][lane]);
            __builtin_memcpy(p + k * Bytes, &x, Bytes);
        }
    }
    return Flow::Next;
}

template <bool Store, Space S, unsigned Bytes>
ExecFn mem_fn_n(unsigned n) {
    switch (n) {
    case 1:
        return Store ? &exec_st<S, Bytes, 1> : &exec_ld<S, Bytes, 1>;
    case 2:
        return Store ? &exec_st<S, Bytes, 2> : &exec_ld<S, Bytes, 2>;
    case 4:
        return Store ? &exec_st<S, Bytes, 4> : &exec_ld<S, Bytes, 4>;
    default:
        return nullptr;
    }
}

template <bool Store, Space S>
ExecFn mem_fn_b(unsigned bytes, unsigned n) {
    switch (bytes) {
    case 1:
        return mem_fn_n<Store, S, 1>(n);
    case 2:
        return mem_fn_n<Store, S, 2>(n);
    case 4:
        return mem_fn_n<Store, S, 4>(n);
    case 8:
        return mem_fn_n<Store, S, 8>(n);
    default:
        return nullptr;
    }
}

template <bool Store>
ExecFn mem_fn(Space s, unsigned bytes, unsigned n) {
    switch (s) {
    case Space::Global:
        return mem_fn_b<Store, Space::Global>(bytes, n);
    case Space::Shared:
        return mem_fn_b<Store, Space::Shared>(bytes, n);
    case Space::Local:
        return mem_fn_b<Store, Space::Local>(bytes, n);
    case Space::Const:
        return mem_fn_b<Store, Space::Const>(bytes, n);
    case Space::KernelParam:
        return mem_fn_b<Store, Space::KernelParam>(bytes, n);
    case Space::FuncParam:
        return mem_fn_b<Store, Space::FuncParam>(bytes, n);
    case Space::Generic:
        return mem_fn_b<Store, Space::Generic>(bytes, n);
    }
    return nullptr;
}

// The family's meaning is the front end's (ptx/instr_memory.h); here the handlers, registers and addresses.

Status set_address(InstrDecoder& d, Instr& in, const InstrDecoder::Address& a) {
    in.base = a.base;
    in.imm = a.imm;
    if (a.base != kNoReg && !a.base_wide) in.flags |= kAddr32;
    return ok_status();
}

Status decode_ld(InstrDecoder& d) {
    const ptx::MemoryAccess mm = D4R_TRY(d.typed(ptx::decode_memory));
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(1), space_of(mm.space)));
    std::vector<const ast::Operand*> dsts = ptx::decode::vector_elements(d.operand(0));
    unsigned bytes = type_bits(mm.type) / 8;
    // Every destination register must have the same width class (32- or 64-bit slots) and be at least as
    // wide as the type.
    uint32_t regs[4];
    bool wide = false;
    for (size_t k = 0; k < dsts.size(); ++k) {
        const ast::Operand& o = *dsts[k];
        if (o.kind == ast::OperandKind::Name && o.name == "_") {
            regs[k] = d.scratch(bytes == 8);
            if (k == 0) wide = bytes == 8;
            continue;
        }
        InstrDecoder::Reg r = D4R_TRY(d.reg(o));
        if (bytes == 8 && !r.wide)
            return d.malformed(fmt::format("register '{}' is narrower than .{}", o.name, type_name(mm.type)));
        if (k > 0 && r.wide != wide) return d.error("destination registers differ in width");
        wide = r.wide;
        regs[k] = r.offset;
    }
    ExecFn fn = mem_fn<false>(addr.space, bytes, mm.vector);
    if (!fn) return d.error("unsupported load");
    Instr& in = d.emit(fn);
    for (size_t k = 0; k < dsts.size(); ++k) in.d[k] = regs[k];
    in.count = static_cast<uint8_t>(mm.vector);
    in.flags = (is_signed(mm.type) ? kSignExtend : 0) | (wide ? kWideSlot : 0);
    return set_address(d, in, addr);
}

Status decode_st(InstrDecoder& d) {
    const ptx::MemoryAccess mm = D4R_TRY(d.typed(ptx::decode_memory));
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(0), space_of(mm.space)));
    if (addr.space == Space::KernelParam) return d.error("kernel parameters are read-only");
    std::vector<const ast::Operand*> srcs = ptx::decode::vector_elements(d.operand(1));
    unsigned bytes = type_bits(mm.type) / 8;
    uint32_t regs[4];
    bool wide = bytes == 8;
    bool first = true;
    for (size_t k = 0; k < srcs.size(); ++k) {
        const ast::Operand& o = *srcs[k];
        if (o.kind == ast::OperandKind::Name) {
            InstrDecoder::Reg r = D4R_TRY(d.reg(o));
            if (bytes == 8 && !r.wide)
                return d.malformed(fmt::format("register '{}' is narrower than .{}", o.name, type_name(mm.type)));
            if (!first && r.wide != wide) return d.error("source registers differ in width");
            wide = r.wide;
            first = false;
            regs[k] = r.offset;
        } else {
            Type ct = bytes == 8 ? Type::B64 : Type::B32;
            if (is_float(mm.type)) ct = mm.type == Type::F64 ? Type::F64 : Type::F32;
            if (!first && (bytes == 8) != wide) return d.error("source values differ in width");
            regs[k] = D4R_TRY(d.src(o, ct));
            wide = bytes == 8;
            first = false;
        }
    }
    ExecFn fn = mem_fn<true>(addr.space, bytes, mm.vector);
    if (!fn) return d.error("unsupported store");
    Instr& in = d.emit(fn);
    for (size_t k = 0; k < srcs.size(); ++k) in.s[k] = regs[k];
    in.count = static_cast<uint8_t>(mm.vector);
    in.flags = wide ? kWideSlot : 0;
    return set_address(d, in, addr);
}

Flow exec_nop(Warp&, const Instr&, uint32_t) { return Flow::Next; }

Status decode_prefetch(InstrDecoder& d) {
    D4R_TRY(d.typed(ptx::decode_memory)); // a hint: nothing to do in d4r's memory
    d.emit(&exec_nop);
    return ok_status();
}

} // namespace

void add_memory_ops(OpcodeTable& t) {
    t["ld"] = &decode_ld;
    t["ldu"] = &decode_ld;
    t["st"] = &decode_st;
    t["prefetch"] = &decode_prefetch;
    t["prefetchu"] = &decode_prefetch;
}

} // namespace d4r::ptxsim
