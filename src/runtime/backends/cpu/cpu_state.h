// cpu backend internals: the state behind the ptxsim backend's C entry points.
//
// Every object the API hands out lives in one State, which the backend object owns (make_cpu_backend):
// destroying the backend destroys its contexts (their workers stopped), modules, graphs, captures, pools
// and sticky faults. The ApiTable holds plain C function pointers, so the entry points reach their State
// through state(): on a context's worker thread the State of that context, elsewhere the State of the most
// recently made cpu backend still alive (the active one; tests that make fresh backends get fresh state,
// and when one is destroyed the one made before it is active again). A concept file that keeps state of
// its own (graphs, captures, pools, ...) keeps it in a StatePart, reached through State::part<T>().
// Handles are the addresses of objects owned by registries; every entry point looks its handles up (under
// State::mutex) and answers CUDA_ERROR_INVALID_HANDLE / INVALID_CONTEXT / INVALID_VALUE for anything
// unknown or destroyed, so a bad handle never reaches a dereference.
//
// Execution model: each context has one worker thread that runs every queued operation (launch, async
// copy, memset, event record, callback, stream wait) in submission order, whatever stream it was queued
// on. That honours every ordering CUDA promises (a stream's order, the legacy stream's implicit
// synchronisation, events) with one queue; streams only remember the sequence number of their last
// operation so that queries and synchronisation can wait for exactly that much.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ptxsim/ptxsim.h"
#include "runtime/api_table.h"
#include "runtime/refusal.h"

// Returns CODE from the enclosing function when COND holds, giving the function and the condition's text
// as the reason (refusal.h: logged at debug level, shown by the trace).
#define D4R_CPU_REFUSE_IF(cond, code) D4R_CU_INVALID_IF(cond, code, "cpu backend: {}: refused: {}", __func__, #cond)

namespace d4r::runtime::cpu {

using namespace d4r::abi;

inline constexpr const char* kDeviceName = "d4r CPU (ptxsim)";
inline constexpr int kDriverVersion = 13000;
inline constexpr int kMaxThreadsPerBlock = 1024;
inline constexpr int kDefaultSharedPerBlock = 48 * 1024;
inline constexpr int kOptinSharedPerBlock = 227 * 1024;
inline constexpr int kSharedPerSm = 228 * 1024;
inline constexpr int kReservedSharedPerBlock = 1024;
inline constexpr int kRegistersPerSm = 65536;
inline constexpr int kMaxThreadsPerSm = 2048;
inline constexpr int kMaxBlocksPerSm = 32;
// ptxsim has no register allocator; every function reports this many registers per thread (what nvcc
// typically gives small kernels on sm_90) so occupancy arithmetic and tools see a plausible number.
inline constexpr int kReportedRegsPerThread = 32;
inline constexpr int kStreamPriorityLeast = 0;
inline constexpr int kStreamPriorityGreatest = -5;

struct Context;
struct State;

// Launch back-pressure: a context's queue holds about a thousand operations before the thread that queues
// more waits (NVIDIA's driver blocks a launching thread at about a thousand pending launches); it goes on
// once the worker has drained the queue to three quarters of that.
inline constexpr size_t kMaxPending = 1024;
inline constexpr size_t kResumePending = 768;

// One queued operation. STATUS is the context's sticky error when it runs (CUDA_SUCCESS normally): an
// operation skips its work after a fault, except host callbacks, which receive the status.
using Task = std::function<void(CUresult status)>;

struct Stream {
    Context* ctx = nullptr;
    unsigned flags = 0;
    int priority = 0;
    std::atomic<uint64_t> last_seq{0}; // sequence number of its last queued operation
    // cuStreamSetAttribute values by CUstreamAttrID, stored and returned (cpu_stream_ext.cpp).
    std::mutex attributes_mutex;
    std::map<int, CUlaunchAttributeValue> attributes;
};

struct Context {
    Context();  // owned by the calling thread's state()
    ~Context(); // stops the worker after the queue drains

    State* const owner; // the State that holds it: its worker's state()
    CUdevice device = 0;
    unsigned flags = 0;
    bool primary = false;
    size_t limits[7] = {1024, 1u << 20, 8u << 20, 2, 2048, 0, 0}; // CUlimit values, stored and returned
    // The heap of malloc/free in kernels (cpu_heap.cpp): made at the first launch of a kernel whose module
    // calls them, limits[CU_LIMIT_MALLOC_HEAP_SIZE] bytes of device memory; from then on that limit is fixed.
    std::mutex heap_mutex;
    std::shared_ptr<ptxsim::DeviceHeap> heap;
    CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
    std::atomic<CUresult> sticky{CUDA_SUCCESS};
    Stream null_stream;

