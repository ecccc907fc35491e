// fuzz_cuda_api: what the files of the CUDA driver API fuzzer share (tests/fuzz/fuzz_cuda_api.cpp and
// tests/fuzz/cuda_api/*.cpp, one fuzzer binary).
//
// Promise: the input reader, the harness's host memory, the pool of handles and addresses every call
// draws from and the helpers that pick hostile arguments; one op_<family>(Input&) per API family, each
// making one call of that family from the input. Nothing here is d4r: the harness only calls the cpu
// backend's table (T) and checks the invariants fuzz_cuda_api.cpp states.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/log.h"
#include "runtime/backend.h"

namespace fuzz_api {

using namespace d4r::abi;

extern const d4r::runtime::ApiTable* T;
// Passing a freed device or pinned pointer where d4r takes unknown addresses for pageable host memory
// (cuMemcpy, the host sides of copies) reads freed heap memory that is still mapped: d4r cannot tell it
// from live host memory (NVIDIA's driver cannot either; it crashes). Off, so CI stays green; set
// FUZZ_CUDA_API_FREED_AS_HOST=1 to see it.
extern bool kFreedAsHost;

// cuMemHostRegister accepts memory that is not mapped (0x10, an inaccessible page) or is read-only, and a
// later memset, copy or kernel store to the "registered" range crashes the process (SIGSEGV in
// cpu_memory.cpp's memset); NVIDIA's driver refuses such a registration. Fixed (cuMemHostRegister now
// refuses such memory; the regression test is tests/runtime/cpu_host_register_test.cpp), so it is on;
// FUZZ_CUDA_API_REGISTER_UNMAPPED=0 turns it off.
extern bool kRegisterUnmapped;

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            std::fprintf(stderr, "fuzz_cuda_api: invariant failed at line %d: %s\n", __LINE__, #cond); \
            std::abort();                                                                              \
        }                                                                                              \
    } while (0)

// ---- Input ------------------------------------------------------------------------------------------

struct Input {
    const uint8_t* p;
    size_t n;
    bool empty() const { return n == 0; }
    uint8_t u8() {
        if (!n) return 0;
        --n;
        return *p++;
    }
    uint16_t u16() { return uint16_t(u8() | (u8() << 8)); }
    uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
    uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
    bool flip() { return u8() & 1; }
    size_t below(size_t k) { return k ? u8() % k : 0; }
    // The next BYTES bytes (fewer at the end) as an input of their own.
    Input take(size_t bytes) {
        size_t k = std::min(bytes, n);
        Input sub{p, k};
        p += k;
        n -= k;
        return sub;
    }
    void fill(void* dst, size_t bytes) {
        size_t k = std::min(bytes, n);
        std::memcpy(dst, p, k);
        std::memset(static_cast<uint8_t*>(dst) + k, 0, bytes - k);
        p += k;
        n -= k;
    }
};

// ---- Host memory the harness owns -------------------------------------------------------------------

// [ rw: 64 KiB | no access: 4 KiB | read-only: 4 KiB | no access: 4 KiB ], mapped once for the process.
inline constexpr size_t kPage = 4096;
inline constexpr size_t kRwBytes = 64 * 1024;
extern uint8_t* g_arena;
inline uint8_t* rw() { return g_arena; }
inline uint8_t* guard() { return g_arena + kRwBytes; }
inline uint8_t* read_only() { return g_arena + kRwBytes + kPage; }

// ---- The pool ---------------------------------------------------------------------------------------

struct Ptr {
    CUdeviceptr p = 0;
    size_t size = 0;
};

template <typename H>
struct Kind {
    std::vector<H> live, dead;
    void add(H h) {
        if (live.size() < 64) live.push_back(h);
    }
    void kill(H h) {
        auto it = std::find(live.begin(), live.end(), h);
        if (it == live.end()) return;
        live.erase(it);
        if (dead.size() < 16) dead.push_back(h);
    }
    bool has(H h) const { return std::find(live.begin(), live.end(), h) != live.end(); }
};

struct Pool {
    Kind<CUcontext> ctx;
    int primary_refs = 0;
    Kind<CUstream> stream;
    Kind<CUevent> event;
    Kind<CUmodule> module;
    Kind<CUfunction> function;
    Kind<CUfunction> fuzzed_function; // from fuzzed PTX: parameter layout unknown
    Kind<CUlibrary> library;
    Kind<CUkernel> kernel;
    Kind<CUarray> array;
    Kind<CUmipmappedArray> mipmap;
    Kind<CUtexObject> tex;
    Kind<CUsurfObject> surf;
    Kind<CUgraph> graph;
    Kind<CUgraphNode> node;
    Kind<CUgraphExec> exec;
    Kind<CUmemoryPool> mempool;
    Kind<CUlinkState> link;
    Kind<CUtexref> texref;
    Kind<CUmemGenericAllocationHandle> vmm;
    Kind<CUexternalMemory> extmem;
    std::vector<Ptr> reservations;    // cuMemAddressReserve
    std::vector<Ptr> registered;      // cuMemHostRegister'd ranges of the arena
    std::vector<Ptr> dev, dev_dead;   // device, managed, pool, pitched and module-global memory
    std::vector<Ptr> host, host_dead; // cuMemAllocHost / cuMemHostAlloc
    std::vector<Ptr> history;         // every range d4r handed out (freed ones stay mapped under ASan, or get reused)
};

