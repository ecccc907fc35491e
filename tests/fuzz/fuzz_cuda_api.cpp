// Fuzzes the CUDA driver API of the cpu backend (issue 14): the input is a program of driver calls on
// the backend's table (not through dlopen), each an opcode byte, a 16-bit length and the bytes its
// arguments are drawn from (tests/fuzz/make_cuda_api_seeds.py writes the seed corpus). A pool of handles lets a call use what earlier calls made: contexts, streams, events,
// device, pinned, managed and pool memory, arrays, texture and surface objects, modules and functions
// (a few fixed kernels and fuzzed PTX), libraries, graphs and their nodes, memory pools, virtual memory.
// Every argument mixes valid handles with hostile values: NULL, 0x10, destroyed handles, handles of
// another kind, huge and wrapping sizes and pitches, unreadable or read-only host memory. Whatever the
// program, d4r must answer with error codes: no crash, hang, sanitizer report, leak or OOM kill.
//
// What the harness itself must not do (a crash there is the caller's fault, as with NVIDIA's driver):
//   * hand d4r a wild pointer to a *structure* or an *array* it reads (descriptors, kernelParams, extra,
//     option arrays): those are NULL or the harness's own, sized as the call reads them;
//   * hand d4r a pointer into freed heap memory as host memory: under ASan freed memory stays mapped, so
//     d4r's page probe (cpu_host_memory.h) accepts it and the copy is reported as use-after-free. Host
//     pointers come from an arena the harness maps itself, with an inaccessible and a read-only page
//     (which d4r must refuse), or are 0x10 / kernel addresses; a freed device or pinned pointer is used
//     only where d4r looks it up as an allocation (see kFreedAsHost below);
//   * queue a stream wait that nothing can satisfy (a real program hangs there on NVIDIA's driver too):
//     waits are on a word the harness holds at 1.
// Work is bounded: D4R_CPU_INSTRUCTION_BUDGET stops runaway kernels, D4R_CPU_MEMORY_LIMIT caps the memory
// budget, allocation sizes between 64 MiB and 1 TiB are clamped unless that budget is in force, and every
// object a program made is destroyed when it ends.
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

using namespace d4r::abi;

namespace {

const d4r::runtime::ApiTable* T = nullptr;

// Passing a freed device or pinned pointer where d4r takes unknown addresses for pageable host memory
// (cuMemcpy, the host sides of copies) reads freed heap memory that is still mapped: d4r cannot tell it
// from live host memory (NVIDIA's driver cannot either; it crashes). Off, so CI stays green; set
// FUZZ_CUDA_API_FREED_AS_HOST=1 to see it.
bool kFreedAsHost = false;

// cuMemHostRegister accepts memory that is not mapped (0x10, an inaccessible page) or is read-only, and a
// later memset, copy or kernel store to the "registered" range crashes the process (SIGSEGV in
// cpu_memory.cpp's memset); NVIDIA's driver refuses such a registration. Fixed (cuMemHostRegister now
// refuses such memory; the regression test is tests/runtime/cpu_host_register_test.cpp), so it is on;
// FUZZ_CUDA_API_REGISTER_UNMAPPED=0 turns it off.
bool kRegisterUnmapped = true;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "fuzz_cuda_api: invariant failed at line %d: %s\n", __LINE__, #cond);               \
            std::abort();                                                                                              \
        }                                                                                                              \
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
constexpr size_t kPage = 4096;
constexpr size_t kRwBytes = 64 * 1024;
uint8_t* g_arena = nullptr;
uint8_t* rw() { return g_arena; }
uint8_t* guard() { return g_arena + kRwBytes; }
uint8_t* read_only() { return g_arena + kRwBytes + kPage; }

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
    std::vector<Ptr> reservations;  // cuMemAddressReserve
    std::vector<Ptr> registered;    // cuMemHostRegister'd ranges of the arena
    std::vector<Ptr> dev, dev_dead; // device, managed, pool, pitched and module-global memory
    std::vector<Ptr> host, host_dead; // cuMemAllocHost / cuMemHostAlloc
    std::vector<Ptr> history; // every range d4r handed out (freed ones stay mapped under ASan, or get reused)
};

Pool* P = nullptr;

// A harness context that programs never see: it holds the word stream waits are satisfied by.
CUcontext g_home = nullptr;
uint32_t* g_flag = nullptr; // always 1
bool g_budget = false;      // whether D4R_CPU_MEMORY_LIMIT is honoured (cuMemGetInfo's total within it)

template <typename H>
H junk_handle(Input& in) {
    static const uint64_t values[] = {0, 0x10, 0x1, 0x2, 0xdeadbeef, ~0ull, 0x00007fff00000000ull, 0xffff800000000000ull};
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

CUcontext pick_ctx(Input& in) { return pick(in, P->ctx); }

CUstream pick_stream(Input& in) {
    switch (in.u8() % 8) {
    case 0: return nullptr;
    case 1: return D4R_CU_STREAM_LEGACY;
    case 2: return D4R_CU_STREAM_PER_THREAD;
    case 3: return reinterpret_cast<CUstream>(pick(in, P->event)); // a handle of another kind
    default: return pick(in, P->stream);
    }
}

CUfunction pick_function(Input& in) {
    switch (in.u8() % 8) {
    case 0: return pick(in, P->fuzzed_function);
    case 1: return reinterpret_cast<CUfunction>(pick(in, P->kernel)); // a CUkernel stands in for a function
    case 2: return reinterpret_cast<CUfunction>(pick(in, P->module));
    default: return pick(in, P->function);
    }
}

size_t huge_size(Input& in) {
    static const uint64_t values[] = {~0ull, ~0ull - 7, 1ull << 63, 1ull << 44, 1ull << 40, (1ull << 32) + 1, 1ull << 32};
    return values[in.below(std::size(values))];
}

// A byte count for a copy or memset: mostly small, sometimes huge or wrapping.
size_t pick_size(Input& in) {
    switch (in.u8() % 12) {
    case 0: return 0;
    case 1: return huge_size(in);
    case 2: return in.u64();
    case 3: return in.u32() % (4u << 20);
    case 4: return size_t(1) << in.below(24);
    default: return in.u16() % 4096;
    }
}

// A size for an allocation: like pick_size, but never one the machine could only hold by swapping, unless
// the memory budget is there to refuse it.
size_t alloc_size(Input& in) {
    size_t s = pick_size(in);
    if (in.u8() % 8 == 0) s = in.u32() % (64u << 20) + (g_budget ? (in.u8() % 64) << 26 : 0);
    if (s > (64u << 20) && s < (1ull << 40) && !g_budget) s = 64u << 20;
    return s;
}

// A device address: a live allocation plus an offset (sometimes past its end), a freed one, or junk.
CUdeviceptr pick_dptr(Input& in) {
    uint8_t c = in.u8() % 16;
    auto off = [&](const Ptr& p) -> CUdeviceptr {
        switch (in.u8() % 8) {
        case 0: return p.p + p.size;
        case 1: return p.p + in.u16();
        case 2: return p.p - 1 - in.below(16);
        case 3: return p.p + (p.size ? in.u32() % p.size : 0);
        default: return p.p + (p.size ? (in.u8() * 4) % p.size : 0);
        }
    };
    if (c < 9 && !P->dev.empty()) return off(P->dev[in.below(P->dev.size())]);
    if (c < 11 && !P->host.empty()) return off(P->host[in.below(P->host.size())]);
    if (c == 11 && !P->dev_dead.empty()) return P->dev_dead[in.below(P->dev_dead.size())].p;
    if (c == 12 && !P->registered.empty()) return off(P->registered[in.below(P->registered.size())]);
    if (c == 13) return 0;
    static const uint64_t values[] = {0x10, 0x1000, ~0ull, ~0ull - 3, 1ull << 47, 0xffff800000000000ull, 0x7fffffffffffull};
    return values[in.below(std::size(values))];
}

// A host pointer for a call that reads or writes host memory: the arena (sometimes running into its
// inaccessible page), its read-only page, pinned memory, or an address nothing is mapped at.
bool inside_history(uint64_t p) {
    for (const Ptr& r : P->history)
        if (p >= r.p && p - r.p < std::max<size_t>(r.size, 1)) return true;
    return false;
}

// Whether d4r knows P as live memory now (a context's destruction frees its memory behind the pool's back).
bool known_to_d4r(uint64_t p) {
    CUdeviceptr base = 0;
    size_t size = 0;
    unsigned flags = 0;
    return T->cuMemGetAddressRange_v2(&base, &size, p) == CUDA_SUCCESS ||
           T->cuMemHostGetFlags(&flags, reinterpret_cast<void*>(p)) == CUDA_SUCCESS;
}

void* pick_host(Input& in) {
    switch (in.u8() % 16) {
    case 0: return nullptr;
    case 1: return reinterpret_cast<void*>(0x10);
    case 2: return guard();
    case 3: return read_only() + in.below(64);
    case 4: return reinterpret_cast<void*>(0xffff800000001000ull);
    case 5: return rw() + kRwBytes - in.below(256); // runs into the inaccessible page
    case 6:
    case 7:
        if (!P->host.empty()) {
            const Ptr& h = P->host[in.below(P->host.size())];
            uint64_t p = h.p + (h.size ? in.u16() % h.size : 0);
            if (known_to_d4r(p) || kFreedAsHost) return reinterpret_cast<void*>(p);
        }
        [[fallthrough]];
    case 8:
        if (kFreedAsHost && !P->host_dead.empty()) return reinterpret_cast<void*>(P->host_dead[0].p);
        [[fallthrough]];
    default: return rw() + (in.u16() % kRwBytes);
    }
}

// cuMemcpy and the UNIFIED sides take an unknown address for host memory: a device address, or a host
// pointer of pick_host (never a freed allocation unless kFreedAsHost).
CUdeviceptr pick_unified(Input& in) {
    if (in.flip()) return reinterpret_cast<CUdeviceptr>(pick_host(in));
    CUdeviceptr p = pick_dptr(in);
    if (!kFreedAsHost && !known_to_d4r(p) && inside_history(p)) return reinterpret_cast<CUdeviceptr>(rw());
    return p;
}

void remember_range(CUdeviceptr p, size_t size) {
    if (P->history.size() < 1024) P->history.push_back({p, size});
}

void remember_dev(CUdeviceptr p, size_t size) {
    remember_range(p, size);
    if (P->dev.size() < 64) P->dev.push_back({p, size});
}

void forget(std::vector<Ptr>& live, std::vector<Ptr>& dead, CUdeviceptr p) {
    for (size_t i = 0; i < live.size(); ++i) {
        if (live[i].p == p) {
            if (dead.size() < 16) dead.push_back(live[i]);
            live.erase(live.begin() + i);
            return;
        }
    }
}

// ---- Kernels ----------------------------------------------------------------------------------------

const char* kPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

.global .align 4 .u32 counter = 5;
.global .align 8 .b8 table[64];
.extern .shared .align 4 .b8 dyn[];

.visible .entry add_one(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd1, %rd3;
    ld.global.u32 %r6, [%rd2];
    add.s32 %r6, %r6, 1;
    st.global.u32 [%rd2], %r6;
DONE:
    ret;
}

.visible .entry store_at(.param .u64 p, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry spin(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra END;
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    bra LOOP;
END:
    st.global.u32 [%rd1], %r3;
    ret;
}

.visible .entry trapper()
{
    trap;
    ret;
}

.visible .entry uses_shared(.param .u64 p)
{
    .shared .align 4 .b8 buf[1024];
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 7;
    st.shared.u32 [buf], %r1;
    st.shared.u32 [dyn], %r1;
    ld.shared.u32 %r2, [buf];
    ld.param.u64 %rd1, [p];
    st.global.u32 [%rd1], %r2;
    ret;
}

.visible .entry bump_counter()
{
    .reg .b32 %r<2>;
    ld.global.u32 %r1, [counter];
    add.u32 %r1, %r1, 1;
    st.global.u32 [counter], %r1;
    ret;
}

.visible .entry tex_read(.param .u64 out, .param .u64 tex, .param .u64 surf)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [tex];
    ld.param.u64 %rd3, [surf];
    mov.f32 %f1, 0f3F000000;
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f1, %f1}];
    suld.b.2d.b32.trap {%r1}, [%rd3, {%r2, %r2}];
    st.global.f32 [%rd1], %f1;
    st.global.u32 [%rd1+4], %r1;
    ret;
}
)PTX";

// The fixed kernels, their parameter counts (entries of kernelParams d4r reads) and names.
struct KernelInfo {
    const char* name;
    int params;
};
constexpr KernelInfo kKernels[] = {{"add_one", 2}, {"store_at", 2},    {"spin", 2},         {"trapper", 0},
                                   {"uses_shared", 1}, {"bump_counter", 0}, {"tex_read", 3}};
constexpr int kMaxParams = 3;

const char* pick_name(Input& in, std::string& scratch) {
    switch (in.u8() % 8) {
    case 0: return nullptr;
    case 1: return "";
    case 2: return "counter";
    case 3: return "table";
    case 4: {
        scratch.assign(in.below(40), 'x');
        for (char& ch : scratch) ch = char(in.u8() | 1);
        return scratch.c_str();
    }
    default: return kKernels[in.below(std::size(kKernels))].name;
    }
}

// A PTX image from the input: NUL-terminated; never starting like an ELF or fatbin image, whose headers
// d4r would follow past the end of the bytes (an image's extent comes from its own headers).
std::string fuzzed_ptx(Input& in) {
    size_t len = in.u16() % 2048;
    std::string text;
    if (in.flip()) text = ".version 8.0\n.target sm_90\n.address_size 64\n";
    size_t k = std::min(len, in.n);
    text.append(reinterpret_cast<const char*>(in.p), k);
    in.p += k;
    in.n -= k;
    for (char& c : text)
        if (c == 0) c = ' ';
    // The fixed kernels' names belong to kPtx (is_fuzzed_function): a fuzzed entry of that name gets another.
    for (const KernelInfo& k : kKernels)
        for (size_t at = text.find(k.name); at != std::string::npos; at = text.find(k.name, at + 1)) text[at] = 'Z';
    if (!text.empty() && (uint8_t(text[0]) == 0x7f || uint8_t(text[0]) == 0x50 || uint8_t(text[0]) == 0xb1 || uint8_t(text[0]) == 0xba))
        text[0] = ' ';
    return text;
}

