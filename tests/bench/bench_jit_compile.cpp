// bench_jit_compile: what the PTX JIT's compile cache saves (docs/performance.md, "The PTX JIT's compile cache and
// `jit` as the default").
// Every kernel of the PTX modules named (by default d4r's own: the NGX core's and the shim's) is compiled by a fresh
// compiler into an empty compile cache (cold: lowering, LLVM's optimiser and code generation, linking), then by a
// second compiler from that cache (cached: reading and checking the entry, linking), each timed in the same run; one
// line per kernel and the totals. Not a Google Benchmark: a cold compile happens once per kernel.
//
//   build/bin/bench_jit_compile [--per-thread] [FILE.ptx ...]   (--per-thread: thread functions, not warp code)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/files.h"
#include "jit/kernel_compiler.h"
#include "ptxsim/ptxsim.h"

namespace fs = std::filesystem;
using namespace d4r;

namespace {

double ms(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::vector<fs::path> default_modules() {
    std::vector<fs::path> out;
    for (const char* dir : {"src/kernels/upscaler/ptx", "src/kernels/refine/ptx", "src/shim/ptx"}) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(fs::path(D4R_SOURCE_DIR) / dir, ec))
            if (entry.path().extension() == ".ptx") out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<fs::path> modules;
    bool warp = true;
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--per-thread")
            warp = false;
        else
            modules.emplace_back(argv[i]);
    }
    if (modules.empty()) modules = default_modules();
    char tmpl[] = "/tmp/d4r-bench-jit-XXXXXX";
    if (!::mkdtemp(tmpl)) {
        std::perror("mkdtemp");
        return 1;
    }
    const jit::CacheSettings cache{fs::path(tmpl), jit::kDefaultCacheBytes};
    auto cold = jit::KernelCompiler::create(cache);
    auto warm = jit::KernelCompiler::create(cache);
    auto optimising = jit::KernelCompiler::create(jit::CacheSettings{}, UINT64_MAX);
    if (!cold || !warm || !optimising) {
        std::fprintf(stderr, "no PTX JIT: %s\n", (cold ? warm : cold).error().text().c_str());
        return 1;
    }
    std::printf("%-22s %-24s %-14s %9s %9s %7s %8s %13s\n", "module", "kernel", "code", "cold ms", "cached ms", "ratio",
                "object", "optimising ms");
    double cold_total = 0, warm_total = 0, optimising_total = 0;
    int failures = 0;
    for (const fs::path& path : modules) {
        auto text = read_text_file(path);
        if (!text) {
            std::fprintf(stderr, "%s\n", text.error().text().c_str());
            return 1;
        }
        auto module = ptxsim::Module::load(*text, path.filename().string());
        if (!module) {
            std::fprintf(stderr, "%s\n", module.error().text().c_str());
            return 1;
        }
        for (const std::string& name : (*module)->kernel_names()) {
            auto kernel = (*module)->kernel(name);
            if (!kernel) continue;
            const ptxsim::KernelSource source = ptxsim::kernel_source(**kernel);
            const uint64_t fast_before = (*cold)->counters().fast_codegen;
            auto t0 = std::chrono::steady_clock::now();
            auto compiled = (*cold)->compile(source, warp);
            const double cold_ms = ms(t0);
            if (!compiled) {
                std::printf("%-22s %-24s interpreted: %s\n", path.filename().c_str(), name.c_str(),
                            compiled.error().message().c_str());
                continue;
            }
            const bool fast = (*cold)->counters().fast_codegen != fast_before;
            t0 = std::chrono::steady_clock::now();
            auto loaded = (*warm)->compile(source, warp);
            const double warm_ms = ms(t0);
            t0 = std::chrono::steady_clock::now();
            auto slow = (*optimising)->compile(source, warp);
            const double optimising_ms = ms(t0);
            if (!loaded || !slow) {
                std::fprintf(stderr, "%s: %s\n", name.c_str(), (loaded ? slow.error() : loaded.error()).text().c_str());
                ++failures;
                continue;
            }
            cold_total += cold_ms;
            warm_total += warm_ms;
            optimising_total += optimising_ms;
            const auto key = (*cold)->key(source, warp);
            std::error_code ec;
            const auto bytes = key ? fs::file_size((*cold)->cache()->entry_path(*key), ec) : 0;
            const char* code = !(*compiled)->warp ? "per thread" : fast ? "warp, fast cg" : "warp";
            std::printf("%-22s %-24s %-14s %9.1f %9.2f %6.0fx %8ju %13.1f\n", path.filename().c_str(), name.c_str(),
                        code, cold_ms, warm_ms, cold_ms / warm_ms, static_cast<uintmax_t>(bytes), optimising_ms);
        }
    }
    const auto c = (*cold)->counters();
    const auto w = (*warm)->counters();
    std::printf("%-62s %9.1f %9.2f %6.0fx %8s %13.1f\n", "total", cold_total, warm_total, cold_total / warm_total, "",
                optimising_total);
    std::printf("cold: %ju compiled (%ju with fast code generation); lowering %.1f ms, optimiser %.1f ms, code "
                "generation %.1f ms, linking %.1f ms\n",
                static_cast<uintmax_t>(c.compiled), static_cast<uintmax_t>(c.fast_codegen), c.lowering_ms,
                c.optimiser_ms, c.codegen_ms, c.link_ms);
    std::printf("cached: %ju loaded, %ju compiled; reading the cache %.1f ms, linking %.1f ms\n",
                static_cast<uintmax_t>(w.loaded), static_cast<uintmax_t>(w.compiled), w.cache_ms, w.link_ms);
    std::error_code ec;
    fs::remove_all(tmpl, ec);
    return failures == 0 && w.compiled == 0 ? 0 : 1;
}
