// The forward pass of refine-v1 as launches: the order of docs/network.md, the buffers of scratch_layout().
#include "network/plan.h"

#include <algorithm>

#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/refine/ptx/refine_math.h"

namespace d4r::network {

using namespace refine::math;

namespace {

constexpr uint64_t kAlignment = 256;
uint64_t align_up(uint64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

// The tensors of `arch`; an unknown name (not from parse_model) is refine-v1.
const std::vector<TensorSpec>& tensors_of(std::string_view arch) {
    const std::vector<TensorSpec>* specs = architecture_tensors(arch);
    return specs ? *specs : refine_v1_tensors();
}

template <typename P>
Launch make_launch(Kernel kernel, std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block, const P& params,
                   std::string what) {
    static_assert(sizeof(P) <= sizeof(Launch::params));
    Launch l;
    l.kernel = kernel;
    l.grid = grid;
    l.block = block;
    std::memcpy(l.params.data(), &params, sizeof(P));
    l.param_bytes = sizeof(P);
    l.what = std::move(what);
    return l;
}

class Planner {
public:
    Planner(const Geometry& g, uint64_t weights, uint64_t scratch, std::string_view arch, PlanOptions options)
        : m_g(g), m_weights(weights), m_scratch(scratch), m_specs(tensors_of(arch)), m_layout(weight_layout(arch)),
          m_dims(architecture_dims(arch)), m_v2(reads_core_frame(arch)), m_s(scratch_layout(g, arch)),
          m_options(options) {}

    const TensorSpec* spec(const std::string& name, size_t* index = nullptr) const {
        for (size_t i = 0; i < m_specs.size(); ++i)
            if (m_specs[i].name == name) {
                if (index) *index = i;
                return &m_specs[i];
            }
        return nullptr;
    }
    uint64_t weight(const std::string& name) const {
        size_t i = 0;
        return spec(name, &i) ? m_weights + m_layout.offsets[i] : 0; // 0 not reached: every name is in the table
    }

    // d4r_nn_linear, or d4r_nn_linear_fp8 where the architecture's weight of the layer is e4m3.
    void linear(const std::string& name, uint64_t in, uint64_t out, uint64_t tokens, uint32_t in_ch, uint32_t out_ch,
                uint32_t flags = 0, uint64_t residual = 0) {
        const uint32_t n = static_cast<uint32_t>(tokens);
        const uint32_t blocks = static_cast<uint32_t>((tokens + kLinearTokensPerBlock - 1) / kLinearTokensPerBlock);
        const TensorSpec* w = spec(name + ".w");
        if (w && w->dtype == DType::E4M3) {
            LinearFp8Params p{in,    weight(name + ".w"),    weight(name + ".b"), residual, out, n, in_ch, out_ch,
                              flags, weight(name + ".scale")};
            m_launches.push_back(make_launch(Kernel::LinearFp8, {blocks, 1, 1}, {kLinearWarps * 32, 1, 1}, p, name));
        } else {
            // The native sets' d4r_nn_linear takes refine-v1's shapes (native_linear_shape): any other layer is the
            // same kernel under another name, which no GPU set serves.
            LinearParams p{in, weight(name + ".w"), weight(name + ".b"), residual, out, n, in_ch, out_ch, flags};
            const Kernel k = native_linear_shape(in_ch, out_ch) ? Kernel::Linear : Kernel::LinearWide;
            m_launches.push_back(make_launch(k, {blocks, 1, 1}, {kLinearWarps * 32, 1, 1}, p, name));
        }
        writes(out, tokens * out_ch * 2);
    }

    void linear(const std::string& name, const LinearParams& p) {
        linear(name, p.in, p.out, p.tokens, p.in_ch, p.out_ch, p.flags, p.residual);
    }

    void layernorm(const std::string& name, const NormParams& p) {
        m_launches.push_back(make_launch(Kernel::LayerNorm, {blocks_for(p.tokens), 1, 1}, {kThreads, 1, 1}, p, name));
        writes(p.out, uint64_t(p.tokens) * p.channels * 2);
    }

    // A transformer block updating `stream` (tokens x c) in place: one d4r_nn_block launch when the options fuse
    // blocks and its linears are f16, else its seven layers (the parameter blocks of refine_math.h's block_*).
    void block(const std::string& name, uint64_t stream, uint32_t grid_w, uint32_t grid_h, uint32_t c) {
        const uint64_t tokens = uint64_t(grid_w) * grid_h;
        const BlockParams b = block_params(name, stream, grid_w, grid_h, c);
        const uint32_t windows = div_up(grid_w, kWindow) * div_up(grid_h, kWindow);
        if (m_options.fuse_blocks && fusable(name, c)) {
            m_launches.push_back(make_launch(Kernel::Block, {windows, 1, 1}, {kBlockWarps * 32, 1, 1}, b, name));
            writes(stream, tokens * c * 2);
            return;
        }
        layernorm(name + ".ln1", block_norm(b, false));
        linear(name + ".qkv", block_linear(b, BlockLinear::Qkv));
        m_launches.push_back(
            make_launch(Kernel::Attention, {windows, b.heads, 1}, {32, 1, 1}, block_attention(b), name + ".attn"));
        writes(b.attn, tokens * c * 2);
        linear(name + ".proj", block_linear(b, BlockLinear::Proj));
        layernorm(name + ".ln2", block_norm(b, true));
        linear(name + ".fc1", block_linear(b, BlockLinear::Fc1));
        linear(name + ".fc2", block_linear(b, BlockLinear::Fc2));
    }

    // The parameter block of block NAME over `stream` (its weights, the plan's work buffers).
    BlockParams block_params(const std::string& name, uint64_t stream, uint32_t grid_w, uint32_t grid_h,
                             uint32_t c) const {
        const ScratchLayout& s = m_s;
        return BlockParams{stream,
                           m_scratch + s.norm,
                           m_scratch + s.qkv,
                           m_scratch + s.attn,
                           m_scratch + s.hidden,
                           weight(name + ".ln1.g"),
                           weight(name + ".ln1.b"),
                           weight(name + ".qkv.w"),
                           weight(name + ".qkv.b"),
                           weight(name + ".relbias"),
                           weight(name + ".proj.w"),
                           weight(name + ".proj.b"),
                           weight(name + ".ln2.g"),
                           weight(name + ".ln2.b"),
                           weight(name + ".fc1.w"),
                           weight(name + ".fc1.b"),
                           weight(name + ".fc2.w"),
                           weight(name + ".fc2.b"),
                           grid_w,
                           grid_h,
                           c,
                           c / kHeadDim};
    }

    // d4r_nn_block takes f16 weights, heads of kHeadDim channels (at most one per warp) and the linears' widths.
    bool fusable(const std::string& name, uint32_t c) const {
        for (const char* layer : {".qkv", ".proj", ".fc1", ".fc2"})
            if (!linear_is_f16(name + layer)) return false;
        return c % kHeadDim == 0 && c / kHeadDim <= kBlockWarps && c <= kMaxChannels;
    }
    bool linear_is_f16(const std::string& name) const {
        const TensorSpec* w = spec(name + ".w");
        return w && w->dtype == DType::F16;
    }

    std::vector<Launch> forward(uint64_t image, uint32_t pitch, const upscaler::math::Params* core) {
        const ScratchLayout& s = m_s;
        const uint64_t t1 = m_g.fine_tokens(), t2 = m_g.coarse_tokens();
        const uint32_t cw = m_g.grid_w / 2, ch = m_g.grid_h / 2, c1 = m_dims.c1, c2 = m_dims.c2;
        const uint64_t patches = m_scratch + s.patches, skip = m_scratch + s.skip, stream = m_scratch + s.stream,
                       coarse = m_scratch + s.coarse, attn = m_scratch + s.attn, norm = m_scratch + s.norm,
                       candidates = m_scratch + s.candidates;
        PatchParams pp{image, patches, m_g.width, m_g.height, pitch, m_g.grid_w, m_g.grid_h, 0};
        // refine-v2's pixel kernels: features into the patches, the head's answers back from them (pixel_inputs.h).
        refine::pixel::PixelParams pixels{};
        if (core) pixels.core = *core;
        pixels.tokens = patches;
        pixels.candidates = candidates;
        pixels.grid_w = m_g.grid_w;
        pixels.grid_h = m_g.grid_h;
        if (m_v2 && m_options.fuse_pixels && m_dims.patch_in == kEmbedInputs) {
            const refine::pixel::PixelEmbedParams pe{pixels, weight("embed.w"), weight("embed.b"), skip, c1, 0};
            const uint32_t blocks = static_cast<uint32_t>(div_up64(t1, refine::pixel::kEmbedTokens));
            m_launches.push_back(
                make_launch(Kernel::PixelEmbed, {blocks, 1, 1}, {refine::pixel::kEmbedThreads, 1, 1}, pe, "embed"));
            writes(skip, t1 * c1 * 2);
        } else {
            if (m_v2) {
                m_launches.push_back(make_launch(Kernel::PixelFeatures,
                                                 {blocks_for(t1 * refine::pixel::kPatchPixels), 1, 1}, {kThreads, 1, 1},
                                                 pixels, "pixel_features"));
                writes(patches, t1 * m_dims.patch_in * 2);
            } else {
                m_launches.push_back(
                    make_launch(Kernel::Patchify, {blocks_for(t1), 1, 1}, {kThreads, 1, 1}, pp, "patchify"));
                writes(patches, t1 * kPatchChannels * 2);
            }
            linear("embed", patches, skip, t1, m_dims.patch_in, c1);
        }
        block("enc1", skip, m_g.grid_w, m_g.grid_h, c1);
        if (m_options.fuse_coarse && fusable("enc2", c2) && c2 == 2 * c1 && linear_is_f16("merge") &&
            linear_is_f16("expand")) {
            // merge, enc2 and expand: one launch per coarse window (refine_math.h's CoarseBlockParams).
            const CoarseBlockParams cp{block_params("enc2", coarse, cw, ch, c2),
                                       skip,
                                       stream,
                                       weight("merge.w"),
                                       weight("merge.b"),
                                       weight("expand.w"),
                                       weight("expand.b"),
                                       c1,
                                       0};
            const uint32_t windows = div_up(cw, kWindow) * div_up(ch, kWindow);
            m_launches.push_back(
                make_launch(Kernel::CoarseBlock, {windows, 1, 1}, {kBlockWarps * 32, 1, 1}, cp, "enc2"));
            writes(stream, t1 * c1 * 2);
        } else {
            // merge: the 2x2 groups of enc1's output into `attn` (free between blocks), then the linear.
            RegroupParams mp{skip, 0, attn, m_g.grid_w, m_g.grid_h, c1, 0};
            m_launches.push_back(
                make_launch(Kernel::Merge, {blocks_for(t1 * c1), 1, 1}, {kThreads, 1, 1}, mp, "merge"));
            writes(attn, t1 * c1 * 2);
            linear("merge", attn, coarse, t2, 4 * c1, c2);
            block("enc2", coarse, cw, ch, c2);
            // expand: the linear into `norm` (free between blocks), then the regroup with the skip connection.
            linear("expand", coarse, norm, t2, c2, 4 * c1);
            RegroupParams ep{norm, skip, stream, m_g.grid_w, m_g.grid_h, c1, 0};
            m_launches.push_back(
                make_launch(Kernel::Expand, {blocks_for(t1 * c1), 1, 1}, {kThreads, 1, 1}, ep, "expand"));
            writes(stream, t1 * c1 * 2);
        }
        block("dec1", stream, m_g.grid_w, m_g.grid_h, c1);
        if (m_v2 && m_options.fuse_pixels && m_dims.head_out == refine::pixel::kHeadOutputs) {
            const refine::pixel::PixelHeadParams ph{pixels, weight("head.w"), weight("head.b"), stream, c1, 0};
            const uint32_t blocks = static_cast<uint32_t>(div_up64(t1, refine::pixel::kEmbedTokens));
            m_launches.push_back(make_launch(Kernel::PixelHead, {blocks, 1, 1}, {refine::pixel::kEmbedThreads, 1, 1},
                                             ph, "pixel_blend"));
            writes(image, uint64_t(pitch) * (m_g.height - 1) + uint64_t(m_g.width) * 8);
            return std::move(m_launches);
        }
        linear("head", stream, patches, t1, c1, m_dims.head_out);
        const std::array<uint32_t, 3> image_grid{div_up(m_g.width, kImageBlock), div_up(m_g.height, kImageBlock), 1};
        if (m_v2) {
            m_launches.push_back(
                make_launch(Kernel::PixelBlend, image_grid, {kImageBlock, kImageBlock, 1}, pixels, "pixel_blend"));
        } else {
            m_launches.push_back(
                make_launch(Kernel::Unpatchify, image_grid, {kImageBlock, kImageBlock, 1}, pp, "unpatchify"));
        }
        writes(image, uint64_t(pitch) * (m_g.height - 1) + uint64_t(m_g.width) * 8);
        return std::move(m_launches);
    }

private:
    void writes(uint64_t out, uint64_t bytes) {
        m_launches.back().out = out;
        m_launches.back().out_bytes = bytes;
    }
    static uint32_t blocks_for(uint64_t items) { return static_cast<uint32_t>((items + kThreads - 1) / kThreads); }
    static uint64_t div_up64(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
    // d4r_nn_pixel_embed's inputs a token: the pixel features of its 4 x 4 pixels.
    static constexpr uint32_t kEmbedInputs = refine::pixel::kFeatures * refine::pixel::kPatchPixels;

    Geometry m_g;
    uint64_t m_weights, m_scratch;
    const std::vector<TensorSpec>& m_specs;
    WeightLayout m_layout;
    ArchDims m_dims;
    bool m_v2;
    ScratchLayout m_s;
    PlanOptions m_options;
    std::vector<Launch> m_launches;
};

} // namespace

const char* kernel_name(Kernel kernel) {
    switch (kernel) {
    case Kernel::Patchify:
        return "d4r_nn_patchify";
    case Kernel::Linear:
        return "d4r_nn_linear";
    case Kernel::LayerNorm:
        return "d4r_nn_layernorm";
    case Kernel::Attention:
        return "d4r_nn_attention";
    case Kernel::Merge:
        return "d4r_nn_merge";
    case Kernel::Expand:
        return "d4r_nn_expand";
    case Kernel::Unpatchify:
        return "d4r_nn_unpatchify";
    case Kernel::LinearFp8:
        return "d4r_nn_linear_fp8";
    case Kernel::PixelFeatures:
        return "d4r_nn_pixel_features";
    case Kernel::PixelBlend:
        return "d4r_nn_pixel_blend";
    case Kernel::LinearWide:
        return "d4r_nn_linear_wide";
    case Kernel::Block:
        return "d4r_nn_block";
    case Kernel::PixelEmbed:
        return "d4r_nn_pixel_embed";
    case Kernel::CoarseBlock:
        return "d4r_nn_coarse_block";
    case Kernel::PixelHead:
        return "d4r_nn_pixel_head";
    }
    return "?";
}

WeightLayout weight_layout(std::string_view arch) {
    WeightLayout layout;
    for (const TensorSpec& spec : tensors_of(arch)) {
        uint64_t elements = 1;
        for (uint32_t d : spec.dims) elements *= d;
        layout.offsets.push_back(layout.total);
        layout.total = align_up(layout.total + elements * (spec.dtype == DType::E4M3 ? 1 : 2));
    }
    return layout;
}

std::vector<uint8_t> pack_weights(const Model& model) {
    WeightLayout layout = weight_layout(model.arch);
    std::vector<uint8_t> out(layout.total, 0);
    const std::vector<TensorSpec>& specs = tensors_of(model.arch);
    for (size_t i = 0; i < specs.size(); ++i)
        if (const Tensor* t = model.find(specs[i].name))
            std::memcpy(out.data() + layout.offsets[i], t->data.data(),
                        std::min<size_t>(t->data.size(), layout.total - layout.offsets[i]));
    return out;
}

Geometry geometry_for(uint32_t width, uint32_t height) {
    Geometry g;
    g.width = width;
    g.height = height;
    g.grid_w = div_up(width, 8) * 2;
    g.grid_h = div_up(height, 8) * 2;
    return g;
}

ScratchLayout scratch_layout(const Geometry& g, std::string_view arch) {
    // Sizes in f16 elements per fine token (the coarse tensors have a quarter of the tokens).
    const uint64_t t1 = g.fine_tokens();
    const ArchDims& d = architecture_dims(arch);
    const uint64_t c1 = d.c1;
    ScratchLayout s;
    uint64_t at = 0;
    auto take = [&](uint64_t halves) {
        uint64_t offset = at;
        at = align_up(at + halves * 2);
        return offset;
    };
    // Every coarse tensor fits where its fine counterpart goes, because c2 <= 4 c1 (T2 = T1 / 4).
    s.patches = take(t1 * std::max(d.patch_in, d.head_out)); // patches (refine-v2: features), later the head's output
    s.skip = take(t1 * c1);                                  // enc1's stream, kept for the skip connection
    s.stream = take(t1 * c1);                                // dec1's stream
    s.norm = take(t1 * c1);         // layernorm output (T2 x c2 fits); expand's linear (T2 x 4 c1)
    s.qkv = take(t1 * 3 * c1);      // (T2 x 3 c2 fits)
    s.attn = take(t1 * c1);         // attention output; merge's regroup (T2 x 4 c1)
    s.hidden = take(t1 * 2 * c1);   // fc1 output
    s.coarse = take(t1 / 4 * d.c2); // enc2's stream
    if (reads_core_frame(arch))     // each pixel's candidates (refine-v2)
        s.candidates = take(t1 * refine::pixel::kPatchPixels * refine::pixel::kCandidateValues);
    s.total = at;
    return s;
}

std::vector<Launch> plan_forward(const Geometry& g, uint64_t image, uint32_t pitch, uint64_t weights, uint64_t scratch,
                                 std::string_view arch, const upscaler::math::Params* core, PlanOptions options) {
    return Planner(g, weights, scratch, arch, options).forward(image, pitch, core);
}

std::vector<Kernel> plan_kernels(std::string_view arch, PlanOptions options) {
    const Geometry g = geometry_for(8, 8);
    const std::vector<Launch> plan = plan_forward(g, 0, 64, 0, 0, arch, nullptr, options);
    std::vector<Kernel> used;
    for (Kernel k : kAllKernels)
        if (std::any_of(plan.begin(), plan.end(), [k](const Launch& l) { return l.kernel == k; })) used.push_back(k);
    return used;
}

} // namespace d4r::network
