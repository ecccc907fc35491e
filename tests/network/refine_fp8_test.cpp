// The FP8 variant's pieces on the host (docs/network.md, "FP8 layers"): the f16 -> e4m3 conversion against a
// search of every e4m3 value, the plan of a refine-v1-fp8 model (which launches use d4r_nn_linear_fp8, where its
// scale is) and the host FP8 linear on values whose result is exact.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/common/f16.h"
#include "kernels/refine/ptx/refine_math.h"
#include "network/host_kernels.h"
#include "network/plan.h"
#include "network/test_model.h"
#include "numerics/mma_numerics.h"

using namespace d4r;
using namespace d4r::network;

namespace {

double e4m3_value(uint8_t code) { return kernels::half_to_float(numerics::mma::fp8_to_f16(code, false)); }

// The OCP e4m3 code nearest to the f16 h (ties to the even code, beyond 448 saturated, NaN 0x7f), by search.
uint8_t nearest_e4m3(uint16_t h) {
    const float v = kernels::half_to_float(h);
    if (std::isnan(v)) return 0x7f;
    const uint8_t sign = std::signbit(v) ? 0x80 : 0x00;
    const double a = std::fabs(double(v));
    if (a >= 448.0) return sign | 0x7e;
    uint8_t best = 0;
    for (uint8_t c = 1; c <= 0x7e; ++c) {
        const double d = std::fabs(e4m3_value(c) - a), e = std::fabs(e4m3_value(best) - a);
        if (d < e || (d == e && (c & 1) == 0)) best = c;
    }
    return sign | best;
}

} // namespace

TEST(RefineFp8, HalfToE4m3RoundsEveryHalfToTheNearestEvenSaturating) {
    size_t wrong = 0;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const uint8_t got = refine::math::half_to_e4m3(static_cast<uint16_t>(h)), want = nearest_e4m3(uint16_t(h));
        if (got != want && wrong++ < 5)
            ADD_FAILURE() << "f16 0x" << std::hex << h << " (" << kernels::half_to_float(uint16_t(h)) << "): 0x"
                          << int(got) << ", expected 0x" << int(want);
    }
    EXPECT_EQ(wrong, 0u);
    // The documented corners.
    EXPECT_EQ(refine::math::half_to_e4m3(0x7c00), 0x7e);                                // +inf -> 448
    EXPECT_EQ(refine::math::half_to_e4m3(0xfc00), 0xfe);                                // -inf -> -448
    EXPECT_EQ(refine::math::half_to_e4m3(0xfe00), 0x7f);                                // NaN
    EXPECT_EQ(refine::math::half_to_e4m3(0x8000), 0x80);                                // -0
    EXPECT_EQ(refine::math::half_to_e4m3(kernels::float_to_half(0.0009765625f)), 0x00); // 2^-10: tie to 0
    EXPECT_EQ(refine::math::half_to_e4m3(kernels::float_to_half(1.0f)), 0x38);
}

