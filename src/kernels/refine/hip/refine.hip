// d4r refine network (docs/network.md): its AMD native kernels for RDNA3 (gfx11) and RDNA4 (gfx12), one per
// `.entry` of ../ptx/refine.ptx, with the PTX kernels' parameter blocks (refine_math.h, passed by value as the
// only argument) and launch shapes (src/network/plan.cpp; a 32-thread warp is one wave32). Built by
// cmake/D4rKernels.cmake with clang-19 (no HIP headers) once per set and target, -DD4R_KERNEL_SET=:
//  0  fast: linear and attention on v_wmma_f32_16x16x16_f16, f32 accumulators through the whole K chain, f16
//     once at the end (the CPU fast set's rule). d4r_nn_linear_prep turns each linear's weights into WMMA B
//     operand images once per weight pointer (docs/runtime.md, "Code objects": d4r_prep_* globals).
//  1  accuracy: the PTX path's bytes. Every matrix product is the tensor-core rule of mma.sync f16
//     (kernels/common/mma_rule.h) step by step, on the lanes WMMA would use; no WMMA.
//  2  wmmaf16 (gfx11 only, a measurement, never installed): the accuracy kernels' order on
//     v_wmma_f16_16x16x16_f16 (an f16 accumulator rounded by AMD after every step), to measure what AMD's own
//     rounding changes.
// The element kernels (patchify, unpatchify, layernorm, merge, expand) are refine_math.h's scalar code, as the
// PTX's, compiled with -ffp-contract=off, in every set; so are refine-v2's pixel kernels (pixel_inputs.h), except
// that the fast set takes the sRGB curve's powers from v_exp_f32 and v_log_f32 (D4R_REFINE_FAST_POWERS, as the sm_90
// fast set takes them from the SFU). d4r_nn_linear_wide (refine-v2's linears with more than kMaxChannels inputs) is
// d4r_nn_linear's code without the width limit and, in the fast set, without weight images (read from W).
// d4r_nn_linear_fp8 (LinearFp8Params; docs/network.md, "The FP8 layers"): in the accuracy set (and wmmaf16) each K
// step of 32 is sm_90's m16n8k32 e4m3 rule (mma_rule::step_fp8) on half_to_e4m3's bytes: the PTX's bytes. In the
// fast set the inputs are rounded through e4m3 as the PTX rounds them and, with D4R_FP8_WMMA=1 (gfx12 only: the
// `-fp8` sets), go into v_wmma_f32_16x16x16_fp8_fp8 as e4m3 bytes with the weights' bytes as they are; without it
// both are widened to f16 (exact) for v_wmma_f32_16x16x16_f16. f32 accumulators from 0, then acc * scale + bias in
// f32, f16 once, relu and the residual (the sm_90 fast set's rule).
#if defined(D4R_KERNEL_SET) && D4R_KERNEL_SET == 0
#define D4R_REFINE_FAST_POWERS 1
#endif
#include "kernels/common/mma_rule.h"
#include "kernels/refine/hip/wave.h"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/refine/ptx/refine_math.h"

// gfx11's fast attention computes P V without WMMA (see d4r_nn_attention); the gfx12-layout shim keeps WMMA.
#if defined(__GFX11__) && !defined(D4R_WMMA_GFX12_LAYOUT_SHIM)
#define D4R_GFX11_SCALAR_PV 1
#else
#define D4R_GFX11_SCALAR_PV 0
#endif

// D4R_KERNEL_ONLY=N keeps one kernel (the build makes one code object per kernel, NAME.hsaco): 1 patchify,
// 2 unpatchify, 3 layernorm, 4 merge, 5 expand, 6 linear (with its prep kernel and globals), 7 attention,
// 8 linear_fp8, 9 pixel_features, 10 pixel_blend, 11 linear_wide; 0 all.
#ifndef D4R_KERNEL_ONLY
#define D4R_KERNEL_ONLY 0
#endif
#define D4R_WANT_KERNEL(n) (D4R_KERNEL_ONLY == 0 || D4R_KERNEL_ONLY == (n))

#if !defined(D4R_KERNEL_SET) || D4R_KERNEL_SET < 0 || D4R_KERNEL_SET > 2
#error "define D4R_KERNEL_SET: 0 fast, 1 accuracy, 2 wmmaf16"
#endif
#ifndef D4R_FP8_WMMA
#define D4R_FP8_WMMA 0
#endif
#if D4R_FP8_WMMA && (D4R_KERNEL_SET != 0 || !defined(__GFX12__))
#error "D4R_FP8_WMMA (v_wmma_f32_16x16x16_fp8_fp8) is for the fast set on gfx12 targets"
#endif
#if D4R_KERNEL_SET == 2 && !defined(__GFX11__)
#error "the wmmaf16 measurement set uses gfx11's v_wmma_f16_16x16x16_f16"
#endif