    // Queues TASK on STREAM (the null stream when STREAM is null); returns its sequence number. Never
    // blocks (callers may hold locks): a queue that reaches kMaxPending marks the calling thread, and the
    // entry layer makes it wait in apply_back_pressure once the call has returned. A worker thread (a host
    // callback queuing work) is never marked: it is what drains the queues.
    uint64_t submit(Stream* stream, Task task);
    // Waits until the queue holds kResumePending operations or fewer (or the context stops).
    void throttle();
    // Whether operation SEQ has run; blocks until it has.
    bool done(uint64_t seq) const { return m_completed.load(std::memory_order_acquire) >= seq; }
    void wait(uint64_t seq);
    // Waits for everything queued so far.
    void drain();
    // Whether the caller is this context's worker (a host function or stream callback running): it must
    // not wait for work queued after itself, which only it could run (CUDA forbids synchronising there).
    bool on_worker() const { return std::this_thread::get_id() == m_thread.get_id(); }
    // The sequence number of the last operation queued so far.
    uint64_t submitted() {
        std::lock_guard lock(m_mutex);
        return m_submitted;
    }
    // Whether everything queued so far has run.
    bool idle();
    // Records a fault: the first one sticks (every later call made with the context current returns it,
    // cpu_entry_layer.cpp).
    void fail(CUresult r);

private:
    void loop();

