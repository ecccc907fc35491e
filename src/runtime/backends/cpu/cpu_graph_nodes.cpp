// cpu backend: conditional graph nodes, graph memory nodes in explicitly built graphs, and cuGraphAddNode.
//
// Conditional nodes (CUDA 12.3): a handle (cuGraphConditionalHandleCreate) whose value kernels set with
// cudaGraphSetConditional decides at run time whether (IF, IF/ELSE), how often (WHILE) or which (SWITCH) of the
// node's body graphs runs. The value is read when the nodes before the conditional node have run, so a launch
// of a graph that has one waits for its stream there (cuGraphLaunch returns once the last conditional node has
// issued its bodies; the nodes after it run asynchronously as usual). Logged once.
//
// Memory nodes: cuGraphAddMemAllocNode allocates at once, as a captured cuMemAllocAsync does (the address is
// fixed for every launch), and the graph retains the allocation while it lives (GraphMemory in cpu_graph.h): a
// free inside or outside the graph marks it free, the next launch allocates it again.
#include <algorithm>
#include <cstring>
#include <map>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_graph.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

// The live handles, for cudaGraphSetConditional from kernels. Its own lock: kernels set values while a graph
// launch holds graph_mutex() and waits for them.
struct ConditionalRegistry final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Conditionals;
    std::mutex mutex;
    std::unordered_map<uint64_t, std::weak_ptr<Conditional>> handles;
};

ConditionalRegistry& conditionals() { return state().part<ConditionalRegistry>(); }

// The allocations made for MEM_ALLOC nodes (by base, with the buffer id, so that an address reused by
// another allocation is not counted) and the high watermark of their bytes. Graph memory is allocated when
// its node is made and has no reserve of its own: reserved equals used.
// A retained graph allocation: made with its node (before any launch), allocated by a launch, or free.
enum class GraphAllocation { Made, Live, Free };

struct GraphMemoryAccount final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::GraphMemory;
    std::mutex mutex;
    std::map<CUdeviceptr, uint64_t> allocations;     // base -> buffer id
    std::map<CUdeviceptr, GraphAllocation> retained; // base -> state (retained by a graph that lives: GraphMemory)
    uint64_t high = 0;
};

GraphMemoryAccount& account() { return state().part<GraphMemoryAccount>(); }

// The bytes of the live graph allocations, forgetting those that are gone (caller holds the account's mutex).
uint64_t used_bytes(GraphMemoryAccount& a) {
    uint64_t used = 0;
    for (auto it = a.allocations.begin(); it != a.allocations.end();) {
        Region r;
        if (find_region(it->first, 0, &r) && r.base == it->first && r.id == it->second) {
            auto kept = a.retained.find(it->first);
            if (kept == a.retained.end() || kept->second != GraphAllocation::Free) used += r.size;
            ++it;
        } else {
            it = a.allocations.erase(it);
        }
    }
    a.high = std::max(a.high, used);
    return used;
}

