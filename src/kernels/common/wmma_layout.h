// d4r kernels: where AMD's wave32 WMMA 16x16x16 keeps its matrices, for RDNA3 (gfx11) and RDNA4 (gfx12). The
// one place these register-layout facts are written: the AMD kernels (src/kernels/refine/hip) build their
// operands and read their results through these functions, and the host tests (tests/kernels) check them.
//
// Promise (constexpr, host C++ and HIP device code alike; lane 0..31, half = lane / 16, r = lane % 16):
//  * gfx11 (v_wmma_*_16x16x16_f16): an A or B operand lane holds 16 f16 slots, all 16 K of its row (A: row
//    m = r) or column (B: column n = r); lanes 0-15 and 16-31 hold the same values (replicated). The f32
//    accumulator C/D: slot (VGPR) i of a lane is row 2i + half, column r. The f16 accumulator
//    (v_wmma_f16_16x16x16_f16 with op_sel 0) uses the low half of the same 8 VGPRs: vector element 2i.
//  * gfx12 (v_wmma_*_16x16x16_f16 / _fp8, "_gfx12" builtins): an operand lane holds 8 of the 16 K. Two
//    conventions are published and disagree: rocjitsu's (lanes 0-15 hold K 0..7, lanes 16-31 K 8..15) and AMD's
//    matrix calculator's (lane r: K 0-3 and 8-11; lane r+16: K 4-7 and 12-15). When A and B are built with the
//    same convention the hardware pairs equal K either way and the product is the same sum, so d4r builds both
//    with one function (operand_k) and kGfx12KOrder picks the convention. C/D: slot i is row i + 8*half,
//    column r.
//  * The gfx12 layout shim (D4R_WMMA_GFX12_LAYOUT_SHIM): a gfx11 kernel builds its operands in the gfx12
//    layout and converts them with one exchange between lane l and lane l ^ 16 (every conversion below moves a
//    value only within its lane or to its partner: tested), so the gfx12 fragment code runs on a gfx11 target.
#pragma once

#include <cstdint>

#include "kernels/common/f16.h"

namespace d4r::kernels::wmma {

enum class Arch : uint8_t { Gfx11, Gfx12 };
enum class KOrder : uint8_t {
    Halves,      // gfx12, rocjitsu: lanes 0-15 hold K 0..7, lanes 16-31 K 8..15
    Interleaved, // gfx12, AMD's matrix calculator: lane r K 0-3 and 8-11, lane r + 16 K 4-7 and 12-15
};
inline constexpr KOrder kGfx12KOrder = KOrder::Halves;

inline constexpr uint32_t kWave = 32, kTile = 16;
inline constexpr uint32_t kAccSlots = 8; // f32 accumulator VGPRs per lane, both archs

struct Coord {
    uint32_t row = 0, col = 0;
};
struct LaneSlot {
    uint32_t lane = 0, slot = 0;
};

// f16 values per lane in an A or B operand.
D4R_HD constexpr uint32_t operand_slots(Arch arch) { return arch == Arch::Gfx11 ? 16u : 8u; }

// The K that slot `slot` of `lane` holds in an A or B operand.
D4R_HD constexpr uint32_t operand_k(Arch arch, uint32_t lane, uint32_t slot, KOrder order = kGfx12KOrder) {
    if (arch == Arch::Gfx11) return slot;
    const uint32_t half = lane / 16u;
    if (order == KOrder::Halves) return slot + 8u * half;
    return (slot / 4u) * 8u + half * 4u + slot % 4u;
}

// A[m][k]: (m, k) of a slot; B[k][n]: (k, n).
D4R_HD constexpr Coord a_coord(Arch arch, uint32_t lane, uint32_t slot, KOrder order = kGfx12KOrder) {
    return {lane % 16u, operand_k(arch, lane, slot, order)};
}
D4R_HD constexpr Coord b_coord(Arch arch, uint32_t lane, uint32_t slot, KOrder order = kGfx12KOrder) {
    return {operand_k(arch, lane, slot, order), lane % 16u};
}

// The slot of `lane` that holds K = k, or operand_slots(arch) when the lane holds no such K.
D4R_HD constexpr uint32_t operand_slot_of_k(Arch arch, uint32_t lane, uint32_t k, KOrder order = kGfx12KOrder) {
    for (uint32_t s = 0; s < operand_slots(arch); ++s)
        if (operand_k(arch, lane, s, order) == k) return s;
    return operand_slots(arch);
}

// The accumulator: (row m, column n) of slot i of a lane.
D4R_HD constexpr Coord d_coord(Arch arch, uint32_t lane, uint32_t slot) {
    const uint32_t half = lane / 16u;
    return {arch == Arch::Gfx11 ? 2u * slot + half : slot + 8u * half, lane % 16u};
}
D4R_HD constexpr LaneSlot d_home(Arch arch, uint32_t m, uint32_t n) {
    return arch == Arch::Gfx11 ? LaneSlot{(m % 2u) * 16u + n, m / 2u} : LaneSlot{(m / 8u) * 16u + n, m % 8u};
}
// gfx11's f16 accumulator (op_sel 0): the vector element of accumulator slot i.
D4R_HD constexpr uint32_t d_f16_element(uint32_t slot) { return 2u * slot; }

// A lane-local conversion step: take slot `slot` of this lane (partner false) or of lane ^ 16 (partner true).
struct Source {
    bool partner = false;
    uint32_t slot = 0;
    bool found = false;
};

// The shim's operand conversion: gfx11 slot `slot` (K = slot) of a lane in half `half`, from the gfx12 layout.
D4R_HD constexpr Source shim_operand_source(uint32_t half, uint32_t slot, KOrder order = kGfx12KOrder) {
    for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t s = operand_slot_of_k(Arch::Gfx12, h * 16u, slot, order);
        if (s < 8u) return {h != half, s, true};
    }
    return {};
}
// Accumulator conversions: slot `slot` of a lane in half `half` of layout `to`, from layout `from`.
D4R_HD constexpr Source acc_source(Arch from, Arch to, uint32_t half, uint32_t slot) {
    const Coord c = d_coord(to, half * 16u, slot);
    const LaneSlot home = d_home(from, c.row, c.col);
    return {home.lane / 16u != half, home.slot, true};
}
// An A operand from an accumulator that holds its transpose (D[k][m] = A[m][k], one 16x16 tile: attention's
// P^T as the A operand of P V): slot `slot` of a lane in half `half`.
D4R_HD constexpr Source transposed_acc_to_a_source(Arch arch, uint32_t half, uint32_t slot,
                                                   KOrder order = kGfx12KOrder) {
    const Coord a = a_coord(arch, half * 16u, slot, order); // (m = 0, k): the column m is the lane's own
    const LaneSlot home = d_home(arch, a.col, a.row);       // D[k][m]
    return {home.lane / 16u != half, home.slot, true};
}

} // namespace d4r::kernels::wmma
