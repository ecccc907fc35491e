/* Function pointers an application hands to the driver: host functions and stream callbacks (run in
 * stream order), graph host nodes (and their parameters read back), and the block-size callback of
 * cuOccupancyMaxPotentialBlockSize. Built for Linux against libd4rcuda and for Windows against
 * nvcuda.dll (the Wine bridge), the two runs must print the same. Usage: host_callbacks KERNELS.ptx */
#include <string.h>

#include "program_util.h"

#ifdef _WIN32
#include <windows.h>
#define CALLBACK_THREAD_OK() (GetCurrentThreadId() != 0)
#else
#define CALLBACK_THREAD_OK() 1
#endif

static char g_log[256];

static void note(const char* what) {
    EXPECT(CALLBACK_THREAD_OK());
    strncat(g_log, what, sizeof g_log - strlen(g_log) - 1);
}

static void host_a(void* data) { note((const char*)data); }
static void stream_cb(CUstream stream, CUresult status, void* data) {
    EXPECT(status == CUDA_SUCCESS);
    note((const char*)data);
}
static size_t smem_for(int block) { return (size_t)block * 4; }

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: host_callbacks KERNELS.ptx\n");
        return 2;
    }
    char* ptx = read_text_file(argv[1]);
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    CUfunction add;
    CHECK(cuModuleGetFunction(&add, module, "vector_add"));

    /* Host functions and callbacks in stream order, around a memset. */
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUdeviceptr buf;
    CHECK(cuMemAlloc(&buf, 1024));
    CHECK(cuLaunchHostFunc(stream, host_a, "[h1]"));
    CHECK(cuMemsetD32Async(buf, 7, 256, stream));
    CHECK(cuStreamAddCallback(stream, stream_cb, "[s2]", 0));
    CHECK(cuLaunchHostFunc(stream, host_a, "[h3]"));
    CHECK(cuStreamSynchronize(stream));
    printf("stream: %s\n", g_log);
    g_log[0] = 0;

    /* A graph with a host node; its parameters read back are the application's. */
    CUgraph graph;
    CHECK(cuGraphCreate(&graph, 0));
    CUDA_HOST_NODE_PARAMS hp;
    memset(&hp, 0, sizeof hp);
    hp.fn = host_a;
    hp.userData = "[g]";
    CUgraphNode node;
    CHECK(cuGraphAddHostNode(&node, graph, NULL, 0, &hp));
    CUDA_HOST_NODE_PARAMS back;
    memset(&back, 0, sizeof back);
    CHECK(cuGraphHostNodeGetParams(node, &back));
    EXPECT(back.fn == host_a);
    EXPECT(back.userData == hp.userData);
    CUgraphExec exec;
    CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    printf("graph: %s\n", g_log);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));

    /* The occupancy calculator calls back for the dynamic shared memory of each block size. */
    int min_grid = 0, block = 0;
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, add, smem_for, 0, 0));
    EXPECT(min_grid > 0 && block > 0);
    printf("occupancy: block %d\n", block);

    /* A stream callback's failure is reported, not run as a crash: a NULL callback is refused. */
    EXPECT_RESULT(cuLaunchHostFunc(stream, NULL, NULL), CUDA_ERROR_INVALID_VALUE);

    CHECK(cuMemFree(buf));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(ptx);
    printf("host_callbacks: ok\n");
    return 0;
}