// ---- Host callbacks ---------------------------------------------------------------------------------

void host_fn(void*) {}
// Synchronising from inside a callback waits for itself: d4r refuses it (NOT_PERMITTED) instead of
// deadlocking the context's worker (issue 14, item 12).
void host_fn_sync(void* stream) {
    (void)T->cuCtxSynchronize();
    (void)T->cuStreamSynchronize(static_cast<CUstream>(stream));
    (void)T->cuStreamQuery(static_cast<CUstream>(stream));
}
void stream_cb(CUstream, CUresult, void*) {}
size_t g_b2d_value = 0;
size_t b2d(int) { return g_b2d_value; }

CUhostFn pick_host_fn(Input& in) {
    switch (in.u8() % 4) {
    case 0: return nullptr;
    case 1: return host_fn_sync;
    default: return host_fn;
    }
}

// ---- Launch parameters ------------------------------------------------------------------------------

// Values kernelParams entries point at, and the extra buffer: big enough for any parameter of the
// fixed kernels (fuzzed kernels are only launched with `extra`, whose buffer size d4r is told).
struct LaunchArgs {
    alignas(16) uint8_t values[kMaxParams + 5][16];
    void* params[kMaxParams + 5];
    alignas(16) uint8_t buffer[4096];
    size_t buffer_size;
    void* extra[9];
};

// Whether F's parameter layout is unknown to the harness. d4r reads one kernelParams entry per parameter
// and each entry's parameter size, so kernelParams goes only to the fixed kernels: a function (or a
// CUkernel, resolved in the current context) named like one of them. Fuzzed PTX never defines those names
// (fuzzed_ptx mangles them), so the name settles it even for a handle whose address was reused.
bool is_fuzzed_function(CUfunction f) {
    const char* name = nullptr;
    if (T->cuFuncGetName(&name, f) != CUDA_SUCCESS || !name) return true;
    for (const KernelInfo& k : kKernels)
        if (std::strcmp(name, k.name) == 0) return false;
    return true;
}

// Fills kernelParams / extra for F and returns which to pass (either may be NULL, both set is refused).
void build_args(Input& in, CUfunction f, LaunchArgs& a, void**& params, void**& extra) {
    std::memset(&a, 0, sizeof a);
    for (int i = 0; i < kMaxParams + 5; ++i) {
        uint64_t v;
        switch (in.u8() % 4) {
        case 0: v = pick_dptr(in); break;
        case 1: v = in.u32() % 64; break;
        case 2: v = !P->tex.live.empty() ? P->tex.live[in.below(P->tex.live.size())] : in.u64(); break;
        default: v = in.u64(); break;
        }
        std::memcpy(a.values[i], &v, 8);
        a.params[i] = in.u8() % 16 == 0 ? nullptr : a.values[i];
    }
    in.fill(a.buffer, 64);
    a.buffer_size = sizeof a.buffer;
    size_t claimed = sizeof a.buffer;
    switch (in.u8() % 6) {
    case 0: claimed = 0; break;
    case 1: claimed = in.below(32); break;
    case 2: claimed = 1ull << 40; break; // a lie about the buffer: d4r reads only the parameter block
    default: break;
    }
    if (is_fuzzed_function(f) && claimed > sizeof a.buffer) claimed = sizeof a.buffer;
    a.buffer_size = claimed;
    int e = 0;
    uint8_t shape = in.u8() % 8;
    if (shape != 1) {
        a.extra[e++] = D4R_CU_LAUNCH_PARAM_BUFFER_POINTER;
        a.extra[e++] = shape == 2 ? nullptr : a.buffer;
    }
    if (shape != 3) {
        a.extra[e++] = D4R_CU_LAUNCH_PARAM_BUFFER_SIZE;
        a.extra[e++] = shape == 4 ? nullptr : &a.buffer_size;
    }
    if (shape == 5) {
        a.extra[e++] = reinterpret_cast<void*>(0x77); // an unknown marker
        a.extra[e++] = nullptr;
    }
    a.extra[e] = D4R_CU_LAUNCH_PARAM_END;
    params = extra = nullptr;
    switch (in.u8() % 6) {
    case 0: break;
    case 1:
    case 2: extra = a.extra; break;
    case 3:
        if (!is_fuzzed_function(f)) {
            params = a.params;
            extra = a.extra;
        }
        break;
    default:
        if (!is_fuzzed_function(f)) params = a.params;
        else extra = a.extra;
    }
}

unsigned pick_dim(Input& in, bool grid) {
    switch (in.u8() % 12) {
    case 0: return 0;
    case 1: return grid ? 2147483648u : 1025;
    case 2: return grid ? 65536 : 65;
    case 3: return in.u32();
    case 4: return grid ? 2147483647u : 1024;
    case 5: return 32;
    default: return 1 + in.below(4);
    }
}

unsigned pick_shared(Input& in) {
    static const unsigned values[] = {0, 0, 0, 4, 1024, 48 * 1024, 48 * 1024 + 1, 227 * 1024, 1u << 20, ~0u};
    return values[in.below(std::size(values))];
}

// ---- Descriptors ------------------------------------------------------------------------------------

CUarray_format pick_format(Input& in) {
    static const unsigned values[] = {0x01, 0x02, 0x03, 0x08, 0x09, 0x0a, 0x10, 0x20, 0x00, 0x7f, 0xffffffff};
    return static_cast<CUarray_format>(values[in.below(std::size(values))]);
}

size_t pick_extent(Input& in) {
    static const uint64_t values[] = {0, 1, 2, 3, 16, 64, 100, 256, 1000, 4096, 65536, 1ull << 31, 1ull << 32,
                                      (1ull << 33) + 1, ~0ull};
    return values[in.below(std::size(values))];
}

// An array descriptor whose texels fit in 64 MiB, or whose size does not fit in 64 bits (the product must
// be refused, not wrapped), never one in between that the machine would have to hold.
void bound_extent(size_t& w, size_t& h, size_t& d, unsigned channels) {
    unsigned __int128 total = (unsigned __int128)std::max<size_t>(w, 1) * std::max<size_t>(h, 1) * std::max<size_t>(d, 1) *
                              std::max(channels, 1u) * 16;
    if (total > (64u << 20) && total < ((unsigned __int128)1 << 64) && !g_budget) {
        w = std::min<size_t>(w, 256);
        h = std::min<size_t>(h, 256);
        d = std::min<size_t>(d, 16);
    }
}

void fill_array3d(Input& in, CUDA_ARRAY3D_DESCRIPTOR& d) {
    d.Width = pick_extent(in);
    d.Height = pick_extent(in);
    d.Depth = in.u8() % 3 ? 0 : pick_extent(in);
    d.Format = pick_format(in);
    d.NumChannels = in.u8() % 3 == 0 ? in.below(6) : 1u << in.below(3);
    d.Flags = in.u8() % 4 ? 0 : in.u32() & 0x3f;
    bound_extent(d.Width, d.Height, d.Depth, d.NumChannels);
}

CUmemorytype pick_memtype(Input& in) { return static_cast<CUmemorytype>(in.below(6)); }

// One side of a 2D/3D copy: host, device, unified or array, each with fuzzed offsets and pitch.
struct CopySide {
    CUmemorytype type;
    void* host;
    CUdeviceptr dev;
    CUarray array;
    size_t x, y, z, pitch, height;
};

CopySide pick_side(Input& in) {
    CopySide s{};
    s.type = pick_memtype(in);
    s.host = pick_host(in);
    s.dev = s.type == CU_MEMORYTYPE_UNIFIED ? pick_unified(in) : pick_dptr(in);
    s.array = pick(in, P->array);
    auto small = [&]() -> size_t {
        switch (in.u8() % 8) {
        case 0: return huge_size(in);
        case 1: return in.u16();
        default: return in.below(16);
        }
    };
    s.x = small();
    s.y = small();
    s.z = in.u8() % 4 ? 0 : small();
    switch (in.u8() % 8) {
    case 0: s.pitch = huge_size(in); break;
    case 1: s.pitch = 0; break;
    case 2: s.pitch = ~0ull - in.below(512); break; // (rows - 1) * pitch wraps
    default: s.pitch = in.u16() % 2048; break;
    }
    s.height = in.u8() % 4 ? in.below(64) : huge_size(in);
    return s;
}


void fill_copy2d(Input& in, CUDA_MEMCPY2D& c) {
    std::memset(&c, 0, sizeof c);
    CopySide s = pick_side(in), d = pick_side(in);
    c.srcMemoryType = s.type;
    c.srcHost = s.host;
    c.srcDevice = s.dev;
    c.srcArray = s.array;
    c.srcXInBytes = s.x;
    c.srcY = s.y;
    c.srcPitch = s.pitch;
    c.dstMemoryType = d.type;
    c.dstHost = d.host;
    c.dstDevice = d.dev;
    c.dstArray = d.array;
    c.dstXInBytes = d.x;
    c.dstY = d.y;
    c.dstPitch = d.pitch;
    c.WidthInBytes = in.u8() % 8 ? in.u16() % 1024 : huge_size(in);
    c.Height = in.u8() % 8 ? in.below(32) : huge_size(in);
}

void fill_copy3d(Input& in, CUDA_MEMCPY3D& c) {
    std::memset(&c, 0, sizeof c);
    CopySide s = pick_side(in), d = pick_side(in);
    c.srcMemoryType = s.type;
    c.srcHost = s.host;
    c.srcDevice = s.dev;
    c.srcArray = s.array;
    c.srcXInBytes = s.x;
    c.srcY = s.y;
    c.srcZ = s.z;
    c.srcPitch = s.pitch;
    c.srcHeight = s.height;
    c.dstMemoryType = d.type;
    c.dstHost = d.host;
    c.dstDevice = d.dev;
    c.dstArray = d.array;
    c.dstXInBytes = d.x;
    c.dstY = d.y;
    c.dstZ = d.z;
    c.dstPitch = d.pitch;
    c.dstHeight = d.height;
    c.srcLOD = in.u8() % 16 == 0;
    c.WidthInBytes = in.u8() % 8 ? in.u16() % 1024 : huge_size(in);
    c.Height = in.u8() % 8 ? in.below(16) : huge_size(in);
    c.Depth = in.u8() % 8 ? in.below(4) : huge_size(in);
}

void fill_resource(Input& in, CUDA_RESOURCE_DESC& r) {
    std::memset(&r, 0, sizeof r);
    r.resType = static_cast<CUresourcetype>(in.below(5));
    switch (in.u8() % 4) {
    case 0: r.res.array.hArray = pick(in, P->array); break;
    case 1: r.res.mipmap.hMipmappedArray = pick(in, P->mipmap); break;
    case 2:
        r.res.linear.devPtr = pick_dptr(in);
        r.res.linear.format = pick_format(in);
        r.res.linear.numChannels = in.below(6);
        r.res.linear.sizeInBytes = pick_size(in);
        break;
    default:
        r.res.pitch2D.devPtr = pick_dptr(in);
        r.res.pitch2D.format = pick_format(in);
        r.res.pitch2D.numChannels = in.below(6);
        r.res.pitch2D.width = pick_extent(in);
        r.res.pitch2D.height = pick_extent(in);
        r.res.pitch2D.pitchInBytes = in.flip() ? pick_size(in) : (in.u16() & ~31u);
        break;
    }
    if (r.resType == CU_RESOURCE_TYPE_ARRAY && in.flip()) r.res.array.hArray = pick(in, P->array);
    r.flags = in.u8() % 8 ? 0 : in.u32();
}

void fill_ctx_params(Input& in, CUctxCreateParams& p) {
    std::memset(&p, 0, sizeof p);
    p.numExecAffinityParams = in.u8() % 4 ? 0 : int(in.u32());
    // execAffinityParams / cigParams stay NULL: d4r's only answer to them is a refusal.
}

void fill_mem_prop(Input& in, CUmemAllocationProp& p) {
    std::memset(&p, 0, sizeof p);
    p.type = static_cast<CUmemAllocationType>(in.u8() % 4 ? 1 : in.below(4));
    p.requestedHandleTypes = static_cast<CUmemAllocationHandleType>(in.u8() % 4 ? 0 : in.below(10));
    p.location.type = static_cast<CUmemLocationType>(in.u8() % 4 ? 1 : in.below(6));
    p.location.id = in.u8() % 4 ? 0 : int(in.u32());
    p.allocFlags.compressionType = in.u8() % 8 ? 0 : in.u8();
}

void fill_pool_props(Input& in, CUmemPoolProps& p) {
    std::memset(&p, 0, sizeof p);
    p.allocType = static_cast<CUmemAllocationType>(in.u8() % 4 ? 1 : in.below(4));
    p.handleTypes = static_cast<CUmemAllocationHandleType>(in.u8() % 4 ? 0 : in.below(10));
    p.location.type = static_cast<CUmemLocationType>(in.u8() % 4 ? 1 : in.below(6));
    p.location.id = in.u8() % 4 ? 0 : int(in.u32());
    p.maxSize = in.u8() % 4 ? 0 : alloc_size(in);
    if (in.u8() % 8 == 0) p.reserved[in.below(54)] = 1;
}

CUmemLocation pick_location(Input& in) {
    CUmemLocation l{};
    l.type = static_cast<CUmemLocationType>(in.u8() % 4 ? 1 : in.below(6));
    l.id = in.u8() % 4 ? 0 : int(in.u32());
    return l;
}

