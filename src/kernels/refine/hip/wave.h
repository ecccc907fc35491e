// d4r refine network, AMD kernels (refine.hip): the wave32 device helpers, written for clang -x hip without
// HIP's headers: thread and block ids, the workgroup barrier, the exchange between lane l and l ^ 16, and the
// WMMA fragments and products of the target, in the layouts of kernels/common/wmma_layout.h.
//
// Promise: kFrag is the layout the kernel code builds operands in and reads accumulators from: the target's
// own, or gfx12's on a gfx11 target built with D4R_WMMA_GFX12_LAYOUT_SHIM (wmma_f32 then converts the
// operands to gfx11's, runs gfx11's instruction and converts D back, with lane exchanges only).
#pragma once

#include <cstdint>

#include "kernels/common/wmma_layout.h"

#if !defined(__HIP_DEVICE_COMPILE__)
#error "wave.h is AMD device code: compile with clang -x hip --offload-device-only"
#endif

#define D4R_DEVICE __attribute__((device, always_inline)) inline
#define D4R_KERNEL(threads) extern "C" __attribute__((global, amdgpu_flat_work_group_size(1, threads)))

namespace d4r::refine::hip {

using kernels::wmma::Arch;

#if defined(__GFX12__)
inline constexpr Arch kHw = Arch::Gfx12;
#elif defined(__GFX11__)
inline constexpr Arch kHw = Arch::Gfx11;
#else
#error "the refine AMD kernels are built for gfx11 (RDNA3) and gfx12 (RDNA4) targets"
#endif
#if defined(D4R_WMMA_GFX12_LAYOUT_SHIM) && D4R_WMMA_GFX12_LAYOUT_SHIM
static_assert(kHw == Arch::Gfx11, "the gfx12 layout shim runs on gfx11 targets");
inline constexpr Arch kFrag = Arch::Gfx12;
#else
inline constexpr Arch kFrag = kHw;
#endif
inline constexpr uint32_t kSlots = kernels::wmma::operand_slots(kFrag);

typedef _Float16 half16_t __attribute__((ext_vector_type(16)));
typedef _Float16 half8_t __attribute__((ext_vector_type(8)));
typedef float float8_t __attribute__((ext_vector_type(8)));

struct Frag { // an A or B operand in kFrag's layout: raw f16 bits per slot
    uint16_t v[kSlots];
};
struct Frag8 { // an 8-bit (e4m3) A or B operand in kFrag's layout: slot s holds the K of f16 slot s (gfx12 only)
    uint8_t v[kSlots];
};
struct Acc { // an f32 accumulator in kFrag's layout
    float v[kernels::wmma::kAccSlots];
};

D4R_DEVICE uint32_t lane_id() { return __builtin_amdgcn_workitem_id_x() & 31u; }
D4R_DEVICE uint32_t half_of_wave() { return (__builtin_amdgcn_workitem_id_x() >> 4) & 1u; }

// Every wave of the workgroup at this point, its LDS writes visible to all.
D4R_DEVICE void sync_workgroup() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// The value of lane l ^ 16 (v_permlanex16 with the identity selects: lane r of one row reads lane r of the other).
D4R_DEVICE uint32_t partner_u32(uint32_t v) {
    return static_cast<uint32_t>(
        __builtin_amdgcn_permlanex16(0, static_cast<int>(v), 0x76543210u, 0xfedcba98u, false, false));
}
D4R_DEVICE float partner_f32(float v) {
    return __builtin_bit_cast(float, partner_u32(__builtin_bit_cast(uint32_t, v)));
}

// The partner's 16-bit slots, two per exchange.
template <uint32_t N>
D4R_DEVICE void partner_halves(const uint16_t (&own)[N], uint16_t (&other)[N]) {
    for (uint32_t s = 0; s < N; s += 2) {
        uint32_t x = partner_u32(static_cast<uint32_t>(own[s]) | (static_cast<uint32_t>(own[s + 1]) << 16));
        other[s] = static_cast<uint16_t>(x & 0xffffu);
        other[s + 1] = static_cast<uint16_t>(x >> 16);
    }
}

D4R_DEVICE uint16_t half_bits(_Float16 h) { return __builtin_bit_cast(uint16_t, h); }
D4R_DEVICE _Float16 half_of(uint16_t b) { return __builtin_bit_cast(_Float16, b); }

// D = A B + C with f32 accumulation (v_wmma_f32_16x16x16_f16), operands and accumulators in kFrag's layout.
D4R_DEVICE Acc wmma_f32(const Frag& a, const Frag& b, const Acc& c) {
    using namespace kernels::wmma;
    Acc d;
#if defined(__GFX12__)
    half8_t va, vb;
    float8_t vc;
    for (uint32_t s = 0; s < 8; ++s) {
        va[s] = half_of(a.v[s]);
        vb[s] = half_of(b.v[s]);
        vc[s] = c.v[s];
    }
    float8_t vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(va, vb, vc);
    for (uint32_t s = 0; s < 8; ++s) d.v[s] = vd[s];
#else
    half16_t va, vb;
    float8_t vc;
    if constexpr (kFrag == Arch::Gfx11) {
        for (uint32_t s = 0; s < 16; ++s) {
            va[s] = half_of(a.v[s]);
            vb[s] = half_of(b.v[s]);
        }
        for (uint32_t s = 0; s < 8; ++s) vc[s] = c.v[s];
    } else { // the shim: gfx12 fragments into gfx11's layout
        const bool upper = half_of_wave() != 0;
        uint16_t pa[kSlots], pb[kSlots];
        partner_halves(a.v, pa);
        partner_halves(b.v, pb);
        for (uint32_t s = 0; s < 16; ++s) {
            const Source s0 = shim_operand_source(0, s), s1 = shim_operand_source(1, s);
            const Source src = upper ? s1 : s0;
            va[s] = half_of(src.partner ? pa[src.slot] : a.v[src.slot]);
            vb[s] = half_of(src.partner ? pb[src.slot] : b.v[src.slot]);
        }
        float pc[8];
        for (uint32_t s = 0; s < 8; ++s) pc[s] = partner_f32(c.v[s]);
        for (uint32_t s = 0; s < 8; ++s) {
            const Source src =
                upper ? acc_source(Arch::Gfx12, Arch::Gfx11, 1, s) : acc_source(Arch::Gfx12, Arch::Gfx11, 0, s);
            vc[s] = src.partner ? pc[src.slot] : c.v[src.slot];
        }
    }
    float8_t vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(va, vb, vc);
    if constexpr (kFrag == Arch::Gfx11) {
        for (uint32_t s = 0; s < 8; ++s) d.v[s] = vd[s];
    } else {
        const bool upper = half_of_wave() != 0;
        float own[8], pd[8];
        for (uint32_t s = 0; s < 8; ++s) {
            own[s] = vd[s];
            pd[s] = partner_f32(own[s]);
        }
        for (uint32_t s = 0; s < 8; ++s) {
            const Source src =
                upper ? acc_source(Arch::Gfx11, Arch::Gfx12, 1, s) : acc_source(Arch::Gfx11, Arch::Gfx12, 0, s);
            d.v[s] = src.partner ? pd[src.slot] : own[src.slot];
        }
    }
#endif
    return d;
}

#if defined(__GFX12__)
typedef int int2_t __attribute__((ext_vector_type(2)));

// D = A B + C of e4m3 operands (bytes, K = 16) with f32 accumulation (v_wmma_f32_16x16x16_fp8_fp8, gfx12). A lane's
// 8 bytes, slot order low to high, are its two VGPRs; the K of each slot is the f16 operand's (operand_k): A and B
// built alike pair equal K whichever of the published conventions the hardware follows (wmma_layout.h).
D4R_DEVICE Acc wmma_fp8_f32(const Frag8& a, const Frag8& b, const Acc& c) {
    int2_t va, vb;
    for (uint32_t r = 0; r < 2; ++r) {
        uint32_t x = 0, y = 0;
        for (uint32_t j = 0; j < 4; ++j) {
            x |= static_cast<uint32_t>(a.v[4 * r + j]) << (8 * j);
            y |= static_cast<uint32_t>(b.v[4 * r + j]) << (8 * j);
        }
        va[r] = static_cast<int>(x);
        vb[r] = static_cast<int>(y);
    }
    float8_t vc;
    for (uint32_t s = 0; s < 8; ++s) vc[s] = c.v[s];
    const float8_t vd = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(va, vb, vc);
    Acc d;
    for (uint32_t s = 0; s < 8; ++s) d.v[s] = vd[s];
    return d;
}
#endif

} // namespace d4r::refine::hip
