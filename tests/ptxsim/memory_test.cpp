// State spaces and memory faults: global (scalar, vector, every width, sign extension), shared (static
// and dynamic), local, const and .global module variables set from the host, parameters, generic
// addressing with cvta / isspacep; bounds, alignment and budget errors naming kernel, block, thread
// and address.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// Global index i = ctaid.x * ntid.x + tid.x into %r4 and the byte offset i * 4 into %rd1.
const char* kIndex = R"(
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd1, %r4, 4;
)";

TEST(PtxsimMemory, VectorAndNarrowGlobalAccesses) {
    auto m = load_ok(ptx(std::string(R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd2, [in];
  ld.param.u64 %rd3, [out];
)") + kIndex + R"(
  mul.wide.u32 %rd4, %r4, 16;
  add.s64 %rd5, %rd2, %rd4;
  add.s64 %rd6, %rd3, %rd4;
  ld.global.nc.v4.u32 {%r5, %r6, %r7, %r8}, [%rd5];
  st.global.v4.u32 [%rd6], {%r8, %r7, %r6, %r5};
  ld.global.v2.f32 {%f1, %f2}, [%rd5+8];
  add.f32 %f3, %f1, %f2;
  ld.global.s8 %r9, [%rd5+3];
  ld.global.u8 %r10, [%rd5+3];
  ld.global.s16 %r11, [%rd5+2];
  ld.global.u32 %rd7, [%rd5+4];
  ld.global.b16 %h1, [%rd5];
  mul.wide.u32 %rd8, %r4, 32;
  ld.param.u64 %rd9, [out];
  add.s64 %rd9, %rd9, 4096;
  add.s64 %rd10, %rd9, %rd8;
  st.global.f32 [%rd10], %f3;
  st.global.u32 [%rd10+4], %r9;
  st.global.u32 [%rd10+8], %r10;
  st.global.u32 [%rd10+12], %r11;
  st.global.u64 [%rd10+16], %rd7;
  st.global.b16 [%rd10+24], %h1;
  st.global.u8 [%rd10+26], %r10;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    const int n = 128;
    std::vector<uint32_t> in(n * 4);
    TestRng rng(1);
    for (auto& v : in) v = uint32_t(rng.next());
    for (int i = 0; i < n; ++i) { // make lanes' float pair meaningful
        float f1 = float(i) * 0.5f, f2 = 3.0f - float(i);
        std::memcpy(&in[i * 4 + 2], &f1, 4);
        std::memcpy(&in[i * 4 + 3], &f2, 4);
    }
    DevicePtr pin = upload(dev, in);
    DevicePtr pout = upload(dev, std::vector<uint8_t>(4096 + n * 32, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, pin).set(1, pout);
    run_ok(dev, *m, "k", config({2}, {64}), p);
    auto out = download<uint8_t>(dev, pout, 4096 + n * 32);
    for (int i = 0; i < n; ++i) {
        const uint8_t* src = reinterpret_cast<const uint8_t*>(&in[i * 4]);
        uint32_t v[4];
        std::memcpy(v, out.data() + i * 16, 16);
        EXPECT_EQ(v[0], in[i * 4 + 3]);
        EXPECT_EQ(v[3], in[i * 4 + 0]);
        const uint8_t* rec = out.data() + 4096 + i * 32;
        float f3;
        std::memcpy(&f3, rec, 4);
        float f1, f2;
        std::memcpy(&f1, src + 8, 4);
        std::memcpy(&f2, src + 12, 4);
        EXPECT_EQ(f3, f1 + f2);
        int32_t s8, u8, s16;
        std::memcpy(&s8, rec + 4, 4);
        std::memcpy(&u8, rec + 8, 4);
        std::memcpy(&s16, rec + 12, 4);
        EXPECT_EQ(s8, int32_t(int8_t(src[3])));
        EXPECT_EQ(u8, int32_t(src[3]));
        int16_t h;
        std::memcpy(&h, src + 2, 2);
        EXPECT_EQ(s16, int32_t(h));
        uint64_t wide;
        std::memcpy(&wide, rec + 16, 8);
        EXPECT_EQ(wide, uint64_t(in[i * 4 + 1])); // u32 load into a 64-bit register zero-extends
        EXPECT_EQ(0, std::memcmp(rec + 24, src, 2));
        EXPECT_EQ(rec[26], src[3]);
    }
}

TEST(PtxsimMemory, SharedStaticDynamicLocalAndGeneric) {
    // Each block reverses its slice through static shared memory, adds a value staged in dynamic shared
    // memory, keeps a per-thread array in local memory (addressed generically through cvta.local), and
    // checks isspacep on the generic addresses.
    auto m = load_ok(ptx(std::string(R"(
.shared .align 4 .b8 tile[256];
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 depot[32];
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd2, [out];
)") + kIndex + R"(
  shl.b32 %r5, %r1, 2;
  mov.u32 %r6, tile;
  add.s32 %r7, %r6, %r5;
  st.shared.u32 [%r7], %r4;
  mov.u32 %r8, dyn;
  add.s32 %r9, %r8, %r5;
  mul.lo.u32 %r10, %r1, 1000;
  st.shared.u32 [%r9], %r10;
  bar.sync 0;
  sub.s32 %r11, 63, %r1;
  shl.b32 %r12, %r11, 2;
  add.s32 %r13, %r6, %r12;
  ld.shared.u32 %r14, [%r13];
  add.s32 %r15, %r8, %r12;
  ld.shared.u32 %r16, [%r15];
  add.s32 %r17, %r14, %r16;
  mov.u64 %rd3, depot;
  cvta.local.u64 %rd4, %rd3;
  st.u32 [%rd4+12], %r17;
  st.local.u32 [depot+16], %r1;
  ld.u32 %r18, [%rd4+12];
  ld.local.u32 %r19, [%rd3+16];
  add.s32 %r20, %r18, %r19;
  cvta.shared::cta.u64 %rd5, %rd3;
  isspacep.local %p1, %rd4;
  isspacep.shared::cta %p2, %rd4;
  isspacep.global %p3, %rd2;
  selp.b32 %r21, 1, 0, %p1;
  selp.b32 %r22, 2, 0, %p2;
  or.b32 %r21, %r21, %r22;
  selp.b32 %r22, 4, 0, %p3;
  or.b32 %r21, %r21, %r22;
  mul.wide.u32 %rd6, %r4, 8;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v2.u32 [%rd7], {%r20, %r21};
  ret;
}
)"));
    ASSERT_TRUE(m);
    const Kernel& k = kernel_of(*m, "k");
    EXPECT_EQ(k.static_shared_bytes(), 256u);
    EXPECT_GE(k.local_bytes_per_thread(), 32u);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(3 * 64 * 2, 0));
    Params p(k);
    p.set(0, out);
    auto cfg = config({3}, {64});
    cfg.dynamic_shared_bytes = 256;
    run_ok(dev, *m, "k", cfg, p);
    auto got = download<uint32_t>(dev, out, 3 * 64 * 2);
    for (uint32_t b = 0; b < 3; ++b)
        for (uint32_t t = 0; t < 64; ++t) {
            uint32_t i = b * 64 + t;
            uint32_t mirror = 63 - t;
            EXPECT_EQ(got[i * 2], (b * 64 + mirror) + mirror * 1000 + t) << i;
            EXPECT_EQ(got[i * 2 + 1], 1u | 4u) << i; // local yes, shared no, global yes
        }
}

TEST(PtxsimMemory, ModuleVariablesSetFromTheHostAndParameters) {
    auto m = load_ok(ptx(R"(
.const .align 4 .f32 scale[4] = {1.0, 0f40000000, 3.0, 4.0};
.const .align 8 .u64 host_set;
.global .align 4 .u32 counter = 5;
.global .align 8 .u64 table[2] = {counter, 7};
.visible .entry k(.param .u64 out, .param .align 8 .b8 pair[16], .param .s16 small)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [pair];
  ld.param.f32 %f1, [pair+4];
  ld.param.u64 %rd2, [pair+8];
  ld.param.s16 %h1, [small];
  cvt.s32.s16 %r2, %h1;
  ld.const.f32 %f2, [scale+4];
  mul.f32 %f3, %f1, %f2;
  ld.const.u64 %rd3, [host_set];
  ld.global.u32 %r3, [counter];
  add.s32 %r4, %r3, %r1;
  st.global.u32 [counter], %r4;
  ld.global.u64 %rd4, [table];
  ld.u32 %r5, [%rd4];
  mov.u64 %rd5, scale;
  ld.const.f32 %f1, [%rd5+12];
  st.global.f32 [%rd1], %f3;
  st.global.u64 [%rd1+8], %rd2;
  st.global.u32 [%rd1+16], %r2;
  st.global.u64 [%rd1+24], %rd3;
  st.global.u32 [%rd1+32], %r5;
  st.global.f32 [%rd1+36], %f1;
  ret;
}
)"));
    ASSERT_TRUE(m);
    auto g = m->global("host_set");
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g->size, 8u);
    EXPECT_TRUE(g->is_const);
    uint64_t value = 0xfeedfacecafebeefull;
    std::memcpy(reinterpret_cast<void*>(g->address), &value, 8);
    auto counter = m->global("counter");
    ASSERT_TRUE(counter.ok());
    EXPECT_EQ(*reinterpret_cast<uint32_t*>(counter->address), 5u); // initializer applied
    EXPECT_FALSE(m->global("nope").ok());
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint8_t>(40, 0));
    const Kernel& k = kernel_of(*m, "k");
    EXPECT_EQ(k.info().params[1].offset, 8u); // CUDA layout: .align 8 after an 8-byte pointer
    EXPECT_EQ(k.info().params[2].offset, 24u);
    std::vector<uint8_t> block(k.info().param_block_size, 0);
    std::memcpy(block.data(), &out, 8);
    uint32_t add = 10;
    float f = 1.25f;
    uint64_t tag = 0x1122334455667788ull;
    int16_t small = -300;
    std::memcpy(block.data() + 8, &add, 4);
    std::memcpy(block.data() + 12, &f, 4);
    std::memcpy(block.data() + 16, &tag, 8);
    std::memcpy(block.data() + 24, &small, 2);
    auto r = launch(dev, k, config({1}, {1}), block);
    ASSERT_TRUE(r.ok()) << r.error().text();
    auto got = download<uint8_t>(dev, out, 40);
    float f3, f4;
    uint64_t t2, hs;
    int32_t s;
    uint32_t c;
    std::memcpy(&f3, got.data(), 4);
    std::memcpy(&t2, got.data() + 8, 8);
    std::memcpy(&s, got.data() + 16, 4);
    std::memcpy(&hs, got.data() + 24, 8);
    std::memcpy(&c, got.data() + 32, 4);
    std::memcpy(&f4, got.data() + 36, 4);
    EXPECT_EQ(f3, 2.5f);
    EXPECT_EQ(t2, tag);
    EXPECT_EQ(s, -300);
    EXPECT_EQ(hs, value);
    EXPECT_EQ(c, 15u); // table[0] points at counter, updated to 5 + 10 before the read
    EXPECT_EQ(f4, 4.0f);
    EXPECT_EQ(*reinterpret_cast<uint32_t*>(counter->address), 15u);
}

const char* kFaulty = R"(
.visible .entry faulty(.param .u64 buf, .param .u64 offset)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [offset];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.y;
  setp.eq.u32 %p1, %r1, 37;
  setp.eq.u32 %p2, %r2, 2;
  and.pred %p1, %p1, %p2;
  @!%p1 bra DONE;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  st.global.u32 [%rd1], %r3;
DONE:
  ret;
}
)";

