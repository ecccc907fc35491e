// Rows of f16 <-> f32 for the refine CPU kernels (half_rows.h): F16C where the CPU has it, with the scalar
// functions' bits for every half and for floats of every kind (NaN canonical, ties to even, subnormals, overflow).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cpu_kernel_test.h"
#include "kernels/common/f16.h"
#include "kernels/refine/cpu/half_rows.h"

namespace d4r::refine_cpu {
namespace {

class HalfRows : public test::SimdSwitch {};
INSTANTIATE_TEST_SUITE_P(Simd, HalfRows, testing::Bool(), test::simd_name);

TEST_P(HalfRows, EveryHalfBecomesTheScalarFunctionsFloat) {
    std::vector<uint16_t> halves(65536 + 5); // a count that is not a multiple of 8: the scalar tail too
    for (size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i);
    std::vector<float> floats(halves.size());
    halves_to_floats(halves.data(), floats.data(), halves.size());
    for (size_t i = 0; i < halves.size(); ++i) {
        const float want = kernels::half_to_float(halves[i]);
        ASSERT_EQ(std::memcmp(&floats[i], &want, 4), 0) << "half " << std::hex << halves[i];
    }
}

TEST_P(HalfRows, FloatsOfEveryKindBecomeTheScalarFunctionsHalf) {
    std::vector<float> floats;
    for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 65521) { // every exponent, many mantissas
        const auto b = static_cast<uint32_t>(bits);
        float f;
        std::memcpy(&f, &b, 4);
        floats.push_back(f);
    }
    // Ties between halves (the even one wins), the largest half and the first value that overflows, subnormals.
    for (float f :
         {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.0f, 65519.0f, 65520.0f, 5.96e-8f, 2.98e-8f, -2.99e-8f, 6.1e-5f})
        floats.push_back(f);
    std::vector<uint16_t> halves(floats.size());
    floats_to_halves(floats.data(), halves.data(), floats.size());
    for (size_t i = 0; i < floats.size(); ++i)
        ASSERT_EQ(halves[i], kernels::float_to_half(floats[i])) << "float " << floats[i];
}

} // namespace
} // namespace d4r::refine_cpu
