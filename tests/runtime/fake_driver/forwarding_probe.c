/* Checks that libd4rcuda hands out every entry point of its backend's library, as a program sees it: through
 * cuGetProcAddress and through dlsym of the exported name. Loads libcuda.so.1 (libd4rcuda, from
 * LD_LIBRARY_PATH) with dlopen. forwarding_probe driver FAKE_LIB: libd4rcuda runs over fake_libcuda.c
 * (D4R_CUDA_BACKEND=driver:FAKE_LIB), whose extra entry points must reach the application; forwarding_probe cpu:
 * on the cpu backend they must be refused (CUDA_ERROR_NOT_SUPPORTED, or not found). Prints one line per check;
 * exit 0 when every check held. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*init_fn)(unsigned);
typedef int (*proc_fn)(const char*, void**, int, unsigned long long, int*);
typedef int (*void_fn)(void);
typedef int (*int_fn)(int);

static int g_failures;
static void check(int ok, const char* what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) ++g_failures;
}

int main(int argc, char** argv) {
    int driver = argc == 3 && strcmp(argv[1], "driver") == 0;
    if (!driver && !(argc == 2 && strcmp(argv[1], "cpu") == 0)) {
        fprintf(stderr, "usage: forwarding_probe driver FAKE_LIB | forwarding_probe cpu\n");
        return 2;
    }
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        fprintf(stderr, "forwarding_probe: %s\n", dlerror());
        return 2;
    }
    init_fn init = (init_fn)dlsym(cuda, "cuInit");
    proc_fn proc = (proc_fn)dlsym(cuda, "cuGetProcAddress_v2");
    check(init && proc && init(0) == 0, "cuInit through libd4rcuda");
    if (!init || !proc) return 1;

    void* pfn = 0;
    int status = -1;
    int r = proc("cuFutureEntryPoint", &pfn, 14000, 0, &status);
    if (driver) {
        check(r == 0 && status == 0 && pfn, "cuGetProcAddress hands out a name d4r does not know");
        check(pfn && ((int_fn)pfn)(7) == 0, "and it is the library's function");
        r = proc("cuFutureEntryPoint", &pfn, 12000, 0, &status);
        check(r == 0 && status != 0 && !pfn, "at a version the library does not serve it, not found");
    } else {
        check(r == 0 && status == 1 && !pfn, "the cpu backend has no such entry point");
    }

    void_fn reset = (void_fn)dlsym(cuda, "cuCheckpointProcessGetState");
    check(reset != 0, "libd4rcuda exports cuCheckpointProcessGetState");
    if (reset) {
        r = reset();
        if (driver)
            check(r == 0, "dlsym's cuCheckpointProcessGetState reaches the library");
        else
            check(r == 801, "on the cpu backend it answers CUDA_ERROR_NOT_SUPPORTED");
    }

    if (driver) {
        /* What d4r intercepts stays d4r's: cuGetProcAddress through cuGetProcAddress is d4r's own (entries d4r
         * only forwards may be the library's function itself: the driver backend adds no call when no layer is on). */
        void* fake = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
        check(fake != 0, "the fake library is the one libd4rcuda loaded");
        if (fake) {
            r = proc("cuGetProcAddress", &pfn, 12000, 0, &status);
            check(r == 0 && pfn && pfn != dlsym(fake, "cuGetProcAddress_v2") && pfn != dlsym(fake, "cuGetProcAddress"),
                  "cuGetProcAddress through cuGetProcAddress is d4r's");
            void_fn calls = (void_fn)dlsym(fake, "fake_driver_calls");
            check(calls && calls() == 101, "the library counted one call of each");
        }
    }
    printf("%s\n", g_failures ? "forwarding_probe: FAILED" : "forwarding_probe: ok");
    return g_failures ? 1 : 0;
}
