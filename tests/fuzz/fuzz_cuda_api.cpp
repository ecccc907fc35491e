// Fuzzes the CUDA driver API of the cpu backend (issue 14): the input is a program of driver calls on
// the backend's table (not through dlopen), each an opcode byte, a 16-bit length and the bytes its
// arguments are drawn from (tests/fuzz/make_cuda_api_seeds.py writes the seed corpus). A pool of handles lets a call
// use what earlier calls made: contexts, streams, events, device, pinned, managed and pool memory, arrays, texture and
// surface objects, modules and functions (a few fixed kernels and fuzzed PTX), libraries, graphs and their nodes,
// memory pools, virtual memory. Every argument mixes valid handles with hostile values: NULL, 0x10, destroyed handles,
// handles of another kind, huge and wrapping sizes and pitches, unreadable or read-only host memory. Whatever the
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
//
// The harness is split by API family: tests/fuzz/cuda_api/fuzz_api.h (the input, the pool, the argument
// pickers) and tests/fuzz/cuda_api/fuzz_api_<family>.cpp (one op_<family> each); this file holds the
// program loop and the cleanup after each program.
#include "fuzz_api.h"
#include "runtime/legacy_launch.h"

namespace fuzz_api {

const d4r::runtime::ApiTable* T = nullptr;

// Passing a freed device or pinned pointer where d4r takes unknown addresses for pageable host memory
// (cuMemcpy, the host sides of copies): d4r unmaps device and pinned memory when it is freed, so such an
// address is refused with INVALID_VALUE (tests/runtime/cpu_wild_copy_test.cpp), until a later mapping
// takes the address again (a new allocation, the sanitizers' own memory); then it is real host memory, as
// it would be on NVIDIA's driver, and a copy there would write the harness's own memory. Off, so CI stays
// green; set FUZZ_CUDA_API_FREED_AS_HOST=1 to see it.
bool kFreedAsHost = false;

// cuMemHostRegister accepts memory that is not mapped (0x10, an inaccessible page) or is read-only, and a
// later memset, copy or kernel store to the "registered" range crashes the process (SIGSEGV in
// cpu_memory.cpp's memset); NVIDIA's driver refuses such a registration. Fixed (cuMemHostRegister now
// refuses such memory; the regression test is tests/runtime/cpu_host_register_test.cpp), so it is on;
// FUZZ_CUDA_API_REGISTER_UNMAPPED=0 turns it off.
bool kRegisterUnmapped = true;

namespace {

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
    // A context of the pool may be gone already (a primary context reset) and `clean` may have its address.
    for (CUcontext x : P->ctx.live)
        if (x != clean) (void)T->cuCtxDestroy_v2(x);
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
            std::fprintf(stderr, "fuzz_cuda_api: 0x%llx (+%zu) outlived its program\n", (unsigned long long)d.p,
                         d.size);
    }
    CHECK(T->cuCtxDestroy_v2(probe) == CUDA_SUCCESS);
    (void)T->cuCtxSetCurrent(nullptr);
    *P = Pool{};
}

void run_op(uint8_t op, Input& in) {
    switch (op % 24) {
    case 0:
        op_context(in);
        return;
    case 1:
        op_device(in);
        return;
    case 2:
    case 3:
        op_alloc(in);
        return;
    case 4:
        op_free(in);
        return;
    case 5:
        op_memset(in);
        return;
    case 6:
    case 7:
        op_memcpy(in);
        return;
    case 8:
        op_memory_info(in);
        return;
    case 9:
    case 10:
        op_stream(in);
        return;
    case 11:
        op_event(in);
        return;
    case 12:
    case 13:
        op_array(in);
        return;
    case 14:
    case 15:
        op_module(in);
        return;
    case 16:
    case 17:
        op_function(in);
        return;
    case 18:
    case 19:
        op_graph(in);
        return;
    case 20:
        op_mempool(in);
        return;
    case 21:
        op_vmm(in);
        return;
    case 22:
        op_external(in);
        return;
    default:
        op_context(in);
        return;
    }
}

} // namespace

} // namespace fuzz_api

using namespace fuzz_api;

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
    // The CUDA 1.0 execution-control calls (cuParamSet*, cuLaunchGrid) are a runtime layer over every
    // backend, not part of the cpu backend's table: fuzz them through that layer. Its state lives in a
    // runtime that stays installed for the process.
    static auto* runtime = new d4r::runtime::Runtime(d4r::MapEnvironment{{"D4R_CUDA_BACKEND", "cpu"}});
    runtime->install();
    static d4r::runtime::ApiTable with_legacy = backend->table();
    d4r::runtime::install_legacy_launch(*runtime, with_legacy, backend->table(), &with_legacy);
    T = &with_legacy;
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