TEST(PtxsimMemory, OutOfBoundsAccessNamesKernelBlockThreadAndAddress) {
    auto m = load_ok(ptx(kFaulty), "faulty.ptx");
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr buf = upload(dev, std::vector<uint32_t>(64, 0));
    for (unsigned workers : {1u, 4u}) {
        Params p(kernel_of(*m, "faulty"));
        p.set(0, buf).set(1, uint64_t(256)); // exactly one past the end
        LaunchFault fault;
        auto r = launch(dev, kernel_of(*m, "faulty"), config({2, 3, 1}, {64}, workers), p.bytes(), &fault);
        ASSERT_FALSE(r.ok());
        std::string msg = r.error().text();
        EXPECT_NE(msg.find("kernel 'faulty'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("block (0,2,0)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("thread (37,0,0)"), std::string::npos) << msg;
        EXPECT_NE(msg.find(fmt::format("0x{:x}", buf + 256)), std::string::npos) << msg;
        EXPECT_NE(msg.find("illegal address"), std::string::npos) << msg;
        EXPECT_NE(msg.find("faulty.ptx:19 'ld.global.u32 %r3, [%rd3]'"), std::string::npos) << msg;
        EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
        EXPECT_EQ(fault.block, (Dim3{0, 2, 0}));
        EXPECT_EQ(fault.thread, (Dim3{37, 0, 0}));
        EXPECT_EQ(fault.address, buf + 256);
        EXPECT_EQ(fault.access_bytes, 4u);
    }
    // Inside the allocation but misaligned.
    Params p(kernel_of(*m, "faulty"));
    p.set(0, buf).set(1, uint64_t(6));
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "faulty"), config({1, 3, 1}, {64}), p.bytes(), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::MisalignedAddress);
    EXPECT_NE(r.error().text().find("misaligned address"), std::string::npos) << r.error().text();
    // A freed allocation is no longer valid.
    DevicePtr tmp = upload(dev, std::vector<uint32_t>(64, 0));
    ASSERT_TRUE(dev.free(tmp).ok());
    Params q(kernel_of(*m, "faulty"));
    q.set(0, tmp).set(1, uint64_t(0));
    EXPECT_FALSE(launch(dev, kernel_of(*m, "faulty"), config({1, 3, 1}, {64}), q.bytes()).ok());
}

