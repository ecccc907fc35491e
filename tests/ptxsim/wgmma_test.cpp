// Hopper's warpgroup matrix instructions (wgmma, ptx/instr_wgmma.h): the register fragments of A and D and the
// unswizzled K-major layout of the shared-memory matrices, checked with exact small-integer products of every shape
// form d4r runs (A from a descriptor or from registers, f32 and f16 accumulators, bf16, scale-d as a predicate or a
// constant, imm-scale -1), the
// numerics against mma.sync's (each 8-column slice of D is one m16n8k16), and the refusals: forms the front end does
// not take, and swizzled descriptors, refused when met.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "numerics/fp.h"
#include "ptx/instr_wgmma.h"
#include "ptxsim_test_util.h"
#include "wgmma_kernel.h"

namespace d4r::ptxsim::test {
namespace {

uint16_t f16_of_int(int v) { // small integers, exact in f16 and bf16 (bf16: the top half of the f32)
    static const uint16_t mag[] = {0x0000, 0x3c00, 0x4000, 0x4200};
    return static_cast<uint16_t>(mag[std::abs(v)] | (v < 0 ? 0x8000 : 0));
}
uint16_t bf16_of_int(int v) {
    static const uint16_t mag[] = {0x0000, 0x3f80, 0x4000, 0x4040};
    return static_cast<uint16_t>(mag[std::abs(v)] | (v < 0 ? 0x8000 : 0));
}

using Form = WgmmaForm;

// Byte image of a K-major matrix of ROWS x 16 values (VALUE(r, k) its bits) in the tests' layout.
template <typename Value>
std::vector<uint8_t> image(unsigned rows, Value value) {
    std::vector<uint8_t> out(rows * 32);
    const ptx::MatrixDescriptor d{0, kLeading, kStride, 0, 0};
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned k = 0; k < 16; ++k) {
            const uint16_t v = value(r, k);
            std::memcpy(out.data() + ptx::core_matrix_offset(d, r, k), &v, 2);
        }
    return out;
}

// Runs FORM on integer matrices and checks every element of D against the exact product.
void check_exact(const Form& f, unsigned seed) {
    SCOPED_TRACE(fmt::format("n {} acc16 {} bf16 {} a_registers {} scale_d {} negate_a {}", f.n, f.acc16, f.bf16,
                             f.a_registers, f.scale_d, f.negate_a));
    std::mt19937 rng(seed);
    std::vector<int> A(64 * 16), B(f.n * 16), C(64 * f.n);
    for (int& v : A) v = int(rng() % 7) - 3;
    for (int& v : B) v = int(rng() % 7) - 3;
    for (int& v : C) v = int(rng() % 201) - 100;
    auto bits = [&](int v) { return f.bf16 ? bf16_of_int(v) : f16_of_int(v); };
    const auto a_image = image(64, [&](unsigned r, unsigned k) { return bits(A[r * 16 + k]); });
    const auto b_image = image(f.n, [&](unsigned r, unsigned k) { return bits(B[r * 16 + k]); });
    // Per thread (warp w, lane (g, t)): A's registers (mma.sync's fragment of rows 16w..), D's registers.
    const unsigned nd = f.acc16 ? f.n / 4 : f.n / 2;
    std::vector<uint32_t> a_regs(128 * 4), d(128 * nd);
    auto d_at = [&](unsigned thread, unsigned i, unsigned& row, unsigned& col) {
        const unsigned w = thread / 32, g = (thread % 32) / 4, t = thread % 4;
        if (f.acc16) { // register i: slice i / 2, row g (+8 for odd i), two columns
            row = 16 * w + g + 8 * (i % 2);
            col = 8 * (i / 2) + 2 * t;
        } else { // register i: slice i / 4, row g (+8 for i % 4 >= 2), column 2t + (i % 2)
            row = 16 * w + g + 8 * ((i % 4) / 2);
            col = 8 * (i / 4) + 2 * t + (i % 2);
        }
    };
    for (unsigned th = 0; th < 128; ++th) {
        const unsigned w = th / 32, g = (th % 32) / 4, t = th % 4;
        for (unsigned r = 0; r < 4; ++r)
            for (unsigned h = 0; h < 2; ++h) {
                const unsigned row = 16 * w + g + 8 * (r & 1), k = 2 * t + 8 * (r >> 1) + h;
                a_regs[th * 4 + r] |= uint32_t(bits(A[row * 16 + k])) << (16 * h);
            }
        for (unsigned i = 0; i < nd; ++i) {
            unsigned row, col;
            d_at(th, i, row, col);
            if (f.acc16) {
                d[th * nd + i] = f16_of_int(C[row * f.n + col] % 4) | uint32_t(f16_of_int(C[row * f.n + col + 1] % 4))
                                                                          << 16;
            } else {
                const float c = float(C[row * f.n + col]);
                std::memcpy(&d[th * nd + i], &c, 4);
            }
        }
    }
    Device dev;
    auto m = load_ok(wgmma_kernel(f));
    ASSERT_TRUE(m);
    auto da = upload(dev, a_image), db = upload(dev, b_image), dd = upload(dev, d), dr = upload(dev, a_regs);
    auto ds = upload(dev, std::vector<uint32_t>{f.scale_d ? 1u : 0u});
    Params p(kernel_of(*m, "wg"));
    p.set(0, da).set(1, db).set(2, dd).set(3, dr).set(4, ds);
    run_ok(dev, *m, "wg", config({1}, {128}), p);
    const auto out = download<uint32_t>(dev, dd, 128 * nd);
    auto expect = [&](unsigned row, unsigned col, int c) {
        int sum = f.scale_d ? c : 0;
        for (unsigned k = 0; k < 16; ++k) sum += (f.negate_a ? -1 : 1) * A[row * 16 + k] * B[col * 16 + k];
        return sum;
    };
    for (unsigned th = 0; th < 128; ++th)
        for (unsigned i = 0; i < nd; ++i) {
            unsigned row, col;
            d_at(th, i, row, col);
            if (f.acc16) {
                for (unsigned h = 0; h < 2; ++h) {
                    const float got = numerics::f16_to_float(uint16_t(out[th * nd + i] >> (16 * h)));
                    EXPECT_EQ(got, float(expect(row, col + h, C[row * f.n + col + h] % 4)))
                        << "thread " << th << " register " << i << " half " << h;
                }
            } else {
                float got;
                std::memcpy(&got, &out[th * nd + i], 4);
                EXPECT_EQ(got, float(expect(row, col, C[row * f.n + col]))) << "thread " << th << " register " << i;
            }
        }
}

TEST(PtxsimWgmma, DescriptorOperandsFollowTheIsaLayout) {
    for (unsigned n : {8u, 16u, 64u, 256u}) check_exact(Form{.n = n}, n);
}

TEST(PtxsimWgmma, RegisterAFollowsMmaSyncsFragment) {
    check_exact(Form{.n = 32, .a_registers = true}, 3);
    check_exact(Form{.n = 8, .a_registers = true, .negate_a = true}, 4);
}

TEST(PtxsimWgmma, AccumulatorsAndInputTypes) {
    check_exact(Form{.n = 16, .acc16 = true}, 5);
    check_exact(Form{.n = 24, .bf16 = true}, 6);
    check_exact(Form{.n = 16, .scale_d = false}, 7);
    check_exact(Form{.n = 16, .negate_a = true}, 8);
    check_exact(Form{.n = 16, .scale_d_constant = true}, 9);
    check_exact(Form{.n = 16, .scale_d = false, .scale_d_constant = true}, 10);
}

TEST(PtxsimWgmma, SwizzledDescriptorsAreRefusedWhenMet) {
    Form f{.n = 8, .swizzle_bits = "0x4000000000000000"};
    Device dev;
    auto m = load_ok(wgmma_kernel(f));
    ASSERT_TRUE(m);
    auto buf = upload(dev, std::vector<uint32_t>(2048));
    Params p(kernel_of(*m, "wg"));
    p.set(0, buf).set(1, buf).set(2, buf).set(3, buf).set(4, buf);
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "wg"), config({1}, {128}), p.bytes(), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::Unsupported);
    EXPECT_NE(fault.message.find("swizzle mode 1"), std::string::npos) << fault.message;
}