using namespace d4r::refine::math;
using namespace d4r::refine::hip;
namespace wl = d4r::kernels::wmma;

namespace {

D4R_DEVICE uint32_t global_x() {
    return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
}

template <typename T>
D4R_DEVICE const T* cptr(uint64_t a) {
    return reinterpret_cast<const T*>(a);
}

// The linear's epilogue for one f16 value: relu, then the residual (refine.cu's finish and finish_fp8).
template <typename P>
D4R_DEVICE uint16_t finish(const P& p, uint16_t v, uint64_t index) {
    if (p.flags & kRelu) v = relu_h(v);
    if (p.flags & kResidual) v = add_h(v, cptr<uint16_t>(p.residual)[index]);
    return v;
}

D4R_DEVICE bool linear_shape_ok(const LinearParams& p) {
    return p.in_ch != 0 && p.in_ch % 16 == 0 && p.in_ch <= kMaxChannels && p.out_ch != 0;
}

// d4r_nn_linear_wide's shapes: any width that is a multiple of 16 (refine-v2's 256, 368 and 512).
D4R_DEVICE bool linear_wide_shape_ok(const LinearParams& p) {
    return p.in_ch != 0 && p.in_ch % 16 == 0 && p.out_ch != 0;
}

D4R_DEVICE bool linear_fp8_shape_ok(const LinearFp8Params& p) {
    return p.in_ch != 0 && p.in_ch % 32 == 0 && p.in_ch <= kMaxChannels && p.out_ch != 0;
}

// An f16 activation as the FP8 linear sees it: its e4m3 byte (half_to_e4m3, the PTX's rounding).
D4R_DEVICE uint8_t activation_e4m3(const uint16_t* row, uint32_t k, bool valid) {
    return valid ? half_to_e4m3(row[k]) : uint8_t(0);
}

D4R_DEVICE bool has(uint64_t present, uint32_t i) { return ((present >> i) & 1u) != 0; }

// The window's tokens (LDS, written by lane i % 32) and the bit mask of those inside the grid.
D4R_DEVICE uint64_t window_tokens(const AttnParams& p, uint32_t window, uint32_t* tokens) {
    const uint32_t lane = lane_id();
    uint64_t present = 0;
    for (uint32_t i = 0; i < kWindowTokens; ++i) {
        uint32_t token;
        if (window_token(p, window, i, token)) present |= uint64_t(1) << i;
        if (i % 32 == lane) tokens[i] = token;
    }
    return present;
}

#if D4R_KERNEL_SET == 0
// An operand whose 16 K lie in a row at `row` (32-byte aligned: rows of 16 f16 multiples at 256-byte aligned
// buffers), loaded unconditionally and zeroed when !valid, so the loads are vector loads.
D4R_DEVICE Frag load_k_run(const uint16_t* row, bool valid) {
    const uint16_t* aligned = static_cast<const uint16_t*>(__builtin_assume_aligned(row, 32));
    const uint32_t lane = lane_id();
    Frag f;
#pragma unroll
    for (uint32_t s = 0; s < kSlots; ++s) {
        const uint16_t v = aligned[wl::operand_k(kFrag, lane, s)];
        f.v[s] = valid ? v : uint16_t(0);
    }
    return f;
}
#endif

#if D4R_KERNEL_SET != 0
// One 16x16 tile D = A B + C of f16 values, K = 16 * ksteps: a(m, k), b(k, n), c(m, n) give raw f16 bits; out(m, n,
// bits) receives this lane's 8 elements (kFrag's accumulator layout). Each step of 16 in K is rounded to f16: by
// the tensor-core rule (accuracy) or by AMD's v_wmma_f16_16x16x16_f16 (wmmaf16).
template <typename GA, typename GB, typename GC, typename Out>
D4R_DEVICE void tile_f16(uint32_t ksteps, const GA& a, const GB& b, const GC& c, const Out& out) {
    const uint32_t lane = lane_id();
#if D4R_KERNEL_SET == 1
#pragma unroll 1
    for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
        const wl::Coord d = wl::d_coord(kFrag, lane, i);
        uint16_t acc = c(d.row, d.col);
#pragma unroll 1
        for (uint32_t ks = 0; ks < ksteps; ++ks) {
            uint16_t x[16], y[16];
#pragma unroll
            for (uint32_t k = 0; k < 16; ++k) {
                x[k] = a(d.row, ks * 16 + k);
                y[k] = b(ks * 16 + k, d.col);
            }
            acc = d4r::kernels::mma_rule::step16(x, y, acc);
        }
        out(d.row, d.col, acc);
    }
#else
    half16_t acc;
#pragma unroll
    for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
        const wl::Coord d = wl::d_coord(wl::Arch::Gfx11, lane, i);
        acc[wl::d_f16_element(i)] = half_of(c(d.row, d.col));
        acc[wl::d_f16_element(i) + 1] = half_of(0);
    }
    for (uint32_t ks = 0; ks < ksteps; ++ks) {
        half16_t va, vb;
#pragma unroll
        for (uint32_t s = 0; s < 16; ++s) {
            const wl::Coord ca = wl::a_coord(wl::Arch::Gfx11, lane, s), cb = wl::b_coord(wl::Arch::Gfx11, lane, s);
            va[s] = half_of(a(ca.row, ks * 16 + ca.col));
            vb[s] = half_of(b(ks * 16 + cb.row, cb.col));
        }
        acc = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(va, vb, acc, false);
    }
