// Warp collectives: shfl.sync in every mode (with clamp / segment masks and the validity predicate),
// shuffle reductions, vote.sync, ballot, activemask and bar.warp.sync, match.sync and redux.sync,
// including member lanes that reach a collective through different paths.
#include <gtest/gtest.h>

#include <algorithm>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// The ISA's shfl.sync source-lane rule.
std::pair<uint32_t, bool> shfl_ref(const std::string& mode, uint32_t lane, uint32_t b, uint32_t c) {
    int bval = int(b & 0x1f), cval = int(c & 0x1f), seg = int((c >> 8) & 0x1f);
    int max_lane = (int(lane) & seg) | (cval & ~seg), min_lane = int(lane) & seg;
    int j;
    bool p;
    if (mode == "up") {
        j = int(lane) - bval;
        p = j >= max_lane;
    } else if (mode == "down") {
        j = int(lane) + bval;
        p = j <= max_lane;
    } else if (mode == "bfly") {
        j = int(lane) ^ bval;
        p = j <= max_lane;
    } else {
        j = min_lane | (bval & ~seg);
        p = j <= max_lane;
    }
    return {p ? uint32_t(j) : lane, p};
}

TEST(PtxsimWarp, ShuffleEveryModeClampAndSegments) {
    const uint32_t n = 64;
    std::vector<uint32_t> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = i * 1000 + 7;
    for (std::string mode : {"up", "down", "bfly", "idx"}) {
        for (uint32_t b : {0u, 1u, 3u, 16u, 31u, 37u}) {
            for (uint32_t c : {0x1fu, 0u, 0x1807u, 0x1c03u, 0x101fu}) {
                std::vector<uint32_t> bs(n, b), cs(n, c);
                auto got = run_op<uint32_t, uint32_t, uint32_t, uint32_t>(
                    "  shfl.sync." + mode +
                        ".b32 %r5|%p0, %a, %b, %c, 0xffffffff;\n  selp.b32 %r6, 0x80000000, 0, %p0;\n"
                        "  or.b32 %d, %r5, %r6;",
                    v, bs, cs);
                for (uint32_t i = 0; i < n; ++i) {
                    auto [src, ok] = shfl_ref(mode, i % 32, b, c);
                    uint32_t e = v[(i / 32) * 32 + src] | (ok ? 0x80000000u : 0u);
                    ASSERT_EQ(got[i], e) << mode << " b=" << b << " c=0x" << std::hex << c << std::dec << " lane " << i;
                }
            }
        }
    }
}

TEST(PtxsimWarp, ButterflyReductionAndBallotVotes) {
    std::vector<uint32_t> v(96);
    TestRng rng(6);
    for (auto& x : v) x = uint32_t(rng.next() % 1000);
    auto sum = run_op<uint32_t, uint32_t>(R"(  mov.u32 %d, %a;
  shfl.sync.bfly.b32 %r5, %d, 16, 31, -1;
  add.u32 %d, %d, %r5;
  shfl.sync.bfly.b32 %r5, %d, 8, 31, -1;
  add.u32 %d, %d, %r5;
  shfl.sync.bfly.b32 %r5, %d, 4, 31, -1;
  add.u32 %d, %d, %r5;
  shfl.sync.bfly.b32 %r5, %d, 2, 31, -1;
  add.u32 %d, %d, %r5;
  shfl.sync.bfly.b32 %r5, %d, 1, 31, -1;
  add.u32 %d, %d, %r5;)",
                                          v);
    for (uint32_t w = 0; w < 3; ++w) {
        uint32_t s = 0;
        for (uint32_t l = 0; l < 32; ++l) s += v[w * 32 + l];
        for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(sum[w * 32 + l], s);
    }
    auto votes = run_op<uint32_t, uint32_t>(R"(  setp.gt.u32 %p0, %a, 500;
  vote.sync.ballot.b32 %r5, %p0, 0xffffffff;
  vote.sync.all.pred %p1, %p0, 0xffffffff;
  vote.sync.any.pred %p2, !%p0, 0xffffffff;
  vote.sync.uni.pred %p3, %p0, 0x0000ffff;
  selp.b32 %r6, 1, 0, %p1;
  selp.b32 %r7, 2, 0, %p2;
  or.b32 %r6, %r6, %r7;
  selp.b32 %r7, 4, 0, %p3;
  or.b32 %r6, %r6, %r7;
  xor.b32 %d, %r5, %r6;)",
                                            v);
    for (uint32_t w = 0; w < 3; ++w) {
        uint32_t ballot = 0;
        for (uint32_t l = 0; l < 32; ++l) ballot |= (v[w * 32 + l] > 500 ? 1u : 0u) << l;
        bool all = ballot == 0xffffffffu, any_not = ballot != 0xffffffffu;
        uint32_t low = ballot & 0xffff;
        bool uni = low == 0 || low == 0xffff;
        uint32_t flags = (all ? 1 : 0) | (any_not ? 2 : 0) | (uni ? 4 : 0);
        for (uint32_t l = 0; l < 32; ++l) ASSERT_EQ(votes[w * 32 + l], ballot ^ flags) << w << " " << l;
    }
}

