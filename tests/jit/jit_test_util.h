// The PTX JIT's tests: one-instruction kernels (ptxsim_test_util.h's op_kernel) run interpreted and compiled, for the
// lowering tests of each instruction family. inputs() gives edge values of a width (zeros, subnormals, the smallest
// normal, huge values, infinities, quiet, signalling and negative NaNs) paired with random bits;
// expect_compiled_matches() asserts that a kernel compiles and that every bit of every result is the interpreter's,
// as warp code (where it qualifies) and as a thread function.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../ptxsim/ptxsim_test_util.h"
#include "jit/kernel_compiler.h"

namespace d4r::ptxsim::test {

template <class T>
inline T from_bits(uint64_t b) {
    T v{};
    std::memcpy(&v, &b, sizeof v);
    return v;
}

// Edge values of T's width followed by random bits: N values in all.
template <class T>
inline std::vector<T> inputs(uint64_t seed, size_t n = 256) {
    std::vector<uint64_t> bits;
    if constexpr (sizeof(T) == 8) {
        bits = {0,
                0x8000000000000000ull,
                0x3ff0000000000000ull,
                0xbff8000000000000ull,
                1,
                0x000fffffffffffffull,
                0x0010000000000000ull,
                0x8010000000000000ull,
                0x7fefffffffffffffull,
                0x7ff0000000000000ull,
                0xfff0000000000000ull,
                0x7ff8000000000000ull,
                0x7ff0000000000001ull,
                0xfff8000012345678ull,
                0x3fe0000000000000ull,
                0x47efffffe0000000ull, // just above FLT_MAX
                0x3690000000000000ull, // 2^-150
                0x40effc0000000000ull, // 65504
                0xc0f0000000000000ull,
                0x41dfffffffc00000ull}; // 2^31 - 1
    } else if constexpr (sizeof(T) == 4) {
        bits = {0,          0x80000000, 0x3f800000, 0xbfc00000, 1,          0x007fffff, 0x00800000,
                0x80800000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc12345,
                0x3f000000, 0x477fe000, 0x477ff000, 0x7e800000, 0x4f000000, 0xcf000001, 0x43e00000};
    } else {
        bits = {0,      0x8000, 0x3c00, 0xbc00, 1,      0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00,
                0x7e00, 0x7c01, 0xfe12, 0x3f80, 0x7f80, 0x7fc0, 0x0080, 0x007f, 0x3c7e, 0x4b7f};
    }
    TestRng rng(seed);
    std::vector<T> out;
    for (size_t i = 0; i < n; ++i) {
        // The edge values paired with each other (the seed rotates them) and with random bits.
        const uint64_t b = i < bits.size() * 4 ? bits[(i + seed * (i / bits.size())) % bits.size()] : rng.next();
        out.push_back(from_bits<T>(b));
    }
    return out;
}

// BODY run over A, B, C interpreted and compiled: the kernel compiles and the results agree bit for bit.
template <class D, class A, class B = A, class C = A>
void expect_compiled_matches(const std::string& body, std::vector<A> a, std::vector<B> b = {}, std::vector<C> c = {}) {
    SCOPED_TRACE(body);
    const size_t n = a.size();
    const size_t padded = (n + 63) / 64 * 64;
    a.resize(padded);
    b.resize(padded);
    c.resize(padded);
    const std::string text =
        op_kernel(body, reg_type<A>(), reg_type<B>(), reg_type<C>(), reg_type<D>(), mem_type<A>(), mem_type<B>(),
                  mem_type<C>(), mem_type<D>(), sizeof(A), sizeof(B), sizeof(C), sizeof(D));
    auto m = load_ok(text, "op.ptx");
    ASSERT_TRUE(m);
    auto compiler = jit::KernelCompiler::instance();
    ASSERT_TRUE(compiler) << compiler.error().text();
    // Warp code (where the kernel qualifies) and the thread function: each against the interpreter.
    auto compiled = (*compiler)->compile(kernel_source(kernel_of(*m, "op")));
    ASSERT_TRUE(compiled) << compiled.error().text();
    auto per_thread = (*compiler)->compile(kernel_source(kernel_of(*m, "op")), false);
    ASSERT_TRUE(per_thread) << per_thread.error().text();
    std::vector<D> results[3];
    for (int jit = 0; jit < 3; ++jit) {
        Device dev;
        DevicePtr pd = upload(dev, std::vector<D>(padded));
        DevicePtr pa = upload(dev, a), pb = upload(dev, b), pc = upload(dev, c);
        Params p(kernel_of(*m, "op"));
        p.set(0, pd).set(1, pa).set(2, pb).set(3, pc);
        LaunchConfig cfg = config({static_cast<uint32_t>(padded / 64)}, {64});
        if (jit) {
            cfg.compiled = jit == 1 ? *compiled : *per_thread;
            cfg.instruction_budget = 0;
        }
        run_ok(dev, *m, "op", cfg, p);
        results[jit] = download<D>(dev, pd, n);
    }
    for (int jit = 1; jit < 3; ++jit)
        for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(bits_of(results[jit][i]), bits_of(results[0][i]))
                << (jit == 1 && (*compiled)->warp ? "warp code" : "thread code") << ", element " << i << ": a "
                << std::hex << bits_of(a[i]) << " b " << bits_of(b[i]) << " c " << bits_of(c[i]);
}

} // namespace d4r::ptxsim::test
