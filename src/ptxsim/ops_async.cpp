// Asynchronous copies: cp.async.ca/.cg.shared.global (4, 8 or 16 bytes; optional src-size with zero
// fill, or an ignore-src predicate; cache and prefetch hints accepted), cp.async.commit_group,
// cp.async.wait_group N and cp.async.wait_all (cp.async.mbarrier.arrive: ops_mbarrier.cpp).
//
// The copy is performed when the instruction issues. The ISA makes the data visible only after the
// matching wait (or later), so a program that is correct on hardware cannot tell the difference, and
// the commit/wait instructions have nothing left to do. Every copy is checked like a load and a store:
// both addresses aligned to the copy size, the destination inside shared memory, the bytes read
// (src-size of them) inside a live global allocation. A src-size above the copy size copies the copy
// size (the ISA requires src-size <= cp-size).
//
// Instr use: base/imm destination (shared; kAddr32 in flags for a 32-bit register), s[0]/aux source
// address register (kNoReg: aux is the absolute address), flags bit 0: 32-bit source register;
// s[1] src-size register (kNoReg: none); ps[0]/ps_neg[0] ignore-src predicate (-1: none).
#include <fmt/format.h>

#include "ptx/instr_async.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lane_ops.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

constexpr uint16_t kSrc32 = 1;

template <unsigned Bytes>
D4R_INLINE bool copy_lane(Warp& w, uint32_t lane, uint64_t dst, uint64_t src, uint32_t size) {
    const uint32_t n = size < Bytes ? size : Bytes;
    if (src & (Bytes - 1)) {
        fault(w, FaultKind::MisalignedAddress, lane, src, Bytes, fmt::format("{}-byte cp.async source", Bytes));
        return false;
    }
    uint8_t* d = translate<Space::Shared>(w, lane, dst, Bytes, true);
    if (!d) return false;
    uint8_t buf[Bytes] = {};
    if (n > 0) {
        const uint8_t* s = global_ptr(w, src, n);
        if (!s) {
            fault(w, FaultKind::IllegalAddress, lane, src, n,
                  fmt::format("{}-byte cp.async global read outside any live allocation", n));
            return false;
        }
        __builtin_memcpy(buf, s, n);
    }
    __builtin_memcpy(d, buf, Bytes);
    return true;
}

template <unsigned Bytes>
Flow exec_cp_async(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t dst[32];
    lane_addresses(w, in, dst);
    uint64_t src[32];
    if (in.s[0] == kNoReg) {
        for (int i = 0; i < 32; ++i) src[i] = in.aux;
    } else if (in.flags & kSrc32) {
        uint32_t b[32];
        read_lanes(w, in.s[0], b);
        for (int i = 0; i < 32; ++i) src[i] = uint32_t(b[i] + uint32_t(in.aux));
    } else {
        read_lanes(w, in.s[0], src);
        for (int i = 0; i < 32; ++i) src[i] += in.aux;
    }
    uint32_t size[32];
    if (in.s[1] != kNoReg)
        read_lanes(w, in.s[1], size);
    else
        for (int i = 0; i < 32; ++i) size[i] = Bytes;
    const uint32_t ignore = in.ps[0] >= 0 ? read_pred(w, in.ps[0], in.ps_neg[0]) : 0u;
    // Lanes copy in lane order (overlapping destinations: the highest lane's bytes stay).
    uint32_t m = mask;
    while (m) {
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
        m &= m - 1;
        if (!copy_lane<Bytes>(w, lane, dst[lane], src[lane], (ignore & lane_bit(lane)) ? 0u : size[lane]))
            return Flow::Stop;
    }
    return Flow::Next;
}

Flow exec_async_nop(Warp&, const Instr&, uint32_t) { return Flow::Next; }

// The family's meaning is the front end's (ptx/instr_async.h); here the addresses, registers and handlers.
Status decode_cp(InstrDecoder& d) {
    const ptx::AsyncCopy c = D4R_TRY(d.typed(ptx::decode_async));
    using Op = ptx::AsyncCopy::Op;
    if (c.op == Op::MbarrierArrive) return decode_cp_async_mbarrier_arrive(d); // the mbarrier family's
    if (c.op != Op::Copy) { // the copies complete at once: every group is complete
        d.emit(&exec_async_nop);
        return ok_status();
    }
    const unsigned bytes = c.bytes;
    InstrDecoder::Address dst = D4R_TRY(d.address(d.operand(0), Space::Shared));
    InstrDecoder::Address src = D4R_TRY(d.address(d.operand(1), Space::Global));
    uint32_t size_reg = kNoReg;
    std::pair<int16_t, bool> ignore{-1, false};
    if (c.source_operand) {
        const ast::Operand& o = d.operand(3);
        std::optional<Symbol> s = o.kind == ast::OperandKind::Name ? d.lookup(o.name) : std::nullopt;
        if (o.negated || (s && s->kind == Symbol::Kind::Pred))
            ignore = D4R_TRY(d.pred_src(o));
        else
            size_reg = D4R_TRY(d.src(o, Type::U32));
    }
    ExecFn fn = bytes == 4 ? &exec_cp_async<4> : bytes == 8 ? &exec_cp_async<8> : &exec_cp_async<16>;
    Instr& in = d.emit(fn);
    in.base = dst.base;
    in.imm = dst.imm;
    if (dst.base != kNoReg && !dst.base_wide) in.flags |= kAddr32;
    in.s[0] = src.base;
    in.aux = static_cast<uint64_t>(src.imm);
    if (src.base != kNoReg && !src.base_wide) in.flags |= kSrc32;
    in.s[1] = size_reg;
    in.ps[0] = ignore.first;
    in.ps_neg[0] = ignore.second ? 1 : 0;
    return ok_status();
}

} // namespace

bool cp_async_lane(Warp& w, uint32_t lane, unsigned bytes, uint64_t dst, uint64_t src, uint32_t size) {
    return bytes == 4   ? copy_lane<4>(w, lane, dst, src, size)
           : bytes == 8 ? copy_lane<8>(w, lane, dst, src, size)
                        : copy_lane<16>(w, lane, dst, src, size);
}

void add_async_ops(OpcodeTable& t) { t["cp"] = &decode_cp; }

} // namespace d4r::ptxsim
