/* A stand-in libcuda.so.1 for doctor's probe tests: just enough of the driver API to report one
 * device. Built twice: normally, and with D4R_FAKE_CUDA_CRASH, whose cuInit crashes the process (a
 * broken driver must not take `d4r doctor` down). */
#include <stdlib.h>
#include <string.h>

int cuInit(unsigned int flags) {
    (void)flags;
#ifdef D4R_FAKE_CUDA_CRASH
    abort();
#endif
    return 0;
}
int cuDriverGetVersion(int* version) {
    *version = 13000;
    return 0;
}
int cuDeviceGetCount(int* count) {
    *count = 1;
    return 0;
}
int cuDeviceGet(int* device, int ordinal) {
    *device = ordinal;
    return ordinal == 0 ? 0 : 101;
}
int cuDeviceGetName(char* name, int length, int device) {
    (void)device;
    strncpy(name, "d4r fake GPU", (size_t)length);
    return 0;
}
