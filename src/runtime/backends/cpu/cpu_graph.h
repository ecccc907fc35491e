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

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

struct Graph;

struct Node {
    Graph* graph = nullptr;
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    std::vector<Node*> deps;       // edges into the node, in the order they were added
    std::vector<Node*> dependents; // edges out of it
    // KERNEL: kernel.kernelParams points at `pointers`, each into `block` (the node's own argument copy).
    CUDA_KERNEL_NODE_PARAMS kernel{};
    std::vector<uint8_t> block;
    std::vector<void*> pointers;
    CUDA_MEMCPY3D copy{};             // MEMCPY
    CUDA_MEMSET_NODE_PARAMS memset{}; // MEMSET
    CUDA_HOST_NODE_PARAMS host{};     // HOST
    std::shared_ptr<Graph> child;     // GRAPH: the node's own copy of the child graph
    CUevent event = nullptr;          // EVENT_RECORD, WAIT_EVENT
    CUdeviceptr dptr = 0;             // MEM_ALLOC, MEM_FREE
    size_t bytes = 0;                 // MEM_ALLOC
};

// The allocations a captured graph makes and frees itself (a MEM_ALLOC node and a MEM_FREE node of the
// same pointer): allocated once at capture, reused by every launch, returned when the graph and every
// copy of it (clones, executable graphs) are gone, after the work queued on their context so far.
struct GraphMemory {
    std::vector<CUdeviceptr> owned;
    GraphMemory() = default;
    GraphMemory(const GraphMemory&) = delete;
    GraphMemory& operator=(const GraphMemory&) = delete;
    ~GraphMemory();
};

struct Graph {
    std::vector<std::unique_ptr<Node>> nodes;        // in creation order
    std::unordered_map<const Node*, Node*> clone_of; // for a clone: original node -> its copy here
    std::shared_ptr<GraphMemory> memory;             // shared by every copy; null when it owns none
};

// Guards every graph, node and executable graph, and the capture state.
std::mutex& graph_mutex();

// ---- Under graph_mutex() ----------------------------------------------------------------------------

// Adds NODE to G after DEPS (each must be a node of G; duplicates are refused): INVALID_VALUE.
CUresult add_node(Graph& g, std::unique_ptr<Node> node, const std::vector<Node*>& deps, Node** out);
// A registered graph / node, or null.
Graph* find_graph(CUgraph h);
Node* find_node(CUgraphNode h);
// Registers G; its handle.
CUgraph register_graph(std::shared_ptr<Graph> g);
// Unregisters and destroys the graph H (its nodes' handles become invalid).
void destroy_graph(CUgraph h);
// A deep copy of G (child graphs included) whose clone_of maps G's nodes to the copies.
std::shared_ptr<Graph> clone_graph(const Graph& g);
// A copy of the executable graph H's graph (a graph launched into a capturing stream); null if unknown.
std::shared_ptr<Graph> exec_graph_copy(CUgraphExec h);

// ---- Node parameters (validated; no lock needed: the node is not shared yet or the caller holds it) ----

CUresult set_kernel_params(Node& n, const CUDA_KERNEL_NODE_PARAMS& p);
CUresult set_memcpy_params(Node& n, const CUDA_MEMCPY3D& p);
CUresult set_memset_params(Node& n, const CUDA_MEMSET_NODE_PARAMS& p);

// The table below the capture layer: what a graph launch issues its nodes through (cpu_capture.cpp).
const ApiTable& direct_table();

// Issues G's nodes on STREAM in a topological order (under graph_mutex()).
CUresult launch_graph_nodes(const Graph& g, CUstream stream);

} // namespace d4r::runtime::cpu
