// The self-test probes and their host references (see selftest.h).
#include "selftest.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "code_object.h"
#include "vm.h"

namespace d4r::rj {

namespace {

namespace fs = std::filesystem;

// Buffers where d4r's job files put theirs (network/job_file.h: from 32 TiB), so the probes also show that
// rocjitsu addresses that far.
constexpr uint64_t kCode = 0x1000'0000, kBufA = 0x2000'0000'0000, kBufB = 0x2000'0010'0000, kBufC = 0x2000'0020'0000,
                   kBufD = 0x2000'0030'0000;

struct Tally {
    int cases = 0, failed = 0;
    void line(const std::string& target, const std::string& what, const std::string& result, bool as_expected) {
        ++cases;
        failed += !as_expected;
        std::printf("%-8s %-38s %-40s %s\n", target.c_str(), what.c_str(), result.c_str(),
                    as_expected ? "as expected" : "UNEXPECTED");
    }
};

std::vector<uint8_t> read_bytes(const fs::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + path.string());
    return {std::istreambuf_iterator<char>(f), {}};
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
    std::vector<uint8_t> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

template <typename... P>
std::vector<uint8_t> pack(P... values) {
    std::vector<uint8_t> b;
    (
        [&](auto v) {
            const size_t at = b.size();
            b.resize(at + sizeof(v));
            std::memcpy(b.data() + at, &v, sizeof(v));
        }(values),
        ...);
    return b;
}

// Runs KERNEL of CODE with buffers A..D (A, B, C as given, D of d_bytes bytes of 0xFF) and returns D.
std::vector<uint8_t> run(const Config& cfg, const CodeObject& code, const std::string& kernel,
                         std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
                         const std::vector<uint8_t>& params, const std::vector<uint8_t>& a,
                         const std::vector<uint8_t>& b, const std::vector<uint8_t>& c, size_t d_bytes) {
    MemoryImage image;
    add_code_object(image, code, kCode);
    image.blocks[kBufA] = a.empty() ? std::vector<uint8_t>(4, 0) : a;
    image.blocks[kBufB] = b.empty() ? std::vector<uint8_t>(4, 0) : b;
    image.blocks[kBufC] = c.empty() ? std::vector<uint8_t>(4, 0) : c;
    image.blocks[kBufD] = std::vector<uint8_t>(d_bytes, 0xFF);
    run_dispatch(cfg, image, Dispatch{&code, kCode, kernel, grid, block, 0, params});
    return image.blocks[kBufD];
}

float e4m3_to_float(uint8_t v) { // OCP E4M3, finite values only
    const int s = v >> 7, e = (v >> 3) & 0xF, m = v & 7;
    const float r = e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1.0f + m / 8.0f, e - 7);
    return s ? -r : r;
}

struct Gemm {
    std::vector<uint8_t> a, b, c;
    std::vector<float> expect;
};

// Random A, B (f16 or e4m3) and C, and the exact product in double, rounded to f32.
Gemm make_gemm(bool fp8, unsigned seed) {
    std::srand(seed);
    std::vector<float> af(256), bf(256), cf(256);
    std::vector<_Float16> ah(256), bh(256);
    std::vector<uint8_t> a8(256), b8(256);
    for (int i = 0; i < 256; ++i) {
        if (fp8) {
            do a8[i] = uint8_t(std::rand());
            while ((a8[i] & 0x7F) == 0x7F);
            do b8[i] = uint8_t(std::rand());
            while ((b8[i] & 0x7F) == 0x7F);
            af[i] = e4m3_to_float(a8[i]);
            bf[i] = e4m3_to_float(b8[i]);
        } else {
            ah[i] = _Float16(float(std::rand() % 17 - 8) / 4.0f);
            bh[i] = _Float16(float(std::rand() % 17 - 8) / 8.0f);
            af[i] = float(ah[i]);
            bf[i] = float(bh[i]);
        }
        cf[i] = float(std::rand() % 11 - 5);
    }
    Gemm g{fp8 ? a8 : bytes_of(ah), fp8 ? b8 : bytes_of(bh), bytes_of(cf), std::vector<float>(256)};
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 16; ++n) {
            double s = cf[m * 16 + n];
            for (int k = 0; k < 16; ++k) s += double(af[m * 16 + k]) * bf[k * 16 + n];
            g.expect[m * 16 + n] = float(s);
        }
    return g;
}

int mismatches(const std::vector<uint8_t>& d, const std::vector<float>& expect) {
    int bad = 0;
    for (size_t i = 0; i < expect.size(); ++i) {
        float v;
        std::memcpy(&v, d.data() + 4 * i, 4);
        bad += !(std::fabs(v - expect[i]) <= 1e-3f * std::max(1.0f, std::fabs(expect[i])));
    }
    return bad;
}

