// Texture and surface objects over volumes (3D, layered and cubemap images in device memory): the
// instruction geometries, layer clamping, cubemap face selection, the geometry check, surface planes and
// what is refused. Expected values follow the rules measured on the H200 by tests/cudart/programs/
// rt_texture_volume.cu (docs/ptxsim.md "Textures and surfaces"); that program's golden checks the
// arithmetic itself.
#include <array>
#include <bit>
#include <vector>

#include "ptxsim/ptxsim_texture.h"
#include "ptxsim_test_util.h"

namespace d4r::ptxsim {
namespace {

using test::load_ok;
using test::Params;

// Each kernel: out[0..3] = the lookup at (x, y, z) / layer.
const char* kVolumeKernels = R"(
.visible .entry tex3d(.param .u64 t, .param .u64 out, .param .f32 x, .param .f32 y, .param .f32 z, .param .u32 l)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [t];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f5, [x];
    ld.param.f32 %f6, [y];
    ld.param.f32 %f7, [z];
    tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry texa2d(.param .u64 t, .param .u64 out, .param .f32 x, .param .f32 y, .param .f32 z, .param .u32 l)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [t];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f5, [x];
    ld.param.f32 %f6, [y];
    ld.param.u32 %r1, [l];
    tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f5, %f6, %f6}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry texcube(.param .u64 t, .param .u64 out, .param .f32 x, .param .f32 y, .param .f32 z, .param .u32 l)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [t];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f5, [x];
    ld.param.f32 %f6, [y];
    ld.param.f32 %f7, [z];
    tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry tex2d(.param .u64 t, .param .u64 out, .param .f32 x, .param .f32 y, .param .f32 z, .param .u32 l)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [t];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f5, [x];
    ld.param.f32 %f6, [y];
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry surfa2d(.param .u64 s, .param .u64 out, .param .s32 x, .param .s32 y, .param .s32 z, .param .u32 l)
{
    .reg .u64 %rd<4>;
    .reg .b32 %r<8>;
    ld.param.u64 %rd1, [s];
    ld.param.u64 %rd2, [out];
    ld.param.s32 %r5, [x];
    ld.param.s32 %r6, [y];
    ld.param.u32 %r7, [l];
    sust.b.a2d.b32.trap [%rd1, {%r7, %r5, %r6, %r6}], %r5;
    suld.b.a2d.b32.trap %r1, [%rd1, {%r7, %r5, %r6, %r6}];
    st.global.u32 [%rd2], %r1;
    ret;
}
.visible .entry surf3d(.param .u64 s, .param .u64 out, .param .s32 x, .param .s32 y, .param .s32 z, .param .u32 l)
{
    .reg .u64 %rd<4>;
    .reg .b32 %r<8>;
    ld.param.u64 %rd1, [s];
    ld.param.u64 %rd2, [out];
    ld.param.s32 %r5, [x];
    ld.param.s32 %r6, [y];
    ld.param.s32 %r7, [z];
    suld.b.3d.b32.zero %r1, [%rd1, {%r5, %r6, %r7, %r7}];
    suld.b.3d.b32.clamp %r2, [%rd1, {%r5, %r6, %r7, %r7}];
    st.global.v2.u32 [%rd2], {%r1, %r2};
    ret;
}
)";

class TextureVolumeTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_module = load_ok(test::ptx(kVolumeKernels), "volume.ptx");
        ASSERT_TRUE(m_module);
        m_out = *m_dev.alloc(16);
    }

    // A one-channel f32 volume of W x H x D texels whose texel (i, j, k) holds 100 k + 10 j + i.
    ResourceDesc volume(Geometry g, uint32_t w, uint32_t h, uint32_t d) {
        std::vector<float> texels(size_t(w) * h * d);
        for (uint32_t k = 0; k < d; ++k)
            for (uint32_t j = 0; j < h; ++j)
                for (uint32_t i = 0; i < w; ++i) texels[(size_t(k) * h + j) * w + i] = float(100 * k + 10 * j + i);
        ResourceDesc r;
        r.kind = ResourceDesc::Kind::Volume;
        r.ptr = test::upload(m_dev, texels);
        r.format = ChannelFormat::F32;
        r.channels = 1;
        r.width = w;
        r.height = h;
        r.depth = d;
        r.pitch = uint64_t(w) * 4;
        r.slice_pitch = r.pitch * h;
        r.geometry = g;
        return r;
    }
    TexObject texture(const ResourceDesc& r, FilterMode filter = FilterMode::Point) {
        TextureDesc desc;
        desc.filter = filter;
        auto t = create_texture_object(m_dev, r, desc);
        EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().text());
        return t.ok() ? *t : 0;
    }
    // Runs KERNEL once; returns out[0..3] as raw bits.
    template <class C>
    std::array<uint32_t, 4> run(const char* kernel, uint64_t handle, C x, C y, C z, uint32_t layer,
                                LaunchFault* fault = nullptr) {
        const Kernel& k = test::kernel_of(*m_module, kernel);
        Params p(k);
        p.set(0, handle).set(1, m_out).set(2, x).set(3, y).set(4, z).set(5, layer);
        auto r = launch(m_dev, k, test::config({1, 1, 1}, {1, 1, 1}), p.bytes(), fault);
        EXPECT_EQ(r.ok(), fault == nullptr) << (r.ok() ? "" : r.error().text());
        std::array<uint32_t, 4> v{};
        EXPECT_TRUE(m_dev.copy_to_host(v.data(), m_out, 16).ok());
        return v;
    }
    float first(const char* kernel, uint64_t handle, float x, float y, float z, uint32_t layer = 0) {
        return std::bit_cast<float>(run(kernel, handle, x, y, z, layer)[0]);
    }

    Device m_dev;
    std::shared_ptr<Module> m_module;
    DevicePtr m_out = 0;
};

TEST_F(TextureVolumeTest, PointSamplesOf3DTexturesPickTheSlice) {
    const TexObject t = texture(volume(Geometry::Volume3D, 4, 3, 5));
    EXPECT_EQ(first("tex3d", t, 2.5f, 1.5f, 3.5f), 312.0f);
    EXPECT_EQ(first("tex3d", t, 0.2f, 2.9f, 0.9f), 20.0f);
    EXPECT_EQ(first("tex3d", t, 9.0f, -4.0f, 99.0f), 403.0f); // clamped on every axis
}

TEST_F(TextureVolumeTest, TrilinearFilteringIsRefusedAtCreation) {
    TextureDesc desc;
    desc.filter = FilterMode::Linear;
    auto t = create_texture_object(m_dev, volume(Geometry::Volume3D, 4, 3, 5), desc);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code(), ErrorCode::Unsupported);
    EXPECT_NE(t.error().text().find("linear filtering of 3D textures"), std::string::npos) << t.error().text();
    // Bilinear filtering of layers is not trilinear: allowed.
    EXPECT_TRUE(create_texture_object(m_dev, volume(Geometry::Layered2D, 4, 3, 5), desc).ok());
}

TEST_F(TextureVolumeTest, LayeredLookupsReadOneLayerAndClampTheIndexToTheLast) {
    const TexObject t = texture(volume(Geometry::Layered2D, 4, 3, 3));
    EXPECT_EQ(first("texa2d", t, 1.5f, 2.5f, 0, 1), 121.0f);
    EXPECT_EQ(first("texa2d", t, 1.5f, 2.5f, 0, 7), 221.0f);
    EXPECT_EQ(first("texa2d", t, 1.5f, 2.5f, 0, 0xffffffffu), 221.0f); // -1 as u32: past the end too
}

TEST_F(TextureVolumeTest, BilinearTiesRoundUp) {
    // Texels 0, 1, 2, 3; x = 1 + 1/512: (x - 0.5) * 256 = 128.5, rounded up to 129, so texel 1 weighs 129/256
    // (ties to even would give 128/256).
    const TexObject t = texture(volume(Geometry::Layered2D, 4, 1, 1), FilterMode::Linear);
    EXPECT_EQ(first("texa2d", t, 1.0f + 1.0f / 512, 0.5f, 0, 0), 129.0f / 256);
}