// The graph nodes to depend on: NULL, the harness's array of pool nodes, or a count that lies about NULL.
struct Deps {
    CUgraphNode nodes[4];
    const CUgraphNode* ptr;
    size_t count;
};
Deps pick_deps(Input& in) {
    Deps d{};
    d.count = in.below(5);
    for (size_t i = 0; i < d.count; ++i) d.nodes[i] = pick(in, P->node);
    d.ptr = d.nodes;
    if (in.u8() % 6 == 0) d.ptr = nullptr; // with a count > 0: refused
    if (d.count == 0 && in.flip()) d.ptr = nullptr;
    return d;
}

void fill_kernel_node(Input& in, CUDA_KERNEL_NODE_PARAMS& k, LaunchArgs& a) {
    std::memset(&k, 0, sizeof k);
    k.func = pick_function(in);
    k.gridDimX = pick_dim(in, true);
    k.gridDimY = in.u8() % 8 ? 1 : pick_dim(in, true);
    k.gridDimZ = in.u8() % 8 ? 1 : pick_dim(in, true);
    k.blockDimX = pick_dim(in, false);
    k.blockDimY = in.u8() % 8 ? 1 : pick_dim(in, false);
    k.blockDimZ = 1;
    k.sharedMemBytes = pick_shared(in);
    build_args(in, k.func, a, k.kernelParams, k.extra);
    if (in.u8() % 8 == 0) k.kern = pick(in, P->kernel);
    if (in.u8() % 8 == 0) k.ctx = pick_ctx(in);
    // A CUkernel resolves in the current context: make sure its signature is known if params are used.
    if (k.kern) {
        k.kernelParams = nullptr;
        a.buffer_size = std::min(a.buffer_size, sizeof a.buffer);
    }
}

void fill_memset_node(Input& in, CUDA_MEMSET_NODE_PARAMS& m) {
    m.dst = pick_dptr(in);
    m.pitch = in.flip() ? in.u16() : pick_size(in);
    m.value = in.u32();
    static const unsigned sizes[] = {1, 2, 4, 0, 3, 8};
    m.elementSize = sizes[in.below(6)];
    m.width = in.u8() % 8 ? in.u16() % 512 : pick_size(in);
    m.height = in.u8() % 8 ? in.below(8) : pick_size(in);
}

// ---- One call ---------------------------------------------------------------------------------------

void op_context(Input& in) {
    CUcontext c = nullptr;
    switch (in.u8() % 20) {
    case 0:
    case 1: {
        if (P->ctx.live.size() >= 4) return; // each context has a worker thread
        unsigned flags = in.u8() % 4 ? in.below(8) : in.u32();
        CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
        CUresult r;
        switch (in.u8() % 3) {
        case 0: r = T->cuCtxCreate_v2(&c, flags, dev); break;
        case 1: r = T->cuCtxCreate(&c, flags, dev); break;
        default: {
            CUctxCreateParams p;
            fill_ctx_params(in, p);
            r = T->cuCtxCreate_v4(&c, in.flip() ? &p : nullptr, flags, dev);
        }
        }
        if (r == CUDA_SUCCESS) {
            CHECK(c != nullptr);
            P->ctx.add(c);
        }
        return;
    }
    case 2: {
        c = pick_ctx(in);
        if (T->cuCtxDestroy_v2(c) == CUDA_SUCCESS) P->ctx.kill(c);
        return;
    }
    case 3: (void)T->cuCtxPushCurrent_v2(pick_ctx(in)); return;
    case 4: (void)T->cuCtxPopCurrent_v2(in.flip() ? &c : nullptr); return;
    case 5: (void)T->cuCtxSetCurrent(pick_ctx(in)); return;
    case 6: {
        (void)T->cuCtxGetCurrent(in.flip() ? &c : nullptr);
        CUdevice d;
        (void)T->cuCtxGetDevice(in.flip() ? &d : nullptr);
        unsigned f, v;
        (void)T->cuCtxGetFlags(in.flip() ? &f : nullptr);
        (void)T->cuCtxGetApiVersion(pick_ctx(in), in.flip() ? &v : nullptr);
        return;
    }
    case 7: (void)T->cuCtxSynchronize(); return;
    case 8: {
        CUlimit limit = static_cast<CUlimit>(in.below(9));
        size_t value = in.flip() ? in.u16() : pick_size(in);
        (void)T->cuCtxSetLimit(limit, value);
        size_t got;
        (void)T->cuCtxGetLimit(in.flip() ? &got : nullptr, limit);
        return;
    }
    case 9: {
        CUfunc_cache cc;
        (void)T->cuCtxSetCacheConfig(static_cast<CUfunc_cache>(in.below(6)));
        (void)T->cuCtxGetCacheConfig(in.flip() ? &cc : nullptr);
        CUsharedconfig sc;
        (void)T->cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(in.below(5)));
        (void)T->cuCtxGetSharedMemConfig(in.flip() ? &sc : nullptr);
        int lo, hi;
        (void)T->cuCtxGetStreamPriorityRange(in.flip() ? &lo : nullptr, in.flip() ? &hi : nullptr);
        return;
    }
    case 10: {
        if (P->ctx.live.size() >= 4) return;
        CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
        if (T->cuDevicePrimaryCtxRetain(in.flip() ? &c : nullptr, dev) == CUDA_SUCCESS) {
            CHECK(c != nullptr);
            ++P->primary_refs;
            if (!P->ctx.has(c)) P->ctx.add(c);
        }
        return;
    }
    case 11:
        if (T->cuDevicePrimaryCtxRelease_v2(in.u8() % 8 ? 0 : CUdevice(in.u32())) == CUDA_SUCCESS) --P->primary_refs;
        return;
    case 12: (void)T->cuDevicePrimaryCtxReset_v2(in.u8() % 8 ? 0 : CUdevice(in.u32())); return;
    case 13: {
        unsigned flags;
        int active;
        (void)T->cuDevicePrimaryCtxGetState(in.u8() % 8 ? 0 : CUdevice(in.u32()), in.flip() ? &flags : nullptr,
                                            in.flip() ? &active : nullptr);
        (void)T->cuDevicePrimaryCtxSetFlags_v2(0, in.u8() % 4 ? in.below(8) : in.u32());
        return;
    }
    case 14: {
        if (P->ctx.live.size() >= 4) return;
        if (T->cuCtxAttach(in.flip() ? &c : nullptr, in.u8() % 4 ? 0 : in.u32()) == CUDA_SUCCESS && c) (void)T->cuCtxDetach(c);
        (void)T->cuCtxDetach(pick_ctx(in));
        return;
    }
    case 15: {
        int can;
        (void)T->cuDeviceCanAccessPeer(in.flip() ? &can : nullptr, CUdevice(in.below(3)), CUdevice(in.below(3)));
        (void)T->cuCtxEnablePeerAccess(pick_ctx(in), in.u8() % 4 ? 0 : in.u32());
        (void)T->cuCtxDisablePeerAccess(pick_ctx(in));
        return;
    }
    case 16:
        (void)T->cuMemcpyPeer(pick_dptr(in), pick_ctx(in), pick_dptr(in), pick_ctx(in), pick_size(in));
        (void)T->cuMemcpyPeerAsync(pick_dptr(in), pick_ctx(in), pick_dptr(in), pick_ctx(in), pick_size(in), pick_stream(in));
        return;
    default: {
        // Push a context from the pool and pop it again: most programs keep one current context.
        if (!P->ctx.live.empty()) (void)T->cuCtxSetCurrent(P->ctx.live[in.below(P->ctx.live.size())]);
        return;
    }
    }
}

void op_device(Input& in) {
    CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
    switch (in.u8() % 12) {
    case 0: {
        CUdevice d;
        int count;
        (void)T->cuDeviceGet(in.flip() ? &d : nullptr, in.u8() % 4 ? 0 : int(in.u32()));
        (void)T->cuDeviceGetCount(in.flip() ? &count : nullptr);
        return;
    }
    case 1: {
        char name[256];
        int len = in.u8() % 4 ? int(in.below(256)) : -int(in.below(4));
        (void)T->cuDeviceGetName(in.flip() ? name : nullptr, len, dev);
        return;
    }
    case 2: {
        CUuuid u;
        size_t bytes;
        (void)T->cuDeviceGetUuid_v2(in.flip() ? &u : nullptr, dev);
        (void)T->cuDeviceTotalMem_v2(in.flip() ? &bytes : nullptr, dev);
        return;
    }
    case 3: {
        int v;
        auto attr = static_cast<CUdevice_attribute>(in.u8() % 4 ? in.below(140) : int(in.u32()));
        (void)T->cuDeviceGetAttribute(in.flip() ? &v : nullptr, attr, dev);
        return;
    }
    case 4: {
        int major, minor;
        CUdevprop prop;
        (void)T->cuDeviceComputeCapability(in.flip() ? &major : nullptr, in.flip() ? &minor : nullptr, dev);
        (void)T->cuDeviceGetProperties(in.flip() ? &prop : nullptr, dev);
        return;
    }
    case 5: {
        char bus[64];
        int len = in.u8() % 4 ? int(in.below(64)) : -1;
        (void)T->cuDeviceGetPCIBusId(in.flip() ? bus : nullptr, len, dev);
        std::string id;
        switch (in.u8() % 4) {
        case 0: id = "0000:00:00.0"; break;
        case 1: id = ""; break;
        default: id.assign(in.below(32), char('0' + in.below(60)));
        }
        CUdevice d;
        (void)T->cuDeviceGetByPCIBusId(in.flip() ? &d : nullptr, in.u8() % 8 ? id.c_str() : nullptr);
        return;
    }
    case 6: {
        const char* s = nullptr;
        auto code = static_cast<CUresult>(in.u8() % 2 ? int(in.u16() % 1000) : int(in.u32()));
        if (T->cuGetErrorName(code, in.flip() ? &s : nullptr) == CUDA_SUCCESS && s) (void)std::strlen(s);
        s = nullptr;
        if (T->cuGetErrorString(code, in.flip() ? &s : nullptr) == CUDA_SUCCESS && s) (void)std::strlen(s);
        return;
    }
    case 7: {
        std::string sym;
        const char* s = nullptr;
        switch (in.u8() % 4) {
        case 0: s = "cuMemAlloc"; break;
        case 1: s = "cuLaunchKernel"; break;
        case 2: {
            sym.assign(in.below(48), 'c');
            for (char& ch : sym) ch = char(in.u8() | 1);
            s = sym.c_str();
            break;
        }
        default: s = nullptr;
        }
        void* fn;
        CUdriverProcAddressQueryResult status;
        int version = in.u8() % 4 ? 12000 : int(in.u32());
        cuuint64_t flags = in.u8() % 4 ? in.below(3) : in.u64();
        if (in.flip()) (void)T->cuGetProcAddress_v2(s, in.flip() ? &fn : nullptr, version, flags, in.flip() ? &status : nullptr);
        else (void)T->cuGetProcAddress(s, in.flip() ? &fn : nullptr, version, flags);
        return;
    }
    case 8: {
        int v;
        (void)T->cuDriverGetVersion(in.flip() ? &v : nullptr);
        const void* table;
        CUuuid id;
        in.fill(&id, sizeof id);
        (void)T->cuGetExportTable(in.flip() ? &table : nullptr, in.flip() ? &id : nullptr);
        (void)T->cuProfilerStart();
        (void)T->cuProfilerStop();
        return;
    }
    case 9: {
        CUipcMemHandle mh;
        CUipcEventHandle eh;
        (void)T->cuIpcGetMemHandle(in.flip() ? &mh : nullptr, pick_dptr(in));
        in.fill(&mh, sizeof mh);
        CUdeviceptr p;
        if (T->cuIpcOpenMemHandle_v2(&p, mh, in.below(3)) == CUDA_SUCCESS) (void)T->cuIpcCloseMemHandle(p);
        (void)T->cuIpcCloseMemHandle(pick_dptr(in));
        (void)T->cuIpcGetEventHandle(in.flip() ? &eh : nullptr, pick(in, P->event));
        in.fill(&eh, sizeof eh);
        CUevent e;
        if (T->cuIpcOpenEventHandle(&e, eh) == CUDA_SUCCESS) P->event.add(e);
        return;
    }
    case 10: {
        // Graphics interoperability and texture references: nothing to map on the cpu backend.
        auto res = junk_handle<CUgraphicsResource>(in);
        CUarray a;
        CUdeviceptr p;
        size_t size;
        (void)T->cuGraphicsUnregisterResource(res);
        (void)T->cuGraphicsSubResourceGetMappedArray(in.flip() ? &a : nullptr, res, in.u8(), in.u8());
        (void)T->cuGraphicsResourceGetMappedPointer_v2(in.flip() ? &p : nullptr, in.flip() ? &size : nullptr, res);
        (void)T->cuGraphicsResourceSetMapFlags_v2(res, in.u32());
        CUgraphicsResource list[2] = {res, res};
        (void)T->cuGraphicsMapResources(in.below(3), in.flip() ? list : nullptr, pick_stream(in));
        (void)T->cuGraphicsUnmapResources(in.below(3), in.flip() ? list : nullptr, pick_stream(in));
        return;
    }
    default: {
        CUtexref t = nullptr;
        if (T->cuTexRefCreate(in.flip() ? &t : nullptr) == CUDA_SUCCESS && t) P->texref.add(t);
        t = pick(in, P->texref);
        (void)T->cuTexRefSetArray(t, pick(in, P->array), in.u8() % 4 ? 1 : in.u32());
        size_t off;
        (void)T->cuTexRefSetAddress_v2(in.flip() ? &off : nullptr, t, pick_dptr(in), pick_size(in));
        CUDA_ARRAY_DESCRIPTOR d{pick_extent(in), pick_extent(in), pick_format(in), unsigned(in.below(6))};
        (void)T->cuTexRefSetAddress2D_v3(t, in.flip() ? &d : nullptr, pick_dptr(in), pick_size(in));
        (void)T->cuTexRefSetFormat(t, pick_format(in), int(in.below(6)));
        (void)T->cuTexRefSetAddressMode(t, int(in.below(5)) - 1, static_cast<CUaddress_mode>(in.below(6)));
        (void)T->cuTexRefSetFilterMode(t, static_cast<CUfilter_mode>(in.below(3)));
        (void)T->cuTexRefSetFlags(t, in.u32());
        CUdeviceptr p;
        CUarray a;
        CUaddress_mode am;
        CUfilter_mode fm;
        CUarray_format fmt;
        int ch;
        unsigned fl;
        (void)T->cuTexRefGetAddress_v2(in.flip() ? &p : nullptr, t);
        (void)T->cuTexRefGetArray(in.flip() ? &a : nullptr, t);
        (void)T->cuTexRefGetAddressMode(in.flip() ? &am : nullptr, t, int(in.below(5)) - 1);
        (void)T->cuTexRefGetFilterMode(in.flip() ? &fm : nullptr, t);
        (void)T->cuTexRefGetFormat(in.flip() ? &fmt : nullptr, in.flip() ? &ch : nullptr, t);
        (void)T->cuTexRefGetFlags(in.flip() ? &fl : nullptr, t);
        CUsurfref sr = junk_handle<CUsurfref>(in);
        (void)T->cuSurfRefSetArray(sr, pick(in, P->array), 0);
        (void)T->cuSurfRefGetArray(in.flip() ? &a : nullptr, sr);
        if (in.u8() % 4 == 0 && T->cuTexRefDestroy(t) == CUDA_SUCCESS) P->texref.kill(t);
        return;
    }
    }
}