    std::mutex m_mutex;
    std::condition_variable m_work;
    std::condition_variable m_idle;
    std::condition_variable m_room; // the queue drained to kResumePending (guarded by m_mutex)
    int m_throttled = 0;            // threads waiting in throttle()
    // Sequence numbers threads are waiting for (guarded by m_mutex): the worker wakes waiters only when
    // the lowest one completes, not after every task (a wake-up per launch costs two context switches).
    std::multiset<uint64_t> m_wait_targets;
    std::deque<std::pair<uint64_t, Task>> m_queue;
    uint64_t m_submitted = 0;
    std::atomic<uint64_t> m_completed{0};
    bool m_stop = false;
    std::thread m_thread;
};

struct Event {
    Context* owner = nullptr;
    unsigned flags = 0;
    // Set under State::mutex when recorded; `ctx` keeps the recording context alive for queries.
    std::shared_ptr<Context> ctx;
    uint64_t seq = 0;
    bool recorded = false;
    // Steady-clock time, written by the worker when it reaches the record; one slot per record so that
    // the queued record holds neither the event nor its context.
    std::shared_ptr<std::atomic<int64_t>> time_ns;
};

struct Function;

struct Module {
    ~Module(); // gives its variables' bytes back to the memory budget
    Context* ctx = nullptr;
    std::shared_ptr<ptxsim::Module> sim;
    std::vector<uint64_t> globals; // region bases registered for the module's variables
    uint64_t global_bytes = 0;     // their size, counted in the memory budget (cpu_memory_budget.h)
    std::map<std::string, Function*, std::less<>> functions;
    std::set<std::string, std::less<>> refused; // kernels ptxsim cannot run, already logged
};

struct Function {
    Module* module = nullptr;
    std::shared_ptr<ptxsim::Module> sim; // keeps the kernel alive while launches are queued
    const ptxsim::Kernel* kernel = nullptr;
    std::atomic<int> max_dynamic_shared{0}; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    std::atomic<int> carveout{-1};
    std::atomic<CUfunc_cache> cache_config{CU_FUNC_CACHE_PREFER_NONE};
    // The kernel compiled by the PTX JIT (D4R_CPU_EXEC=jit), tried at its first launch; null: interpreted.
    std::once_flag compile_once;
    std::shared_ptr<const ptxsim::CompiledKernel> compiled;
    std::once_flag said_shape; // a launch its warp code is not for (whole warps in x) said once
};

// Whether kernels run compiled by the PTX JIT (D4R_CPU_EXEC; cpu_jit.cpp), read once and said in the log (info).
bool jit_enabled();
// F's compiled kernel when D4R_CPU_EXEC=jit (the default) and the JIT compiles it (cpu_jit.cpp): compiled at the
// first call, or loaded from the JIT's compile cache; a refusal or a missing libLLVM logged once with the reason; null
// otherwise.
std::shared_ptr<const ptxsim::CompiledKernel> compiled_kernel(Function& f);

// The most threads a block of F may have: 1024, or less when the kernel's .maxntid / .reqntid says so.
int function_max_threads(const Function& f);
// KERNEL's parameter block from cuLaunchKernel's KERNEL_PARAMS or EXTRA (cpu_launch.cpp).
CUresult build_params(const ptxsim::Kernel& kernel, void** params, void** extra, std::vector<uint8_t>& block);

// A CUDA array: packed texels in a Device allocation (registered as a RegionKind::Array region).
struct Array {
    Context* ctx = nullptr;
    CUDA_ARRAY3D_DESCRIPTOR desc{}; // Height/Depth as given (0 for fewer dimensions)
    bool created_3d = false;        // by cuArray3DCreate
    uint64_t base = 0;              // own packed storage (3D and layered arrays), or
    uint64_t sim = 0;               // a ptxsim array (1D and 2D arrays: what texture and surface objects can use)
    uint64_t element_bytes = 0;
    bool mipmap_level = false; // a level of a mipmapped array (cpu_external.cpp): destroyed with it, not alone
    uint64_t row_bytes() const { return desc.Width * element_bytes; }
    uint64_t height() const { return desc.Height ? desc.Height : 1; }
    uint64_t depth() const { return desc.Depth ? desc.Depth : 1; }
};

// A library is context-independent (as in NVIDIA's driver): it keeps a copy of its image and loads it
// into a context the first time it is used there (cpu_library.cpp).
struct Library {
    std::vector<uint8_t> image;
    const void* origin = nullptr;         // where the caller's image was (device-linked code is found from it)
    std::map<Context*, CUmodule> modules; // guarded by State::mutex
};

// A CUkernel: a library's function by name, resolved to the current context's CUfunction when used.
// cuLaunchKernel and the cuFunc* calls accept it in place of a CUfunction.
struct Kernel {
    Library* library = nullptr;
    std::string name;
};

// Device: cuMemAlloc; HostAlloc: cuMemHostAlloc; HostRegistered: cuMemHostRegister (caller's memory);
// Managed: cuMemAllocManaged; Mapped: a cuMemMap'd piece of a reserved range (cpu_vmm.cpp);
// ModuleGlobal: a module variable; Array: array storage.
// External: a buffer of imported external memory (cpu_external.cpp).
enum class RegionKind { Device, HostAlloc, HostRegistered, ModuleGlobal, Array, Managed, Mapped, External };

// A range of addresses the API knows about (device pointers are host addresses in this backend).
struct Region {
    uint64_t base = 0;
    uint64_t size = 0;
    RegionKind kind = RegionKind::Device;
    Context* ctx = nullptr;
    unsigned flags = 0;
    uint64_t id = 0; // CU_POINTER_ATTRIBUTE_BUFFER_ID
};

// Region::flags of a ModuleGlobal declared `.attribute(.managed)`: managed memory the host may use.
inline constexpr unsigned kManagedModuleGlobal = 1u << 31;

// Managed memory: cuMemAllocManaged's, or a module's `.managed` variable.
inline bool is_managed(const Region& r) {
    return r.kind == RegionKind::Managed || (r.kind == RegionKind::ModuleGlobal && (r.flags & kManagedModuleGlobal));
}

struct PrimaryState {
    std::shared_ptr<Context> ctx;
    int refs = 0;
    unsigned flags = 0;
};

// What one concept file keeps (the graph registry, the captures, the pools, ...): a type derived from
// StatePart that names its slot, `static constexpr PartSlot kSlot`.
struct StatePart {
    virtual ~StatePart() = default;
};
enum class PartSlot : uint8_t {
    Graphs,       // cpu_graph.cpp: graphs, nodes and executable graphs
    Conditionals, // cpu_graph_nodes.cpp: conditional handles
    GraphMemory,  // cpu_graph_nodes.cpp: accounting of graph allocations
    Captures,     // cpu_capture.cpp
    Pools,        // cpu_mempool.cpp
    Vmm,          // cpu_vmm.cpp
    Textures,     // cpu_texture.cpp: resource descriptors of texture and surface objects
    External,     // cpu_external.cpp: imported memories
    Links,        // cpu_link.cpp: link states
    Managed,      // cpu_managed.cpp: advice on managed memory
    Legacy,       // cpu_legacy.cpp: cuCtxAttach references
    Budget,       // cpu_memory_budget.cpp: bytes held besides allocations
    Count
};

struct State {
    State() = default;
    // Runs the work still queued, then destroys the parts (a graph's memory goes back through its
    // context's worker, which still runs), the objects and last the contexts (their workers stopped).
    ~State();
    State(const State&) = delete;
    State& operator=(const State&) = delete;