#pragma unroll
    for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
        const wl::Coord d = wl::d_coord(wl::Arch::Gfx11, lane, i);
        out(d.row, d.col, half_bits(acc[wl::d_f16_element(i)]));
    }
#endif
}
#endif

} // namespace

// ---- the element kernels: refine_math.h's code, one thread per token, pixel or element ----

#if D4R_WANT_KERNEL(1)
D4R_KERNEL(kThreads) void d4r_nn_patchify(PatchParams p) {
    const uint32_t token = global_x();
    if (token < p.grid_w * p.grid_h) patchify_token(p, token);
}
#endif

#if D4R_WANT_KERNEL(2)
D4R_KERNEL(kImageBlock* kImageBlock) void d4r_nn_unpatchify(PatchParams p) {
    const uint32_t x = global_x();
    const uint32_t y =
        __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
    if (x < p.width && y < p.height) unpatchify_pixel(p, x, y);
}
#endif

#if D4R_WANT_KERNEL(3)
D4R_KERNEL(kThreads) void d4r_nn_layernorm(NormParams p) {
    const uint32_t token = global_x();
    if (token >= p.tokens) return;
    const uint64_t at = static_cast<uint64_t>(token) * p.channels;
    layernorm_token(cptr<uint16_t>(p.in) + at, cptr<uint16_t>(p.gamma), cptr<uint16_t>(p.beta),
                    reinterpret_cast<uint16_t*>(p.out) + at, p.channels);
}
#endif

#if D4R_WANT_KERNEL(4)
D4R_KERNEL(kThreads) void d4r_nn_merge(RegroupParams p) {
    const uint32_t index = global_x();
    if (index < p.grid_w * p.grid_h * p.channels) merge_element(p, index);
}
#endif

#if D4R_WANT_KERNEL(5)
D4R_KERNEL(kThreads) void d4r_nn_expand(RegroupParams p) {
    const uint32_t index = global_x();
    if (index < p.grid_w * p.grid_h * p.channels) expand_element(p, index);
}
#endif

// ---- refine-v2's pixel kernels: pixel_inputs.h's code, one thread per pixel (the PTX's launch shapes) ----

#if D4R_WANT_KERNEL(9)
D4R_KERNEL(kThreads) void d4r_nn_pixel_features(d4r::refine::pixel::PixelParams p) {
    const uint32_t i = global_x();
    if (i < p.grid_w * p.grid_h * d4r::refine::pixel::kPatchPixels) d4r::refine::pixel::features_at(p, i);
}
#endif

#if D4R_WANT_KERNEL(10)
D4R_KERNEL(kImageBlock* kImageBlock) void d4r_nn_pixel_blend(d4r::refine::pixel::PixelParams p) {
    const uint32_t x = global_x();
    const uint32_t y =
        __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
    if (x < p.core.output_w && y < p.core.output_h) d4r::refine::pixel::blend_at(p, x, y);
}
#endif

#if D4R_KERNEL_SET == 0
// ---- fast: the prep protocol's globals (read by the runtime) and the B operand images ----