TEST(PtxsimWarp, CollectivesWaitForMembersArrivingOnOtherPaths) {
    // Even lanes take one branch, odd lanes another; both call shfl.sync with the full mask in their own
    // branch (different instructions). Each group must see the other group's values once both arrive,
    // and bar.warp.sync / activemask behave accordingly.
    std::vector<uint32_t> v(32);
    for (uint32_t i = 0; i < 32; ++i) v[i] = 100 + i;
    auto got = run_op<uint32_t, uint32_t>(R"(  mov.u32 %r5, %laneid;
  and.b32 %r6, %r5, 1;
  setp.eq.u32 %p0, %r6, 0;
  @%p0 bra EVEN;
  shfl.sync.bfly.b32 %r7, %a, 1, 31, -1;
  activemask.b32 %r5;
  bra.uni JOIN;
EVEN:
  shfl.sync.bfly.b32 %r7, %a, 1, 31, -1;
  activemask.b32 %r5;
JOIN:
  bar.warp.sync -1;
  activemask.b32 %r6;
  xor.b32 %r5, %r5, %r6;
  shl.b32 %r5, %r5, 16;
  add.u32 %d, %r7, %r5;)",
                                          v);
    for (uint32_t l = 0; l < 32; ++l) {
        uint32_t half = (l & 1) ? 0xaaaaaaaau : 0x55555555u; // the group active inside each branch
        EXPECT_EQ(got[l], v[l ^ 1] + ((half ^ 0xffffffffu) << 16)) << l;
    }
}