void op_alloc(Input& in) {
    CUdeviceptr p = 0;
    void* h = nullptr;
    size_t size = alloc_size(in);
    switch (in.u8() % 10) {
    case 0:
    case 1:
    case 2:
        if (T->cuMemAlloc_v2(in.u8() % 16 ? &p : nullptr, size) == CUDA_SUCCESS) {
            CHECK(p != 0);
            CUdeviceptr base = 0;
            size_t bytes = 0;
            CHECK(T->cuMemGetAddressRange_v2(&base, &bytes, p) == CUDA_SUCCESS && base == p && bytes == size);
            remember_dev(p, size);
        }
        return;
    case 3: {
        size_t pitch = 0;
        size_t width = in.u8() % 8 ? in.u16() : size;
        size_t height = in.u8() % 8 ? in.below(64) : pick_size(in);
        unsigned elem = in.u8() % 4 ? 4u << in.below(3) : in.u32();
        if (width * std::max<size_t>(height, 1) > (64u << 20) && !g_budget && width < (1ull << 32) && height < (1ull << 32))
            height = 1;
        if (T->cuMemAllocPitch_v2(&p, in.u8() % 16 ? &pitch : nullptr, width, height, elem) == CUDA_SUCCESS) {
            CHECK(p != 0 && pitch >= width);
            remember_dev(p, pitch * height);
        }
        return;
    }
    case 4:
        if (T->cuMemAllocHost_v2(in.u8() % 16 ? &h : nullptr, size) == CUDA_SUCCESS && h)
            if (P->host.size() < 64) {
                P->host.push_back({reinterpret_cast<CUdeviceptr>(h), size});
                remember_range(reinterpret_cast<CUdeviceptr>(h), size);
            }
        return;
    case 5:
        if (T->cuMemHostAlloc(&h, size, in.u8() % 4 ? in.below(16) : in.u32()) == CUDA_SUCCESS && h)
            if (P->host.size() < 64) {
                P->host.push_back({reinterpret_cast<CUdeviceptr>(h), size});
                remember_range(reinterpret_cast<CUdeviceptr>(h), size);
            }
        return;
    case 6:
        // Managed memory is not within the memory budget yet (docs/runtime.md): sizes stay small.
        if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
        if (T->cuMemAllocManaged(&p, size, in.u8() % 4 ? 1 + in.below(2) : in.u32()) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, size);
        }
        return;
    case 7:
        if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
        if (T->cuMemAllocAsync(&p, size, pick_stream(in)) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, size);
        }
        return;
    case 8:
        if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
        if (T->cuMemAllocFromPoolAsync(&p, size, pick(in, P->mempool), pick_stream(in)) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, size);
        }
        return;
    default: {
        // The legacy 32-bit entry points: a 64-bit allocation does not fit in their pointers.
        CUdeviceptr_v1 p32 = 0;
        if (T->cuMemAlloc(&p32, unsigned(size)) == CUDA_SUCCESS && p32) (void)T->cuMemFree(p32);
        unsigned f, t;
        (void)T->cuMemGetInfo(in.flip() ? &f : nullptr, &t);
        return;
    }
    }
}

void op_free(Input& in) {
    switch (in.u8() % 4) {
    case 0:
    case 1: {
        CUdeviceptr p = in.u8() % 4 || P->dev.empty() ? pick_dptr(in) : P->dev[in.below(P->dev.size())].p;
        if (T->cuMemFree_v2(p) == CUDA_SUCCESS) forget(P->dev, P->dev_dead, p);
        return;
    }
    case 2: {
        CUdeviceptr p = in.u8() % 4 || P->dev.empty() ? pick_dptr(in) : P->dev[in.below(P->dev.size())].p;
        // A stream-ordered free: the memory goes when the stream gets there.
        if (T->cuMemFreeAsync(p, pick_stream(in)) == CUDA_SUCCESS) forget(P->dev, P->dev_dead, p);
        return;
    }
    default: {
        void* h = !P->host.empty() && in.u8() % 4 ? reinterpret_cast<void*>(P->host[in.below(P->host.size())].p)
                                                   : reinterpret_cast<void*>(pick_dptr(in));
        if (T->cuMemFreeHost(h) == CUDA_SUCCESS) forget(P->host, P->host_dead, reinterpret_cast<CUdeviceptr>(h));
        return;
    }
    }
}

void op_memset(Input& in) {
    CUdeviceptr p = pick_dptr(in);
    size_t n = pick_size(in);
    CUstream s = pick_stream(in);
    size_t pitch;
    switch (in.u8() % 8) {
    case 0: pitch = ~0ull - in.below(1024); break; // (Height - 1) * pitch wraps (issue 14, item 1)
    case 1: pitch = huge_size(in); break;
    case 2: pitch = 0; break;
    default: pitch = in.u16() % 4096;
    }
    size_t w = in.u8() % 8 ? in.u16() % 1024 : pick_size(in);
    size_t h = in.u8() % 8 ? in.below(16) : pick_size(in);
    switch (in.u8() % 12) {
    case 0: (void)T->cuMemsetD8_v2(p, in.u8(), n); return;
    case 1: (void)T->cuMemsetD16_v2(p, in.u16(), n); return;
    case 2: (void)T->cuMemsetD32_v2(p, in.u32(), n); return;
    case 3: (void)T->cuMemsetD8Async(p, in.u8(), n, s); return;
    case 4: (void)T->cuMemsetD16Async(p, in.u16(), n, s); return;
    case 5: (void)T->cuMemsetD32Async(p, in.u32(), n, s); return;
    case 6: (void)T->cuMemsetD2D8_v2(p, pitch, in.u8(), w, h); return;
    case 7: (void)T->cuMemsetD2D16_v2(p, pitch, in.u16(), w, h); return;
    case 8: (void)T->cuMemsetD2D32_v2(p, pitch, in.u32(), w, h); return;
    case 9: (void)T->cuMemsetD2D8Async(p, pitch, in.u8(), w, h, s); return;
    case 10: (void)T->cuMemsetD2D16Async(p, pitch, in.u16(), w, h, s); return;
    default: (void)T->cuMemsetD2D32Async(p, pitch, in.u32(), w, h, s); return;
    }
}

void op_memcpy(Input& in) {
    size_t n = pick_size(in);
    CUstream s = pick_stream(in);
    switch (in.u8() % 14) {
    case 0: (void)T->cuMemcpyHtoD_v2(pick_dptr(in), pick_host(in), n); return;
    case 1: (void)T->cuMemcpyDtoH_v2(pick_host(in), pick_dptr(in), n); return;
    case 2: (void)T->cuMemcpyDtoD_v2(pick_dptr(in), pick_dptr(in), n); return;
    case 3: (void)T->cuMemcpyHtoDAsync_v2(pick_dptr(in), pick_host(in), n, s); return;
    case 4: (void)T->cuMemcpyDtoHAsync_v2(pick_host(in), pick_dptr(in), n, s); return;
    case 5: (void)T->cuMemcpyDtoDAsync_v2(pick_dptr(in), pick_dptr(in), n, s); return;
    case 6: (void)T->cuMemcpy(pick_unified(in), pick_unified(in), n); return;
    case 7: (void)T->cuMemcpyAsync(pick_unified(in), pick_unified(in), n, s); return;
    case 8: {
        // The legacy 32-bit forms.
        (void)T->cuMemcpyHtoD(CUdeviceptr_v1(pick_dptr(in)), pick_host(in), unsigned(n));
        (void)T->cuMemcpyDtoH(pick_host(in), CUdeviceptr_v1(pick_dptr(in)), unsigned(n));
        (void)T->cuMemcpyDtoDAsync(CUdeviceptr_v1(pick_dptr(in)), CUdeviceptr_v1(pick_dptr(in)), unsigned(n), s);
        return;
    }
    case 9: {
        CUDA_MEMCPY2D c;
        fill_copy2d(in, c);
        switch (in.u8() % 3) {
        case 0: (void)T->cuMemcpy2D_v2(in.u8() % 16 ? &c : nullptr); return;
        case 1: (void)T->cuMemcpy2DUnaligned_v2(&c); return;
        default: (void)T->cuMemcpy2DAsync_v2(&c, s); return;
        }
    }
    case 10: {
        CUDA_MEMCPY3D c;
        fill_copy3d(in, c);
        if (in.flip()) (void)T->cuMemcpy3D_v2(in.u8() % 16 ? &c : nullptr);
        else (void)T->cuMemcpy3DAsync_v2(&c, s);
        return;
    }
    case 11: {
        // A round trip through fresh memory must give the bytes back.
        CUdeviceptr d = 0;
        size_t k = 1 + in.below(255);
        if (T->cuMemAlloc_v2(&d, k) != CUDA_SUCCESS) return;
        uint8_t* src = rw();
        uint8_t* dst = rw() + 1024;
        for (size_t i = 0; i < k; ++i) src[i] = uint8_t(i * 7 + 1);
        std::memset(dst, 0, k);
        if (T->cuMemcpyHtoD_v2(d, src, k) == CUDA_SUCCESS && T->cuMemcpyDtoH_v2(dst, d, k) == CUDA_SUCCESS)
            CHECK(std::memcmp(src, dst, k) == 0);
        (void)T->cuMemFree_v2(d);
        return;
    }
    default: {
        CUarray a = pick(in, P->array);
        size_t off = in.flip() ? in.u16() % 512 : pick_size(in);
        switch (in.u8() % 7) {
        case 0: (void)T->cuMemcpyHtoA_v2(a, off, pick_host(in), n); return;
        case 1: (void)T->cuMemcpyAtoH_v2(pick_host(in), a, off, n); return;
        case 2: (void)T->cuMemcpyHtoAAsync_v2(a, off, pick_host(in), n, s); return;
        case 3: (void)T->cuMemcpyAtoHAsync_v2(pick_host(in), a, off, n, s); return;
        case 4: (void)T->cuMemcpyDtoA_v2(a, off, pick_dptr(in), n); return;
        case 5: (void)T->cuMemcpyAtoD_v2(pick_dptr(in), a, off, n); return;
        default: (void)T->cuMemcpyAtoA_v2(a, off, pick(in, P->array), in.u16() % 512, n); return;
        }
    }
    }
}

