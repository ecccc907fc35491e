// cpu backend: CUDA graphs. Building (nodes, edges, parameters, clones), instantiation (a private copy in
// one topological order), launch (every node issued on the stream in that order), executable-graph
// parameter changes and whole-graph updates.
#include "runtime/backends/cpu/cpu_graph.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/log.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

struct Exec {
    std::shared_ptr<Graph> graph;                // the private copy
    std::vector<Node*> order;                    // its nodes, topologically sorted
    std::unordered_map<const Node*, Node*> from; // a node of the instantiated (or updated) graph -> copy
    uint64_t flags = 0;
};

struct Registry final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Graphs;
    std::unordered_map<void*, std::shared_ptr<Graph>> graphs;
    std::unordered_map<void*, Graph*> nodes;
    std::unordered_map<void*, std::unique_ptr<Exec>> execs;
};

Registry& registry() { return state().part<Registry>(); }

void register_nodes(Graph& g) {
    for (auto& n : g.nodes) registry().nodes[n.get()] = &g;
}

Exec* find_exec(CUgraphExec h) {
    auto it = registry().execs.find(h);
    return it == registry().execs.end() ? nullptr : it->second.get();
}

// Kahn's algorithm, ready nodes taken in creation order: false when G has a cycle.
bool topological_order(const Graph& g, std::vector<Node*>& out) {
    std::unordered_map<const Node*, size_t> pending;
    for (auto& n : g.nodes) pending[n.get()] = n->deps.size();
    out.clear();
    std::vector<bool> taken(g.nodes.size(), false);
    std::unordered_map<const Node*, size_t> index;
    for (size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
    // Small graphs: a scan per step keeps the order deterministic and simple.
    for (size_t step = 0; step < g.nodes.size(); ++step) {
        size_t pick = g.nodes.size();
        for (size_t i = 0; i < g.nodes.size(); ++i)
            if (!taken[i] && pending[g.nodes[i].get()] == 0) {
                pick = i;
                break;
            }
        if (pick == g.nodes.size()) return false;
        taken[pick] = true;
        Node* n = g.nodes[pick].get();
        out.push_back(n);
        for (Node* d : n->dependents) --pending[d];
    }
    return true;
}

bool has_cycle(const Graph& g) {
    std::vector<Node*> order;
    if (!topological_order(g, order)) return true;
    for (auto& n : g.nodes) {
        if (n->child && has_cycle(*n->child)) return true;
        for (auto& body : n->bodies)
            if (has_cycle(*body)) return true;
    }
    return false;
}

CUresult collect_deps(Graph& g, const CUgraphNode* deps, size_t n, std::vector<Node*>& out) {
    D4R_CPU_REFUSE_IF(n && !deps, CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < n; ++i) {
        Node* d = find_node(deps[i]);
        D4R_CPU_REFUSE_IF(!d || d->graph != &g, CUDA_ERROR_INVALID_VALUE);
        out.push_back(d);
    }
    return CUDA_SUCCESS;
}

// The common part of every cuGraphAdd*Node: PH nulled, graph and dependencies checked, NODE added.
CUresult add_checked(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, std::unique_ptr<Node> node) {
    Graph* g = find_graph(hg);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    std::vector<Node*> list;
    if (CUresult r = collect_deps(*g, deps, n, list)) return r;
    Node* added = nullptr;
    if (CUresult r = add_node(*g, std::move(node), list, &added)) return r;
    *ph = reinterpret_cast<CUgraphNode>(added);
    return CUDA_SUCCESS;
}

} // namespace

CUresult add_new_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, std::unique_ptr<Node> node) {
    return add_checked(ph, hg, deps, n, std::move(node));
}

namespace {

template <typename Fill>
CUresult add_typed(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, CUgraphNodeType type, Fill fill) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    auto node = std::make_unique<Node>();
    node->type = type;
    if (CUresult r = fill(*node)) return r;
    std::lock_guard lock(graph_mutex());
    return add_checked(ph, hg, deps, n, std::move(node));
}

CUDA_KERNEL_NODE_PARAMS from_v1(const CUDA_KERNEL_NODE_PARAMS_v1& p) {
    CUDA_KERNEL_NODE_PARAMS v2{};
    std::memcpy(&v2, &p, sizeof p); // v2 begins with v1's fields
    return v2;
}

CUDA_KERNEL_NODE_PARAMS_v1 to_v1(const CUDA_KERNEL_NODE_PARAMS& p) {
    CUDA_KERNEL_NODE_PARAMS_v1 v1{};
    std::memcpy(&v1, &p, sizeof v1);
    return v1;
}

// ---- Graph and node calls -------------------------------------------------------------------------------

CUresult cu_graph_create(CUgraph* ph, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    D4R_CPU_REFUSE_IF(flags != 0, CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(graph_mutex());
    *ph = register_graph(std::make_shared<Graph>());
    return CUDA_SUCCESS;
}

CUresult cu_graph_destroy(CUgraph h) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    D4R_CPU_REFUSE_IF(!find_graph(h), CUDA_ERROR_INVALID_VALUE);
    destroy_graph(h);
    return CUDA_SUCCESS;
}

CUresult cu_graph_clone(CUgraph* ph, CUgraph original) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(original);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    *ph = register_graph(clone_graph(*g));
    return CUDA_SUCCESS;
}

CUresult cu_graph_node_find_in_clone(CUgraphNode* ph, CUgraphNode original, CUgraph clone) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(clone);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    auto it = g->clone_of.find(reinterpret_cast<const Node*>(original));
    D4R_CPU_REFUSE_IF(it == g->clone_of.end(), CUDA_ERROR_INVALID_VALUE);
    *ph = reinterpret_cast<CUgraphNode>(it->second);
    return CUDA_SUCCESS;
}

