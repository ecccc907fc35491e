// Descriptor conversions between CUDA and the dump format (see dump_descriptors.h).
#include "runtime/observe/dump_descriptors.h"

namespace d4r::runtime {

DumpTextureDesc dump_texture_desc(const CUDA_TEXTURE_DESC& t) {
    DumpTextureDesc d;
    for (int i = 0; i < 3; ++i) d.address[i] = static_cast<uint32_t>(t.addressMode[i]);
    d.filter = static_cast<uint32_t>(t.filterMode);
    d.flags = t.flags;
    d.max_anisotropy = t.maxAnisotropy;
    d.mipmap_filter = static_cast<uint32_t>(t.mipmapFilterMode);
    d.mipmap_bias = t.mipmapLevelBias;
    d.min_mipmap_clamp = t.minMipmapLevelClamp;
    d.max_mipmap_clamp = t.maxMipmapLevelClamp;
    for (int i = 0; i < 4; ++i) d.border[i] = t.borderColor[i];
    return d;
}

CUDA_TEXTURE_DESC cuda_texture_desc(const DumpTextureDesc& t) {
    CUDA_TEXTURE_DESC d{};
    for (int i = 0; i < 3; ++i) d.addressMode[i] = static_cast<CUaddress_mode>(t.address[i]);
    d.filterMode = static_cast<CUfilter_mode>(t.filter);
    d.flags = t.flags;
    d.maxAnisotropy = t.max_anisotropy;
    d.mipmapFilterMode = static_cast<CUfilter_mode>(t.mipmap_filter);
    d.mipmapLevelBias = t.mipmap_bias;
    d.minMipmapLevelClamp = t.min_mipmap_clamp;
    d.maxMipmapLevelClamp = t.max_mipmap_clamp;
    for (int i = 0; i < 4; ++i) d.borderColor[i] = t.border[i];
    return d;
}

DumpViewDesc dump_view_desc(const CUDA_RESOURCE_VIEW_DESC& v) {
    return DumpViewDesc{static_cast<uint32_t>(v.format),
                        v.width,
                        v.height,
                        v.depth,
                        v.firstMipmapLevel,
                        v.lastMipmapLevel,
                        v.firstLayer,
                        v.lastLayer};
}

CUDA_RESOURCE_VIEW_DESC cuda_view_desc(const DumpViewDesc& v) {
    CUDA_RESOURCE_VIEW_DESC d{};
    d.format = static_cast<CUresourceViewFormat>(v.format);
    d.width = v.width;
    d.height = v.height;
    d.depth = v.depth;
    d.firstMipmapLevel = v.first_mipmap;
    d.lastMipmapLevel = v.last_mipmap;
    d.firstLayer = v.first_layer;
    d.lastLayer = v.last_layer;
    return d;
}

} // namespace d4r::runtime
