// The PTX JIT's texture and surface lowering (src/jit/lower_texture.cpp) against ptxsim's interpreter: kernels run
// interpreted and compiled over the same images must compute the same bits, leave the same surface contents and
// report the same fault. The corpus (tex_*, surf_*) holds the H200's answers for 2D textures and 32-bit surface
// accesses; this covers 1D lookups, integer fetches, the 8-, 16- and 64-bit and vector surface forms under every
// out-of-range mode, a .trap fault, and handles that differ between a warp's lanes (a missing object, a surface for a
// texture: the first such lane's fault).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit_test_util.h"
#include "ptxsim/compiled.h"
#include "ptxsim/ptxsim_texture.h"

using namespace d4r;
using namespace d4r::ptxsim;
using namespace d4r::ptxsim::test;

namespace {

// Thread i (of 64 in one block): x = i - 8 texels (in bytes for surfaces: times the access size), y = i % 8 - 2.
const char* kKernels = R"(
.visible .entry load(.param .u64 s, .param .u64 t, .param .u64 out)
{
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [s];
    ld.param.u64 %rd2, [t];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    sub.s32 %r2, %r1, 8;
    and.b32 %r3, %r1, 7;
    sub.s32 %r3, %r3, 2;
    shl.b32 %r4, %r2, 1;
    shl.b32 %r5, %r2, 2;
    shl.b32 %r6, %r2, 3;
    shl.b32 %r7, %r2, 4;
    suld.b.2d.b8.zero %r8, [%rd1, {%r2, %r3}];
    suld.b.2d.b8.clamp %r9, [%rd1, {%r2, %r3}];
    suld.b.2d.v2.b16.clamp {%r10, %r11}, [%rd1, {%r5, %r3}];
    suld.b.2d.v4.b32.zero {%r12, %r13, %r14, %r15}, [%rd1, {%r7, %r3}];
    suld.b.2d.b64.clamp %rd4, [%rd1, {%r6, %r3}];
    suld.b.2d.v2.b64.zero {%rd5, %rd6}, [%rd1, {%r7, %r3}];
    suld.b.1d.v4.b16.clamp {%r16, %r17, %r18, %r19}, [%rd1, {%r6}];
    cvt.rn.f32.s32 %f1, %r2;
    mul.f32 %f1, %f1, 0f3EBD70A4;
    cvt.rn.f32.s32 %f2, %r3;
    mul.f32 %f2, %f2, 0f3F1C28F6;
    tex.1d.v4.f32.f32 {%r20, %r21, %r22, %r23}, [%rd2, {%f1}];
    tex.2d.v4.f32.f32 {%r24, %r25, %r26, _}, [%rd2, {%f1, %f2}];
    tex.2d.v4.s32.s32 {%r27, %r28, %r29, %r30}, [%rd2, {%r2, %r3}];
    mul.wide.u32 %rd7, %r1, 128;
    add.u64 %rd7, %rd7, %rd3;
    st.global.v4.b32 [%rd7], {%r8, %r9, %r10, %r11};
    st.global.v4.b32 [%rd7+16], {%r12, %r13, %r14, %r15};
    st.global.v2.b64 [%rd7+32], {%rd4, %rd5};
    st.global.b64 [%rd7+48], %rd6;
    st.global.v4.b32 [%rd7+64], {%r16, %r17, %r18, %r19};
    st.global.v4.b32 [%rd7+80], {%r20, %r21, %r22, %r23};
    st.global.v4.b32 [%rd7+96], {%r24, %r25, %r26, %r27};
    st.global.v4.b32 [%rd7+112], {%r28, %r29, %r30, %r1};
    ret;
}
.visible .entry store(.param .u64 s)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [s];
    mov.u32 %r1, %tid.x;
    sub.s32 %r2, %r1, 8;
    and.b32 %r3, %r1, 7;
    sub.s32 %r3, %r3, 2;
    shl.b32 %r5, %r2, 2;
    shl.b32 %r7, %r2, 4;
    mul.lo.u32 %r8, %r1, 0x01010101;
    cvt.u64.u32 %rd2, %r8;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 sust.b.2d.b32.zero [%rd1, {%r5, %r3}], %r8;
    @!%p1 sust.b.2d.v2.b16.clamp [%rd1, {%r5, %r3}], {%r8, %r1};
    setp.eq.u32 %p2, %r3, 1;
    @%p2 sust.b.2d.v2.b64.zero [%rd1, {%r7, %r3}], {%rd2, %rd2};
    ret;
}
.visible .entry mixed(.param .u64 t, .param .u64 u, .param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [t];
    ld.param.u64 %rd2, [u];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    selp.b64 %rd4, %rd1, %rd2, %p1;
    cvt.rn.f32.u32 %f1, %r1;
    mul.f32 %f1, %f1, 0f3E19999A;
    sub.f32 %f2, 0f40000000, %f1;
    mov.b32 %r4, 0;
    mov.b32 %r5, 1;
    mov.b32 %r6, 2;
    mov.b32 %r7, 3;
    setp.lt.u32 %p2, %r1, 40;
    @%p2 tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd4, {%f1, %f2}];
    tld4.g.2d.v4.f32.f32 {%r8, %r9, %r10, %r11}, [%rd4, {%f2, %f1}];
    mul.wide.u32 %rd5, %r1, 32;
    add.u64 %rd5, %rd5, %rd3;
    st.global.v4.b32 [%rd5], {%r4, %r5, %r6, %r7};
    st.global.v4.b32 [%rd5+16], {%r8, %r9, %r10, %r11};
    ret;
}
.visible .entry trap(.param .u64 s)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [s];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    sust.b.2d.b32.trap [%rd1, {%r2, %r1}], %r1;
    ret;
}
)";