CUresult cu_graph_add_kernel_node_v2(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n,
                                     const CUDA_KERNEL_NODE_PARAMS* p) {
    return add_typed(ph, g, deps, n, CU_GRAPH_NODE_TYPE_KERNEL,
                     [&](Node& node) { return p ? set_kernel_params(node, *p) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult cu_graph_add_kernel_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n,
                                  const CUDA_KERNEL_NODE_PARAMS_v1* p) {
    if (!p) return add_typed(ph, g, deps, n, CU_GRAPH_NODE_TYPE_KERNEL, [](Node&) { return CUDA_ERROR_INVALID_VALUE; });
    CUDA_KERNEL_NODE_PARAMS v2 = from_v1(*p);
    return cu_graph_add_kernel_node_v2(ph, g, deps, n, &v2);
}

CUresult cu_graph_kernel_node_get_params_v2(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_KERNEL, [&](Node& n) {
        *p = n.kernel;
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_kernel_node_get_params(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS_v1* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_KERNEL, [&](Node& n) {
        *p = to_v1(n.kernel);
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_kernel_node_set_params_v2(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_KERNEL, [&](Node& n) { return set_kernel_params(n, *p); });
}

CUresult cu_graph_kernel_node_set_params(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS_v1* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    CUDA_KERNEL_NODE_PARAMS v2 = from_v1(*p);
    return cu_graph_kernel_node_set_params_v2(h, &v2);
}

CUresult cu_graph_add_memcpy_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n, const CUDA_MEMCPY3D* p,
                                  CUcontext) {
    return add_typed(ph, g, deps, n, CU_GRAPH_NODE_TYPE_MEMCPY,
                     [&](Node& node) { return p ? set_memcpy_params(node, *p) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult cu_graph_memcpy_node_get_params(CUgraphNode h, CUDA_MEMCPY3D* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_MEMCPY, [&](Node& n) {
        *p = n.copy;
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_memcpy_node_set_params(CUgraphNode h, const CUDA_MEMCPY3D* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_MEMCPY, [&](Node& n) { return set_memcpy_params(n, *p); });
}

CUresult cu_graph_add_memset_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n,
                                  const CUDA_MEMSET_NODE_PARAMS* p, CUcontext) {
    return add_typed(ph, g, deps, n, CU_GRAPH_NODE_TYPE_MEMSET,
                     [&](Node& node) { return p ? set_memset_params(node, *p) : CUDA_ERROR_INVALID_VALUE; });
}

CUresult cu_graph_memset_node_get_params(CUgraphNode h, CUDA_MEMSET_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_MEMSET, [&](Node& n) {
        *p = n.memset;
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_memset_node_set_params(CUgraphNode h, const CUDA_MEMSET_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_MEMSET, [&](Node& n) { return set_memset_params(n, *p); });
}

CUresult cu_graph_add_host_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n,
                                const CUDA_HOST_NODE_PARAMS* p) {
    return add_typed(ph, g, deps, n, CU_GRAPH_NODE_TYPE_HOST, [&](Node& node) {
        D4R_CPU_REFUSE_IF(!p || !p->fn, CUDA_ERROR_INVALID_VALUE);
        node.host = *p;
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_host_node_get_params(CUgraphNode h, CUDA_HOST_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_HOST, [&](Node& n) {
        *p = n.host;
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_host_node_set_params(CUgraphNode h, const CUDA_HOST_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p || !p->fn, CUDA_ERROR_INVALID_VALUE);
    return with_node(h, CU_GRAPH_NODE_TYPE_HOST, [&](Node& n) {
        n.host = *p;
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_add_child_graph_node(CUgraphNode* ph, CUgraph hg, const CUgraphNode* deps, size_t n, CUgraph child) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    std::lock_guard lock(graph_mutex());
    Graph* c = find_graph(child);
    D4R_CPU_REFUSE_IF(!c || child == hg, CUDA_ERROR_INVALID_VALUE);
    auto node = std::make_unique<Node>();
    node->type = CU_GRAPH_NODE_TYPE_GRAPH;
    node->child = clone_graph(*c); // the node embeds a copy, as NVIDIA's does
    node->child->clone_of.clear();
    return add_checked(ph, hg, deps, n, std::move(node));
}

CUresult cu_graph_child_graph_node_get_graph(CUgraphNode h, CUgraph* out) {
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = nullptr;
    return with_node(h, CU_GRAPH_NODE_TYPE_GRAPH, [&](Node& n) {
        // The embedded graph is handed out as a handle owned by the node (not to be destroyed).
        registry().graphs.emplace(n.child.get(), n.child);
        register_nodes(*n.child);
        *out = reinterpret_cast<CUgraph>(n.child.get());
        return CUDA_SUCCESS;
    });
}

CUresult cu_graph_add_empty_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n) {
    return add_typed(ph, g, deps, n, CU_GRAPH_NODE_TYPE_EMPTY, [](Node&) { return CUDA_SUCCESS; });
}

CUresult add_event_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n, CUevent ev,
                        CUgraphNodeType type) {
    return add_typed(ph, g, deps, n, type, [&](Node& node) {
        D4R_CPU_REFUSE_IF(!find_event(ev), CUDA_ERROR_INVALID_HANDLE);
        node.event = ev;
        return CUDA_SUCCESS;
    });
}
CUresult cu_graph_add_event_record_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n, CUevent ev) {
    return add_event_node(ph, g, deps, n, ev, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}
CUresult cu_graph_add_event_wait_node(CUgraphNode* ph, CUgraph g, const CUgraphNode* deps, size_t n, CUevent ev) {
    return add_event_node(ph, g, deps, n, ev, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}
CUresult cu_graph_event_record_node_get_event(CUgraphNode h, CUevent* out) {
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = nullptr;
    return with_node(h, CU_GRAPH_NODE_TYPE_EVENT_RECORD, [&](Node& n) {
        *out = n.event;
        return CUDA_SUCCESS;
    });
}
CUresult cu_graph_event_wait_node_get_event(CUgraphNode h, CUevent* out) {
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    *out = nullptr;
    return with_node(h, CU_GRAPH_NODE_TYPE_WAIT_EVENT, [&](Node& n) {
        *out = n.event;
        return CUDA_SUCCESS;
    });
}

// Lists (nodes, roots, edges, dependencies): with a null array, the count; otherwise up to *COUNT entries
// and the number there are (NVIDIA's convention: the count is set to the total, the rest left alone).
template <typename T>
CUresult put_list(const std::vector<T>& items, T* out, size_t* count) {
    D4R_CPU_REFUSE_IF(!count, CUDA_ERROR_INVALID_VALUE);
    if (out) {
        size_t n = std::min(*count, items.size());
        for (size_t i = 0; i < n; ++i) out[i] = items[i];
        for (size_t i = n; i < *count; ++i) out[i] = T{};
    }
    *count = items.size();
    return CUDA_SUCCESS;
}

CUresult cu_graph_get_nodes(CUgraph h, CUgraphNode* nodes, size_t* count) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(h);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    std::vector<CUgraphNode> list;
    for (auto& n : g->nodes) list.push_back(reinterpret_cast<CUgraphNode>(n.get()));
    return put_list(list, nodes, count);
}

CUresult cu_graph_get_root_nodes(CUgraph h, CUgraphNode* nodes, size_t* count) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(h);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    std::vector<CUgraphNode> list;
    for (auto& n : g->nodes)
        if (n->deps.empty()) list.push_back(reinterpret_cast<CUgraphNode>(n.get()));
    return put_list(list, nodes, count);
}

CUresult cu_graph_get_edges_v2(CUgraph h, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* data, size_t* count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!count || (!from) != (!to) || (data && !from), CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(h);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    std::vector<CUgraphNode> a, b;
    for (auto& n : g->nodes)
        for (Node* d : n->dependents) {
            a.push_back(reinterpret_cast<CUgraphNode>(n.get()));
            b.push_back(reinterpret_cast<CUgraphNode>(d));
        }
    size_t capacity = *count;
    put_list(a, from, count);
    *count = capacity;
    put_list(b, to, count);
    if (data)
        for (size_t i = 0; i < capacity; ++i) data[i] = CUgraphEdgeData{};
    return CUDA_SUCCESS;
}

CUresult cu_graph_get_edges(CUgraph h, CUgraphNode* from, CUgraphNode* to, size_t* count) {
    return cu_graph_get_edges_v2(h, from, to, nullptr, count);
}

CUresult node_edges(CUgraphNode h, bool incoming, CUgraphNode* out, CUgraphEdgeData* data, size_t* count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!count || (data && !out), CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(graph_mutex());
    Node* n = find_node(h);
    D4R_CPU_REFUSE_IF(!n, CUDA_ERROR_INVALID_VALUE);
    std::vector<CUgraphNode> list;
    for (Node* d : incoming ? n->deps : n->dependents) list.push_back(reinterpret_cast<CUgraphNode>(d));
    size_t capacity = *count;
    put_list(list, out, count);
    if (data)
        for (size_t i = 0; i < capacity; ++i) data[i] = CUgraphEdgeData{};
    return CUDA_SUCCESS;
}

CUresult cu_graph_node_get_dependencies(CUgraphNode h, CUgraphNode* out, size_t* count) {
    return node_edges(h, true, out, nullptr, count);
}
CUresult cu_graph_node_get_dependencies_v2(CUgraphNode h, CUgraphNode* out, CUgraphEdgeData* data, size_t* count) {
    return node_edges(h, true, out, data, count);
}
CUresult cu_graph_node_get_dependent_nodes(CUgraphNode h, CUgraphNode* out, size_t* count) {
    return node_edges(h, false, out, nullptr, count);
}
CUresult cu_graph_node_get_dependent_nodes_v2(CUgraphNode h, CUgraphNode* out, CUgraphEdgeData* data, size_t* count) {
    return node_edges(h, false, out, data, count);
}

CUresult cu_graph_add_dependencies_v2(CUgraph h, const CUgraphNode* from, const CUgraphNode* to,
                                      const CUgraphEdgeData* data, size_t n) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(n && (!from || !to), CUDA_ERROR_INVALID_VALUE);
    if (!default_edges(data, n)) {
        return refuse(
            CUDA_ERROR_NOT_SUPPORTED,
            "cpu backend: cuGraphAddDependencies refuses edge data other than the default (ports, programmatic)");
    }
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(h);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    // All checked before any is added.
    std::vector<std::pair<Node*, Node*>> edges;
    for (size_t i = 0; i < n; ++i) {
        Node* a = find_node(from[i]);
        Node* b = find_node(to[i]);
        D4R_CPU_REFUSE_IF(!a || !b || a->graph != g || b->graph != g || a == b, CUDA_ERROR_INVALID_VALUE);
        D4R_CPU_REFUSE_IF(std::find(a->dependents.begin(), a->dependents.end(), b) != a->dependents.end(),
                          CUDA_ERROR_INVALID_VALUE);
        for (auto& e : edges) D4R_CPU_REFUSE_IF(e.first == a && e.second == b, CUDA_ERROR_INVALID_VALUE);
        edges.emplace_back(a, b);
    }
    for (auto& [a, b] : edges) {
        a->dependents.push_back(b);
        b->deps.push_back(a);
    }
    return CUDA_SUCCESS;
}

CUresult cu_graph_add_dependencies(CUgraph h, const CUgraphNode* from, const CUgraphNode* to, size_t n) {
    return cu_graph_add_dependencies_v2(h, from, to, nullptr, n);
}

CUresult cu_graph_remove_dependencies_v2(CUgraph h, const CUgraphNode* from, const CUgraphNode* to,
                                         const CUgraphEdgeData* data, size_t n) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(n && (!from || !to), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(!default_edges(data, n), CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(h);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    std::vector<std::pair<Node*, Node*>> edges;
    for (size_t i = 0; i < n; ++i) {
        Node* a = find_node(from[i]);
        Node* b = find_node(to[i]);
        D4R_CPU_REFUSE_IF(!a || !b || a->graph != g || b->graph != g, CUDA_ERROR_INVALID_VALUE);
        D4R_CPU_REFUSE_IF(std::find(a->dependents.begin(), a->dependents.end(), b) == a->dependents.end(),
                          CUDA_ERROR_INVALID_VALUE);
        edges.emplace_back(a, b);
    }
    for (auto& [a, b] : edges) {
        a->dependents.erase(std::find(a->dependents.begin(), a->dependents.end(), b));
        b->deps.erase(std::find(b->deps.begin(), b->deps.end(), a));
    }
    return CUDA_SUCCESS;
}

CUresult cu_graph_remove_dependencies(CUgraph h, const CUgraphNode* from, const CUgraphNode* to, size_t n) {
    return cu_graph_remove_dependencies_v2(h, from, to, nullptr, n);
}

CUresult cu_graph_destroy_node(CUgraphNode h) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    Node* n = find_node(h);
    D4R_CPU_REFUSE_IF(!n, CUDA_ERROR_INVALID_VALUE);
    for (Node* d : n->deps) d->dependents.erase(std::find(d->dependents.begin(), d->dependents.end(), n));
    for (Node* d : n->dependents) d->deps.erase(std::find(d->deps.begin(), d->deps.end(), n));
    Graph* g = n->graph;
    registry().nodes.erase(n);
    g->nodes.erase(std::find_if(g->nodes.begin(), g->nodes.end(), [&](auto& p) { return p.get() == n; }));
    return CUDA_SUCCESS;
}

CUresult cu_graph_node_get_type(CUgraphNode h, CUgraphNodeType* type) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!type, CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(graph_mutex());
    Node* n = find_node(h);
    D4R_CPU_REFUSE_IF(!n, CUDA_ERROR_INVALID_VALUE);
    *type = n->type;
    return CUDA_SUCCESS;
}

CUresult cu_graph_debug_dot_print(CUgraph, const char*, unsigned int) {
    if (CUresult r = check_init()) return r;
    if (log::once("cpu:graph-dot"))
        log::info("cpu backend: cuGraphDebugDotPrint is not implemented (CUDA_ERROR_NOT_SUPPORTED)");
    return CUDA_ERROR_NOT_SUPPORTED;
}

// ---- Instantiation and launch ----------------------------------------------------------------------------

constexpr uint64_t kInstantiateFlags = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                       CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                                       CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;

CUresult instantiate(CUgraphExec* ph, CUgraph hg, uint64_t flags, CUgraphInstantiateResult* result) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!ph, CUDA_ERROR_INVALID_VALUE);
    *ph = nullptr;
    if (result) *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    if (flags & ~kInstantiateFlags) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: graph instantiation flags 0x{:x} refused (device launch is not supported)", flags);
    }
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    std::lock_guard lock(graph_mutex());
    Graph* g = find_graph(hg);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    auto exec = std::make_unique<Exec>();
    exec->graph = clone_graph(*g);
    exec->from = exec->graph->clone_of;
    exec->flags = flags;
    if (has_cycle(*exec->graph) || !topological_order(*exec->graph, exec->order)) {
        log::debug("cpu backend: graph instantiation refused: the graph has a cycle");
        if (result) *result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
        return CUDA_ERROR_INVALID_VALUE;
    }
    void* key = exec.get();
    registry().execs[key] = std::move(exec);
    *ph = reinterpret_cast<CUgraphExec>(key);
    if (result) *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult cu_graph_instantiate_with_flags(CUgraphExec* ph, CUgraph g, unsigned long long flags) {
    return instantiate(ph, g, flags, nullptr);
}

CUresult cu_graph_instantiate_with_params(CUgraphExec* ph, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS* p) {
    if (!p) {
        if (ph) *ph = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    p->hErrNode_out = nullptr;
    CUresult r = instantiate(ph, g, p->flags, &p->result_out);
    if (r == CUDA_SUCCESS && (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)) {
        // Nothing to upload on the cpu backend; the stream is still checked.
        StreamRef ref;
        if (CUresult rs = resolve_stream(p->hUploadStream, ref)) return rs;
    }
    return r;
}

CUresult cu_graph_instantiate_legacy(CUgraphExec* ph, CUgraph g, CUgraphNode* error_node, char* log_buffer,
                                     size_t size) {
    if (error_node) *error_node = nullptr;
    if (log_buffer && size) log_buffer[0] = '\0';
    CUresult r = instantiate(ph, g, 0, nullptr);
    if (r != CUDA_SUCCESS && log_buffer && size)
        std::snprintf(log_buffer, size, "graph has a cycle or an invalid handle");
    return r;
}

CUresult cu_graph_exec_get_flags(CUgraphExec h, cuuint64_t* flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!flags, CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(graph_mutex());
    Exec* e = find_exec(h);
    D4R_CPU_REFUSE_IF(!e, CUDA_ERROR_INVALID_VALUE);
    *flags = e->flags;
    return CUDA_SUCCESS;
}

} // namespace

bool default_edges(const CUgraphEdgeData* data, size_t n) {
    for (size_t i = 0; data && i < n; ++i)
        if (data[i].from_port || data[i].to_port || data[i].type) return false;
    return true;
}

void register_bodies(Graph& g) {
    for (auto& n : g.nodes)
        for (auto& body : n->bodies) {
            registry().graphs.emplace(body.get(), body);
            register_nodes(*body);
            register_bodies(*body);
        }
}

namespace {

CUresult cu_graph_exec_destroy(CUgraphExec h) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    // Launches already queued keep their own copies of every parameter.
    return registry().execs.erase(h) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_graph_upload(CUgraphExec h, CUstream stream) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    std::lock_guard lock(graph_mutex());
    return find_exec(h) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_graph_launch(CUgraphExec h, CUstream stream) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    if (CUresult r = ref.ctx->sticky.load()) return r;
    std::lock_guard lock(graph_mutex());
    Exec* e = find_exec(h);
    D4R_CPU_REFUSE_IF(!e, CUDA_ERROR_INVALID_VALUE);
    if (CUresult r =
            check_graph_allocations_free(*e->graph, e->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH))
        return r;
    if (has_conditional_nodes(*e->graph))
        if (CUresult r = start_conditional_launch(*e->graph, stream)) return r;
    return launch_graph_nodes(*e->graph, stream);
}

// ---- Executable-graph changes ----------------------------------------------------------------------------

template <typename Set>
CUresult with_exec_node(CUgraphExec he, CUgraphNode hn, CUgraphNodeType type, Set set) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    Exec* e = find_exec(he);
    D4R_CPU_REFUSE_IF(!e, CUDA_ERROR_INVALID_VALUE);
    auto it = e->from.find(reinterpret_cast<const Node*>(hn));
    D4R_CPU_REFUSE_IF(it == e->from.end() || it->second->type != type, CUDA_ERROR_INVALID_VALUE);
    return set(*it->second);
}

CUresult cu_graph_exec_kernel_node_set_params_v2(CUgraphExec he, CUgraphNode hn, const CUDA_KERNEL_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_exec_node(he, hn, CU_GRAPH_NODE_TYPE_KERNEL, [&](Node& n) { return set_kernel_params(n, *p); });
}

CUresult cu_graph_exec_kernel_node_set_params(CUgraphExec he, CUgraphNode hn, const CUDA_KERNEL_NODE_PARAMS_v1* p) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    CUDA_KERNEL_NODE_PARAMS v2 = from_v1(*p);
    return cu_graph_exec_kernel_node_set_params_v2(he, hn, &v2);
}

CUresult cu_graph_exec_memcpy_node_set_params(CUgraphExec he, CUgraphNode hn, const CUDA_MEMCPY3D* p, CUcontext) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_exec_node(he, hn, CU_GRAPH_NODE_TYPE_MEMCPY, [&](Node& n) { return set_memcpy_params(n, *p); });
}

CUresult cu_graph_exec_memset_node_set_params(CUgraphExec he, CUgraphNode hn, const CUDA_MEMSET_NODE_PARAMS* p,
                                              CUcontext) {
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    return with_exec_node(he, hn, CU_GRAPH_NODE_TYPE_MEMSET, [&](Node& n) { return set_memset_params(n, *p); });
}

CUresult cu_graph_exec_host_node_set_params(CUgraphExec he, CUgraphNode hn, const CUDA_HOST_NODE_PARAMS* p) {
    D4R_CPU_REFUSE_IF(!p || !p->fn, CUDA_ERROR_INVALID_VALUE);
    return with_exec_node(he, hn, CU_GRAPH_NODE_TYPE_HOST, [&](Node& n) {
        n.host = *p;
        return CUDA_SUCCESS;
    });
}

// Whether B's node I has the same dependencies, by creation index, as A's node I.
bool same_edges(const Graph& a, const Graph& b, size_t i) {
    std::unordered_map<const Node*, size_t> ia, ib;
    for (size_t k = 0; k < a.nodes.size(); ++k) ia[a.nodes[k].get()] = k;
    for (size_t k = 0; k < b.nodes.size(); ++k) ib[b.nodes[k].get()] = k;
    std::vector<size_t> da, db;
    for (Node* d : a.nodes[i]->deps) da.push_back(ia[d]);
    for (Node* d : b.nodes[i]->deps) db.push_back(ib[d]);
    std::sort(da.begin(), da.end());
    std::sort(db.begin(), db.end());
    return da == db;
}

// cuGraphExecUpdate: the graph must have the exec's topology (nodes paired in creation order, same types,
// same edges, child graphs and events unchanged); then every node's parameters are copied over.
CUresult exec_update(CUgraphExec he, CUgraph hg, CUgraphExecUpdateResult* result, CUgraphNode* error_node,
                     CUgraphNode* error_from) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(graph_mutex());
    Exec* e = find_exec(he);
    Graph* g = find_graph(hg);
    D4R_CPU_REFUSE_IF(!e || !g, CUDA_ERROR_INVALID_VALUE);
    Graph& mine = *e->graph;
    if (has_conditional_nodes(*g) || has_conditional_nodes(mine)) {
        if (result) *result = CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
        return refuse(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                      "cpu backend: cuGraphExecUpdate of graphs with conditional nodes is not supported");
    }
    auto fail = [&](CUgraphExecUpdateResult why, Node* node) {
        *result = why;
        if (error_node) *error_node = reinterpret_cast<CUgraphNode>(node);
        return refuse(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                      "cpu backend: cuGraphExecUpdate refused the update (result {})", static_cast<int>(why));
    };
    if (g->nodes.size() != mine.nodes.size()) return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, nullptr);
    for (size_t i = 0; i < g->nodes.size(); ++i) {
        Node& a = *g->nodes[i];
        Node& b = *mine.nodes[i];
        if (a.type != b.type) return fail(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, &a);
        if (!same_edges(*g, mine, i)) return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, &a);
        if (a.type == CU_GRAPH_NODE_TYPE_GRAPH || a.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
            a.type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
            if (a.type != CU_GRAPH_NODE_TYPE_GRAPH ? a.dptr != b.dptr : a.child->nodes.size() != b.child->nodes.size())
                return fail(CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED, &a);
        }
    }
    (void)error_from;
    for (size_t i = 0; i < g->nodes.size(); ++i) {
        Node& a = *g->nodes[i];
        Node& b = *mine.nodes[i];
        switch (a.type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            b.kernel = a.kernel;
            b.block = a.block;
            b.pointers.clear();
            for (void* p : a.pointers)
                b.pointers.push_back(b.block.data() + (static_cast<uint8_t*>(p) - a.block.data()));
            b.kernel.kernelParams = b.pointers.empty() ? nullptr : b.pointers.data();
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            b.copy = a.copy;
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            b.memset = a.memset;
            break;
        case CU_GRAPH_NODE_TYPE_HOST:
            b.host = a.host;
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
            b.event = a.event;
            break;
        case CU_GRAPH_NODE_TYPE_GRAPH:
            b.child = clone_graph(*a.child);
            break;
        default:
            break;
        }
        e->from[&a] = &b;
    }
    *result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult cu_graph_exec_update_v2(CUgraphExec he, CUgraph hg, CUgraphExecUpdateResultInfo* info) {
    D4R_CPU_REFUSE_IF(!info, CUDA_ERROR_INVALID_VALUE);
    *info = CUgraphExecUpdateResultInfo{};
    info->result = CU_GRAPH_EXEC_UPDATE_ERROR;
    return exec_update(he, hg, &info->result, &info->errorNode, &info->errorFromNode);
}

CUresult cu_graph_exec_update(CUgraphExec he, CUgraph hg, CUgraphNode* error_node, CUgraphExecUpdateResult* result) {
    D4R_CPU_REFUSE_IF(!error_node || !result, CUDA_ERROR_INVALID_VALUE);
    *error_node = nullptr;
    *result = CU_GRAPH_EXEC_UPDATE_ERROR;
    return exec_update(he, hg, result, error_node, nullptr);
}

} // namespace