CUresult cu_graph_conditional_handle_create(CUgraphConditionalHandle* out, CUgraph hg, CUcontext ctx,
                                            unsigned int default_value, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = 0;
    D4R_CPU_REFUSE_IF(flags & ~unsigned(CU_GRAPH_COND_ASSIGN_DEFAULT), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(ctx && !find_context(ctx), CUDA_ERROR_INVALID_CONTEXT);
    auto c = std::make_shared<Conditional>();
    c->default_value = default_value;
    c->assign_default = flags & CU_GRAPH_COND_ASSIGN_DEFAULT;
    c->value = default_value;
    {
        std::lock_guard lock(graph_mutex());
        Graph* g = find_graph(hg);
        D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
        g->conditionals.push_back(c);
    }
    const auto handle = reinterpret_cast<uint64_t>(c.get());
    ConditionalRegistry& reg = conditionals();
    std::lock_guard lock(reg.mutex);
    std::erase_if(reg.handles, [](const auto& e) { return e.second.expired(); });
    reg.handles[handle] = c;
    *out = handle;
    return CUDA_SUCCESS;
}

// A CONDITIONAL node from P: the handle must be one of this graph's (or of a graph it is inside; the driver
// checks no more), SIZE body graphs made and registered; their handles go to P.phGraph_out.
CUresult conditional_node(Node& node, CUDA_CONDITIONAL_NODE_PARAMS& p) {
    std::shared_ptr<Conditional> c;
    {
        ConditionalRegistry& reg = conditionals();
        std::lock_guard lock(reg.mutex);
        auto it = reg.handles.find(p.handle);
        if (it != reg.handles.end()) c = it->second.lock();
    }
    D4R_CPU_REFUSE_IF(!c, CUDA_ERROR_INVALID_VALUE);
    const unsigned most = p.type == CU_GRAPH_COND_TYPE_SWITCH ? 65536u : p.type == CU_GRAPH_COND_TYPE_IF ? 2u : 1u;
    D4R_CPU_REFUSE_IF(static_cast<unsigned>(p.type) > CU_GRAPH_COND_TYPE_SWITCH || p.size == 0 || p.size > most,
                      CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(p.ctx && !find_context(p.ctx), CUDA_ERROR_INVALID_CONTEXT);
    node.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    node.conditional = std::move(c);
    node.conditional_type = p.type;
    for (unsigned i = 0; i < p.size; ++i) {
        node.bodies.push_back(std::make_shared<Graph>());
        node.body_handles.push_back(reinterpret_cast<CUgraph>(node.bodies.back().get()));
    }
    return CUDA_SUCCESS;
}

// A MEM_ALLOC node: the memory allocated now, on the device the pool properties name.
CUresult alloc_node(Node& node, CUDA_MEM_ALLOC_NODE_PARAMS& p) {
    D4R_CPU_REFUSE_IF(p.bytesize == 0, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(p.poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
                          p.poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE || p.poolProps.location.id != 0,
                      CUDA_ERROR_INVALID_VALUE);
    if (p.poolProps.handleTypes != CU_MEM_HANDLE_TYPE_NONE)
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: graph memory nodes with shareable handle types");
    for (size_t i = 0; i < p.accessDescCount; ++i)
        D4R_CPU_REFUSE_IF(!p.accessDescs || p.accessDescs[i].location.id != 0, CUDA_ERROR_INVALID_DEVICE);
    CUdeviceptr dptr = 0;
    if (CUresult r = direct_table().cuMemAllocAsync(&dptr, p.bytesize, nullptr)) return r;
    note_graph_allocation(dptr);
    node.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    node.dptr = dptr;
    node.bytes = p.bytesize;
    node.alloc = p;
    node.alloc.accessDescs = nullptr; // not kept: the caller's array
    node.alloc.accessDescCount = 0;
    node.alloc.dptr = dptr;
    p.dptr = dptr;
    return CUDA_SUCCESS;
}

bool is_retained(CUdeviceptr dptr) {
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    return a.retained.count(dptr) != 0;
}

// A MEM_FREE node of an allocation of this graph (the memory becomes the graph's, returned with its last copy)
// or of another graph that lives (its launches mark that allocation free).
CUresult free_node(Node& node, Graph& g, CUdeviceptr dptr) {
    bool mine = false;
    for (auto& n : g.nodes) mine = mine || (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && n->dptr == dptr);
    if (!mine && !is_retained(dptr)) {
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "cpu backend: a graph memory free node of 0x{:x}, which no graph allocation node made "
                      "(freeing cuMemAllocAsync's or cuMemAlloc's memory in a graph)",
                      dptr);
    }
    node.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    node.dptr = dptr;
    if (mine) {
        if (!g.memory) g.memory = std::make_shared<GraphMemory>();
        g.memory->owned.push_back(dptr);
    }
    return CUDA_SUCCESS;
}

// cuGraphAddNode: the node from P by its type, added after DEPS (the caller holds graph_mutex()).
CUresult add_from_params(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, CUgraphNodeParams& p) {
    Graph* g = find_graph(hg);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    auto node = std::make_unique<Node>();
    node->type = p.type;
    CUresult r = CUDA_SUCCESS;
    switch (p.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        r = set_kernel_params(*node, p.kernel);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        r = set_memcpy_params(*node, p.memcpy.copyParams);
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        const CUDA_MEMSET_NODE_PARAMS m{p.memset.dst,         p.memset.pitch, p.memset.value,
                                        p.memset.elementSize, p.memset.width, p.memset.height};
        r = set_memset_params(*node, m);
        break;
    }
    case CU_GRAPH_NODE_TYPE_HOST:
        D4R_CPU_REFUSE_IF(!p.host.fn, CUDA_ERROR_INVALID_VALUE);
        node->host = p.host;
        break;
    case CU_GRAPH_NODE_TYPE_GRAPH: {
        Graph* child = find_graph(p.graph.graph);
        D4R_CPU_REFUSE_IF(!child || p.graph.graph == hg, CUDA_ERROR_INVALID_VALUE);
        node->child = clone_graph(*child);
        node->child->clone_of.clear();
        break;
    }
    case CU_GRAPH_NODE_TYPE_EMPTY:
        break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        D4R_CPU_REFUSE_IF(!find_event(p.eventRecord.event), CUDA_ERROR_INVALID_HANDLE);
        node->event = p.eventRecord.event;
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        r = alloc_node(*node, p.alloc);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        r = free_node(*node, *g, p.free.dptr);
        break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        r = conditional_node(*node, p.conditional);
        break;
    default:
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: cuGraphAddNode: node type {} is not supported",
                      static_cast<int>(p.type));
    }
    if (r != CUDA_SUCCESS) return r;
    Node* raw = node.get();
    if (CUresult added = add_new_node(ph, hg, deps, n, std::move(node))) return added;
    if (raw->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) retain_graph_allocation(*g, raw->dptr);
    if (raw->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
        register_bodies(*g);
        p.conditional.phGraph_out = raw->body_handles.data(); // owned by the node, as the driver's array is
    }
    return CUDA_SUCCESS;
}

