// cpu backend internals: graphs (nodes with their parameters and edges), executable graphs, and what
// stream capture (cpu_capture.cpp) shares with them.
//
// Promise: every graph, node and executable-graph handle is looked up under graph_mutex() and an
// unknown or destroyed one is refused (INVALID_VALUE, as NVIDIA's driver answers for graph handles)
// before anything is dereferenced. A node owns copies of its parameters (a kernel node its argument
// bytes), so the caller's buffers may change after the call. An executable graph is a private copy of
// its graph in one topological order; launching it issues every node on the stream in that order
// through the backend's direct entry points (below the capture layer). The context's one worker runs
// them one after another, which respects every edge.
#pragma once

#include <atomic>

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

struct Graph;

// A conditional handle (cuGraphConditionalHandleCreate; the handle is the object's address): its value, set
// by cudaGraphSetConditional from kernels on any worker thread and read by the graph launch between nodes.
// Shared by the graph it was made for and every copy of it (clones, executable graphs).
struct Conditional {
    std::atomic<uint32_t> value{0};
    uint32_t default_value = 0;
    bool assign_default = false; // CU_GRAPH_COND_ASSIGN_DEFAULT: the default again at each launch
};

struct Node {
    Graph* graph = nullptr;
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    std::vector<Node*> deps;       // edges into the node, in the order they were added
    std::vector<Node*> dependents; // edges out of it
    // KERNEL: kernel.kernelParams points at `pointers`, each into `block` (the node's own argument copy).
    CUDA_KERNEL_NODE_PARAMS kernel{};
    std::vector<uint8_t> block;
    std::vector<void*> pointers;
    CUDA_MEMCPY3D copy{};               // MEMCPY
    CUDA_MEMSET_NODE_PARAMS memset{};   // MEMSET
    CUDA_HOST_NODE_PARAMS host{};       // HOST
    std::shared_ptr<Graph> child;       // GRAPH: the node's own copy of the child graph
    CUevent event = nullptr;            // EVENT_RECORD, WAIT_EVENT
    CUdeviceptr dptr = 0;               // MEM_ALLOC, MEM_FREE
    size_t bytes = 0;                   // MEM_ALLOC
    CUDA_MEM_ALLOC_NODE_PARAMS alloc{}; // MEM_ALLOC made by cuGraphAddMemAllocNode: its parameters as given
    // CONDITIONAL: the handle, the kind, and the node's own body graphs (1 for IF and WHILE, 1 or 2 for IF/ELSE,
    // any number for SWITCH).
    std::shared_ptr<Conditional> conditional;
    CUgraphConditionalNodeType conditional_type = CU_GRAPH_COND_TYPE_IF;
    std::vector<std::shared_ptr<Graph>> bodies;
    std::vector<CUgraph> body_handles; // what cuGraphAddNode hands out as phGraph_out (the original node's)
};

// The memory of a graph's MEM_ALLOC nodes (explicit or captured), shared by the graph and every copy of it
// (clones, executable graphs, child graph nodes). Each allocation is made once, when its node is made, at
// the address every launch gives it, and stays mapped while the graph lives (retain_graph_allocation):
// freeing it (inside the graph, or outside with cuMemFree, cuMemFreeAsync or another graph's MEM_FREE node)
// marks it free, and the next launch allocates it again at that address, as NVIDIA's driver hands a graph
// allocation the same address at every launch. When the last copy goes, the allocations that are free (and
// those the graph frees itself but never ran) are returned, after the work queued on their context so far;
// one that is not free stays the application's, to free later as any allocation.
struct GraphMemory {
    std::vector<CUdeviceptr> owned;     // freed by the graph's own MEM_FREE nodes
    std::vector<CUdeviceptr> allocated; // made by its MEM_ALLOC nodes (retained while it lives)
    GraphMemory() = default;
    GraphMemory(const GraphMemory&) = delete;
    GraphMemory& operator=(const GraphMemory&) = delete;
    ~GraphMemory();
};

struct Graph {
    std::vector<std::unique_ptr<Node>> nodes;               // in creation order
    std::unordered_map<const Node*, Node*> clone_of;        // for a clone: original node -> its copy here
    std::shared_ptr<GraphMemory> memory;                    // shared by every copy; null when it owns none
    std::vector<std::shared_ptr<Conditional>> conditionals; // the handles made for this graph
};

// Guards every graph, node and executable graph, and the capture state.
std::mutex& graph_mutex();

// Graph memory accounting (cuDeviceGetGraphMemAttribute): an allocation made for a MEM_ALLOC node, counted
// while it lives and is not free. Takes its own lock.
void note_graph_allocation(CUdeviceptr dptr);

