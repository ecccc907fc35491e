// The shim's CPU conversions (src/shim/formats.cpp) against the tests' independent ones (formats_encode.h):
// every colour format the shim accepts, over every half bit pattern encoded into it (and, for 8-bit formats,
// every byte), must decode to the same RGBA16F bits; depth, motion and exposure formats and the output
// conversions likewise. Runs on Linux: the conversions are the same code in d4r_nvngx.dll.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "formats_encode.h"
#include "shim/formats.h"

namespace enc = d4r::test::encode;
using namespace d4r::shim;

namespace {

// Every half bit pattern as RGBA texels (each pattern in each channel once).
std::vector<uint16_t> all_halves() {
    std::vector<uint16_t> h(65536 * 4);
    for (uint32_t i = 0; i < 65536; ++i)
        for (int c = 0; c < 4; ++c) h[4 * i + c] = static_cast<uint16_t>((i + c * 16411u) & 0xFFFF);
    return h;
}

} // namespace

TEST(ShimFormats, EveryColourFormatDecodesAsTheIndependentConversion) {
    const std::vector<uint16_t> halves = all_halves();
    const size_t n = halves.size() / 4;
    for (const enc::Format& f : enc::kFormats) {
        SCOPED_TRACE(f.name);
        ASSERT_TRUE(accepted(Plane::Color, f.dxgi));
        ASSERT_EQ(texel_bytes(f.dxgi), f.bytes);
        std::vector<uint8_t> encoded = enc::encode_color(f, halves.data(), n);
        std::vector<uint16_t> want = enc::decode_color(f, encoded.data(), n);
        std::vector<uint16_t> got(n * 4);
        // As one image with padded rows, the way a readback buffer holds it.
        const uint32_t width = 256, height = static_cast<uint32_t>(n / width);
        const size_t pitch = width * f.bytes + 64;
        std::vector<uint8_t> padded(pitch * height, 0xCD);
        for (uint32_t y = 0; y < height; ++y)
            std::memcpy(&padded[y * pitch], &encoded[y * width * f.bytes], width * f.bytes);
        ASSERT_TRUE(convert_to_canonical(Plane::Color, f.dxgi, padded.data(), pitch, width, height, got.data()));
        size_t differences = 0, first = 0;
        for (size_t i = 0; i < got.size(); ++i)
            if (got[i] != want[i] && !(enc::half_to_float(got[i]) != enc::half_to_float(got[i]) &&
                                       enc::half_to_float(want[i]) != enc::half_to_float(want[i])))
                if (differences++ == 0) first = i;
        EXPECT_EQ(differences, 0u) << "first at element " << first << ": got " << got[first] << ", want "
                                   << want[first];
    }
}

TEST(ShimFormats, EveryByteOfTheEightBitFormats) {
    for (const char* name : {"rgba8", "rgba8srgb", "bgra8", "bgra8srgb"}) {
        const enc::Format& f = *enc::find(name);
        SCOPED_TRACE(name);
        std::vector<uint8_t> bytes(256 * 4);
        for (int i = 0; i < 256; ++i)
            for (int c = 0; c < 4; ++c) bytes[4 * i + c] = static_cast<uint8_t>(i);
        std::vector<uint16_t> want = enc::decode_color(f, bytes.data(), 256), got(256 * 4);
        ASSERT_TRUE(convert_to_canonical(Plane::Color, f.dxgi, bytes.data(), 1024, 256, 1, got.data()));
        EXPECT_EQ(got, want);
    }
}

