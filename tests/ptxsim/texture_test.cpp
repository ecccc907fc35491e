// Texture and surface objects: formats, addressing, filtering arithmetic, handle errors and surface
// out-of-range modes. Expected values come from the format definitions (CUarray_format, DXGI packed
// layouts), the CUDA programming guide's addressing and 8-bit-weight linear filtering, the PTX ISA for
// suld/sust, and the H200 rules measured from the golden corpus (docs/ptxsim.md "Textures and surfaces").
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "ptxsim/ptxsim_texture.h"
#include "ptxsim_test_util.h"

namespace d4r::ptxsim {
namespace {

using test::load_ok;
using test::Params;

const char* kTexKernels = R"(
.visible .entry tex_f(.param .u64 tex, .param .u64 out, .param .f32 x, .param .f32 y)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f5, [x];
    ld.param.f32 %f6, [y];
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry tex_i(.param .u64 tex, .param .u64 out, .param .s32 x, .param .s32 y)
{
    .reg .u64 %rd<4>;
    .reg .b32 %r<8>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [out];
    ld.param.s32 %r5, [x];
    ld.param.s32 %r6, [y];
    tex.2d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %r6}];
    st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
    ret;
}
.visible .entry fetch_1d(.param .u64 tex, .param .u64 out, .param .s32 x, .param .s32 y)
{
    .reg .u64 %rd<4>;
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [out];
    ld.param.s32 %r5, [x];
    tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry gather_g(.param .u64 tex, .param .u64 out, .param .f32 x, .param .f32 y)
{
    .reg .u64 %rd<4>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [out];
    ld.param.f32 %f5, [x];
    ld.param.f32 %f6, [y];
    tld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
    st.global.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
    ret;
}
.visible .entry surf(.param .u64 s, .param .u64 out, .param .s32 x, .param .s32 y, .param .b32 v)
{
    .reg .u64 %rd<4>;
    .reg .b32 %r<8>;
    ld.param.u64 %rd1, [s];
    ld.param.u64 %rd2, [out];
    ld.param.s32 %r5, [x];
    ld.param.s32 %r6, [y];
    ld.param.b32 %r7, [v];
    suld.b.2d.b32.clamp %r1, [%rd1, {%r5, %r6}];
    suld.b.2d.b32.zero %r2, [%rd1, {%r5, %r6}];
    sust.b.2d.b32.zero [%rd1, {%r5, %r6}], %r7;
    st.global.v2.u32 [%rd2], {%r1, %r2};
    ret;
}
.visible .entry surf_trap(.param .u64 s, .param .s32 x, .param .s32 y)
{
    .reg .u64 %rd<2>;
    .reg .b32 %r<8>;
    ld.param.u64 %rd1, [s];
    ld.param.s32 %r5, [x];
    ld.param.s32 %r6, [y];
    sust.b.2d.b32.trap [%rd1, {%r5, %r6}], %r5;
    ret;
}
)";

class TextureTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_module = load_ok(test::ptx(kTexKernels), "tex.ptx");
        ASSERT_TRUE(m_module);
        m_out = *m_dev.alloc(16);
    }

    // An array of FORMAT x CHANNELS with the given texels (tightly packed rows).
    ArrayId array(ChannelFormat format, uint32_t channels, uint32_t w, uint32_t h, const void* texels,
                  bool surface = false) {
        ArrayDesc d;
        d.width = w;
        d.height = h;
        d.format = format;
        d.channels = channels;
        d.surface = surface;
        auto a = create_array(m_dev, d);
        EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().text());
        const uint64_t row = uint64_t(w) * texel_bytes(format, channels);
        EXPECT_TRUE(copy_to_array(m_dev, *a, 0, 0, texels, row, row, h).ok());
        return *a;
    }
    TexObject texture(ArrayId a, TextureDesc desc) {
        ResourceDesc r;
        r.array = a;
        auto t = create_texture_object(m_dev, r, desc);
        EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().text());
        return t.ok() ? *t : 0;
    }
    template <class C>
    std::array<uint32_t, 4> run(const char* kernel, uint64_t handle, C x, C y, LaunchFault* fault = nullptr,
                                bool expect_ok = true) {
        const Kernel& k = test::kernel_of(*m_module, kernel);
        Params p(k);
        p.set(0, handle).set(1, m_out).set(2, x).set(3, y);
        auto r = launch(m_dev, k, test::config({1, 1, 1}, {1, 1, 1}), p.bytes(), fault);
        EXPECT_EQ(r.ok(), expect_ok) << (r.ok() ? "" : r.error().text());
        std::array<uint32_t, 4> v{};
        EXPECT_TRUE(m_dev.copy_to_host(v.data(), m_out, 16).ok());
        return v;
    }
    std::array<float, 4> sample(uint64_t handle, float x, float y) {
        auto v = run("tex_f", handle, x, y);
        return {std::bit_cast<float>(v[0]), std::bit_cast<float>(v[1]), std::bit_cast<float>(v[2]),
                std::bit_cast<float>(v[3])};
    }

    Device m_dev;
    std::shared_ptr<Module> m_module;
    DevicePtr m_out = 0;
};