namespace {
// Every linear of the network gets a slot: embed, merge, expand, head, and qkv, proj, fc1, fc2 of enc1, enc2 and
// dec1 (plan.cpp): 16. Slot 16 is the overflow slot, prepared again at every launch.
inline constexpr uint32_t kPrepKeySlots = 16;
inline constexpr uint32_t kPrepBlocks = 16;
// The largest weight an image holds: 192 outputs (enc2.qkv) x 128 inputs; a larger one is read from W directly.
inline constexpr uint32_t kImageHalves = 192 * kMaxChannels;
// Lanes an image stores per operand: gfx11's halves of the wave hold the same values.
inline constexpr uint32_t kImageLanes = kFrag == wl::Arch::Gfx11 ? 16u : 32u;

D4R_DEVICE bool fits_image(const LinearParams& p) {
    return linear_shape_ok(p) && div_up(p.out_ch, 16) * 16u * p.in_ch <= kImageHalves;
}

// One wave per 16 tokens, every output column: per tile of 16 outputs the f32 accumulator starts at the bias and
// takes every K step; f16 once, then relu and the residual. B comes from IMAGE (the prep kernel's operand images of
// this launch's weights) or, when it is null, from the weights themselves.
D4R_DEVICE void linear_fast(const LinearParams& p, const uint16_t* image) {
    const uint32_t lane = lane_id(), r = lane % 16;
    const uint32_t row0 =
        (__builtin_amdgcn_workgroup_id_x() * kLinearWarps + (__builtin_amdgcn_workitem_id_x() >> 5)) * 16u;
    if (row0 >= p.tokens) return; // the whole wave
    const uint16_t* bias = cptr<uint16_t>(p.bias);
    const uint16_t* w = cptr<uint16_t>(p.weight);
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    const uint32_t ksteps = p.in_ch / 16, ntiles = div_up(p.out_ch, 16);
    // This lane's A row (rows past the tokens read as zeros; their results are not stored). Rows are 32-byte
    // aligned: in_ch is a multiple of 16 and the buffers 256-byte aligned (plan.cpp).
    const bool a_valid = row0 + r < p.tokens;
    const uint16_t* a_row = static_cast<const uint16_t*>(__builtin_assume_aligned(
        cptr<uint16_t>(p.in) + static_cast<uint64_t>(a_valid ? row0 + r : row0) * p.in_ch, 32));
    for (uint32_t nt = 0; nt < ntiles; ++nt) {
        Acc acc;
#pragma unroll
        for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
            const uint32_t col = nt * 16 + wl::d_coord(kFrag, lane, i).col;
            acc.v[i] = col < p.out_ch ? half_to_float(bias[col]) : 0.0f;
        }
        const uint32_t b_col = nt * 16 + r;
        for (uint32_t ks = 0; ks < ksteps; ++ks) {
            Frag a, b;
#pragma unroll
            for (uint32_t s = 0; s < kSlots; ++s) a.v[s] = a_valid ? a_row[ks * 16 + wl::operand_k(kFrag, lane, s)] : 0;
            if (image) {
                const uint16_t* op = static_cast<const uint16_t*>(__builtin_assume_aligned(
                    image + ((nt * ksteps + ks) * kImageLanes + lane % kImageLanes) * kSlots, 16));
#pragma unroll
                for (uint32_t s = 0; s < kSlots; ++s) b.v[s] = op[s];
            } else {
#pragma unroll
                for (uint32_t s = 0; s < kSlots; ++s)
                    b.v[s] = b_col < p.out_ch
                                 ? w[static_cast<uint64_t>(b_col) * p.in_ch + ks * 16 + wl::operand_k(kFrag, lane, s)]
                                 : uint16_t(0);
            }
            acc = wmma_f32(a, b, acc);
        }
#pragma unroll
        for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
            const wl::Coord d = wl::d_coord(kFrag, lane, i);
            const uint32_t row = row0 + d.row, col = nt * 16 + d.col;
            if (row < p.tokens && col < p.out_ch) {
                const uint64_t index = static_cast<uint64_t>(row) * p.out_ch + col;
                out[index] = finish(p, float_to_half(acc.v[i]), index);
            }
        }
    }
}
} // namespace

#if D4R_WANT_KERNEL(6)
// The runtime reads these once (hipModuleGetGlobal) and writes d4r_prep_slot before the prep and the main kernel.
__attribute__((device, used)) uint32_t d4r_prep_key_offset = 8; // LinearParams::weight: the key is the weight pointer
__attribute__((device, used)) uint32_t d4r_prep_key_slots = kPrepKeySlots;
__attribute__((device, used)) uint32_t d4r_prep_blocks = kPrepBlocks;
__attribute__((device, used)) uint32_t d4r_prep_slot = 0;
// Per slot: operand (n tile, k step) at ((nt * ksteps + ks) * kImageLanes + lane) * kSlots, kSlots f16 per lane.
__attribute__((device)) uint16_t d4r_linear_b_images[kPrepKeySlots + 1][kImageHalves];

// Grid d4r_prep_blocks x 1 x 1, block 128: the weights of this launch's slot as WMMA B operands.
D4R_KERNEL(128) void d4r_nn_linear_prep(LinearParams p) {
    if (!fits_image(p)) return;
    uint16_t* image = d4r_linear_b_images[d4r_prep_slot < kPrepKeySlots ? d4r_prep_slot : kPrepKeySlots];
    const uint16_t* w = cptr<uint16_t>(p.weight);
    const uint32_t ksteps = p.in_ch / 16, total = div_up(p.out_ch, 16) * ksteps * kImageLanes * kSlots;
    for (uint32_t i = global_x(); i < total; i += kPrepBlocks * 128) {
        const uint32_t s = i % kSlots, lane = (i / kSlots) % kImageLanes, op = i / (kSlots * kImageLanes);
        const uint32_t nt = op / ksteps, ks = op % ksteps;
        const wl::Coord c = wl::b_coord(kFrag, lane, s); // (k, n)
        const uint32_t col = nt * 16 + c.col;
        image[i] = col < p.out_ch ? w[static_cast<uint64_t>(col) * p.in_ch + ks * 16 + c.row] : uint16_t(0);
    }
}

