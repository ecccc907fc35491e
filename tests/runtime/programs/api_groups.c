/* The driver API groups an application touches besides launches: device queries, contexts (primary and
 * ordinary, the per-thread stack), memory (pitch, 2D and 3D copies, memsets, host-pinned, address
 * ranges, pointer attributes), streams and events, cuGetProcAddress, error strings, and the error codes
 * for bad input. Usage: api_groups. Prints "api_groups: ok" and exits 0 on success. */
#include <string.h>

#include "program_util.h"

static void devices(void) {
    int count = 0;
    CHECK(cuDeviceGetCount(&count));
    EXPECT(count >= 1);
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    EXPECT_RESULT(cuDeviceGet(&dev, count), CUDA_ERROR_INVALID_DEVICE);
    char name[256] = {0};
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    EXPECT(strlen(name) > 0);
    int warp = 0, threads = 0, major = 0, sms = 0;
    CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    CHECK(cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    EXPECT(warp == 32 && threads == 1024 && major >= 7 && sms >= 1);
    size_t total = 0;
    CHECK(cuDeviceTotalMem(&total, dev));
    EXPECT(total > (64u << 20));
    CUuuid uuid;
    CHECK(cuDeviceGetUuid(&uuid, dev));
}

static void contexts(void) {
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext a, b, cur, popped;
    CHECK(cuCtxCreate(&a, NULL, 0, dev));
    CHECK(cuCtxGetCurrent(&cur));
    EXPECT(cur == a);
    CHECK(cuCtxCreate(&b, NULL, 0, dev));
    CHECK(cuCtxGetCurrent(&cur));
    EXPECT(cur == b);
    CHECK(cuCtxPopCurrent(&popped));
    EXPECT(popped == b);
    CHECK(cuCtxGetCurrent(&cur));
    EXPECT(cur == a);
    CHECK(cuCtxPushCurrent(b));
    CUdevice d2 = -1;
    CHECK(cuCtxGetDevice(&d2));
    EXPECT(d2 == dev);
    CHECK(cuCtxDestroy(b));
    CHECK(cuCtxDestroy(a));
    CUcontext primary;
    CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    unsigned int flags = 99;
    int active = 0;
    CHECK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    EXPECT(active == 1);
    CHECK(cuCtxSetCurrent(primary));
}

static void memory(void) {
    /* A pitched 2D region: write rows from the host with a 2D copy, copy a window device to device,
     * read it back. */
    enum { W = 37, H = 11 };
    unsigned char host[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) host[y][x] = (unsigned char)(y * 31 + x * 7 + 1);
    CUdeviceptr img;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&img, &pitch, W, H, 4));
    EXPECT(pitch >= W);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = W;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = img;
    c.dstPitch = pitch;
    c.WidthInBytes = W;
    c.Height = H;
    CHECK(cuMemcpy2D(&c));
    /* Window (x 5..24, y 3..9) into a tight buffer. */
    CUdeviceptr win;
    CHECK(cuMemAlloc(&win, 20 * 7));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = img;
    c.srcPitch = pitch;
    c.srcXInBytes = 5;
    c.srcY = 3;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = win;
    c.dstPitch = 20;
    c.WidthInBytes = 20;
    c.Height = 7;
    CHECK(cuMemcpy2D(&c));
    unsigned char back[7][20];
    CHECK(cuMemcpyDtoH(back, win, sizeof back));
    for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 20; ++x) EXPECT(back[y][x] == host[y + 3][x + 5]);
    dump_output("window", back, sizeof back);

    /* Memsets of every width, and the address range of an interior pointer. */
    CUdeviceptr buf;
    CHECK(cuMemAlloc(&buf, 64));
    CHECK(cuMemsetD8(buf, 0xab, 64));
    CHECK(cuMemsetD16(buf + 8, 0x1234, 4));
    CHECK(cuMemsetD32(buf + 32, 0xdeadbeefu, 2));
    unsigned char m[64];
    CHECK(cuMemcpyDtoH(m, buf, 64));
    EXPECT(m[0] == 0xab && m[7] == 0xab && m[8] == 0x34 && m[9] == 0x12 && m[15] == 0x12 && m[16] == 0xab);
    EXPECT(m[32] == 0xef && m[35] == 0xde && m[39] == 0xde && m[40] == 0xab);
    CUdeviceptr base = 0;
    size_t size = 0;
    CHECK(cuMemGetAddressRange(&base, &size, buf + 17));
    EXPECT(base == buf && size == 64);
    CUmemorytype type = 0;
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, buf));
    EXPECT(type == CU_MEMORYTYPE_DEVICE);

    /* Host-pinned memory, copied to and from asynchronously on a stream. */
    float* pinned = NULL;
    CHECK(cuMemAllocHost((void**)&pinned, 256 * sizeof(float)));
    for (int i = 0; i < 256; ++i) pinned[i] = (float)i * 0.75f;
    CUstream s;
    CHECK(cuStreamCreate(&s, 0));
    CUdeviceptr f;
    CHECK(cuMemAlloc(&f, 256 * sizeof(float)));
    CHECK(cuMemcpyHtoDAsync(f, pinned, 256 * sizeof(float), s));
    CHECK(cuMemsetD32Async(f, 0x3f800000u, 16, s)); /* 1.0f over the first 16 */
    float out[256];
    CHECK(cuMemcpyDtoHAsync(out, f, sizeof out, s));
    CHECK(cuStreamSynchronize(s));
    for (int i = 0; i < 256; ++i) EXPECT(out[i] == (i < 16 ? 1.0f : (float)i * 0.75f));
    EXPECT(cuStreamQuery(s) == CUDA_SUCCESS);
    CHECK(cuStreamDestroy(s));
    CHECK(cuMemFreeHost(pinned));

    /* Bad input gives error codes, not crashes. */
    EXPECT_RESULT(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(buf));
    EXPECT_RESULT(cuMemFree(buf), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(win));
    CHECK(cuMemFree(img));
    CHECK(cuMemFree(f));
}