TEST_F(TextureTest, FormatsDecodeToFloatsAndIntegers) {
    const uint8_t rgba8[4] = {0, 128, 255, 51};
    TextureDesc norm;
    norm.read = ReadMode::NormalizedFloat;
    auto v = sample(texture(array(ChannelFormat::U8, 4, 1, 1, rgba8), norm), 0.5f, 0.5f);
    EXPECT_EQ(v[0], 0.0f);
    EXPECT_EQ(v[1], static_cast<float>(128 / 255.0));
    EXPECT_EQ(v[2], 1.0f);
    EXPECT_EQ(v[3], 0.2f); // 51/255 = 0.2 exactly, rounded to f32

    auto ints = run("tex_i", texture(array(ChannelFormat::U8, 4, 1, 1, rgba8), {}), 0, 0);
    EXPECT_EQ(ints, (std::array<uint32_t, 4>{0, 128, 255, 51}));
    const int8_t s8[2] = {-1, 127};
    ints = run("tex_i", texture(array(ChannelFormat::S8, 2, 1, 1, s8), {}), 0, 0);
    EXPECT_EQ(ints, (std::array<uint32_t, 4>{0xffffffffu, 127, 0, 0})); // sign-extended; missing channels 0

    const uint16_t f16[4] = {0x3c00, 0xc000, 0x7c00, 0x0001}; // 1, -2, +inf, 2^-24
    v = sample(texture(array(ChannelFormat::F16, 4, 1, 1, f16), {}), 0.5f, 0.5f);
    EXPECT_EQ(v[0], 1.0f);
    EXPECT_EQ(v[1], -2.0f);
    EXPECT_EQ(v[2], INFINITY);
    EXPECT_EQ(v[3], std::ldexp(1.0f, -24));

    const float f32[2] = {-3.25f, 1e30f};
    v = sample(texture(array(ChannelFormat::F32, 2, 1, 1, f32), {}), 0.5f, 0.5f);
    EXPECT_EQ(v, (std::array<float, 4>{-3.25f, 1e30f, 0.0f, 0.0f}));

    // RGB10A2: R = 1023, G = 0, B = 512, A = 3 -> n / (2^bits - 1).
    const uint32_t packed = 1023u | (0u << 10) | (512u << 20) | (3u << 30);
    v = sample(texture(array(ChannelFormat::RGB10A2, 4, 1, 1, &packed), {}), 0.5f, 0.5f);
    EXPECT_EQ(v, (std::array<float, 4>{1.0f, 0.0f, static_cast<float>(512 / 1023.0), 1.0f}));

    // R11G11B10F: 1.0 (exponent 15), 0.5 (exponent 14), 2.0 (exponent 16, 5-bit mantissa field).
    const uint32_t r11 = (15u << 6) | ((14u << 6) << 11) | ((16u << 5) << 22);
    v = sample(texture(array(ChannelFormat::R11G11B10F, 3, 1, 1, &r11), {}), 0.5f, 0.5f);
    EXPECT_EQ(v, (std::array<float, 4>{1.0f, 0.5f, 2.0f, 0.0f}));
}