D4R_KERNEL(kLinearWarps * 32) void d4r_nn_linear(LinearParams p) {
    if (!linear_shape_ok(p)) return;
    linear_fast(p, fits_image(p) ? d4r_linear_b_images[d4r_prep_slot < kPrepKeySlots ? d4r_prep_slot : kPrepKeySlots]
                                 : nullptr);
}
#endif

#if D4R_WANT_KERNEL(11)
D4R_KERNEL(kLinearWarps * 32) void d4r_nn_linear_wide(LinearParams p) {
    if (linear_wide_shape_ok(p)) linear_fast(p, nullptr);
}
#endif

#if D4R_WANT_KERNEL(8)
// One wave per 16 tokens, every output column (no weight images: the weights are bytes, read directly). Per tile of
// 16 outputs the f32 accumulator starts at 0 and takes every K step (16 K per instruction); then acc * scale + bias
// in f32, f16 once, relu and the residual.
D4R_KERNEL(kLinearWarps * 32) void d4r_nn_linear_fp8(LinearFp8Params p) {
    const uint32_t lane = lane_id(), r = lane % 16;
    const uint32_t row0 =
        (__builtin_amdgcn_workgroup_id_x() * kLinearWarps + (__builtin_amdgcn_workitem_id_x() >> 5)) * 16u;
    if (row0 >= p.tokens || !linear_fp8_shape_ok(p)) return; // the whole wave
    const uint16_t* bias = cptr<uint16_t>(p.bias);
    const uint8_t* w = cptr<uint8_t>(p.weight);
    const float scale = half_to_float(*cptr<uint16_t>(p.scale));
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    const uint32_t ksteps = p.in_ch / 16, ntiles = div_up(p.out_ch, 16);
    const bool a_valid = row0 + r < p.tokens;
    const uint16_t* a_row = cptr<uint16_t>(p.in) + static_cast<uint64_t>(a_valid ? row0 + r : row0) * p.in_ch;
    for (uint32_t nt = 0; nt < ntiles; ++nt) {
        Acc acc;
#pragma unroll
        for (uint32_t i = 0; i < wl::kAccSlots; ++i) acc.v[i] = 0.0f;
        const uint32_t b_col = nt * 16 + r;
        const bool b_valid = b_col < p.out_ch;
        const uint8_t* b_row = w + static_cast<uint64_t>(b_valid ? b_col : 0) * p.in_ch;
        for (uint32_t ks = 0; ks < ksteps; ++ks) {
#if D4R_FP8_WMMA
            Frag8 a, b;
#pragma unroll
            for (uint32_t s = 0; s < kSlots; ++s) {
                const uint32_t k = ks * 16 + wl::operand_k(kFrag, lane, s);
                a.v[s] = activation_e4m3(a_row, k, a_valid);
                b.v[s] = b_valid ? b_row[k] : uint8_t(0);
            }
            acc = wmma_fp8_f32(a, b, acc);
#else
            Frag a, b;
#pragma unroll
            for (uint32_t s = 0; s < kSlots; ++s) {
                const uint32_t k = ks * 16 + wl::operand_k(kFrag, lane, s);
                a.v[s] = d4r::kernels::mma_rule::e4m3_to_f16(activation_e4m3(a_row, k, a_valid));
                b.v[s] = d4r::kernels::mma_rule::e4m3_to_f16(b_valid ? b_row[k] : uint8_t(0));
            }
            acc = wmma_f32(a, b, acc);
#endif
        }
#pragma unroll
        for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
            const wl::Coord d = wl::d_coord(kFrag, lane, i);
            const uint32_t row = row0 + d.row, col = nt * 16 + d.col;
            if (row < p.tokens && col < p.out_ch) {
                const uint64_t index = static_cast<uint64_t>(row) * p.out_ch + col;
                out[index] = finish(p, float_to_half(acc.v[i] * scale + half_to_float(bias[col])), index);
            }
        }
    }
}
#endif

