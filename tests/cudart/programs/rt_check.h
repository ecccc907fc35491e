// Shared helpers of the runtime API conformance programs: checks that stop with the failing line, a
// digest of output bytes (FNV-1a 64) and error names, printed the same on every backend.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

static int g_failures = 0;

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            std::printf("FAIL %s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #call, static_cast<int>(e_), \
                        cudaGetErrorName(e_));                                                         \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)

#define EXPECT(cond, ...)                                    \
    do {                                                     \
        if (!(cond)) {                                       \
            std::printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            std::printf(__VA_ARGS__);                        \
            std::printf("\n");                               \
            ++g_failures;                                    \
        }                                                    \
    } while (0)

static inline uint64_t fnv1a(const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static inline void print_digest(const char* what, const void* data, size_t bytes) {
    std::printf("%s: %zu bytes fnv1a %016llx\n", what, bytes, static_cast<unsigned long long>(fnv1a(data, bytes)));
}

static inline void print_error(const char* what, cudaError_t e) {
    std::printf("%s: %d %s\n", what, static_cast<int>(e), cudaGetErrorName(e));
}

static inline int finish(const char* name) {
    if (g_failures) {
        std::printf("%s: %d failure(s)\n", name, g_failures);
        return 1;
    }
    std::printf("%s: ok\n", name);
    return 0;
}
