// The runtime layer above the backends: backend choice, cuGetProcAddress resolution, error texts,
// missing-entry stubs.
#include <gtest/gtest.h>

#include "runtime/api_table.h"
#include "runtime/runtime.h"

using namespace d4r::runtime;

TEST(BackendChoice, ParsesEveryForm) {
    EXPECT_EQ(parse_backend_choice("")->kind, BackendChoice::Kind::Auto);
    EXPECT_EQ(parse_backend_choice("AUTO")->kind, BackendChoice::Kind::Auto);
    EXPECT_EQ(parse_backend_choice(" cpu ")->kind, BackendChoice::Kind::Cpu);
    auto d = parse_backend_choice("driver");
    EXPECT_EQ(d->kind, BackendChoice::Kind::Driver);
    EXPECT_EQ(d->path, "");
    auto p = parse_backend_choice("driver:/opt/zluda/libcuda.so");
    EXPECT_EQ(p->kind, BackendChoice::Kind::Driver);
    EXPECT_EQ(p->path, "/opt/zluda/libcuda.so");
    auto bad = parse_backend_choice("gpu");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message().find("expected auto, cpu, driver"), std::string::npos);
}

TEST(GetProcAddress, ResolvesTheVersionACudaVersionMapsTo) {
    bool too_low = false;
    // cuMemAlloc: the _v2 (64-bit) entry from CUDA 3.2 on, the 32-bit one of CUDA 2.0 before; nothing
    // older than 2.0.
    EXPECT_EQ(find_proc("cuMemAlloc", 12000, &too_low), ApiId::cuMemAlloc_v2);
    EXPECT_EQ(find_proc("cuMemAlloc", 3000, &too_low), ApiId::cuMemAlloc);
    EXPECT_FALSE(too_low);
    EXPECT_EQ(find_proc("cuMemAlloc", 1000, &too_low), ApiId::Count);
    EXPECT_TRUE(too_low);
    EXPECT_EQ(find_proc("cuCtxCreate", 12000, &too_low), ApiId::cuCtxCreate_v2);
    EXPECT_EQ(find_proc("cuCtxCreate", 13000, &too_low), ApiId::cuCtxCreate_v4);
    EXPECT_EQ(find_proc("cuGetProcAddress", 12000, &too_low), ApiId::cuGetProcAddress_v2);
    EXPECT_EQ(find_proc("cuGetProcAddress", 11030, &too_low), ApiId::cuGetProcAddress);
    EXPECT_EQ(find_proc("cuInit", 2000, &too_low), ApiId::cuInit);
    EXPECT_EQ(find_proc("cuFrobnicate", 13000, &too_low), ApiId::Count);
    EXPECT_FALSE(too_low);
    // The versioned name itself is not a base name.
    EXPECT_EQ(find_proc("cuMemAlloc_v2", 13000, &too_low), ApiId::Count);
}

TEST(ApiTable, InfoMatchesTheList) {
    EXPECT_EQ(api_info(ApiId::cuInit).export_name, "cuInit");
    EXPECT_EQ(api_info(ApiId::cuMemAlloc_v2).base_name, "cuMemAlloc");
    EXPECT_EQ(api_info(ApiId::cuMemAlloc_v2).since, 3020);
}

TEST(ApiTable, MissingEntriesReturnNotSupported) {
    ApiTable t;
    fill_missing(t);
    for (size_t i = 0; i < kApiCount; ++i) EXPECT_NE(table_slot(t, static_cast<ApiId>(i)), nullptr);
    CUdeviceptr p = 0;
    EXPECT_EQ(t.cuMemAlloc_v2(&p, 16), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(t.cuInit(0), CUDA_ERROR_NOT_SUPPORTED);
}

TEST(ErrorTexts, NamesAndStrings) {
    EXPECT_STREQ(error_name(CUDA_SUCCESS), "CUDA_SUCCESS");
    EXPECT_STREQ(error_name(CUDA_ERROR_ILLEGAL_ADDRESS), "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_STREQ(error_string(CUDA_ERROR_ILLEGAL_ADDRESS), "an illegal memory access was encountered");
    EXPECT_EQ(error_name(static_cast<CUresult>(12345)), nullptr);
}

TEST(DriverBackend, RefusesMissingAndNonCudaLibraries) {
    auto missing = make_driver_backend("/nonexistent/libcuda.so.1");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message().find("does not exist"), std::string::npos);
    auto not_cuda = make_driver_backend("libz.so.1");
    ASSERT_FALSE(not_cuda);
    EXPECT_NE(not_cuda.error().message().find("no cuInit"), std::string::npos) << not_cuda.error().message();
}