#if D4R_WANT_KERNEL(7)
// One wave per (window, head). Per 16 queries: S^T = K Q^T stays in registers (a query's 64 keys are in its lane
// and lane ^ 16), the softmax of refine_math.h's rule on the f16 scores with an f32 max and sum, P = f16, and
// O = P V with P^T's accumulator turned into the A operand by one lane exchange; V^T is staged in LDS. f16
// conversions are the hardware's (v_cvt_f16_f32, nearest-even: the same values as float_to_half but NaN payloads).
D4R_KERNEL(32) void d4r_nn_attention(AttnParams p) {
    __attribute__((shared)) uint16_t vt[kHeadDim * kWindowTokens];
    __attribute__((shared)) uint32_t tokens[kWindowTokens];
#if D4R_GFX11_SCALAR_PV
    __attribute__((shared)) uint16_t p_tile[16 * 16]; // P of the query tile's 16 queries x the key tile's 16 keys
#endif
    const uint32_t lane = lane_id(), r = lane % 16, upper = half_of_wave();
    const uint32_t window = __builtin_amdgcn_workgroup_id_x(), head = __builtin_amdgcn_workgroup_id_y();
    const uint32_t stride = 3 * p.channels;
    const uint16_t* qkv = cptr<uint16_t>(p.qkv);
    const uint64_t present = window_tokens(p, window, tokens);
    sync_workgroup();
    for (uint32_t j = lane; j < kWindowTokens; j += 32)
        for (uint32_t d = 0; d < kHeadDim; ++d)
            vt[d * kWindowTokens + j] =
                has(present, j) ? qkv[static_cast<uint64_t>(tokens[j]) * stride + 2 * p.channels + head * kHeadDim + d]
                                : uint16_t(0);
    sync_workgroup();
    const uint16_t* relbias = cptr<uint16_t>(p.relbias) + head * kRelBiasSize;
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    // Token i's q (offset 0) or k (C) of this head; an absent token's row is never read (its operand is zeros).
    auto head_row = [&](uint32_t i, uint32_t offset) -> const uint16_t* {
        const uint64_t token = has(present, i) ? tokens[i] : 0;
        return qkv + token * stride + offset + head * kHeadDim;
    };
#pragma unroll 1 // one query tile's scores at a time: 4 accumulators of 8 VGPRs
    for (uint32_t nq = 0; nq < kWindowTokens / 16; ++nq) {
        const uint32_t query = nq * 16 + r;
        const int32_t xi = static_cast<int32_t>(query % kWindow), yi = static_cast<int32_t>(query / kWindow);
        // B: Q^T[d][query], this lane's query row (a 32-byte aligned run of K: vector loads).
        Frag q[kHeadDim / 16];
#pragma unroll
        for (uint32_t ks = 0; ks < kHeadDim / 16; ++ks)
            q[ks] = load_k_run(head_row(query, 0) + ks * 16, has(present, query));
        Acc st[4];
#pragma unroll
        for (uint32_t mk = 0; mk < 4; ++mk) {
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) st[mk].v[i] = 0.0f;
            const uint32_t key = mk * 16 + r;
#pragma unroll
            for (uint32_t ks = 0; ks < kHeadDim / 16; ++ks) // A: K[key][d]
                st[mk] = wmma_f32(load_k_run(head_row(key, p.channels) + ks * 16, has(present, key)), q[ks], st[mk]);
        }
        // Logits of this lane's 32 keys for `query`; the partner lane holds the other 32.
        float mx = -3.0e38f;
#pragma unroll
        for (uint32_t mk = 0; mk < 4; ++mk)
#pragma unroll
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
                const uint32_t key = mk * 16 + wl::d_coord(kFrag, lane, i).row;
                const int32_t xj = static_cast<int32_t>(key % kWindow), yj = static_cast<int32_t>(key / kWindow);
                const float logit = static_cast<float>(static_cast<_Float16>(st[mk].v[i])) +
                                    static_cast<float>(half_of(relbias[(yi - yj + 7) * 15 + (xi - xj + 7)]));
                st[mk].v[i] = logit;
                if (has(present, key)) mx = max_f(mx, logit);
            }
        mx = max_f(mx, partner_f32(mx));
        float sum = 0.0f;
#pragma unroll
        for (uint32_t mk = 0; mk < 4; ++mk)
#pragma unroll
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
                const uint32_t key = mk * 16 + wl::d_coord(kFrag, lane, i).row;
                st[mk].v[i] = has(present, key) ? exp_neg(st[mk].v[i] - mx) : 0.0f;
                sum = sum + st[mk].v[i];
            }
        sum = sum + partner_f32(sum);
        Acc o[kHeadDim / 16];
#pragma unroll
        for (uint32_t nd = 0; nd < kHeadDim / 16; ++nd)
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) o[nd].v[i] = 0.0f;
#pragma unroll
        for (uint32_t ks = 0; ks < 4; ++ks) { // keys 16 ks .. 16 ks + 15: P^T's accumulator tile ks
            uint16_t ph[wl::kAccSlots], pp[wl::kAccSlots];
#pragma unroll
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) ph[i] = half_bits(static_cast<_Float16>(st[ks].v[i] / sum));
#if D4R_GFX11_SCALAR_PV
            // gfx11 without the shim: P V by the lanes themselves (f32 products and sums, as WMMA's f32 accumulator
            // would), P through LDS. On rocjitsu this kernel's P V WMMA gives 15-20 dB against the PTX path while
            // its S WMMA and the linear's are right, and the same kernel in the gfx12 layout (the shim) gives 68 dB;
            // the cause is not found (docs/network.md, "Checking AMD kernels on rocjitsu"): until it is, gfx11 never
            // runs the wrong product.
            (void)pp;
            (void)upper;
#pragma unroll
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) p_tile[r * 16 + wl::d_coord(kFrag, lane, i).row] = ph[i];
            sync_workgroup();