TEST(ShimFormats, DepthMotionAndExposure) {
    // D24S8: the low 24 bits are depth, the stencil byte is ignored.
    uint32_t d24[3] = {0x00000000u, 0xAB000000u | 0x7FFFFFu, 0x12FFFFFFu};
    float depth[3];
    ASSERT_TRUE(convert_to_canonical(Plane::Depth, uint32_t(Dxgi::D24_Unorm_S8_Uint), d24, 12, 3, 1, depth));
    EXPECT_EQ(depth[0], 0.0f);
    EXPECT_EQ(depth[1], static_cast<float>(0x7FFFFF / 16777215.0));
    EXPECT_EQ(depth[2], 1.0f);
    uint16_t d16[2] = {0, 65535};
    ASSERT_TRUE(convert_to_canonical(Plane::Depth, uint32_t(Dxgi::D16_Unorm), d16, 4, 2, 1, depth));
    EXPECT_EQ(depth[0], 0.0f);
    EXPECT_EQ(depth[1], 1.0f);
    float d32[2] = {0.25f, -0.0f};
    ASSERT_TRUE(convert_to_canonical(Plane::Depth, uint32_t(Dxgi::D32_Float), d32, 8, 2, 1, depth));
    EXPECT_EQ(std::memcmp(depth, d32, 8), 0);
    // Motion: RG32F rounds to half, RG16F is copied.
    float mv32[2] = {1.5f, -0.333333f};
    uint16_t mv[2];
    ASSERT_TRUE(convert_to_canonical(Plane::Motion, uint32_t(Dxgi::R32G32_Float), mv32, 8, 1, 1, mv));
    EXPECT_EQ(mv[0], enc::float_to_half(1.5f));
    EXPECT_EQ(mv[1], enc::float_to_half(-0.333333f));
    // Exposure: R16F widens to R32F.
    uint16_t e16 = enc::float_to_half(2.5f);
    float e;
    ASSERT_TRUE(convert_to_canonical(Plane::Exposure, uint32_t(Dxgi::R16_Float), &e16, 2, 1, 1, &e));
    EXPECT_EQ(e, 2.5f);
}

TEST(ShimFormats, OutputConversionsMatchTheTestsEncoder) {
    const std::vector<uint16_t> halves = all_halves();
    const size_t n = halves.size() / 4;
    for (const char* name :
         {"rgba16f", "rgba32f", "r11g11b10f", "rgb10a2", "rgba8", "rgba8srgb", "bgra8", "bgra8srgb"}) {
        const enc::Format& f = *enc::find(name);
        SCOPED_TRACE(name);
        ASSERT_TRUE(accepted(Plane::Output, f.dxgi));
        std::vector<uint8_t> want = enc::encode_color(f, halves.data(), n), got(want.size());
        ASSERT_TRUE(convert_from_canonical(f.dxgi, halves.data(), static_cast<uint32_t>(n), 1, got.data(), got.size()));
        size_t differences = 0;
        for (size_t i = 0; i < got.size(); ++i) differences += got[i] != want[i];
        if (f.dxgi == 2) { // NaN payloads may differ in float; compare as floats for NaN
            differences = 0;
            for (size_t i = 0; i < n * 4; ++i) {
                float a, b;
                std::memcpy(&a, &got[4 * i], 4);
                std::memcpy(&b, &want[4 * i], 4);
                differences += !(a == b || (a != a && b != b));
            }
        }
        EXPECT_EQ(differences, 0u);
    }
}

TEST(ShimFormats, RefusesWhatAPlaneDoesNotAccept) {
    EXPECT_FALSE(accepted(Plane::Color, 61));  // R8_UNORM
    EXPECT_FALSE(accepted(Plane::Depth, 10));  // RGBA16F is no depth format
    EXPECT_FALSE(accepted(Plane::Motion, 41)); // R32F
    uint8_t dummy[16] = {};
    EXPECT_FALSE(convert_to_canonical(Plane::Color, 61, dummy, 16, 1, 1, dummy));
    EXPECT_FALSE(convert_from_canonical(67, dummy, 1, 1, dummy, 16)); // R9G9B9E5 is no output format
    EXPECT_EQ(format_name(26), "R11G11B10_FLOAT (26)");
    EXPECT_EQ(format_name(61), "DXGI format 61");
}