    // The part T keeps, made on first use; the same object for the State's life. T names its slot, so
    // the slot always holds a T.
    template <class T>
    T& part() {
        static_assert(std::is_base_of_v<StatePart, T>, "a State part derives from StatePart");
        std::atomic<StatePart*>& slot = m_parts[static_cast<size_t>(T::kSlot)];
        StatePart* p = slot.load(std::memory_order_acquire);
        if (!p) {
            std::lock_guard lock(m_parts_mutex);
            p = slot.load(std::memory_order_relaxed);
            if (!p) {
                auto made = std::make_unique<T>();
                p = made.get();
                m_owned_parts.push_back(std::move(made));
                slot.store(p, std::memory_order_release);
            }
        }
        return static_cast<T&>(*p);
    }

    std::mutex mutex; // guards everything below except the device and the regions
    std::atomic<bool> initialized{false};
    // Contexts alive with a sticky error: while there is none, the entry layer costs one load per call.
    std::atomic<int> faulted_contexts{0};
    ptxsim::Device device;

    std::unordered_map<void*, std::shared_ptr<Context>> contexts;
    std::unordered_map<void*, std::shared_ptr<Stream>> streams;
    std::unordered_map<void*, std::shared_ptr<Event>> events;
    std::unordered_map<void*, std::shared_ptr<Module>> modules;
    std::unordered_map<void*, std::shared_ptr<Function>> functions;
    std::unordered_map<void*, std::shared_ptr<Library>> libraries;
    std::unordered_map<void*, std::shared_ptr<Kernel>> kernels;
    std::unordered_map<void*, std::shared_ptr<Array>> arrays;
    PrimaryState primary;

    mutable std::shared_mutex regions_mutex;
    std::map<uint64_t, Region> regions; // by base
    uint64_t next_buffer_id = 1;