// ---- Shared with the capture layer ------------------------------------------------------------------------

std::mutex& graph_mutex() { return state().graph_mutex; }

Graph* find_graph(CUgraph h) {
    auto it = registry().graphs.find(h);
    return it == registry().graphs.end() ? nullptr : it->second.get();
}

Node* find_node(CUgraphNode h) {
    auto it = registry().nodes.find(h);
    return it == registry().nodes.end() ? nullptr : static_cast<Node*>(it->first);
}

std::shared_ptr<Graph> exec_graph_copy(CUgraphExec h) {
    Exec* e = find_exec(h);
    if (!e) return nullptr;
    auto copy = clone_graph(*e->graph);
    copy->clone_of.clear();
    return copy;
}

std::shared_ptr<Graph> find_graph_shared(CUgraph h) {
    auto it = registry().graphs.find(h);
    return it == registry().graphs.end() ? nullptr : it->second;
}

CUgraph register_graph(std::shared_ptr<Graph> g) {
    register_nodes(*g);
    Graph* raw = g.get();
    registry().graphs[raw] = std::move(g);
    return reinterpret_cast<CUgraph>(raw);
}

void destroy_graph(CUgraph h) {
    auto it = registry().graphs.find(h);
    if (it == registry().graphs.end()) return;
    // Handles of nodes in embedded child graphs handed out by cuGraphChildGraphNodeGetGraph go too.
    std::vector<Graph*> stack{it->second.get()};
    while (!stack.empty()) {
        Graph* g = stack.back();
        stack.pop_back();
        for (auto& n : g->nodes) {
            registry().nodes.erase(n.get());
            if (n->child) {
                registry().graphs.erase(n->child.get());
                stack.push_back(n->child.get());
            }
            for (auto& body : n->bodies) { // a conditional node's bodies, registered when it was made
                registry().graphs.erase(body.get());
                stack.push_back(body.get());
            }
        }
    }
    registry().graphs.erase(h);
}

