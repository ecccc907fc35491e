// The model file (docs/network.md): a written model reads back identical; every malformed field is refused
// with a message naming it.
#include <gtest/gtest.h>

#include "core/fnv1a.h"
#include "kernels/common/f16.h"
#include "network/model_file.h"
#include "network/test_model.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::network;

namespace {

std::string parse_error(const std::vector<uint8_t>& bytes) {
    auto m = parse_model(bytes, "test.d4rnet");
    return m ? std::string("(accepted)") : m.error().text();
}

// Rewrites the checksum after an edit, so the edit itself is what the parser sees.
void reseal(std::vector<uint8_t>& bytes) {
    uint64_t h = fnv1a64(std::span<const uint8_t>(bytes.data(), bytes.size() - 8));
    std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

} // namespace

TEST(ModelFile, RoundTripKeepsEveryTensor) {
    Model m = nettest::random_model(1);
    auto back = parse_model(serialize_model(m), "x");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->arch, "refine-v1");
    ASSERT_EQ(back->tensors.size(), refine_v1_tensors().size());
    for (const Tensor& t : m.tensors) {
        const Tensor* b = back->find(t.name);
        ASSERT_NE(b, nullptr) << t.name;
        EXPECT_EQ(b->dims, t.dims) << t.name;
        EXPECT_EQ(b->data, t.data) << t.name;
    }
}

TEST(ModelFile, TheArchitectureTableHasTheDocumentedShapes) {
    const auto& specs = refine_v1_tensors();
    EXPECT_EQ(specs.size(), 4 * 2 + 3 * 13);
    auto dims = [&](const std::string& name) {
        for (const auto& s : specs)
            if (s.name == name) return s.dims;
        return std::vector<uint32_t>{};
    };
    EXPECT_EQ(dims("embed.w"), (std::vector<uint32_t>{32, 48}));
    EXPECT_EQ(dims("enc2.qkv.w"), (std::vector<uint32_t>{192, 64}));
    EXPECT_EQ(dims("enc2.relbias"), (std::vector<uint32_t>{2, 225}));
    EXPECT_EQ(dims("dec1.fc2.w"), (std::vector<uint32_t>{32, 64}));
    EXPECT_EQ(dims("head.b"), (std::vector<uint32_t>{48}));
}

TEST(ModelFile, DamageIsRefusedWithTheReason) {
    const std::vector<uint8_t> good = serialize_model(nettest::random_model(2));
    {
        auto b = good;
        b[100] ^= 1;
        EXPECT_NE(parse_error(b).find("checksum mismatch"), std::string::npos) << parse_error(b);
    }
    {
        auto b = good;
        b[0] = 'X';
        EXPECT_NE(parse_error(b).find("not a d4r model file"), std::string::npos);
    }
    {
        auto b = good;
        b[8] = 2;
        reseal(b);
        EXPECT_NE(parse_error(b).find("format version 2"), std::string::npos) << parse_error(b);
    }
    {
        auto b = good;
        std::memcpy(b.data() + 16, "refine-v9", 9);
        reseal(b);
        EXPECT_NE(parse_error(b).find("architecture 'refine-v9' is unknown"), std::string::npos) << parse_error(b);
    }
    {
        auto b = std::vector<uint8_t>(good.begin(), good.begin() + 30);
        EXPECT_NE(parse_error(b).find("too short"), std::string::npos);
    }
    {
        auto b = good;
        b.resize(b.size() - 200);
        reseal(b);
        EXPECT_NE(parse_error(b).find("model file test.d4rnet"), std::string::npos) << parse_error(b);
    }
}

TEST(ModelFile, WrongOrMissingTensorsAreRefusedByName) {
    {
        Model m = nettest::random_model(3);
        m.tensors.erase(m.tensors.begin() + 4);
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("tensor 'enc1.qkv.w' is missing"), std::string::npos) << e;
    }
    {
        Model m = nettest::random_model(3);
        m.tensors[0].dims = {48, 32};
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("'embed.w' has shape [48, 32], expected [32, 48]"), std::string::npos) << e;
    }
    {
        Model m = nettest::random_model(3);
        Tensor extra = m.tensors[1];
        extra.name = "extra.b";
        m.tensors.push_back(extra);
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("'extra.b' is not part of refine-v1"), std::string::npos) << e;
    }
    {
        auto b = serialize_model(nettest::random_model(3));
        b[48 + 48] = 7; // the first record's dtype
        reseal(b);
        std::string e = parse_error(b);
        EXPECT_NE(e.find("tensor record 0"), std::string::npos) << e;
        EXPECT_NE(e.find("dtype 7"), std::string::npos) << e;
    }
}

TEST(ModelFile, AnFp8ModelRoundTripsWithItsE4m3TensorsAndScales) {
    Model m = nettest::random_model(1, true);
    auto back = parse_model(serialize_model(m), "x");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->arch, "refine-v1-fp8");
    ASSERT_EQ(back->tensors.size(), refine_v1_fp8_tensors().size());
    EXPECT_EQ(refine_v1_fp8_tensors().size(), refine_v1_tensors().size() + 4);
    for (const Tensor& t : m.tensors) {
        const Tensor* b = back->find(t.name);
        ASSERT_NE(b, nullptr) << t.name;
        EXPECT_EQ(b->dtype, t.dtype) << t.name;
        EXPECT_EQ(b->dims, t.dims) << t.name;
        EXPECT_EQ(b->data, t.data) << t.name;
    }
    for (const char* layer : kFp8Layers) {
        const Tensor* w = back->find(std::string(layer) + ".w");
        ASSERT_NE(w, nullptr) << layer;
        EXPECT_EQ(w->dtype, DType::E4M3) << layer;
        EXPECT_EQ(w->data.size(), w->elements()) << layer; // one byte an element
        const Tensor* s = back->find(std::string(layer) + ".scale");
        ASSERT_NE(s, nullptr) << layer;
        EXPECT_EQ(s->dims, std::vector<uint32_t>{1});
        EXPECT_GT(kernels::half_to_float(s->f16()[0]), 0.0f) << layer;
    }
    // The other tensors are refine-v1's (the same draws of the same seed).
    const Model f16 = nettest::random_model(1);
    EXPECT_EQ(back->find("enc1.qkv.w")->data, f16.find("enc1.qkv.w")->data);
    EXPECT_EQ(back->find("enc2.qkv.b")->data, f16.find("enc2.qkv.b")->data);
}

