// First end-to-end checks: nvcc-generated PTX (tests/fixtures/ptx/kernels.ptx) loads and runs.
#include <gtest/gtest.h>

#include "core/files.h"
#include "ptxsim_test_util.h"
#include "test_support.h"

namespace d4r::ptxsim::test {
namespace {

std::string fixture_text() { return d4r::test::read_file_text(d4r::test::fixture_dir() / "ptx" / "kernels.ptx"); }

TEST(PtxsimSmoke, NvccSaxpyMatchesReference) {
    auto m = load_ok(fixture_text(), "kernels.ptx");
    ASSERT_TRUE(m);
    Device dev;
    const int n = 1000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * float(i) - 7.0f;
        y[i] = 3.0f - 0.25f * float(i);
    }
    DevicePtr out = upload(dev, std::vector<float>(n, -1.0f));
    DevicePtr dx = upload(dev, x), dy = upload(dev, y);
    const float a = 1.5f;
    Params p(kernel_of(*m, "d4r_saxpy"));
    p.set(0, out).set(1, dx).set(2, dy).set(3, a).set(4, uint32_t(n));
    run_ok(dev, *m, "d4r_saxpy", config({(n + 127) / 128}, {128}), p);
    auto got = download<float>(dev, out, n);
    // d4r_scale (the module's .const table) is {1, 2, 3, 4}, indexed by i & 3.
    const float scale[4] = {1, 2, 3, 4};
    for (int i = 0; i < n; ++i) {
        float expect = std::fma(x[i] * a, scale[i & 3], y[i]);
        ASSERT_EQ(got[i], expect) << i;
    }
}

} // namespace
} // namespace d4r::ptxsim::test
