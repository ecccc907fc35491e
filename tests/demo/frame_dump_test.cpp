// `d4r demo --dump-frames`: the .d4rframe format (docs/demo.md) read back independently of the encoder,
// and the dumped frames checked against what the demo measured and wrote (cpu backend, small size).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "demo/frame_dump.h"
#include "image/half.h"
#include "image/metrics.h"
#include "image/png.h"
#include "image/tonemap.h"
#include "kernels/upscaler/ptx/upscaler_math.h"
#include "scene/scene.h"
#include "test_support.h"

namespace fs = std::filesystem;
using d4r::test::run_d4r;
using d4r::test::TempDir;

namespace {

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

// The format as docs/demo.md states it, parsed here by hand.
struct Parsed {
    uint32_t width = 0, height = 0, index = 0;
    float exposure = 0;
    std::vector<uint16_t> output, truth;
};

Parsed parse(const std::vector<uint8_t>& b) {
    Parsed p;
    EXPECT_GE(b.size(), 24u);
    EXPECT_EQ(std::memcmp(b.data(), "d4rfrm1\0", 8), 0);
    p.width = u32_at(b, 8);
    p.height = u32_at(b, 12);
    p.exposure = std::bit_cast<float>(u32_at(b, 16));
    p.index = u32_at(b, 20);
    size_t n = size_t(p.width) * p.height * 3;
    EXPECT_EQ(b.size(), 24 + n * 4);
    if (b.size() != 24 + n * 4) return p;
    for (size_t i = 0; i < 2 * n; ++i) {
        uint16_t v = uint16_t(b[24 + 2 * i] | b[24 + 2 * i + 1] << 8);
        (i < n ? p.output : p.truth).push_back(v);
    }
    return p;
}

d4r::image::Image rgb_image(uint32_t w, uint32_t h, const std::vector<uint16_t>& halves) {
    return d4r::image::Image(w, h, 3, d4r::image::halves_to_floats(halves));
}

} // namespace

