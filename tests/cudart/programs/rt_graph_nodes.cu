// Runtime API conformance: conditional graph nodes (if, if/else, while, switch; the condition set from device
// code with cudaGraphSetConditional, a default value assigned at each launch) and graph memory nodes in an
// explicitly built graph (cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode, their parameters read back).
// Every result is a value the kernels computed, printed the same on every backend.
#include <cstdio>
#include <cstring>

#include "rt_check.h"

__global__ void set_if_positive(cudaGraphConditionalHandle h, const int* value) {
    cudaGraphSetConditional(h, *value > 0 ? 1u : 0u);
}
__global__ void set_to(cudaGraphConditionalHandle h, const int* value) {
    cudaGraphSetConditional(h, static_cast<unsigned>(*value));
}
__global__ void add(int* counter, int amount) { atomicAdd(counter, amount); }
__global__ void zero(int* p) { *p = 0; }
// A loop body: counts down, adds the count to a sum, and keeps the loop going while the count is positive.
__global__ void count_down(cudaGraphConditionalHandle h, int* count, int* sum) {
    *sum += *count;
    *count -= 1;
    cudaGraphSetConditional(h, *count > 0 ? 1u : 0u);
}
__global__ void fill(int* p, int n, int base) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i * i;
}
__global__ void sum_into(const int* p, int n, int* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, p[i]);
}

namespace {

// A conditional node of TYPE with SIZE bodies after DEP (may be null); the bodies it owns in BODIES.
cudaGraphNode_t add_conditional(cudaGraph_t g, cudaGraphNode_t dep, cudaGraphConditionalHandle h,
                                cudaGraphConditionalNodeType type, unsigned size, cudaGraph_t* bodies) {
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, g, dep ? &dep : nullptr, nullptr, dep ? 1 : 0, &p));
    for (unsigned i = 0; i < size; ++i) bodies[i] = p.conditional.phGraph_out[i];
    return node;
}

cudaGraphNode_t add_kernel(cudaGraph_t g, cudaGraphNode_t dep, void* func, void** args) {
    cudaKernelNodeParams k{};
    k.func = func;
    k.gridDim = dim3(1);
    k.blockDim = dim3(1);
    k.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddKernelNode(&node, g, dep ? &dep : nullptr, dep ? 1 : 0, &k));
    return node;
}