TEST(ModelFile, EachArchitecturesDtypesAreCheckedByName) {
    {
        Model m = nettest::random_model(3); // f16 weights under the fp8 name
        m.arch = kArchRefineV1Fp8;
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("tensor 'enc2.qkv.w' is f16, expected e4m3"), std::string::npos) << e;
    }
    {
        Model m = nettest::random_model(3, true); // e4m3 weights under the f16 name
        m.arch = kArchRefineV1;
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("tensor 'enc2.qkv.w' is e4m3, expected f16"), std::string::npos) << e;
    }
    {
        Model m = nettest::random_model(3, true);
        std::erase_if(m.tensors, [](const Tensor& t) { return t.name == "enc2.fc1.scale"; });
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("tensor 'enc2.fc1.scale' is missing"), std::string::npos) << e;
    }
    {
        Model m = nettest::random_model(3, true);
        for (Tensor& t : m.tensors)
            if (t.name == "enc2.proj.scale") t.dims = {2}, t.data.resize(4);
        std::string e = parse_error(serialize_model(m));
        EXPECT_NE(e.find("'enc2.proj.scale' has shape [2], expected [1]"), std::string::npos) << e;
    }
}

TEST(ModelFile, AMissingFileIsAnErrorNamingIt) {
    auto m = read_model("/nonexistent/refine-v1.d4rnet");
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().text().find("/nonexistent/refine-v1.d4rnet"), std::string::npos) << m.error().text();
}

TEST(ModelFile, RefineV2HasRefineV1sTensorsAtItsWidth) {
    const auto& specs = refine_v2_tensors();
    ASSERT_EQ(specs.size(), refine_v1_tensors().size());
    for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(specs[i].name, refine_v1_tensors()[i].name);
    auto dims = [&](const std::string& name) {
        for (const auto& s : specs)
            if (s.name == name) return s.dims;
        return std::vector<uint32_t>{};
    };
    EXPECT_EQ(dims("embed.w"), (std::vector<uint32_t>{64, 16 * 23}));
    EXPECT_EQ(dims("merge.w"), (std::vector<uint32_t>{128, 256}));
    EXPECT_EQ(dims("enc2.relbias"), (std::vector<uint32_t>{4, 225}));
    EXPECT_EQ(dims("expand.w"), (std::vector<uint32_t>{256, 128}));
    EXPECT_EQ(dims("head.w"), (std::vector<uint32_t>{16 * 8, 64}));
    Model m = nettest::random_model_of(4, kArchRefineV2);
    auto back = parse_model(serialize_model(m), "x");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->arch, "refine-v2");
    // A refine-v1 file's tensors under the refine-v2 name are refused by shape.
    Model wrong = nettest::random_model(4);
    wrong.arch = kArchRefineV2;
    auto refused = parse_model(serialize_model(wrong), "wrong.d4rnet");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().text().find("embed.w"), std::string::npos) << refused.error().text();
}

// refine-v2-fp8: refine-v2's tensors, enc2's qkv, proj and fc1 weights in e4m3 each followed by its scale.
TEST(ModelFile, RefineV2Fp8IsRefineV2WithThreeE4m3Weights) {
    const auto& f16 = refine_v2_tensors();
    const auto& fp8 = refine_v2_fp8_tensors();
    ASSERT_EQ(fp8.size(), f16.size() + 3);
    size_t j = 0;
    std::vector<std::string> e4m3;
    for (const TensorSpec& s : fp8) {
        if (s.name.ends_with(".scale")) {
            EXPECT_EQ(s.dims, std::vector<uint32_t>{1});
            continue;
        }
        ASSERT_LT(j, f16.size());
        EXPECT_EQ(s.name, f16[j].name);
        EXPECT_EQ(s.dims, f16[j].dims) << s.name;
        if (s.dtype == DType::E4M3) e4m3.push_back(s.name);
        ++j;
    }
    EXPECT_EQ(e4m3, (std::vector<std::string>{"enc2.qkv.w", "enc2.proj.w", "enc2.fc1.w"}));
    EXPECT_TRUE(reads_core_frame(kArchRefineV2Fp8));
    EXPECT_FALSE(reads_core_frame(kArchRefineV1Fp8));
    EXPECT_EQ(architecture_dims(kArchRefineV2Fp8).c2, 128u);
    Model m = nettest::random_model_of(9, kArchRefineV2Fp8);
    auto back = parse_model(serialize_model(m), "x");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->arch, "refine-v2-fp8");
}

TEST(ModelFile, TheShippedModelsParse) {
    for (const char* name : {"refine-v1.d4rnet", "refine-v1-fp8.d4rnet", "refine-v2.d4rnet", "refine-v2-fp8.d4rnet"}) {
        auto m = read_model(test::source_dir() / "models" / name);
        ASSERT_TRUE(m) << m.error().text();
        EXPECT_EQ(m->arch, std::string(name).substr(0, std::string(name).size() - 7)) << name;
    }
}
