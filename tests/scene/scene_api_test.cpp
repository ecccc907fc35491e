// The public contract of d4r_scene: names, errors, Halton jitter, buffer shapes and determinism.
#include <cmath>
#include <cstring>
#include <set>

#include <gtest/gtest.h>

#include "scene/scene.h"

namespace d4r::scene {
namespace {

TEST(Halton, KnownValues) {
    EXPECT_FLOAT_EQ(halton(1, 2), 0.5f);
    EXPECT_FLOAT_EQ(halton(2, 2), 0.25f);
    EXPECT_FLOAT_EQ(halton(3, 2), 0.75f);
    EXPECT_FLOAT_EQ(halton(4, 2), 0.125f);
    EXPECT_FLOAT_EQ(halton(1, 3), 1.0f / 3.0f);
    EXPECT_FLOAT_EQ(halton(2, 3), 2.0f / 3.0f);
    EXPECT_FLOAT_EQ(halton(3, 3), 1.0f / 9.0f);
    EXPECT_FLOAT_EQ(halton(4, 3), 4.0f / 9.0f);
    EXPECT_FLOAT_EQ(halton(5, 3), 7.0f / 9.0f);
    EXPECT_FLOAT_EQ(halton(0, 2), 0.0f);
}

TEST(Halton, JitterSequence) {
    Jitter first = jitter_for_frame(0);
    EXPECT_FLOAT_EQ(first.x, 0.0f);               // halton(1, 2) - 0.5
    EXPECT_FLOAT_EQ(first.y, 1.0f / 3.0f - 0.5f); // halton(1, 3) - 0.5
    Jitter second = jitter_for_frame(1);
    EXPECT_FLOAT_EQ(second.x, -0.25f);
    EXPECT_FLOAT_EQ(second.y, 2.0f / 3.0f - 0.5f);
    std::set<std::pair<float, float>> distinct;
    for (uint32_t i = 0; i < kJitterPhases; ++i) {
        Jitter j = jitter_for_frame(i);
        EXPECT_GE(j.x, -0.5f);
        EXPECT_LT(j.x, 0.5f);
        EXPECT_GE(j.y, -0.5f);
        EXPECT_LT(j.y, 0.5f);
        distinct.insert({j.x, j.y});
        Jitter again = jitter_for_frame(i + kJitterPhases);
        EXPECT_EQ(again.x, j.x);
        EXPECT_EQ(again.y, j.y);
    }
    EXPECT_EQ(distinct.size(), size_t(kJitterPhases));
}

TEST(MakeScene, EveryListedNameWorks) {
    auto names = scene_names();
    ASSERT_GE(names.size(), 3u);
    for (const auto& name : names) {
        auto scene = make_scene(name);
        ASSERT_TRUE(scene.ok()) << name;
        EXPECT_EQ((*scene)->name(), name);
        EXPECT_FALSE((*scene)->description().empty());
    }
}

TEST(MakeScene, UnknownNameListsTheScenes) {
    auto scene = make_scene("ctiy");
    ASSERT_FALSE(scene.ok());
    EXPECT_EQ(scene.error().code(), ErrorCode::Invalid);
    std::string text = scene.error().text();
    EXPECT_NE(text.find("'ctiy'"), std::string::npos) << text;
    EXPECT_NE(text.find("did you mean 'city'"), std::string::npos) << text;
    for (const auto& name : scene_names()) EXPECT_NE(text.find(name), std::string::npos) << text;
    EXPECT_FALSE(make_scene("").ok());
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class EveryScene : public ::testing::TestWithParam<std::string> {
protected:
    std::unique_ptr<Scene> scene() {
        auto made = make_scene(GetParam());
        EXPECT_TRUE(made.ok());
        return std::move(made).value();
    }
};

TEST_P(EveryScene, BuffersHaveTheDocumentedShape) {
    auto s = scene();
    Frame frame = s->render(2, {64, 36}, {128, 72});
    const FrameInputs& in = frame.inputs;
    ASSERT_EQ(in.width, 64u);
    ASSERT_EQ(in.height, 36u);
    ASSERT_EQ(in.color.size(), 64u * 36 * 4);
    ASSERT_EQ(in.depth.size(), 64u * 36);
    ASSERT_EQ(in.motion.size(), 64u * 36 * 2);
    EXPECT_EQ(in.jitter_x, jitter_for_frame(2).x);
    EXPECT_EQ(in.jitter_y, jitter_for_frame(2).y);
    EXPECT_GT(in.exposure, 0.0f);
    EXPECT_TRUE(std::isfinite(in.exposure));
    ASSERT_EQ(frame.truth.width, 128u);
    ASSERT_EQ(frame.truth.height, 72u);
    ASSERT_EQ(frame.truth.channels, 4u);
    ASSERT_TRUE(frame.truth.consistent());
    bool sky = false, surface = false;
    for (size_t i = 0; i < in.depth.size(); ++i) {
        EXPECT_GE(in.depth[i], 0.0f);
        EXPECT_LE(in.depth[i], 1.0f);
        (in.depth[i] == 1.0f ? sky : surface) = true;
        EXPECT_EQ(in.color[i * 4 + 3], 1.0f);
        for (int c = 0; c < 3; ++c) {
            EXPECT_TRUE(std::isfinite(in.color[i * 4 + c]));
            EXPECT_GE(in.color[i * 4 + c], 0.0f);
        }
        EXPECT_TRUE(std::isfinite(in.motion[i * 2]) && std::isfinite(in.motion[i * 2 + 1]));
    }
    EXPECT_TRUE(sky);
    EXPECT_TRUE(surface);
    for (float v : frame.truth.data) EXPECT_TRUE(std::isfinite(v) && v >= 0.0f);
    image::Image color = in.color_image();
    EXPECT_EQ(color.width, 64u);
    EXPECT_EQ(color.channels, 4u);
    EXPECT_EQ(color.at(5, 7, 2), in.color[(7 * 64 + 5) * 4 + 2]);
}

TEST_P(EveryScene, HasHdrValues) {
    auto s = scene();
    float peak = 0;
    for (uint32_t i = 0; i < 16 && peak <= 1.0f; i += 5) {
        Frame frame = s->render(i, {160, 90}, {0, 0});
        for (size_t p = 0; p < frame.inputs.depth.size(); ++p)
            for (int c = 0; c < 3; ++c) peak = std::max(peak, frame.inputs.color[p * 4 + c]);
    }
    EXPECT_GT(peak, 1.0f) << "no HDR highlight in the first frames";
}

TEST_P(EveryScene, DeterministicAcrossRunsAndThreadCounts) {
    auto s = scene();
    Frame one = s->render_frame(3, {80, 45}, {160, 90}, RenderOptions{1});
    Frame again = s->render_frame(3, {80, 45}, {160, 90}, RenderOptions{1});
    Frame many = s->render_frame(3, {80, 45}, {160, 90}, RenderOptions{5});
    for (const Frame* other : {&again, &many}) {
        EXPECT_TRUE(same_bytes(one.inputs.color, other->inputs.color));
        EXPECT_TRUE(same_bytes(one.inputs.depth, other->inputs.depth));
        EXPECT_TRUE(same_bytes(one.inputs.motion, other->inputs.motion));
        EXPECT_TRUE(same_bytes(one.truth.data, other->truth.data));
    }
    // A fresh scene object renders the same bytes too (no hidden state).
    Frame fresh = make_scene(GetParam()).value()->render(3, {80, 45}, {160, 90});
    EXPECT_TRUE(same_bytes(one.inputs.color, fresh.inputs.color));
    EXPECT_TRUE(same_bytes(one.truth.data, fresh.truth.data));
}

TEST_P(EveryScene, ZeroOutputSkipsTruth) {
    Frame frame = scene()->render(0, {16, 9}, {0, 0});
    EXPECT_TRUE(frame.truth.empty());
    EXPECT_EQ(frame.inputs.color.size(), 16u * 9 * 4);
}

TEST_P(EveryScene, AnimatesOverFrames) {
    auto s = scene();
    Frame a = s->render(4, {64, 36}, {0, 0});
    Frame b = s->render(5, {64, 36}, {0, 0});
    EXPECT_FALSE(same_bytes(a.inputs.depth, b.inputs.depth)); // geometry moved, not only the jitter
}

INSTANTIATE_TEST_SUITE_P(Scenes, EveryScene, ::testing::ValuesIn(scene_names()),
                         [](const auto& info) { return info.param; });

// The generated training scenes keep the same contract (a few seeds: every camera path kind among them).
INSTANTIATE_TEST_SUITE_P(TrainingScenes, EveryScene, ::testing::Values("train-1", "train-2", "train-3", "train-4"),
                         [](const auto& info) { return "seed" + info.param.substr(6); });

} // namespace
} // namespace d4r::scene