static void events(void) {
    CUstream s1, s2;
    CHECK(cuStreamCreateWithPriority(&s1, CU_STREAM_NON_BLOCKING, 0));
    CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    int least = 1, greatest = 1;
    CHECK(cuCtxGetStreamPriorityRange(&least, &greatest));
    EXPECT(least >= greatest);
    /* s2 waits for s1's copy through an event, then copies the result on. */
    enum { N = 4096 };
    static unsigned int src[N], dst[N];
    for (int i = 0; i < N; ++i) src[i] = (unsigned int)i * 2654435761u;
    CUdeviceptr a, b;
    CHECK(cuMemAlloc(&a, sizeof src));
    CHECK(cuMemAlloc(&b, sizeof src));
    CUevent done, t0, t1, untimed;
    CHECK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&t0, 0));
    CHECK(cuEventCreate(&t1, CU_EVENT_BLOCKING_SYNC));
    CHECK(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventRecord(t0, s1));
    CHECK(cuMemcpyHtoDAsync(a, src, sizeof src, s1));
    CHECK(cuEventRecord(done, s1));
    CHECK(cuStreamWaitEvent(s2, done, 0));
    CHECK(cuMemcpyDtoDAsync(b, a, sizeof src, s2));
    CHECK(cuMemcpyDtoHAsync(dst, b, sizeof dst, s2));
    CHECK(cuEventRecord(t1, s2));
    CHECK(cuEventSynchronize(t1));
    EXPECT(cuEventQuery(t1) == CUDA_SUCCESS);
    for (int i = 0; i < N; ++i) EXPECT(dst[i] == src[i]);
    float ms = -1;
    CHECK(cuEventElapsedTime(&ms, t0, t1));
    EXPECT(ms >= 0.0f);
    CHECK(cuEventRecord(untimed, s1));
    CHECK(cuEventSynchronize(untimed));
    EXPECT_RESULT(cuEventElapsedTime(&ms, t0, untimed), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuEventDestroy(done));
    CHECK(cuEventDestroy(t0));
    CHECK(cuEventDestroy(t1));
    CHECK(cuEventDestroy(untimed));
    CHECK(cuStreamDestroy(s1));
    CHECK(cuStreamDestroy(s2));
    CHECK(cuMemFree(a));
    CHECK(cuMemFree(b));
}

static void entry_points(void) {
    /* cuGetProcAddress gives working entry points for the base names. */
    void* fn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CHECK(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    EXPECT(fn != NULL && status == CU_GET_PROC_ADDRESS_SUCCESS);
    CUresult (*alloc)(CUdeviceptr*, size_t) = (CUresult(*)(CUdeviceptr*, size_t))fn;
    CUdeviceptr p = 0;
    CHECK(alloc(&p, 128));
    CHECK(cuMemFree(p));
    /* An unknown symbol: success, with the answer in the status (as NVIDIA's driver 580 does). */
    fn = (void*)&status;
    CHECK(cuGetProcAddress("cuNoSuchFunction", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    EXPECT(fn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

    const char* text = NULL;
    CHECK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &text));
    EXPECT(strcmp(text, "CUDA_ERROR_INVALID_VALUE") == 0);
    CHECK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &text));
    EXPECT(text != NULL && strlen(text) > 0);
}

int main(void) {
    /* Before cuInit every call but the error texts fails with NOT_INITIALIZED. */
    int count = 0;
    EXPECT_RESULT(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    CHECK(cuInit(0));
    devices();
    contexts();
    memory();
    events();
    entry_points();
    printf("api_groups: ok\n");
    return 0;
}