int read_int(const int* d) {
    int v = 0;
    CHECK(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

void set_int(int* d, int v) { CHECK(cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice)); }

// if (value > 0) counter += 1; else counter += 100 (the else body only with SIZE 2).
void if_node(unsigned size) {
    int *value, *counter;
    CHECK(cudaMalloc(&value, sizeof(int)));
    CHECK(cudaMalloc(&counter, sizeof(int)));
    zero<<<1, 1>>>(counter); // a launch outside any graph (the profile and dump layers see only these)
    CHECK(cudaGetLastError());
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    void* set_args[] = {&h, &value};
    cudaGraphNode_t set = add_kernel(g, nullptr, reinterpret_cast<void*>(set_if_positive), set_args);
    cudaGraph_t bodies[2];
    add_conditional(g, set, h, cudaGraphCondTypeIf, size, bodies);
    int one = 1, hundred = 100;
    void* then_args[] = {&counter, &one};
    add_kernel(bodies[0], nullptr, reinterpret_cast<void*>(add), then_args);
    if (size == 2) {
        void* else_args[] = {&counter, &hundred};
        add_kernel(bodies[1], nullptr, reinterpret_cast<void*>(add), else_args);
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    const int inputs[] = {5, -3, 0, 7};
    for (int v : inputs) {
        set_int(value, v);
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        std::printf("if (size %u): value %d -> counter %d\n", size, v, read_int(counter));
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(value));
    CHECK(cudaFree(counter));
}

// while (count > 0) { sum += count; count -= 1; } with the condition's default 1 assigned at every launch.
void while_node() {
    int *count, *sum;
    CHECK(cudaMalloc(&count, sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof(int)));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraph_t body;
    add_conditional(g, nullptr, h, cudaGraphCondTypeWhile, 1, &body);
    void* args[] = {&h, &count, &sum};
    add_kernel(body, nullptr, reinterpret_cast<void*>(count_down), args);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    const int starts[] = {10, 1, 4};
    for (int n : starts) {
        set_int(count, n);
        set_int(sum, 0);
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        std::printf("while: from %d -> count %d, sum %d\n", n, read_int(count), read_int(sum));
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(count));
    CHECK(cudaFree(sum));
}

// switch (value) { case 0: += 1; case 1: += 10; case 2: += 100; default: nothing }.
void switch_node() {
    int *value, *counter;
    CHECK(cudaMalloc(&value, sizeof(int)));
    CHECK(cudaMalloc(&counter, sizeof(int)));
    set_int(counter, 0);
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    void* set_args[] = {&h, &value};
    cudaGraphNode_t set = add_kernel(g, nullptr, reinterpret_cast<void*>(set_to), set_args);
    cudaGraph_t bodies[3];
    add_conditional(g, set, h, cudaGraphCondTypeSwitch, 3, bodies);
    int amounts[] = {1, 10, 100};
    void* args[3][2];
    for (int i = 0; i < 3; ++i) {
        args[i][0] = &counter;
        args[i][1] = &amounts[i];
        add_kernel(bodies[i], nullptr, reinterpret_cast<void*>(add), args[i]);
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    const int inputs[] = {2, 0, 1, 7, 2};
    for (int v : inputs) {
        set_int(value, v);
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        std::printf("switch: value %d -> counter %d\n", v, read_int(counter));
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(value));
    CHECK(cudaFree(counter));
}

// alloc -> fill -> sum -> free in an explicit graph, launched three times.
void memory_nodes() {
    const int n = 1000;
    int* total;
    CHECK(cudaMalloc(&total, sizeof(int)));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams a{};
    a.poolProps.allocType = cudaMemAllocationTypePinned;
    a.poolProps.location.type = cudaMemLocationTypeDevice;
    a.poolProps.location.id = 0;
    a.bytesize = n * sizeof(int);
    cudaGraphNode_t alloc;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a));
    EXPECT(a.dptr != nullptr, "the allocation node's address");
    int* buffer = static_cast<int*>(a.dptr);
    int count = n, base = 3;
    void* fill_args[] = {&buffer, &count, &base};
    cudaKernelNodeParams k{};
    k.func = reinterpret_cast<void*>(fill);
    k.gridDim = dim3((n + 127) / 128);
    k.blockDim = dim3(128);
    k.kernelParams = fill_args;
    cudaGraphNode_t filled;
    CHECK(cudaGraphAddKernelNode(&filled, g, &alloc, 1, &k));
    void* sum_args[] = {&buffer, &count, &total};
    k.func = reinterpret_cast<void*>(sum_into);
    k.kernelParams = sum_args;
    cudaGraphNode_t summed;
    CHECK(cudaGraphAddKernelNode(&summed, g, &filled, 1, &k));
    cudaGraphNode_t freed;
    CHECK(cudaGraphAddMemFreeNode(&freed, g, &summed, 1, buffer));
    cudaMemAllocNodeParams back{};
    CHECK(cudaGraphMemAllocNodeGetParams(alloc, &back));
    void* free_ptr = nullptr;
    CHECK(cudaGraphMemFreeNodeGetParams(freed, &free_ptr));
    std::printf("memory nodes: alloc params %zu bytes, same address %d, free node address matches %d\n", back.bytesize,
                back.dptr == a.dptr, free_ptr == a.dptr);
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(alloc, &type));
    std::printf("memory nodes: types %d", static_cast<int>(type));
    CHECK(cudaGraphNodeGetType(freed, &type));
    std::printf(" %d\n", static_cast<int>(type));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    for (int launch = 0; launch < 3; ++launch) {
        set_int(total, launch);
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        std::printf("memory nodes: launch %d -> total %d\n", launch, read_int(total));
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaFree(total));
}

} // namespace

int main() {
    if_node(1);
    if_node(2);
    while_node();
    switch_node();
    memory_nodes();
    CHECK(cudaDeviceSynchronize());
    return finish("rt_graph_nodes");
}
