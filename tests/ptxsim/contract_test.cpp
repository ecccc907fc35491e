// Multiply-add contraction (src/ptx/contract.h, the front end): ptxsim fuses exactly the mul/add pairs NVIDIA's PTX
// assembler fuses. tests/ptxsim/contract/probes.ptx holds one kernel per pattern; expected.txt says how
// many fused multiply-adds ptxas 13.0 made of each for sm_90 (read from its SASS by read-ptxas.sh).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "ptx/contract.h"
#include "ptx/parser.h"
#include "ptxsim/front_end.h"
#include "ptxsim_test_util.h"
#include "test_support.h"

namespace d4r::ptxsim {
namespace {

using namespace test;

std::filesystem::path contract_dir() { return std::filesystem::path(D4R_TEST_SOURCE_DIR) / "tests/ptxsim/contract"; }

struct Expected {
    bool any = false; // a loop ptxas unrolls: at least one fusion
    int fused = 0, negate_product = 0, negate_addend = 0;
};

std::map<std::string, Expected> read_expected() {
    std::map<std::string, Expected> out;
    std::ifstream in(contract_dir() / "expected.txt");
    EXPECT_TRUE(in) << "cannot read " << (contract_dir() / "expected.txt");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream s(line);
        std::string name, first;
        s >> name >> first;
        Expected e;
        if (first == "any")
            e.any = true;
        else {
            e.fused = std::stoi(first);
            s >> e.negate_product >> e.negate_addend;
        }
        out[name] = e;
    }
    return out;
}

TEST(Contraction, FusesExactlyWhatPtxasFuses) {
    const std::string text = d4r::test::read_file_text(contract_dir() / "probes.ptx");
    auto module = ptx::parse_module(text, "probes.ptx");
    ASSERT_TRUE(module.ok()) << module.error().text();
    const auto expected = read_expected();
    size_t checked = 0;
    for (const ast::Function& f : module->functions) {
        if (!f.is_entry) continue;
        const std::string name(f.name);
        auto e = expected.find(name);
        ASSERT_NE(e, expected.end()) << name << " is missing from expected.txt (rerun read-ptxas.sh)";
        const Contractions c = find_contractions(f);
        int neg_p = 0, neg_c = 0;
        for (const auto& [add, x] : c.fused) {
            neg_p += x.negate_product;
            neg_c += x.negate_addend;
        }
        // ptxas fuses with the multiplicands' values at the mul: the probe that overwrites one in between
        // is fused from copies the decoder makes at the mul.
        const int found = static_cast<int>(c.fused.size());
        const bool saves =
            name == "redefined" || name == "redefined_self" || name == "loop_carried_source" || name == "h_redefined";
        EXPECT_EQ(c.saved_muls.size(), saves ? 1u : 0u) << name;
        if (name == "loop_product_carried") {
            // The product feeds the next iteration's mul. ptxas unrolls and peels the loop and fuses only
            // in the copy where the product is last used (one trip: fused; two: separate); ptxsim, which
            // runs the loop as written, keeps the pair separate (docs/numerics.md).
            EXPECT_EQ(found, 0) << name;
        } else if (e->second.any) {
            EXPECT_GE(found, 1) << name;
        } else {
            EXPECT_EQ(found, e->second.fused) << name;
            EXPECT_EQ(neg_p, e->second.negate_product) << name;
            EXPECT_EQ(neg_c, e->second.negate_addend) << name;
        }
        ++checked;
    }
    EXPECT_EQ(checked, expected.size());
    EXPECT_GE(checked, 60u);
}

// The fused kernels compute what one rounding gives. Inputs per type: a = b with a*b inexact and c the
// negation of its rounded value, so the fused result is the rounding error and the separate one zero.
class ContractionRun : public ::testing::Test {
protected:
    void SetUp() override {
        m_module = load_ok(d4r::test::read_file_text(contract_dir() / "probes.ptx"), "probes.ptx");
        ASSERT_TRUE(m_module);
    }
    template <class T>
    std::vector<T> run(const std::string& kernel, const std::vector<T>& inputs) {
        DevicePtr v = upload(m_dev, inputs);
        DevicePtr o = upload(m_dev, std::vector<T>(2, T{}));
        Params p(kernel_of(*m_module, kernel));
        p.set(0, v).set(1, o).set(2, int32_t(2));
        run_ok(m_dev, *m_module, kernel, config({1, 1, 1}, {1, 1, 1}), p);
        return download<T>(m_dev, o, 2);
    }
    std::vector<float> f32_inputs() const {
        const float a = 1.0f + 0x1p-12f, c = -(1.0f + 0x1p-11f);
        return {a, a, c, -c, -(1.0f + 0x1p-11f), 1.0f + 0x1p-13f, c - 0x1p-22f};
    }
    Device m_dev;
    std::shared_ptr<Module> m_module;
};

TEST_F(ContractionRun, F32) {
    const auto in = f32_inputs();
    const float a = in[0], b = in[1], c = in[2], x = in[4], y = in[5];
    EXPECT_EQ(run("add_first", in)[0], std::fma(a, b, c));
    EXPECT_EQ(run("add_first", in)[0], 0x1p-24f);
    EXPECT_EQ(run("sub_first", in)[0], 0x1p-24f);
    EXPECT_EQ(run("sub_second", in)[0], -0x1p-24f);
    EXPECT_EQ(run("neg_add", in)[0], -0x1p-24f);
    EXPECT_EQ(run("neg_sub_both", in)[0], -0x1p-24f); // -(a*b) - c, both negated in one fma
    const auto kept = run("kept_stored", in);
    EXPECT_EQ(kept[0], 0.0f); // not fused: the product is also stored
    EXPECT_EQ(kept[1], 1.0f + 0x1p-11f);
    volatile float xy = x * y;
    EXPECT_EQ(run("two_products", in)[0], std::fma(a, b, float(xy)));
    volatile float ab = a * b;
    EXPECT_EQ(run("two_products_swapped", in)[0], std::fma(x, y, float(ab)));
    EXPECT_EQ(run("two_products_sub", in)[0], std::fma(a, b, -float(xy)));
    EXPECT_EQ(run("mul_rn", in)[0], 0.0f);
    EXPECT_EQ(run("loop", in)[0], 0x1p-24f);
    const auto redefined = run("redefined", in);
    EXPECT_EQ(redefined[0], 0x1p-24f); // fused with the multiplicand's value before it was overwritten
    EXPECT_EQ(redefined[1], 2.0f);
    EXPECT_EQ(run("redefined_self", in)[0], 0x1p-24f);
    EXPECT_EQ(run("loop_carried_source", in)[0], 0x1p-24f);
}

TEST_F(ContractionRun, F64) {
    const double a = 1.0 + 0x1p-30, c = -(1.0 + 0x1p-29);
    const std::vector<double> in{a, a, c, -c, -(1.0 + 0x1p-29), 1.0 + 0x1p-31, c};
    EXPECT_EQ(run("d_add", in)[0], 0x1p-60);
    EXPECT_EQ(run("d_sub_second", in)[0], -0x1p-60);
    EXPECT_EQ(run("d_kept", in)[0], 0.0);
}

TEST_F(ContractionRun, HalfAndBfloat) {
    // f16: a = 1 + 2^-6 (0x3C10), c = -(1 + 2^-5) (0xBC20): fused 2^-12 (0x0C00).
    const std::vector<uint16_t> h{0x3C10, 0x3C10, 0xBC20, 0x3C20, 0, 0, 0};
    EXPECT_EQ(run("h_add", h)[0], 0x0C00);
    EXPECT_EQ(run("h_sub_second", h)[0], 0x8C00);
    EXPECT_EQ(run("h_neg", h)[0], 0x8C00);
    EXPECT_EQ(run("h_kept", h)[0], 0x0000);
    const auto hr = run("h_redefined", h);
    EXPECT_EQ(hr[0], 0x0C00);
    EXPECT_EQ(hr[1], 0xBC20);
    // Packed: both halves the same.
    const std::vector<uint32_t> h2{0x3C103C10, 0x3C103C10, 0xBC20BC20, 0x3C203C20, 0, 0, 0};
    EXPECT_EQ(run("h2_add", h2)[0], 0x0C000C00u);
    EXPECT_EQ(run("h2_sub", h2)[0], 0x0C000C00u);
    // bf16: a = 1 + 2^-4 (0x3F88), c = -(1 + 2^-3) (0xBF90): fused 2^-8 (0x3B80).
    const std::vector<uint16_t> b{0x3F88, 0x3F88, 0xBF90, 0x3F90, 0, 0, 0};
    EXPECT_EQ(run("b_add", b)[0], 0x3B80);
    EXPECT_EQ(run("b_sub", b)[0], 0x3B80);
    EXPECT_EQ(run("b_kept", b)[0], 0x0000);
}

} // namespace
} // namespace d4r::ptxsim