TEST(PtxsimWarp, CollectiveWhoseMembersNeverArriveFails) {
    auto m = load_ok(ptx(R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 exit;
  shfl.sync.idx.b32 %r2, %r1, 0, 31, 0xffffffff;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    // Lanes 0-15 exited: exited lanes do not count, so the shuffle completes.
    EXPECT_TRUE(launch(dev, kernel_of(*m, "k"), config({1}, {32}), {}).ok());
    auto m2 = load_ok(ptx(R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra SPIN;
  shfl.sync.idx.b32 %r2, %r1, 0, 31, 0xffffffff;
  ret;
SPIN:
  bar.warp.sync 0x0000ffff;
  vote.sync.any.pred %p1, %p1, 0x00000001;
  vote.sync.any.pred %p1, %p1, 0xffffffff;
  ret;
}
)"));
    ASSERT_TRUE(m2);
    // Lanes 16-31 wait in a shuffle, lanes 0-15 in a vote, both over the whole warp: neither completes.
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m2, "k"), config({1}, {32}), {}, &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(r.error().text().find("never reach"), std::string::npos) << r.error().text();
}

// match.any: the participants holding the lane's value; match.all: all participants (and true) when
// every participant holds the same value, else 0 (and false). Participants: the non-exited member lanes.
TEST(PtxsimWarp, MatchAnyAndAll) {
    std::vector<uint32_t> v(64);
    for (uint32_t i = 0; i < 64; ++i) v[i] = (i * 7) % 5; // five classes in each warp
    auto any = run_op<uint32_t, uint32_t>("  match.any.sync.b32 %d, %a, 0xffffffff;", v);
    for (uint32_t i = 0; i < 64; ++i) {
        uint32_t e = 0;
        for (uint32_t k = 0; k < 32; ++k) e |= v[(i & ~31u) + k] == v[i] ? 1u << k : 0u;
        ASSERT_EQ(any[i], e) << i;
    }
    // 64-bit values that differ only in the high word are different.
    std::vector<uint64_t> w(32);
    for (uint32_t i = 0; i < 32; ++i) w[i] = (uint64_t(i & 1) << 40) | 5;
    auto any64 = run_op<uint32_t, uint64_t>("  match.any.sync.b64 %d, %a, 0xffffffff;", w);
    for (uint32_t i = 0; i < 32; ++i) ASSERT_EQ(any64[i], (i & 1) ? 0xaaaaaaaau : 0x55555555u) << i;
    // match.all with its predicate: warp 0 all equal, warp 1 not.
    std::vector<uint32_t> same(64, 9);
    same[40] = 10;
    auto all = run_op<uint32_t, uint32_t>("  match.all.sync.b32 %r5|%p0, %a, 0xffffffff;\n"
                                          "  selp.b32 %r6, 1, 0, %p0;\n  xor.b32 %d, %r5, %r6;",
                                          same);
    for (uint32_t i = 0; i < 32; ++i) ASSERT_EQ(all[i], 0xffffffffu ^ 1u) << i;
    for (uint32_t i = 32; i < 64; ++i) ASSERT_EQ(all[i], 0u) << i;
}

TEST(PtxsimWarp, MatchWithPartialMaskAndExitedLanes) {
    // Lanes 24-31 exit; lanes 0-19 and lanes 20-23 match on two paths with the same full member mask:
    // the exited lanes do not participate, the lanes on the other path do.
    std::vector<uint32_t> v(32);
    for (uint32_t i = 0; i < 32; ++i) v[i] = i % 3;
    auto got = run_op<uint32_t, uint32_t>(R"(  mov.u32 %r5, %laneid;
  setp.ge.u32 %p0, %r5, 24;
  @%p0 exit;
  setp.ge.u32 %p1, %r5, 20;
  @%p1 bra OTHER;
  match.any.sync.b32 %d, %a, 0xffffffff;
  bra.uni DONE;
OTHER:
  match.any.sync.b32 %d, %a, 0xffffffff;
  or.b32 %d, %d, 0x80000000;
DONE:)",
                                          v);
    for (uint32_t i = 0; i < 24; ++i) {
        uint32_t e = 0;
        for (uint32_t k = 0; k < 24; ++k) e |= v[k] == v[i] ? 1u << k : 0u;
        ASSERT_EQ(got[i], e | (i >= 20 ? 0x80000000u : 0u)) << i;
    }
    for (uint32_t i = 24; i < 32; ++i) ASSERT_EQ(got[i], 0u) << i;
}

TEST(PtxsimWarp, ReduxEveryOperation) {
    std::vector<uint32_t> v(64);
    TestRng rng(17);
    for (auto& x : v) x = uint32_t(rng.next());
    v[3] = 0x80000000u; // INT_MIN in warp 0
    struct Form {
        const char* op;
        uint32_t (*f)(uint32_t, uint32_t);
    };
    const Form forms[] = {
        {"add.u32", [](uint32_t a, uint32_t b) { return a + b; }},
        {"add.s32", [](uint32_t a, uint32_t b) { return a + b; }},
        {"min.u32", [](uint32_t a, uint32_t b) { return std::min(a, b); }},
        {"max.u32", [](uint32_t a, uint32_t b) { return std::max(a, b); }},
        {"min.s32", [](uint32_t a, uint32_t b) { return uint32_t(std::min(int32_t(a), int32_t(b))); }},
        {"max.s32", [](uint32_t a, uint32_t b) { return uint32_t(std::max(int32_t(a), int32_t(b))); }},
        {"and.b32", [](uint32_t a, uint32_t b) { return a & b; }},
        {"or.b32", [](uint32_t a, uint32_t b) { return a | b; }},
        {"xor.b32", [](uint32_t a, uint32_t b) { return a ^ b; }},
    };
    for (const Form& f : forms) {
        auto got = run_op<uint32_t, uint32_t>(std::string("  redux.sync.") + f.op + " %d, %a, 0xffffffff;", v);
        for (uint32_t w = 0; w < 2; ++w) {
            uint32_t e = v[w * 32];
            for (uint32_t k = 1; k < 32; ++k) e = f.f(e, v[w * 32 + k]);
            for (uint32_t k = 0; k < 32; ++k) ASSERT_EQ(got[w * 32 + k], e) << f.op << " lane " << k;
        }
    }
}

