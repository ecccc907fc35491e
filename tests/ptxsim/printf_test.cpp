// Device printf (vprintf) end to end: kernels compiled by nvcc from tests/ptxsim/kernels/printf_kernels.cu
// (the PTX is committed next to it; the command is in the .cu). The expected text is what C's printf
// makes of the same format and arguments (CUDA formats device printf on the host with C semantics).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "ptxsim_test_util.h"
#include "test_support.h"

namespace d4r::ptxsim::test {
namespace {

std::shared_ptr<Module> printf_module() {
    static std::shared_ptr<Module> m = load_ok(
        d4r::test::read_file_text(d4r::test::source_dir() / "tests" / "ptxsim" / "kernels" / "printf_kernels.ptx"),
        "printf_kernels.ptx");
    return m;
}

template <class... A>
std::string c_format(const char* fmt, A... args) {
    char buf[1024];
    int n = std::snprintf(buf, sizeof buf, fmt, args...);
    return std::string(buf, size_t(n));
}

DevicePtr upload_string(Device& dev, const std::string& s) {
    std::vector<char> bytes(s.begin(), s.end());
    bytes.push_back('\0');
    return upload(dev, bytes);
}

struct Captured {
    std::vector<std::string> calls; // one per sink call
    std::string all() const {
        std::string s;
        for (const auto& c : calls) s += c;
        return s;
    }
};

LaunchConfig with_sink(LaunchConfig c, Captured& out) {
    c.printf_sink = [&out](std::string_view text) { out.calls.emplace_back(text); };
    return c;
}

TEST(PtxsimPrintf, IntegerConversionsFlagsWidthsInBlockOrder) {
    auto m = printf_module();
    ASSERT_TRUE(m);
    const std::vector<int32_t> v = {-5, 0, 255, 4096, -1, 7, 0x7fffffff, int32_t(0x80000000)};
    std::string expected;
    for (uint32_t t = 0; t < 8; ++t)
        expected += c_format("b%u t%d v=%d u=%u x=%x X=%#X o=%o c=%c s=%s [%5d|%-5d|%05d|%+d]\n", t / 4, int(t), v[t],
                             unsigned(v[t]), unsigned(v[t]), unsigned(v[t]), unsigned(v[t]), 'A' + int(t), "dev",
                             int(t), int(t), int(t), int(t));
    for (unsigned workers : {1u, 4u}) {
        Device dev;
        DevicePtr pv = upload(dev, v), name = upload_string(dev, "dev");
        Params p(kernel_of(*m, "printf_ints"));
        p.set(0, pv).set(1, name);
        Captured out;
        run_ok(dev, *m, "printf_ints", with_sink(config({2}, {4}, workers), out), p);
        ASSERT_EQ(out.calls.size(), 2u) << "one delivery per block";
        EXPECT_EQ(out.all(), expected) << workers << " workers";
        EXPECT_EQ(out.all().find("unexpected"), std::string::npos) << "vprintf returns the argument count (13)";
    }
    // Hand-checked line for thread 2 (v = 255).
    EXPECT_NE(expected.find("b0 t2 v=255 u=255 x=ff X=0XFF o=377 c=C s=dev [    2|2    |00002|+2]\n"),
              std::string::npos);
}

TEST(PtxsimPrintf, FloatingPointConversions) {
    auto m = printf_module();
    ASSERT_TRUE(m);
    Device dev;
    Params p(kernel_of(*m, "printf_floats"));
    p.set(0, 1.5f).set(1, 2.0);
    Captured out;
    run_ok(dev, *m, "printf_floats", with_sink(config({1}, {1}), out), p);
    EXPECT_EQ(out.all(), "f=1.500000 e=2.000e+00 g=2e+10 G=2E-10 w=[    1.50] a=0x1p+0 %\n");
}

TEST(PtxsimPrintf, WideIntegersPointersAndPrecisionOnStrings) {
    auto m = printf_module();
    ASSERT_TRUE(m);
    Device dev;
    Params p(kernel_of(*m, "printf_wide"));
    const long long a = -1234567890123ll;
    const unsigned long long b = 0xfedcba9876543210ull;
    p.set(0, a).set(1, b).set(2, uint64_t(0x1234));
    Captured out;
    run_ok(dev, *m, "printf_wide", with_sink(config({1}, {1}), out), p);
    EXPECT_EQ(out.all(), c_format("ld=%ld lld=%lld llu=%llu lx=%lx lli=%lli p=%p hx=%hx s=[%.3s]\n", long(a), a, b,
                                  (unsigned long)b, a, reinterpret_cast<void*>(0x1234), 0x3210u, "abcdef"));
    EXPECT_NE(out.all().find("lx=fedcba9876543210 "), std::string::npos);
    EXPECT_NE(out.all().find("hx=3210 s=[abc]"), std::string::npos);
}

TEST(PtxsimPrintf, NoArgumentsAndDefaultSinkIsStdout) {
    auto m = printf_module();
    ASSERT_TRUE(m);
    Device dev;
    Params p(kernel_of(*m, "printf_plain"));
    testing::internal::CaptureStdout();
    run_ok(dev, *m, "printf_plain", config({1}, {2}), p);
    // Each call prints for the lanes executing it, in lane order.
    EXPECT_EQ(testing::internal::GetCapturedStdout(),
              "hello from ptxsim\nhello from ptxsim\nno arguments\nno arguments\n");
}

TEST(PtxsimPrintf, DivergentLanesPrintEachPathInLaneOrder) {
    auto m = printf_module();
    ASSERT_TRUE(m);
    std::string first;
    for (unsigned workers : {1u, 3u}) {
        Device dev;
        Params p(kernel_of(*m, "printf_divergent"));
        Captured out;
        run_ok(dev, *m, "printf_divergent", with_sink(config({3}, {32}, workers), out), p);
        std::string odd, even;
        for (int t = 1; t < 32; t += 2) odd += "odd " + std::to_string(t) + "\n";
        for (int t = 0; t < 32; t += 2) even += "even " + std::to_string(t) + "\n";
        ASSERT_EQ(out.calls.size(), 3u);
        for (const std::string& block : out.calls) EXPECT_TRUE(block == odd + even || block == even + odd) << block;
        if (first.empty()) first = out.all();
        EXPECT_EQ(out.all(), first) << "the output must not depend on the worker count";
    }
}

TEST(PtxsimPrintf, StringOutsideDeviceMemoryFaults) {
    auto m = printf_module();
    ASSERT_TRUE(m);
    Device dev;
    const Kernel& k = kernel_of(*m, "printf_string");
    {
        Params p(k);
        p.set(0, upload_string(dev, "in range"));
        Captured out;
        run_ok(dev, *m, "printf_string", with_sink(config({1}, {1}), out), p);
        EXPECT_EQ(out.all(), "s=in range\n");
    }
    // A wild pointer, and a string whose terminator lies past the end of its allocation.
    auto unterminated = dev.alloc(4);
    ASSERT_TRUE(unterminated.ok());
    ASSERT_TRUE(dev.memset(*unterminated, 'x', 4).ok());
    for (uint64_t ptr : {uint64_t(0x10), *unterminated}) {
        Params p(k);
        p.set(0, ptr);
        Captured out;
        LaunchFault fault;
        auto r = launch(dev, k, with_sink(config({1}, {1}), out), p.bytes(), &fault);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(fault.kind, FaultKind::IllegalAddress) << fault.message;
        EXPECT_NE(fault.message.find("vprintf"), std::string::npos) << fault.message;
        EXPECT_EQ(out.all(), "") << "a faulting call prints nothing";
    }
}

TEST(PtxsimPrintf, HandWrittenCallsAndLoadErrors) {
    // A vprintf call written by hand: the format in a .global array, the arguments in .local memory.
    auto m = load_ok(ptx(R"(
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[12] = {37, 100, 45, 37, 115, 45, 37, 99, 33, 10, 0, 0};
.global .align 1 .b8 word[3] = {104, 105, 0};
.visible .entry k(.param .u64 out)
{
  .local .align 8 .b8 buf[24];
  .reg .b64 %rd<8>;
  .reg .b32 %r<4>;
  mov.u64 %rd1, buf;
  cvta.local.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  st.local.u32 [buf], %r1;
  mov.u64 %rd3, word;
  cvta.global.u64 %rd4, %rd3;
  st.local.u64 [buf+8], %rd4;
  mov.u32 %r2, 90;
  st.local.u32 [buf+16], %r2;
  mov.u64 %rd5, fmt;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r3, [retval0];
  }
  ld.param.u64 %rd7, [out];
  st.global.u32 [%rd7], %r3;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<int32_t>{-7});
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    Captured text;
    run_ok(dev, *m, "k", with_sink(config({1}, {1}), text), p);
    EXPECT_EQ(text.all(), "0-hi-Z!\n");
    EXPECT_EQ(download<int32_t>(dev, out, 1)[0], 3) << "vprintf returns the number of arguments";
    // Another external function stays a load error.
    std::string err = load_error(ptx(R"(
.extern .func (.param .b32 r) other (.param .b64 a);
.visible .entry k()
{
  {
  .param .b64 param0;
  st.param.b64 [param0], 0;
  .param .b32 retval0;
  call.uni (retval0), other, (param0);
  }
  ret;
}
)"));
    EXPECT_NE(err.find("external function 'other'"), std::string::npos) << err;
}

// A failed device-side assert: nvcc compiles assert() to a call of the external __assertfail. Each failing
// thread prints NVIDIA's message and the launch fails with FaultKind::Assert (CUDA_ERROR_ASSERT).
TEST(PtxsimPrintf, AssertFailPrintsTheMessageAndFaults) {
    auto m = load_ok(ptx(R"(
.extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function,
                            .param .b64 size);
.global .align 1 .b8 msg[7] = {120, 32, 62, 32, 51, 0, 0};
.global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 func[5] = {109, 97, 105, 110, 0};
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 5;
  @%p bra DONE;
  mov.u64 %rd1, msg;
  cvta.global.u64 %rd1, %rd1;
  mov.u64 %rd2, file;
  cvta.global.u64 %rd2, %rd2;
  mov.u64 %rd3, func;
  cvta.global.u64 %rd3, %rd3;
  {
  .param .b64 p0;
  st.param.b64 [p0], %rd1;
  .param .b64 p1;
  st.param.b64 [p1], %rd2;
  .param .b32 p2;
  st.param.b32 [p2], 42;
  .param .b64 p3;
  st.param.b64 [p3], %rd3;
  .param .b64 p4;
  st.param.b64 [p4], 1;
  call.uni __assertfail, (p0, p1, p2, p3, p4);
  }
DONE:
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<int32_t>{0});
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    Captured text;
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "k"), with_sink(config({2}, {8, 2}), text), p.bytes(), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::Assert);
    // Every failing thread of the warp prints (tid.x = 5 in both rows); the launch stops at the first
    // faulting block, so block 1 never runs.
    EXPECT_EQ(text.all(), "a.cu:42: main: block: [0,0,0], thread: [5,0,0] Assertion `x > 3` failed.\n"
                          "a.cu:42: main: block: [0,0,0], thread: [5,1,0] Assertion `x > 3` failed.\n");
    EXPECT_NE(r.error().text().find("Assertion `x > 3` failed"), std::string::npos) << r.error().text();
}

} // namespace
} // namespace d4r::ptxsim::test