CUresult graph_add_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, const CUgraphEdgeData* data, size_t n,
                        CUgraphNodeParams* p) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph || !p, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    if (!default_edges(data, n))
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: cuGraphAddNode_v2: edges with ports or types");
    std::lock_guard lock(graph_mutex());
    return add_from_params(ph, hg, deps, n, *p);
}

CUresult cu_graph_add_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, CUgraphNodeParams* p) {
    return graph_add_node(ph, hg, deps, nullptr, n, p);
}

CUresult cu_graph_add_node_v2(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, const CUgraphEdgeData* data,
                              size_t n, CUgraphNodeParams* p) {
    return graph_add_node(ph, hg, deps, data, n, p);
}

CUresult cu_graph_add_mem_alloc_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n,
                                     CUDA_MEM_ALLOC_NODE_PARAMS* p) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph || !p, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    params.alloc = *p;
    std::lock_guard lock(graph_mutex());
    if (CUresult r = add_from_params(ph, hg, deps, n, params)) return r;
    p->dptr = params.alloc.dptr;
    return CUDA_SUCCESS;
}

CUresult cu_graph_add_mem_free_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, CUdeviceptr dptr) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    params.free.dptr = dptr;
    std::lock_guard lock(graph_mutex());
    return add_from_params(ph, hg, deps, n, params);
}

CUresult cu_graph_mem_alloc_node_get_params(CUgraphNode h, CUDA_MEM_ALLOC_NODE_PARAMS* out) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_MEM_ALLOC, [&](Node& n) {
        if (n.alloc.bytesize) {
            *out = n.alloc;
        } else { // a captured cuMemAllocAsync
            *out = CUDA_MEM_ALLOC_NODE_PARAMS{};
            out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
            out->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            out->bytesize = n.bytes;
            out->dptr = n.dptr;
        }
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_mem_free_node_get_params(CUgraphNode h, CUdeviceptr* out) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_MEM_FREE, [&](Node& n) {
        *out = n.dptr;
        return CUDA_SUCCESS;
    });
}