void op_memory_info(Input& in) {
    CUdeviceptr p = pick_dptr(in);
    switch (in.u8() % 10) {
    case 0: {
        CUdeviceptr base;
        size_t size;
        (void)T->cuMemGetAddressRange_v2(in.flip() ? &base : nullptr, in.flip() ? &size : nullptr, p);
        size_t f, t;
        (void)T->cuMemGetInfo_v2(in.flip() ? &f : nullptr, in.flip() ? &t : nullptr);
        return;
    }
    case 1: {
        alignas(16) uint8_t data[64];
        auto attr = static_cast<CUpointer_attribute>(in.u8() % 4 ? 1 + in.below(24) : int(in.u32()));
        (void)T->cuPointerGetAttribute(in.flip() ? data : nullptr, attr, p);
        return;
    }
    case 2: {
        // Every attribute writes at most 8 bytes (the P2P tokens 16): give each 64.
        alignas(16) uint8_t data[4][64];
        void* ptrs[4] = {data[0], data[1], data[2], in.flip() ? data[3] : nullptr};
        CUpointer_attribute attrs[4];
        for (auto& a : attrs) a = static_cast<CUpointer_attribute>(in.u8() % 4 ? 1 + in.below(24) : int(in.u32()));
        (void)T->cuPointerGetAttributes(in.below(5), in.flip() ? attrs : nullptr, in.flip() ? ptrs : nullptr, p);
        return;
    }
    case 3: {
        alignas(16) uint8_t data[64];
        auto attr = static_cast<CUmem_range_attribute>(in.u8() % 4 ? 1 + in.below(8) : int(in.u32()));
        size_t bytes = in.u8() % 4 ? 4u << in.below(3) : in.below(65);
        (void)T->cuMemRangeGetAttribute(in.flip() ? data : nullptr, bytes, attr, p, pick_size(in));
        alignas(16) uint8_t d2[2][64];
        void* dd[2] = {d2[0], d2[1]};
        size_t sizes[2] = {4, in.below(65)};
        CUmem_range_attribute attrs[2] = {attr, static_cast<CUmem_range_attribute>(1 + in.below(4))};
        (void)T->cuMemRangeGetAttributes(in.flip() ? dd : nullptr, in.flip() ? sizes : nullptr, in.flip() ? attrs : nullptr,
                                         in.below(3), p, pick_size(in));
        return;
    }
    case 4:
        (void)T->cuMemPrefetchAsync(p, pick_size(in), CUdevice(int(in.below(4)) - 2), pick_stream(in));
        (void)T->cuMemPrefetchAsync_v2(p, pick_size(in), pick_location(in), in.u8() % 4 ? 0 : in.u32(), pick_stream(in));
        return;
    case 5:
        (void)T->cuMemAdvise(p, pick_size(in), static_cast<CUmem_advise>(in.below(8)), CUdevice(int(in.below(4)) - 2));
        (void)T->cuMemAdvise_v2(p, pick_size(in), static_cast<CUmem_advise>(in.below(8)), pick_location(in));
        return;
    case 6:
        (void)T->cuStreamAttachMemAsync(pick_stream(in), p, pick_size(in), in.u8() % 4 ? 1u << in.below(3) : in.u32());
        return;
    case 7: {
        // Registering a piece of the arena: the arena's pages, its inaccessible or read-only page, or junk.
        void* h;
        size_t bytes;
        uint8_t which = in.u8() % 6;
        if (!kRegisterUnmapped && which < 4) which = 4;
        switch (which) {
        case 0: h = guard(); bytes = kPage; break;
        case 1: h = read_only(); bytes = kPage; break;
        case 2: h = reinterpret_cast<void*>(0x10); bytes = kPage; break;
        case 3: h = rw() + kRwBytes - kPage; bytes = 2 * kPage; break; // runs into the inaccessible page
        default: {
            size_t page = in.below(kRwBytes / kPage);
            h = rw() + kPage * page;
            bytes = kPage * std::min<size_t>(1 + in.below(3), kRwBytes / kPage - page);
            break;
        }
        }
        if (in.u8() % 8 == 0) bytes = kRegisterUnmapped ? pick_size(in) : std::min(pick_size(in), kRwBytes - (static_cast<uint8_t*>(h) - rw()));
        unsigned flags = in.u8() % 4 ? in.below(16) : in.u32();
        CUresult r = in.flip() ? T->cuMemHostRegister_v2(h, bytes, flags) : T->cuMemHostRegister(h, bytes, flags);
        if (r == CUDA_SUCCESS && P->registered.size() < 16) P->registered.push_back({reinterpret_cast<CUdeviceptr>(h), bytes});
        return;
    }
    case 8: {
        void* h = !P->registered.empty() && in.flip() ? reinterpret_cast<void*>(P->registered[in.below(P->registered.size())].p)
                                                      : pick_host(in);
        if (T->cuMemHostUnregister(h) == CUDA_SUCCESS) {
            auto it = std::find_if(P->registered.begin(), P->registered.end(),
                                   [&](const Ptr& r) { return r.p == reinterpret_cast<CUdeviceptr>(h); });
            if (it != P->registered.end()) P->registered.erase(it);
        }
        return;
    }
    default: {
        unsigned flags;
        CUdeviceptr d;
        void* h = in.flip() ? reinterpret_cast<void*>(p) : pick_host(in);
        (void)T->cuMemHostGetFlags(in.flip() ? &flags : nullptr, h);
        (void)T->cuMemHostGetDevicePointer_v2(in.flip() ? &d : nullptr, h, in.u8() % 4 ? 0 : in.u32());
        return;
    }
    }
}

void op_stream(Input& in) {
    CUstream s = pick_stream(in);
    switch (in.u8() % 14) {
    case 0:
    case 1: {
        if (P->stream.live.size() >= 16) return;
        CUstream n = nullptr;
        CUresult r = in.flip() ? T->cuStreamCreate(in.u8() % 16 ? &n : nullptr, in.u8() % 4 ? in.below(2) : in.u32())
                               : T->cuStreamCreateWithPriority(&n, in.below(3), in.u8() % 4 ? -int(in.below(6)) : int(in.u32()));
        if (r == CUDA_SUCCESS) {
            CHECK(n != nullptr);
            P->stream.add(n);
        }
        return;
    }
    case 2:
        if ((in.flip() ? T->cuStreamDestroy_v2(s) : T->cuStreamDestroy(s)) == CUDA_SUCCESS) P->stream.kill(s);
        return;
    case 3: (void)T->cuStreamQuery(s); return;
    case 4: (void)T->cuStreamSynchronize(s); return;
    case 5: (void)T->cuStreamWaitEvent(s, pick(in, P->event), in.u8() % 4 ? 0 : in.u32()); return;
    case 6: {
        int prio;
        unsigned flags;
        CUcontext c;
        (void)T->cuStreamGetPriority(s, in.flip() ? &prio : nullptr);
        (void)T->cuStreamGetFlags(s, in.flip() ? &flags : nullptr);
        (void)T->cuStreamGetCtx(s, in.flip() ? &c : nullptr);
        return;
    }
    case 7:
        if (in.flip()) (void)T->cuStreamAddCallback(s, in.u8() % 8 ? stream_cb : nullptr, nullptr, in.u8() % 4 ? 0 : in.u32());
        else (void)T->cuLaunchHostFunc(s, pick_host_fn(in), s);
        return;
    case 8: {
        CUstreamAttrValue v;
        in.fill(&v, sizeof v);
        if (in.flip()) v.accessPolicyWindow.base_ptr = reinterpret_cast<void*>(pick_dptr(in));
        auto attr = static_cast<CUstreamAttrID>(in.u8() % 4 ? in.below(12) : int(in.u32()));
        (void)T->cuStreamSetAttribute(s, attr, in.u8() % 8 ? &v : nullptr);
        (void)T->cuStreamGetAttribute(s, attr, in.u8() % 8 ? &v : nullptr);
        (void)T->cuStreamCopyAttributes(s, pick_stream(in));
        return;
    }
    case 9: {
        // Waits only on the word the harness holds at 1, with conditions that hold for it, or on
        // addresses d4r refuses; a write may go anywhere.
        CUdeviceptr flag = reinterpret_cast<CUdeviceptr>(g_flag);
        CUdeviceptr addr;
        switch (in.u8() % 4) {
        case 0: addr = flag + 1 + in.below(3); break; // misaligned
        case 1: addr = in.flip() ? 0 : 0x10; break;
        default: addr = flag;
        }
        static const unsigned modes[] = {0 /*GEQ*/, 1 /*EQ*/, 2 /*AND*/, 3 /*NOR*/};
        unsigned mode = modes[in.below(4)], flags = mode | (in.flip() ? (1u << 30) : 0);
        cuuint64_t value = mode == 0 ? in.below(2) : mode == 1 ? 1 : mode == 2 ? (in.u32() | 1) : 0;
        if (in.u8() % 8 == 0) flags = in.u32() | 4; // an unknown mode: refused
        if (in.flip()) (void)T->cuStreamWaitValue32_v2(s, addr, cuuint32_t(value), flags);
        else (void)T->cuStreamWaitValue64_v2(s, addr, value, flags); // the 64-bit word is 1 too
        return;
    }
    case 10: {
        CUdeviceptr addr = pick_dptr(in);
        if (addr == reinterpret_cast<CUdeviceptr>(g_flag)) return;
        if (in.flip()) (void)T->cuStreamWriteValue32_v2(s, addr, in.u32(), in.u8() % 4 ? in.below(2) : in.u32());
        else (void)T->cuStreamWriteValue64_v2(s, addr, in.u64(), in.u8() % 4 ? in.below(2) : in.u32());
        return;
    }
    case 11: {
        CUstreamBatchMemOpParams ops[3];
        std::memset(ops, 0, sizeof ops);
        unsigned count = unsigned(in.below(4));
        for (auto& op : ops) {
            unsigned kind = unsigned(in.below(7));
            op.operation = static_cast<CUstreamBatchMemOpType>(kind);
            if (kind == CU_STREAM_MEM_OP_WAIT_VALUE_32 || kind == CU_STREAM_MEM_OP_WAIT_VALUE_64) { // on the flag word, which holds
                op.waitValue.address = reinterpret_cast<CUdeviceptr>(g_flag);
                op.waitValue.value64 = 1;
                op.waitValue.flags = 1; // EQ
            } else {
                op.writeValue.address = pick_dptr(in);
                if (op.writeValue.address == reinterpret_cast<CUdeviceptr>(g_flag)) op.writeValue.address = 0;
                op.writeValue.value64 = in.u64();
                op.writeValue.flags = in.u8() % 4 ? 0 : in.u32();
            }
        }
        (void)T->cuStreamBatchMemOp_v2(s, in.u8() % 8 ? count : ~0u, in.u8() % 8 ? ops : nullptr, in.u8() % 4 ? 0 : in.u32());
        return;
    }
    default: {
        CUstreamCaptureStatus st;
        (void)T->cuStreamIsCapturing(s, in.flip() ? &st : nullptr);
        return;
    }
    }
}

void op_event(Input& in) {
    CUevent e = pick(in, P->event);
    switch (in.u8() % 8) {
    case 0:
    case 1: {
        if (P->event.live.size() >= 16) return;
        CUevent n = nullptr;
        if (T->cuEventCreate(in.u8() % 16 ? &n : nullptr, in.u8() % 4 ? in.below(8) : in.u32()) == CUDA_SUCCESS) {
            CHECK(n != nullptr);
            P->event.add(n);
        }
        return;
    }
    case 2:
        if ((in.flip() ? T->cuEventDestroy_v2(e) : T->cuEventDestroy(e)) == CUDA_SUCCESS) P->event.kill(e);
        return;
    case 3:
        if (in.flip()) (void)T->cuEventRecord(e, pick_stream(in));
        else (void)T->cuEventRecordWithFlags(e, pick_stream(in), in.u8() % 4 ? in.below(2) : in.u32());
        return;
    case 4: (void)T->cuEventQuery(e); return;
    case 5: (void)T->cuEventSynchronize(e); return;
    default: {
        float ms;
        (void)T->cuEventElapsedTime(in.flip() ? &ms : nullptr, e, pick(in, P->event));
        (void)T->cuEventElapsedTime_v2(in.flip() ? &ms : nullptr, pick(in, P->event), e);
        return;
    }
    }
}

void op_array(Input& in) {
    switch (in.u8() % 10) {
    case 0:
    case 1: {
        if (P->array.live.size() >= 16) return;
        CUarray a = nullptr;
        CUDA_ARRAY3D_DESCRIPTOR d;
        fill_array3d(in, d);
        CUresult r;
        if (in.flip()) {
            CUDA_ARRAY_DESCRIPTOR d2{d.Width, d.Height, d.Format, d.NumChannels};
            r = T->cuArrayCreate_v2(in.u8() % 16 ? &a : nullptr, in.u8() % 16 ? &d2 : nullptr);
        } else {
            r = T->cuArray3DCreate_v2(in.u8() % 16 ? &a : nullptr, in.u8() % 16 ? &d : nullptr);
        }
        if (r == CUDA_SUCCESS) {
            CHECK(a != nullptr);
            P->array.add(a);
        }
        return;
    }
    case 2: {
        CUarray a = pick(in, P->array);
        if (T->cuArrayDestroy(a) == CUDA_SUCCESS) P->array.kill(a);
        return;
    }
    case 3: {
        CUDA_ARRAY_DESCRIPTOR d;
        CUDA_ARRAY3D_DESCRIPTOR d3;
        (void)T->cuArrayGetDescriptor_v2(in.flip() ? &d : nullptr, pick(in, P->array));
        (void)T->cuArray3DGetDescriptor_v2(in.flip() ? &d3 : nullptr, pick(in, P->array));
        return;
    }
    case 4: {
        if (P->mipmap.live.size() >= 8) return;
        CUDA_ARRAY3D_DESCRIPTOR d;
        fill_array3d(in, d);
        CUmipmappedArray m = nullptr;
        if (T->cuMipmappedArrayCreate(in.u8() % 16 ? &m : nullptr, in.u8() % 16 ? &d : nullptr,
                                      in.u8() % 4 ? 1 + in.below(4) : in.u32()) == CUDA_SUCCESS) {
            CHECK(m != nullptr);
            P->mipmap.add(m);
        }
        return;
    }
    case 5: {
        CUarray level;
        (void)T->cuMipmappedArrayGetLevel(in.flip() ? &level : nullptr, pick(in, P->mipmap), in.u8() % 4 ? in.below(4) : in.u32());
        CUmipmappedArray m = pick(in, P->mipmap);
        if (in.u8() % 4 == 0 && T->cuMipmappedArrayDestroy(m) == CUDA_SUCCESS) P->mipmap.kill(m);
        return;
    }
    case 6:
    case 7: {
        if (P->tex.live.size() >= 16) return;
        CUDA_RESOURCE_DESC res;
        fill_resource(in, res);
        CUDA_TEXTURE_DESC td;
        in.fill(&td, sizeof td);
        if (in.flip()) std::memset(td.reserved, 0, sizeof td.reserved);
        for (auto& m : td.addressMode) m = static_cast<CUaddress_mode>(in.u8() % 4 ? in.below(4) : in.u32());
        td.filterMode = static_cast<CUfilter_mode>(in.u8() % 4 ? in.below(2) : in.u32());
        CUDA_RESOURCE_VIEW_DESC vd;
        in.fill(&vd, sizeof vd);
        CUtexObject t = 0;
        if (T->cuTexObjectCreate(in.u8() % 16 ? &t : nullptr, in.u8() % 16 ? &res : nullptr, in.u8() % 8 ? &td : nullptr,
                                 in.u8() % 4 ? nullptr : &vd) == CUDA_SUCCESS) {
            CHECK(t != 0);
            P->tex.add(t);
        }
        return;
    }
    case 8: {
        if (P->surf.live.size() >= 16) return;
        CUDA_RESOURCE_DESC res;
        fill_resource(in, res);
        CUsurfObject s = 0;
        if (T->cuSurfObjectCreate(in.u8() % 16 ? &s : nullptr, in.u8() % 16 ? &res : nullptr) == CUDA_SUCCESS) {
            CHECK(s != 0);
            P->surf.add(s);
        }
        return;
    }
    default: {
        CUDA_RESOURCE_DESC res;
        CUtexObject t = pick(in, P->tex);
        CUsurfObject s = pick(in, P->surf);
        (void)T->cuTexObjectGetResourceDesc(in.flip() ? &res : nullptr, t);
        (void)T->cuSurfObjectGetResourceDesc(in.flip() ? &res : nullptr, s);
        if (in.flip() && T->cuTexObjectDestroy(t) == CUDA_SUCCESS) P->tex.kill(t);
        if (in.flip() && T->cuSurfObjectDestroy(s) == CUDA_SUCCESS) P->surf.kill(s);
        return;
    }
    }
}

