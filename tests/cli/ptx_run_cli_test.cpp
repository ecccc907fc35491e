// d4r ptx run end to end: a kernel from a PTX file with scalar and buffer arguments, buffers printed or
// written to files, and the exit statuses for faults and bad usage.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_support.h"

namespace d4r::test {
namespace {

const std::string kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 out, .param .u64 in, .param .f32 k, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.f32 %f1, [k];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  cvt.rn.f32.u32 %f2, %r2;
  mul.rn.f32 %f3, %f2, %f1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f3;
DONE:
  ret;
}
)";

TEST(PtxRunCli, RunsAKernelAndPrintsItsBuffers) {
    TempDir dir;
    fs::path ptx = dir.write("k.ptx", kPtx);
    RunResult r = run_d4r({"ptx",   "run",   ptx.string(), "scale", "--grid",     "2",     "--block",
                           "4",     "--arg", "buf:32",     "--arg", "iota:u32:8", "--arg", "f32:2.5",
                           "--arg", "u32:6", "--print",    "f32",   "--workers",  "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("ran scale on 2 x 4 threads"), std::string::npos) << r.out;
    // out[i] = i * 2.5 for i < 6, untouched (0) after.
    EXPECT_NE(r.out.find("arg 0 (out, 32 bytes): 0 2.5 5 7.5 10 12.5 0 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("arg 1 (in, 32 bytes):"), std::string::npos) << r.out; // printed as f32 too
}

TEST(PtxRunCli, WritesBuffersToFiles) {
    TempDir dir;
    fs::path ptx = dir.write("k.ptx", kPtx);
    fs::path in = dir.path() / "in.bin";
    std::vector<uint32_t> values = {10, 20, 30, 40};
    std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    dir.write("in.bin", bytes);
    fs::path out = dir.path() / "out";
    RunResult r = run_d4r({"ptx", "run", ptx.string(), "scale", "--block", "4", "--arg", "fill:f32:4:-1", "--arg",
                           "file:" + in.string(), "--arg", "f32:0.5", "--arg", "u32:3", "--out", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string got = read_file_text(out / "arg0.bin");
    ASSERT_EQ(got.size(), 16u);
    float f[4];
    std::memcpy(f, got.data(), 16);
    EXPECT_EQ(f[0], 5.0f);
    EXPECT_EQ(f[2], 15.0f);
    EXPECT_EQ(f[3], -1.0f); // thread 3 >= n: untouched
    EXPECT_EQ(read_file_text(out / "arg1.bin"), bytes);
}

TEST(PtxRunCli, FaultsAndBadUsage) {
    TempDir dir;
    fs::path ptx = dir.write("k.ptx", kPtx);
    // n larger than the buffers: the first out-of-bounds read faults, exit status 1.
    RunResult fault = run_d4r({"ptx", "run", ptx.string(), "scale", "--block", "16", "--arg", "buf:32", "--arg",
                               "buf:32", "--arg", "f32:1", "--arg", "u32:16"});
    EXPECT_EQ(fault.exit_code, 1) << fault.out;
    EXPECT_NE(fault.err.find("illegal address"), std::string::npos) << fault.err;
    EXPECT_NE(fault.err.find("thread (8,0,0)"), std::string::npos) << fault.err;
    // Wrong argument count, a scalar for a pointer, an unknown kernel: exit status 2.
    EXPECT_EQ(run_d4r({"ptx", "run", ptx.string(), "scale", "--arg", "u32:1"}).exit_code, 2);
    RunResult kind = run_d4r(
        {"ptx", "run", ptx.string(), "scale", "--arg", "u32:1", "--arg", "buf:4", "--arg", "f32:1", "--arg", "u32:1"});
    EXPECT_EQ(kind.exit_code, 2);
    EXPECT_NE(kind.err.find("takes 8 bytes"), std::string::npos) << kind.err;
    EXPECT_EQ(run_d4r({"ptx", "run", ptx.string(), "nope"}).exit_code, 2);
    RunResult help = run_d4r({"ptx", "run", "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("iota:TYPE:COUNT"), std::string::npos);
}

} // namespace
} // namespace d4r::test
