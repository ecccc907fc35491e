// fuzz_cuda_api: graphs, their nodes, instantiation, stream capture.
#include "fuzz_api.h"

namespace fuzz_api {

namespace {

void add_node(CUgraphNode n) {
    if (n) P->node.add(n);
}

} // namespace

void op_graph(Input& in) {
    CUgraph g = pick(in, P->graph);
    CUgraphNode n = nullptr;
    Deps d = pick_deps(in);
    switch (in.u8() % 20) {
    case 0:
    case 1: {
        if (P->graph.live.size() >= 8) return;
        CUgraph ng = nullptr;
        if (T->cuGraphCreate(in.u8() % 16 ? &ng : nullptr, in.u8() % 8 ? 0 : in.u32()) == CUDA_SUCCESS) {
            CHECK(ng != nullptr);
            P->graph.add(ng);
        }
        return;
    }
    case 2:
        if (T->cuGraphDestroy(g) == CUDA_SUCCESS) P->graph.kill(g);
        return;
    case 3: {
        CUgraph c = nullptr;
        if (P->graph.live.size() < 8 && T->cuGraphClone(in.flip() ? &c : nullptr, g) == CUDA_SUCCESS && c) {
            P->graph.add(c);
            CUgraphNode found;
            (void)T->cuGraphNodeFindInClone(in.flip() ? &found : nullptr, pick(in, P->node), c);
        }
        return;
    }
    case 4: {
        if (P->node.live.size() >= 48) return;
        CUresult r = T->cuGraphAddEmptyNode(in.u8() % 16 ? &n : nullptr, g, d.ptr, d.count);
        if (r == CUDA_SUCCESS) add_node(n);
        return;
    }
    case 5: {
        if (P->node.live.size() >= 48) return;
        CUDA_KERNEL_NODE_PARAMS k;
        LaunchArgs a;
        fill_kernel_node(in, k, a);
        CUresult r;
        if (in.flip())
            r = T->cuGraphAddKernelNode_v2(&n, g, d.ptr, d.count, in.u8() % 16 ? &k : nullptr);
        else
            r = T->cuGraphAddKernelNode(&n, g, d.ptr, d.count, reinterpret_cast<CUDA_KERNEL_NODE_PARAMS_v1*>(&k));
        if (r == CUDA_SUCCESS) add_node(n);
        return;
    }
    case 6: {
        if (P->node.live.size() >= 48) return;
        CUDA_MEMSET_NODE_PARAMS m;
        fill_memset_node(in, m);
        if (T->cuGraphAddMemsetNode(&n, g, d.ptr, d.count, in.u8() % 16 ? &m : nullptr, pick_ctx(in)) == CUDA_SUCCESS)
            add_node(n);
        return;
    }
    case 7: {
        if (P->node.live.size() >= 48) return;
        CUDA_MEMCPY3D c;
        fill_copy3d(in, c);
        if (T->cuGraphAddMemcpyNode(&n, g, d.ptr, d.count, in.u8() % 16 ? &c : nullptr, pick_ctx(in)) == CUDA_SUCCESS)
            add_node(n);
        return;
    }
    case 8: {
        if (P->node.live.size() >= 48) return;
        CUDA_HOST_NODE_PARAMS h{pick_host_fn(in), nullptr};
        if (T->cuGraphAddHostNode(&n, g, d.ptr, d.count, in.u8() % 16 ? &h : nullptr) == CUDA_SUCCESS) add_node(n);
        return;
    }
    case 9: {
        if (P->node.live.size() >= 48) return;
        CUresult r = T->cuGraphAddChildGraphNode(&n, g, d.ptr, d.count, pick(in, P->graph)); // sometimes itself
        if (r == CUDA_SUCCESS) {
            add_node(n);
            CUgraph child;
            (void)T->cuGraphChildGraphNodeGetGraph(n, in.flip() ? &child : nullptr);
        }
        return;
    }
    case 10: {
        if (P->node.live.size() >= 48) return;
        CUevent e = pick(in, P->event);
        CUresult r = in.flip() ? T->cuGraphAddEventRecordNode(&n, g, d.ptr, d.count, e)
                               : T->cuGraphAddEventWaitNode(&n, g, d.ptr, d.count, e);
        if (r == CUDA_SUCCESS) add_node(n);
        CUevent out;
        (void)T->cuGraphEventRecordNodeGetEvent(pick(in, P->node), in.flip() ? &out : nullptr);
        (void)T->cuGraphEventWaitNodeGetEvent(pick(in, P->node), in.flip() ? &out : nullptr);
        return;
    }
    case 11: {
        // Queries with arrays of the size they say, or NULL to ask the count.
        CUgraphNode nodes[64], to[64];
        CUgraphEdgeData edges[64];
        size_t count = in.u8() % 4 ? in.below(65) : 0;
        size_t c2 = count;
        (void)T->cuGraphGetNodes(g, in.flip() ? nodes : nullptr, in.u8() % 16 ? &c2 : nullptr);
        c2 = count;
        (void)T->cuGraphGetRootNodes(g, in.flip() ? nodes : nullptr, in.u8() % 16 ? &c2 : nullptr);
        c2 = count;
        bool arrays = in.flip();
        if (in.flip())
            (void)T->cuGraphGetEdges(g, arrays ? nodes : nullptr, arrays ? to : nullptr, in.u8() % 16 ? &c2 : nullptr);
        else
            (void)T->cuGraphGetEdges_v2(g, arrays ? nodes : nullptr, arrays ? to : nullptr, in.flip() ? edges : nullptr,
                                        &c2);
        return;
    }
    case 12: {
        CUgraphNode nodes[64];
        CUgraphEdgeData edges[64];
        size_t count = in.below(65);
        CUgraphNode x = pick(in, P->node);
        (void)T->cuGraphNodeGetDependencies(x, in.flip() ? nodes : nullptr, in.u8() % 16 ? &count : nullptr);
        count = in.below(65);
        (void)T->cuGraphNodeGetDependentNodes_v2(x, in.flip() ? nodes : nullptr, in.flip() ? edges : nullptr, &count);
        CUgraphNodeType type;
        (void)T->cuGraphNodeGetType(x, in.flip() ? &type : nullptr);
        return;
    }
    case 13: {
        CUgraphNode from[4], to[4];
        CUgraphEdgeData edges[4];
        std::memset(edges, 0, sizeof edges);
        size_t count = in.below(5);
        for (size_t i = 0; i < 4; ++i) {
            from[i] = pick(in, P->node);
            to[i] = pick(in, P->node);
            if (in.u8() % 8 == 0) edges[i].type = in.u8();
        }
        switch (in.u8() % 4) {
        case 0:
            (void)T->cuGraphAddDependencies(g, in.u8() % 8 ? from : nullptr, to, count);
            return;
        case 1:
            (void)T->cuGraphAddDependencies_v2(g, from, in.u8() % 8 ? to : nullptr, in.flip() ? edges : nullptr, count);
            return;
        case 2:
            (void)T->cuGraphRemoveDependencies(g, from, to, count);
            return;
        default:
            (void)T->cuGraphRemoveDependencies_v2(g, from, to, in.flip() ? edges : nullptr, count);
            return;
        }
    }
    case 14: {
        CUgraphNode x = pick(in, P->node);
        if (T->cuGraphDestroyNode(x) == CUDA_SUCCESS) P->node.kill(x);
        return;
    }
    case 15: {
        if (P->exec.live.size() >= 8) return;
        CUgraphExec e = nullptr;
        CUgraphNode err;
        char log[128];
        CUresult r;
        switch (in.u8() % 4) {
        case 0:
            r = T->cuGraphInstantiate_v2(in.u8() % 16 ? &e : nullptr, g, in.flip() ? &err : nullptr,
                                         in.flip() ? log : nullptr, in.below(129));
            break;
        case 1:
            r = T->cuGraphInstantiate(&e, g, &err, log, sizeof log);
            break;
        case 2:
            r = T->cuGraphInstantiateWithFlags(&e, g, in.u8() % 4 ? in.below(16) : in.u64());
            break;
        default: {
            CUDA_GRAPH_INSTANTIATE_PARAMS p{};
            p.flags = in.u8() % 4 ? in.below(16) : in.u64();
            p.hUploadStream = pick_stream(in);
            r = T->cuGraphInstantiateWithParams(&e, g, in.u8() % 16 ? &p : nullptr);
        }
        }
        if (r == CUDA_SUCCESS) {
            CHECK(e != nullptr);
            P->exec.add(e);
        }
        return;
    }
    case 16: {
        CUgraphExec e = pick(in, P->exec);
        switch (in.u8() % 4) {
        case 0:
            (void)T->cuGraphLaunch(e, pick_stream(in));
            return;
        case 1:
            (void)T->cuGraphUpload(e, pick_stream(in));
            return;
        case 2: {
            cuuint64_t flags;
            (void)T->cuGraphExecGetFlags(e, in.flip() ? &flags : nullptr);
            return;
        }
        default:
            if (T->cuGraphExecDestroy(e) == CUDA_SUCCESS) P->exec.kill(e);
            return;
        }
    }
    case 17: {
        CUgraphExec e = pick(in, P->exec);
        CUgraphNode x = pick(in, P->node);
        switch (in.u8() % 6) {
        case 0: {
            CUDA_KERNEL_NODE_PARAMS k;
            LaunchArgs a;
            fill_kernel_node(in, k, a);
            (void)T->cuGraphExecKernelNodeSetParams_v2(e, x, in.u8() % 16 ? &k : nullptr);
            if (in.flip()) (void)T->cuGraphKernelNodeSetParams_v2(x, &k);
            return;
        }
        case 1: {
            CUDA_MEMSET_NODE_PARAMS m;
            fill_memset_node(in, m);
            (void)T->cuGraphExecMemsetNodeSetParams(e, x, in.u8() % 16 ? &m : nullptr, pick_ctx(in));
            if (in.flip()) (void)T->cuGraphMemsetNodeSetParams(x, &m);
            return;
        }
        case 2: {
            CUDA_MEMCPY3D c;
            fill_copy3d(in, c);
            (void)T->cuGraphExecMemcpyNodeSetParams(e, x, in.u8() % 16 ? &c : nullptr, pick_ctx(in));
            if (in.flip()) (void)T->cuGraphMemcpyNodeSetParams(x, &c);
            return;
        }
        case 3: {
            CUDA_HOST_NODE_PARAMS h{pick_host_fn(in), nullptr};
            (void)T->cuGraphExecHostNodeSetParams(e, x, in.u8() % 16 ? &h : nullptr);
            if (in.flip()) (void)T->cuGraphHostNodeSetParams(x, &h);
            return;
        }
        case 4: {
            CUgraphExecUpdateResultInfo info;
            CUgraphNode err;
            CUgraphExecUpdateResult res;
            if (in.flip())
                (void)T->cuGraphExecUpdate_v2(e, g, in.u8() % 16 ? &info : nullptr);
            else
                (void)T->cuGraphExecUpdate(e, g, in.flip() ? &err : nullptr, in.flip() ? &res : nullptr);
            return;
        }
        default: {
            CUDA_KERNEL_NODE_PARAMS k;
            CUDA_MEMSET_NODE_PARAMS m;
            CUDA_MEMCPY3D c;
            CUDA_HOST_NODE_PARAMS h;
            (void)T->cuGraphKernelNodeGetParams_v2(x, in.flip() ? &k : nullptr);
            (void)T->cuGraphMemsetNodeGetParams(x, in.flip() ? &m : nullptr);
            (void)T->cuGraphMemcpyNodeGetParams(x, in.flip() ? &c : nullptr);
            (void)T->cuGraphHostNodeGetParams(x, in.flip() ? &h : nullptr);
            return;
        }
        }
    }
    case 18:
        (void)T->cuGraphDebugDotPrint(g, in.u8() % 8 ? "/dev/null" : nullptr, in.u32());
        return;
    default: {
        // Stream capture.
        CUstream s = pick_stream(in);
        switch (in.u8() % 6) {
        case 0:
            if (in.flip())
                (void)T->cuStreamBeginCapture(s);
            else
                (void)T->cuStreamBeginCapture_v2(
                    s, static_cast<CUstreamCaptureMode>(in.u8() % 4 ? in.below(3) : in.u32()));
            return;
        case 1: {
            CUgraph out = nullptr;
            if (T->cuStreamEndCapture(s, in.u8() % 16 ? &out : nullptr) == CUDA_SUCCESS && out) {
                if (P->graph.live.size() < 8)
                    P->graph.add(out);
                else
                    (void)T->cuGraphDestroy(out);
            }
            return;
        }
        case 2: {
            CUstreamCaptureStatus st;
            cuuint64_t id;
            CUgraph cg;
            const CUgraphNode* deps;
            const CUgraphEdgeData* edges;
            size_t count;
            (void)T->cuStreamGetCaptureInfo(s, in.flip() ? &st : nullptr, in.flip() ? &id : nullptr);
            (void)T->cuStreamGetCaptureInfo_v2(s, in.flip() ? &st : nullptr, in.flip() ? &id : nullptr,
                                               in.flip() ? &cg : nullptr, in.flip() ? &deps : nullptr,
                                               in.flip() ? &count : nullptr);
            (void)T->cuStreamGetCaptureInfo_v3(s, &st, &id, &cg, in.flip() ? &deps : nullptr,
                                               in.flip() ? &edges : nullptr, in.flip() ? &count : nullptr);
            return;
        }
        case 3: {
            CUgraphNode nodes[4];
            for (auto& x : nodes) x = pick(in, P->node);
            CUgraphEdgeData edges[4] = {};
            if (in.flip())
                (void)T->cuStreamUpdateCaptureDependencies(s, in.u8() % 8 ? nodes : nullptr, in.below(5),
                                                           in.u8() % 4 ? in.below(2) : in.u32());
            else
                (void)T->cuStreamUpdateCaptureDependencies_v2(s, nodes, in.flip() ? edges : nullptr, in.below(5),
                                                              in.below(2));
            return;
        }
        case 4: {
            CUstreamCaptureMode m = static_cast<CUstreamCaptureMode>(in.u8() % 4 ? in.below(3) : in.u32());
            (void)T->cuThreadExchangeStreamCaptureMode(in.u8() % 8 ? &m : nullptr);
            return;
        }
        default: {
            CUstreamCaptureStatus st;
            (void)T->cuStreamIsCapturing(s, &st);
            return;
        }
        }
    }
    }
}

} // namespace fuzz_api