// JIT options with values of the right kind: log buffers are the harness's own, sized truthfully.
struct JitOptions {
    CUjit_option opts[6];
    void* values[6];
    char info[256], error[256];
    unsigned n = 0;
};
void fill_jit(Input& in, JitOptions& j) {
    j.n = unsigned(in.below(7));
    for (unsigned i = 0; i < j.n; ++i) {
        unsigned o = in.u8() % 8 ? unsigned(in.below(15)) : in.u32();
        j.opts[i] = static_cast<CUjit_option>(o);
        switch (o) {
        case CU_JIT_INFO_LOG_BUFFER: j.values[i] = in.u8() % 4 ? j.info : nullptr; break;
        case CU_JIT_ERROR_LOG_BUFFER: j.values[i] = in.u8() % 4 ? j.error : nullptr; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: j.values[i] = reinterpret_cast<void*>(uintptr_t(in.below(257))); break;
        // Options past CU_JIT_CACHE_MODE (14) include pointers to arrays (global symbol names and
        // addresses): NULL for those, a number for the rest.
        default: j.values[i] = o > CU_JIT_CACHE_MODE ? nullptr : reinterpret_cast<void*>(uintptr_t(in.u8() % 4 ? in.below(8) : in.u64()));
        }
    }
    // A buffer without its size, or a size larger than the buffer, would be the caller's lie: make sure
    // every log buffer given has its size option and the size fits (d4r writes at most that many bytes).
    for (unsigned i = 0; i < j.n; ++i) {
        if (j.opts[i] == CU_JIT_INFO_LOG_BUFFER || j.opts[i] == CU_JIT_ERROR_LOG_BUFFER) {
            bool sized = false;
            auto want = j.opts[i] == CU_JIT_INFO_LOG_BUFFER ? CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES : CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
            for (unsigned k = 0; k < j.n; ++k) sized |= j.opts[k] == want;
            if (!sized) j.values[i] = nullptr;
        }
    }
}

void add_functions(CUmodule m, bool fuzzed, Input& in) {
    for (const KernelInfo& k : kKernels) {
        CUfunction f = nullptr;
        if (T->cuModuleGetFunction(&f, m, k.name) == CUDA_SUCCESS) {
            CHECK(f != nullptr);
            (fuzzed ? P->fuzzed_function : P->function).add(f);
        }
    }
    if (fuzzed) {
        std::string scratch;
        CUfunction f = nullptr;
        const char* name = pick_name(in, scratch);
        if (T->cuModuleGetFunction(&f, m, name) == CUDA_SUCCESS) P->fuzzed_function.add(f);
    }
}

void op_module(Input& in) {
    std::string scratch;
    switch (in.u8() % 12) {
    case 0:
    case 1:
    case 2: {
        if (P->module.live.size() >= 8) return;
        CUmodule m = nullptr;
        bool fuzzed = in.u8() % 3 == 0;
        std::string text = fuzzed ? fuzzed_ptx(in) : std::string(kPtx);
        JitOptions j;
        CUresult r;
        switch (in.u8() % 3) {
        case 0: r = T->cuModuleLoadData(in.u8() % 16 ? &m : nullptr, in.u8() % 16 ? text.c_str() : nullptr); break;
        case 1:
            fill_jit(in, j);
            r = T->cuModuleLoadDataEx(&m, text.c_str(), j.n, in.u8() % 8 ? j.opts : nullptr, in.u8() % 8 ? j.values : nullptr);
            break;
        default: r = T->cuModuleLoadFatBinary(&m, text.c_str()); break;
        }
        if (r == CUDA_SUCCESS) {
            CHECK(m != nullptr);
            P->module.add(m);
            add_functions(m, fuzzed, in);
        }
        return;
    }
    case 3: {
        static const char* paths[] = {nullptr, "", "/nonexistent/d4r.ptx", "/dev/null", "/proc/self/status", "/"};
        CUmodule m = nullptr;
        if (T->cuModuleLoad(&m, paths[in.below(std::size(paths))]) == CUDA_SUCCESS) P->module.add(m);
        return;
    }
    case 4: {
        CUmodule m = pick(in, P->module);
        if (T->cuModuleUnload(m) == CUDA_SUCCESS) P->module.kill(m);
        // Its functions are gone with it (kept as destroyed handles by the pool's dead lists).
        return;
    }
    case 5: {
        CUfunction f = nullptr;
        CUmodule m = pick(in, P->module);
        if (T->cuModuleGetFunction(in.u8() % 16 ? &f : nullptr, m, pick_name(in, scratch)) == CUDA_SUCCESS) {
            CHECK(f != nullptr);
            P->fuzzed_function.add(f);
        }
        return;
    }
    case 6: {
        CUdeviceptr p = 0;
        size_t bytes = 0;
        if (T->cuModuleGetGlobal_v2(in.u8() % 8 ? &p : nullptr, in.u8() % 8 ? &bytes : nullptr, pick(in, P->module),
                                    pick_name(in, scratch)) == CUDA_SUCCESS &&
            p && bytes)
            remember_dev(p, bytes);
        return;
    }
    case 7: {
        // Libraries: context-independent, loaded into a context when used.
        if (P->library.live.size() >= 8) return;
        bool fuzzed = in.u8() % 3 == 0;
        std::string text = fuzzed ? fuzzed_ptx(in) : std::string(kPtx);
        JitOptions j;
        fill_jit(in, j);
        CUlibraryOption lopts[2] = {static_cast<CUlibraryOption>(in.below(3)), static_cast<CUlibraryOption>(in.u32())};
        void* lvalues[2] = {nullptr, reinterpret_cast<void*>(uintptr_t(in.below(2)))};
        CUlibrary l = nullptr;
        if (T->cuLibraryLoadData(in.u8() % 16 ? &l : nullptr, in.u8() % 16 ? text.c_str() : nullptr, j.opts, j.values, j.n,
                                 in.flip() ? lopts : nullptr, in.flip() ? lvalues : nullptr, unsigned(in.below(3))) == CUDA_SUCCESS) {
            CHECK(l != nullptr);
            P->library.add(l);
            for (const KernelInfo& k : kKernels) {
                CUkernel kk = nullptr;
                // A fuzzed library's kernels have unknown layouts: not in the pool (launches take them
                // as functions, and kernelParams is read by the layout).
                if (!fuzzed && T->cuLibraryGetKernel(&kk, l, k.name) == CUDA_SUCCESS) P->kernel.add(kk);
            }
        }
        return;
    }
    case 8: {
        CUlibrary l = pick(in, P->library);
        if (T->cuLibraryUnload(l) == CUDA_SUCCESS) {
            P->library.kill(l);
            // Its kernels die with it: drop them all to keep the pool's live list truthful.
            for (CUkernel k : std::vector<CUkernel>(P->kernel.live)) {
                CUlibrary owner = nullptr;
                if (T->cuKernelGetLibrary(&owner, k) != CUDA_SUCCESS || owner == l) P->kernel.kill(k);
            }
        }
        return;
    }
    case 9: {
        CUlibrary l = pick(in, P->library);
        CUkernel k = nullptr;
        CUmodule m = nullptr;
        CUdeviceptr p = 0;
        size_t bytes = 0;
        (void)T->cuLibraryGetKernel(in.flip() ? &k : nullptr, l, pick_name(in, scratch));
        (void)T->cuLibraryGetModule(in.flip() ? &m : nullptr, l);
        if (T->cuLibraryGetGlobal(&p, &bytes, l, pick_name(in, scratch)) == CUDA_SUCCESS && p && bytes) remember_dev(p, bytes);
        return;
    }
    case 10: {
        CUkernel k = in.flip() ? pick(in, P->kernel) : reinterpret_cast<CUkernel>(pick_function(in));
        CUfunction f = nullptr;
        int v;
        const char* name;
        CUlibrary l;
        if (T->cuKernelGetFunction(in.u8() % 16 ? &f : nullptr, k) == CUDA_SUCCESS && !P->function.has(f) && !P->fuzzed_function.has(f))
            P->function.add(f); // a library kernel of kPtx (fuzzed libraries' kernels are not in the pool)
        auto attr = static_cast<CUfunction_attribute>(in.u8() % 4 ? in.below(20) : int(in.u32()));
        CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
        (void)T->cuKernelGetAttribute(in.flip() ? &v : nullptr, attr, k, dev);
        (void)T->cuKernelSetAttribute(attr, in.u8() % 4 ? int(in.u16()) : int(in.u32()), k, dev);
        (void)T->cuKernelSetCacheConfig(k, static_cast<CUfunc_cache>(in.below(6)), dev);
        if (T->cuKernelGetName(in.flip() ? &name : nullptr, k) == CUDA_SUCCESS && name) (void)std::strlen(name);
        (void)T->cuKernelGetLibrary(in.flip() ? &l : nullptr, k);
        return;
    }
    default: {
        // Linking: PTX and junk inputs; the result is loaded as a module.
        if (P->link.live.size() >= 4) return;
        JitOptions j;
        fill_jit(in, j);
        CUlinkState st = nullptr;
        if (T->cuLinkCreate_v2(j.n, j.opts, j.values, in.u8() % 16 ? &st : nullptr) != CUDA_SUCCESS || !st) return;
        P->link.add(st);
        for (int i = 0, n = int(in.below(3)); i < n; ++i) {
            bool fuzzed = in.flip();
            std::string text = fuzzed ? fuzzed_ptx(in) : std::string(kPtx);
            auto type = static_cast<CUjitInputType>(in.u8() % 4 ? 1 : in.below(7));
            // d4r is told the size: a type other than PTX reads within it.
            size_t size = in.u8() % 8 ? text.size() + 1 : in.below(text.size() + 1);
            (void)T->cuLinkAddData_v2(st, type, in.u8() % 16 ? text.data() : nullptr, size, in.flip() ? "fuzz.ptx" : nullptr,
                                      0, nullptr, nullptr);
        }
        if (in.u8() % 4 == 0) (void)T->cuLinkAddFile_v2(st, CU_JIT_INPUT_PTX, in.flip() ? "/nonexistent.ptx" : "/dev/null", 0, nullptr, nullptr);
        void* cubin = nullptr;
        size_t size = 0;
        if (T->cuLinkComplete(st, in.u8() % 8 ? &cubin : nullptr, in.u8() % 8 ? &size : nullptr) == CUDA_SUCCESS && cubin &&
            in.flip() && P->module.live.size() < 8) {
            CUmodule m = nullptr;
            if (T->cuModuleLoadData(&m, cubin) == CUDA_SUCCESS) {
                P->module.add(m);
                add_functions(m, true, in);
            }
        }
        if (in.u8() % 4 && T->cuLinkDestroy(st) == CUDA_SUCCESS) P->link.kill(st);
        return;
    }
    }
}

