/* A stand-in for a CUDA driver library with entry points d4r's API list does not have, for the driver
 * backend's forwarding tests (forwarding_probe.c): cuInit, its own cuGetProcAddress(_v2), and two functions
 * that count their calls: cuCheckpointProcessGetState (a real driver entry point d4r does not implement) and
 * cuFutureEntryPoint (a name no CUDA release has; the fake serves it from version 14000 on). */
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static int g_reset_calls;
static int g_future_calls;

FAKE_EXPORT int cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
FAKE_EXPORT int cuDriverGetVersion(int* version) {
    if (!version) return 1;
    *version = 13000;
    return 0;
}
FAKE_EXPORT int cuCheckpointProcessGetState(void) {
    ++g_reset_calls;
    return 0;
}
FAKE_EXPORT int cuFutureEntryPoint(int x) {
    ++g_future_calls;
    return x == 7 ? 0 : 1;
}
/* How often each was called: resets * 100 + future calls. */
FAKE_EXPORT int fake_driver_calls(void) { return g_reset_calls * 100 + g_future_calls; }

/* status: 0 found, 1 not found, 2 version not sufficient (CUdriverProcAddressQueryResult). */
FAKE_EXPORT int cuGetProcAddress_v2(const char* symbol, void** pfn, int version, unsigned long long flags,
                                    int* status) {
    (void)flags;
    if (!symbol || !pfn) return 1;
    *pfn = 0;
    int found = 1;
    if (strcmp(symbol, "cuFutureEntryPoint") == 0) {
        if (version >= 14000)
            *pfn = (void*)&cuFutureEntryPoint;
        else
            found = 2;
    } else if (strcmp(symbol, "cuCheckpointProcessGetState") == 0) {
        *pfn = (void*)&cuCheckpointProcessGetState;
    } else if (strcmp(symbol, "cuInit") == 0) {
        *pfn = (void*)&cuInit;
    }
    if (*pfn) found = 0;
    if (status) {
        *status = found;
        return 0;
    }
    return found == 0 ? 0 : 500; /* CUDA_ERROR_NOT_FOUND */
}
FAKE_EXPORT int cuGetProcAddress(const char* symbol, void** pfn, int version, unsigned long long flags) {
    return cuGetProcAddress_v2(symbol, pfn, version, flags, 0);
}
