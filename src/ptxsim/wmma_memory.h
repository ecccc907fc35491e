// ptxsim internals: wmma.load and wmma.store for the lanes of a warp (the rules of ops_wmma.cpp's header: where each
// element of a fragment lies in memory and in a lane's registers, the sub-byte alignment rule), shared by the
// interpreter's handlers (ops_wmma.cpp) and the warp code of the PTX JIT (compiled_warp_ops.cpp), each reading its own
// registers through the accessors.
#pragma once

#include <cstring>

#include <fmt/format.h>

#include "ptxsim/memory_access.h"
#include "ptxsim/wmma_warp.h"

namespace d4r::ptxsim {

// The fragment a wmma.load or wmma.store moves: which, its layout, shape, element type and registers (32-bit; 64-bit
// for f64).
struct WmmaFragment {
    ptx::wmma::Frag frag = ptx::wmma::Frag::A;
    bool col = false;
    WShape shape = WShape::M16N16K16;
    EType type = EType::F16;
    unsigned regs = 0;
};

// The lanes of MASK in lane order, each its elements in order, as interpreted: ADDRESS(lane) the lane's address,
// STRIDE(lane) its stride in elements, GET(lane, r) and PUT(lane, r, word) its register r of the fragment. False after
// recording the fault of the first access that fails.
template <Space S, bool Store, class Address, class Stride, class Get, class Put>
bool wmma_move(Warp& w, uint32_t mask, const WmmaFragment& f, Address&& address, Stride&& stride, Get&& get,
               Put&& put) {
    using namespace ptx::wmma;
    const auto [rows, cols] = matrix_of(f.frag, dims_of(f.shape));
    const unsigned bits = bits_of(f.type);
    if constexpr (!Store) {
        if (sub_byte(f.type)) { // s4/u4/b1 A or B: one register, every element unique
            const unsigned n = rows * cols / 32;
            for (uint32_t m = mask; m; m &= m - 1) {
                const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
                const uint64_t base = address(lane), s = stride(lane);
                // Each row of A / column of B starts at a multiple of the fragment's 4 bytes.
                if (base % 4 != 0 || s * bits % 32 != 0) {
                    fault(w, FaultKind::MisalignedAddress, lane, base, 4,
                          fmt::format("wmma.load of {}-bit elements: address 0x{:x} and stride {} elements must start "
                                      "every row or column on a 4-byte boundary",
                                      bits, base, s));
                    return false;
                }
                uint32_t value = 0;
                for (unsigned e = 0; e < n; ++e) {
                    const unsigned i = e * 32 + lane;
                    const uint64_t r = i / cols, c = i % cols;
                    const uint64_t bit = (f.col ? c * s + r : r * s + c) * bits;
                    const uint8_t* p = translate<S>(w, lane, base + bit / 8, 1, false);
                    if (!p) return false;
                    value |= ((*p >> (bit % 8)) & ((1u << bits) - 1)) << (e * bits);
                }
                put(lane, 0, value);
            }
            return true;
        }
    }
    const unsigned unique = rows * cols / 32;
    const unsigned n = f.regs * (f.type == EType::F64 ? 1 : 32 / bits); // elements, repeated ones included
    const unsigned bytes = bits / 8;
    for (uint32_t m = mask; m; m &= m - 1) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        const uint64_t base = address(lane), s = stride(lane);
        auto reg = [&](unsigned r) { return get(lane, r); };
        auto set = [&](unsigned r, uint64_t v) { put(lane, r, v); };
        for (unsigned e = 0; e < n; ++e) {
            const unsigned i = (e % unique) * 32 + lane;
            const uint64_t r = i / cols, c = i % cols;
            uint8_t* p = translate<S>(w, lane, base + (f.col ? c * s + r : r * s + c) * bytes, bytes, Store);
            if (!p) return false;
            uint64_t v = 0;
            if constexpr (Store) {
                v = fragment_element(f.type, e, reg);
                std::memcpy(p, &v, bytes);
            } else {
                std::memcpy(&v, p, bytes);
                set_fragment_element(f.type, e, v, reg, set);
            }
        }
    }
    return true;
}

} // namespace d4r::ptxsim