void op_function(Input& in) {
    CUfunction f = pick_function(in);
    switch (in.u8() % 8) {
    case 0: {
        int v;
        auto attr = static_cast<CUfunction_attribute>(in.u8() % 4 ? in.below(20) : int(in.u32()));
        (void)T->cuFuncGetAttribute(in.flip() ? &v : nullptr, attr, f);
        int value = in.u8() % 4 ? int(in.u32() % (256 * 1024)) : int(in.u32());
        (void)T->cuFuncSetAttribute(f, attr, value);
        return;
    }
    case 1: {
        (void)T->cuFuncSetCacheConfig(f, static_cast<CUfunc_cache>(in.below(6)));
        (void)T->cuFuncSetSharedMemConfig(f, static_cast<CUsharedconfig>(in.below(5)));
        const char* name;
        CUmodule m;
        if (T->cuFuncGetName(in.flip() ? &name : nullptr, f) == CUDA_SUCCESS && name) (void)std::strlen(name);
        (void)T->cuFuncGetModule(in.flip() ? &m : nullptr, f);
        return;
    }
    case 2: {
        int n;
        g_b2d_value = in.u8() % 4 ? in.u16() : pick_size(in);
        (void)T->cuOccupancyMaxActiveBlocksPerMultiprocessor(in.flip() ? &n : nullptr, f, int(pick_dim(in, false)), pick_size(in));
        (void)T->cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, int(in.u32()), in.u16(), in.below(3));
        int grid, block;
        (void)T->cuOccupancyMaxPotentialBlockSize(in.flip() ? &grid : nullptr, &block, f, in.flip() ? b2d : nullptr,
                                                  in.u16(), int(in.u8() % 4 ? in.below(1100) : in.u32()));
        (void)T->cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, in.flip() ? &block : nullptr, f, in.flip() ? b2d : nullptr,
                                                           pick_size(in), int(in.u32()), in.below(3));
        size_t smem;
        (void)T->cuOccupancyAvailableDynamicSMemPerBlock(in.flip() ? &smem : nullptr, f, int(in.u8() % 4 ? in.below(40) : in.u32()),
                                                         int(pick_dim(in, false)));
        return;
    }
    case 3: {
        // The pre-4.0 launch API: a parameter block set piece by piece.
        (void)T->cuFuncSetBlockShape(f, int(pick_dim(in, false)), int(in.below(3)), 1);
        (void)T->cuFuncSetSharedSize(f, pick_shared(in));
        (void)T->cuParamSetSize(f, in.u8() % 4 ? in.below(64) : in.u32());
        (void)T->cuParamSeti(f, in.u8() % 4 ? int(in.below(64)) : int(in.u32()), in.u32());
        (void)T->cuParamSetf(f, in.u8() % 4 ? int(in.below(64)) : int(in.u32()), 1.5f);
        // cuParamSetv reads NUMBYTES from PTR: the harness's arena, truthfully sized, or NULL.
        unsigned bytes = unsigned(in.u8() % 4 ? in.below(64) : in.u16());
        (void)T->cuParamSetv(f, in.u8() % 4 ? int(in.below(64)) : int(in.u32()), in.u8() % 8 ? rw() : nullptr, bytes);
        (void)T->cuParamSetTexRef(f, int(in.u32()), pick(in, P->texref));
        return;
    }
    case 4:
        if (in.flip()) (void)T->cuLaunch(f);
        else if (in.flip()) (void)T->cuLaunchGrid(f, int(pick_dim(in, true)), int(in.below(3)));
        else (void)T->cuLaunchGridAsync(f, int(pick_dim(in, true)), int(in.below(3)), pick_stream(in));
        return;
    default: {
        LaunchArgs a;
        void** params;
        void** extra;
        unsigned gx = pick_dim(in, true), gy = in.u8() % 8 ? 1 : pick_dim(in, true), gz = in.u8() % 8 ? 1 : pick_dim(in, true);
        unsigned bx = pick_dim(in, false), by = in.u8() % 8 ? 1 : pick_dim(in, false), bz = in.u8() % 8 ? 1 : pick_dim(in, false);
        unsigned shared = pick_shared(in);
        CUstream s = pick_stream(in);
        build_args(in, f, a, params, extra);
        switch (in.u8() % 4) {
        case 0: (void)T->cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, s, extra ? nullptr : params); return;
        case 1: {
            CUlaunchAttribute attrs[3];
            std::memset(attrs, 0, sizeof attrs);
            for (auto& at : attrs) {
                at.id = static_cast<CUlaunchAttributeID>(in.u8() % 4 ? in.below(12) : int(in.u32()));
                in.fill(&at.value, 16);
            }
            CUlaunchConfig cfg{gx, gy, gz, bx, by, bz, shared, s, in.u8() % 8 ? attrs : nullptr, unsigned(in.u8() % 8 ? in.below(4) : in.u32())};
            if (cfg.attrs && cfg.numAttrs > 3) cfg.numAttrs = 3;
            (void)T->cuLaunchKernelEx(in.u8() % 16 ? &cfg : nullptr, f, params, extra);
            return;
        }
        default: (void)T->cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra); return;
        }
    }
    }
}

