// Tests of the corpus library itself (not of ptxsim): generators, float encodings, parameter
// layout, the PTX entry check against the committed PTX, and run_case() over a host launcher.
#include "corpus.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#ifndef D4R_CORPUS_DIR
#define D4R_CORPUS_DIR "tests/ptxsim/corpus"
#endif

namespace d4r::corpus {
namespace {

uint64_t bits_of(const Gen& g, Elem e, size_t index = 0, uint64_t seed = 1) {
    auto data = generate(g, e, index + 1, seed);
    uint64_t v = 0;
    for (size_t b = 0; b < elem_size(e); ++b) v |= uint64_t(data[index * elem_size(e) + b]) << (8 * b);
    return v;
}

std::vector<uint64_t> values(const Gen& g, Elem e, size_t count, uint64_t seed = 7) {
    auto data = generate(g, e, count, seed);
    std::vector<uint64_t> out(count);
    for (size_t i = 0; i < count; ++i)
        for (size_t b = 0; b < elem_size(e); ++b) out[i] |= uint64_t(data[i * elem_size(e) + b]) << (8 * b);
    return out;
}

float f32(uint64_t bits) {
    uint32_t u = uint32_t(bits);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

TEST(CorpusGen, SameSeedSameSequenceAndBoundedDraws) {
    Rng a(0), b(0), c(1);
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
    for (int i = 0; i < 1000; ++i) EXPECT_LT(a.below(17), 17u);
    for (int i = 0; i < 1000; ++i) {
        double u = a.unit();
        EXPECT_GE(u, 0.0);
        EXPECT_LT(u, 1.0);
    }
}

TEST(CorpusGen, FillEncodesWithRoundToNearestEven) {
    EXPECT_EQ(bits_of(gen::fill(1.0), Elem::f16), 0x3c00u);
    EXPECT_EQ(bits_of(gen::fill(65504.0), Elem::f16), 0x7bffu);
    EXPECT_EQ(bits_of(gen::fill(1.0 + std::ldexp(1, -11)), Elem::f16), 0x3c00u);     // tie -> even
    EXPECT_EQ(bits_of(gen::fill(1.0 + 3 * std::ldexp(1, -11)), Elem::f16), 0x3c02u); // tie -> even (up)
    EXPECT_EQ(bits_of(gen::fill(std::ldexp(1, -24)), Elem::f16), 0x0001u);           // smallest denormal
    EXPECT_EQ(bits_of(gen::fill(-2.0), Elem::bf16), 0xc000u);
    EXPECT_EQ(bits_of(gen::fill(1.0 + std::ldexp(1, -8)), Elem::bf16), 0x3f80u); // tie -> even
    EXPECT_EQ(bits_of(gen::fill(448.0), Elem::e4m3), 0x7eu);                     // largest finite e4m3
    EXPECT_EQ(bits_of(gen::fill(1000.0), Elem::e4m3), 0x7eu);                    // saturates, never NaN
    EXPECT_EQ(bits_of(gen::fill(std::ldexp(1, -9)), Elem::e4m3), 0x01u);         // smallest denormal
    EXPECT_EQ(bits_of(gen::fill(57344.0), Elem::e5m2), 0x7bu);
    EXPECT_EQ(bits_of(gen::fill(-0.5), Elem::f32), 0xbf000000u);
    EXPECT_EQ(bits_of(gen::fill(-7.0), Elem::s32), 0xfffffff9u);
}

TEST(CorpusGen, RangesIntsAndIndexStayInBounds) {
    for (uint64_t v : values(gen::range(-9, 9), Elem::s32, 2000)) {
        int32_t s = int32_t(uint32_t(v));
        EXPECT_GE(s, -9);
        EXPECT_LE(s, 9);
    }
    std::set<double> seen;
    for (uint64_t v : values(gen::ints(-8, 8), Elem::f32, 2000)) {
        float f = f32(v);
        EXPECT_EQ(f, std::floor(f));
        EXPECT_LE(std::fabs(f), 8.0f);
        seen.insert(f);
    }
    EXPECT_EQ(seen.size(), 17u); // every integer of the range occurs
    auto idx = values(gen::index(5, 3), Elem::u16, 10);
    for (size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(idx[i], 5 + 3 * i);
    for (uint64_t v : values(gen::exp(-3, 3), Elem::f32, 2000)) {
        float f = std::fabs(f32(v));
        EXPECT_GE(f, 0.125f);
        EXPECT_LT(f, 16.0f);
    }
}

TEST(CorpusGen, SpecialMixCoversEveryCategory) {
    std::map<std::string, int> seen;
    for (uint64_t v : values(gen::special(), Elem::f32, 4000)) {
        float f = f32(v);
        if (std::isnan(f))
            seen["nan"]++;
        else if (std::isinf(f))
            seen["inf"]++;
        else if (f == 0)
            seen["zero"]++;
        else if (std::fpclassify(f) == FP_SUBNORMAL)
            seen["denormal"]++;
        else
            seen["normal"]++;
    }
    for (const char* k : {"nan", "inf", "zero", "denormal", "normal"}) EXPECT_GT(seen[k], 10) << k;
    std::set<uint64_t> nan_payloads;
    for (uint64_t v : values(gen::special(), Elem::f16, 4000))
        if ((v & 0x7c00) == 0x7c00 && (v & 0x3ff)) nan_payloads.insert(v);
    EXPECT_GT(nan_payloads.size(), 2u); // quiet, signalling and payload-carrying NaNs
}

TEST(CorpusGen, SeedsDependOnCaseNameAndIndexOnly) {
    const Case* c = find_case("int_addsub");
    ASSERT_NE(c, nullptr);
    Case copy = *c;
    EXPECT_EQ(param_seed(*c, 0), param_seed(copy, 0));
    EXPECT_NE(param_seed(*c, 0), param_seed(*c, 1));
    copy.name = "int_addsub2";
    EXPECT_NE(param_seed(*c, 0), param_seed(copy, 0));
    EXPECT_EQ(initial_bytes(*c, 0), initial_bytes(*c, 0));
    auto out = initial_bytes(*c, 5); // out32: poison
    ASSERT_FALSE(out.empty());
    for (uint8_t b : out) ASSERT_EQ(b, kPoison);
}

TEST(CorpusLayout, ParamsSitAtTheirNaturalAlignment) {
    Case c;
    c.name = "layout";
    auto add_scalar = [&](Elem e, uint64_t bits) {
        Param p;
        p.kind = ParamKind::scalar;
        p.scalar.elem = e;
        p.scalar.bits = bits;
        c.params.push_back(p);
    };
    add_scalar(Elem::u16, 0xbeef);
    add_scalar(Elem::u32, 0x11223344);
    add_scalar(Elem::u64, 0x0102030405060708ull);
    Param buffer;
    buffer.kind = ParamKind::buffer;
    c.params.push_back(buffer);
    auto slots = param_layout(c);
    ASSERT_EQ(slots.size(), 4u);
    EXPECT_EQ(slots[0].offset, 0u);
    EXPECT_EQ(slots[1].offset, 4u);
    EXPECT_EQ(slots[2].offset, 8u);
    EXPECT_EQ(slots[3].offset, 16u);
    auto block = build_param_block(c, {0xbeef, 0x11223344, 0x0102030405060708ull, 0xabcdef00ull});
    ASSERT_EQ(block.size(), 24u);
    EXPECT_EQ(block[0], 0xef);
    EXPECT_EQ(block[1], 0xbe);
    EXPECT_EQ(block[4], 0x44);
    EXPECT_EQ(block[8], 0x08);
    EXPECT_EQ(block[15], 0x01);
    EXPECT_EQ(block[16], 0x00);
    EXPECT_EQ(block[17], 0xef);
}

TEST(CorpusPtx, ParsesEntryParameterLists) {
    const std::string ptx =
        ".version 9.0\n.visible .entry k(\n .param .align 8 .b8 k_param_0[16],\n"
        " .param .u64 .ptr .global .align 16 k_param_1, // comment\n .param .f32 k_param_2\n)\n{ ret; }\n"
        ".visible .entry k2()\n{ ret; }\n.visible .entry k3\n{ ret; }\n";
    std::vector<PtxParam> params;
    std::string error;
    ASSERT_TRUE(parse_entry_params(ptx, "k", &params, &error)) << error;
    ASSERT_EQ(params.size(), 3u);
    EXPECT_EQ(params[0].size, 16u);
    EXPECT_EQ(params[0].align, 8u);
    EXPECT_EQ(params[1].size, 8u);
    EXPECT_EQ(params[1].align, 8u); // .align after .ptr is the pointee's
    EXPECT_EQ(params[2].size, 4u);
    ASSERT_TRUE(parse_entry_params(ptx, "k2", &params, &error));
    EXPECT_TRUE(params.empty());
    ASSERT_TRUE(parse_entry_params(ptx, "k3", &params, &error));
    EXPECT_TRUE(params.empty());
    EXPECT_FALSE(parse_entry_params(ptx, "k4", &params, &error));
    EXPECT_NE(error.find("k4"), std::string::npos);
}

TEST(CorpusPtx, EveryCaseMatchesItsCommittedPtx) {
    std::set<std::string> names;
    for (const Case& c : all_cases()) {
        EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
        std::string ptx = read_text(std::string(D4R_CORPUS_DIR) + "/ptx/" + c.module + ".ptx");
        ASSERT_FALSE(ptx.empty()) << c.module;
        EXPECT_EQ(check_case_against_ptx(c, ptx), "") << c.name;
        EXPECT_GT(c.output_bytes(), 0u) << c.name;
    }
    EXPECT_GE(names.size(), 40u);
}

TEST(CorpusPtx, MismatchedParameterListsAreReported) {
    const Case* c = find_case("int_addsub");
    ASSERT_NE(c, nullptr);
    std::string ptx = read_text(std::string(D4R_CORPUS_DIR) + "/ptx/int_addsub.ptx");
    Case fewer = *c;
    fewer.params.pop_back();
    EXPECT_NE(check_case_against_ptx(fewer, ptx).find("parameters"), std::string::npos);
    Case scalar = *c;
    scalar.params[1].kind = ParamKind::scalar;
    scalar.params[1].scalar.elem = Elem::u32;
    EXPECT_NE(check_case_against_ptx(scalar, ptx).find("parameter 1"), std::string::npos);
}

// A host launcher: memory is host vectors; launch() runs a callback standing in for the kernel.
class FakeLauncher : public Launcher {
public:
    std::function<void(FakeLauncher&, const std::vector<uint8_t>&)> kernel;
    std::map<uint64_t, std::vector<uint8_t>> mem;
    std::map<uint64_t, std::vector<uint8_t>> images;
    uint64_t next = 0x1000;
    int releases = 0;
    std::string alloc(size_t bytes, uint64_t* a) override {
        *a = next;
        mem[next].resize(bytes);
        next += bytes + 0x1000;
        return "";
    }
    std::string upload(uint64_t a, const void* d, size_t n) override {
        std::memcpy(mem.at(a).data(), d, n);
        return "";
    }
    std::string download(uint64_t a, void* d, size_t n) override {
        std::memcpy(d, mem.at(a).data(), n);
        return "";
    }
    std::string create_image(const ImageParam&, const std::vector<uint8_t>& t, uint64_t* h) override {
        *h = 0x7e00 + images.size();
        images[*h] = t;
        return "";
    }
    std::string read_image(uint64_t h, std::vector<uint8_t>* t) override {
        *t = images.at(h);
        return "";
    }
    std::string launch(const std::string&, const Case&, const std::vector<uint8_t>& block) override {
        if (kernel) kernel(*this, block);
        return "";
    }
    void release() override { ++releases; }
};

uint64_t param_value(const std::vector<uint8_t>& block, const ParamSlot& slot) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < slot.size; ++b) v |= uint64_t(block[slot.offset + b]) << (8 * b);
    return v;
}

TEST(CorpusRun, CollectsOutputsInParameterOrderAndCountsPoison) {
    const Case* c = find_case("f32_fma");
    ASSERT_NE(c, nullptr);
    std::string ptx = read_text(std::string(D4R_CORPUS_DIR) + "/ptx/f32_fma.ptx");
    FakeLauncher fake;
    auto slots = param_layout(*c);
    fake.kernel = [&](FakeLauncher& f, const std::vector<uint8_t>& block) {
        // "Kernel": out[i] = a[i % 1024] for the first half of the output; the rest stays poison.
        auto& a = f.mem.at(param_value(block, slots[0]));
        auto& out = f.mem.at(param_value(block, slots[3]));
        size_t n = c->params[3].output_bytes();
        for (size_t i = 0; i < n / 2; ++i) out[i] = a[i % 4096];
    };
    CaseResult result;
    ASSERT_EQ(run_case(*c, ptx, fake, &result), "");
    EXPECT_EQ(fake.releases, 1);
    ASSERT_EQ(result.slices.size(), 1u);
    EXPECT_EQ(result.output.size(), c->output_bytes());
    auto a = initial_bytes(*c, 0);
    EXPECT_EQ(std::memcmp(result.output.data(), a.data(), 4096), 0);
    EXPECT_EQ(result.poison_words, c->output_bytes() / 2 / 4);
}

TEST(CorpusRun, WritesPastTheEndAreDetected) {
    const Case* c = find_case("f32_fma");
    ASSERT_NE(c, nullptr);
    std::string ptx = read_text(std::string(D4R_CORPUS_DIR) + "/ptx/f32_fma.ptx");
    FakeLauncher fake;
    auto slots = param_layout(*c);
    fake.kernel = [&](FakeLauncher& f, const std::vector<uint8_t>& block) {
        auto& out = f.mem.at(param_value(block, slots[3]));
        out[c->params[3].output_bytes() + 3] = 0;
    };
    CaseResult result;
    std::string err = run_case(*c, ptx, fake, &result);
    EXPECT_NE(err.find("past the end"), std::string::npos) << err;
    EXPECT_EQ(fake.releases, 1); // released on the error path too
}

TEST(CorpusRun, SurfaceOutputsAreReadBack) {
    const Case* c = find_case("surf_r32f");
    ASSERT_NE(c, nullptr);
    std::string ptx = read_text(std::string(D4R_CORPUS_DIR) + "/ptx/surf2d.ptx");
    FakeLauncher fake;
    CaseResult result;
    ASSERT_EQ(run_case(*c, ptx, fake, &result), "");
    ASSERT_EQ(result.slices.size(), 2u); // dst surface, then the out buffer
    EXPECT_EQ(result.slices[0].bytes, 32u * 16u * 4u);
    EXPECT_EQ(fake.images.size(), 2u);
}

} // namespace
} // namespace d4r::corpus