// The harness's depth and motion formats (--depth, --motion): the shim's conversion of what the harness
// uploads equals the independent decoding the Linux reference uses, bit for bit.
TEST(ShimFormats, HarnessDepthFormatsDecodeAsTheIndependentConversion) {
    std::vector<float> depth;
    for (uint32_t i = 0; i <= 4096; ++i) depth.push_back(static_cast<float>(i) / 4096.0f);
    depth.insert(depth.end(), {-1.0f, 2.0f, 1e-9f, 0.999999f, 0.5000001f, 123.0f});
    for (const enc::Format& f : enc::kDepthFormats) {
        SCOPED_TRACE(f.name);
        std::vector<uint8_t> encoded = enc::encode_depth(f, depth.data(), depth.size());
        std::vector<float> expected = enc::decode_depth(f, encoded.data(), depth.size());
        std::vector<float> got(depth.size());
        ASSERT_TRUE(convert_to_canonical(Plane::Depth, f.dxgi, encoded.data(), encoded.size(),
                                         static_cast<uint32_t>(depth.size()), 1, got.data()));
        EXPECT_EQ(std::memcmp(got.data(), expected.data(), 4 * got.size()), 0);
        if (f.dxgi != 45) { // R32F and D32F are exact
            EXPECT_EQ(std::memcmp(got.data(), depth.data(), 4 * got.size()), 0);
        }
    }
    const enc::Format& d24 = *enc::find_depth("d24s8");
    std::vector<uint8_t> one = enc::encode_depth(d24, depth.data() + 4096, 1); // 1.0
    EXPECT_EQ(one[3], 0x5A);                                                   // the stencil byte is there
    EXPECT_EQ(enc::decode_depth(d24, one.data(), 1)[0], 1.0f);                 // and ignored
}

TEST(ShimFormats, HarnessMotionFormatsDecodeAsTheIndependentConversion) {
    const std::vector<uint16_t> halves = all_halves(); // RGBA: read as 2 vectors per texel
    const size_t n = halves.size() / 2;
    for (const enc::Format& f : enc::kMotionFormats) {
        SCOPED_TRACE(f.name);
        std::vector<uint8_t> encoded = enc::encode_motion(f, halves.data(), n);
        std::vector<uint16_t> expected = enc::decode_motion(f, encoded.data(), n);
        std::vector<uint16_t> got(2 * n);
        ASSERT_TRUE(convert_to_canonical(Plane::Motion, f.dxgi, encoded.data(), encoded.size(),
                                         static_cast<uint32_t>(n), 1, got.data()));
        EXPECT_EQ(got, expected);
        // Both carry every half through unchanged except NaN payloads, so the Linux reference needs no change.
        size_t differ = 0;
        for (size_t i = 0; i < 2 * n; ++i)
            if (got[i] != halves[i] && !((halves[i] & 0x7C00) == 0x7C00 && (halves[i] & 0x3FF))) ++differ;
        EXPECT_EQ(differ, 0u);
    }
}

// canonical(): exactly the formats whose conversion to the canonical layout is a copy of the bytes (the D3D12 mapped
// path hands their texels to the core as they are). Every format of every plane, over texels of random bytes that
// are finite values in every format (each byte below 0x70: no f16 or f32 NaN or infinity).
TEST(ShimFormats, CanonicalIsExactlyTheFormatsWhoseConversionIsACopy) {
    std::vector<uint8_t> src(64 * 16);
    uint32_t x = 12345;
    for (uint8_t& b : src) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<uint8_t>((x >> 24) % 0x70);
    }
    int canonical_formats = 0;
    for (Plane plane : {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure, Plane::Output}) {
        for (uint32_t format = 0; format < 120; ++format) {
            if (!accepted(plane, format)) {
                EXPECT_FALSE(canonical(plane, format)) << plane_name(plane) << " " << format_name(format);
                continue;
            }
            const size_t texel = canonical_texel_bytes(plane);
            if (texel_bytes(format) != texel) {
                EXPECT_FALSE(canonical(plane, format)) << plane_name(plane) << " " << format_name(format);
                continue;
            }
            std::vector<uint8_t> out(64 * texel);
            bool copy = false;
            if (plane == Plane::Output) {
                ASSERT_TRUE(convert_from_canonical(format, src.data(), 64, 1, out.data(), out.size()));
                copy = std::memcmp(out.data(), src.data(), out.size()) == 0;
            } else {
                ASSERT_TRUE(convert_to_canonical(plane, format, src.data(), 64 * texel, 64, 1, out.data()));
                copy = std::memcmp(out.data(), src.data(), out.size()) == 0;
            }
            EXPECT_EQ(canonical(plane, format), copy) << plane_name(plane) << " " << format_name(format);
            canonical_formats += canonical(plane, format);
        }
    }
    EXPECT_EQ(canonical_formats, 11); // colour 2, depth 3, motion 2, exposure 2, output 2
}
