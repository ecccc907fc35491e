// CUDA driver API programs (tests/runtime/programs/*.c) run against build/lib/libcuda.so.1 exactly as an
// application would load it: LD_LIBRARY_PATH=build/lib, nothing else. Each program checks its own
// results (values computed on the host) and prints "<name>: ok".
#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <map>
#include <vector>

#include "test_support.h"

namespace fs = std::filesystem;
using d4r::test::run_command;

namespace {

fs::path program(const std::string& flavour, const std::string& name) {
    return fs::path(D4R_TEST_BIN_DIR) / ("prog_" + flavour + "_" + name);
}

std::string kernels_ptx() {
    return (d4r::test::source_dir() / "tests/runtime/programs/kernels/vector_ops.ptx").string();
}

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

namespace {

// resources.c: arrays, texture and surface objects, libraries, function attributes and occupancy,
// cuLaunchKernelEx, JIT logs, a fatbin, limits, mapped and registered host memory.
std::vector<std::string> resources_command(const std::string& flavour) {
    fs::path kernels = d4r::test::source_dir() / "tests/runtime/programs/kernels";
    return {program(flavour, "resources").string(), (kernels / "resources.ptx").string(),
            (kernels / "resources.fatbin").string()};
}

} // namespace

TEST(RuntimePrograms, ResourcesOnCpuBackend) {
    auto r = run_command(resources_command("d4r"), cpu_env());
    expect_ok(r, "resources");
}

TEST(RuntimePrograms, UnmodifiedResourcesProgramRunsOnCpuBackend) {
    if (!D4R_TEST_NVIDIA_PROGRAMS) GTEST_SKIP() << "NVIDIA's CUDA toolkit (cuda.h + stub) is not installed";
    auto r = run_command(resources_command("nv"), cpu_env());
    expect_ok(r, "resources");
}

TEST(RuntimePrograms, ResourcesDumpsEveryCheckedOutputForTheDeviceComparison) {
    // tests/device/runtime.sh compares these files byte for byte between NVIDIA's driver and d4r's
    // backends; each must exist with the size of the data the program checked.
    d4r::test::TempDir dir;
    auto env = cpu_env();
    env["PROGRAM_OUT"] = dir.path().string();
    auto r = run_command(resources_command("d4r"), env);
    expect_ok(r, "resources");
    const std::map<std::string, uintmax_t> expected = {{"float4_array_window", 6 * 12 * 16},
                                                       {"tex2d_point_clamp", 60 * 16},
                                                       {"tex2d_point_wrap_normalized", 60 * 16},
                                                       {"tex2d_uchar4_integer", 40 * 4},
                                                       {"tex2d_uchar4_normalized_float", 40 * 16},
                                                       {"tex2d_pitch2d", 28 * 4},
                                                       {"tex1d_fetch_linear", 128 * 4},
                                                       {"surf2d_write", 12 * 40 * 4},
                                                       {"array3d_box", 2 * 3 * 4 * 4},
                                                       {"array3d_to_device", 3 * 5 * 64},
                                                       {"block_reverse", 5 * 256 * 4},
                                                       {"dynamic_reverse_64k", 2 * 16384 * 4},
                                                       {"mapped_host_affine", 256 * 4}};
    for (const auto& [name, bytes] : expected) {
        fs::path file = dir.path() / (name + ".bin");
        ASSERT_TRUE(fs::exists(file)) << file;
        EXPECT_EQ(fs::file_size(file), bytes) << file;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), long(expected.size()));
}

TEST(RuntimePrograms, ResourcesSurfacesAndTexturesAppearInTheTrace) {
    auto env = cpu_env();
    env["D4R_CUDA_TRACE"] = "1";
    auto r = run_command(resources_command("d4r"), env);
    expect_ok(r, "resources");
    for (const char* call : {"cuArray3DCreate_v2(", "cuTexObjectCreate(", "cuSurfObjectCreate(", "cuLibraryLoadData(",
                             "cuLaunchKernelEx(", "cuModuleLoadFatBinary(", "cuMemHostRegister_v2("})
        EXPECT_NE(r.err.find(std::string("CUDA_TRACE ") + call), std::string::npos) << call;
    // The refused inputs reach the application as error codes.
    EXPECT_NE(r.err.find("= CUDA_ERROR_INVALID_PTX"), std::string::npos);
    EXPECT_NE(r.err.find("= CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"), std::string::npos);
}
