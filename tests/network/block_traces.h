// Fused plans' traces against unfused ones (refine_block_test.cpp, refine_v2_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include "network/layer_trace.h"
#include "network/plan.h"

namespace d4r::network {

inline constexpr PlanOptions kFused{.fuse_blocks = true, .fuse_pixels = true, .fuse_coarse = true};

// Each d4r_nn_block entry of FUSED against the unfused trace's last launch of the same block (BLOCK.fc2), the
// d4r_nn_coarse_block entry against the unfused expand (dec1's stream), a d4r_nn_pixel_embed entry (refine-v2) against
// the unfused embed, and the last entries (the image): identical bytes when MIN_DB is 0, else at least MIN_DB (the
// image as displayed). BLOCKS counts the block and coarse block entries.
inline void expect_blocks_match(const LayerTrace& unfused, const LayerTrace& fused, double min_db, size_t blocks = 3) {
    size_t seen = 0;
    for (const TraceEntry& f : fused) {
        const bool block = f.kernel == "d4r_nn_block", coarse = f.kernel == "d4r_nn_coarse_block";
        if (!block && !coarse && f.kernel != "d4r_nn_pixel_embed") continue;
        seen += block || coarse ? 1 : 0;
        // (the unfused expand: its regroup, which shares the layer's name with its linear)
        auto u = std::find_if(unfused.begin(), unfused.end(), [&](const TraceEntry& e) {
            return coarse ? e.kernel == "d4r_nn_expand" : e.layer == (block ? f.layer + ".fc2" : f.layer);
        });
        ASSERT_NE(u, unfused.end()) << f.layer;
        auto c = compare_traces({*u}, {TraceEntry{u->kernel, u->layer, f.bytes}});
        ASSERT_TRUE(c) << c.error().text();
        if (min_db == 0)
            EXPECT_EQ((*c)[0].differ, 0u) << f.layer << ": " << (*c)[0].psnr_db << " dB";
        else
            EXPECT_GE((*c)[0].psnr_db, min_db) << f.layer;
    }
    EXPECT_EQ(seen, blocks);
    if (min_db == 0)
        EXPECT_TRUE(unfused.back().bytes == fused.back().bytes) << "the image";
    else
        EXPECT_GE(displayed_psnr(unfused.back().bytes, fused.back().bytes), min_db) << "the image";
}

} // namespace d4r::network