#pragma unroll
            for (uint32_t nd = 0; nd < kHeadDim / 16; ++nd)
#pragma unroll
                for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
                    const wl::Coord d = wl::d_coord(kFrag, lane, i);
                    float acc = 0.0f;
#pragma unroll 1
                    for (uint32_t key = 0; key < 16; ++key)
                        acc = acc + static_cast<float>(half_of(p_tile[d.row * 16 + key])) *
                                        static_cast<float>(half_of(vt[(nd * 16 + d.col) * kWindowTokens + ks * 16 + key]));
                    o[nd].v[i] = o[nd].v[i] + acc;
                }
            sync_workgroup();
#else
            partner_halves(ph, pp);
            Frag a;
#pragma unroll
            for (uint32_t s = 0; s < kSlots; ++s) {
                const wl::Source src =
                    upper ? wl::transposed_acc_to_a_source(kFrag, 1, s) : wl::transposed_acc_to_a_source(kFrag, 0, s);
                a.v[s] = src.partner ? pp[src.slot] : ph[src.slot];
            }
#pragma unroll
            for (uint32_t nd = 0; nd < kHeadDim / 16; ++nd) {
                Frag b; // V[key][d]
#pragma unroll
                for (uint32_t s = 0; s < kSlots; ++s)
                    b.v[s] = vt[(nd * 16 + r) * kWindowTokens + ks * 16 + wl::operand_k(kFrag, lane, s)];
                o[nd] = wmma_f32(a, b, o[nd]);
            }
#endif
        }
#pragma unroll
        for (uint32_t nd = 0; nd < kHeadDim / 16; ++nd)
#pragma unroll
            for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
                const wl::Coord d = wl::d_coord(kFrag, lane, i);
                const uint32_t qi = nq * 16 + d.row;
                if (has(present, qi))
                    out[static_cast<uint64_t>(tokens[qi]) * p.channels + head * kHeadDim + nd * 16 + d.col] =
                        half_bits(static_cast<_Float16>(o[nd].v[i]));
            }
    }
}
#endif

#else
// ---- accuracy (and wmmaf16): the PTX path's order; each step of 16 in K rounded to f16 by tile_f16 ----

namespace {
// One wave per 16 tokens, every output column: for each tile of 16 outputs the accumulator starts at the bias
// (f16) and takes the K steps in order; then relu and the residual.
D4R_DEVICE void linear_exact(const LinearParams& p) {
    const uint32_t row0 =
        (__builtin_amdgcn_workgroup_id_x() * kLinearWarps + (__builtin_amdgcn_workitem_id_x() >> 5)) * 16u;
    if (row0 >= p.tokens) return; // the whole wave
    const uint16_t* in = cptr<uint16_t>(p.in);
    const uint16_t* w = cptr<uint16_t>(p.weight);
    const uint16_t* bias = cptr<uint16_t>(p.bias);
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    for (uint32_t n0 = 0; n0 < p.out_ch; n0 += 16) {
        tile_f16(
            p.in_ch / 16,
            [&](uint32_t m, uint32_t k) -> uint16_t {
                return row0 + m < p.tokens ? in[static_cast<uint64_t>(row0 + m) * p.in_ch + k] : uint16_t(0);
            },
            [&](uint32_t k, uint32_t n) -> uint16_t {
                return n0 + n < p.out_ch ? w[static_cast<uint64_t>(n0 + n) * p.in_ch + k] : uint16_t(0);
            },
            [&](uint32_t, uint32_t n) -> uint16_t { return n0 + n < p.out_ch ? bias[n0 + n] : uint16_t(0); },
            [&](uint32_t m, uint32_t n, uint16_t v) {
                if (row0 + m >= p.tokens || n0 + n >= p.out_ch) return;
                const uint64_t index = static_cast<uint64_t>(row0 + m) * p.out_ch + n0 + n;
                out[index] = finish(p, v, index);
            });
    }
}
} // namespace

#if D4R_WANT_KERNEL(6)
D4R_KERNEL(kLinearWarps * 32) void d4r_nn_linear(LinearParams p) {
    if (linear_shape_ok(p)) linear_exact(p);
}
#endif

#if D4R_WANT_KERNEL(11)
D4R_KERNEL(kLinearWarps * 32) void d4r_nn_linear_wide(LinearParams p) {
    if (linear_wide_shape_ok(p)) linear_exact(p);
}
#endif