// Retention of graph allocations (GraphMemory). Each takes the accounting's lock.
// DPTR, an allocation of G's MEM_ALLOC node, stays mapped while G lives (G.memory made when it has none).
void retain_graph_allocation(Graph& g, CUdeviceptr dptr);
enum class GraphFree { NotRetained, Freed, AlreadyFree };
// A free of DPTR: NotRetained when it is not a retained graph allocation (free it as any allocation);
// Freed when it was live and is now marked free; AlreadyFree when it was free (a second free: an error).
GraphFree free_retained_graph_allocation(CUdeviceptr dptr);
// A launch's MEM_ALLOC node: DPTR is live again.
void reallocate_retained_graph_allocation(CUdeviceptr dptr);
// Before a launch of G: CUDA_ERROR_INVALID_VALUE when an allocation of G's from a previous launch is not free
// (as NVIDIA's cuGraphLaunch answers), unless AUTO_FREE (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH), which
// frees them.
CUresult check_graph_allocations_free(const Graph& g, bool auto_free);
// The graph that retained DPTR is gone: true when DPTR was free (return it), false when the application holds
// it (or it was not retained).
bool forget_retained_graph_allocation(CUdeviceptr dptr);

// ---- Under graph_mutex() ----------------------------------------------------------------------------

// cuGraphAdd*Node's common part: the graph HG and the DEPS checked, NODE added, *PH its handle.
CUresult add_new_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, std::unique_ptr<Node> node);
// Adds NODE to G after DEPS (each must be a node of G; duplicates are refused): INVALID_VALUE.
CUresult add_node(Graph& g, std::unique_ptr<Node> node, const std::vector<Node*>& deps, Node** out);
// A registered graph / node, or null.
Graph* find_graph(CUgraph h);
Node* find_node(CUgraphNode h);
// The registered graph H (shared), or null.
std::shared_ptr<Graph> find_graph_shared(CUgraph h);
// Registers G (again: its nodes added since are registered too); its handle.
CUgraph register_graph(std::shared_ptr<Graph> g);
// Unregisters and destroys the graph H (its nodes' handles become invalid).
void destroy_graph(CUgraph h);
// A deep copy of G (child graphs included) whose clone_of maps G's nodes to the copies.
std::shared_ptr<Graph> clone_graph(const Graph& g);
// A copy of the executable graph H's graph (a graph launched into a capturing stream); null if unknown.
std::shared_ptr<Graph> exec_graph_copy(CUgraphExec h);

// Whether edge data DATA of N edges (may be null) is all default (no ports, no types): what the _v2 calls accept.
bool default_edges(const CUgraphEdgeData* data, size_t n);

// Runs GET on the node H under graph_mutex() when it exists and has TYPE (else INVALID_VALUE).
template <typename Get>
CUresult with_node(CUgraphNode h, CUgraphNodeType type, Get get) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    Node* n = find_node(h);
    D4R_CPU_REFUSE_IF(!n || n->type != type, CUDA_ERROR_INVALID_VALUE);
    return get(*n);
}

// ---- Node parameters (validated; no lock needed: the node is not shared yet or the caller holds it) ----

CUresult set_kernel_params(Node& n, const CUDA_KERNEL_NODE_PARAMS& p);
CUresult set_memcpy_params(Node& n, const CUDA_MEMCPY3D& p);
CUresult set_memset_params(Node& n, const CUDA_MEMSET_NODE_PARAMS& p);

// The table below the capture layer: what a graph launch issues its nodes through (cpu_capture.cpp).
const ApiTable& direct_table();

// Issues G's nodes on STREAM in a topological order (under graph_mutex()).
CUresult launch_graph_nodes(const Graph& g, CUstream stream);

// ---- Conditional and memory nodes (cpu_graph_nodes.cpp) ----------------------------------------------------

// Whether G or a graph inside it (child graphs, bodies) has a conditional node.
bool has_conditional_nodes(const Graph& g);
// A graph launch with conditional nodes: waits for STREAM, then assigns the default value of every handle of
// G (and the graphs inside it) that asks for it (under graph_mutex()).
CUresult start_conditional_launch(const Graph& g, CUstream stream);
// A CONDITIONAL node of a launch: waits for STREAM (the condition is set by the nodes before it), then issues
// the body graph(s) the value selects; WHILE waits again after each pass (under graph_mutex()).
CUresult run_conditional_node(const Node& n, CUstream stream);
// cudaGraphSetConditional from a kernel (LaunchConfig::set_conditional): false for an unknown handle.
bool set_graph_conditional(uint64_t handle, uint32_t value);
// Registers the bodies of conditional nodes in G (handles the application may add nodes to), recursively.
void register_bodies(Graph& g);

} // namespace d4r::runtime::cpu
