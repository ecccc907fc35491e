// Reproducer (found by fuzz_cuda_api, issue 14): cuMemHostRegister accepts memory that is not mapped or is
// read-only, and a later memset of the "registered" range crashes the process with SIGSEGV (cpu_memory.cpp,
// the memset task). NVIDIA's driver refuses such registrations. Not built by CMake; build it against the
// fuzz preset's libraries, e.g. from build-fuzz:
//   clang++-19 -DFMT_SHARED -I../src -std=gnu++20 -fsanitize=address,undefined \
//     ../tests/fuzz/crashes-found/host_register_unmapped.cpp lib/libd4r_runtime.a lib/libd4r_ptxsim.a \
//     lib/libd4r_ptx.a lib/libd4r_config.a lib/libd4r_kernelset.a lib/libd4r_core.a -lfmt -lzstd -llz4 -lz
// Expected: the three registrations refused (CUDA_ERROR_INVALID_VALUE); today they return 0 and the
// memset crashes.
#include <sys/mman.h>
#include <cstdio>
#include "runtime/backend.h"
using namespace d4r::abi;
int main() {
    auto b = d4r::runtime::make_cpu_backend();
    const auto& T = (*b)->table();
    T.cuInit(0);
    CUcontext c; T.cuCtxCreate_v2(&c, 0, 0);
    auto* p = static_cast<uint8_t*>(mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(p + 4096, 4096, PROT_NONE);
    mprotect(p + 8192, 4096, PROT_READ);
    std::printf("register none: %d\n", T.cuMemHostRegister_v2(p + 4096, 4096, 0));
    std::printf("register ro: %d\n", T.cuMemHostRegister_v2(p + 8192, 4096, 0));
    std::printf("register 0x10: %d\n", T.cuMemHostRegister_v2((void*)0x10, 4096, 0));
    std::fflush(stdout);
    std::printf("memset ro: %d\n", T.cuMemsetD8_v2((CUdeviceptr)(p + 8192), 1, 16));
    std::fflush(stdout);
    std::printf("sync: %d\n", T.cuCtxSynchronize());
    std::fflush(stdout);
    std::printf("memset none: %d\n", T.cuMemsetD8_v2((CUdeviceptr)(p + 4096), 1, 16));
    std::printf("sync: %d\n", T.cuCtxSynchronize());
    return 0;
}