std::string count(int bad, int of) { return "mismatches " + std::to_string(bad) + "/" + std::to_string(of); }

void xlane_cases(Tally& t, const Config& cfg, const CodeObject& code) {
    struct Case {
        const char* name;
        uint32_t threads;
        std::function<int(const std::vector<int>&, int)> expect;
    };
    const Case cases[] = {
        {"k_swizzle", 32, [](const std::vector<int>& in, int l) { return in[l ^ 1]; }},
        {"k_permlanex16", 32, [](const std::vector<int>& in, int l) { return in[l ^ 16]; }},
        {"k_dpp_row_shr1", 32, [](const std::vector<int>& in, int l) { return l % 16 == 0 ? 0 : in[l - 1]; }},
        {"k_lds_2barriers", 64, [](const std::vector<int>& in, int l) { return (in[l] + 1) * 10; }},
        {"k_usub_sat", 32, [](const std::vector<int>& in, int l) { return in[l] > 130 ? in[l] - 130 : 0; }},
        {"k_sadd_sat", 32,
         [](const std::vector<int>& in, int l) { return in[l] > 120 ? 0x7fffffff : in[l] + (0x7fffffff - 120); }},
    };
    std::vector<int> in(64);
    for (int i = 0; i < 64; ++i) in[i] = 100 + i;
    for (const Case& c : cases) {
        const auto d =
            run(cfg, code, c.name, {1, 1, 1}, {c.threads, 1, 1}, pack(kBufA, kBufD), bytes_of(in), {}, {}, 256);
        int bad = 0;
        for (uint32_t l = 0; l < c.threads; ++l) {
            int v;
            std::memcpy(&v, d.data() + 4 * l, 4);
            bad += v != c.expect(in, int(l));
        }
        t.line(cfg.target, c.name, count(bad, int(c.threads)), bad == 0);
    }
}

// The hidden arguments of code object v5 (blockDim, gridDim, grid dims) and workgroup ids, on a 3 x 2 grid.
void hidden_case(Tally& t, const Config& cfg, const CodeObject& code) {
    const uint32_t gx = 3, gy = 2, tag = 0xd4d4;
    const auto d =
        run(cfg, code, "k_hidden", {gx, gy, 1}, {32, 2, 1}, pack(kBufD, tag, 0u), {}, {}, {}, 4 * 8 * gx * gy);
    int bad = 0;
    for (uint32_t y = 0; y < gy; ++y)
        for (uint32_t x = 0; x < gx; ++x) {
            const uint32_t want[8] = {gx, gy, 1, 32, 2, 2, x | (y << 16), tag};
            for (int j = 0; j < 8; ++j) {
                uint32_t v;
                std::memcpy(&v, d.data() + 4 * (8 * (y * gx + x) + j), 4);
                bad += v != want[j];
            }
        }
    t.line(cfg.target, "k_hidden (3x2 grid, 32x2 block)", count(bad, int(8 * gx * gy)), bad == 0);
}

// Work-item ids of a 3D block: packed in v0 on gfx11 and gfx12 (vm.cpp's workaround).
void tid_case(Tally& t, const Config& cfg, const CodeObject& code) {
    const auto d = run(cfg, code, "k_tid", {1, 1, 1}, {16, 4, 2}, pack(kBufD), {}, {}, {}, 4 * 128);
    int bad = 0;
    for (uint32_t i = 0; i < 128; ++i) {
        uint32_t v;
        std::memcpy(&v, d.data() + 4 * i, 4);
        bad += v != ((i % 16) | ((i / 16 % 4) << 8) | ((i / 64) << 16));
    }
    t.line(cfg.target, "k_tid (16x4x2 block)", count(bad, 128), bad == 0);
}

void gfx11_cases(Tally& t, const Config& cfg, const CodeObject& code, bool negative) {
    const Gemm g = make_gemm(false, 1);
    const auto d =
        run(cfg, code, "wmma_f32_f16", {1, 1, 1}, {32, 1, 1}, pack(kBufA, kBufB, kBufC, kBufD), g.a, g.b, g.c, 1024);
    const int bad = mismatches(d, g.expect);
    if (negative) {
        t.line(cfg.target, "gfx1100 wmma_f32_f16 (negative)", count(bad, 256) + ", must be > 0", bad > 0);
        return;
    }
    t.line(cfg.target, "wmma_f32_f16 f16", count(bad, 256), bad == 0);
    xlane_cases(t, cfg, code);
    hidden_case(t, cfg, code);
    tid_case(t, cfg, code);
}

