// ptxsim internals: address translation and bounds checks for one lane's access, per state space.
// Global addresses are host addresses checked against the launch's ranges (device allocations and the
// module's variable segments) with a per-warp cache of the last range hit; shared, local, kernel
// parameter and function parameter addresses are offsets into per-block / per-thread buffers; generic
// addresses are classified by window (ptxsim.h). A failed check records the fault and returns nullptr.
#pragma once

#include <algorithm>

#include <fmt/format.h>

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

const char* space_name(Space s);

D4R_INLINE bool range_holds(uint64_t base, uint64_t size, uint64_t addr, uint64_t bytes) {
    uint64_t off = addr - base;
    return off < size && bytes <= size - off;
}

inline uint8_t* global_slow(Warp& w, uint64_t addr, uint32_t bytes) {
    const std::vector<MemRange>& ranges = w.launch->ranges;
    auto it =
        std::upper_bound(ranges.begin(), ranges.end(), addr, [](uint64_t a, const MemRange& r) { return a < r.base; });
    if (it == ranges.begin()) return nullptr;
    --it;
    if (!range_holds(it->base, it->size, addr, bytes)) return nullptr;
    w.cache_base = it->base;
    w.cache_size = it->size;
    return reinterpret_cast<uint8_t*>(addr);
}

D4R_INLINE uint8_t* global_ptr(Warp& w, uint64_t addr, uint32_t bytes) {
    if (range_holds(w.cache_base, w.cache_size, addr, bytes)) return reinterpret_cast<uint8_t*>(addr);
    return global_slow(w, addr, bytes);
}

D4R_INLINE uint32_t thread_of(const Warp& w, uint32_t lane) { return w.first_thread + lane; }

// Pointer to BYTES at ADDR in SPACE for LANE, or nullptr after recording a fault. WRITE: a store or
// atomic (kernel parameters and constants are read-only).
template <Space S>
D4R_INLINE uint8_t* translate(Warp& w, uint32_t lane, uint64_t addr, uint32_t bytes, bool write) {
    if ((addr & (bytes - 1)) != 0 && S != Space::KernelParam && S != Space::FuncParam) {
        fault(w, FaultKind::MisalignedAddress, lane, addr, bytes,
              fmt::format("{}-byte {} access", bytes, space_name(S)));
        return nullptr;
    }
    uint8_t* p = nullptr;
    if constexpr (S == Space::Global) {
        p = global_ptr(w, addr, bytes);
    } else if constexpr (S == Space::Shared) {
        if (range_holds(0, w.block->shared_bytes, addr, bytes) ||
            range_holds(w.block->reserved_shared, kReservedSharedBytes, addr, bytes))
            p = w.block->shared + addr;
    } else if constexpr (S == Space::Local) {
        uint32_t stride = w.block->local_stride;
        if (range_holds(0, stride, addr, bytes)) p = w.block->local + size_t(thread_of(w, lane)) * stride + addr;
    } else if constexpr (S == Space::FuncParam) {
        uint32_t stride = w.block->fparam_stride;
        if (range_holds(0, stride, addr, bytes)) p = w.block->fparam + size_t(thread_of(w, lane)) * stride + addr;
    } else if constexpr (S == Space::KernelParam) {
        if (!write && range_holds(0, w.launch->params.size(), addr, bytes)) p = w.launch->params.data() + addr;
    } else if constexpr (S == Space::Const) {
        const Program& prog = *w.launch->program;
        if (!write && range_holds(prog.const_segment, prog.const_segment_bytes, addr, bytes))
            p = reinterpret_cast<uint8_t*>(addr);
    } else { // generic
        if (addr - kSharedWindow < kWindowBytes)
            return translate<Space::Shared>(w, lane, addr - kSharedWindow, bytes, write);
        if (addr - kLocalWindow < kWindowBytes)
            return translate<Space::Local>(w, lane, addr - kLocalWindow, bytes, write);
        if (addr - kParamWindow < kWindowBytes)
            return translate<Space::KernelParam>(w, lane, addr - kParamWindow, bytes, write);
        p = global_ptr(w, addr, bytes);
        if (p && write) {
            const Program& prog = *w.launch->program;
            if (range_holds(prog.const_segment, prog.const_segment_bytes, addr, bytes)) p = nullptr;
        }
    }
    if (!p) {
        fault(w, FaultKind::IllegalAddress, lane, addr, bytes,
              fmt::format("{}-byte {} {} outside any {}", bytes, space_name(S), write ? "write" : "read",
                          S == Space::Global || S == Space::Generic ? "live allocation" : "valid range"));
    }
    return p;
}

// The addresses of the lanes: base register (32- or 64-bit slot, per kAddr32 in flags) plus imm, or
// the absolute imm.
inline constexpr uint16_t kAddr32 = 0x8000;

D4R_INLINE void lane_addresses(const Warp& w, const Instr& in, uint64_t (&addr)[32]) {
    const uint64_t imm = static_cast<uint64_t>(in.imm);
    if (in.base == kNoReg) {
        for (int i = 0; i < 32; ++i) addr[i] = imm;
    } else if (in.flags & kAddr32) {
        uint32_t b[32];
        read_lanes(w, in.base, b);
        for (int i = 0; i < 32; ++i) addr[i] = uint32_t(b[i] + uint32_t(imm));
    } else {
        read_lanes(w, in.base, addr);
        for (int i = 0; i < 32; ++i) addr[i] += imm;
    }
}

// The address one lane's instruction names (the lane_addresses rule for a single lane).
D4R_INLINE uint64_t lane_address(const Warp& w, const Instr& in, unsigned lane) {
    const uint64_t imm = static_cast<uint64_t>(in.imm);
    if (in.base == kNoReg) return imm;
    if (in.flags & kAddr32) return uint32_t(reinterpret_cast<const uint32_t*>(w.regs + in.base)[lane] + uint32_t(imm));
    return reinterpret_cast<const uint64_t*>(w.regs + in.base)[lane] + imm;
}

} // namespace d4r::ptxsim