TEST_F(TextureTest, AddressModesOnNormalisedCoordinates) {
    const float row[4] = {10, 20, 30, 40};
    ArrayId a = array(ChannelFormat::F32, 1, 4, 1, row);
    auto tex = [&](AddressMode m) {
        TextureDesc d;
        d.address[0] = d.address[1] = m;
        d.normalized_coords = true;
        d.border[0] = 7;
        d.border[1] = 8; // missing channel: the border colour reads 0 there too
        return texture(a, d);
    };
    TexObject wrap = tex(AddressMode::Wrap), clamp = tex(AddressMode::Clamp);
    TexObject mirror = tex(AddressMode::Mirror), border = tex(AddressMode::Border);
    EXPECT_EQ(sample(wrap, 1.125f, 0.5f)[0], 10);  // 0.125 * 4 = 0.5: texel 0
    EXPECT_EQ(sample(wrap, -0.125f, 0.5f)[0], 40); // 0.875 * 4 = 3.5: texel 3
    EXPECT_EQ(sample(clamp, 1.5f, 0.5f)[0], 40);
    EXPECT_EQ(sample(clamp, -0.5f, 0.5f)[0], 10);
    EXPECT_EQ(sample(mirror, 1.125f, 0.5f)[0], 40);  // reflected: 0.875 -> texel 3
    EXPECT_EQ(sample(mirror, -0.125f, 0.5f)[0], 10); // reflected: 0.125 -> texel 0
    EXPECT_EQ(sample(mirror, 1.875f, 0.5f)[0], 10);  // reflected: 0.125
    EXPECT_EQ(sample(border, 1.5f, 0.5f), (std::array<float, 4>{7, 0, 0, 0}));
    EXPECT_EQ(sample(border, 0.375f, 0.5f)[0], 20);
    // NaN coordinates sample texel 0; integer fetches outside the image return zeros in every mode.
    EXPECT_EQ(sample(clamp, NAN, 0.5f)[0], 10);
    EXPECT_EQ(run("tex_i", clamp, 4, 0), (std::array<uint32_t, 4>{0, 0, 0, 0}));
    EXPECT_EQ(run("tex_i", clamp, 2, 0)[0], std::bit_cast<uint32_t>(30.0f));
}

TEST_F(TextureTest, LinearFilteringUsesEightBitWeights) {
    TextureDesc lin;
    lin.filter = FilterMode::Linear;
    // 1D ramp 0 -> 1: x = 0.8 is 0.3 past texel 0's centre; the weight is round(0.3 * 256) / 256 = 77/256.
    const uint16_t ramp[2] = {0x0000, 0x3c00};
    EXPECT_EQ(sample(texture(array(ChannelFormat::F16, 1, 2, 1, ramp), lin), 0.8f, 0.5f)[0], 77.0f / 256);
    // 2x2 with only texel (1, 1) set: its weight is a * b rounded to 1/256: 16 * 72 / 256 = 4.5 -> 5/256.
    const float corner[4] = {0, 0, 0, 1};
    TexObject t = texture(array(ChannelFormat::F32, 1, 2, 2, corner), lin);
    EXPECT_EQ(sample(t, 0.5f + 16.0f / 256, 0.5f + 72.0f / 256)[0], 5.0f / 256);
    // Unorm8 filters in 16-bit unorm: halfway between 0 and 255 is (128 * 65535 + 128) >> 8 = 32768.
    const uint8_t bw[2] = {0, 255};
    TextureDesc norm = lin;
    norm.read = ReadMode::NormalizedFloat;
    EXPECT_EQ(sample(texture(array(ChannelFormat::U8, 1, 2, 1, bw), norm), 1.0f, 0.5f)[0],
              static_cast<float>(32768 / 65535.0));
    // tld4 returns the footprint counter-clockwise from the lower left: (0,1) (1,1) (1,0) (0,0).
    const float g[8] = {0, 1, 0, 2, 0, 3, 0, 4}; // RG texels: g = 1 2 / 3 4
    auto v = run("gather_g", texture(array(ChannelFormat::F32, 2, 2, 2, g), {}), 1.0f, 1.0f);
    EXPECT_EQ(v, (std::array<uint32_t, 4>{std::bit_cast<uint32_t>(3.0f), std::bit_cast<uint32_t>(4.0f),
                                          std::bit_cast<uint32_t>(2.0f), std::bit_cast<uint32_t>(1.0f)}));
}

