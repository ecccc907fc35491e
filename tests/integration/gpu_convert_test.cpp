// The shim's conversions on the GPU (src/shim/gpu_convert.h, the PTX of src/shim/ptx/convert.cu) on libd4rcuda's
// cpu backend (ptxsim) against the host's (formats.h): for every format each plane takes, texels of random bytes
// (NaN and infinity patterns included) in rows with padding give the same canonical bytes, and random halves give
// the same output texels; a format a plane does not take is refused before anything runs.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda_env.h"
#include "shim/formats.h"
#include "shim/gpu_convert.h"

using namespace d4r;
using namespace d4r::shim;
using namespace d4r::abi;

namespace {

struct Device {
    const upscaler::CudaFunctions* cuda = nullptr;
    std::unique_ptr<GpuConvert> convert;
};

Device& device() {
    static Device d = [] {
        Device r;
        r.cuda = upscaler::test::cpu_backend_cuda();
        if (!r.cuda) return r;
        CUdevice dev = 0;
        CUcontext ctx = nullptr;
        if (r.cuda->cuInit(0) != CUDA_SUCCESS || r.cuda->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
            r.cuda->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || r.cuda->cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
            return r;
        auto c = GpuConvert::load(*r.cuda);
        EXPECT_TRUE(c) << c.error().text();
        if (c) r.convert = std::move(*c);
        return r;
    }();
    return d;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> b(n);
    for (uint8_t& v : b) v = static_cast<uint8_t>(rng());
    return b;
}

// Runs F(src, dst) on device copies of SRC and a zeroed DST of DST_BYTES; returns DST.
template <typename F>
std::vector<uint8_t> on_device(const std::vector<uint8_t>& src, size_t dst_bytes, F f) {
    const upscaler::CudaFunctions& cu = *device().cuda;
    CUdeviceptr s = 0, d = 0;
    EXPECT_EQ(cu.cuMemAlloc_v2(&s, src.size()), CUDA_SUCCESS);
    EXPECT_EQ(cu.cuMemAlloc_v2(&d, dst_bytes), CUDA_SUCCESS);
    EXPECT_EQ(cu.cuMemcpyHtoD_v2(s, src.data(), src.size()), CUDA_SUCCESS);
    EXPECT_EQ(cu.cuMemsetD8_v2(d, 0, dst_bytes), CUDA_SUCCESS);
    Status st = f(s, d);
    EXPECT_TRUE(st) << st.error().text();
    EXPECT_EQ(cu.cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint8_t> out(dst_bytes);
    EXPECT_EQ(cu.cuMemcpyDtoH_v2(out.data(), d, dst_bytes), CUDA_SUCCESS);
    cu.cuMemFree_v2(s);
    cu.cuMemFree_v2(d);
    return out;
}

constexpr uint32_t kW = 37, kH = 5; // rows with padding on both sides: pitches are not widths

} // namespace

TEST(GpuConvert, EveryInputFormatGivesTheHostsCanonicalBytes) {
    ASSERT_NE(device().convert, nullptr) << "no cpu backend or no module";
    int formats = 0;
    for (Plane plane : {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure})
        for (uint32_t format = 0; format < 128; ++format) {
            if (!accepted(plane, format)) continue;
            ++formats;
            const size_t in = texel_bytes(format), out = canonical_texel_bytes(plane);
            const size_t src_pitch = kW * in + 12, dst_pitch = kW * out + 8;
            const std::vector<uint8_t> src = random_bytes(src_pitch * kH, format * 7 + uint32_t(plane));
            std::vector<uint8_t> want(dst_pitch * kH, 0), packed(kW * out * kH);
            ASSERT_TRUE(convert_to_canonical(plane, format, src.data(), src_pitch, kW, kH, packed.data()));
            for (uint32_t y = 0; y < kH; ++y)
                std::copy_n(packed.begin() + y * kW * out, kW * out, want.begin() + y * dst_pitch);
            const std::vector<uint8_t> got = on_device(src, want.size(), [&](CUdeviceptr s, CUdeviceptr d) {
                return device().convert->to_canonical(plane, format, s, src_pitch, kW, kH, d, dst_pitch, nullptr);
            });
            EXPECT_EQ(got, want) << plane_name(plane) << " " << format_name(format);
        }
    EXPECT_GE(formats, 25);
}

TEST(GpuConvert, EveryOutputFormatGivesTheHostsTexels) {
    ASSERT_NE(device().convert, nullptr) << "no cpu backend or no module";
    int formats = 0;
    for (uint32_t format = 0; format < 128; ++format) {
        if (!accepted(Plane::Output, format)) continue;
        ++formats;
        const size_t out = texel_bytes(format), src_pitch = kW * 8 + 16, dst_pitch = kW * out + 4;
        // Random halves (every half of [0, 1] through sRGB: EveryHalfOfTheUnitRangeEncodesAsTheHostInSrgb).
        std::vector<uint8_t> src = random_bytes(src_pitch * kH, format);
        std::vector<uint8_t> packed(kW * 8 * kH), want(dst_pitch * kH, 0);
        for (uint32_t y = 0; y < kH; ++y) std::copy_n(src.begin() + y * src_pitch, kW * 8, packed.begin() + y * kW * 8);
        ASSERT_TRUE(convert_from_canonical(format, packed.data(), kW, kH, want.data(), dst_pitch));
        const std::vector<uint8_t> got = on_device(src, want.size(), [&](CUdeviceptr s, CUdeviceptr d) {
            return device().convert->from_canonical(format, s, src_pitch, kW, kH, d, dst_pitch, nullptr);
        });
        for (uint32_t y = 0; y < kH; ++y) // the padding between rows is not written
            EXPECT_TRUE(std::equal(got.begin() + y * dst_pitch, got.begin() + y * dst_pitch + kW * out,
                                   want.begin() + y * dst_pitch))
                << format_name(format) << " row " << y;
    }
    EXPECT_EQ(formats, 9);
}

TEST(GpuConvert, EveryHalfOfTheUnitRangeEncodesAsTheHostInSrgb) {
    ASSERT_NE(device().convert, nullptr) << "no cpu backend or no module";
    const uint32_t format = static_cast<uint32_t>(Dxgi::R8G8B8A8_Unorm_Srgb), n = 0x3c01 + 4;
    std::vector<uint8_t> src(size_t(n) * 8);
    for (uint32_t i = 0; i < n; ++i) { // every half of [0, 1], then -0, NaN, infinity, 2
        const uint16_t extra[4] = {0x8000, 0x7e00, 0x7c00, 0x4000};
        const uint16_t h = i <= 0x3c00 ? static_cast<uint16_t>(i) : extra[i - 0x3c01];
        for (int c = 0; c < 4; ++c) std::memcpy(&src[size_t(i) * 8 + 2 * c], &h, 2);
    }
    std::vector<uint8_t> want(size_t(n) * 4);
    ASSERT_TRUE(convert_from_canonical(format, src.data(), n, 1, want.data(), n * 4));
    const std::vector<uint8_t> got = on_device(src, want.size(), [&](CUdeviceptr s, CUdeviceptr d) {
        return device().convert->from_canonical(format, s, n * 8, n, 1, d, n * 4, nullptr);
    });
    EXPECT_EQ(got, want);
}

TEST(GpuConvert, AFormatThePlaneDoesNotTakeIsRefused) {
    ASSERT_NE(device().convert, nullptr) << "no cpu backend or no module";
    Status s = device().convert->to_canonical(Plane::Motion, static_cast<uint32_t>(Dxgi::R8G8B8A8_Unorm), 0, 0, 1, 1, 0,
                                              0, nullptr);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code(), ErrorCode::Unsupported);
    EXPECT_NE(s.error().text().find("MotionVectors"), std::string::npos) << s.error().text();
    EXPECT_FALSE(device().convert->to_canonical(Plane::Output, static_cast<uint32_t>(Dxgi::R16G16B16A16_Float), 0, 0, 1,
                                                1, 0, 0, nullptr));
    EXPECT_FALSE(device().convert->from_canonical(static_cast<uint32_t>(Dxgi::D32_Float), 0, 0, 1, 1, 0, 0, nullptr));
}