// Graph memory is allocated when a node is made and returned with the graph: there is no reserve to trim.
CUresult cu_device_graph_mem_trim(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    return CUDA_SUCCESS;
}

CUresult cu_device_get_graph_mem_attribute(CUdevice dev, CUgraphMem_attribute attr, void* value) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    D4R_CPU_REFUSE_IF(!value || static_cast<unsigned>(attr) > CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
                      CUDA_ERROR_INVALID_VALUE);
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    const uint64_t used = used_bytes(a);
    const bool high = attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH || attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH;
    *static_cast<cuuint64_t*>(value) = high ? a.high : used;
    return CUDA_SUCCESS;
}

CUresult cu_device_set_graph_mem_attribute(CUdevice dev, CUgraphMem_attribute attr, void* value) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(dev != 0, CUDA_ERROR_INVALID_DEVICE);
    D4R_CPU_REFUSE_IF(!value, CUDA_ERROR_INVALID_VALUE);
    // Only the high watermarks can be set (reset to 0), as on NVIDIA's driver.
    D4R_CPU_REFUSE_IF(attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH && attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
                      CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(*static_cast<const cuuint64_t*>(value) != 0, CUDA_ERROR_INVALID_VALUE);
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    a.high = 0;
    a.high = used_bytes(a); // the watermark starts again from what is in use
    return CUDA_SUCCESS;
}

void collect_conditionals(const Graph& g, std::vector<Conditional*>& out) {
    for (auto& c : g.conditionals) out.push_back(c.get());
    for (auto& n : g.nodes) {
        if (n->child) collect_conditionals(*n->child, out);
        for (auto& body : n->bodies) collect_conditionals(*body, out);
    }
}

// The allocations of G's MEM_ALLOC nodes, its child graphs' and its conditional bodies' included.
void collect_allocations(const Graph& g, std::vector<CUdeviceptr>& out) {
    for (auto& n : g.nodes) {
        if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) out.push_back(n->dptr);
        if (n->child) collect_allocations(*n->child, out);
        for (auto& body : n->bodies) collect_allocations(*body, out);
    }
}

} // namespace

void note_graph_allocation(CUdeviceptr dptr) {
    Region r;
    if (!find_region(dptr, 0, &r)) return;
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    a.allocations[dptr] = r.id;
    used_bytes(a);
}

void retain_graph_allocation(Graph& g, CUdeviceptr dptr) {
    if (!g.memory) g.memory = std::make_shared<GraphMemory>();
    g.memory->allocated.push_back(dptr);
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    a.retained[dptr] = GraphAllocation::Made;
}

GraphFree free_retained_graph_allocation(CUdeviceptr dptr) {
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    auto it = a.retained.find(dptr);
    if (it == a.retained.end()) return GraphFree::NotRetained;
    if (it->second == GraphAllocation::Free) return GraphFree::AlreadyFree;
    it->second = GraphAllocation::Free;
    return GraphFree::Freed;
}

void reallocate_retained_graph_allocation(CUdeviceptr dptr) {
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    if (auto it = a.retained.find(dptr); it != a.retained.end()) it->second = GraphAllocation::Live;
    used_bytes(a);
}

