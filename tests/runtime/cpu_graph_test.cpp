// cpu backend: graphs, stream capture and memory pools through the backend's table.
#include <mutex>
#include <vector>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuGraphTest = CpuBackendTest;

struct Log {
    std::mutex mutex;
    std::vector<int> order;
};
struct Tag {
    Log* log;
    int id;
    const uint32_t* watch = nullptr; // host copy checked when the node runs
    std::vector<uint32_t> seen;
};
void record(void* user) {
    auto* t = static_cast<Tag*>(user);
    std::lock_guard lock(t->log->mutex);
    t->log->order.push_back(t->id);
    if (t->watch) t->seen.push_back(t->watch[0]);
}

// The parameters of a memory allocation node of BYTES bytes in device memory (pinned, as cudart asks).
CUDA_MEM_ALLOC_NODE_PARAMS device_alloc_params(size_t bytes) {
    CUDA_MEM_ALLOC_NODE_PARAMS a{};
    a.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    a.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.bytesize = bytes;
    return a;
}

// A captured kernel -> copy -> host function, replayed three times: each replay adds one on the device,
// copies back, and the host node sees the copied value.
TEST_F(CpuGraphTest, CapturedSequenceReplays) {
    CUmodule m = load_test_module();
    CUfunction add_one = function(m, "add_one");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4 * 64), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(d, 10, 64), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    std::vector<uint32_t> host(64, 0);
    Log log;
    Tag tag{&log, 1, host.data(), {}};

    ASSERT_EQ(api().cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    EXPECT_EQ(api().cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    uint32_t n = 64;
    void* params[] = {&d, &n};
    ASSERT_EQ(api().cuLaunchKernel(add_one, 1, 1, 1, 64, 1, 1, 0, s, params, nullptr), CUDA_SUCCESS);
    n = 0; // the node keeps its own copy of the arguments
    ASSERT_EQ(api().cuMemcpyDtoHAsync_v2(host.data(), d, 4 * 64, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchHostFunc(s, record, &tag), CUDA_SUCCESS);
    const CUgraphNode* deps = nullptr;
    size_t ndeps = 0;
    cuuint64_t id = 0;
    CUgraph during = nullptr;
    EXPECT_EQ(api().cuStreamGetCaptureInfo_v2(s, &status, &id, &during, &deps, &ndeps), CUDA_SUCCESS);
    EXPECT_NE(id, 0u);
    EXPECT_EQ(ndeps, 1u);
    CUgraph graph = nullptr;
    ASSERT_EQ(api().cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(host[0], 0u); // nothing ran during capture
    EXPECT_EQ(api().cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);

    size_t count = 0;
    ASSERT_EQ(api().cuGraphGetNodes(graph, nullptr, &count), CUDA_SUCCESS);
    ASSERT_EQ(count, 3u);
    std::vector<CUgraphNode> nodes(3);
    ASSERT_EQ(api().cuGraphGetNodes(graph, nodes.data(), &count), CUDA_SUCCESS);
    CUgraphNodeType types[3];
    for (int i = 0; i < 3; ++i) ASSERT_EQ(api().cuGraphNodeGetType(nodes[i], &types[i]), CUDA_SUCCESS);
    EXPECT_EQ(types[0], CU_GRAPH_NODE_TYPE_KERNEL);
    EXPECT_EQ(types[1], CU_GRAPH_NODE_TYPE_MEMCPY);
    EXPECT_EQ(types[2], CU_GRAPH_NODE_TYPE_HOST);
    CUDA_KERNEL_NODE_PARAMS kp{};
    ASSERT_EQ(api().cuGraphKernelNodeGetParams_v2(nodes[0], &kp), CUDA_SUCCESS);
    EXPECT_EQ(kp.blockDimX, 64u);
    EXPECT_EQ(*static_cast<uint32_t*>(kp.kernelParams[1]), 64u);
    ASSERT_EQ(api().cuGraphGetEdges(graph, nullptr, nullptr, &count), CUDA_SUCCESS);
    EXPECT_EQ(count, 2u);

    CUgraphExec exec = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(api().cuGraphLaunch(exec, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(tag.seen, (std::vector<uint32_t>{11, 12, 13}));
    EXPECT_EQ(host[63], 13u);

    // A changed kernel argument in the executable graph only.
    uint32_t half = 32;
    void* params2[] = {&d, &half};
    kp.kernelParams = params2;
    ASSERT_EQ(api().cuGraphExecKernelNodeSetParams_v2(exec, nodes[0], &kp), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphLaunch(exec, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(host[0], 14u);
    EXPECT_EQ(host[63], 13u);

    EXPECT_EQ(api().cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphExecDestroy(exec), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphDestroy(graph), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphNodeGetType(nodes[0], &types[0]), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// An explicit diamond a -> (b, c) -> d, added in an order that is not topological: d runs last, a first.
TEST_F(CpuGraphTest, DiamondRunsInDependencyOrder) {
    Log log;
    Tag ta{&log, 0, nullptr, {}}, tb{&log, 1, nullptr, {}}, tc{&log, 2, nullptr, {}}, td{&log, 3, nullptr, {}};
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUgraphNode d = nullptr, b = nullptr, c = nullptr, a = nullptr;
    CUDA_HOST_NODE_PARAMS p{record, &td};
    ASSERT_EQ(api().cuGraphAddHostNode(&d, g, nullptr, 0, &p), CUDA_SUCCESS);
    p.userData = &tb;
    ASSERT_EQ(api().cuGraphAddHostNode(&b, g, nullptr, 0, &p), CUDA_SUCCESS);
    p.userData = &tc;
    ASSERT_EQ(api().cuGraphAddHostNode(&c, g, nullptr, 0, &p), CUDA_SUCCESS);
    p.userData = &ta;
    ASSERT_EQ(api().cuGraphAddHostNode(&a, g, nullptr, 0, &p), CUDA_SUCCESS);
    CUgraphNode from[] = {a, a, b, c};
    CUgraphNode to[] = {b, c, d, d};
    ASSERT_EQ(api().cuGraphAddDependencies(g, from, to, 4), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphAddDependencies(g, from, to, 1), CUDA_ERROR_INVALID_VALUE); // duplicate edge
    size_t roots = 0;
    ASSERT_EQ(api().cuGraphGetRootNodes(g, nullptr, &roots), CUDA_SUCCESS);
    EXPECT_EQ(roots, 1u);
    size_t ndeps = 0;
    ASSERT_EQ(api().cuGraphNodeGetDependencies(d, nullptr, &ndeps), CUDA_SUCCESS);
    EXPECT_EQ(ndeps, 2u);

    CUgraphExec exec = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&exec, g, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphLaunch(exec, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(log.order.size(), 4u);
    EXPECT_EQ(log.order.front(), 0);
    EXPECT_EQ(log.order.back(), 3);

    // A clone is independent; a cycle cannot be instantiated.
    CUgraph clone = nullptr;
    ASSERT_EQ(api().cuGraphClone(&clone, g), CUDA_SUCCESS);
    CUgraphNode a2 = nullptr, d2 = nullptr;
    ASSERT_EQ(api().cuGraphNodeFindInClone(&a2, a, clone), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphNodeFindInClone(&d2, d, clone), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphAddDependencies(clone, &d2, &a2, 1), CUDA_SUCCESS);
    CUgraphExec bad = reinterpret_cast<CUgraphExec>(1);
    EXPECT_EQ(api().cuGraphInstantiateWithFlags(&bad, clone, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(bad, nullptr);
    CUDA_GRAPH_INSTANTIATE_PARAMS ip{};
    EXPECT_EQ(api().cuGraphInstantiateWithParams(&bad, clone, &ip), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(ip.result_out, CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);

    // Update: same topology with other host data is accepted, a different topology refused.
    CUgraphExecUpdateResultInfo info{};
    EXPECT_EQ(api().cuGraphExecUpdate_v2(exec, clone, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    EXPECT_EQ(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    CUgraph same = nullptr;
    ASSERT_EQ(api().cuGraphClone(&same, g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphExecUpdate_v2(exec, same, &info), CUDA_SUCCESS);
    EXPECT_EQ(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);

    EXPECT_EQ(api().cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(clone), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(same), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CpuGraphTest, BadInputIsRefused) {
    CUgraph g = reinterpret_cast<CUgraph>(1);
    EXPECT_EQ(api().cuGraphCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphCreate(&g, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(g, nullptr);
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUgraphNode n = reinterpret_cast<CUgraphNode>(1);
    EXPECT_EQ(api().cuGraphAddHostNode(&n, g, nullptr, 0, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(n, nullptr);
    CUgraphNode bogus = reinterpret_cast<CUgraphNode>(0x1234);
    EXPECT_EQ(api().cuGraphAddEmptyNode(&n, g, &bogus, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphAddEmptyNode(&n, reinterpret_cast<CUgraph>(0x99), nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    CUDA_KERNEL_NODE_PARAMS kp{};
    EXPECT_EQ(api().cuGraphAddKernelNode_v2(&n, g, nullptr, 0, &kp), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMSET_NODE_PARAMS mp{};
    mp.elementSize = 3;
    EXPECT_EQ(api().cuGraphAddMemsetNode(&n, g, nullptr, 0, &mp, m_ctx), CUDA_ERROR_INVALID_VALUE);
    CUgraphExec e = nullptr;
    EXPECT_EQ(api().cuGraphInstantiateWithFlags(&e, g, 1ull << 40), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphExecKernelNodeSetParams_v2(reinterpret_cast<CUgraphExec>(0x77), bogus, &kp),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamEndCapture(nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
    CUgraph out = nullptr;
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamEndCapture(s, &out), CUDA_ERROR_ILLEGAL_STATE);
    EXPECT_EQ(api().cuStreamBeginCapture_v2(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL),
              CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT_EQ(api().cuStreamBeginCapture_v2(s, static_cast<CUstreamCaptureMode>(7)), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphDebugDotPrint(g, "/dev/null", 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// Conditional and memory nodes: what is malformed is refused with NVIDIA's codes, what the backend lacks with
// CUDA_ERROR_NOT_SUPPORTED (the working cases: tests/cudart/programs/rt_graph_nodes.cu against the H200).
TEST_F(CpuGraphTest, ConditionalAndMemoryNodesRefuseWhatTheyCannotDo) {
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUgraphConditionalHandle h = 7;
    EXPECT_EQ(api().cuGraphConditionalHandleCreate(&h, g, m_ctx, 0, 2), CUDA_ERROR_INVALID_VALUE); // bad flags
    EXPECT_EQ(h, 0u);
    EXPECT_EQ(api().cuGraphConditionalHandleCreate(&h, reinterpret_cast<CUgraph>(0x99), m_ctx, 0, 0),
              CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuGraphConditionalHandleCreate(&h, g, m_ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT), CUDA_SUCCESS);
    EXPECT_NE(h, 0u);

    CUgraphNode n = nullptr;
    CUgraphNodeParams p{};
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = h + 1; // no such handle
    p.conditional.type = CU_GRAPH_COND_TYPE_IF;
    p.conditional.size = 1;
    EXPECT_EQ(api().cuGraphAddNode(&n, g, nullptr, 0, &p), CUDA_ERROR_INVALID_VALUE);
    p.conditional.handle = h;
    p.conditional.size = 3; // IF has one body, or two with an else
    EXPECT_EQ(api().cuGraphAddNode(&n, g, nullptr, 0, &p), CUDA_ERROR_INVALID_VALUE);
    p.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
    p.conditional.size = 1;
    ASSERT_EQ(api().cuGraphAddNode(&n, g, nullptr, 0, &p), CUDA_SUCCESS);
    ASSERT_NE(p.conditional.phGraph_out, nullptr);
    CUgraph body = p.conditional.phGraph_out[0];
    CUgraphNode inner = nullptr;
    EXPECT_EQ(api().cuGraphAddEmptyNode(&inner, body, nullptr, 0), CUDA_SUCCESS); // the body takes nodes
    CUgraphNodeType type{};
    EXPECT_EQ(api().cuGraphNodeGetType(n, &type), CUDA_SUCCESS);
    EXPECT_EQ(type, CU_GRAPH_NODE_TYPE_CONDITIONAL);

    CUgraphNodeParams other{};
    other.type = static_cast<CUgraphNodeType>(8); // external semaphore signal
    EXPECT_EQ(api().cuGraphAddNode(&n, g, nullptr, 0, &other), CUDA_ERROR_NOT_SUPPORTED);
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphAddMemFreeNode(&n, g, nullptr, 0, d), CUDA_ERROR_NOT_SUPPORTED); // not the graph's
    CUDA_MEM_ALLOC_NODE_PARAMS a = device_alloc_params(0);
    EXPECT_EQ(api().cuGraphAddMemAllocNode(&n, g, nullptr, 0, &a), CUDA_ERROR_INVALID_VALUE); // 0 bytes
    a.bytesize = 256;
    ASSERT_EQ(api().cuGraphAddMemAllocNode(&n, g, nullptr, 0, &a), CUDA_SUCCESS);
    EXPECT_NE(a.dptr, 0u);
    CUgraphNode freed = nullptr;
    EXPECT_EQ(api().cuGraphAddMemFreeNode(&freed, g, &n, 1, a.dptr), CUDA_SUCCESS);

    // A graph with a conditional node cannot be updated in place (yet).
    CUgraphExec e = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
    CUgraphExecUpdateResultInfo info{};
    EXPECT_EQ(api().cuGraphExecUpdate_v2(e, g, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    EXPECT_EQ(api().cuGraphExecDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphAddEmptyNode(&inner, body, nullptr, 0), CUDA_ERROR_INVALID_VALUE); // gone with it
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

// cuStreamBeginCaptureToGraph: the captured work is appended to the application's graph after the nodes
// named, cuStreamEndCapture hands the same graph back (or takes a null out-parameter), and the graph runs it.
TEST_F(CpuGraphTest, CaptureIntoAnExistingGraph) {
    CUmodule m = load_test_module();
    CUfunction add_one = function(m, "add_one");
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 4 * 64), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms{};
    ms.dst = d;
    ms.value = 5;
    ms.elementSize = 4;
    ms.width = 64;
    ms.height = 1;
    CUgraphNode set = nullptr;
    CUcontext ctx = nullptr;
    ASSERT_EQ(api().cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphAddMemsetNode(&set, g, nullptr, 0, &ms, ctx), CUDA_SUCCESS);

    EXPECT_EQ(api().cuStreamEndCapture(s, nullptr), CUDA_ERROR_INVALID_VALUE); // not capturing
    CUgraph other = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&other, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamBeginCaptureToGraph(s, other, &set, nullptr, 1, CU_STREAM_CAPTURE_MODE_GLOBAL),
              CUDA_ERROR_INVALID_VALUE); // SET is not a node of OTHER
    ASSERT_EQ(api().cuStreamBeginCaptureToGraph(s, g, &set, nullptr, 1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    uint32_t n = 64;
    void* params[] = {&d, &n};
    ASSERT_EQ(api().cuLaunchKernel(add_one, 1, 1, 1, 64, 1, 1, 0, s, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuLaunchKernel(add_one, 1, 1, 1, 64, 1, 1, 0, s, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamEndCapture(s, nullptr), CUDA_SUCCESS);
    size_t count = 0;
    ASSERT_EQ(api().cuGraphGetNodes(g, nullptr, &count), CUDA_SUCCESS);
    EXPECT_EQ(count, 3u);
    std::vector<CUgraphNode> nodes(count);
    ASSERT_EQ(api().cuGraphGetNodes(g, nodes.data(), &count), CUDA_SUCCESS);
    size_t deps = 0;
    ASSERT_EQ(api().cuGraphNodeGetDependencies(nodes[1], nullptr, &deps), CUDA_SUCCESS);
    ASSERT_EQ(deps, 1u);
    CUgraphNode first_dep = nullptr;
    ASSERT_EQ(api().cuGraphNodeGetDependencies(nodes[1], &first_dep, &deps), CUDA_SUCCESS);
    EXPECT_EQ(first_dep, set); // the first captured launch follows the memset

    CUgraphExec e = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphLaunch(e, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    std::vector<uint32_t> host(64, 0);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(host.data(), d, 4 * 64), CUDA_SUCCESS);
    for (uint32_t v : host) ASSERT_EQ(v, 7u);
    EXPECT_EQ(api().cuGraphExecDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(other), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

// Graph memory accounting: the bytes of the live allocations made for MEM_ALLOC nodes (allocated when the node
// is made: reserved equals used), a high watermark that only a reset to 0 lowers, and an allocation freed by
// the application no longer counted.
TEST_F(CpuGraphTest, GraphMemoryAttributesCountLiveGraphAllocations) {
    auto get = [](CUgraphMem_attribute attr) {
        cuuint64_t v = ~0ull;
        EXPECT_EQ(api().cuDeviceGetGraphMemAttribute(0, attr, &v), CUDA_SUCCESS);
        return v;
    };
    cuuint64_t zero = 0;
    ASSERT_EQ(api().cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero), CUDA_SUCCESS);
    const cuuint64_t before = get(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT);
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUDA_MEM_ALLOC_NODE_PARAMS a = device_alloc_params(1 << 20);
    CUgraphNode n = nullptr;
    ASSERT_EQ(api().cuGraphAddMemAllocNode(&n, g, nullptr, 0, &a), CUDA_SUCCESS);
    EXPECT_EQ(get(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), before + (1 << 20));
    EXPECT_EQ(get(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), before + (1 << 20));
    EXPECT_EQ(get(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), before + (1 << 20));
    // Freed by the application (it was never the graph's: no free node): no longer counted; the high stays.
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_SUCCESS);
    EXPECT_EQ(get(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), before);
    EXPECT_EQ(get(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH), before + (1 << 20));
    ASSERT_EQ(api().cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &zero), CUDA_SUCCESS);
    EXPECT_EQ(get(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), before);
    cuuint64_t one = 1;
    EXPECT_EQ(api().cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &one), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &zero),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    // Persisting L2 lines are a hint ptxsim has no cache for: a positive maximum (attribute 108) and window
    // (109), and a reset that succeeds.
    int persisting = 0, window = 0;
    EXPECT_EQ(api().cuDeviceGetAttribute(&persisting, static_cast<CUdevice_attribute>(108), 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDeviceGetAttribute(&window, static_cast<CUdevice_attribute>(109), 0), CUDA_SUCCESS);
    EXPECT_GT(persisting, 0);
    EXPECT_GT(window, 0);
    EXPECT_EQ(api().cuCtxResetPersistingL2Cache(), CUDA_SUCCESS);
}

// A graph allocation the application frees outside the graph (cuMemFree, cuMemFreeAsync, another graph's free
// node) is allocated again, at the same address, by the graph's next launch (NVIDIA's graphMemoryNodes sample
// does each); launching again before it is freed and freeing it twice are errors; when the graph goes, memory that is
// free is returned and memory the application holds stays valid until it frees it.
TEST_F(CpuGraphTest, GraphAllocationsFreedOutsideAreAllocatedAgainByTheNextLaunch) {
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUDA_MEM_ALLOC_NODE_PARAMS a = device_alloc_params(64 * 4);
    CUgraphNode alloc = nullptr, set = nullptr;
    ASSERT_EQ(api().cuGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a), CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS ms{};
    ms.dst = a.dptr;
    ms.value = 7;
    ms.elementSize = 4;
    ms.width = 64;
    ms.height = 1;
    CUcontext ctx = nullptr;
    ASSERT_EQ(api().cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphAddMemsetNode(&set, g, &alloc, 1, &ms, ctx), CUDA_SUCCESS);
    CUgraphExec e = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
    // A graph that frees the first graph's allocation.
    CUgraph freeing = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&freeing, 0), CUDA_SUCCESS);
    CUgraphNode free_node = nullptr;
    ASSERT_EQ(api().cuGraphAddMemFreeNode(&free_node, freeing, nullptr, 0, a.dptr), CUDA_SUCCESS);
    CUgraphExec free_exec = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&free_exec, freeing, 0), CUDA_SUCCESS);

    auto launch_and_check = [&](uint32_t value) {
        ms.value = value;
        ASSERT_EQ(api().cuGraphExecMemsetNodeSetParams(e, set, &ms, ctx), CUDA_SUCCESS);
        ASSERT_EQ(api().cuGraphLaunch(e, s), CUDA_SUCCESS);
        std::vector<uint32_t> host(64, 0);
        ASSERT_EQ(api().cuMemcpyDtoHAsync_v2(host.data(), a.dptr, 64 * 4, s), CUDA_SUCCESS);
        ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
        EXPECT_EQ(host, std::vector<uint32_t>(64, value));
    };
    launch_and_check(7);
    // Launching again while the previous launch's allocation is not freed: refused, as NVIDIA's driver does.
    EXPECT_EQ(api().cuGraphLaunch(e, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_ERROR_INVALID_VALUE); // twice
    launch_and_check(8);
    EXPECT_EQ(api().cuMemFreeAsync(a.dptr, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFreeAsync(a.dptr, s), CUDA_ERROR_INVALID_VALUE);
    launch_and_check(9);
    ASSERT_EQ(api().cuGraphLaunch(free_exec, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_ERROR_INVALID_VALUE); // the other graph freed it
    launch_and_check(10);

    // The graph and its copies go while the application holds the allocation: it stays valid until freed.
    EXPECT_EQ(api().cuGraphExecDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    uint32_t first = 0;
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&first, a.dptr, 4), CUDA_SUCCESS);
    EXPECT_EQ(first, 10u);
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_SUCCESS);
    CUdeviceptr base = 0;
    size_t size = 0;
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, a.dptr), CUDA_ERROR_NOT_FOUND); // returned
    EXPECT_EQ(api().cuGraphExecDestroy(free_exec), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(freeing), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// An executable graph instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH frees its previous
// launch's allocations when it is launched again.
TEST_F(CpuGraphTest, AutoFreeOnLaunchFreesThePreviousLaunchsAllocations) {
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUDA_MEM_ALLOC_NODE_PARAMS a = device_alloc_params(4096);
    CUgraphNode alloc = nullptr;
    ASSERT_EQ(api().cuGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a), CUDA_SUCCESS);
    CUgraphExec e = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH), CUDA_SUCCESS);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(api().cuGraphLaunch(e, s), CUDA_SUCCESS) << i;
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD32_v2(a.dptr, 1, 1024), CUDA_SUCCESS); // the last launch's allocation is valid
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphExecDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// A graph destroyed while its allocation is free returns the memory.
TEST_F(CpuGraphTest, AFreeGraphAllocationIsReturnedWithItsGraph) {
    CUgraph g = nullptr;
    ASSERT_EQ(api().cuGraphCreate(&g, 0), CUDA_SUCCESS);
    CUDA_MEM_ALLOC_NODE_PARAMS a = device_alloc_params(4096);
    CUgraphNode alloc = nullptr;
    ASSERT_EQ(api().cuGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(a.dptr), CUDA_SUCCESS); // kept mapped for the next launch
    CUdeviceptr base = 0;
    size_t size = 0;
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, a.dptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS); // returned after the work queued so far
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, a.dptr), CUDA_ERROR_NOT_FOUND);
}

// Synchronising a capturing stream, a synchronous copy in global mode and legacy-stream work all
// invalidate the capture; the stream then ends capture with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
TEST_F(CpuGraphTest, CaptureInvalidation) {
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    CUgraph g = nullptr;
    uint32_t host[16] = {};

    ASSERT_EQ(api().cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    EXPECT_EQ(api().cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    EXPECT_EQ(api().cuMemsetD32Async(d, 1, 16, s), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT_EQ(api().cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT_EQ(g, nullptr);

    ASSERT_EQ(api().cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(host, d, 64), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT_EQ(api().cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    // Relaxed mode allows the synchronous copy; the legacy stream still may not depend on the capture.
    ASSERT_EQ(api().cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    ASSERT_EQ(api().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
    EXPECT_EQ(mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
    CUdeviceptr extra = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&extra, 16), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD32Async(d, 1, 16, nullptr), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    EXPECT_EQ(api().cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    ASSERT_EQ(api().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
    EXPECT_EQ(mode, CU_STREAM_CAPTURE_MODE_RELAXED);

    // After all that the stream works normally.
    ASSERT_EQ(api().cuMemsetD32Async(d, 7, 16, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoHAsync_v2(host, d, 64, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(host[15], 7u);
    EXPECT_EQ(api().cuMemFree_v2(extra), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// Fork and join through events: a second stream joins the capture, works in parallel, joins back.
TEST_F(CpuGraphTest, CrossStreamCaptureThroughEvents) {
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 8), CUDA_SUCCESS);
    CUstream s1 = nullptr, s2 = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUevent fork = nullptr, join = nullptr;
    ASSERT_EQ(api().cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventCreate(&join, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    CUgraph g = nullptr;

    ASSERT_EQ(api().cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32Async(d, 0, 2, s1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(fork, s1), CUDA_SUCCESS);
    EXPECT_EQ(api().cuEventQuery(fork), CUDA_ERROR_CAPTURED_EVENT);
    ASSERT_EQ(api().cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    EXPECT_EQ(api().cuStreamIsCapturing(s2, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    ASSERT_EQ(api().cuMemsetD32Async(d, 5, 1, s1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32Async(d + 4, 6, 1, s2), CUDA_SUCCESS);
    // Ending before s2 joins back is refused.
    CUstream unjoined_probe = s1;
    (void)unjoined_probe;
    ASSERT_EQ(api().cuEventRecord(join, s2), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamWaitEvent(s1, join, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamEndCapture(s1, &g), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamIsCapturing(s2, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);

    size_t count = 0;
    ASSERT_EQ(api().cuGraphGetNodes(g, nullptr, &count), CUDA_SUCCESS);
    EXPECT_EQ(count, 3u);
    ASSERT_EQ(api().cuGraphGetEdges(g, nullptr, nullptr, &count), CUDA_SUCCESS);
    EXPECT_EQ(count, 2u); // memset -> each of the two branches
    CUgraphExec e = nullptr;
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphLaunch(e, s1), CUDA_SUCCESS);
    uint32_t host[2] = {};
    ASSERT_EQ(api().cuMemcpyDtoHAsync_v2(host, d, 8, s1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s1), CUDA_SUCCESS);
    EXPECT_EQ(host[0], 5u);
    EXPECT_EQ(host[1], 6u);

    // A fork that never joins back.
    ASSERT_EQ(api().cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(fork, s1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32Async(d, 1, 1, s2), CUDA_SUCCESS);
    CUgraph g2 = nullptr;
    EXPECT_EQ(api().cuStreamEndCapture(s1, &g2), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    EXPECT_EQ(g2, nullptr);

    EXPECT_EQ(api().cuGraphExecDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphDestroy(g), CUDA_SUCCESS);
}

// Stream-ordered allocations inside a capture: memory the graph allocates and frees itself is the
// graph's (the same address every launch, returned when the graph and its executable graphs are gone);
// memory it allocates and does not free is the application's.
TEST_F(CpuGraphTest, GraphAllocationsBelongToTheGraph) {
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    CUdeviceptr scratch = 0, kept = 0;
    ASSERT_EQ(api().cuMemAllocAsync(&scratch, 4096, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAllocAsync(&kept, 256, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32Async(scratch, 5, 1024, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoDAsync_v2(kept, scratch, 256, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemFreeAsync(scratch, s), CUDA_SUCCESS);
    CUgraph graph = nullptr;
    ASSERT_EQ(api().cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
    CUgraphExec exec = nullptr;
    // Relaunched while KEPT from the previous launch is not freed: only with auto-free (else INVALID_VALUE).
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphLaunch(exec, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuGraphExecDestroy(exec), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphInstantiateWithFlags(&exec, graph, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
              CUDA_SUCCESS);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(api().cuGraphLaunch(exec, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    uint32_t back[64] = {};
    ASSERT_EQ(api().cuMemcpyDtoH_v2(back, kept, sizeof back), CUDA_SUCCESS);
    EXPECT_EQ(back[63], 5u);
    CUdeviceptr base = 0;
    size_t size = 0;
    // The graph's own memory lives while a copy of the graph does (here the executable graph).
    ASSERT_EQ(api().cuGraphDestroy(graph), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, scratch), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphLaunch(exec, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuGraphExecDestroy(exec), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, scratch), CUDA_ERROR_NOT_FOUND) << "returned with the graph";
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, kept), CUDA_SUCCESS) << "not freed by the graph";
    EXPECT_EQ(api().cuMemFreeAsync(kept, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, kept), CUDA_ERROR_NOT_FOUND);
    ASSERT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

TEST_F(CpuGraphTest, PoolsReuseFreedBlocks) {
    CUmemoryPool def = nullptr, cur = nullptr;
    ASSERT_EQ(api().cuDeviceGetDefaultMemPool(&def, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
    EXPECT_EQ(def, cur);
    EXPECT_EQ(api().cuDeviceGetMemPool(&cur, 3), CUDA_ERROR_INVALID_DEVICE);
    int supported = 0;
    ASSERT_EQ(api().cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0), CUDA_SUCCESS);
    EXPECT_EQ(supported, 1);

    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location = CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    CUmemoryPool pool = nullptr;
    ASSERT_EQ(api().cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    uint64_t threshold = ~0ull;
    ASSERT_EQ(api().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    CUdeviceptr a = 0, b = 0;
    ASSERT_EQ(api().cuMemAllocFromPoolAsync(&a, 1000, pool, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD8Async(a, 3, 1000, s), CUDA_SUCCESS);
    uint64_t used = 0;
    ASSERT_EQ(api().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used), CUDA_SUCCESS);
    EXPECT_GE(used, 1000u);
    ASSERT_EQ(api().cuMemFreeAsync(a, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFreeAsync(a, s), CUDA_ERROR_INVALID_VALUE); // freed twice
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAllocFromPoolAsync(&b, 1000, pool, s), CUDA_SUCCESS);
    EXPECT_EQ(b, a); // the freed block is reused
    ASSERT_EQ(api().cuMemFreeAsync(b, s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used), CUDA_SUCCESS);
    EXPECT_EQ(used, 0u);
    uint64_t reserved = 0;
    ASSERT_EQ(api().cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved), CUDA_SUCCESS);
    EXPECT_EQ(reserved, 0u);

    // Default pool through cuMemAllocAsync, freed with cuMemFree.
    CUdeviceptr c = 0;
    ASSERT_EQ(api().cuMemAllocAsync(&c, 256, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(c), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFreeAsync(c, s), CUDA_ERROR_INVALID_VALUE);

    CUmemAccessDesc desc{{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    EXPECT_EQ(api().cuMemPoolSetAccess(pool, &desc, 1), CUDA_SUCCESS);
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    CUmemLocation loc{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    EXPECT_EQ(api().cuMemPoolGetAccess(&flags, pool, &loc), CUDA_SUCCESS);
    EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    EXPECT_EQ(api().cuMemAllocAsync(&c, 0, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemPoolDestroy(pool), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

TEST_F(CpuGraphTest, PeersIpcStreamAttributesAndMemOps) {
    int can = 1;
    ASSERT_EQ(api().cuDeviceCanAccessPeer(&can, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(can, 0);
    EXPECT_EQ(api().cuCtxEnablePeerAccess(m_ctx, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    EXPECT_EQ(api().cuCtxDisablePeerAccess(m_ctx), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    CUdeviceptr a = 0, b = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&a, 16), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAlloc_v2(&b, 16), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD32_v2(a, 9, 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyPeer(b, m_ctx, a, m_ctx, 16), CUDA_SUCCESS);
    uint32_t host[4] = {};
    ASSERT_EQ(api().cuMemcpyDtoH_v2(host, b, 16), CUDA_SUCCESS);
    EXPECT_EQ(host[3], 9u);
    CUipcMemHandle handle;
    EXPECT_EQ(api().cuIpcGetMemHandle(&handle, a), CUDA_ERROR_NOT_SUPPORTED);

    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    CUstreamAttrValue v{};
    v.syncPolicy = CU_SYNC_POLICY_YIELD;
    ASSERT_EQ(api().cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_SUCCESS);
    v.accessPolicyWindow = CUaccessPolicyWindow{reinterpret_cast<void*>(a), 16, 0.5f, CU_ACCESS_PROPERTY_PERSISTING,
                                                CU_ACCESS_PROPERTY_STREAMING};
    ASSERT_EQ(api().cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v), CUDA_SUCCESS);
    CUstreamAttrValue out{};
    ASSERT_EQ(api().cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &out), CUDA_SUCCESS);
    EXPECT_EQ(out.syncPolicy, CU_SYNC_POLICY_YIELD);
    ASSERT_EQ(api().cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &out), CUDA_SUCCESS);
    EXPECT_EQ(out.accessPolicyWindow.num_bytes, 16u);
    EXPECT_EQ(api().cuStreamGetAttribute(s, static_cast<CUstreamAttrID>(77), &out), CUDA_ERROR_INVALID_VALUE);

    ASSERT_EQ(api().cuStreamWriteValue32_v2(s, a, 42, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamWaitValue32_v2(s, a, 42, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamWriteValue64_v2(s, b, 0x1122334455667788ull, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    uint64_t big = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&big, b, 8), CUDA_SUCCESS);
    EXPECT_EQ(big, 0x1122334455667788ull);
    EXPECT_EQ(api().cuStreamWriteValue32_v2(s, a + 2, 1, 0), CUDA_ERROR_INVALID_VALUE); // misaligned
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
