/* The checks of the companion test programs (nvrtc_twin.c, nvjitlink_twin.c): each failure prints
 * "TWIN_NAME: FAIL <what>" and exits 1, which run-twin-program.sh looks for. Define TWIN_NAME (a string) first. */
#ifndef D4R_TESTS_COMPANIONS_TWIN_CHECK_H
#define D4R_TESTS_COMPANIONS_TWIN_CHECK_H

#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(...)                       \
    do {                                \
        printf("%s: FAIL ", TWIN_NAME); \
        printf(__VA_ARGS__);            \
        printf("\n");                   \
        exit(1);                        \
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
#define CHECK_RTC(call)                                                          \
    do {                                                                         \
        nvrtcResult r_ = (call);                                                 \
        if (r_ != NVRTC_SUCCESS) FAIL("%s: %s", #call, nvrtcGetErrorString(r_)); \
    } while (0)

#endif