// The parameter: compiled as warp code (true) or per thread.
class JitTextureLowering : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
        m_module = load_ok(test::ptx(kKernels), "tex.ptx");
        ASSERT_TRUE(m_module);
        auto compiler = jit::KernelCompiler::instance();
        ASSERT_TRUE(compiler) << compiler.error().text();
        for (const char* name : {"load", "store", "trap", "mixed"}) {
            auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m_module, name)), GetParam());
            ASSERT_TRUE(compiled) << name << ": " << compiled.error().text();
            EXPECT_EQ((*compiled)->warp, GetParam()) << name << ": " << (*compiled)->why_not_warp;
            m_compiled.push_back(*compiled);
        }
    }

    // A 48-byte x 6-row surface (12 R32 texels a row) whose bytes count up, and a 5 x 3 R32F texture of varied
    // values, filtered bilinearly.
    struct Images {
        ArrayId surface_array = 0, texture_array = 0;
        SurfObject surface = 0;
        TexObject texture = 0;
    };
    Images images(Device& dev) {
        Images im;
        ArrayDesc s;
        s.width = 12;
        s.height = 6;
        s.format = ChannelFormat::U32;
        s.surface = true;
        im.surface_array = *create_array(dev, s);
        std::vector<uint8_t> bytes(48 * 6);
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
        EXPECT_TRUE(copy_to_array(dev, im.surface_array, 0, 0, bytes.data(), 48, 48, 6).ok());
        im.surface = *create_surface_object(dev, im.surface_array);
        ArrayDesc t;
        t.width = 5;
        t.height = 3;
        t.format = ChannelFormat::F32;
        im.texture_array = *create_array(dev, t);
        const float texels[15] = {0.5f,  -1.25f, 3.0f, 1e-3f, 7.75f, 2.0f,  0.0f, -0.0f,
                                  1e30f, -6.5f,  1.0f, 0.25f, 9.0f,  -3.0f, 4.5f};
        EXPECT_TRUE(copy_to_array(dev, im.texture_array, 0, 0, texels, 20, 20, 3).ok());
        ResourceDesc r;
        r.array = im.texture_array;
        TextureDesc d;
        d.filter = FilterMode::Linear;
        im.texture = *create_texture_object(dev, r, d);
        return im;
    }

    LaunchConfig config_for(int jit, size_t kernel) const {
        LaunchConfig cfg = config({1}, {64});
        if (jit) cfg.compiled = m_compiled[kernel];
        return cfg;
    }

    std::shared_ptr<Module> m_module;
    std::vector<std::shared_ptr<const CompiledKernel>> m_compiled;
};

TEST_P(JitTextureLowering, LoadsAndSamplesMatchTheInterpreter) {
    std::vector<uint32_t> results[2];
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        const Images im = images(dev);
        DevicePtr out = upload(dev, std::vector<uint32_t>(64 * 32));
        Params p(kernel_of(*m_module, "load"));
        p.set(0, uint64_t(im.surface)).set(1, uint64_t(im.texture)).set(2, out);
        run_ok(dev, *m_module, "load", config_for(jit, 0), p);
        results[jit] = download<uint32_t>(dev, out, 64 * 32);
    }
    for (size_t i = 0; i < results[0].size(); ++i)
        ASSERT_EQ(results[1][i], results[0][i]) << "thread " << i / 32 << " word " << i % 32;
}