#if D4R_WANT_KERNEL(7)
// One wave per (window, head): S = Q K^T (two K steps from +0) into LDS, the softmax row by row (refine_math.h,
// lanes i and i + 32), O = P V (four K steps from +0).
D4R_KERNEL(32) void d4r_nn_attention(AttnParams p) {
    __attribute__((shared)) uint16_t sp[kWindowTokens * kWindowTokens];
    __attribute__((shared)) uint32_t tokens[kWindowTokens];
    const uint32_t lane = lane_id();
    const uint32_t window = __builtin_amdgcn_workgroup_id_x(), head = __builtin_amdgcn_workgroup_id_y();
    const uint32_t stride = 3 * p.channels;
    const uint16_t* qkv = cptr<uint16_t>(p.qkv);
    const uint64_t present = window_tokens(p, window, tokens);
    sync_workgroup();
    // Row i's element d of q (offset 0), k (C) or v (2C); zero for an absent token.
    auto element = [&](uint32_t i, uint32_t offset, uint32_t d) -> uint16_t {
        if (!has(present, i)) return 0;
        return qkv[static_cast<uint64_t>(tokens[i]) * stride + offset + head * kHeadDim + d];
    };
    for (uint32_t mt = 0; mt < 4; ++mt)
        for (uint32_t nt = 0; nt < 4; ++nt)
            tile_f16(
                kHeadDim / 16, [&](uint32_t m, uint32_t k) { return element(mt * 16 + m, 0, k); },
                [&](uint32_t k, uint32_t n) { return element(nt * 16 + n, p.channels, k); },
                [](uint32_t, uint32_t) -> uint16_t { return 0; },
                [&](uint32_t m, uint32_t n, uint16_t v) { sp[(mt * 16 + m) * kWindowTokens + nt * 16 + n] = v; });
    sync_workgroup();
    const uint16_t* relbias = cptr<uint16_t>(p.relbias) + head * kRelBiasSize;
    softmax_row(sp + lane * kWindowTokens, relbias, lane, present);
    softmax_row(sp + (lane + 32) * kWindowTokens, relbias, lane + 32, present);
    sync_workgroup();
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    for (uint32_t mt = 0; mt < 4; ++mt)
        for (uint32_t nt = 0; nt < kHeadDim / 16; ++nt)
            tile_f16(
                kWindowTokens / 16, [&](uint32_t m, uint32_t k) { return sp[(mt * 16 + m) * kWindowTokens + k]; },
                [&](uint32_t k, uint32_t n) { return element(k, 2 * p.channels, nt * 16 + n); },
                [](uint32_t, uint32_t) -> uint16_t { return 0; },
                [&](uint32_t m, uint32_t n, uint16_t v) {
                    const uint32_t i = mt * 16 + m;
                    if (has(present, i))
                        out[static_cast<uint64_t>(tokens[i]) * p.channels + head * kHeadDim + nt * 16 + n] = v;
                });
}
#endif
#if D4R_WANT_KERNEL(8)
// One wave per 16 tokens, every output column, each lane the 8 values WMMA's accumulator would give it: from +0,
// the K steps of 32 in order by sm_90's FP8 rule (e4m3 values as f16: exact), then add_h(mul_h(acc, scale), bias),
// relu and the residual (refine.cu's d4r_nn_linear_fp8).
D4R_KERNEL(kLinearWarps * 32) void d4r_nn_linear_fp8(LinearFp8Params p) {
    const uint32_t lane = lane_id();
    const uint32_t row0 =
        (__builtin_amdgcn_workgroup_id_x() * kLinearWarps + (__builtin_amdgcn_workitem_id_x() >> 5)) * 16u;
    if (row0 >= p.tokens || !linear_fp8_shape_ok(p)) return; // the whole wave
    const uint16_t* in = cptr<uint16_t>(p.in);
    const uint8_t* w = cptr<uint8_t>(p.weight);
    const uint16_t* bias = cptr<uint16_t>(p.bias);
    const uint16_t scale = *cptr<uint16_t>(p.scale);
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    for (uint32_t n0 = 0; n0 < p.out_ch; n0 += 16) {
#pragma unroll 1
        for (uint32_t i = 0; i < wl::kAccSlots; ++i) {
            const wl::Coord d = wl::d_coord(kFrag, lane, i);
            const uint32_t row = row0 + d.row, col = n0 + d.col;
            if (row >= p.tokens || col >= p.out_ch) continue;
            const uint16_t* x_row = in + static_cast<uint64_t>(row) * p.in_ch;
            const uint8_t* w_row = w + static_cast<uint64_t>(col) * p.in_ch;
            uint16_t acc = 0;
#pragma unroll 1
            for (uint32_t k0 = 0; k0 < p.in_ch; k0 += 32) {
                uint16_t x[32], y[32];
#pragma unroll
                for (uint32_t k = 0; k < 32; ++k) {
                    x[k] = d4r::kernels::mma_rule::e4m3_to_f16(half_to_e4m3(x_row[k0 + k]));
                    y[k] = d4r::kernels::mma_rule::e4m3_to_f16(w_row[k0 + k]);
                }
                acc = d4r::kernels::mma_rule::step_fp8(x, y, acc);
            }
            const uint64_t index = static_cast<uint64_t>(row) * p.out_ch + col;
            out[index] = finish(p, add_h(mul_h(acc, scale), bias[col]), index);
        }
    }
}
#endif
#endif