// Memory the device does not own (registered host memory): copies and kernels use it, free() refuses it,
// the counts leave it out, and the device never frees it (here a stack array: freeing it would crash).
TEST(PtxsimMemory, ForeignRangesAreUsedButNotOwned) {
    alignas(256) uint32_t host[64] = {};
    const DevicePtr base = reinterpret_cast<DevicePtr>(host);
    {
        Device dev;
        ASSERT_TRUE(dev.add_foreign(base, sizeof host).ok());
        EXPECT_EQ(dev.allocation_count(), 0u);
        EXPECT_EQ(dev.allocated_bytes(), 0u);
        const uint32_t v = 7;
        ASSERT_TRUE(dev.copy_to_device(base + 8, &v, 4).ok());
        EXPECT_EQ(host[2], 7u);
        EXPECT_FALSE(dev.copy_to_device(base + sizeof host, &v, 4).ok());
        EXPECT_FALSE(dev.free(base).ok());
        auto own = dev.alloc(16);
        ASSERT_TRUE(own.ok());
        EXPECT_FALSE(dev.add_foreign(*own, 16).ok());
        EXPECT_EQ(dev.allocation_count(), 1u);
        ASSERT_TRUE(dev.remove_foreign(base).ok());
        EXPECT_FALSE(dev.copy_to_device(base, &v, 4).ok());
        EXPECT_FALSE(dev.remove_foreign(base).ok());
        ASSERT_TRUE(dev.add_foreign(base, sizeof host).ok()); // still registered when the device goes
    }
    EXPECT_EQ(host[2], 7u);
}

