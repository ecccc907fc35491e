// Scan throughput of find_ptx_modules: a 64 MiB synthetic PE DLL (pseudo-random section data, like
// compressed resources; a few fatbins buried at odd offsets in three sections) and the raw magic search
// on two byte patterns. Reports bytes_per_second; docs/performance.md records the figures. Run:
//   build/bin/bench_scan --benchmark_min_time=2
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "ptx/container.h"
#include "ptx/fatbin.h"

namespace {

constexpr size_t kFileSize = 64ull << 20;

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
    for (int i = 0; i < 2; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// A fatbin with one uncompressed PTX entry for sm_ARCH (layout: docs/ptx-containers.md).
std::vector<uint8_t> make_fatbin(uint32_t arch) {
    std::string ptx = ".version 9.0\n.target sm_" + std::to_string(arch) + "\n.address_size 64\n";
    for (int i = 0; i < 200; ++i) ptx += ".visible .entry k" + std::to_string(i) + "()\n{\nret;\n}\n";
    ptx.resize((ptx.size() + 8) / 8 * 8, '\0');
    std::vector<uint8_t> f(16 + 64 + ptx.size(), 0);
    put32(f, 0, d4r::ptx::kFatbinMagic);
    put16(f, 4, 1);
    put16(f, 6, 16);
    put64(f, 8, 64 + ptx.size());
    put16(f, 16 + 0x00, 1);
    put32(f, 16 + 0x04, 64);
    put64(f, 16 + 0x08, ptx.size());
    put32(f, 16 + 0x1c, arch);
    put64(f, 16 + 0x28, 0x11);
    std::memcpy(f.data() + 80, ptx.data(), ptx.size());
    return f;
}

// DOS header, PE signature, COFF header, a zeroed PE32+ optional header and three sections that split
// the rest of the file; fatbins are copied over the random data at odd offsets.
std::vector<uint8_t> make_pe() {
    std::vector<uint8_t> file(kFileSize);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i + 8 <= file.size(); i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; // xorshift64
        std::memcpy(file.data() + i, &x, 8);
    }
    std::memset(file.data(), 0, 0x400);
    file[0] = 'M', file[1] = 'Z';
    put32(file, 0x3c, 0x40);
    std::memcpy(file.data() + 0x40, "PE\0\0", 4);
    put16(file, 0x44, 0x8664);
    put16(file, 0x46, 3);
    put16(file, 0x54, 0xf0);
    put16(file, 0x58, 0x20b);
    const size_t table = 0x40 + 24 + 0xf0;
    const char* names[3] = {".text", ".rdata", ".nv_fatb"};
    const uint32_t starts[4] = {0x400, 0x1000000, 0x3000000, static_cast<uint32_t>(kFileSize)};
    for (int s = 0; s < 3; ++s) {
        std::memcpy(file.data() + table + 40 * s, names[s], std::strlen(names[s]));
        put32(file, table + 40 * s + 16, starts[s + 1] - starts[s]);
        put32(file, table + 40 * s + 20, starts[s]);
    }
    const size_t places[4] = {0x123457, 0x2345679, 0x3800003, 0x3f00001};
    const uint32_t archs[4] = {75, 80, 86, 89};
    for (int i = 0; i < 4; ++i) {
        std::vector<uint8_t> f = make_fatbin(archs[i]);
        std::memcpy(file.data() + places[i], f.data(), f.size());
    }
    return file;
}

void BM_FindPtxModules_SyntheticPe64MiB(benchmark::State& state) {
    const std::vector<uint8_t> file = make_pe();
    for (auto _ : state) {
        auto modules = d4r::ptx::find_ptx_modules(file);
        if (!modules.ok() || modules->size() != 4) {
            state.SkipWithError(modules.ok() ? "expected 4 modules" : modules.error().text().c_str());
            return;
        }
        benchmark::DoNotOptimize(modules->data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file.size()));
}
BENCHMARK(BM_FindPtxModules_SyntheticPe64MiB)->Unit(benchmark::kMillisecond);

// The search alone, on data made of one pattern repeated: "random" is the PE's data; "probe-dense" is
// "P\xED" repeated — every position passes the first filter stage, the worst case for the search.
void BM_FindMagic(benchmark::State& state) {
    std::vector<uint8_t> data = make_pe();
    if (state.range(0) == 1) {
        for (size_t i = 0; i < data.size(); ++i) data[i] = (i % 2) ? 0xED : 0x50;
    }
    for (auto _ : state)
        benchmark::DoNotOptimize(d4r::ptx::find_fatbin_magic(data, 0x1000000 - 1, 0x1000000 + (16 << 20)));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (16 << 20)));
    state.SetLabel(state.range(0) == 1 ? "probe-dense 16 MiB" : "random 16 MiB");
}
BENCHMARK(BM_FindMagic)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