CUresult add_node(Graph& g, std::unique_ptr<Node> node, const std::vector<Node*>& deps, Node** out) {
    for (size_t i = 0; i < deps.size(); ++i) {
        D4R_CPU_REFUSE_IF(deps[i]->graph != &g, CUDA_ERROR_INVALID_VALUE);
        for (size_t j = 0; j < i; ++j) D4R_CPU_REFUSE_IF(deps[j] == deps[i], CUDA_ERROR_INVALID_VALUE);
    }
    Node* n = node.get();
    n->graph = &g;
    n->deps = deps;
    for (Node* d : deps) d->dependents.push_back(n);
    g.nodes.push_back(std::move(node));
    registry().nodes[n] = &g;
    if (out) *out = n;
    return CUDA_SUCCESS;
}

std::shared_ptr<Graph> clone_graph(const Graph& g) {
    auto copy = std::make_shared<Graph>();
    copy->memory = g.memory;
    copy->conditionals = g.conditionals; // the same handles: kernels of every copy name them
    for (auto& n : g.nodes) {
        auto c = std::make_unique<Node>(*n);
        c->graph = copy.get();
        c->deps.clear();
        c->dependents.clear();
        if (c->type == CU_GRAPH_NODE_TYPE_KERNEL) {
            for (auto& p : c->pointers) p = c->block.data() + (static_cast<uint8_t*>(p) - n->block.data());
            c->kernel.kernelParams = c->pointers.empty() ? nullptr : c->pointers.data();
        }
        if (c->child) {
            c->child = clone_graph(*n->child);
            c->child->clone_of.clear();
        }
        for (auto& body : c->bodies) {
            body = clone_graph(*body);
            body->clone_of.clear();
        }
        copy->clone_of[n.get()] = c.get();
        copy->nodes.push_back(std::move(c));
    }
    for (auto& n : g.nodes) {
        Node* c = copy->clone_of[n.get()];
        for (Node* d : n->deps) c->deps.push_back(copy->clone_of[d]);
        for (Node* d : n->dependents) c->dependents.push_back(copy->clone_of[d]);
    }
    return copy;
}

