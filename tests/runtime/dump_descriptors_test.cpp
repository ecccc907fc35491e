// runtime/observe/dump_descriptors.h: what the dump layer records from a CUDA descriptor is what `d4r
// replay` re-creates, field by field, for descriptors with every field set to a distinct value.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/observe/dump_descriptors.h"

using namespace d4r::runtime;

TEST(DumpDescriptors, TextureDescriptorsRoundTripFieldByField) {
    CUDA_TEXTURE_DESC t{};
    t.addressMode[0] = CU_TR_ADDRESS_MODE_WRAP;
    t.addressMode[1] = CU_TR_ADDRESS_MODE_MIRROR;
    t.addressMode[2] = CU_TR_ADDRESS_MODE_BORDER;
    t.filterMode = CU_TR_FILTER_MODE_LINEAR;
    t.flags = CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_READ_AS_INTEGER;
    t.maxAnisotropy = 7;
    t.mipmapFilterMode = CU_TR_FILTER_MODE_LINEAR;
    t.mipmapLevelBias = -0.375f;
    t.minMipmapLevelClamp = 0.5f;
    t.maxMipmapLevelClamp = 11.25f;
    const float border[4] = {0.1f, -2.0f, 1e-30f, 65504.0f};
    std::memcpy(t.borderColor, border, sizeof border);

    DumpTextureDesc d = dump_texture_desc(t);
    EXPECT_EQ(d.address,
              (std::array<uint32_t, 3>{CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER}));
    EXPECT_EQ(d.max_anisotropy, 7u);
    EXPECT_EQ(d.mipmap_bias, -0.375f);
    CUDA_TEXTURE_DESC back = cuda_texture_desc(d);
    EXPECT_EQ(std::memcmp(&back, &t, sizeof t), 0); // every byte, reserved fields (zero) included

    DumpTextureDesc again = dump_texture_desc(back);
    EXPECT_EQ(again.address, d.address);
    EXPECT_EQ(again.filter, d.filter);
    EXPECT_EQ(again.flags, d.flags);
    EXPECT_EQ(again.mipmap_filter, d.mipmap_filter);
    EXPECT_EQ(again.min_mipmap_clamp, d.min_mipmap_clamp);
    EXPECT_EQ(again.max_mipmap_clamp, d.max_mipmap_clamp);
    EXPECT_EQ(again.border, d.border);
}

TEST(DumpDescriptors, ViewDescriptorsRoundTripFieldByField) {
    CUDA_RESOURCE_VIEW_DESC v{};
    v.format = static_cast<CUresourceViewFormat>(0x1b);
    v.width = 1920;
    v.height = 1080;
    v.depth = 3;
    v.firstMipmapLevel = 1;
    v.lastMipmapLevel = 4;
    v.firstLayer = 2;
    v.lastLayer = 5;
    DumpViewDesc d = dump_view_desc(v);
    EXPECT_EQ(d.format, 0x1bu);
    EXPECT_EQ(d.width, 1920u);
    EXPECT_EQ(d.last_layer, 5u);
    CUDA_RESOURCE_VIEW_DESC back = cuda_view_desc(d);
    EXPECT_EQ(std::memcmp(&back, &v, sizeof v), 0);
}
