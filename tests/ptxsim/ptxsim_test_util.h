// Helpers for the ptxsim unit tests: a device, module loading with readable failures, typed buffers,
// parameter blocks laid out from the kernel's parameter info, and launching.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ptxsim/ptxsim.h"

namespace d4r::ptxsim::test {

// A PTX module header for hand-written test kernels.
inline std::string ptx(const std::string& body) { return ".version 8.0\n.target sm_90\n.address_size 64\n" + body; }

inline std::shared_ptr<Module> load_ok(const std::string& text, const std::string& name = "test.ptx") {
    auto m = Module::load(text, name);
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().text());
    return m.ok() ? *m : nullptr;
}

// Why TEXT cannot run: the module's load error (malformed PTX), or else why its first kernel is
// unavailable (an instruction ptxsim does not implement makes only its own kernel unavailable).
inline std::string load_error(const std::string& text, const std::string& name = "test.ptx") {
    auto m = Module::load(text, name);
    if (!m.ok()) return m.error().text();
    EXPECT_FALSE((*m)->unavailable().empty()) << "loaded without error";
    if ((*m)->unavailable().empty()) return "";
    const Module::Unavailable& u = (*m)->unavailable().front();
    auto k = (*m)->kernel(u.kernel);
    EXPECT_FALSE(k.ok());
    if (k.ok()) return "";
    EXPECT_EQ(k.error().code(), ErrorCode::Unsupported);
    return k.error().text();
}

// A parameter block for KERNEL: set(i, value) writes parameter i at its offset.
class Params {
public:
    explicit Params(const Kernel& k) : m_kernel(k), m_bytes(k.info().param_block_size, 0) {}
    template <class T>
    Params& set(size_t i, T value) {
        const auto& p = m_kernel.info().params.at(i);
        EXPECT_LE(sizeof(T), p.size) << "parameter " << i;
        std::memcpy(m_bytes.data() + p.offset, &value, sizeof(T));
        return *this;
    }
    std::span<const uint8_t> bytes() const { return m_bytes; }

private:
    const Kernel& m_kernel;
    std::vector<uint8_t> m_bytes;
};

template <class T>
DevicePtr upload(Device& dev, const std::vector<T>& data) {
    auto p = dev.alloc(data.size() * sizeof(T));
    EXPECT_TRUE(p.ok());
    if (!data.empty()) {
        EXPECT_TRUE(dev.copy_to_device(*p, data.data(), data.size() * sizeof(T)).ok());
    }
    return *p;
}

template <class T>
std::vector<T> download(const Device& dev, DevicePtr ptr, size_t count) {
    std::vector<T> out(count);
    auto s = dev.copy_to_host(out.data(), ptr, count * sizeof(T));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().text());
    return out;
}

inline LaunchConfig config(Dim3 grid, Dim3 block, unsigned workers = 1) {
    LaunchConfig c;
    c.grid = grid;
    c.block = block;
    c.worker_threads = workers;
    return c;
}

// Launches and expects success.
inline LaunchResult run_ok(Device& dev, const Module& m, const std::string& kernel, const LaunchConfig& cfg,
                           const Params& params) {
    auto k = m.kernel(kernel);
    EXPECT_TRUE(k.ok());
    if (!k.ok()) return {};
    auto r = launch(dev, **k, cfg, params.bytes());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().text());
    return r.ok() ? *r : LaunchResult{};
}

inline const Kernel& kernel_of(const Module& m, const std::string& name) {
    auto k = m.kernel(name);
    EXPECT_TRUE(k.ok()) << name;
    return **k;
}

// ---- one-instruction harness -------------------------------------------------------------------
// run_op<D, A, B, C>(body, a, b, c) runs BODY once per element with registers %a, %b, %c loaded from
// the inputs (declared .b16/.b32/.b64/.f32/.f64 by the C++ types) and stores %d. BODY may use the
// predicates %p0..%p3 and %q0..%q3.

