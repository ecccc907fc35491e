// `d4r demo --dump-frames`: the .d4rframe format (docs/demo.md) read back independently of the encoder,
// and the dumped frames checked against what the demo measured and wrote (cpu backend, small size).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "demo/frame_dump.h"
#include "image/half.h"
#include "image/metrics.h"
#include "image/png.h"
#include "image/tonemap.h"
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
    FrameDump dump{2, 1, 0.75f, 9, {0x3c00, 1, 2, 3, 4, 0xfc00}, {5, 6, 7, 8, 9, 0x7bff}};
    std::vector<uint8_t> bytes = encode_frame_dump(dump);
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
