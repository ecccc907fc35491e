// Runtime API conformance: CUDA graphs built by stream capture (with a fork and join through events)
// and explicitly, replayed several times and updated; stream-ordered allocation from the default pool
// and from a created one. Outputs depend only on CUDA semantics.
#include <cstdio>
#include <vector>

#include "rt_check.h"

__global__ void scale_add(float* data, float scale, float add, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * scale + add;
}

__global__ void add_arrays(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

static int g_host_calls = 0;
static void CUDART_CB count_call(void* user) { ++*static_cast<int*>(user); }

int main() {
    const int n = 1000;
    const size_t bytes = n * sizeof(float);
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = 0.5f * float(i % 50) - 3.0f;

    float *a = nullptr, *b = nullptr, *sum = nullptr;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&sum, bytes));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    // Capture: upload, then two branches on two streams, joined, then a sum and a host callback.
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(s1, &status));
    std::printf("capturing: %d\n", static_cast<int>(status));
    CHECK(cudaMemcpyAsync(a, host.data(), bytes, cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    scale_add<<<(n + 127) / 128, 128, 0, s1>>>(a, 2.0f, 1.0f, n);
    scale_add<<<(n + 127) / 128, 128, 0, s2>>>(b, -1.0f, 0.25f, n);
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    add_arrays<<<(n + 127) / 128, 128, 0, s1>>>(a, b, sum, n);
    CHECK(cudaLaunchHostFunc(s1, count_call, &g_host_calls));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(s1, &graph));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    std::printf("captured nodes: %zu\n", nodes);
    EXPECT(g_host_calls == 0, "the host function ran during capture");

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<float> out(n);
    for (int round = 0; round < 3; ++round) {
        CHECK(cudaGraphLaunch(exec, s1));
        CHECK(cudaStreamSynchronize(s1));
        CHECK(cudaMemcpy(out.data(), sum, bytes, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int i = 0; i < n; ++i) ok = ok && out[i] == (host[i] * 2.0f + 1.0f) + (-host[i] + 0.25f);
        EXPECT(ok, "round %d: wrong sums", round);
    }
    std::printf("host calls after 3 launches: %d\n", g_host_calls);
    print_digest("captured_sum", out.data(), bytes);

    // An explicit graph: memset -> kernel, then the kernel's parameters updated in the executable graph.
    cudaGraph_t g2;
    CHECK(cudaGraphCreate(&g2, 0));
    cudaMemsetParams ms{};
    ms.dst = a;
    ms.value = 0;
    ms.elementSize = 4;
    ms.width = n;
    ms.height = 1;
    cudaGraphNode_t memset_node, kernel_node;
    CHECK(cudaGraphAddMemsetNode(&memset_node, g2, nullptr, 0, &ms));
    float scale = 1.0f, add = 5.0f;
    int count = n;
    void* args[] = {&a, &scale, &add, &count};
    cudaKernelNodeParams kp{};
    kp.func = reinterpret_cast<void*>(scale_add);
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&kernel_node, g2, &memset_node, 1, &kp));
    cudaGraphExec_t exec2;
    CHECK(cudaGraphInstantiate(&exec2, g2, 0));
    CHECK(cudaGraphLaunch(exec2, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(out.data(), a, bytes, cudaMemcpyDeviceToHost));
    std::printf("explicit graph: %g %g\n", out[0], out[n - 1]);
    add = 7.0f;
    CHECK(cudaGraphExecKernelNodeSetParams(exec2, kernel_node, &kp));
    CHECK(cudaGraphLaunch(exec2, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(out.data(), a, bytes, cudaMemcpyDeviceToHost));
    std::printf("after the update: %g %g\n", out[0], out[n - 1]);

    // Stream-ordered allocation: the default pool and a created pool with a release threshold.
    float* pooled = nullptr;
    CHECK(cudaMallocAsync(&pooled, bytes, s1));
    CHECK(cudaMemcpyAsync(pooled, host.data(), bytes, cudaMemcpyHostToDevice, s1));
    scale_add<<<(n + 127) / 128, 128, 0, s1>>>(pooled, 3.0f, 0.0f, n);
    CHECK(cudaMemcpyAsync(out.data(), pooled, bytes, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaFreeAsync(pooled, s1));
    CHECK(cudaStreamSynchronize(s1));
    print_digest("default_pool", out.data(), bytes);
    cudaMemPool_t pool;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    unsigned long long threshold = 1 << 20, read_back = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read_back));
    std::printf("pool release threshold: %llu\n", read_back);
    float* from_pool = nullptr;
    CHECK(cudaMallocFromPoolAsync(&from_pool, bytes, pool, s2));
    CHECK(cudaMemsetAsync(from_pool, 0, bytes, s2));
    scale_add<<<(n + 127) / 128, 128, 0, s2>>>(from_pool, 1.0f, 2.5f, n);
    CHECK(cudaMemcpyAsync(out.data(), from_pool, bytes, cudaMemcpyDeviceToHost, s2));
    CHECK(cudaFreeAsync(from_pool, s2));
    CHECK(cudaStreamSynchronize(s2));
    std::printf("created pool: %g %g\n", out[0], out[n - 1]);
    CHECK(cudaMemPoolDestroy(pool));

    // A synchronous copy on a capturing stream invalidates the capture.
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaError_t sync_err = cudaStreamSynchronize(s1);
    std::printf("synchronize while capturing: %s\n", cudaGetErrorName(sync_err));
    cudaGraph_t broken = nullptr;
    cudaError_t end_err = cudaStreamEndCapture(s1, &broken);
    std::printf("end of the invalidated capture: %s\n", cudaGetErrorName(end_err));
    cudaGetLastError();

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphExecDestroy(exec2));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(sum));
    return finish("rt_graphs");
}