template <class T>
std::string reg_type() {
    if constexpr (sizeof(T) == 1 || sizeof(T) == 2)
        return "b16";
    else if constexpr (std::is_same_v<T, float>)
        return "f32";
    else if constexpr (std::is_same_v<T, double>)
        return "f64";
    else if constexpr (sizeof(T) == 4)
        return "b32";
    else
        return "b64";
}
template <class T>
std::string mem_type() {
    if constexpr (sizeof(T) == 1)
        return "b8";
    else if constexpr (sizeof(T) == 2)
        return "b16";
    else if constexpr (sizeof(T) == 4)
        return "b32";
    else
        return "b64";
}

inline std::string op_kernel(const std::string& body, const std::string& ta, const std::string& tb,
                             const std::string& tc, const std::string& td, const std::string& ma, const std::string& mb,
                             const std::string& mc, const std::string& md, size_t sa, size_t sb, size_t sc, size_t sd) {
    std::string k = ".visible .entry op(.param .u64 pd, .param .u64 pa, .param .u64 pb, .param .u64 pc)\n{\n";
    k += "  .reg .pred %p<4>;\n  .reg .pred %q<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<16>;\n";
    k += "  .reg ." + ta + " %a;\n  .reg ." + tb + " %b;\n  .reg ." + tc + " %c;\n  .reg ." + td + " %d;\n";
    k += "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n";
    k += "  mad.lo.u32 %r4, %r2, %r3, %r1;\n  cvt.u64.u32 %rd1, %r4;\n";
    auto load = [&](const char* param, const std::string& reg, const std::string& mt, size_t size, int n) {
        std::string a = "%rd" + std::to_string(n), b = "%rd" + std::to_string(n + 1);
        k += "  ld.param.u64 " + a + ", [" + param + "];\n";
        k += "  mad.lo.u64 " + b + ", %rd1, " + std::to_string(size) + ", " + a + ";\n";
        k += "  ld.global." + mt + " " + reg + ", [" + b + "];\n";
    };
    load("pa", "%a", ma, sa, 2);
    load("pb", "%b", mb, sb, 4);
    load("pc", "%c", mc, sc, 6);
    k += "  mov." + (td == "f32" ? std::string("f32") : td == "f64" ? std::string("f64") : td) + " %d, 0;\n";
    k += body + "\n";
    k += "  ld.param.u64 %rd8, [pd];\n  mad.lo.u64 %rd9, %rd1, " + std::to_string(sd) + ", %rd8;\n";
    k += "  st.global." + md + " [%rd9], %d;\n  ret;\n}\n";
    return ptx(k);
}

template <class D, class A, class B = A, class C = A>
std::vector<D> run_op(const std::string& body, std::vector<A> a, std::vector<B> b = {}, std::vector<C> c = {}) {
    size_t n = a.size();
    size_t padded = (n + 63) / 64 * 64;
    a.resize(padded);
    b.resize(padded);
    c.resize(padded);
    std::string text =
        op_kernel(body, reg_type<A>(), reg_type<B>(), reg_type<C>(), reg_type<D>(), mem_type<A>(), mem_type<B>(),
                  mem_type<C>(), mem_type<D>(), sizeof(A), sizeof(B), sizeof(C), sizeof(D));
    auto m = load_ok(text, "op.ptx");
    if (!m) return std::vector<D>(n);
    Device dev;
    DevicePtr pd = upload(dev, std::vector<D>(padded));
    DevicePtr pa = upload(dev, a), pb = upload(dev, b), pc = upload(dev, c);
    Params p(kernel_of(*m, "op"));
    p.set(0, pd).set(1, pa).set(2, pb).set(3, pc);
    run_ok(dev, *m, "op", config({static_cast<uint32_t>(padded / 64)}, {64}), p);
    auto out = download<D>(dev, pd, padded);
    out.resize(n);
    return out;
}

template <class T>
uint64_t bits_of(T v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
}

// Deterministic pseudo-random numbers for test inputs (xorshift64*).
class TestRng {
public:
    explicit TestRng(uint64_t seed) : m_s(seed * 0x9e3779b97f4a7c15ull + 1) {}
    uint64_t next() {
        m_s ^= m_s >> 12;
        m_s ^= m_s << 25;
        m_s ^= m_s >> 27;
        return m_s * 0x2545f4914f6cdd1dull;
    }

private:
    uint64_t m_s;
};

} // namespace d4r::ptxsim::test
