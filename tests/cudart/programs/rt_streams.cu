// Runtime API conformance: streams, events, host callbacks and functions, stream waits and queries.
// The order in which host work runs is recorded and printed; it must be the same on every backend.
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "rt_check.h"

__global__ void add_value(int* data, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += value;
}

__global__ void spin_then_set(volatile int* flag, int value) {
    // A little work so that callbacks queued behind it really wait for it.
    int acc = 0;
    for (int i = 0; i < 2000; ++i) acc += i & 7;
    if (threadIdx.x == 0) *flag = value + (acc & 0);
}

static std::mutex g_mutex;
static std::vector<std::string> g_order;

static void record(const std::string& what) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_order.push_back(what);
}

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* user) {
    record(std::string("callback ") + static_cast<const char*>(user) + " status " + std::to_string(status));
}

static void CUDART_CB host_function(void* user) { record(std::string("host ") + static_cast<const char*>(user)); }

int main() {
    const int n = 1000;
    int* data = nullptr;
    CHECK(cudaMalloc(&data, n * sizeof(int)));
    CHECK(cudaMemset(data, 0, n * sizeof(int)));

    cudaStream_t a, b;
    CHECK(cudaStreamCreate(&a));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t done_a, timing_start, timing_end;
    CHECK(cudaEventCreate(&done_a));
    CHECK(cudaEventCreate(&timing_start));
    CHECK(cudaEventCreate(&timing_end));

    // a: +1, +2, event; b waits for the event, then +10. Host work on both streams in stream order.
    CHECK(cudaEventRecord(timing_start, a));
    add_value<<<(n + 255) / 256, 256, 0, a>>>(data, n, 1);
    CHECK(cudaStreamAddCallback(a, stream_callback, const_cast<char*>("a1"), 0));
    add_value<<<(n + 255) / 256, 256, 0, a>>>(data, n, 2);
    CHECK(cudaLaunchHostFunc(a, host_function, const_cast<char*>("a2")));
    CHECK(cudaEventRecord(done_a, a));
    CHECK(cudaStreamWaitEvent(b, done_a, 0));
    add_value<<<(n + 255) / 256, 256, 0, b>>>(data, n, 10);
    CHECK(cudaLaunchHostFunc(b, host_function, const_cast<char*>("b1")));
    CHECK(cudaEventRecord(timing_end, b));
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaStreamSynchronize(a));

    std::vector<int> back(n);
    CHECK(cudaMemcpy(back.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(back[i] == 13, "data[%d] = %d", i, back[i]);
    print_digest("streams", back.data(), n * sizeof(int));
    for (const std::string& s : g_order) std::printf("order: %s\n", s.c_str());

    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, timing_start, timing_end));
    EXPECT(ms >= 0.0f, "elapsed time %f", ms);
    print_error("event_query", cudaEventQuery(timing_end));
    print_error("stream_query", cudaStreamQuery(a));

    // A flag written by a kernel, seen after synchronising on an event recorded behind it.
    int* flag = nullptr;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMemsetAsync(flag, 0, sizeof(int), b));
    spin_then_set<<<1, 32, 0, b>>>(flag, 42);
    CHECK(cudaEventRecord(done_a, b));
    CHECK(cudaEventSynchronize(done_a));
    int flag_value = 0;
    CHECK(cudaMemcpy(&flag_value, flag, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("flag: %d\n", flag_value);

    // Priorities and flags reported back.
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t prio;
    CHECK(cudaStreamCreateWithPriority(&prio, cudaStreamNonBlocking, greatest));
    int p = 1;
    unsigned flags = 0;
    CHECK(cudaStreamGetPriority(prio, &p));
    CHECK(cudaStreamGetFlags(prio, &flags));
    EXPECT(p == greatest && least >= greatest, "priority %d in [%d, %d]", p, greatest, least);
    std::printf("stream_flags: %u\n", flags);

    // Destroyed objects.
    CHECK(cudaStreamDestroy(prio));
    CHECK(cudaEventDestroy(timing_start));
    CHECK(cudaEventDestroy(timing_end));
    CHECK(cudaEventDestroy(done_a));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(flag));
    CHECK(cudaFree(data));
    return finish("rt_streams");
}
