/* The checks of the companion test programs (nvrtc_twin.c, nvjitlink_twin.c): cu_check.h's FAIL and CHECK_CU, and
 * CHECK_RTC for NVRTC's calls; each failure prints "PROGRAM: FAIL <what>" and exits 1, which run-twin-program.sh
 * looks for. Define PROGRAM (a string) first. */
#ifndef D4R_TESTS_COMPANIONS_TWIN_CHECK_H
#define D4R_TESTS_COMPANIONS_TWIN_CHECK_H

#include <nvrtc.h>

#include "cu_check.h"

#define CHECK_RTC(call)                                                          \
    do {                                                                         \
        nvrtcResult r_ = (call);                                                 \
        if (r_ != NVRTC_SUCCESS) FAIL("%s: %s", #call, nvrtcGetErrorString(r_)); \
    } while (0)

#endif
