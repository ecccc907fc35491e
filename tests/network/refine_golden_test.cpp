// The H200's bytes for the refine PTX (tests/fixtures/network/refine-h200-*.bin, made by tests/device/
// refine-network.sh with refine_probe on NVIDIA's driver; refine-h200-fp8-*.bin with refine_probe --fp8) equal the C++
// reference's, so the numerics docs/network.md defines are the GPU's, and ptxsim (checked against the reference launch
// by launch) gives them too.
#include <gtest/gtest.h>

#include <filesystem>

#include "network/reference.h"
#include "network/test_model.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::network;

namespace {

struct Golden {
    uint32_t width, height, seed;
    bool fp8 = false; // the refine-v1-fp8 test model: refine-h200-fp8-*.bin
};

void check(const Golden& g) {
    const auto path = std::filesystem::path(D4R_TEST_FIXTURE_DIR) / "network" /
                      fmt::format("refine-h200-{}{}x{}-s{}.bin", g.fp8 ? "fp8-" : "", g.width, g.height, g.seed);
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing (tests/device/refine-network.sh makes it)";
    const std::string bytes = d4r::test::read_file_text(path);
    std::vector<uint16_t> img = nettest::test_image(g.width, g.height, g.seed);
    ASSERT_EQ(bytes.size(), img.size() * 2) << path;
    ASSERT_TRUE(refine_reference(nettest::random_model(g.seed, g.fp8), img.data(), g.width, g.height));
    size_t differ = 0, first = img.size();
    for (size_t i = 0; i < img.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        if (h != img[i]) {
            ++differ;
            first = std::min(first, i);
        }
    }
    EXPECT_EQ(differ, 0u) << path.filename() << ": " << differ << " of " << img.size()
                          << " values differ from the reference, the first at pixel " << first / 4 << " channel "
                          << first % 4;
}

} // namespace

TEST(RefineGolden, TheH200GivesTheReferenceBytes72x40) { check({72, 40, 7}); }
TEST(RefineGolden, TheH200GivesTheReferenceBytes44x20) { check({44, 20, 11}); }
TEST(RefineGolden, TheH200GivesTheReferenceBytes136x72) { check({136, 72, 3}); }
// The FP8 variant: enc2's linears as mma.sync m16n8k32 e4m3 steps with an f16 accumulator (docs/numerics.md: on
// sm_90 ptxas runs them as two f16 HMMA passes and an add; the reference follows that measured rule).
TEST(RefineGolden, TheH200GivesTheReferenceBytesFp8_72x40) { check({72, 40, 7, true}); }
TEST(RefineGolden, TheH200GivesTheReferenceBytesFp8_44x20) { check({44, 20, 11, true}); }
TEST(RefineGolden, TheH200GivesTheReferenceBytesFp8_136x72) { check({136, 72, 3, true}); }