void gfx12_cases(Tally& t, const Config& cfg, const CodeObject& code) {
    const Gemm g = make_gemm(false, 1);
    struct Conv {
        int a, b;
        const char* what;
        bool right;
    };
    for (const Conv& c : {Conv{0, 0, "wmma_f32_f16 f16, A rj K, B rj K", true},
                          Conv{1, 1, "wmma_f32_f16 f16, A calc K, B calc K", true},
                          Conv{0, 1, "wmma_f32_f16 f16, A rj K, B calc K", false}}) {
        const auto d = run(cfg, code, "wmma_f32_f16", {1, 1, 1}, {32, 1, 1}, pack(kBufA, kBufB, kBufC, kBufD, c.a, c.b),
                           g.a, g.b, g.c, 1024);
        const int bad = mismatches(d, g.expect);
        t.line(cfg.target, c.what, count(bad, 256) + (c.right ? "" : ", must be > 0"), c.right ? bad == 0 : bad > 0);
    }
    const Gemm g8 = make_gemm(true, 2);
    const auto d8 =
        run(cfg, code, "wmma_f32_fp8", {1, 1, 1}, {32, 1, 1}, pack(kBufA, kBufB, kBufC, kBufD), g8.a, g8.b, g8.c, 1024);
    const int bad8 = mismatches(d8, g8.expect);
    t.line(cfg.target, "wmma_f32_fp8 fp8 e4m3", count(bad8, 256), bad8 == 0);

    // K order: products 2^24 (lane 0 slot 0), 1 (lane 0 slot 4) and -2^24 (lane 16 slot 0) in row 0 x column 0.
    // Summed in f32 in K order: rocjitsu's convention has K = 0, 4, 8 for these slots: 2^24 + 1 rounds to 2^24,
    // minus 2^24 gives 0. The calculator's has K = 0, 8, 4: 2^24 - 2^24 + 1 = 1. An exact sum also gives 1.
    std::vector<_Float16> ar(256, _Float16(0)), br(256, _Float16(0));
    ar[0] = _Float16(4096.0f), br[0] = _Float16(4096.0f);
    ar[4] = _Float16(1.0f), br[4] = _Float16(1.0f);
    ar[16 * 8] = _Float16(-4096.0f), br[16 * 8] = _Float16(4096.0f);
    const auto dr = run(cfg, code, "wmma_regs", {1, 1, 1}, {32, 1, 1}, pack(kBufA, kBufB, kBufD), bytes_of(ar),
                        bytes_of(br), {}, 1024);
    float d00;
    std::memcpy(&d00, dr.data(), 4);
    const char* order = d00 == 0.0f ? "rocjitsu's (lanes 0-15 K 0-7)" : d00 == 1.0f ? "calculator's or exact" : "?";
    t.line(cfg.target, "wmma K order (D[0][0] = " + std::to_string(int(d00)) + ")", std::string("executes ") + order,
           d00 == 0.0f);
    xlane_cases(t, cfg, code);
    hidden_case(t, cfg, code);
    tid_case(t, cfg, code);
}

} // namespace

bool run_selftest(const std::string& configs_dir, const std::string& probes_dir) {
    Tally t;
    std::vector<fs::path> configs;
    for (const auto& e : fs::directory_iterator(configs_dir))
        if (e.path().extension() == ".json") configs.push_back(e.path());
    std::sort(configs.begin(), configs.end());
    std::optional<Config> gfx1201;
    std::unique_ptr<CodeObject> gfx1100_code;
    for (const fs::path& p : configs) {
        const Config cfg = read_config(p.string());
        const fs::path probe = fs::path(probes_dir) / ("probes_" + cfg.target + ".hsaco");
        const CodeObject code = CodeObject::parse(probe.string(), read_bytes(probe));
        std::printf("# %s: %s with %s\n", cfg.target.c_str(), p.filename().c_str(), probe.filename().c_str());
        if (code.target() != cfg.target) {
            t.line(cfg.target, "probe object target", code.target(), false);
            continue;
        }
        if (cfg.target.starts_with("gfx11")) {
            gfx11_cases(t, cfg, code, false);
            if (cfg.target == "gfx1100") gfx1100_code = std::make_unique<CodeObject>(code);
        } else {
            gfx12_cases(t, cfg, code);
            if (cfg.target == "gfx1201") gfx1201 = cfg;
        }
    }
    if (gfx1201 && gfx1100_code) {
        std::printf("# negative control: the gfx1100 object on the gfx1201 model\n");
        // d4r-rj-run refuses it (its target is not the config's) unless --allow-other-target; forced, it is wrong.
        t.line(gfx1201->target, "gfx1100 object: target check", "object " + gfx1100_code->target() + ", refused",
               gfx1100_code->target() != gfx1201->target);
        gfx11_cases(t, *gfx1201, *gfx1100_code, true);
    } else {
        t.line("-", "negative control", "needs gfx1100 and gfx1201 configs", false);
    }
    std::printf("self-test: %d cases, %d unexpected\n", t.cases, t.failed);
    return t.failed == 0;
}

} // namespace d4r::rj
