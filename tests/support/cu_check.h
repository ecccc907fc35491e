/* The checks of the C test programs built against NVIDIA's cuda.h (tests/companions, tests/interop): FAIL prints
 * "PROGRAM: FAIL <what>" and exits 1, which their runners look for; CHECK_CU fails with the call and the error's
 * name unless it returns CUDA_SUCCESS. Define PROGRAM (a string) before including. */
#ifndef D4R_TESTS_SUPPORT_CU_CHECK_H
#define D4R_TESTS_SUPPORT_CU_CHECK_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(...)                     \
    do {                              \
        printf("%s: FAIL ", PROGRAM); \
        printf(__VA_ARGS__);          \
        printf("\n");                 \
        exit(1);                      \
    } while (0)
#define CHECK_CU(call)                            \
    do {                                          \
        CUresult r_ = (call);                     \
        if (r_ != CUDA_SUCCESS) {                 \
            const char* s_ = NULL;                \
            cuGetErrorName(r_, &s_);              \
            FAIL("%s: %s", #call, s_ ? s_ : "?"); \
        }                                         \
    } while (0)

#endif
