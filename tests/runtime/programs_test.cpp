// CUDA driver API programs (tests/runtime/programs/*.c) run against build/lib/libcuda.so.1 exactly as an
// application would load it: LD_LIBRARY_PATH=build/lib, nothing else. Each program checks its own
// results (values computed on the host) and prints "<name>: ok".
#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.h"

namespace fs = std::filesystem;
using d4r::test::run_command;

namespace {

fs::path program(const std::string& flavour, const std::string& name) {
    return fs::path(D4R_TEST_BIN_DIR) / ("prog_" + flavour + "_" + name);
}

std::string kernels_ptx() { return (d4r::test::source_dir() / "tests/runtime/programs/kernels/vector_ops.ptx").string(); }

std::map<std::string, std::string> cpu_env() {
    return {{"LD_LIBRARY_PATH", D4R_TEST_LIB_DIR}, {"D4R_CUDA_BACKEND", "cpu"}};
}

void expect_ok(const d4r::test::RunResult& r, const std::string& name) {
    EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    EXPECT_NE(r.out.find(name + ": ok"), std::string::npos) << r.out;
}

} // namespace

TEST(RuntimePrograms, VectorAddOnCpuBackendWithD4rHeader) {
    auto r = run_command({program("d4r", "vector_add").string(), kernels_ptx()}, cpu_env());
    expect_ok(r, "vector_add");
}

TEST(RuntimePrograms, UnmodifiedProgramBuiltAgainstNvidiaHeaderRunsOnCpuBackend) {
    if (!D4R_TEST_NVIDIA_PROGRAMS) GTEST_SKIP() << "NVIDIA's CUDA toolkit (cuda.h + stub) is not installed";
    auto r = run_command({program("nv", "vector_add").string(), kernels_ptx()}, cpu_env());
    expect_ok(r, "vector_add");
}

TEST(RuntimePrograms, ApiGroupsOnCpuBackend) {
    auto r = run_command({program("d4r", "api_groups").string()}, cpu_env());
    expect_ok(r, "api_groups");
}

TEST(RuntimePrograms, UnmodifiedApiGroupsProgramRunsOnCpuBackend) {
    if (!D4R_TEST_NVIDIA_PROGRAMS) GTEST_SKIP() << "NVIDIA's CUDA toolkit (cuda.h + stub) is not installed";
    auto r = run_command({program("nv", "api_groups").string()}, cpu_env());
    expect_ok(r, "api_groups");
}

TEST(RuntimePrograms, ProgramLinksToLibcudaSoname) {
    // The program was linked against libd4rcuda and must load it under the driver's name.
    auto r = run_command({"/usr/bin/env", "LD_TRACE_LOADED_OBJECTS=1", program("d4r", "vector_add").string()},
                         {{"LD_LIBRARY_PATH", D4R_TEST_LIB_DIR}});
    EXPECT_NE(r.out.find("libcuda.so.1 => " + std::string(D4R_TEST_LIB_DIR)), std::string::npos) << r.out;
}

TEST(RuntimePrograms, TraceLogsEveryCallWithArgumentsAndResult) {
    auto env = cpu_env();
    env["D4R_CUDA_TRACE"] = "1";
    auto r = run_command({program("d4r", "vector_add").string(), kernels_ptx()}, env);
    expect_ok(r, "vector_add");
    EXPECT_NE(r.err.find("CUDA_TRACE cuInit(Flags=0) = CUDA_SUCCESS"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("CUDA_TRACE cuModuleGetFunction("), std::string::npos);
    EXPECT_NE(r.err.find("name=\"no_such_kernel\") = CUDA_ERROR_NOT_FOUND"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("CUDA_TRACE cuMemAlloc_v2(dptr="), std::string::npos);
}

TEST(RuntimePrograms, BadBackendChoiceFailsEveryCallWithALogLine) {
    auto env = cpu_env();
    env["D4R_CUDA_BACKEND"] = "driver:/nonexistent/libcuda.so";
    auto r = run_command({program("d4r", "vector_add").string(), kernels_ptx()}, env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("/nonexistent/libcuda.so does not exist"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cuInit(0) failed: CUDA_ERROR_NO_DEVICE"), std::string::npos) << r.err;
}

TEST(RuntimePrograms, DriverBackendRefusesToLoadItself) {
    auto env = cpu_env();
    env["D4R_CUDA_BACKEND"] = std::string("driver:") + D4R_TEST_LIB_DIR + "/libcuda.so.1";
    auto r = run_command({program("d4r", "vector_add").string(), kernels_ptx()}, env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("is libd4rcuda itself"), std::string::npos) << r.err;
}