TEST_F(TextureVolumeTest, CubemapFacesFollowTheMajorAxisWithZThenYWinningTies) {
    // 2 x 2 faces: face f's texel (i, j) holds 100 f + 10 j + i; a face's centre is texel (1, 1).
    const TexObject t = texture(volume(Geometry::Cubemap, 2, 2, 6));
    EXPECT_EQ(first("texcube", t, 1.0f, 0.1f, -0.1f), 1.0f);    // +x: s = -z, t = -y
    EXPECT_EQ(first("texcube", t, -1.0f, 0.1f, 0.1f), 101.0f);  // -x: s = z
    EXPECT_EQ(first("texcube", t, 0.2f, 1.0f, 0.2f), 211.0f);   // +y: s = x, t = z
    EXPECT_EQ(first("texcube", t, 0.2f, -1.0f, 0.2f), 301.0f);  // -y: t = -z
    EXPECT_EQ(first("texcube", t, 0.5f, -0.5f, -0.5f), 510.0f); // |y| = |z|: z wins; -z: s = -x
    EXPECT_EQ(first("texcube", t, 0.7f, -0.7f, 0.1f), 301.0f);  // |x| = |y|: y wins
    EXPECT_EQ(first("texcube", t, 0.0f, 0.0f, 0.0f), 411.0f);   // the zero vector: the centre of +z
}

TEST_F(TextureVolumeTest, AGeometryThatDoesNotMatchTheImageFaultsNamingBoth) {
    const TexObject t = texture(volume(Geometry::Volume3D, 4, 3, 5));
    LaunchFault fault;
    run("tex2d", t, 1.0f, 1.0f, 0.0f, 0, &fault);
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(fault.message.find(".2d texture instruction"), std::string::npos) << fault.message;
    EXPECT_NE(fault.message.find("whose image is 3D"), std::string::npos) << fault.message;
}

TEST_F(TextureVolumeTest, SurfacesAddressSlicesAndLayers) {
    auto s3 = create_surface_object(m_dev, volume(Geometry::Volume3D, 4, 3, 5));
    ASSERT_TRUE(s3.ok()) << s3.error().text();
    auto v = run("surf3d", *s3, int32_t(8), int32_t(1), int32_t(4), 0);
    EXPECT_EQ(std::bit_cast<float>(v[0]), 412.0f);
    v = run("surf3d", *s3, int32_t(8), int32_t(1), int32_t(5), 0); // slice 5 of 5: zero / clamped to 4
    EXPECT_EQ(v[0], 0u);
    EXPECT_EQ(std::bit_cast<float>(v[1]), 412.0f);

    auto cube = create_surface_object(m_dev, volume(Geometry::Cubemap, 2, 2, 6));
    ASSERT_TRUE(cube.ok()) << cube.error().text();
    v = run("surfa2d", *cube, int32_t(4), int32_t(1), int32_t(0), 5); // face 5: writes x (4) and reads it
    EXPECT_EQ(v[0], 4u);
    LaunchFault fault;
    run("surfa2d", *cube, int32_t(4), int32_t(1), int32_t(0), 6, &fault); // there is no face 6
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
    EXPECT_NE(fault.message.find("layer 6"), std::string::npos) << fault.message;
}

TEST_F(TextureVolumeTest, BadVolumesAreRefusedNamingTheProblem) {
    ResourceDesc r = volume(Geometry::Cubemap, 2, 2, 6);
    r.width = 3; // faces must be square
    auto t = create_texture_object(m_dev, r, TextureDesc{});
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().text().find("square"), std::string::npos) << t.error().text();
    r = volume(Geometry::Volume3D, 4, 3, 5);
    r.depth = 50; // past the allocation
    EXPECT_FALSE(create_texture_object(m_dev, r, TextureDesc{}).ok());
    r = volume(Geometry::Volume3D, 4, 3, 5);
    r.format = ChannelFormat::RGB10A2;
    r.channels = 4;
    t = create_texture_object(m_dev, r, TextureDesc{});
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().text().find("packed formats are 2D only"), std::string::npos) << t.error().text();
}

} // namespace
} // namespace d4r::ptxsim
