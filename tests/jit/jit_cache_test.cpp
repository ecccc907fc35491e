// The PTX JIT with its compile cache (jit/kernel_compiler.h, jit/kernel_cache.h): a second compiler (another process)
// loads what the first compiled instead of compiling it, and the loaded code reads the module variables of its own
// module; a damaged entry is refused and compiled again; a folder that cannot be written leaves the JIT working; a
// kernel compiled once is linked once.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../ptxsim/ptxsim_test_util.h"
#include "jit/kernel_compiler.h"
#include "test_support.h"

namespace d4r::ptxsim::test {
namespace {

namespace fs = std::filesystem;

// out[i] = i * c_mul[1] + g_add, for 64 threads; the kernel names both variables, one by address as a value.
std::string variables_kernel() {
    return ptx(R"(
.global .align 4 .u32 g_add = 5;
.const .align 4 .u32 c_mul[2] = {3, 7};
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd5, g_add;
    ld.u32 %r2, [%rd5];
    ld.const.u32 %r3, [c_mul+4];
    mad.lo.u32 %r4, %r1, %r3, %r2;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}
)");
}

std::shared_ptr<jit::KernelCompiler> compiler_with(const fs::path& dir) {
    auto c = jit::KernelCompiler::create(jit::CacheSettings{dir, 1 << 24});
    EXPECT_TRUE(c) << c.error().text();
    return c ? *c : nullptr;
}

// The kernel of M run with COMPILED: its 64 output words.
std::vector<uint32_t> run(const Module& m, const std::shared_ptr<const CompiledKernel>& compiled) {
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(64, 0xdeadbeefu));
    Params p(kernel_of(m, "k"));
    p.set(0, out);
    LaunchConfig cfg = config({1}, {64});
    cfg.compiled = compiled;
    cfg.instruction_budget = 0;
    run_ok(dev, m, "k", cfg, p);
    return download<uint32_t>(dev, out, 64);
}

std::vector<uint32_t> expected(uint32_t add, uint32_t mul) {
    std::vector<uint32_t> v(64);
    for (uint32_t i = 0; i < 64; ++i) v[i] = i * mul + add;
    return v;
}

void set_u32(const Module& m, const char* variable, uint64_t offset, uint32_t value) {
    auto g = m.global(variable);
    ASSERT_TRUE(g) << variable;
    std::memcpy(reinterpret_cast<uint8_t*>(g->address) + offset, &value, 4);
}

TEST(JitCache, ASecondCompilerLoadsWhatTheFirstCompiledAndItReadsItsOwnModulesVariables) {
    d4r::test::TempDir dir;
    auto m1 = load_ok(variables_kernel(), "one.ptx");
    auto m2 = load_ok(variables_kernel(), "two.ptx"); // the same text: its own variables, elsewhere
    ASSERT_TRUE(m1 && m2);
    auto first = compiler_with(dir.path());
    ASSERT_TRUE(first);
    auto compiled = first->compile(kernel_source(kernel_of(*m1, "k")));
    ASSERT_TRUE(compiled) << compiled.error().text();
    EXPECT_EQ(first->counters().compiled, 1u);
    EXPECT_EQ(first->counters().loaded, 0u);
    const auto key = first->key(kernel_source(kernel_of(*m1, "k")), true);
    ASSERT_TRUE(key);
    EXPECT_TRUE(fs::is_regular_file(first->cache()->entry_path(*key)));
    EXPECT_EQ(run(*m1, *compiled), expected(5, 7));

    // Another compiler (as another process would): loaded from the cache, not compiled.
    auto second = compiler_with(dir.path());
    ASSERT_TRUE(second);
    auto loaded = second->compile(kernel_source(kernel_of(*m2, "k")));
    ASSERT_TRUE(loaded) << loaded.error().text();
    EXPECT_EQ(second->counters().compiled, 0u);
    EXPECT_EQ(second->counters().loaded, 1u);
    EXPECT_EQ(second->cache()->counters().hits, 1u);
    EXPECT_EQ((*loaded)->warp, (*compiled)->warp);
    EXPECT_EQ((*loaded)->sites.size(), (*compiled)->sites.size());
    // The loaded code reads module two's variables, not those of the module it was compiled for.
    set_u32(*m2, "g_add", 0, 1000);
    set_u32(*m2, "c_mul", 4, 11);
    EXPECT_EQ(run(*m2, *loaded), expected(1000, 11));
    EXPECT_EQ(run(*m1, *compiled), expected(5, 7));
    // And the same as interpreted.
    EXPECT_EQ(run(*m2, nullptr), expected(1000, 11));
}

