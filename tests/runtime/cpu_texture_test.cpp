// cpu backend: texture and surface objects over ptxsim arrays and pitch-linear memory.
#include <cstring>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuTextureTest = CpuBackendTest;

const char* kTexturePtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

// *out = first channel of tex2D(tex, u, v)
.visible .entry tex_read(.param .u64 tex, .param .u64 out, .param .f32 u, .param .f32 v)
{
    .reg .b64 %rd<3>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f1, [u];
    ld.param.f32 %f2, [v];
    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
    st.global.f32 [%rd2], %f3;
    ret;
}

// surf2Dwrite(value, surf, x * 4, y)
.visible .entry surf_write(.param .u64 surf, .param .u32 x, .param .u32 y, .param .u32 value)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [surf];
    ld.param.u32 %r1, [x];
    ld.param.u32 %r2, [y];
    ld.param.u32 %r3, [value];
    shl.b32 %r4, %r1, 2;
    sust.b.2d.b32.trap [%rd1, {%r4, %r2}], {%r3};
    ret;
}
)PTX";

TEST_F(CpuTextureTest, PointSampledArrayTexture) {
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, kTexturePtx), CUDA_SUCCESS);
    CUfunction read = function(m, "tex_read");
    // A 4 x 3 float array, texel (x, y) = 10 * y + x.
    CUDA_ARRAY_DESCRIPTOR ad{4, 3, CU_AD_FORMAT_FLOAT, 1};
    CUarray arr = nullptr;
    ASSERT_EQ(api().cuArrayCreate_v2(&arr, &ad), CUDA_SUCCESS);
    float texels[12];
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x) texels[y * 4 + x] = float(10 * y + x);
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = texels;
    c.srcPitch = 16;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = arr;
    c.WidthInBytes = 16;
    c.Height = 3;
    ASSERT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    // Array -> host through 2D and 1D copies gives the texels back.
    float row[4] = {};
    EXPECT_EQ(api().cuMemcpyAtoH_v2(row, arr, 16 * 2, 16), CUDA_SUCCESS);
    EXPECT_EQ(row[3], 23.0f);

    CUDA_RESOURCE_DESC rd{};
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = arr;
    CUDA_TEXTURE_DESC td{};
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject tex = 0;
    ASSERT_EQ(api().cuTexObjectCreate(&tex, &rd, &td, nullptr), CUDA_SUCCESS);
    EXPECT_NE(tex, 0u);
    CUDA_RESOURCE_DESC back{};
    EXPECT_EQ(api().cuTexObjectGetResourceDesc(&back, tex), CUDA_SUCCESS);
    EXPECT_EQ(back.resType, CU_RESOURCE_TYPE_ARRAY);
    EXPECT_EQ(back.res.array.hArray, arr);

    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    auto sample = [&](float u, float v) {
        void* params[] = {&tex, &out, &u, &v};
        EXPECT_EQ(api().cuLaunchKernel(read, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
        float r = -1;
        EXPECT_EQ(api().cuMemcpyDtoH_v2(&r, out, 4), CUDA_SUCCESS);
        return r;
    };
    // Point sampling with unnormalised coordinates reads texel (floor(u), floor(v)); clamp at the edges.
    EXPECT_EQ(sample(2.5f, 1.5f), 12.0f);
    EXPECT_EQ(sample(0.2f, 2.9f), 20.0f);
    EXPECT_EQ(sample(10.0f, -3.0f), 3.0f);

    EXPECT_EQ(api().cuTexObjectDestroy(tex), CUDA_SUCCESS);
    EXPECT_EQ(api().cuTexObjectDestroy(tex), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuTexObjectGetResourceDesc(&back, tex), CUDA_ERROR_INVALID_VALUE); // as NVIDIA's driver
    rd.res.array.hArray = reinterpret_cast<CUarray>(&back);
    EXPECT_EQ(api().cuTexObjectCreate(&tex, &rd, &td, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuArrayDestroy(arr), CUDA_SUCCESS);
    api().cuMemFree_v2(out);
    api().cuModuleUnload(m);
}

TEST_F(CpuTextureTest, PitchLinearTextureAndSurfaceWrites) {
    CUmodule m = nullptr;
    ASSERT_EQ(api().cuModuleLoadData(&m, kTexturePtx), CUDA_SUCCESS);
    CUfunction read = function(m, "tex_read");
    CUfunction write = function(m, "surf_write");

    // Pitch-linear: 8 x 2 floats in rows of 512 bytes.
    CUdeviceptr img = 0;
    size_t pitch = 0;
    ASSERT_EQ(api().cuMemAllocPitch_v2(&img, &pitch, 32, 2, 4), CUDA_SUCCESS);
    float row1[8];
    for (int i = 0; i < 8; ++i) row1[i] = 100.0f + float(i);
    ASSERT_EQ(api().cuMemcpyHtoD_v2(img + pitch, row1, 32), CUDA_SUCCESS);
    CUDA_RESOURCE_DESC rd{};
    rd.resType = CU_RESOURCE_TYPE_PITCH2D;
    rd.res.pitch2D.devPtr = img;
    rd.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    rd.res.pitch2D.numChannels = 1;
    rd.res.pitch2D.width = 8;
    rd.res.pitch2D.height = 2;
    rd.res.pitch2D.pitchInBytes = pitch;
    CUDA_TEXTURE_DESC td{};
    CUtexObject tex = 0;
    ASSERT_EQ(api().cuTexObjectCreate(&tex, &rd, &td, nullptr), CUDA_SUCCESS);
    CUdeviceptr out = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&out, 4), CUDA_SUCCESS);
    float u = 5.5f, v = 1.5f;
    void* rp[] = {&tex, &out, &u, &v};
    ASSERT_EQ(api().cuLaunchKernel(read, 1, 1, 1, 1, 1, 1, 0, nullptr, rp, nullptr), CUDA_SUCCESS);
    float r = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&r, out, 4), CUDA_SUCCESS);
    EXPECT_EQ(r, 105.0f);
    EXPECT_EQ(api().cuTexObjectDestroy(tex), CUDA_SUCCESS);

    // Surface: a 4 x 4 u32 array with SURFACE_LDST; the kernel writes texel (3, 2).
    CUDA_ARRAY3D_DESCRIPTOR ad{4, 4, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
    CUarray arr = nullptr;
    ASSERT_EQ(api().cuArray3DCreate_v2(&arr, &ad), CUDA_SUCCESS);
    CUDA_RESOURCE_DESC sd{};
    sd.resType = CU_RESOURCE_TYPE_ARRAY;
    sd.res.array.hArray = arr;
    CUsurfObject surf = 0;
    ASSERT_EQ(api().cuSurfObjectCreate(&surf, &sd), CUDA_SUCCESS);
    uint32_t x = 3, y = 2, value = 0xc0ffee;
    void* wp[] = {&surf, &x, &y, &value};
    ASSERT_EQ(api().cuLaunchKernel(write, 1, 1, 1, 1, 1, 1, 0, nullptr, wp, nullptr), CUDA_SUCCESS);
    uint32_t texels[16] = {};
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = arr;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = texels;
    c.dstPitch = 16;
    c.WidthInBytes = 16;
    c.Height = 4;
    ASSERT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(texels[i], i == 2 * 4 + 3 ? 0xc0ffeeu : 0u) << i;
    CUDA_RESOURCE_DESC back{};
    EXPECT_EQ(api().cuSurfObjectGetResourceDesc(&back, surf), CUDA_SUCCESS);
    EXPECT_EQ(back.res.array.hArray, arr);
    EXPECT_EQ(api().cuSurfObjectDestroy(surf), CUDA_SUCCESS);
    EXPECT_EQ(api().cuSurfObjectDestroy(surf), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuSurfObjectGetResourceDesc(&back, surf), CUDA_ERROR_INVALID_VALUE); // as NVIDIA's driver
    // An array without SURFACE_LDST cannot back a surface.
    CUDA_ARRAY_DESCRIPTOR plain{4, 4, CU_AD_FORMAT_UNSIGNED_INT32, 1};
    CUarray arr2 = nullptr;
    ASSERT_EQ(api().cuArrayCreate_v2(&arr2, &plain), CUDA_SUCCESS);
    sd.res.array.hArray = arr2;
    EXPECT_EQ(api().cuSurfObjectCreate(&surf, &sd), CUDA_ERROR_INVALID_VALUE);
    api().cuArrayDestroy(arr2);
    api().cuArrayDestroy(arr);
    api().cuMemFree_v2(out);
    api().cuMemFree_v2(img);
    api().cuModuleUnload(m);
}

} // namespace
} // namespace d4r::runtime::cpu_test