extern Pool* P;

// A harness context that programs never see: it holds the word stream waits are satisfied by.
extern CUcontext g_home;
extern uint32_t* g_flag; // always 1
extern bool g_budget;    // whether D4R_CPU_MEMORY_LIMIT is honoured (cuMemGetInfo's total within it)

template <typename H>
H junk_handle(Input& in) {
    static const uint64_t values[] = {
        0, 0x10, 0x1, 0x2, 0xdeadbeef, ~0ull, 0x00007fff00000000ull, 0xffff800000000000ull};
    return (H)(uintptr_t)values[in.below(std::size(values))];
}

// A handle of kind K: mostly a live one, else a destroyed one, NULL or junk.
template <typename H>
H pick(Input& in, const Kind<H>& k) {
    uint8_t c = in.u8() % 16;
    if (c < 11 && !k.live.empty()) return k.live[in.below(k.live.size())];
    if (c < 13 && !k.dead.empty()) return k.dead[in.below(k.dead.size())];
    if (c == 13) return H{};
    return junk_handle<H>(in);
}

CUcontext pick_ctx(Input& in);
CUstream pick_stream(Input& in);
CUfunction pick_function(Input& in);
size_t huge_size(Input& in);
size_t pick_size(Input& in);
size_t alloc_size(Input& in);
CUdeviceptr pick_dptr(Input& in);
bool inside_history(uint64_t p);
bool known_to_d4r(uint64_t p);
void* pick_host(Input& in);
CUdeviceptr pick_unified(Input& in);
void remember_range(CUdeviceptr p, size_t size);
void remember_dev(CUdeviceptr p, size_t size);
void forget(std::vector<Ptr>& live, std::vector<Ptr>& dead, CUdeviceptr p);

// ---- Kernels, callbacks, launch parameters (fuzz_api_kernels.cpp) ----------------------------------

extern const char* kPtx;
// The fixed kernels, their parameter counts (entries of kernelParams d4r reads) and names.
struct KernelInfo {
    const char* name;
    int params;
};
inline constexpr KernelInfo kKernels[] = {{"add_one", 2},     {"store_at", 2},     {"spin", 2},    {"trapper", 0},
                                          {"uses_shared", 1}, {"bump_counter", 0}, {"tex_read", 3}};
inline constexpr int kMaxParams = 3;

// Values kernelParams entries point at, and the extra buffer: big enough for any parameter of the
// fixed kernels (fuzzed kernels are only launched with `extra`, whose buffer size d4r is told).
struct LaunchArgs {
    alignas(16) uint8_t values[kMaxParams + 5][16];
    void* params[kMaxParams + 5];
    alignas(16) uint8_t buffer[4096];
    size_t buffer_size;
    void* extra[9];
};

extern size_t g_b2d_value;
const char* pick_name(Input& in, std::string& scratch);
std::string fuzzed_ptx(Input& in);
void host_fn(void*);
void host_fn_sync(void* stream);
void stream_cb(CUstream, CUresult, void*);
size_t b2d(int);
CUhostFn pick_host_fn(Input& in);
bool is_fuzzed_function(CUfunction f);
void build_args(Input& in, CUfunction f, LaunchArgs& a, void**& params, void**& extra);
unsigned pick_dim(Input& in, bool grid);
unsigned pick_shared(Input& in);

// ---- Descriptors (fuzz_api_descriptors.cpp) ---------------------------------------------------------

// The graph nodes to depend on: NULL, the harness's array of pool nodes, or a count that lies about NULL.
struct Deps {
    CUgraphNode nodes[4];
    const CUgraphNode* ptr;
    size_t count;
};

CUarray_format pick_format(Input& in);
size_t pick_extent(Input& in);
void bound_extent(size_t& w, size_t& h, size_t& d, unsigned channels);
void fill_array3d(Input& in, CUDA_ARRAY3D_DESCRIPTOR& d);
CUmemorytype pick_memtype(Input& in);
void fill_copy2d(Input& in, CUDA_MEMCPY2D& c);
void fill_copy3d(Input& in, CUDA_MEMCPY3D& c);
void fill_resource(Input& in, CUDA_RESOURCE_DESC& r);
void fill_ctx_params(Input& in, CUctxCreateParams& p);
void fill_mem_prop(Input& in, CUmemAllocationProp& p);
void fill_pool_props(Input& in, CUmemPoolProps& p);
CUmemLocation pick_location(Input& in);
Deps pick_deps(Input& in);
void fill_kernel_node(Input& in, CUDA_KERNEL_NODE_PARAMS& k, LaunchArgs& a);
void fill_memset_node(Input& in, CUDA_MEMSET_NODE_PARAMS& m);

// ---- One call of each family (fuzz_api_<family>.cpp) ------------------------------------------------

void op_context(Input& in);
void op_device(Input& in);
void op_alloc(Input& in);
void op_free(Input& in);
void op_memset(Input& in);
void op_memcpy(Input& in);
void op_memory_info(Input& in);
void op_stream(Input& in);
void op_event(Input& in);
void op_array(Input& in);
void op_module(Input& in);
void op_function(Input& in);
void op_graph(Input& in);
void op_mempool(Input& in);
void op_vmm(Input& in);
void op_external(Input& in);

} // namespace fuzz_api