CUresult check_graph_allocations_free(const Graph& g, bool auto_free) {
    std::vector<CUdeviceptr> made;
    collect_allocations(g, made);
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    for (CUdeviceptr dptr : made) {
        auto it = a.retained.find(dptr);
        if (it == a.retained.end() || it->second != GraphAllocation::Live) continue;
        if (!auto_free) {
            return refuse(CUDA_ERROR_INVALID_VALUE,
                          "cpu backend: cuGraphLaunch: the graph's allocation 0x{:x} from a previous launch is not "
                          "freed (free it, or instantiate with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)",
                          dptr);
        }
    }
    if (auto_free)
        for (CUdeviceptr dptr : made)
            if (auto it = a.retained.find(dptr); it != a.retained.end()) it->second = GraphAllocation::Free;
    return CUDA_SUCCESS;
}

bool forget_retained_graph_allocation(CUdeviceptr dptr) {
    GraphMemoryAccount& a = account();
    std::lock_guard lock(a.mutex);
    auto it = a.retained.find(dptr);
    if (it == a.retained.end()) return false;
    const bool was_free = it->second == GraphAllocation::Free;
    a.retained.erase(it);
    return was_free;
}

bool has_conditional_nodes(const Graph& g) {
    for (auto& n : g.nodes) {
        if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) return true;
        if (n->child && has_conditional_nodes(*n->child)) return true;
    }
    return false;
}

CUresult start_conditional_launch(const Graph& g, CUstream stream) {
    if (log::once("cpu:conditional-sync"))
        log::info("cpu backend: graphs with conditional nodes wait for their stream at each conditional node "
                  "(cuGraphLaunch returns once the bodies are issued)");
    if (CUresult r = direct_table().cuStreamSynchronize(stream)) return r;
    std::vector<Conditional*> all;
    collect_conditionals(g, all);
    for (Conditional* c : all)
        if (c->assign_default) c->value = c->default_value;
    return CUDA_SUCCESS;
}

CUresult run_conditional_node(const Node& n, CUstream stream) {
    const ApiTable& t = direct_table();
    if (CUresult r = t.cuStreamSynchronize(stream)) return r;
    uint32_t value = n.conditional->value.load();
    switch (n.conditional_type) {
    case CU_GRAPH_COND_TYPE_IF:
        if (value) return launch_graph_nodes(*n.bodies[0], stream);
        return n.bodies.size() == 2 ? launch_graph_nodes(*n.bodies[1], stream) : CUDA_SUCCESS;
    case CU_GRAPH_COND_TYPE_WHILE:
        while (value) {
            if (CUresult r = launch_graph_nodes(*n.bodies[0], stream)) return r;
            if (CUresult r = t.cuStreamSynchronize(stream)) return r;
            value = n.conditional->value.load();
        }
        return CUDA_SUCCESS;
    case CU_GRAPH_COND_TYPE_SWITCH:
        return value < n.bodies.size() ? launch_graph_nodes(*n.bodies[value], stream) : CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

bool set_graph_conditional(uint64_t handle, uint32_t value) {
    ConditionalRegistry& reg = conditionals();
    std::lock_guard lock(reg.mutex);
    auto it = reg.handles.find(handle);
    if (it == reg.handles.end()) return false;
    auto c = it->second.lock();
    if (!c) return false;
    c->value = value;
    return true;
}

void fill_graph_nodes(ApiTable& t) {
    t.cuGraphConditionalHandleCreate = cu_graph_conditional_handle_create;
    t.cuGraphAddNode = cu_graph_add_node;
    t.cuGraphAddNode_v2 = cu_graph_add_node_v2;
    t.cuGraphAddMemAllocNode = cu_graph_add_mem_alloc_node;
    t.cuGraphAddMemFreeNode = cu_graph_add_mem_free_node;
    t.cuGraphMemAllocNodeGetParams = cu_graph_mem_alloc_node_get_params;
    t.cuGraphMemFreeNodeGetParams = cu_graph_mem_free_node_get_params;
    t.cuDeviceGraphMemTrim = cu_device_graph_mem_trim;
    t.cuDeviceGetGraphMemAttribute = cu_device_get_graph_mem_attribute;
    t.cuDeviceSetGraphMemAttribute = cu_device_set_graph_mem_attribute;
}

} // namespace d4r::runtime::cpu
