// A launch's PTX profile (LaunchConfig::profile_sink): the warp instructions issued at each line of the kernel's PTX,
// the most first; the same on one worker or several; summing to the launch's warp instructions, divergent or not;
// delivered for a launch that faults too.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// LOOP's add, setp and branch run N times a warp (N the parameter, or with DIVERGENT each lane's tid % 7 + 1 times,
// so a warp's lanes leave the loop at different trips).
const char* kLoop = R"(
.visible .entry loop(.param .u32 n, .param .u32 divergent)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [n];
  ld.param.u32 %r3, [divergent];
  mov.u32 %r4, %tid.x;
  rem.u32 %r5, %r4, 7;
  add.u32 %r5, %r5, 1;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 mov.u32 %r1, %r5;
  mov.u32 %r2, 0;
LOOP:
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  ret;
}
)";

// The 1-based line of TEXT holding NEEDLE.
uint32_t line_of(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return 1 + static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(at), '\n'));
}

struct Row {
    uint64_t count;
    uint32_t line;
    std::string text;
};
std::vector<Row> rows_of(const std::string& profile) {
    std::vector<Row> rows;
    std::istringstream in(profile);
    std::string l;
    while (std::getline(in, l)) {
        Row r{};
        std::istringstream fields(l);
        fields >> r.count >> r.line;
        std::getline(fields >> std::ws, r.text);
        rows.push_back(r);
    }
    return rows;
}

// LOOP of module M on GRID x BLOCK with WORKERS workers, N trips (DIVERGENT: the lanes' own): the profiles the sink
// received and the launch's result.
struct LoopRun {
    std::vector<std::string> profiles;
    LaunchResult result;
};
LoopRun run_loop(const Module& m, Dim3 grid, Dim3 block, unsigned workers, uint32_t n, uint32_t divergent) {
    Device dev;
    LoopRun run;
    LaunchConfig cfg = config(grid, block, workers);
    cfg.profile_sink = [&run](std::string_view p) { run.profiles.emplace_back(p); };
    Params params(kernel_of(m, "loop"));
    params.set(0, n).set(1, divergent);
    run.result = run_ok(dev, m, "loop", cfg, params);
    return run;
}

TEST(PtxsimProfile, CountsEachLinesWarpInstructionsTheMostFirst) {
    const std::string text = ptx(kLoop);
    auto m = load_ok(text);
    ASSERT_TRUE(m);
    std::string first;
    for (unsigned workers : {1u, 3u}) {
        const LoopRun run = run_loop(*m, {3}, {64}, workers, 5, 0); // six warps
        const std::vector<std::string>& got = run.profiles;
        const LaunchResult& r = run.result;
        ASSERT_EQ(got.size(), 1u) << "one profile a launch";
        const std::vector<Row> rows = rows_of(got[0]);
        ASSERT_EQ(rows.size(), 12u) << got[0];
        // The loop's three lines, five times for each of the six warps, in line order; then every other line once a
        // warp (the guarded-off mov too), in line order.
        const uint32_t add = line_of(text, "add.s32 %r2"), setp = line_of(text, "setp.lt.u32"),
                       bra = line_of(text, "bra LOOP");
        EXPECT_EQ(rows[0].count, 30u);
        EXPECT_EQ(rows[0].line, add);
        EXPECT_EQ(rows[0].text, "add.s32 %r2, %r2, 1"); // (the instruction as the module has it, without its ;)
        EXPECT_EQ(rows[1].line, setp);
        EXPECT_EQ(rows[2].line, bra);
        EXPECT_EQ(rows[2].count, 30u);
        uint64_t sum = 0;
        for (size_t i = 0; i < rows.size(); ++i) {
            sum += rows[i].count;
            if (i >= 3) {
                EXPECT_EQ(rows[i].count, 6u) << rows[i].text;
            }
            if (i > 3) {
                EXPECT_GT(rows[i].line, rows[i - 1].line) << "ties in line order";
            }
        }
        EXPECT_EQ(rows[3].line, line_of(text, "ld.param.u32 %r1"));
        EXPECT_EQ(rows[11].line, line_of(text, "ret;"));
        EXPECT_EQ(sum, r.warp_instructions);
        if (first.empty()) first = got[0];
        EXPECT_EQ(got[0], first) << "the same profile on " << workers << " workers";
    }
}

TEST(PtxsimProfile, ADivergentLoopSumsToTheLaunchsWarpInstructions) {
    const std::string text = ptx(kLoop);
    auto m = load_ok(text);
    ASSERT_TRUE(m);
    const LoopRun run = run_loop(*m, {2}, {48}, 2, 1, 1); // a warp of 32 and one of 16 a block
    ASSERT_EQ(run.profiles.size(), 1u);
    const LaunchResult& r = run.result;
    const std::vector<Row> rows = rows_of(run.profiles[0]);
    ASSERT_FALSE(rows.empty());
    uint64_t sum = 0;
    for (const Row& row : rows) sum += row.count;
    EXPECT_EQ(sum, r.warp_instructions);
    // Every warp's lanes reach 7 trips (tid % 7 + 1 for 16 lanes or more): the add issues 7 times a warp.
    EXPECT_EQ(rows[0].line, line_of(text, "add.s32 %r2"));
    EXPECT_EQ(rows[0].count, 4u * 7u);
}

TEST(PtxsimProfile, ALaunchThatFaultsStillGivesItsProfile) {
    const std::string text = ptx(".visible .entry bad()\n{\n  .reg .b64 %rd<2>;\n  .reg .b32 %r<2>;\n"
                                 "  mov.u64 %rd1, 16;\n  ld.global.u32 %r1, [%rd1];\n  ret;\n}\n");
    auto m = load_ok(text);
    ASSERT_TRUE(m);
    Device dev;
    std::string got;
    LaunchConfig cfg = config({1}, {32}, 1);
    cfg.profile_sink = [&got](std::string_view p) { got = p; };
    auto r = launch(dev, kernel_of(*m, "bad"), cfg, {});
    ASSERT_FALSE(r.ok());
    const std::vector<Row> rows = rows_of(got);
    ASSERT_EQ(rows.size(), 2u) << got; // the mov and the faulting load (issued, so counted)
    EXPECT_EQ(rows[0].line, line_of(text, "mov.u64"));
    EXPECT_EQ(rows[1].line, line_of(text, "ld.global"));
}

} // namespace
} // namespace d4r::ptxsim::test
