/* Shared by the runtime test programs: error checking and reading files. Plain C against <cuda.h>. */
#pragma once

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        CUresult check_r_ = (call);                                                                                    \
        if (check_r_ != CUDA_SUCCESS) {                                                                                \
            const char* check_name_ = NULL;                                                                            \
            cuGetErrorName(check_r_, &check_name_);                                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, check_name_ ? check_name_ : "?", \
                    (int)check_r_);                                                                                    \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

#define EXPECT(cond)                                                            \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define EXPECT_RESULT(call, expected)                                                                                  \
    do {                                                                                                               \
        CUresult expect_r_ = (call);                                                                                   \
        if (expect_r_ != (expected)) {                                                                                 \
            fprintf(stderr, "%s:%d: %s gave %d, expected %s\n", __FILE__, __LINE__, #call, (int)expect_r_, #expected); \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* BYTES of page-aligned (4096) memory, NULL on failure; freed with page_aligned_free. The programs build
 * for Windows too (mingw, tests/bridge), which has no posix_memalign. */
#ifdef _WIN32
#include <malloc.h>
static inline void* page_aligned_alloc(size_t bytes) { return _aligned_malloc(bytes, 4096); }
static inline void page_aligned_free(void* p) { _aligned_free(p); }
#else
static inline void* page_aligned_alloc(size_t bytes) {
    void* p = NULL;
    return posix_memalign(&p, 4096, bytes) == 0 ? p : NULL;
}
static inline void page_aligned_free(void* p) { free(p); }
#endif

/* The whole file as a NUL-terminated string (PTX text); exits on failure. */
static inline char* read_text_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = (char*)malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    text[size] = 0;
    fclose(f);
    return text;
}

/* With PROGRAM_OUT set, writes BYTES at DATA to $PROGRAM_OUT/NAME.bin, so that runs on two backends can
 * be compared byte for byte (tests/device/runtime.sh). */
static inline void dump_output(const char* name, const void* data, size_t bytes) {
    const char* dir = getenv("PROGRAM_OUT");
    if (!dir || !*dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}