TEST(RefineFp8, ThePlanRunsEnc2sLinearsInFp8WithTheirScales) {
    const Model model = nettest::random_model(3, true);
    EXPECT_EQ(model.arch, "refine-v1-fp8");
    const WeightLayout layout = weight_layout(model.arch);
    const std::vector<TensorSpec>& specs = refine_v1_fp8_tensors();
    ASSERT_EQ(layout.offsets.size(), specs.size());
    const std::vector<uint8_t> packed = pack_weights(model);
    EXPECT_EQ(packed.size(), layout.total);
    const uint64_t base = 0x100000;
    const std::vector<Launch> plan = plan_forward(geometry_for(72, 40), 0x10, 72 * 8, base, 0x900000, model.arch);
    std::vector<std::string> fp8;
    for (const Launch& l : plan) {
        if (l.kernel != Kernel::LinearFp8) {
            EXPECT_FALSE(l.what.starts_with("enc2.") && l.kernel == Kernel::Linear) << l.what;
            continue;
        }
        fp8.push_back(l.what);
        const auto p = l.as<refine::math::LinearFp8Params>();
        EXPECT_EQ(l.param_bytes, sizeof(refine::math::LinearFp8Params));
        for (size_t i = 0; i < specs.size(); ++i) {
            const Tensor* t = model.find(specs[i].name);
            ASSERT_NE(t, nullptr) << specs[i].name;
            if (specs[i].name == l.what + ".w") {
                EXPECT_EQ(p.weight, base + layout.offsets[i]);
                EXPECT_EQ(t->dtype, DType::E4M3);
                EXPECT_EQ(0, std::memcmp(packed.data() + layout.offsets[i], t->data.data(), t->data.size()));
            }
            if (specs[i].name == l.what + ".scale") {
                EXPECT_EQ(p.scale, base + layout.offsets[i]);
                EXPECT_EQ(0, std::memcmp(packed.data() + layout.offsets[i], t->data.data(), 2));
            }
            if (specs[i].name == l.what + ".b") {
                EXPECT_EQ(p.bias, base + layout.offsets[i]);
            }
        }
        EXPECT_EQ(p.in_ch % 32, 0u) << l.what;
    }
    EXPECT_EQ(fp8, (std::vector<std::string>{"enc2.qkv", "enc2.proj", "enc2.fc1", "enc2.fc2"}));
    EXPECT_EQ(plan_kernels(kArchRefineV1Fp8).size(), 8u);
    // refine-v2-fp8: enc2's qkv, proj and fc1 in FP8; fc2 (256 inputs, more than the FP8 linears take) the wide f16
    // linear.
    std::vector<std::string> v2_fp8, v2_wide;
    for (const Launch& l : plan_forward(geometry_for(72, 40), 0x10, 72 * 8, base, 0x900000, kArchRefineV2Fp8)) {
        if (l.kernel == Kernel::LinearFp8) {
            v2_fp8.push_back(l.what);
            EXPECT_LE(l.as<refine::math::LinearFp8Params>().in_ch, refine::math::kMaxChannels) << l.what;
        }
        if (l.kernel == Kernel::LinearWide && l.what.starts_with("enc2.")) v2_wide.push_back(l.what);
    }
    EXPECT_EQ(v2_fp8, (std::vector<std::string>{"enc2.qkv", "enc2.proj", "enc2.fc1"}));
    EXPECT_EQ(v2_wide, std::vector<std::string>{"enc2.fc2"});
    EXPECT_EQ(plan_kernels(kArchRefineV2Fp8).size(), 9u);
    const std::vector<Kernel> f16 = plan_kernels(kArchRefineV1);
    EXPECT_EQ(f16.size(), 7u);
    EXPECT_EQ(std::count(f16.begin(), f16.end(), Kernel::LinearFp8), 0);
}

// Values whose every step is exact: the result is scale * (x . w) + bias, then relu and the residual.
TEST(RefineFp8, TheHostLinearScalesBiasesAndFinishes) {
    const uint32_t tokens = 3, in_ch = 64, out_ch = 8;
    std::vector<uint16_t> x(tokens * in_ch), bias(out_ch), residual(tokens * out_ch), out(tokens * out_ch, 0xffff);
    std::vector<uint8_t> w(out_ch * in_ch);
    for (uint32_t t = 0; t < tokens; ++t)
        for (uint32_t k = 0; k < in_ch; ++k) x[t * in_ch + k] = kernels::float_to_half(float(int(k % 5) - 2) * 0.5f);
    for (uint32_t o = 0; o < out_ch; ++o) {
        bias[o] = kernels::float_to_half(float(o) - 2.0f);
        for (uint32_t k = 0; k < in_ch; ++k)
            w[o * in_ch + k] = refine::math::half_to_e4m3(kernels::float_to_half(float(int((k + o) % 7) - 3)));
    }
    for (uint32_t i = 0; i < tokens * out_ch; ++i) residual[i] = kernels::float_to_half(0.25f * float(i));
    const uint16_t scale = kernels::float_to_half(0.75f);
    refine::math::LinearFp8Params p{reinterpret_cast<uint64_t>(x.data()),
                                    reinterpret_cast<uint64_t>(w.data()),
                                    reinterpret_cast<uint64_t>(bias.data()),
                                    reinterpret_cast<uint64_t>(residual.data()),
                                    reinterpret_cast<uint64_t>(out.data()),
                                    tokens,
                                    in_ch,
                                    out_ch,
                                    refine::math::kRelu | refine::math::kResidual,
                                    reinterpret_cast<uint64_t>(&scale)};
    run_kernel(Kernel::LinearFp8, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&p), sizeof(p)), {1, 1, 1},
               1);
    for (uint32_t t = 0; t < tokens; ++t)
        for (uint32_t o = 0; o < out_ch; ++o) {
            double dot = 0;
            for (uint32_t k = 0; k < in_ch; ++k) dot += (double(int(k % 5) - 2) * 0.5) * double(int((k + o) % 7) - 3);
            const double v = std::max(0.0, 0.75 * dot + (double(o) - 2.0)) + 0.25 * double(t * out_ch + o);
            EXPECT_EQ(kernels::half_to_float(out[t * out_ch + o]), float(v)) << "token " << t << " output " << o;
        }
}
