// The device heap: the allocator (alignment, exhaustion, reuse after free, many threads at once) and
// malloc/free/__cuda_syscall_aligned_malloc called from kernels, as nvcc emits them for malloc, new and delete.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

TEST(PtxsimHeap, AllocatorAlignsExhaustsAndReusesFreedRanges) {
    DeviceHeap heap(0x10000, 4096);
    const uint64_t a = heap.allocate(1);
    const uint64_t b = heap.allocate(100);
    ASSERT_NE(a, 0u);
    ASSERT_NE(b, 0u);
    EXPECT_EQ(a % 16, 0u);
    EXPECT_EQ(b % 16, 0u);
    EXPECT_GE(b, a + 16); // blocks are whole multiples of 16 bytes, distinct
    const uint64_t c = heap.allocate(10, 1024);
    ASSERT_NE(c, 0u);
    EXPECT_EQ(c % 1024, 0u);
    EXPECT_EQ(heap.allocate(10, 48), 0u); // not a power of two
    EXPECT_EQ(heap.allocate(4097), 0u);   // more than the heap
    EXPECT_EQ(heap.live_blocks(), 3u);
    EXPECT_TRUE(heap.release(b));
    EXPECT_FALSE(heap.release(b)); // freed twice
    EXPECT_FALSE(heap.release(b + 16));
    EXPECT_TRUE(heap.release(a));
    EXPECT_TRUE(heap.release(c));
    EXPECT_EQ(heap.used_bytes(), 0u);
    // Everything coalesced again: the whole heap is one block.
    EXPECT_EQ(heap.allocate(4096), 0x10000u);
    EXPECT_EQ(heap.allocate(1), 0u);
}

TEST(PtxsimHeap, AllocatorIsSafeAcrossThreads) {
    DeviceHeap heap(0x100000, 1 << 20);
    std::vector<std::vector<uint64_t>> got(8);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 200; ++round) {
                const uint64_t p = heap.allocate(16 + 16 * (round % 7));
                if (p) got[t].push_back(p);
                if (round % 3 == 2 && !got[t].empty()) {
                    EXPECT_TRUE(heap.release(got[t].back()));
                    got[t].pop_back();
                }
            }
        });
    for (auto& th : threads) th.join();
    std::set<uint64_t> all;
    for (const auto& v : got)
        for (uint64_t p : v) EXPECT_TRUE(all.insert(p).second) << "block 0x" << std::hex << p << " handed out twice";
    EXPECT_EQ(heap.live_blocks(), all.size());
    for (uint64_t p : all) EXPECT_TRUE(heap.release(p));
    EXPECT_EQ(heap.used_bytes(), 0u);
}

// What nvcc emits for `p = malloc(n); ... free(p);`, and __nv_aligned_device_malloc.
const std::string kHeapPtx = ptx(R"(
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.extern .func (.param .b64 func_retval0) __cuda_syscall_aligned_malloc (.param .b64 p0, .param .b64 p1);

// out[tid] = the block of N bytes each thread got (filled with tid), or 0.
.visible .entry grab(.param .u64 out, .param .u64 n)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r1, %r2, %r3, %r1;
  ld.param.u64 %rd1, [n];
  { .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd2, [retval0];
  }
  setp.eq.u64 %p1, %rd2, 0;
  @%p1 bra DONE;
  mov.u64 %rd3, 0;
FILL:
  add.s64 %rd4, %rd2, %rd3;
  st.u32 [%rd4], %r1;
  add.s64 %rd3, %rd3, 4;
  setp.lt.u64 %p2, %rd3, %rd1;
  @%p2 bra FILL;
DONE:
  ld.param.u64 %rd5, [out];
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd5, %rd6;
  st.global.u64 [%rd7], %rd2;
  ret;
}

// Frees blocks[tid] (0 is allowed).
.visible .entry release(.param .u64 blocks)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r1, %r2, %r3, %r1;
  ld.param.u64 %rd1, [blocks];
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u64 %rd4, [%rd3];
  { .param .b64 param0;
    st.param.b64 [param0], %rd4;
    call.uni free, (param0);
  }
  ret;
}

.visible .entry aligned(.param .u64 out)
{
  .reg .b64 %rd<4>;
  { .param .b64 param0;
    .param .b64 param1;
    st.param.b64 [param0], 100;
    st.param.b64 [param1], 4096;
    .param .b64 retval0;
    call.uni (retval0), __cuda_syscall_aligned_malloc, (param0, param1);
    ld.param.b64 %rd1, [retval0];
  }
  ld.param.u64 %rd2, [out];
  st.global.u64 [%rd2], %rd1;
  ret;
}
)");