void add_node(CUgraphNode n) {
    if (n) P->node.add(n);
}

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
        if (in.flip()) r = T->cuGraphAddKernelNode_v2(&n, g, d.ptr, d.count, in.u8() % 16 ? &k : nullptr);
        else r = T->cuGraphAddKernelNode(&n, g, d.ptr, d.count, reinterpret_cast<CUDA_KERNEL_NODE_PARAMS_v1*>(&k));
        if (r == CUDA_SUCCESS) add_node(n);
        return;
    }
    case 6: {
        if (P->node.live.size() >= 48) return;
        CUDA_MEMSET_NODE_PARAMS m;
        fill_memset_node(in, m);
        if (T->cuGraphAddMemsetNode(&n, g, d.ptr, d.count, in.u8() % 16 ? &m : nullptr, pick_ctx(in)) == CUDA_SUCCESS) add_node(n);
        return;
    }
    case 7: {
        if (P->node.live.size() >= 48) return;
        CUDA_MEMCPY3D c;
        fill_copy3d(in, c);
        if (T->cuGraphAddMemcpyNode(&n, g, d.ptr, d.count, in.u8() % 16 ? &c : nullptr, pick_ctx(in)) == CUDA_SUCCESS) add_node(n);
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
        if (in.flip()) (void)T->cuGraphGetEdges(g, arrays ? nodes : nullptr, arrays ? to : nullptr, in.u8() % 16 ? &c2 : nullptr);
        else (void)T->cuGraphGetEdges_v2(g, arrays ? nodes : nullptr, arrays ? to : nullptr, in.flip() ? edges : nullptr, &c2);
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
        case 0: (void)T->cuGraphAddDependencies(g, in.u8() % 8 ? from : nullptr, to, count); return;
        case 1: (void)T->cuGraphAddDependencies_v2(g, from, in.u8() % 8 ? to : nullptr, in.flip() ? edges : nullptr, count); return;
        case 2: (void)T->cuGraphRemoveDependencies(g, from, to, count); return;
        default: (void)T->cuGraphRemoveDependencies_v2(g, from, to, in.flip() ? edges : nullptr, count); return;
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
        case 0: r = T->cuGraphInstantiate_v2(in.u8() % 16 ? &e : nullptr, g, in.flip() ? &err : nullptr, in.flip() ? log : nullptr, in.below(129)); break;
        case 1: r = T->cuGraphInstantiate(&e, g, &err, log, sizeof log); break;
        case 2: r = T->cuGraphInstantiateWithFlags(&e, g, in.u8() % 4 ? in.below(16) : in.u64()); break;
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
        case 0: (void)T->cuGraphLaunch(e, pick_stream(in)); return;
        case 1: (void)T->cuGraphUpload(e, pick_stream(in)); return;
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
            if (in.flip()) (void)T->cuGraphExecUpdate_v2(e, g, in.u8() % 16 ? &info : nullptr);
            else (void)T->cuGraphExecUpdate(e, g, in.flip() ? &err : nullptr, in.flip() ? &res : nullptr);
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
    case 18: (void)T->cuGraphDebugDotPrint(g, in.u8() % 8 ? "/dev/null" : nullptr, in.u32()); return;
    default: {
        // Stream capture.
        CUstream s = pick_stream(in);
        switch (in.u8() % 6) {
        case 0:
            if (in.flip()) (void)T->cuStreamBeginCapture(s);
            else (void)T->cuStreamBeginCapture_v2(s, static_cast<CUstreamCaptureMode>(in.u8() % 4 ? in.below(3) : in.u32()));
            return;
        case 1: {
            CUgraph out = nullptr;
            if (T->cuStreamEndCapture(s, in.u8() % 16 ? &out : nullptr) == CUDA_SUCCESS && out) {
                if (P->graph.live.size() < 8) P->graph.add(out);
                else (void)T->cuGraphDestroy(out);
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
            (void)T->cuStreamGetCaptureInfo_v2(s, in.flip() ? &st : nullptr, in.flip() ? &id : nullptr, in.flip() ? &cg : nullptr,
                                               in.flip() ? &deps : nullptr, in.flip() ? &count : nullptr);
            (void)T->cuStreamGetCaptureInfo_v3(s, &st, &id, &cg, in.flip() ? &deps : nullptr, in.flip() ? &edges : nullptr,
                                               in.flip() ? &count : nullptr);
            return;
        }
        case 3: {
            CUgraphNode nodes[4];
            for (auto& x : nodes) x = pick(in, P->node);
            CUgraphEdgeData edges[4] = {};
            if (in.flip()) (void)T->cuStreamUpdateCaptureDependencies(s, in.u8() % 8 ? nodes : nullptr, in.below(5), in.u8() % 4 ? in.below(2) : in.u32());
            else (void)T->cuStreamUpdateCaptureDependencies_v2(s, nodes, in.flip() ? edges : nullptr, in.below(5), in.below(2));
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

void op_mempool(Input& in) {
    CUmemoryPool p = pick(in, P->mempool);
    CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
    switch (in.u8() % 8) {
    case 0: {
        if (P->mempool.live.size() >= 4) return;
        CUmemPoolProps props;
        fill_pool_props(in, props);
        CUmemoryPool np = nullptr;
        if (T->cuMemPoolCreate(in.u8() % 16 ? &np : nullptr, in.u8() % 16 ? &props : nullptr) == CUDA_SUCCESS) {
            CHECK(np != nullptr);
            P->mempool.add(np);
        }
        return;
    }
    case 1:
        if (T->cuMemPoolDestroy(p) == CUDA_SUCCESS) P->mempool.kill(p);
        return;
    case 2:
    case 3: {
        // Every attribute is an int or a cuuint64_t: 8 bytes hold either.
        alignas(8) uint64_t value = in.u8() % 4 ? in.below(2) : in.u64();
        auto attr = static_cast<CUmemPool_attribute>(in.u8() % 4 ? 1 + in.below(8) : int(in.u32()));
        if (in.flip()) (void)T->cuMemPoolSetAttribute(p, attr, in.u8() % 16 ? &value : nullptr);
        else (void)T->cuMemPoolGetAttribute(p, attr, in.u8() % 16 ? &value : nullptr);
        return;
    }
    case 4: (void)T->cuMemPoolTrimTo(p, pick_size(in)); return;
    case 5: {
        CUmemAccessDesc map[2];
        for (auto& m : map) {
            m.location = pick_location(in);
            m.flags = static_cast<CUmemAccess_flags>(in.u8() % 4 ? in.below(4) : in.u32());
        }
        (void)T->cuMemPoolSetAccess(p, in.u8() % 8 ? map : nullptr, in.below(3));
        CUmemAccess_flags flags;
        CUmemLocation loc = pick_location(in);
        (void)T->cuMemPoolGetAccess(in.flip() ? &flags : nullptr, p, in.u8() % 8 ? &loc : nullptr);
        return;
    }
    default: {
        CUmemoryPool out;
        (void)T->cuDeviceGetDefaultMemPool(in.flip() ? &out : nullptr, dev);
        (void)T->cuDeviceGetMemPool(in.flip() ? &out : nullptr, dev);
        if (in.flip()) (void)T->cuDeviceSetMemPool(dev, p);
        return;
    }
    }
}

void op_vmm(Input& in) {
    CUmemAllocationProp prop;
    fill_mem_prop(in, prop);
    // cuMemCreate is not within the memory budget yet (docs/runtime.md): sizes stay small.
    size_t size = in.u8() % 4 ? (size_t(1) + in.below(16)) << 21 : pick_size(in);
    if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
    switch (in.u8() % 8) {
    case 0: {
        size_t g;
        (void)T->cuMemGetAllocationGranularity(in.flip() ? &g : nullptr, in.u8() % 16 ? &prop : nullptr,
                                               static_cast<CUmemAllocationGranularity_flags>(in.below(3)));
        return;
    }
    case 1: {
        if (P->vmm.live.size() >= 8) return;
        CUmemGenericAllocationHandle h = 0;
        if (T->cuMemCreate(in.u8() % 16 ? &h : nullptr, size, in.u8() % 16 ? &prop : nullptr, in.u8() % 8 ? 0 : in.u64()) == CUDA_SUCCESS) {
            CHECK(h != 0);
            P->vmm.add(h);
        }
        return;
    }
    case 2: {
        CUmemGenericAllocationHandle h = pick(in, P->vmm);
        if (T->cuMemRelease(h) == CUDA_SUCCESS) P->vmm.kill(h);
        CUmemAllocationProp out;
        (void)T->cuMemGetAllocationPropertiesFromHandle(in.flip() ? &out : nullptr, pick(in, P->vmm));
        return;
    }
    case 3: {
        if (P->reservations.size() >= 8) return;
        CUdeviceptr p = 0;
        size_t align = in.u8() % 4 ? 0 : size_t(1) << in.below(40);
        CUdeviceptr hint = in.u8() % 4 ? 0 : pick_dptr(in);
        size_t rsize = in.u8() % 4 ? (size_t(1) + in.below(64)) << 21 : pick_size(in);
        if (T->cuMemAddressReserve(in.u8() % 16 ? &p : nullptr, rsize, align, hint, in.u8() % 8 ? 0 : in.u64()) == CUDA_SUCCESS) {
            CHECK(p != 0);
            P->reservations.push_back({p, rsize});
            remember_range(p, rsize);
        }
        return;
    }
    case 4: {
        Ptr r = !P->reservations.empty() && in.u8() % 4 ? P->reservations[in.below(P->reservations.size())] : Ptr{pick_dptr(in), pick_size(in)};
        if (in.u8() % 4 == 0) r.size = pick_size(in);
        if (T->cuMemAddressFree(r.p, r.size) == CUDA_SUCCESS) {
            auto it = std::find_if(P->reservations.begin(), P->reservations.end(), [&](const Ptr& x) { return x.p == r.p; });
            if (it != P->reservations.end()) P->reservations.erase(it);
        }
        return;
    }
    case 5: {
        Ptr r = !P->reservations.empty() && in.u8() % 4 ? P->reservations[in.below(P->reservations.size())] : Ptr{pick_dptr(in), pick_size(in)};
        size_t offset = in.u8() % 4 ? 0 : pick_size(in);
        size_t msize = in.u8() % 2 ? size_t(2) << 20 : pick_size(in);
        CUdeviceptr at = r.p + (in.u8() % 4 ? 0 : (in.below(8) << 21));
        if (T->cuMemMap(at, msize, offset, pick(in, P->vmm), in.u8() % 8 ? 0 : in.u64()) == CUDA_SUCCESS) {
            CUmemAccessDesc desc{pick_location(in), static_cast<CUmemAccess_flags>(in.u8() % 4 ? 3 : in.below(5))};
            if (T->cuMemSetAccess(at, msize, in.u8() % 16 ? &desc : nullptr, in.u8() % 8 ? 1 : in.below(3)) == CUDA_SUCCESS)
                remember_dev(at, msize);
        }
        return;
    }
    case 6: {
        Ptr r = !P->reservations.empty() && in.u8() % 4 ? P->reservations[in.below(P->reservations.size())] : Ptr{pick_dptr(in), pick_size(in)};
        size_t usize = in.u8() % 2 ? size_t(2) << 20 : pick_size(in);
        if (T->cuMemUnmap(r.p, usize) == CUDA_SUCCESS) {
            for (size_t i = 0; i < P->dev.size();) {
                if (P->dev[i].p >= r.p && P->dev[i].p < r.p + usize) {
                    P->dev_dead.push_back(P->dev[i]);
                    P->dev.erase(P->dev.begin() + i);
                } else {
                    ++i;
                }
            }
        }
        unsigned long long flags;
        CUmemLocation loc = pick_location(in);
        (void)T->cuMemGetAccess(in.flip() ? &flags : nullptr, in.u8() % 8 ? &loc : nullptr, pick_dptr(in));
        return;
    }
    default: {
        CUmemGenericAllocationHandle h = 0;
        void* addr = in.flip() ? reinterpret_cast<void*>(pick_dptr(in)) : pick_host(in);
        if (T->cuMemRetainAllocationHandle(in.u8() % 16 ? &h : nullptr, addr) == CUDA_SUCCESS && h) (void)T->cuMemRelease(h);
        // Export: only the none handle type (a real descriptor would have to be closed again).
        alignas(8) uint8_t shareable[64] = {};
        (void)T->cuMemExportToShareableHandle(in.flip() ? shareable : nullptr, pick(in, P->vmm), static_cast<CUmemAllocationHandleType>(0), 0);
        CUmemGenericAllocationHandle imported = 0;
        // An OS handle of -1 or junk: importing a real descriptor would take it from the fuzzer.
        // Types whose handle is a value (descriptor, Windows HANDLE), not a pointer to a fabric handle.
        static const unsigned types[] = {0, 1, 2, 4, 0x10};
        if (T->cuMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(in.flip() ? -1 : 1 << 20)),
                                              static_cast<CUmemAllocationHandleType>(types[in.below(5)])) == CUDA_SUCCESS && imported)
            (void)T->cuMemRelease(imported);
        return;
    }
    }
}

void op_external(Input& in) {
    switch (in.u8() % 4) {
    case 0: {
        if (P->extmem.live.size() >= 4) return;
        // A memfd of 64 KiB that d4r owns after a successful import; the size asked for may exceed it.
        CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
        std::memset(&d, 0, sizeof d);
        d.type = static_cast<CUexternalMemoryHandleType>(in.u8() % 4 ? 1 : in.below(10));
        int fd = -1;
        if (in.u8() % 4) {
            fd = memfd_create("fuzz_cuda_api", MFD_CLOEXEC);
            if (fd >= 0 && ftruncate(fd, 64 * 1024) != 0) {
                close(fd);
                fd = -1;
            }
        }
        d.handle.fd = fd;
        d.size = in.u8() % 4 ? (size_t(1) + in.below(16)) << 12 : pick_size(in);
        d.flags = in.u8() % 4 ? 0 : in.u32();
        if (in.u8() % 8 == 0) d.reserved[in.below(16)] = 1;
        CUexternalMemory m = nullptr;
        if (T->cuImportExternalMemory(in.u8() % 16 ? &m : nullptr, in.u8() % 16 ? &d : nullptr) == CUDA_SUCCESS) {
            CHECK(m != nullptr);
            P->extmem.add(m);
        } else if (fd >= 0) {
            close(fd);
        }
        return;
    }
    case 1: {
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC b;
        std::memset(&b, 0, sizeof b);
        b.offset = in.u8() % 4 ? in.below(16) << 12 : pick_size(in);
        b.size = in.u8() % 4 ? (size_t(1) + in.below(16)) << 12 : pick_size(in);
        b.flags = in.u8() % 8 ? 0 : in.u32();
        CUdeviceptr p = 0;
        if (T->cuExternalMemoryGetMappedBuffer(in.u8() % 16 ? &p : nullptr, pick(in, P->extmem), in.u8() % 16 ? &b : nullptr) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, b.size);
        }
        CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC md;
        std::memset(&md, 0, sizeof md);
        fill_array3d(in, md.arrayDesc);
        md.numLevels = in.below(4);
        CUmipmappedArray mm = nullptr;
        if (T->cuExternalMemoryGetMappedMipmappedArray(&mm, pick(in, P->extmem), &md) == CUDA_SUCCESS && mm) P->mipmap.add(mm);
        return;
    }
    case 2: {
        CUexternalMemory m = pick(in, P->extmem);
        if (T->cuDestroyExternalMemory(m) == CUDA_SUCCESS) {
            P->extmem.kill(m);
            // Its buffers are gone: drop what the pool may still point into (nothing else knows the range).
        }
        return;
    }
    default: {
        CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC d;
        std::memset(&d, 0, sizeof d);
        d.type = static_cast<CUexternalSemaphoreHandleType>(in.below(11));
        d.handle.fd = -1;
        CUexternalSemaphore sem = nullptr;
        if (T->cuImportExternalSemaphore(in.flip() ? &sem : nullptr, in.u8() % 16 ? &d : nullptr) == CUDA_SUCCESS && sem)
            (void)T->cuDestroyExternalSemaphore(sem);
        CUexternalSemaphore sems[2] = {junk_handle<CUexternalSemaphore>(in), sem};
        CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp[2];
        CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp[2];
        std::memset(sp, 0, sizeof sp);
        std::memset(wp, 0, sizeof wp);
        unsigned n = unsigned(in.below(3));
        (void)T->cuSignalExternalSemaphoresAsync(in.u8() % 8 ? sems : nullptr, in.u8() % 8 ? sp : nullptr, n, pick_stream(in));
        (void)T->cuWaitExternalSemaphoresAsync(in.u8() % 8 ? sems : nullptr, in.u8() % 8 ? wp : nullptr, n, pick_stream(in));
        (void)T->cuDestroyExternalSemaphore(sems[0]);
        return;
    }
    }
}

// ---- A program and what it leaves behind -----------------------------------------------------------

// Destroys everything the program made, so that memory does not grow from one input to the next: first
// what outlives contexts (graphs, libraries, pools, link states, virtual memory, external memory), under
// a fresh context so that no sticky error refuses it, then the contexts with all they own.
void reset() {
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    (void)T->cuThreadExchangeStreamCaptureMode(&mode);
    CUcontext c = nullptr;
    for (int i = 0; i < 64 && T->cuCtxPopCurrent_v2(&c) == CUDA_SUCCESS; ++i) {
    }
    // Captures left open (they would keep the streams' work out of the queues).
    auto end_capture = [](CUstream s) {
        CUgraph g = nullptr;
        if (T->cuStreamEndCapture(s, &g) == CUDA_SUCCESS && g) (void)T->cuGraphDestroy(g);
    };
    for (CUstream s : P->stream.live) {
        CUcontext owner = nullptr;
        if (T->cuStreamGetCtx(s, &owner) != CUDA_SUCCESS) continue;
        (void)T->cuCtxSetCurrent(owner);
        end_capture(s);
    }
    for (CUcontext x : P->ctx.live) {
        if (T->cuCtxSetCurrent(x) != CUDA_SUCCESS) continue;
        end_capture(nullptr);
        end_capture(D4R_CU_STREAM_LEGACY);
        end_capture(D4R_CU_STREAM_PER_THREAD);
    }
    CUcontext clean = nullptr;
    CHECK(T->cuCtxCreate_v2(&clean, 0, 0) == CUDA_SUCCESS);
    CHECK(T->cuCtxSetCurrent(clean) == CUDA_SUCCESS);
    for (CUgraphExec e : P->exec.live) (void)T->cuGraphExecDestroy(e);
    for (CUgraph g : P->graph.live) (void)T->cuGraphDestroy(g);
    for (CUlibrary l : P->library.live) (void)T->cuLibraryUnload(l);
    for (CUlinkState l : P->link.live) (void)T->cuLinkDestroy(l);
    for (CUtexref t : P->texref.live) (void)T->cuTexRefDestroy(t);
    for (CUtexObject t : P->tex.live) (void)T->cuTexObjectDestroy(t);
    for (CUsurfObject t : P->surf.live) (void)T->cuSurfObjectDestroy(t);
    for (const Ptr& r : P->registered) (void)T->cuMemHostUnregister(reinterpret_cast<void*>(r.p));
    for (const Ptr& r : P->reservations) {
        (void)T->cuMemUnmap(r.p, r.size);
        (void)T->cuMemAddressFree(r.p, r.size);
    }
    for (CUmemGenericAllocationHandle h : P->vmm.live) (void)T->cuMemRelease(h);
    for (CUexternalMemory m : P->extmem.live) (void)T->cuDestroyExternalMemory(m);
    for (const Ptr& d : P->dev) (void)T->cuMemFree_v2(d.p); // pool and managed memory included
    CUmemoryPool def = nullptr;
    if (T->cuDeviceGetDefaultMemPool(&def, 0) == CUDA_SUCCESS) (void)T->cuDeviceSetMemPool(0, def);
    for (CUmemoryPool p : P->mempool.live) (void)T->cuMemPoolDestroy(p);
    for (CUcontext x : P->ctx.live) (void)T->cuCtxDestroy_v2(x);
    for (; P->primary_refs > 0; --P->primary_refs) (void)T->cuDevicePrimaryCtxRelease_v2(0);
    (void)T->cuDevicePrimaryCtxReset_v2(0);
    CHECK(T->cuCtxDestroy_v2(clean) == CUDA_SUCCESS);
    for (int i = 0; i < 64 && T->cuCtxPopCurrent_v2(&c) == CUDA_SUCCESS; ++i) {
    }
    (void)T->cuCtxSetCurrent(nullptr);
    // Nothing of the program may survive it: no registration of the arena, no allocation.
    CUcontext probe = nullptr;
    CHECK(T->cuCtxCreate_v2(&probe, 0, 0) == CUDA_SUCCESS);
    for (size_t off = 0; off < kRwBytes + 3 * kPage; off += kPage) {
        unsigned flags = 0;
        CHECK(T->cuMemHostGetFlags(&flags, g_arena + off) != CUDA_SUCCESS);
    }
    for (const Ptr& d : P->dev) {
        CUdeviceptr base = 0;
        size_t size = 0;
        if (T->cuMemGetAddressRange_v2(&base, &size, d.p) == CUDA_SUCCESS && std::getenv("FUZZ_CUDA_API_VERBOSE"))
            std::fprintf(stderr, "fuzz_cuda_api: 0x%llx (+%zu) outlived its program\n", (unsigned long long)d.p, d.size);
    }
    CHECK(T->cuCtxDestroy_v2(probe) == CUDA_SUCCESS);
    (void)T->cuCtxSetCurrent(nullptr);
    *P = Pool{};
}

void run_op(uint8_t op, Input& in) {
    switch (op % 24) {
    case 0: op_context(in); return;
    case 1: op_device(in); return;
    case 2:
    case 3: op_alloc(in); return;
    case 4: op_free(in); return;
    case 5: op_memset(in); return;
    case 6:
    case 7: op_memcpy(in); return;
    case 8: op_memory_info(in); return;
    case 9:
    case 10: op_stream(in); return;
    case 11: op_event(in); return;
    case 12:
    case 13: op_array(in); return;
    case 14:
    case 15: op_module(in); return;
    case 16:
    case 17: op_function(in); return;
    case 18:
    case 19: op_graph(in); return;
    case 20: op_mempool(in); return;
    case 21: op_vmm(in); return;
    case 22: op_external(in); return;
    default: op_context(in); return;
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // A fuzzed kernel may loop forever or for a long time: a watchdog stops it (LAUNCH_TIMEOUT).
    setenv("D4R_CPU_INSTRUCTION_BUDGET", "200000", 0);
    setenv("D4R_CPU_MEMORY_LIMIT", "256M", 0);
    const char* freed = std::getenv("FUZZ_CUDA_API_FREED_AS_HOST");
    kFreedAsHost = freed && *freed == '1';
    const char* unmapped = std::getenv("FUZZ_CUDA_API_REGISTER_UNMAPPED");
    kRegisterUnmapped = !(unmapped && *unmapped == '0');
    if (!std::getenv("D4R_LOG")) {
        // Refusals format their reasons at debug level: run that code too, into nowhere.
        d4r::log::set_level(d4r::log::Level::Debug);
        (void)d4r::log::set_file("/dev/null");
    }
    void* arena = mmap(nullptr, kRwBytes + 3 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(arena != MAP_FAILED);
    g_arena = static_cast<uint8_t*>(arena);
    CHECK(mprotect(guard(), kPage, PROT_NONE) == 0);
    std::memset(read_only(), 0x5a, kPage);
    CHECK(mprotect(read_only(), kPage, PROT_READ) == 0);
    CHECK(mprotect(read_only() + kPage, kPage, PROT_NONE) == 0);

    static std::unique_ptr<d4r::runtime::Backend> backend = [] {
        auto b = d4r::runtime::make_cpu_backend();
        CHECK(b.ok());
        return std::move(*b);
    }();
    T = &backend->table();
    CHECK(T->cuInit(0) == CUDA_SUCCESS);
    CHECK(T->cuCtxCreate_v2(&g_home, 0, 0) == CUDA_SUCCESS);
    void* flag = nullptr;
    CHECK(T->cuMemAllocHost_v2(&flag, 8) == CUDA_SUCCESS && flag);
    g_flag = static_cast<uint32_t*>(flag);
    *static_cast<uint64_t*>(flag) = 1;
    size_t free_bytes = 0, total = 0;
    CHECK(T->cuMemGetInfo_v2(&free_bytes, &total) == CUDA_SUCCESS);
    g_budget = total <= (256u << 20);
    CUcontext popped = nullptr;
    CHECK(T->cuCtxPopCurrent_v2(&popped) == CUDA_SUCCESS && popped == g_home);
    static Pool pool;
    P = &pool;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A program is a list of calls, each [opcode][argument bytes: u16 little-endian][arguments]; a call
    // that wants more argument bytes than it was given reads zeros.
    Input in{data, size};
    for (int i = 0; i < 96 && !in.empty(); ++i) {
        uint8_t op = in.u8();
        Input args = in.take(in.u16());
        run_op(op, args);
    }
    reset();
    return 0;
}