namespace d4r::demo {

TEST(FrameDump, EncodesTheDocumentedLayout) {
    FrameDump dump{2, 1, 0.75f, 9, {0x3c00, 1, 2, 3, 4, 0xfc00}, {5, 6, 7, 8, 9, 0x7bff}, std::nullopt};
    auto encoded = encode_frame_dump(dump);
    ASSERT_TRUE(encoded.ok()) << encoded.error().text();
    std::vector<uint8_t> bytes = *encoded;
    const uint8_t header[] = {'d', '4', 'r', 'f', 'r', 'm', '1',  0,    2, 0, 0, 0,
                              1,   0,   0,   0,   0,   0,   0x40, 0x3f, 9, 0, 0, 0};
    ASSERT_EQ(bytes.size(), 24u + 2 * 6 * 2);
    EXPECT_EQ(std::memcmp(bytes.data(), header, 24), 0);
    EXPECT_EQ(bytes[24], 0x00);
    EXPECT_EQ(bytes[25], 0x3c); // little endian f16 1.0
    EXPECT_EQ(bytes[24 + 12], 5);
    EXPECT_EQ(bytes[24 + 23], 0x7b);

    auto back = decode_frame_dump(bytes);
    ASSERT_TRUE(back.ok()) << back.error().text();
    EXPECT_EQ(back->width, 2u);
    EXPECT_EQ(back->exposure, 0.75f);
    EXPECT_EQ(back->frame_index, 9u);
    EXPECT_EQ(back->output, dump.output);
    EXPECT_EQ(back->truth, dump.truth);

    bytes.pop_back();
    EXPECT_FALSE(decode_frame_dump(bytes).ok());
    bytes.push_back(0x7b);
    bytes[0] = 'x';
    EXPECT_FALSE(decode_frame_dump(bytes).ok());
    std::vector<uint8_t> huge(header, header + 24);
    huge[8] = huge[9] = huge[10] = huge[11] = huge[12] = huge[13] = huge[14] = huge[15] = 0xff;
    EXPECT_FALSE(decode_frame_dump(huge).ok());
    EXPECT_EQ(frame_dump_name("train-7", 3), "train-7-f003.d4rframe");
    EXPECT_EQ(frame_dump_name("city", 1234), "city-f1234.d4rframe");
}

// Version 2 (--dump-inputs): the 48-byte header and the sections in the documented order, read by hand.
TEST(FrameDump, Version2HoldsTheCoreInputsAndTerms) {
    FrameInputs in{.render_width = 1,
                   .render_height = 1,
                   .jitter_x = -0.25f,
                   .jitter_y = 0.5f,
                   .history = true,
                   .depth = {0.75f},
                   .color = {0x3c00, 0x3800, 0x3400},
                   .motion = {0xbc00, 0x4000},
                   .terms = {}};
    for (uint16_t i = 0; i < 2 * kFrameDumpTermPlanes; ++i) in.terms.push_back(uint16_t(0x1000 + i));
    FrameDump dump{2, 1, 0.75f, 9, {1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, in};
    auto encoded = encode_frame_dump(dump);
    ASSERT_TRUE(encoded.ok()) << encoded.error().text();
    const std::vector<uint8_t>& b = *encoded;
    ASSERT_EQ(b.size(), 48u + 2 * 6 * 2 + 4 + 3 * 2 + 2 * 2 + 2 * 13 * 2);
    EXPECT_EQ(std::memcmp(b.data(), "d4rfrm2\0", 8), 0);
    EXPECT_EQ(u32_at(b, 8), 2u);
    EXPECT_EQ(u32_at(b, 20), 9u);
    EXPECT_EQ(u32_at(b, 24), 1u);
    EXPECT_EQ(u32_at(b, 28), 1u);
    EXPECT_EQ(std::bit_cast<float>(u32_at(b, 32)), -0.25f);
    EXPECT_EQ(std::bit_cast<float>(u32_at(b, 36)), 0.5f);
    EXPECT_EQ(u32_at(b, 40), 1u);
    EXPECT_EQ(u32_at(b, 44), 13u);
    EXPECT_EQ(b[48], 1);                                   // output
    EXPECT_EQ(b[48 + 12], 7);                              // truth
    EXPECT_EQ(std::bit_cast<float>(u32_at(b, 72)), 0.75f); // depth
    EXPECT_EQ(b[76 + 1], 0x3c);                            // colour
    EXPECT_EQ(b[82 + 1], 0xbc);                            // motion
    EXPECT_EQ(b[86], 0x00);                                // terms
    EXPECT_EQ(b[86 + 1], 0x10);
    EXPECT_EQ(b[b.size() - 2], 25);

    auto back = decode_frame_dump(b);
    ASSERT_TRUE(back.ok()) << back.error().text();
    ASSERT_TRUE(back->inputs.has_value());
    EXPECT_EQ(back->output, dump.output);
    EXPECT_EQ(back->truth, dump.truth);
    EXPECT_EQ(back->inputs->depth, in.depth);
    EXPECT_EQ(back->inputs->color, in.color);
    EXPECT_EQ(back->inputs->motion, in.motion);
    EXPECT_EQ(back->inputs->terms, in.terms);
    EXPECT_EQ(back->inputs->jitter_x, -0.25f);
    EXPECT_TRUE(back->inputs->history);

    // Refused, each with an error naming the value.
    auto refused = [](std::vector<uint8_t> bytes, const char* says) {
        auto r = decode_frame_dump(bytes);
        ASSERT_FALSE(r.ok()) << says;
        EXPECT_NE(r.error().text().find(says), std::string::npos) << r.error().text();
    };
    std::vector<uint8_t> bad = b;
    bad.pop_back();
    refused(bad, "bytes, expected");
    bad = b;
    bad[44] = 12;
    refused(bad, "12 term planes");
    bad = b;
    bad[40] = 2;
    refused(bad, "history flag 2");
    bad = b;
    bad[24] = 3;
    refused(bad, "render size 3x1");
    bad = b;
    bad[8] = bad[9] = bad[10] = 0xff;
    refused(bad, "larger than");
    refused(std::vector<uint8_t>(b.begin(), b.begin() + 30), "not a d4r frame dump");

    dump.inputs->terms.pop_back();
    EXPECT_FALSE(encode_frame_dump(dump).ok());
}

TEST(FrameDump, RgbHalvesDropAlpha) {
    EXPECT_EQ(rgb_of_rgba_halves(std::vector<uint16_t>{1, 2, 3, 4, 5, 6, 7, 8}),
              (std::vector<uint16_t>{1, 2, 3, 5, 6, 7}));
    image::Image img(1, 1, 4, std::vector<float>{1.0f, 0.5f, 65504.0f, 1.0f});
    EXPECT_EQ(rgb_halves(img), (std::vector<uint16_t>{0x3c00, 0x3800, 0x7bff}));
}

} // namespace d4r::demo

// The demo on a training scene: every frame dumped, each dump's output is the image the demo measured
// (its PSNR against the scene's truth is the report's, and the last one is d4r.png), each truth is the
// scene's truth rounded to f16.
TEST(DemoFrameDump, DumpsEveryFrameAsTheDemoMeasuredIt) {
    using namespace d4r;
    TempDir dir;
    const uint32_t rw = 64, rh = 36, ow = 128, oh = 72, frames = 3;
    fs::path out = dir.path() / "out", dumps = dir.path() / "dumps" / "train-3";
    auto r = run_d4r({"demo", "--backend", "cpu", "--scene", "train-3", "--frames", std::to_string(frames), "--render",
                      "64x36", "--output", "128x72", "--translated-frames", "0", "--scene-threads", "2", "--out",
                      out.string(), "--dump-frames", dumps.string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("wrote 3 frame dumps"), std::string::npos) << r.out;
    auto report = nlohmann::json::parse(test::read_file_text(out / "report.json"));
    ASSERT_EQ(report["frames"].size(), frames);

    auto entries = list_directory(dumps);
    ASSERT_TRUE(entries.ok());
    ASSERT_EQ(entries->size(), frames); // nothing else (no temporary files left)
    auto scene = scene::make_training_scene(3);
    for (uint32_t i = 0; i < frames; ++i) {
        fs::path path = dumps / ("train-3-f00" + std::to_string(i) + ".d4rframe");
        EXPECT_EQ((*entries)[i], path);
        auto bytes = read_file(path);
        ASSERT_TRUE(bytes.ok()) << path;
        Parsed p = parse(*bytes);
        ASSERT_EQ(p.width, ow);
        ASSERT_EQ(p.height, oh);
        EXPECT_EQ(p.index, i);
        scene::Frame frame = scene->render(i, {rw, rh}, {ow, oh});
        EXPECT_EQ(p.exposure, frame.inputs.exposure);
        ASSERT_EQ(p.truth.size(), size_t(ow) * oh * 3);
        for (size_t k = 0; k < size_t(ow) * oh; ++k)
            for (size_t c = 0; c < 3; ++c)
                ASSERT_EQ(p.truth[k * 3 + c], image::float_to_half(frame.truth.data[k * 4 + c])) << k;
        image::Image output_d = image::tonemap(rgb_image(ow, oh, p.output), p.exposure);
        double psnr = image::psnr(output_d, image::tonemap(frame.truth, p.exposure)).value();
        EXPECT_DOUBLE_EQ(psnr, report["frames"][i]["psnr_d4r"].get<double>()) << "frame " << i;
        if (i + 1 == frames) {
            auto png = image::encode_png(output_d);
            ASSERT_TRUE(png.ok());
            auto written = read_file(out / "d4r.png");
            ASSERT_TRUE(written.ok());
            EXPECT_TRUE(*png == *written) << "the last dump's output is not the demo's d4r.png";
        }
    }
}

TEST(DemoFrameDump, MalformedTrainingSceneIsAUsageError) {
    TempDir dir;
    auto r = run_d4r({"demo", "--scene", "train-x", "--out", dir.path().string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("train-<seed>"), std::string::npos) << r.err;
}

// --dump-inputs: version 2 dumps whose output is the one a plain dump holds, whose inputs are the scene's
// as handed to the core, and whose accumulate terms blend back into that output (to f16 precision).
TEST(DemoFrameDump, DumpInputsHoldsTheCoreInputsAndTermsThatBlendIntoTheOutput) {
    using namespace d4r;
    namespace m = upscaler::math;
    TempDir dir;
    const uint32_t rw = 64, rh = 36, ow = 128, oh = 72, frames = 3;
    fs::path plain = dir.path() / "plain", full = dir.path() / "full";
    for (const fs::path& dumps : {plain, full}) {
        std::vector<std::string> args = {"demo",
                                         "--backend",
                                         "cpu",
                                         "--scene",
                                         "train-3",
                                         "--frames",
                                         "3",
                                         "--render",
                                         "64x36",
                                         "--output",
                                         "128x72",
                                         "--translated-frames",
                                         "0",
                                         "--no-images",
                                         "--scene-threads",
                                         "2",
                                         "--out",
                                         (dir.path() / "out").string(),
                                         "--dump-frames",
                                         dumps.string()};
        if (dumps == full) args.push_back("--dump-inputs");
        auto r = run_d4r(args);
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        if (dumps == full) {
            EXPECT_NE(r.out.find("version 2"), std::string::npos) << r.out;
            EXPECT_EQ(r.out.find("differs"), std::string::npos) << "the CPU reference must match the core: " << r.out;
        }
    }
    auto scene = scene::make_training_scene(3);
    for (uint32_t i = 0; i < frames; ++i) {
        std::string name = "train-3-f00" + std::to_string(i) + ".d4rframe";
        auto a = read_file(plain / name), b = read_file(full / name);
        ASSERT_TRUE(a.ok() && b.ok()) << name;
        auto v1 = demo::decode_frame_dump(*a);
        auto v2 = demo::decode_frame_dump(*b);
        ASSERT_TRUE(v1.ok() && v2.ok()) << name;
        ASSERT_FALSE(v1->inputs.has_value());
        ASSERT_TRUE(v2->inputs.has_value());
        EXPECT_EQ(v1->output, v2->output);
        EXPECT_EQ(v1->truth, v2->truth);
        const demo::FrameInputs& in = *v2->inputs;
        scene::Frame frame = scene->render(i, {rw, rh}, {ow, oh});
        EXPECT_EQ(in.render_width, rw);
        EXPECT_EQ(in.jitter_x, frame.inputs.jitter_x);
        EXPECT_EQ(in.jitter_y, frame.inputs.jitter_y);
        EXPECT_EQ(in.history, i > 0);
        EXPECT_EQ(in.depth, frame.inputs.depth);
        for (size_t k = 0; k < size_t(rw) * rh; ++k) {
            ASSERT_EQ(in.color[k * 3], image::float_to_half(frame.inputs.color[k * 4])) << k;
            ASSERT_EQ(in.motion[k * 2 + 1], image::float_to_half(frame.inputs.motion[k * 2 + 1])) << k;
        }
        size_t reprojected = 0;
        double worst = 0;
        for (size_t k = 0; k < size_t(ow) * oh; ++k) {
            float t[demo::kFrameDumpTermPlanes];
            for (uint32_t c = 0; c < demo::kFrameDumpTermPlanes; ++c)
                t[c] = image::half_to_float(in.terms[k * demo::kFrameDumpTermPlanes + c]);
            reprojected += t[4] == 1.0f;
            ASSERT_TRUE(t[12] >= 0.0f && t[12] <= 1.0f) << "alpha " << t[12];
            float a = t[12];
            m::F3 rgb =
                m::ycocg_to_rgb({t[5] + (t[8] - t[5]) * a, t[6] + (t[9] - t[6]) * a, t[7] + (t[10] - t[7]) * a});
            float c[3] = {m::clamp_f(rgb.x, 0, 1), m::clamp_f(rgb.y, 0, 1), m::clamp_f(rgb.z, 0, 1)};
            float inv = 1.0f / (std::max(1.0f - std::max({c[0], c[1], c[2]}), 1.0f / 4096.0f) * v2->exposure);
            for (int ch = 0; ch < 3; ++ch) {
                float want = image::half_to_float(v2->output[k * 3 + ch]) * v2->exposure;
                float got = c[ch] * inv * v2->exposure;
                worst = std::max(worst, double(std::abs(got / (1 + got) - want / (1 + want)))); // tone-mapped
            }
        }
        if (i == 0) {
            EXPECT_EQ(reprojected, 0u);
        } else {
            EXPECT_GT(reprojected, size_t(ow) * oh / 2);
        }
        EXPECT_LT(worst, 4e-3) << "frame " << i;
    }
}
