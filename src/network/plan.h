// d4r refine network: the forward pass as a list of kernel launches (docs/network.md, "Structure").
//
// Promise: plan_forward() is a pure function of the addresses and sizes it is given; the CUDA pipeline
// (refine_pipeline.h) launches its entries with cuLaunchKernel and the host (host_kernels.h) runs the same
// entries on host memory, so both compute the same steps on the same bytes. Addresses are device addresses
// or host addresses alike.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "network/model_file.h"

namespace d4r::upscaler::math {
struct Params;
}

namespace d4r::network {

enum class Kernel : uint8_t {
    Patchify,
    Linear,
    LayerNorm,
    Attention,
    Merge,
    Expand,
    Unpatchify,
    LinearFp8,
    PixelFeatures, // refine-v2 (refine_v2.ptx)
    PixelBlend,
    LinearWide,  // d4r_nn_linear for the shapes native sets do not take (refine_math.h's native_linear_shape)
    Block,       // d4r_nn_block (refine_block.ptx): a whole transformer block, in fused plans only
    PixelEmbed,  // d4r_nn_pixel_embed (refine_block.ptx): refine-v2's pixel features and embed, in fused plans only
    PixelHead,   // d4r_nn_pixel_head (refine_block.ptx): refine-v2's head and pixel blend, in fused plans only
    CoarseBlock, // d4r_nn_coarse_block (refine_block.ptx): merge, the coarse block and expand, in fused plans only
};
// Every kernel of the PTX modules (the plan of one architecture launches some of them: plan_kernels()).
inline constexpr std::array<Kernel, 15> kAllKernels = {
    Kernel::Patchify,   Kernel::Linear,     Kernel::LayerNorm,  Kernel::Attention,     Kernel::Merge,
    Kernel::Expand,     Kernel::Unpatchify, Kernel::LinearFp8,  Kernel::PixelFeatures, Kernel::PixelBlend,
    Kernel::LinearWide, Kernel::Block,      Kernel::PixelEmbed, Kernel::PixelHead,     Kernel::CoarseBlock};
// The PTX entry name (d4r_nn_*).
const char* kernel_name(Kernel kernel);

struct Launch {
    Kernel kernel = Kernel::Linear;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    std::array<uint8_t, 256>
        params{}; // the kernel's parameter block (refine_math.h, pixel_inputs.h), `param_bytes` long
    uint32_t param_bytes = 0;
    std::string what; // "enc1.qkv", for errors and traces
    // What the launch writes: `out_bytes` bytes from `out` (for the image: its first `out_bytes` bytes of rows,
    // pitch included), so a trace can compare each layer's output.
    uint64_t out = 0, out_bytes = 0;

    template <typename P>
    P as() const {
        P p;
        std::memcpy(&p, params.data(), sizeof(P));
        return p;
    }
};

// The weights in one buffer: the architecture's tensors (architecture_tensors()) in order, each at a 256-byte
// aligned offset (f16 2 bytes an element, e4m3 1). An unknown architecture is laid out as refine-v1.
struct WeightLayout {
    std::vector<uint64_t> offsets; // per tensor of architecture_tensors(arch)
    uint64_t total = 0;
};
WeightLayout weight_layout(std::string_view arch);
// The model's tensors packed as weight_layout(model.arch) says (zero padding between).
std::vector<uint8_t> pack_weights(const Model& model);

// The token grids of an image and the work buffers the pass needs, as offsets in one allocation.
struct Geometry {
    uint32_t width = 0, height = 0;  // image
    uint32_t grid_w = 0, grid_h = 0; // fine tokens: ceil(W / 8) * 2 x ceil(H / 8) * 2
    uint64_t fine_tokens() const { return uint64_t(grid_w) * grid_h; }
    uint64_t coarse_tokens() const { return fine_tokens() / 4; }
};
Geometry geometry_for(uint32_t width, uint32_t height);

struct ScratchLayout {
    uint64_t patches = 0, skip = 0, stream = 0, norm = 0, qkv = 0, attn = 0, hidden = 0, coarse = 0;
    uint64_t candidates = 0; // refine-v2 only
    uint64_t total = 0;
};
// The work buffers of architecture `arch`'s pass (its channel counts: architecture_dims()).
ScratchLayout scratch_layout(const Geometry& g, std::string_view arch = kArchRefineV1);

// How a pass is laid out. Both layouts compute the same bytes; fused plans launch fewer kernels, and are what a
// native set that serves d4r_nn_block is made for (refine_pipeline.cpp chooses).
struct PlanOptions {
    // Each transformer block whose linears are f16 as one d4r_nn_block launch instead of seven (layernorm, qkv,
    // attention, proj, layernorm, fc1, fc2). Blocks with e4m3 weights (the FP8 variants' enc2) stay unfused.
    bool fuse_blocks = false;
    // refine-v2's pixel features and its embed linear as one d4r_nn_pixel_embed launch (the features stay on chip),
    // and its head linear and pixel blend as one d4r_nn_pixel_head launch (the head's answers stay on chip).
    bool fuse_pixels = false;
    // The coarse level (merge and its linear, the coarse block, expand's linear and regroup with the skip) as one
    // d4r_nn_coarse_block launch, where the coarse block's linears are f16 and its width is twice the fine one's.
    bool fuse_coarse = false;
};

// The launches of one forward pass of architecture `arch` (refine-v1: every linear is d4r_nn_linear;
// refine-v1-fp8: enc2's four are d4r_nn_linear_fp8) over the RGBA16F image at `image` (row pitch in bytes),
// refined in place, with the weights packed at `weights` as weight_layout(arch) says. refine-v2 reads the core's
// frame instead: CORE is the upscaler's parameter block of the frame just evaluated (its output is `image`; its
// buffers must still hold the frame and the previous history), copied into the pixel kernels' parameters; without
// it those kernels' parameters are zero (plans inspected, not run).
std::vector<Launch> plan_forward(const Geometry& g, uint64_t image, uint32_t pitch, uint64_t weights, uint64_t scratch,
                                 std::string_view arch, const upscaler::math::Params* core = nullptr,
                                 PlanOptions options = {});
// The kernels the plan of `arch` launches, each once, in kAllKernels order.
std::vector<Kernel> plan_kernels(std::string_view arch, PlanOptions options = {});

} // namespace d4r::network