TEST_F(TextureTest, LinearMemoryTexturesFetchByIndex) {
    // tex1Dfetch: a texture over linear device memory read with integer coordinates.
    const std::vector<float> data = {1.5f, -2.0f, 3.25f, 8.0f};
    DevicePtr mem = test::upload(m_dev, data);
    ResourceDesc r;
    r.kind = ResourceDesc::Kind::Linear;
    r.ptr = mem;
    r.format = ChannelFormat::F32;
    r.bytes = data.size() * sizeof(float);
    TexObject t = *create_texture_object(m_dev, r, {});
    EXPECT_EQ(run("fetch_1d", t, 2, 0)[0], std::bit_cast<uint32_t>(3.25f));
    EXPECT_EQ(run("fetch_1d", t, 4, 0), (std::array<uint32_t, 4>{0, 0, 0, 0})); // past the end
    EXPECT_EQ(run("fetch_1d", t, -1, 0), (std::array<uint32_t, 4>{0, 0, 0, 0}));
}

TEST_F(TextureTest, CreationRejectsBadArguments) {
    ArrayDesc d;
    d.width = 4;
    d.format = ChannelFormat::U8;
    d.channels = 3;
    EXPECT_FALSE(create_array(m_dev, d).ok());
    d.channels = 1;
    d.width = 0;
    EXPECT_FALSE(create_array(m_dev, d).ok());
    const uint8_t px[4] = {};
    ArrayId a = array(ChannelFormat::U8, 1, 4, 1, px);
    TextureDesc lin;
    lin.filter = FilterMode::Linear; // integer reads cannot be filtered
    ResourceDesc r;
    r.array = a;
    EXPECT_FALSE(create_texture_object(m_dev, r, lin).ok());
    EXPECT_FALSE(create_surface_object(m_dev, a).ok());            // not created for surface load/store
    EXPECT_FALSE(copy_to_array(m_dev, a, 2, 0, px, 4, 4, 1).ok()); // 4 bytes at byte 2 of a 4-byte row
    r.array = 12345;
    EXPECT_FALSE(create_texture_object(m_dev, r, {}).ok());
    EXPECT_FALSE(destroy_texture_object(m_dev, 0).ok());
}

// An array over the caller's storage (an external memory's image): texels at BASE + y * PITCH, the padding past
// each row untouched by copies and invisible to fetches; a pitch shorter than a row, or no storage, is refused.
TEST_F(TextureTest, ArrayOverExternalStorageUsesItsPitch) {
    std::vector<uint32_t> storage(3 * 8, 0xdeadbeefu); // 3 rows of 2 texels, 8 words (32 bytes) apart
    ArrayDesc d;
    d.width = 2;
    d.height = 3;
    d.format = ChannelFormat::U32;
    const auto base = static_cast<DevicePtr>(reinterpret_cast<uintptr_t>(storage.data()));
    EXPECT_FALSE(create_array_over(m_dev, d, base, 4).ok()) << "pitch shorter than a row";
    EXPECT_FALSE(create_array_over(m_dev, d, 0, 32).ok()) << "no storage";
    auto a = create_array_over(m_dev, d, base, 32);
    ASSERT_TRUE(a.ok()) << a.error().text();
    const uint32_t rows[6] = {1, 2, 3, 4, 5, 6};
    ASSERT_TRUE(copy_to_array(m_dev, *a, 0, 0, rows, 8, 8, 3).ok());
    EXPECT_EQ(storage[8], 3u);
    EXPECT_EQ(storage[17], 6u);
    EXPECT_EQ(storage[2], 0xdeadbeefu) << "the padding after a row";
    EXPECT_FALSE(copy_to_array(m_dev, *a, 8, 0, rows, 8, 4, 1).ok()) << "past the row, inside the pitch";
    storage[16] = 50;
    EXPECT_EQ(run("tex_i", texture(*a, {}), 0, 2)[0], 50u);
    uint32_t back[6] = {};
    ASSERT_TRUE(copy_from_array(m_dev, *a, 0, 0, back, 8, 8, 3).ok());
    EXPECT_EQ(back[4], 50u);
    EXPECT_TRUE(destroy_array(m_dev, *a).ok());
    EXPECT_EQ(storage[16], 50u) << "the storage is the caller's";
}