TEST(PtxsimWarp, ReduxOverHalvesOnTwoPaths) {
    // Odd lanes reduce over 0xaaaaaaaa, even lanes over 0x55555555, each group on its own path.
    std::vector<uint32_t> v(32);
    for (uint32_t i = 0; i < 32; ++i) v[i] = i + 1;
    auto got = run_op<uint32_t, uint32_t>(R"(  mov.u32 %r5, %laneid;
  and.b32 %r6, %r5, 1;
  setp.eq.u32 %p0, %r6, 0;
  @%p0 bra EVEN;
  redux.sync.add.u32 %d, %a, 0xaaaaaaaa;
  bra.uni JOIN;
EVEN:
  redux.sync.add.u32 %d, %a, 0x55555555;
JOIN:)",
                                          v);
    uint32_t odd = 0, even = 0;
    for (uint32_t i = 0; i < 32; ++i) (i & 1 ? odd : even) += v[i];
    for (uint32_t i = 0; i < 32; ++i) ASSERT_EQ(got[i], i & 1 ? odd : even) << i;
}

TEST(PtxsimWarp, ConvergedLanesWithDifferentMemberMasksAreSeparateCollectives) {
    // cooperative_groups::labeled_partition: match.any gives each lane the mask of the lanes sharing its
    // label, and the whole converged warp then runs one redux/shfl/vote/match/bar.warp.sync, each lane
    // naming its own group's mask. Each group is its own collective (the ISA: all threads of a member mask
    // execute the instruction with that same mask), so every lane gets its group's result.
    std::vector<uint32_t> v(64);
    TestRng rng(29);
    for (auto& x : v) x = uint32_t(rng.next());
    auto label = [&](uint32_t i) { return (v[i] >> 7) % 5; };
    auto group = [&](uint32_t i) {
        uint32_t m = 0;
        for (uint32_t k = 0; k < 32; ++k) m |= label((i & ~31u) + k) == label(i) ? 1u << k : 0u;
        return m;
    };
    const std::string mask =
        "  shr.u32 %r5, %a, 7;\n  rem.u32 %r5, %r5, 5;\n  match.any.sync.b32 %r6, %r5, 0xffffffff;\n";
    auto max = run_op<uint32_t, uint32_t>(mask + "  redux.sync.max.s32 %d, %a, %r6;", v);
    auto leader = run_op<uint32_t, uint32_t>(mask + "  brev.b32 %r7, %r6;\n  bfind.shiftamt.u32 %r7, %r7;\n"
                                                    "  shfl.sync.idx.b32 %d, %a, %r7, 31, %r6;",
                                             v);
    auto ballot = run_op<uint32_t, uint32_t>(mask + "  setp.gt.u32 %p0, %a, 0x80000000;\n"
                                                    "  vote.sync.ballot.b32 %d, %p0, %r6;",
                                             v);
    auto same = run_op<uint32_t, uint32_t>(mask + "  bar.warp.sync %r6;\n  match.any.sync.b32 %d, %r5, %r6;", v);
    for (uint32_t i = 0; i < 64; ++i) {
        const uint32_t g = group(i), base = i & ~31u;
        int32_t m = INT32_MIN;
        uint32_t b = 0;
        for (uint32_t k = 0; k < 32; ++k) {
            if (!(g & (1u << k))) continue;
            m = std::max(m, int32_t(v[base + k]));
            b |= v[base + k] > 0x80000000u ? 1u << k : 0u;
        }
        ASSERT_EQ(max[i], uint32_t(m)) << "lane " << i;
        ASSERT_EQ(leader[i], v[base + uint32_t(__builtin_ctz(g))]) << "lane " << i;
        ASSERT_EQ(ballot[i], b) << "lane " << i;
        ASSERT_EQ(same[i], g) << "lane " << i;
    }
}

TEST(PtxsimWarp, MatchAndReduxMalformedFormsAreLoadErrors) {
    auto k = [](const std::string& ins) {
        return ptx(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  .reg .pred %p;\n  " + ins + "\n  ret;\n}\n");
    };
    EXPECT_NE(load_error(k("match.any.b32 %r1, %r2, -1;")).find("match"), std::string::npos);
    EXPECT_NE(load_error(k("match.any.sync.b32 %r1|%p, %r2, -1;")).find("predicate"), std::string::npos);
    EXPECT_NE(load_error(k("redux.sync.min.b32 %r1, %r2, -1;")).find("redux"), std::string::npos);
    EXPECT_NE(load_error(k("redux.sync.add.f32 %r1, %r2, -1;")).find("redux"), std::string::npos);
}

} // namespace
} // namespace d4r::ptxsim::test