CUresult set_kernel_params(Node& n, const CUDA_KERNEL_NODE_PARAMS& p) {
    // CUDA 12 names the function by func, or by kern (a CUkernel) with func left null.
    CUfunction h = p.func ? p.func : reinterpret_cast<CUfunction>(p.kern);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_VALUE);
    if (!p.gridDimX || !p.gridDimY || !p.gridDimZ || !p.blockDimX || !p.blockDimY || !p.blockDimZ)
        return CUDA_ERROR_INVALID_VALUE;
    std::vector<uint8_t> block;
    if (CUresult r = build_params(*f->kernel, p.kernelParams, p.extra, block)) return r;
    n.block = std::move(block);
    n.pointers.clear();
    for (const ptx::ParamInfo& param : f->kernel->info().params) n.pointers.push_back(n.block.data() + param.offset);
    n.kernel = p;
    n.kernel.func = h;
    n.kernel.kern = nullptr;
    n.kernel.extra = nullptr;
    n.kernel.kernelParams = n.pointers.empty() ? nullptr : n.pointers.data();
    return CUDA_SUCCESS;
}

CUresult set_memcpy_params(Node& n, const CUDA_MEMCPY3D& p) {
    D4R_CPU_REFUSE_IF(!p.WidthInBytes || !p.Height || !p.Depth, CUDA_ERROR_INVALID_VALUE);
    n.copy = p;
    return CUDA_SUCCESS;
}