TEST(PtxsimWgmma, RejectsFormsItDoesNotImplement) {
    auto body = [](const std::string& instr) {
        return ptx(".visible .entry k()\n{\n  .reg .b32 %r<140>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n  " +
                   instr + ";\n  ret;\n}\n");
    };
    const std::string d4 = "{%r1,%r2,%r3,%r4}";
    EXPECT_NE(
        load_error(body("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd1, %rd2, %p1, 1, 1, 1, 0"))
            .find("transposed"),
        std::string::npos);
    EXPECT_NE(
        load_error(body("wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 " + d4 + ", %rd1, %rd2, %p1, 1, 1, 0, 0"))
            .find("N must be"),
        std::string::npos);
    EXPECT_NE(
        load_error(body("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1,%r2,%r3}, %rd1, %rd2, %p1, 1, 1, 0, 0"))
            .find("list of 4"),
        std::string::npos);
    EXPECT_NE(
        load_error(body("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd1, %rd2, %p1, 2, 1, 0, 0"))
            .find("imm-scale-a"),
        std::string::npos);
    EXPECT_NE(load_error(body("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 " + d4 + ", %rd1, %rd2, %p1, 1, 1"))
                  .find("shape"),
              std::string::npos);
    EXPECT_NE(
        load_error(body("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %r1, %rd2, %p1, 1, 1, 0, 0"))
            .find("64 bits"),
        std::string::npos);
}

} // namespace
} // namespace d4r::ptxsim::test
