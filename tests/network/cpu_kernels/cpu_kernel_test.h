// What the refine CPU kernel tests share: running a registered kernel directly, and a fixture that runs each test
// with the kernels' explicit vector paths on and off (simd.h).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>

#include "kernels/refine/cpu/simd.h"
#include "runtime/native/cpu_registry.h"

namespace d4r::refine_cpu::test {

// Runs the registered CPU kernel NAME over GRID with the parameter block P.
template <typename P>
void run_registered(const char* name, const P& p, const std::array<uint32_t, 3>& grid) {
    const runtime::CpuNativeKernel* k = runtime::find_cpu_kernel(name);
    ASSERT_NE(k, nullptr) << name << " is not registered";
    runtime::CpuLaunch l;
    l.grid = grid;
    l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&p), sizeof(p));
    k->main(l);
}

// The parameter: whether the vector paths are on.
class SimdSwitch : public testing::TestWithParam<bool> {
protected:
    void SetUp() override { set_simd_enabled(GetParam()); }
    void TearDown() override { set_simd_enabled(true); }
};
inline std::string simd_name(const testing::TestParamInfo<bool>& i) { return i.param ? "Vector" : "Scalar"; }

} // namespace d4r::refine_cpu::test
