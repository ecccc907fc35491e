// The refine pass as a job file (network/job_file.h) and run on the host at the job's addresses
// (network/job_host.h): the file round-trips, a damaged file is an error, the launches are plan_forward()'s at
// the job's addresses, and the job run on the host gives the PTX path's trace (ptxsim, cpu backend) at every
// launch, for an image whose token grid ends in partial windows.
#include <gtest/gtest.h>

#include <fstream>

#include "cuda_env.h"
#include "harness.h"
#include "network/core_frame.h"
#include "network/job_file.h"
#include "network/job_host.h"
#include "network/layer_trace.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::network;

namespace {

Job small_job(uint32_t w = 44, uint32_t h = 20) {
    return refine_job(nettest::random_model(7), nettest::test_image(w, h, 7), w, h, "refine test");
}

std::vector<uint8_t> file_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void put_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

} // namespace

TEST(JobFile, WriteThenReadGivesTheSameJob) {
    test::TempDir t;
    const Job job = small_job();
    ASSERT_TRUE(write_job(t.path() / "a.job", job));
    auto back = read_job(t.path() / "a.job");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->note, "refine test");
    ASSERT_EQ(back->regions.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(back->regions[i].address, job.regions[i].address);
        EXPECT_EQ(back->regions[i].size, job.regions[i].size);
        EXPECT_EQ(back->regions[i].init, job.regions[i].init);
    }
    ASSERT_EQ(back->launches.size(), job.launches.size());
    for (size_t i = 0; i < job.launches.size(); ++i) {
        const JobLaunch &a = job.launches[i], &b = back->launches[i];
        EXPECT_EQ(a.kernel, b.kernel);
        EXPECT_EQ(a.layer, b.layer);
        EXPECT_EQ(a.grid, b.grid);
        EXPECT_EQ(a.block, b.block);
        EXPECT_EQ(a.params, b.params);
        EXPECT_EQ(a.out, b.out);
        EXPECT_EQ(a.out_bytes, b.out_bytes);
    }
}

TEST(JobFile, ADamagedFileIsAnErrorNamingIt) {
    test::TempDir t;
    ASSERT_TRUE(write_job(t.path() / "a.job", small_job()));
    std::vector<uint8_t> b = file_bytes(t.path() / "a.job");
    std::vector<uint8_t> cut(b.begin(), b.end() - 1);
    put_bytes(t.path() / "cut.job", cut);
    auto r = read_job(t.path() / "cut.job");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().text().find("cut.job"), std::string::npos) << r.error().text();
    b.push_back(0);
    put_bytes(t.path() / "long.job", b);
    EXPECT_FALSE(read_job(t.path() / "long.job"));
    b[0] = 'X';
    put_bytes(t.path() / "magic.job", b);
    auto m = read_job(t.path() / "magic.job");
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().text().find("magic"), std::string::npos) << m.error().text();
    EXPECT_FALSE(read_job(t.path() / "missing.job"));
}

TEST(JobFile, TheLaunchesArePlanForwardsAtTheJobsAddresses) {
    const uint32_t w = 72, h = 40;
    const Job job = small_job(w, h);
    const Geometry g = geometry_for(w, h);
    const std::vector<Launch> plan =
        plan_forward(g, kJobImageAddress, w * 8, kJobWeightsAddress, kJobScratchAddress, kArchRefineV1);
    ASSERT_EQ(job.launches.size(), plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
        EXPECT_EQ(job.launches[i].kernel, kernel_name(plan[i].kernel));
        EXPECT_EQ(job.launches[i].layer, plan[i].what);
        EXPECT_EQ(job.launches[i].grid, plan[i].grid);
        EXPECT_EQ(job.launches[i].params.size(), plan[i].param_bytes);
        EXPECT_EQ(0, std::memcmp(job.launches[i].params.data(), plan[i].params.data(), plan[i].param_bytes));
        EXPECT_EQ(job.launches[i].out, plan[i].out);
    }
    EXPECT_EQ(job.regions[0].init, pack_weights(nettest::random_model(7)));
    EXPECT_EQ(job.regions[1].size, scratch_layout(g).total);
    EXPECT_EQ(job.regions[2].size, uint64_t(w) * h * 8);
}