    // Graphs, captures and conditional handles (cpu_graph.h: graph_mutex()).
    std::mutex graph_mutex;

private:
    std::mutex m_parts_mutex;
    std::vector<std::unique_ptr<StatePart>> m_owned_parts; // destroyed in reverse order of making
    std::array<std::atomic<StatePart*>, static_cast<size_t>(PartSlot::Count)> m_parts{};
};

namespace detail {
// BoundState's binding (a worker's context's State, or one being destroyed) and the newest live State.
// Constant-initialised, so reading them needs no guard or TLS wrapper: they are read on every API call.
extern constinit thread_local State* t_bound;
extern constinit std::atomic<State*> g_active;
} // namespace detail

// The calling thread's State (the header comment says which); null when no cpu backend is alive.
inline State* active_state() {
    if (State* s = detail::t_bound) return s;
    return detail::g_active.load(std::memory_order_acquire);
}
// active_state(), for code that only runs while a backend is alive (every entry point below the entry
// layer, which answers CUDA_ERROR_DEINITIALIZED when none is).
inline State& state() { return *active_state(); }

// The backend object's side (cpu_backend.cpp): STATE becomes the active one while it lives.
void activate(State* state);
void retire(State* state); // no longer active; the one made before it (still alive) is

// Makes STATE the calling thread's state() while the object lives (a context's worker, the destruction
// of a State).
class BoundState {
public:
    explicit BoundState(State* state);
    ~BoundState();
    BoundState(const BoundState&) = delete;
    BoundState& operator=(const BoundState&) = delete;

private:
    State* m_previous;
};

// ---- Lookups and checks (take State::mutex themselves) ------------------------------------------------

inline CUresult check_init() { return state().initialized.load() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }

// The calling thread's current context: INVALID_CONTEXT when there is none or it was destroyed.
CUresult current_context(std::shared_ptr<Context>& out);
std::shared_ptr<Context> find_context(CUcontext h);
// The context stack of the calling thread (top = back).
std::vector<CUcontext>& context_stack();

// A stream and what keeps it alive while an entry point uses it.
struct StreamRef {
    std::shared_ptr<Context> ctx;
    std::shared_ptr<Stream> owned; // empty for a context's null stream
    Stream* stream = nullptr;
};
// H may be the null stream, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD (the current context's null
// stream) or a stream handle. A stream whose context was destroyed is INVALID_HANDLE.
CUresult resolve_stream(CUstream h, StreamRef& out);
inline bool is_special_stream(CUstream h) {
    return h == nullptr || h == D4R_CU_STREAM_LEGACY || h == D4R_CU_STREAM_PER_THREAD;
}
std::shared_ptr<Event> find_event(CUevent h);
// A function handle, or a CUkernel (resolved in the current context, its library loaded there if needed).
std::shared_ptr<Function> find_function(CUfunction h);
std::shared_ptr<Module> find_module(CUmodule h);

// ---- Modules (cpu_module.cpp), shared with the libraries ----------------------------------------------

// Loads IMAGE (SIZE bytes, or 0 to find its extent) into the current context. ORIGIN: where the caller's
// image lives when IMAGE is a copy of it (a library's), for device-linked code (cpu_image.h).
CUresult load_module(CUmodule* module, const void* image, size_t size, std::string name, unsigned n,
                     CUjit_option* options, void** values, const void* origin = nullptr);
CUresult unload_module(CUmodule h);
CUresult get_function(CUfunction* out, CUmodule h, const char* name);
CUresult get_global(CUdeviceptr* dptr, size_t* bytes, CUmodule h, const char* name);
// The function a CUkernel stands for in the current context; null when H is no kernel or it cannot be
// loaded there (cpu_library.cpp).
std::shared_ptr<Function> kernel_function(CUfunction h);

// ---- Address regions ---------------------------------------------------------------------------------

void add_region(const Region& region);
bool remove_region(uint64_t base, Region* removed = nullptr);
// The region holding [ADDRESS, ADDRESS + BYTES) (BYTES may be 0: the byte at ADDRESS must be inside).
bool find_region(uint64_t address, uint64_t bytes, Region* out = nullptr);
// Whether [ADDRESS, ADDRESS + BYTES) is covered by adjacent RegionKind::Mapped regions (VMM pieces
// mapped back to back).
bool mapped_span(uint64_t address, uint64_t bytes);
// Frees every allocation owned by CTX (context destruction).
void release_context_regions(Context* ctx);

// Memory ptxsim did not allocate (registered host memory, cuMemMap'd ranges) made reachable by kernels:
// a foreign range of ptxsim::Device (Device::add_foreign), bounds-checked like every kernel access and
// never freed by ptxsim. hide_from_kernels(BASE) takes it out again.
void expose_to_kernels(uint64_t base, uint64_t size);
void hide_from_kernels(uint64_t base);
// Whether [BASE, BASE + BYTES) overlaps address space reserved with cuMemAddressReserve (cpu_vmm.cpp).
bool overlaps_reservation(uint64_t base, uint64_t bytes);

// Drops every object CTX owns (streams, events, modules, functions, regions). Caller holds no lock.
void release_context_objects(Context* ctx);

// ---- Table fillers (one per concept file) --------------------------------------------------------------

void fill_device(ApiTable& t);
void fill_context(ApiTable& t);
void fill_memory(ApiTable& t);
void fill_memcpy(ApiTable& t);
void fill_module(ApiTable& t);
void fill_launch(ApiTable& t);
void fill_stream(ApiTable& t);
void fill_event(ApiTable& t);
void fill_array(ApiTable& t);
void fill_texture(ApiTable& t);
void fill_library(ApiTable& t);
void fill_stream_ext(ApiTable& t); // stream attributes, stream memory operations, 2D async memsets
void fill_peer(ApiTable& t);       // peers and IPC
void fill_mempool(ApiTable& t);    // stream-ordered allocation and memory pools (wraps cuMemFree_v2)
void fill_graph(ApiTable& t);
void fill_graph_nodes(ApiTable& t); // conditional and memory nodes, cuGraphAddNode (cpu_graph_nodes.cpp)
void fill_link(ApiTable& t);
void fill_vmm(ApiTable& t);
void fill_external(ApiTable& t);
// cuMemFree of a buffer of external memory (cpu_external.cpp): unregisters it (the memory stays mapped
// until cuDestroyExternalMemory); INVALID_VALUE when P is no such buffer.
CUresult free_external_buffer(CUdeviceptr p);
bool is_external_buffer(CUdeviceptr p);
void fill_managed(ApiTable& t);
// The unversioned and legacy names (cpu_legacy.cpp); runs after the fillers above.
void fill_legacy(ApiTable& t);
// Wraps every entry point that stream capture changes (cpu_capture.cpp).
void fill_capture(ApiTable& t);
// Last: sticky errors (every entry point that uses the current context answers its fault) and launch
// back-pressure, around every entry point (cpu_entry_layer.cpp).
void fill_entry_layer(ApiTable& t);
// Called by the entry layer after each call, holding no lock: when the call left its context's queue at
// kMaxPending operations or more, waits until the worker has drained it to kResumePending.
void apply_back_pressure();

// Drops what cuMemAdvise and prefetches recorded for the managed allocation of region REGION_ID.
void forget_managed(uint64_t region_id);

// The number of "multiprocessors" reported (host cores).
int sm_count();

} // namespace d4r::runtime::cpu
