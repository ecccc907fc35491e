// d4r open NGX core, fast sm_90 set: d4r_up_accumulate (docs/ngx-core.md, "Accumulate") with the PTX's algorithm,
// launch shape and parameter block, written for throughput where the PTX is written for exact reproduction:
//  * built with fast math (cmake: the family's FAST_FLAGS): approximate division, reciprocal and square root, FMA
//    contraction, so its results differ from the PTX path's in the last bits (checked: UpscalerFastSm90.* on ptxsim,
//    tests/device/profile-4k.sh on the H200);
//  * the terms from fast_accumulate_terms.cuh (32-bit offsets, clamps once per row and column, non-coherent loads).
// The blend and the stores are upscaler_math.h's.
#include "kernels/upscaler/cuda/fast_accumulate_terms.cuh"

using namespace d4r::upscaler::math;

extern "C" __global__ void d4r_up_accumulate(Params p) {
    const uint32_t ux = blockIdx.x * blockDim.x + threadIdx.x, uy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ux >= p.output_w || uy >= p.output_h) return;
    const int32_t ox = static_cast<int32_t>(ux), oy = static_cast<int32_t>(uy);
    const AccumulateTerms t = fast::accumulate_terms(p, ox, oy);
    if (p.terms) { // store_terms' bytes as two 16-byte stores
        uint16_t h[kTermHalves];
        term_halves(t, h);
        uint4* d = at_mut<uint4>(p.terms, term_offset(p, ox, oy));
        const auto pair = [&h](uint32_t i) {
            return static_cast<uint32_t>(h[i]) | static_cast<uint32_t>(h[i + 1]) << 16;
        };
        d[0] = uint4{pair(0), pair(2), pair(4), pair(6)};
        d[1] = uint4{pair(8), pair(10), pair(12), pair(14)};
    }
    const F4 out = blend_terms(t);
    reinterpret_cast<F4*>(p.history_out)[uy * p.output_stride + ux] = out;
    if (!(p.flags & kFlagSharpen))
        store_output(p, ox, oy, from_working(p, F3{out.x, out.y, out.z}, exposure_factor(p)));
}