TEST(JobFile, TheJobRunOnTheHostGivesThePtxPathsTraceAtEveryLaunch) {
    std::string why;
    const upscaler::CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const uint32_t w = 44, h = 20; // fine grid 12 x 6: the second window column and the only row are partial
    const Model model = nettest::random_model(7);
    const std::vector<uint16_t> image = nettest::test_image(w, h, 7);
    auto ptx = trace_forward(*cuda, model, image, w, h);
    ASSERT_TRUE(ptx) << ptx.error().text();
    auto host = run_job_on_host(refine_job(model, image, w, h, "refine test"));
    ASSERT_TRUE(host) << host.error().text();
    auto rows = compare_traces(*ptx, *host);
    ASSERT_TRUE(rows) << rows.error().text();
    ASSERT_EQ(rows->size(), 29u);
    for (const LayerComparison& c : *rows) EXPECT_EQ(c.differ, 0u) << c.layer;
}

// refine-v2 reads the core's frame: the job carries the core's buffers (moved to kJobCoreAddress) and its launches
// read them there; run on the host it gives the PTX path's trace over the same frame, pixel kernels included.
TEST(JobFile, ARefineV2JobOverTheCoresFrameGivesThePtxPathsTraceAtEveryLaunch) {
    std::string why;
    const upscaler::CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const uint32_t w = 44, h = 20;
    const Model model = nettest::random_model_of(5, kArchRefineV2);
    LayerTrace ptx;
    CoreFrame frame;
    Status s = with_core_frame(*cuda, w, h, 3, [&](const upscaler::math::Params& core) -> Status {
        frame = D4R_TRY(copy_core_frame(*cuda, core));
        ptx = D4R_TRY(trace_forward_after_core(*cuda, model, core, kernel_ptx));
        return ok_status();
    });
    ASSERT_TRUE(s) << s.error().text();
    // Every pointer of the block lies in exactly one of the frame's buffers (the caller's four and the core's own).
    EXPECT_GE(frame.buffers.size(), 5u);
    for (uint64_t upscaler::math::Params::* field : kCoreBufferFields) {
        const uint64_t p = frame.params.*field;
        if (p == 0) continue;
        int holders = 0;
        for (const CoreFrame::Buffer& b : frame.buffers) holders += p >= b.address && p < b.address + b.bytes.size();
        EXPECT_EQ(holders, 1) << std::hex << p;
    }
    auto job = refine_job_after_core(model, frame, "refine-v2 test");
    ASSERT_TRUE(job) << job.error().text();
    ASSERT_EQ(job->regions.size(), 3u);
    EXPECT_EQ(job->regions[2].address, kJobCoreAddress);
    EXPECT_EQ(job->launches.front().kernel, "d4r_nn_pixel_features");
    EXPECT_EQ(job->launches.back().kernel, "d4r_nn_pixel_blend");
    EXPECT_GE(job->launches.back().out, kJobCoreAddress);
    auto host = run_job_on_host(*job);
    ASSERT_TRUE(host) << host.error().text();
    auto rows = compare_traces(ptx, *host);
    ASSERT_TRUE(rows) << rows.error().text();
    ASSERT_EQ(rows->size(), ptx.size());
    for (const LayerComparison& c : *rows) EXPECT_EQ(c.differ, 0u) << c.layer;
    // A pointer outside the frame's buffers, and a model that does not read the frame, are refused.
    CoreFrame lost = frame;
    lost.buffers.pop_back();
    EXPECT_FALSE(refine_job_after_core(model, lost, "lost"));
    EXPECT_FALSE(refine_job_after_core(nettest::random_model(5), frame, "v1"));
}

TEST(JobFile, ARegionWhoseAddressIsTakenIsAnError) {
    Job job = small_job();
    auto first = run_job_on_host(job); // maps and unmaps: the addresses are free again afterwards
    ASSERT_TRUE(first) << first.error().text();
    job.regions[1].address = job.regions[0].address; // overlaps the weights
    auto r = run_job_on_host(job);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().text().find("cannot map"), std::string::npos) << r.error().text();
}