TEST_F(TextureTest, UnknownAndDestroyedHandlesFaultTheLaunch) {
    LaunchFault fault;
    run("tex_f", uint64_t(0), 0.5f, 0.5f, &fault, false);
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(fault.message.find("texture object 0x0 does not exist"), std::string::npos) << fault.message;

    const float one = 1;
    TexObject t = texture(array(ChannelFormat::F32, 1, 1, 1, &one), {});
    EXPECT_EQ(sample(t, 0.5f, 0.5f)[0], 1.0f);
    ASSERT_TRUE(destroy_texture_object(m_dev, t).ok());
    fault = {};
    run("tex_f", t, 0.5f, 0.5f, &fault, false);
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(fault.message.find(fmt::format("0x{:x}", t)), std::string::npos) << fault.message;

    // A surface handle is not a texture.
    SurfObject s = *create_surface_object(m_dev, array(ChannelFormat::F32, 1, 1, 1, &one, true));
    fault = {};
    run("tex_f", s, 0.5f, 0.5f, &fault, false);
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);

    // A pitch-linear texture whose memory was freed faults instead of reading freed memory.
    DevicePtr mem = *m_dev.alloc(64);
    ResourceDesc r;
    r.kind = ResourceDesc::Kind::Pitch2D;
    r.ptr = mem;
    r.format = ChannelFormat::F32;
    r.width = 4;
    r.height = 2;
    r.pitch = 32;
    TexObject pt = *create_texture_object(m_dev, r, {});
    ASSERT_TRUE(m_dev.free(mem).ok());
    fault = {};
    run("tex_f", pt, 0.5f, 0.5f, &fault, false);
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
}

TEST_F(TextureTest, SurfaceOutOfRangeModes) {
    const uint32_t px[6] = {1, 2, 3, 4, 5, 6}; // 3 x 2 texels of 4 bytes
    ArrayId a = array(ChannelFormat::U32, 1, 3, 2, px, true);
    SurfObject s = *create_surface_object(m_dev, a);
    auto surf = [&](int32_t x, int32_t y, uint32_t value) {
        const Kernel& k = test::kernel_of(*m_module, "surf");
        Params p(k);
        p.set(0, s).set(1, m_out).set(2, x).set(3, y).set(4, value);
        EXPECT_TRUE(launch(m_dev, k, test::config({1, 1, 1}, {1, 1, 1}), p.bytes()).ok());
        std::array<uint32_t, 2> v{};
        EXPECT_TRUE(m_dev.copy_to_host(v.data(), m_out, 8).ok());
        return v;
    };
    // x is a byte offset: byte 4 of row 1 is texel (1, 1).
    EXPECT_EQ(surf(4, 1, 50), (std::array<uint32_t, 2>{5, 5}));
    EXPECT_EQ(surf(-8, 0, 99), (std::array<uint32_t, 2>{1, 0}));  // clamp to byte 0; zero reads 0
    EXPECT_EQ(surf(400, 7, 99), (std::array<uint32_t, 2>{6, 0})); // clamp to the last texel
    uint32_t back[6];
    ASSERT_TRUE(copy_from_array(m_dev, a, 0, 0, back, 12, 12, 2).ok());
    EXPECT_EQ(back[4], 50u); // the in-range .zero store landed; the out-of-range ones were dropped
    EXPECT_EQ(back[0], 1u);
    EXPECT_EQ(back[5], 6u);

    const Kernel& k = test::kernel_of(*m_module, "surf_trap");
    Params p(k);
    p.set(0, s).set(1, int32_t(12)).set(2, int32_t(0)); // byte 12 is past the 12-byte row
    LaunchFault fault;
    EXPECT_FALSE(launch(m_dev, k, test::config({1, 1, 1}, {1, 1, 1}), p.bytes(), &fault).ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
    EXPECT_NE(fault.message.find("outside surface"), std::string::npos) << fault.message;
}

TEST_F(TextureTest, UnsupportedFormsAreLoadErrors) {
    EXPECT_NE(test::load_error(test::ptx(R"(
.global .texref tref;
.visible .entry k(.param .u64 out)
{
    .reg .f32 %f<8>;
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f5, %f6}];
    ret;
})"))
                  .find("not supported"),
              std::string::npos);
    EXPECT_NE(test::load_error(test::ptx(R"(
.visible .entry k(.param .u64 t)
{
    .reg .u64 %rd<2>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [t];
    tex.a2dms.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];
    ret;
})"))
                  .find("multisample geometry .a2dms is not supported"),
              std::string::npos);
    EXPECT_NE(test::load_error(test::ptx(R"(
.visible .entry k(.param .u64 t)
{
    .reg .u64 %rd<2>;
    .reg .f32 %f<8>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [t];
    tex.3d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1, %r1, %r1}];
    ret;
})"))
                  .find("integer coordinates on .3d textures are not supported"),
              std::string::npos);
}

} // namespace
} // namespace d4r::ptxsim