struct HeapRun {
    Device dev;
    std::shared_ptr<Module> module = load_ok(kHeapPtx, "heap.ptx");
    DevicePtr memory = 0;
    std::shared_ptr<DeviceHeap> heap;
    explicit HeapRun(uint64_t bytes) {
        memory = *dev.alloc(bytes);
        heap = std::make_shared<DeviceHeap>(memory, bytes);
    }
    LaunchConfig cfg(uint32_t blocks, uint32_t threads, unsigned workers) {
        LaunchConfig c = config({blocks}, {threads}, workers);
        c.heap = heap;
        return c;
    }
};

TEST(PtxsimHeap, KernelsAllocateFillAndFreeAcrossLaunchesOnManyWorkers) {
    HeapRun h(1 << 20);
    ASSERT_TRUE(h.module);
    EXPECT_TRUE(h.module->uses_device_heap());
    const uint32_t blocks = 16, threads = 64, n = 200;
    DevicePtr out = upload(h.dev, std::vector<uint64_t>(blocks * threads, 1));
    Params grab(kernel_of(*h.module, "grab"));
    grab.set(0, out).set(1, uint64_t(n));
    run_ok(h.dev, *h.module, "grab", h.cfg(blocks, threads, 4), grab);
    auto got = download<uint64_t>(h.dev, out, blocks * threads);
    std::set<uint64_t> distinct;
    for (uint32_t t = 0; t < blocks * threads; ++t) {
        ASSERT_NE(got[t], 0u) << "thread " << t;
        EXPECT_EQ(got[t] % 16, 0u);
        EXPECT_TRUE(distinct.insert(got[t]).second);
        EXPECT_GE(got[t], h.memory);
        EXPECT_LE(got[t] + n, h.memory + (1 << 20));
        auto words = download<uint32_t>(h.dev, got[t], n / 4); // heap blocks are device memory
        for (uint32_t w : words) ASSERT_EQ(w, t);
    }
    EXPECT_EQ(h.heap->live_blocks(), blocks * threads);
    Params release(kernel_of(*h.module, "release"));
    release.set(0, out);
    run_ok(h.dev, *h.module, "release", h.cfg(blocks, threads, 4), release);
    EXPECT_EQ(h.heap->used_bytes(), 0u);
}

TEST(PtxsimHeap, ExhaustedHeapAnswersNull) {
    HeapRun h(4096);
    DevicePtr out = upload(h.dev, std::vector<uint64_t>(32, 1));
    Params grab(kernel_of(*h.module, "grab"));
    grab.set(0, out).set(1, uint64_t(1000)); // 1008-byte blocks: four fit
    run_ok(h.dev, *h.module, "grab", h.cfg(1, 32, 1), grab);
    auto got = download<uint64_t>(h.dev, out, 32);
    EXPECT_EQ(std::count(got.begin(), got.end(), 0u), 28);
    Params aligned(kernel_of(*h.module, "aligned"));
    aligned.set(0, out);
    Params release(kernel_of(*h.module, "release"));
    release.set(0, out);
    run_ok(h.dev, *h.module, "release", h.cfg(1, 32, 1), release);
    run_ok(h.dev, *h.module, "aligned", h.cfg(1, 1, 1), aligned);
    const uint64_t block = download<uint64_t>(h.dev, out, 1)[0];
    EXPECT_NE(block, 0u);
    EXPECT_EQ(block % 4096, 0u);
}

TEST(PtxsimHeap, FreeingWhatMallocDidNotReturnFaultsAndNoHeapIsRefused) {
    HeapRun h(4096);
    DevicePtr bogus = upload(h.dev, std::vector<uint64_t>{h.memory + 16});
    Params release(kernel_of(*h.module, "release"));
    release.set(0, bogus);
    LaunchFault fault;
    auto r = launch(h.dev, kernel_of(*h.module, "release"), h.cfg(1, 1, 1), release.bytes(), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
    EXPECT_NE(r.error().text().find("free("), std::string::npos) << r.error().text();
    LaunchConfig none = config({1}, {1});
    auto refused = launch(h.dev, kernel_of(*h.module, "release"), none, release.bytes(), &fault);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(fault.kind, FaultKind::Unsupported);
    EXPECT_NE(refused.error().text().find("malloc"), std::string::npos) << refused.error().text();
}

} // namespace
} // namespace d4r::ptxsim::test