CUresult set_memset_params(Node& n, const CUDA_MEMSET_NODE_PARAMS& p) {
    D4R_CPU_REFUSE_IF(p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(!p.dst || !p.width || !p.height, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(p.height > 1 && p.pitch < p.width * p.elementSize, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(!find_region(p.dst, 0), CUDA_ERROR_INVALID_VALUE);
    n.memset = p;
    return CUDA_SUCCESS;
}

CUresult launch_graph_nodes(const Graph& g, CUstream stream) {
    std::vector<Node*> order;
    D4R_CPU_REFUSE_IF(!topological_order(g, order), CUDA_ERROR_INVALID_VALUE);
    const ApiTable& t = direct_table();
    for (Node* n : order) {
        CUresult r = CUDA_SUCCESS;
        switch (n->type) {
        case CU_GRAPH_NODE_TYPE_KERNEL: {
            const CUDA_KERNEL_NODE_PARAMS& k = n->kernel;
            r = t.cuLaunchKernel(k.func, k.gridDimX, k.gridDimY, k.gridDimZ, k.blockDimX, k.blockDimY, k.blockDimZ,
                                 k.sharedMemBytes, stream, k.kernelParams, nullptr);
            break;
        }
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            r = t.cuMemcpy3DAsync_v2(&n->copy, stream);
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET: {
            const CUDA_MEMSET_NODE_PARAMS& m = n->memset;
            size_t pitch = m.height > 1 ? m.pitch : m.width * m.elementSize;
            if (m.elementSize == 1)
                r = t.cuMemsetD2D8Async(m.dst, pitch, static_cast<unsigned char>(m.value), m.width, m.height, stream);
            else if (m.elementSize == 2)
                r = t.cuMemsetD2D16Async(m.dst, pitch, static_cast<unsigned short>(m.value), m.width, m.height, stream);
            else
                r = t.cuMemsetD2D32Async(m.dst, pitch, m.value, m.width, m.height, stream);
            break;
        }
        case CU_GRAPH_NODE_TYPE_HOST:
            r = t.cuLaunchHostFunc(stream, n->host.fn, n->host.userData);
            break;
        case CU_GRAPH_NODE_TYPE_GRAPH:
            r = launch_graph_nodes(*n->child, stream);
            break;
        case CU_GRAPH_NODE_TYPE_CONDITIONAL:
            r = run_conditional_node(*n, stream);
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            r = t.cuEventRecord(n->event, stream);
            break;
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
            r = t.cuStreamWaitEvent(stream, n->event, 0);
            break;
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC: // the memory was allocated when the node was made: live again
            reallocate_retained_graph_allocation(n->dptr);
            break;
        case CU_GRAPH_NODE_TYPE_MEM_FREE: // kept mapped while its graph lives (GraphMemory), marked free
            (void)free_retained_graph_allocation(n->dptr);
            break;
        default:
            break; // EMPTY
        }
        if (r != CUDA_SUCCESS) {
            log::debug("cpu backend: graph launch: node of type {} failed with {}", static_cast<int>(n->type),
                       static_cast<int>(r));
            return r;
        }
    }
    return CUDA_SUCCESS;
}

void fill_graph(ApiTable& t) {
    t.cuGraphCreate = cu_graph_create;
    t.cuGraphDestroy = cu_graph_destroy;
    t.cuGraphClone = cu_graph_clone;
    t.cuGraphNodeFindInClone = cu_graph_node_find_in_clone;
    t.cuGraphAddKernelNode = cu_graph_add_kernel_node;
    t.cuGraphAddKernelNode_v2 = cu_graph_add_kernel_node_v2;
    t.cuGraphKernelNodeGetParams = cu_graph_kernel_node_get_params;
    t.cuGraphKernelNodeGetParams_v2 = cu_graph_kernel_node_get_params_v2;
    t.cuGraphKernelNodeSetParams = cu_graph_kernel_node_set_params;
    t.cuGraphKernelNodeSetParams_v2 = cu_graph_kernel_node_set_params_v2;
    t.cuGraphAddMemcpyNode = cu_graph_add_memcpy_node;
    t.cuGraphMemcpyNodeGetParams = cu_graph_memcpy_node_get_params;
    t.cuGraphMemcpyNodeSetParams = cu_graph_memcpy_node_set_params;
    t.cuGraphAddMemsetNode = cu_graph_add_memset_node;
    t.cuGraphMemsetNodeGetParams = cu_graph_memset_node_get_params;
    t.cuGraphMemsetNodeSetParams = cu_graph_memset_node_set_params;
    t.cuGraphAddHostNode = cu_graph_add_host_node;
    t.cuGraphHostNodeGetParams = cu_graph_host_node_get_params;
    t.cuGraphHostNodeSetParams = cu_graph_host_node_set_params;
    t.cuGraphAddChildGraphNode = cu_graph_add_child_graph_node;
    t.cuGraphChildGraphNodeGetGraph = cu_graph_child_graph_node_get_graph;
    t.cuGraphAddEmptyNode = cu_graph_add_empty_node;
    t.cuGraphAddEventRecordNode = cu_graph_add_event_record_node;
    t.cuGraphAddEventWaitNode = cu_graph_add_event_wait_node;
    t.cuGraphEventRecordNodeGetEvent = cu_graph_event_record_node_get_event;
    t.cuGraphEventWaitNodeGetEvent = cu_graph_event_wait_node_get_event;
    t.cuGraphGetNodes = cu_graph_get_nodes;
    t.cuGraphGetRootNodes = cu_graph_get_root_nodes;
    t.cuGraphGetEdges = cu_graph_get_edges;
    t.cuGraphGetEdges_v2 = cu_graph_get_edges_v2;
    t.cuGraphNodeGetDependencies = cu_graph_node_get_dependencies;
    t.cuGraphNodeGetDependencies_v2 = cu_graph_node_get_dependencies_v2;
    t.cuGraphNodeGetDependentNodes = cu_graph_node_get_dependent_nodes;
    t.cuGraphNodeGetDependentNodes_v2 = cu_graph_node_get_dependent_nodes_v2;
    t.cuGraphAddDependencies = cu_graph_add_dependencies;
    t.cuGraphAddDependencies_v2 = cu_graph_add_dependencies_v2;
    t.cuGraphRemoveDependencies = cu_graph_remove_dependencies;
    t.cuGraphRemoveDependencies_v2 = cu_graph_remove_dependencies_v2;
    t.cuGraphDestroyNode = cu_graph_destroy_node;
    t.cuGraphNodeGetType = cu_graph_node_get_type;
    t.cuGraphDebugDotPrint = cu_graph_debug_dot_print;
    t.cuGraphInstantiate = cu_graph_instantiate_legacy;
    t.cuGraphInstantiate_v2 = cu_graph_instantiate_legacy;
    t.cuGraphInstantiateWithFlags = cu_graph_instantiate_with_flags;
    t.cuGraphInstantiateWithParams = cu_graph_instantiate_with_params;
    t.cuGraphExecGetFlags = cu_graph_exec_get_flags;
    t.cuGraphUpload = cu_graph_upload;
    t.cuGraphLaunch = cu_graph_launch;
    t.cuGraphExecDestroy = cu_graph_exec_destroy;
    t.cuGraphExecKernelNodeSetParams = cu_graph_exec_kernel_node_set_params;
    t.cuGraphExecKernelNodeSetParams_v2 = cu_graph_exec_kernel_node_set_params_v2;
    t.cuGraphExecMemcpyNodeSetParams = cu_graph_exec_memcpy_node_set_params;
    t.cuGraphExecMemsetNodeSetParams = cu_graph_exec_memset_node_set_params;
    t.cuGraphExecHostNodeSetParams = cu_graph_exec_host_node_set_params;
    t.cuGraphExecUpdate = cu_graph_exec_update;
    t.cuGraphExecUpdate_v2 = cu_graph_exec_update_v2;
}

} // namespace d4r::runtime::cpu