TEST(PtxsimMemory, SharedOutOfRangeAndReadOnlySpaces) {
    auto m = load_ok(ptx(R"(
.shared .align 4 .b8 s[64];
.const .align 4 .u32 c[4];
.visible .entry shared_oob(.param .u32 i)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [i];
  mov.u32 %r2, s;
  add.s32 %r3, %r2, %r1;
  st.shared.u32 [%r3], %r1;
  ret;
}
.visible .entry const_write()
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, c;
  st.u32 [%rd1], %r1;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    Params ok_p(kernel_of(*m, "shared_oob"));
    ok_p.set(0, uint32_t(60));
    EXPECT_TRUE(launch(dev, kernel_of(*m, "shared_oob"), config({1}, {1}), ok_p.bytes()).ok());
    Params bad(kernel_of(*m, "shared_oob"));
    bad.set(0, uint32_t(64));
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "shared_oob"), config({1}, {1}), bad.bytes(), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
    EXPECT_NE(r.error().text().find("shared"), std::string::npos) << r.error().text();
    auto w = launch(dev, kernel_of(*m, "const_write"), config({1}, {1}), {}, &fault);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
}

TEST(PtxsimMemory, InstructionBudgetStopsARunawayKernel) {
    auto m = load_ok(ptx(R"(
.visible .entry spin()
{
  .reg .b32 %r<2>;
LOOP:
  add.s32 %r1, %r1, 1;
  bra.uni LOOP;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    auto cfg = config({4}, {64}, 2);
    cfg.instruction_budget = 100000;
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "spin"), cfg, {}, &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::BudgetExceeded);
    EXPECT_NE(r.error().text().find("budget of 100000"), std::string::npos) << r.error().text();
    // A kernel within its budget completes and reports its counts.
    auto m2 = load_ok(ptx(".visible .entry small()\n{\n  .reg .b32 %r<2>;\n  add.s32 %r1, %r1, 1;\n  ret;\n}\n"));
    cfg.instruction_budget = 2 * 2 * 4; // 2 warps x 2 instructions x 4 blocks
    auto ok = launch(dev, kernel_of(*m2, "small"), cfg, {});
    ASSERT_TRUE(ok.ok()) << ok.error().text();
    EXPECT_EQ(ok->warp_instructions, 16u);
    EXPECT_EQ(ok->lane_instructions, 16u * 32);
    cfg.instruction_budget = 15;
    cfg.worker_threads = 1;
    EXPECT_FALSE(launch(dev, kernel_of(*m2, "small"), cfg, {}).ok());
}

// The kernel's view of one page: mapped (mincore succeeds) or not (ENOMEM), without touching it.
bool page_mapped(DevicePtr p) {
    unsigned char v = 0;
    return mincore(reinterpret_cast<void*>(p), 1, &v) == 0;
}

// A freed allocation's addresses stay reserved and inaccessible, so that the next mapping of the process
// does not land there and make the freed device pointer host memory again; the quarantine is bounded
// (4096 ranges, src/ptxsim/device.cpp), its oldest range released first, and all of it with the device.
TEST(PtxsimMemory, FreedAllocationsStayReservedForABoundedTime) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    DevicePtr first = 0, last = 0;
    {
        Device dev;
        auto p = dev.alloc(64);
        ASSERT_TRUE(p.ok());
        first = *p;
        ASSERT_TRUE(dev.free(first).ok());
        EXPECT_TRUE(page_mapped(first));
        // New mappings go elsewhere, and the freed page is mapped without access (the maps say so; a
        // store would fault).
        std::vector<void*> others;
        for (int i = 0; i < 16; ++i) {
            void* m = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            ASSERT_NE(m, MAP_FAILED);
            EXPECT_NE(reinterpret_cast<DevicePtr>(m), first);
            others.push_back(m);
        }
        for (void* m : others) munmap(m, page);
        FILE* maps = fopen("/proc/self/maps", "r");
        ASSERT_NE(maps, nullptr);
        char line[512];
        bool found = false;
        while (fgets(line, sizeof line, maps)) {
            unsigned long lo = 0, hi = 0;
            char perms[5] = {};
            if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && first >= lo && first < hi) {
                EXPECT_STREQ(perms, "---p") << line;
                found = true;
            }
        }
        fclose(maps);
        EXPECT_TRUE(found);
        // 4096 more freed allocations: the first one leaves the quarantine at the last of them.
        for (int i = 0; i < 4096; ++i) {
            auto q = dev.alloc(64);
            ASSERT_TRUE(q.ok());
            ASSERT_NE(*q, first);
            ASSERT_TRUE(page_mapped(first)) << "released after " << i << " more frees";
            ASSERT_TRUE(dev.free(*q).ok());
            last = *q;
        }
        EXPECT_FALSE(page_mapped(first));
        EXPECT_TRUE(page_mapped(last));
    }
    EXPECT_FALSE(page_mapped(last));
}

TEST(PtxsimMemory, DeviceCopiesAreBoundsChecked) {
    Device dev;
    auto p = dev.alloc(100);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p % 256, 0u);
    std::vector<uint8_t> buf(101, 1);
    EXPECT_TRUE(dev.copy_to_device(*p, buf.data(), 100).ok());
    EXPECT_FALSE(dev.copy_to_device(*p, buf.data(), 101).ok());
    EXPECT_FALSE(dev.copy_to_host(buf.data(), *p + 1, 100).ok());
    EXPECT_TRUE(dev.memset(*p + 50, 7, 50).ok());
    EXPECT_TRUE(dev.copy_to_host(buf.data(), *p, 100).ok());
    EXPECT_EQ(buf[49], 1);
    EXPECT_EQ(buf[50], 7);
    EXPECT_EQ(dev.allocated_bytes(), 100u);
    EXPECT_FALSE(dev.free(*p + 4).ok());
    EXPECT_TRUE(dev.free(*p).ok());
    EXPECT_FALSE(dev.free(*p).ok());
    EXPECT_EQ(dev.allocation_count(), 0u);
}

} // namespace
} // namespace d4r::ptxsim::test