TEST_P(JitTextureLowering, StoresMatchTheInterpreter) {
    std::vector<uint8_t> surfaces[2];
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        const Images im = images(dev);
        Params p(kernel_of(*m_module, "store"));
        p.set(0, uint64_t(im.surface));
        run_ok(dev, *m_module, "store", config_for(jit, 1), p);
        surfaces[jit].resize(48 * 6);
        ASSERT_TRUE(copy_from_array(dev, im.surface_array, 0, 0, surfaces[jit].data(), 48, 48, 6).ok());
    }
    for (size_t i = 0; i < surfaces[0].size(); ++i) ASSERT_EQ(surfaces[1][i], surfaces[0][i]) << "byte " << i;
}

TEST_P(JitTextureLowering, TrapFaultsAsTheInterpreterDoes) {
    LaunchFault faults[2];
    for (int jit = 0; jit < 2; ++jit) {
        Device dev;
        const Images im = images(dev);
        const Kernel& k = kernel_of(*m_module, "trap");
        Params p(k);
        p.set(0, uint64_t(im.surface));
        EXPECT_FALSE(launch(dev, k, config_for(jit, 2), p.bytes(), &faults[jit]).ok());
    }
    EXPECT_EQ(faults[1].kind, FaultKind::IllegalAddress);
    EXPECT_EQ(faults[1].kind, faults[0].kind);
    EXPECT_EQ(faults[1].line, faults[0].line);
    EXPECT_EQ(faults[1].thread.x, faults[0].thread.x);
    EXPECT_EQ(faults[1].address, faults[0].address);
    EXPECT_EQ(faults[1].access_bytes, faults[0].access_bytes);
    EXPECT_EQ(faults[1].message, faults[0].message);
}

TEST_P(JitTextureLowering, HandlesDifferingBetweenLanes) {
    // Even lanes sample one texture, odd lanes another (a point-filtered, wrapping RGBA8 one: one lookup per distinct
    // handle in warp code), under a guard, with tld4; then a third run where the second handle names no object (the
    // first odd lane reports the fault) and one where it is a surface (wrong kind).
    for (int variant = 0; variant < 3; ++variant) {
        SCOPED_TRACE(variant);
        std::vector<uint32_t> results[2];
        LaunchFault faults[2];
        bool ok[2] = {};
        for (int jit = 0; jit < 2; ++jit) {
            Device dev;
            const Images im = images(dev);
            ArrayDesc a;
            a.width = 7;
            a.height = 5;
            a.format = ChannelFormat::U8;
            a.channels = 4;
            const ArrayId rgba = *create_array(dev, a);
            std::vector<uint8_t> texels(7 * 5 * 4);
            for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<uint8_t>(i * 37 + 11);
            EXPECT_TRUE(copy_to_array(dev, rgba, 0, 0, texels.data(), 28, 28, 5).ok());
            ResourceDesc r;
            r.array = rgba;
            TextureDesc d;
            d.filter = FilterMode::Point;
            d.read = ReadMode::NormalizedFloat;
            d.normalized_coords = true;
            d.address[0] = d.address[1] = AddressMode::Wrap;
            const TexObject second = *create_texture_object(dev, r, d);
            const uint64_t other = variant == 0 ? uint64_t(second) : variant == 1 ? 0xdead0000ull : im.surface;
            DevicePtr out = upload(dev, std::vector<uint32_t>(64 * 8));
            const Kernel& k = kernel_of(*m_module, "mixed");
            Params p(k);
            p.set(0, uint64_t(im.texture)).set(1, other).set(2, out);
            ok[jit] = launch(dev, k, config_for(jit, 3), p.bytes(), &faults[jit]).ok();
            if (ok[jit]) results[jit] = download<uint32_t>(dev, out, 64 * 8);
        }
        EXPECT_EQ(ok[0], variant == 0);
        EXPECT_EQ(ok[1], ok[0]);
        if (!ok[0]) {
            EXPECT_EQ(faults[1].kind, faults[0].kind);
            EXPECT_EQ(faults[1].thread.x, faults[0].thread.x);
            EXPECT_EQ(faults[1].line, faults[0].line);
            EXPECT_EQ(faults[1].message, faults[0].message);
            continue;
        }
        for (size_t i = 0; i < results[0].size(); ++i)
            ASSERT_EQ(results[1][i], results[0][i]) << "thread " << i / 8 << " word " << i % 8;
    }
}

INSTANTIATE_TEST_SUITE_P(WarpAndThread, JitTextureLowering, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                             return std::string(info.param ? "Warp" : "Thread");
                         });

} // namespace