TEST(JitCache, AKernelCompiledOnceIsLinkedOnceAndEachCodeIsKeyedApart) {
    d4r::test::TempDir dir;
    auto m = load_ok(variables_kernel(), "one.ptx");
    auto again = load_ok(variables_kernel(), "again.ptx");
    ASSERT_TRUE(m && again);
    auto compiler = compiler_with(dir.path());
    ASSERT_TRUE(compiler);
    auto a = compiler->compile(kernel_source(kernel_of(*m, "k")));
    auto b = compiler->compile(kernel_source(kernel_of(*again, "k")));
    ASSERT_TRUE(a && b);
    EXPECT_EQ((*a)->fn, (*b)->fn);
    EXPECT_NE((*a)->variables, (*b)->variables); // the same code, each module's variables
    EXPECT_EQ(compiler->counters().compiled, 1u);
    EXPECT_EQ(compiler->counters().reused, 1u);
    // A thread function is another key, another entry.
    auto thread = compiler->compile(kernel_source(kernel_of(*m, "k")), false);
    ASSERT_TRUE(thread);
    EXPECT_FALSE((*thread)->warp);
    EXPECT_EQ(compiler->counters().compiled, 2u);
    EXPECT_NE(compiler->key(kernel_source(kernel_of(*m, "k")), false)->digest,
              compiler->key(kernel_source(kernel_of(*m, "k")), true)->digest);
    EXPECT_EQ(run(*m, *thread), expected(5, 7));
}

TEST(JitCache, ADamagedEntryIsRefusedCompiledAgainAndStoredAnew) {
    d4r::test::TempDir dir;
    auto m = load_ok(variables_kernel(), "one.ptx");
    ASSERT_TRUE(m);
    const KernelSource source = kernel_source(kernel_of(*m, "k"));
    auto first = compiler_with(dir.path());
    ASSERT_TRUE(first && first->compile(source));
    const fs::path entry = first->cache()->entry_path(*first->key(source, true));
    // A bit flipped in the object code.
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-100, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-100, std::ios::end);
    f.put(static_cast<char>(c ^ 0x01));
    f.close();

    auto second = compiler_with(dir.path());
    ASSERT_TRUE(second);
    auto compiled = second->compile(source);
    ASSERT_TRUE(compiled) << compiled.error().text();
    EXPECT_EQ(second->cache()->counters().refused, 1u);
    EXPECT_EQ(second->counters().loaded, 0u);
    EXPECT_EQ(second->counters().compiled, 1u);
    EXPECT_EQ(run(*m, *compiled), expected(5, 7));
    // Stored anew: a third compiler loads it.
    auto third = compiler_with(dir.path());
    ASSERT_TRUE(third && third->compile(source));
    EXPECT_EQ(third->counters().loaded, 1u);
    EXPECT_EQ(third->counters().compiled, 0u);
}

TEST(JitCache, AFolderThatCannotBeWrittenLeavesTheJitWorking) {
    d4r::test::TempDir dir;
    const fs::path file = dir.write("file", "x");
    auto m = load_ok(variables_kernel(), "one.ptx");
    ASSERT_TRUE(m);
    auto compiler = compiler_with(file / "cache");
    ASSERT_TRUE(compiler);
    auto compiled = compiler->compile(kernel_source(kernel_of(*m, "k")));
    ASSERT_TRUE(compiled) << compiled.error().text();
    EXPECT_FALSE(compiler->cache()->counters().writable);
    EXPECT_EQ(run(*m, *compiled), expected(5, 7));
    // No cache at all: compiled each time a compiler meets the kernel.
    auto uncached = jit::KernelCompiler::create(jit::CacheSettings{});
    ASSERT_TRUE(uncached);
    EXPECT_EQ((*uncached)->cache(), nullptr);
    ASSERT_TRUE((*uncached)->compile(kernel_source(kernel_of(*m, "k"))));
    EXPECT_EQ((*uncached)->counters().compiled, 1u);
}

} // namespace
} // namespace d4r::ptxsim::test
