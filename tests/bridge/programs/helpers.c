/* d4r's own exports of the bridge (bridge/d4r_helpers.h), called from a Windows program under Wine on the cpu
 * backend. Windows only: Linux has no nvcuda.dll. Every check exits non-zero when it fails.
 *   helpers LOG_PATH      the helpers with libd4rcuda (LOG_PATH: a file libd4rcuda may write its log to)
 *   helpers --no-runtime  the helpers when the bridge cannot load libd4rcuda */
#include <stdint.h>
#include <string.h>
#include <windows.h>

#include "bridge/d4r_helpers.h"
#include "program_util.h"

#define DEV(p) ((void*)(uintptr_t)(p))

/* libd4rcuda's own d4rFuncIsNative (abi/d4r_extensions.h, a C++ header), which the bridge exports and forwards
 * (tests/bridge/programs/func_is_native.cpp checks its answers against libd4rcuda's). */
typedef CUresult (*FuncIsNative)(int* native, CUfunction f);

static int without_runtime(void) {
    /* The environment helper works without libd4rcuda (it is how a shim would point the bridge at it). */
    CHECK(d4r_SetEnvironment("D4R_BRIDGE_TEST", "1"));
    EXPECT_RESULT(cuInit(0), CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);

    size_t length = 0;
    CHECK(d4r_GetLoadError(NULL, 0, &length));
    EXPECT(length > 20);
    char small[8];
    size_t again = 0;
    CHECK(d4r_GetLoadError(small, sizeof small, &again));
    EXPECT(again == length);
    EXPECT(strcmp(small, "cannot ") == 0); /* truncated to SIZE - 1 bytes and terminated */
    char* full = (char*)malloc(length + 1);
    CHECK(d4r_GetLoadError(full, length + 1, NULL));
    EXPECT(strlen(full) == length);
    EXPECT(strstr(full, "cannot load libd4rcuda.so") == full);
    free(full);

    EXPECT_RESULT(d4r_EventWait((CUevent)(uintptr_t)0x10, 0), CUDA_ERROR_NOT_INITIALIZED);
    char host[16];
    EXPECT_RESULT(d4r_Memcpy2DAsync(host, 16, host, 16, 4, 1, D4R_MEMCPY_HOST_TO_HOST, NULL),
                  CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_RESULT(d4r_StreamWaitValue32(NULL, 0x1000, 1, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_RESULT(d4r_StreamWriteValue32(NULL, 0x1000, 1, 0), CUDA_ERROR_NOT_INITIALIZED);

    /* The forwarded extension: its out-parameter cleared, then the missing library said. */
    FuncIsNative is_native = (FuncIsNative)(void*)GetProcAddress(GetModuleHandleA("nvcuda.dll"), "d4rFuncIsNative");
    EXPECT(is_native != NULL);
    int native = 7;
    EXPECT_RESULT(is_native(&native, (CUfunction)(uintptr_t)0x10), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(native == 0);
    EXPECT_RESULT(is_native(NULL, NULL), CUDA_ERROR_NOT_INITIALIZED);
    printf("helpers without libd4rcuda: ok\n");
    return 0;
}

/* d4r_SetEnvironment reaches libd4rcuda: its log goes to the file named through it. */
static void set_environment(const char* log_path) {
    EXPECT_RESULT(d4r_SetEnvironment(NULL, "1"), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(d4r_SetEnvironment("", "1"), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(d4r_SetEnvironment("D4R_A=B", "1"), CUDA_ERROR_INVALID_VALUE);
    CHECK(d4r_SetEnvironment("D4R_BRIDGE_TEST", "1"));
    CHECK(d4r_SetEnvironment("D4R_BRIDGE_TEST", NULL));
    remove(log_path);
    CHECK(d4r_SetEnvironment("D4R_LOG", "info"));
    CHECK(d4r_SetEnvironment("D4R_LOG_FILE", log_path));
    CHECK(cuInit(0));
    char* log = read_text_file(log_path);
    EXPECT(strstr(log, "libd4rcuda: backend cpu") != NULL);
    free(log);
    printf("d4r_SetEnvironment: libd4rcuda logged to the file named through it\n");
}

static void load_error(void) {
    char text[16];
    size_t length = 99;
    memset(text, 'x', sizeof text);
    CHECK(d4r_GetLoadError(text, sizeof text, &length));
    EXPECT(length == 0 && text[0] == 0);
    EXPECT_RESULT(d4r_GetLoadError(NULL, 4, &length), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(d4r_GetLoadError(NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    printf("d4r_GetLoadError: empty when libd4rcuda loaded\n");
}

/* Host -> device -> device -> host, each with its own pitch; bytes beyond the width stay untouched. */
static void memcpy_2d(CUstream stream) {
    enum { W = 13, H = 5, SP = 16, DP = 32, BP = 24 };
    unsigned char src[SP * H], back[BP * H], device_rows[DP * H];
    for (int i = 0; i < SP * H; ++i) src[i] = (unsigned char)(i * 7 + 3);
    memset(back, 0xab, sizeof back);
    CUdeviceptr a, b;
    CHECK(cuMemAlloc(&a, DP * H));
    CHECK(cuMemAlloc(&b, DP * H));
    CHECK(cuMemsetD8(a, 0xee, DP * H));
    CHECK(cuMemsetD8(b, 0xee, DP * H));
    CHECK(d4r_Memcpy2DAsync(DEV(a), DP, src, SP, W, H, D4R_MEMCPY_HOST_TO_DEVICE, stream));
    CHECK(d4r_Memcpy2DAsync(DEV(b), DP, DEV(a), DP, W, H, D4R_MEMCPY_DEVICE_TO_DEVICE, stream));
    CHECK(d4r_Memcpy2DAsync(back, BP, DEV(b), DP, W, H, D4R_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(device_rows, b, sizeof device_rows));
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < BP; ++x) EXPECT(back[y * BP + x] == (x < W ? src[y * SP + x] : 0xab));
        for (int x = 0; x < DP; ++x) EXPECT(device_rows[y * DP + x] == (x < W ? src[y * SP + x] : 0xee));
    }
    EXPECT_RESULT(d4r_Memcpy2DAsync(back, BP, DEV(b), DP, BP + 1, H, D4R_MEMCPY_DEVICE_TO_HOST, stream),
                  CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(d4r_Memcpy2DAsync(back, BP, DEV(b), DP, W, H, (d4r_memcpy_kind)7, stream), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(a));
    CHECK(cuMemFree(b));
    printf("d4r_Memcpy2DAsync: %dx%d bytes through pitches %d, %d, %d\n", W, H, SP, DP, BP);
}

static void write_value(CUstream stream) {
    CUdeviceptr words;
    uint32_t got[4] = {1, 1, 1, 1};
    CHECK(cuMemAlloc(&words, sizeof got));
    CHECK(cuMemsetD32(words, 0, 4));
    CHECK(d4r_StreamWriteValue32(stream, words + 4, 0xc0ffee11u, 0));
    CHECK(cuMemcpyDtoHAsync(got, words, sizeof got, stream));
    CHECK(cuStreamSynchronize(stream));
    EXPECT(got[0] == 0 && got[1] == 0xc0ffee11u && got[2] == 0 && got[3] == 0);
    EXPECT_RESULT(d4r_StreamWriteValue32(stream, words + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(d4r_StreamWaitValue32(stream, words + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(words));
    printf("d4r_StreamWriteValue32: wrote 0xc0ffee11 in stream order\n");
}

/* A stream waits on a value the host writes into mapped memory; the event after it completes only then,
 * and d4r_EventWait times out before and returns after. */
static void wait_value_and_event(CUstream stream) {
    uint32_t* flag = NULL;
    CHECK(cuMemHostAlloc((void**)&flag, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    __atomic_store_n(flag, 0u, __ATOMIC_SEQ_CST);
    CUdeviceptr device_flag;
    CHECK(cuMemHostGetDevicePointer(&device_flag, flag, 0));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    CHECK(cuMemsetD32(out, 0, 1));
    CUevent done;
    CHECK(cuEventCreate(&done, CU_EVENT_DEFAULT));

    CHECK(d4r_StreamWaitValue32(stream, device_flag, 5, CU_STREAM_WAIT_VALUE_GEQ));
    CHECK(cuMemsetD32Async(out, 42, 1, stream));
    CHECK(cuEventRecord(done, stream));
    EXPECT_RESULT(d4r_EventWait(done, 30), CUDA_ERROR_NOT_READY);
    __atomic_store_n(flag, 3u, __ATOMIC_SEQ_CST); /* not yet: 3 < 5 */
    EXPECT_RESULT(d4r_EventWait(done, 30), CUDA_ERROR_NOT_READY);
    EXPECT_RESULT(cuEventQuery(done), CUDA_ERROR_NOT_READY);
    __atomic_store_n(flag, 5u, __ATOMIC_SEQ_CST);
    CHECK(d4r_EventWait(done, D4R_WAIT_FOREVER));
    uint32_t value = 0;
    CHECK(cuMemcpyDtoH(&value, out, 4));
    EXPECT(value == 42);
    EXPECT_RESULT(d4r_EventWait(NULL, 0), CUDA_ERROR_INVALID_HANDLE);
    CHECK(d4r_EventWait(done, 0)); /* a completed event needs no time */

    CHECK(cuEventDestroy(done));
    CHECK(cuMemFree(out));
    CHECK(cuMemFreeHost(flag));
    printf("d4r_StreamWaitValue32 + d4r_EventWait: the stream waited for the host's value\n");
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "--no-runtime") == 0) return without_runtime();
    if (argc != 2) {
        fprintf(stderr, "usage: helpers LOG_PATH | helpers --no-runtime\n");
        return 2;
    }
    set_environment(argv[1]);
    load_error();
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    memcpy_2d(stream);
    write_value(stream);
    wait_value_and_event(stream);
    CHECK(cuStreamDestroy(stream));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("helpers: ok\n");
    return 0;
}
