// The D4R_CUDA_TRACE line text (src/runtime/trace_format.h): every kind of argument prints as the trace has
// always printed it, names pair with values in order, and the result is named.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/trace_format.h"

namespace d4r::runtime {
namespace {

using namespace d4r::abi;

struct ByValue {
    char bytes[24];
};
enum class Small : int { A = -3 };

template <typename... T>
std::string line(const char* names, CUresult r, const T&... v) {
    const auto args = trace_args(v...);
    return format_trace_call("cuTest", names, r, args.data(), args.size());
}

TEST(TraceFormat, EachKindOfArgument) {
    const char* name = "kernel";
    char long_name[300];
    std::memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    CUuuid id{};
    for (int i = 0; i < 16; ++i) id.bytes[i] = char(i);
    int local = 0;
    EXPECT_EQ(
        line("(s, n, p, q)", CUDA_SUCCESS, name, static_cast<const char*>(nullptr), &local, static_cast<int*>(nullptr)),
        fmt::format("CUDA_TRACE cuTest(s=\"kernel\", n=NULL, p={}, q=NULL) = CUDA_SUCCESS",
                    static_cast<const void*>(&local)));
    EXPECT_EQ(line("(s)", CUDA_SUCCESS, static_cast<char*>(long_name)),
              "CUDA_TRACE cuTest(s=\"" + std::string(256, 'x') + "\") = CUDA_SUCCESS");
    EXPECT_EQ(line("(id, none)", CUDA_SUCCESS, static_cast<const CUuuid*>(&id), static_cast<const CUuuid*>(nullptr)),
              "CUDA_TRACE cuTest(id=00010203-0405-0607-0809-0a0b0c0d0e0f, none=NULL) = CUDA_SUCCESS");
    EXPECT_EQ(line("(dptr, bytes, count, flags, e)", CUDA_SUCCESS, 0xdead00ull, size_t(4096), -7, 3u, Small::A),
              "CUDA_TRACE cuTest(dptr=0xdead00, bytes=4096, count=-7, flags=3, e=-3) = CUDA_SUCCESS");
    EXPECT_EQ(line("(f, d, b)", CUDA_SUCCESS, 0.1f, 0.1, true),
              "CUDA_TRACE cuTest(f=0.1, d=0.1, b=true) = CUDA_SUCCESS");
    EXPECT_EQ(line("(h)", CUDA_SUCCESS, ByValue{}), "CUDA_TRACE cuTest(h={24 bytes}) = CUDA_SUCCESS");
}

TEST(TraceFormat, NoArgumentsAndResults) {
    EXPECT_EQ(line("()", CUDA_ERROR_INVALID_VALUE), "CUDA_TRACE cuTest() = CUDA_ERROR_INVALID_VALUE");
    EXPECT_EQ(line("(a)", static_cast<CUresult>(123456), 1), "CUDA_TRACE cuTest(a=1) = 123456");
    // Extra spaces and the last name without a comma.
    EXPECT_EQ(line("(a,   b,c)", CUDA_SUCCESS, 1, 2, 3), "CUDA_TRACE cuTest(a=1, b=2, c=3) = CUDA_SUCCESS");
}

} // namespace
} // namespace d4r::runtime
