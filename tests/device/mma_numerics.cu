// Tensor-core numerics experiments for ptxsim (issue 4, item 2): how mma.sync rounds and accumulates
// on the GPU it runs on. Prints a Markdown report (paste it into docs/numerics.md, "Findings").
//
// Build and run on the device machine:  nvcc -O2 -arch=sm_90 -o mma_numerics mma_numerics.cu && ./mma_numerics
//
// Method (docs/numerics.md has the full description):
// 1. A layout self-test checks the fragment layouts used here against an exact integer GEMM.
// 2. Targeted probes: each is a single dot product (row 0 of A, column 0 of B, C[0][0]) built so
//    that the competing hypotheses predict different results; the report shows both predictions
//    and the observed value.
// 3. A model search: a family of accumulation models (products exact; per group of G consecutive
//    k the accumulator and the products are aligned to the largest exponent (leading bit, or the
//    exponent sum ea+eb as a hardware adder tree sees it) keeping F bits below it, the dropped bits
//    truncated toward zero or toward -inf; the aligned sum is rounded to the accumulator format
//    with RN or RZ; for FP8 also "two f16 passes, then C added", which is how ptxas lowers
//    mma.sync m16n8k32 FP8 on sm_90) is evaluated against tens of thousands of random and
//    cancellation-heavy dot products; every model that reproduces all of them is listed.
// 4. An order probe: C = -big, +big at k=P, small at k=m for every (P, m), showing which k are
//    summed in one alignment step.
// --dump FILE records the measured batches; --replay FILE reruns the analysis from them (no GPU).
#include <cuda_runtime.h>

#include "mma_models.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                                                \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                            \
        }                                                                                            \
    } while (0)

// ---- shapes ----------------------------------------------------------------------------------

enum Shape { F16_K16_F32, F16_K16_F16, BF16_K16_F32, F16_K8_F32, E4M3_K32_F32, E5M2_K32_F32, E4M3_K32_F16, kShapes };
enum InFmt { IN_F16, IN_BF16, IN_E4M3, IN_E5M2 };

struct ShapeInfo {
    const char* name;
    int k;
    InFmt in;
    bool acc_f16;
};
static const ShapeInfo kShapeInfo[kShapes] = {
    {"m16n8k16 f16 -> f32", 16, IN_F16, false},   {"m16n8k16 f16 -> f16", 16, IN_F16, true},
    {"m16n8k16 bf16 -> f32", 16, IN_BF16, false}, {"m16n8k8 f16 -> f32", 8, IN_F16, false},
    {"m16n8k32 e4m3 -> f32", 32, IN_E4M3, false}, {"m16n8k32 e5m2 -> f32", 32, IN_E5M2, false},
    {"m16n8k32 e4m3 -> f16", 32, IN_E4M3, true},
};
static int elem_bytes(InFmt f) { return (f == IN_F16 || f == IN_BF16) ? 2 : 1; }

// One test = one mma: A 16xK (row-major), B stored transposed 8xK, C and D 16x8 (f32 bits, or f16
// bits in the low half of each word). All as raw bits.
struct Mma {
    std::vector<uint32_t> a, b; // element bits
    uint32_t c[128];
    uint32_t d[128];
};

// ---- device side -----------------------------------------------------------------------------

template <int ES>
__device__ uint32_t elem(const uint8_t* p, int idx) {
    return ES == 2 ? (uint32_t(p[2 * idx]) | uint32_t(p[2 * idx + 1]) << 8) : p[idx];
}

template <int SHAPE>
__global__ void mma_kernel(const uint8_t* A, const uint8_t* B, const uint32_t* C, uint32_t* D, int count) {
    constexpr int K = SHAPE == F16_K8_F32 ? 8 : (SHAPE >= E4M3_K32_F32 ? 32 : 16);
    constexpr int ES = SHAPE >= E4M3_K32_F32 ? 1 : 2;
    constexpr bool ACC16 = SHAPE == F16_K16_F16 || SHAPE == E4M3_K32_F16;
    int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (t >= count) return;
    int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
    const uint8_t* a = A + size_t(t) * 16 * K * ES;
    const uint8_t* b = B + size_t(t) * 8 * K * ES;
    const uint32_t* c = C + size_t(t) * 128;
    uint32_t ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
    if (ES == 2 && K == 16) {
        for (int i = 0; i < 8; ++i) {
            int row = g + 8 * ((i >> 1) & 1), col = q * 2 + (i & 1) + 8 * (i >> 2);
            ra[i >> 1] |= elem<ES>(a, row * K + col) << (16 * (i & 1));
        }
        for (int i = 0; i < 4; ++i) {
            int k = q * 2 + (i & 1) + 8 * (i >> 1);
            rb[i >> 1] |= elem<ES>(b, g * K + k) << (16 * (i & 1));
        }
    } else if (ES == 2 && K == 8) {
        for (int i = 0; i < 4; ++i) {
            int row = g + 8 * (i >> 1), col = q * 2 + (i & 1);
            ra[i >> 1] |= elem<ES>(a, row * K + col) << (16 * (i & 1));
        }
        for (int i = 0; i < 2; ++i) rb[0] |= elem<ES>(b, g * K + q * 2 + i) << (16 * i);
    } else {
        for (int i = 0; i < 16; ++i) {
            int row = g + 8 * ((i >> 2) & 1), col = q * 4 + (i & 3) + 16 * (i >> 3);
            ra[i >> 2] |= elem<ES>(a, row * K + col) << (8 * (i & 3));
        }
        for (int i = 0; i < 8; ++i) {
            int k = q * 4 + (i & 3) + 16 * (i >> 2);
            rb[i >> 2] |= elem<ES>(b, g * K + k) << (8 * (i & 3));
        }
    }
    uint32_t rc[4], rd[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) rc[i] = c[(g + 8 * (i >> 1)) * 8 + q * 2 + (i & 1)];
    if (ACC16) {
        uint32_t h0 = (rc[0] & 0xffff) | rc[1] << 16, h1 = (rc[2] & 0xffff) | rc[3] << 16, d0 = 0, d1 = 0;
        if (SHAPE == F16_K16_F16)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                         : "=r"(d0), "=r"(d1)
                         : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(h0), "r"(h1));
        else
            asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                         : "=r"(d0), "=r"(d1)
                         : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(h0), "r"(h1));
        rd[0] = d0 & 0xffff, rd[1] = d0 >> 16, rd[2] = d1 & 0xffff, rd[3] = d1 >> 16;
    } else {
#define MMA_F32(instr, NA, NB)                                                                                     \
    asm volatile(instr " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                                \
                 : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])                                              \
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]), \
                   "r"(rc[2]), "r"(rc[3]))
        if (SHAPE == F16_K16_F32) MMA_F32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2);
        if (SHAPE == BF16_K16_F32) MMA_F32("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2);
        if (SHAPE == E4M3_K32_F32) MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 4, 2);
        if (SHAPE == E5M2_K32_F32) MMA_F32("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", 4, 2);
        if (SHAPE == F16_K8_F32)
            asm volatile(
                "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])
                : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]));
    }
    uint32_t* d = D + size_t(t) * 128;
    for (int i = 0; i < 4; ++i) d[(g + 8 * (i >> 1)) * 8 + q * 2 + (i & 1)] = rd[i];
}

template <int SHAPE>
static void launch_shape(const uint8_t* A, const uint8_t* B, const uint32_t* C, uint32_t* D, int n) {
    mma_kernel<SHAPE><<<(n + 3) / 4, 128>>>(A, B, C, D, n);
}

static bool emulate_mmas(Shape s, std::vector<Mma>& tests); // --selftest: a known model instead of the GPU

// --dump FILE records every batch of results; --replay FILE answers the same batches from such a
// file without a GPU, so models can be studied offline on exactly the measured data.
static std::FILE* g_dump = nullptr;
static std::FILE* g_replay = nullptr;

static void run_mmas_gpu(Shape s, std::vector<Mma>& tests);

static void run_mmas(Shape s, std::vector<Mma>& tests) {
    if (emulate_mmas(s, tests)) return;
    if (g_replay) {
        int32_t hdr[2] = {0, 0};
        if (std::fread(hdr, sizeof hdr, 1, g_replay) != 1 || hdr[0] != int32_t(s) || hdr[1] != int32_t(tests.size())) {
            std::fprintf(stderr, "replay: the recorded batches do not match this program\n");
            std::exit(1);
        }
        for (auto& t : tests)
            if (std::fread(t.d, sizeof t.d, 1, g_replay) != 1) {
                std::fprintf(stderr, "replay: truncated file\n");
                std::exit(1);
            }
        return;
    }
    run_mmas_gpu(s, tests);
    if (g_dump) {
        int32_t hdr[2] = {int32_t(s), int32_t(tests.size())};
        std::fwrite(hdr, sizeof hdr, 1, g_dump);
        for (auto& t : tests) std::fwrite(t.d, sizeof t.d, 1, g_dump);
    }
}

static void run_mmas_gpu(Shape s, std::vector<Mma>& tests) {
    const ShapeInfo& si = kShapeInfo[s];
    const int n = int(tests.size()), es = elem_bytes(si.in);
    std::vector<uint8_t> ha(size_t(n) * 16 * si.k * es), hb(size_t(n) * 8 * si.k * es);
    std::vector<uint32_t> hc(size_t(n) * 128), hd(size_t(n) * 128);
    for (int t = 0; t < n; ++t) {
        for (int i = 0; i < 16 * si.k; ++i)
            for (int byte = 0; byte < es; ++byte)
                ha[(size_t(t) * 16 * si.k + i) * es + byte] = uint8_t(tests[t].a[i] >> (8 * byte));
        for (int i = 0; i < 8 * si.k; ++i)
            for (int byte = 0; byte < es; ++byte)
                hb[(size_t(t) * 8 * si.k + i) * es + byte] = uint8_t(tests[t].b[i] >> (8 * byte));
        std::memcpy(&hc[size_t(t) * 128], tests[t].c, sizeof tests[t].c);
    }
    uint8_t *da, *db;
    uint32_t *dc, *dd;
    CUDA_CHECK(cudaMalloc(&da, ha.size()));
    CUDA_CHECK(cudaMalloc(&db, hb.size()));
    CUDA_CHECK(cudaMalloc(&dc, hc.size() * 4));
    CUDA_CHECK(cudaMalloc(&dd, hd.size() * 4));
    CUDA_CHECK(cudaMemcpy(da, ha.data(), ha.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dc, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dd, 0xCD, hd.size() * 4));
    switch (s) {
    case F16_K16_F32:
        launch_shape<F16_K16_F32>(da, db, dc, dd, n);
        break;
    case F16_K16_F16:
        launch_shape<F16_K16_F16>(da, db, dc, dd, n);
        break;
    case BF16_K16_F32:
        launch_shape<BF16_K16_F32>(da, db, dc, dd, n);
        break;
    case F16_K8_F32:
        launch_shape<F16_K8_F32>(da, db, dc, dd, n);
        break;
    case E4M3_K32_F32:
        launch_shape<E4M3_K32_F32>(da, db, dc, dd, n);
        break;
    case E5M2_K32_F32:
        launch_shape<E5M2_K32_F32>(da, db, dc, dd, n);
        break;
    case E4M3_K32_F16:
        launch_shape<E4M3_K32_F16>(da, db, dc, dd, n);
        break;
    default:
        break;
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(hd.data(), dd, hd.size() * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; ++t) std::memcpy(tests[t].d, &hd[size_t(t) * 128], sizeof tests[t].d);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
}

// ---- exact host arithmetic and models: mma_models.h ------------------------------------------

static Fmt in_fmt(InFmt f) { return f == IN_F16 ? kF16 : f == IN_BF16 ? kBF16 : f == IN_E4M3 ? kE4M3 : kE5M2; }

// ---- test construction -----------------------------------------------------------------------

struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    int range(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }
};

// Bits of +-2^e * (1 + random mantissa) in format f (normal range only).
static uint32_t rand_normal(Rng& r, Fmt f, int e) {
    int maxe = (f.ieee ? (1 << f.exp_bits) - 2 : (1 << f.exp_bits) - 1) - f.bias;
    e = std::max(1 - f.bias, std::min(maxe, e));
    uint32_t man = uint32_t(r.next()) & ((1u << f.man_bits) - 1);
    if (!f.ieee && e == maxe && man == (1u << f.man_bits) - 1) man -= 1;
    uint32_t sign = uint32_t(r.next() & 1) << (f.exp_bits + f.man_bits);
    return sign | (uint32_t(e + f.bias) << f.man_bits) | man;
}
static uint32_t enc(double v, Fmt f) { // exact values only (used for constructed probes)
    if (v == 0) return std::signbit(v) ? 1u << (f.exp_bits + f.man_bits) : 0;
    int e;
    double m = std::frexp(std::fabs(v), &e);
    i128 S = i128(std::ldexp(m, 60));
    if (v < 0) S = -S;
    return round_to(S, e - 60, f, true);
}

static Mma blank(Shape s) {
    Mma t;
    t.a.assign(16 * kShapeInfo[s].k, 0);
    t.b.assign(8 * kShapeInfo[s].k, 0);
    std::memset(t.c, 0, sizeof t.c);
    std::memset(t.d, 0, sizeof t.d);
    return t;
}

// Products and accumulator of output (i, j) as exact terms; false if any input is inf/NaN.
static bool terms_of(Shape s, const Mma& t, int i, int j, std::vector<Term>* prods, Term* c) {
    const ShapeInfo& si = kShapeInfo[s];
    const Fmt f = in_fmt(si.in), cf = si.acc_f16 ? kF16 : kF32;
    prods->clear();
    for (int k = 0; k < si.k; ++k) {
        uint32_t a = t.a[i * si.k + k], b = t.b[j * si.k + k];
        if (is_special(a, f) || is_special(b, f)) return false;
        Term ta = decode(a, f), tb = decode(b, f);
        if (si.in == IN_E4M3 || si.in == IN_E5M2) {
            // sm_90 unpacks FP8 to f16 (F2FP) before the tensor core: align by the f16 exponent.
            if (ta.m) ta.ref = std::max(lead(ta), -14);
            if (tb.m) tb.ref = std::max(lead(tb), -14);
        }
        prods->push_back(mul(ta, tb));
    }
    uint32_t cb = t.c[i * 8 + j] & (si.acc_f16 ? 0xffffu : 0xffffffffu);
    if (is_special(cb, cf)) return false;
    *c = decode(cb, cf);
    return true;
}

// Random full matrices: moderate exponents; "cancel" makes C nearly cancel the exact product sum.
static Mma random_mma(Shape s, Rng& r, bool cancel) {
    const ShapeInfo& si = kShapeInfo[s];
    const Fmt f = in_fmt(si.in);
    Mma t = blank(s);
    int lo, hi;
    switch (si.in) {
    case IN_F16:
        lo = si.acc_f16 ? -6 : -10, hi = si.acc_f16 ? 3 : 8;
        break;
    case IN_BF16:
        lo = -20, hi = 20;
        break;
    case IN_E4M3:
        lo = -6, hi = si.acc_f16 ? 3 : 8;
        break;
    default:
        lo = -14, hi = si.acc_f16 ? 3 : 15;
        break;
    }
    for (auto& v : t.a) v = (r.next() % 16 == 0) ? 0 : rand_normal(r, f, r.range(lo, hi));
    for (auto& v : t.b) v = (r.next() % 16 == 0) ? 0 : rand_normal(r, f, r.range(lo, hi));
    const Fmt cf = si.acc_f16 ? kF16 : kF32;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 8; ++j) {
            if (!cancel) {
                t.c[i * 8 + j] = (r.next() % 8 == 0) ? 0 : rand_normal(r, cf, r.range(2 * lo, 2 * hi));
                continue;
            }
            std::vector<Term> prods;
            Term c;
            t.c[i * 8 + j] = 0;
            terms_of(s, t, i, j, &prods, &c);
            int L;
            i128 S = aligned_sum(prods, 100, false, false, &L);
            uint32_t sum_bits = round_to(S, L, cf, true);
            uint32_t neg = sum_bits ^ (1u << (cf.exp_bits + cf.man_bits));
            // Nudge by a few units in the last place so the residue is tiny but not always zero.
            int nudge = r.range(-3, 3);
            if ((neg & ~(1u << (cf.exp_bits + cf.man_bits))) != 0 && nudge != 0) neg = uint32_t(int(neg) + nudge);
            t.c[i * 8 + j] = is_special(neg, cf) ? 0 : neg;
        }
    return t;
}

// ---- report helpers --------------------------------------------------------------------------

static double to_double(uint32_t bits, Fmt f) {
    if (is_special(bits, f)) {
        uint32_t man = bits & ((1u << f.man_bits) - 1);
        bool neg = (bits >> (f.exp_bits + f.man_bits)) & 1;
        if (f.ieee && man == 0) return neg ? -INFINITY : INFINITY;
        return NAN;
    }
    Term t = decode(bits, f);
    double v = std::ldexp(double(t.m), t.e);
    return t.neg ? -v : v;
}
static std::string show(uint32_t bits, bool f16) {
    char buf[96];
    const Fmt f = f16 ? kF16 : kF32;
    std::snprintf(buf, sizeof buf, "%.9g (0x%0*x)", to_double(bits, f), f16 ? 4 : 8, bits);
    return buf;
}

// A probe is one dot product in row 0 of A / column 0 of B / C[0][0]; everything else is zero.
struct Probe {
    std::string what;
    std::vector<std::pair<int, double>> prods; // (k, exact product value), split into a_k * b_k
    double c = 0;
    bool use_c_bits = false;
    uint32_t c_bits = 0;
    std::vector<std::pair<int, uint32_t>> a_bits, b_bits; // raw input bits (specials, denormals)
};

static bool exact_in(double x, Fmt f, bool normal_only) {
    uint32_t bits = enc(x, f);
    if (is_special(bits, f) || to_double(bits, f) != x) return false;
    if (normal_only && x != 0 && ((bits >> f.man_bits) & ((1u << f.exp_bits) - 1)) == 0) return false;
    return true;
}

// Writes v = a * b with a, b exactly representable (normal numbers when possible) into k.
static void split_product(double v, Fmt f, uint32_t* a, uint32_t* b) {
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i <= 80; ++i) {
            int s = (i & 1) ? -(i + 1) / 2 : i / 2;
            double x = std::ldexp(v, -s), y = std::ldexp(1.0, s);
            if (exact_in(x, f, pass == 0) && exact_in(y, f, pass == 0)) {
                *a = enc(x, f);
                *b = enc(y, f);
                return;
            }
        }
    *a = enc(v, f);
    *b = enc(1.0, f);
}

static Probe products(const std::string& what, std::vector<std::pair<int, double>> pk, double c = 0) {
    Probe p;
    p.what = what;
    p.prods = std::move(pk);
    p.c = c;
    return p;
}

static Mma build_probe(Shape s, const Probe& p) {
    const ShapeInfo& si = kShapeInfo[s];
    const Fmt f = in_fmt(si.in), cf = si.acc_f16 ? kF16 : kF32;
    Mma t = blank(s);
    for (auto& kv : p.prods) split_product(kv.second, f, &t.a[kv.first], &t.b[kv.first]);
    for (auto& kv : p.a_bits) t.a[kv.first] = kv.second;
    for (auto& kv : p.b_bits) t.b[kv.first] = kv.second;
    t.c[0] = p.use_c_bits ? p.c_bits : enc(p.c, cf);
    return t;
}

static std::vector<Mma> run_probes(Shape s, const std::vector<Probe>& probes) {
    std::vector<Mma> tests;
    for (auto& p : probes) tests.push_back(build_probe(s, p));
    run_mmas(s, tests);
    return tests;
}

// Keeps the models that also predict every finite probe exactly (probes target corners that random
// data rarely reaches, such as an f16 tie with a sticky bit far below it).
static std::vector<Model> consistent_with_probes(Shape s, const std::vector<Model>& fits,
                                                 const std::vector<Mma>& tests) {
    const bool f16 = kShapeInfo[s].acc_f16;
    std::vector<Model> kept;
    for (const Model& m : fits) {
        bool ok = true;
        for (const Mma& t : tests) {
            std::vector<Term> prods;
            Term c;
            if (!terms_of(s, t, 0, 0, &prods, &c)) continue;
            uint32_t want = model_eval(m, prods, c, f16), got = t.d[0] & (f16 ? 0xffffu : 0xffffffffu);
            uint32_t zm = f16 ? 0x7fffu : 0x7fffffffu;
            if (want != got && !((want & zm) == 0 && (got & zm) == 0)) ok = false;
        }
        if (ok) kept.push_back(m);
    }
    return kept;
}

static void print_probe_rows(Shape s, const std::vector<Probe>& probes, const std::vector<Mma>& tests,
                             const std::vector<Model>& fits) {
    const bool f16 = kShapeInfo[s].acc_f16;
    std::printf("| probe | exact sum, rounded once (RN) | observed | %s |\n|---|---|---|---|\n",
                fits.empty() ? "no fitting model" : "first fitting model predicts");
    for (size_t i = 0; i < probes.size(); ++i) {
        std::vector<Term> prods;
        Term c;
        std::string exact = "(special)", pred = "-";
        if (terms_of(s, tests[i], 0, 0, &prods, &c)) {
            Model ex{100, kShapeInfo[s].k, false, true, false, false};
            exact = show(model_eval(ex, prods, c, f16), f16);
            if (!fits.empty()) pred = show(model_eval(fits[0], prods, c, f16), f16);
        }
        std::printf("| %s | %s | %s | %s |\n", probes[i].what.c_str(), exact.c_str(), show(tests[i].d[0], f16).c_str(),
                    pred.c_str());
    }
    std::printf("\n");
}

// ---- the experiments -------------------------------------------------------------------------

static bool layout_self_test(Shape s) {
    const ShapeInfo& si = kShapeInfo[s];
    const Fmt f = in_fmt(si.in), cf = si.acc_f16 ? kF16 : kF32;
    Rng r{1234 + uint64_t(s)};
    std::vector<Mma> tests(4, blank(s));
    for (auto& t : tests) {
        for (auto& v : t.a) v = enc(double(r.range(-3, 3)), f);
        for (auto& v : t.b) v = enc(double(r.range(-3, 3)), f);
        for (auto& v : t.c) v = enc(double(r.range(-20, 20)), cf);
    }
    run_mmas(s, tests);
    int bad = 0;
    for (auto& t : tests)
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                double want = to_double(t.c[i * 8 + j], cf);
                for (int k = 0; k < si.k; ++k)
                    want += to_double(t.a[i * si.k + k], f) * to_double(t.b[j * si.k + k], f);
                if (to_double(t.d[i * 8 + j], cf) != want) ++bad;
            }
    return bad == 0;
}

static std::vector<Model> model_search(Shape s, int* points, int* specials_skipped) {
    const ShapeInfo& si = kShapeInfo[s];
    Rng r{42 + uint64_t(s) * 1000};
    std::vector<Mma> tests;
    for (int i = 0; i < 192; ++i) tests.push_back(random_mma(s, r, i % 2 == 1));
    run_mmas(s, tests);
    std::vector<Model> models;
    // Ordered so that, among models that fit equally, the first listed is the one the other shapes
    // single out (exponent-sum alignment, 25 bits, truncation).
    for (int ex = 1; ex >= 0; --ex)
        for (int F : {25, 24, 26, 23, 27, 22, 28, 30, 32, 100})
            for (int fl = 0; fl < 2; ++fl)
                for (int rn = 0; rn < 2; ++rn) {
                    for (int via = 0; via < (si.acc_f16 ? 2 : 1); ++via) {
                        if (si.in == IN_E4M3 || si.in == IN_E5M2)
                            models.push_back({F, 16, fl == 1, rn == 1, false, false, ex == 1, true, via == 1});
                        for (int G = 1; G <= si.k; G *= 2)
                            for (int cl = 0; cl < 2; ++cl)
                                for (int mid = 0; mid < (si.acc_f16 ? 2 : 1); ++mid)
                                    models.push_back(
                                        {F, G, fl == 1, rn == 1, cl == 1, mid == 1, ex == 1, false, via == 1});
                    }
                }
    std::vector<int> misses(models.size(), 0);
    *points = 0;
    *specials_skipped = 0;
    std::vector<Term> prods;
    Term c;
    for (auto& t : tests)
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                if (!terms_of(s, t, i, j, &prods, &c)) {
                    ++*specials_skipped;
                    continue;
                }
                ++*points;
                uint32_t got = t.d[i * 8 + j] & (si.acc_f16 ? 0xffffu : 0xffffffffu);
                uint32_t zero_mask = si.acc_f16 ? 0x7fffu : 0x7fffffffu;
                for (size_t m = 0; m < models.size(); ++m) {
                    if (misses[m] > 0) continue; // already ruled out
                    uint32_t want = model_eval(models[m], prods, c, si.acc_f16);
                    bool both_zero = (want & zero_mask) == 0 && (got & zero_mask) == 0;
                    if (want != got && !both_zero) ++misses[m];
                }
            }
    std::vector<Model> fits;
    for (size_t m = 0; m < models.size(); ++m)
        if (misses[m] == 0) fits.push_back(models[m]);
    return fits;
}

static std::vector<Probe> probes_for(Shape s) {
    const ShapeInfo& si = kShapeInfo[s];
    const int K = si.k;
    const Fmt f = in_fmt(si.in);
    std::vector<Probe> v;
    auto p2 = [](int e) { return std::ldexp(1.0, e); };
    if (si.acc_f16) {
        v.push_back(products("1 + 2^-11 (f16 tie: RN-even gives 1)", {{0, 1.0}, {1, p2(-11)}}));
        v.push_back(products("1 + 2^-10 + 2^-11 (f16 tie: RN-even rounds up)", {{0, 1.0}, {1, p2(-10)}, {2, p2(-11)}}));
        v.push_back(products("-(1 + 2^-10 + 2^-11) (negative tie)", {{0, -1.0}, {1, -p2(-10)}, {2, -p2(-11)}}));
        v.push_back(products("1 + 2^-11 at k=1 and k=2 (same half of k)", {{0, 1.0}, {1, p2(-11)}, {2, p2(-11)}}));
        if (si.in == IN_F16) { // 2^-24 is a product of two normal inputs only for f16
            v.push_back(products("1 + 2^-11 + 2^-24 (tie + sticky: direct RN 0x3c01, via f32 RZ 0x3c00)",
                                 {{0, 1.0}, {1, p2(-11)}, {2, p2(-24)}}));
            v.push_back(products("1 + 2^-11 - 2^-24 (just below the tie: 0x3c00 both ways)",
                                 {{0, 1.0}, {1, p2(-11)}, {2, -p2(-24)}}));
            v.push_back(products("1 + 2^-10 + 2^-11 - 2^-24 (below an odd tie: 0x3c01 both ways)",
                                 {{0, 1.0}, {1, p2(-10)}, {2, p2(-11)}, {3, -p2(-24)}}));
        }
        v.push_back(products("1 + 2^-11 at k=1 and k=K/2 (rounded between the halves?)",
                             {{0, 1.0}, {1, p2(-11)}, {K / 2, p2(-11)}}));
        v.push_back(products("1 + 2^-11 at k=1 and k=K-1", {{0, 1.0}, {1, p2(-11)}, {K - 1, p2(-11)}}));
        v.push_back(products("C=1, products 2^-11 at k=0 and k=K-1", {{0, p2(-11)}, {K - 1, p2(-11)}}, 1.0));
        v.push_back(products("C=65504 + 16 (halfway to 65536)", {{0, 16.0}}, 65504.0));
        v.push_back(products("C=65504 + 8 (below halfway)", {{0, 8.0}}, 65504.0));
        v.push_back(products("C=65504 + 64 (overflow)", {{0, 64.0}}, 65504.0));
        v.push_back(products("product 2^-16 (f16 denormal result)", {{0, p2(-16)}}));
        Probe dc = products("C = 2^-24 (f16 denormal accumulator), no products", {});
        dc.use_c_bits = true;
        dc.c_bits = 0x0001;
        v.push_back(dc);
        Probe dn = products("denormal input: smallest positive input * 1", {});
        dn.a_bits = {{0, 1u}};
        dn.b_bits = {{0, enc(1.0, f)}};
        v.push_back(dn);
        const uint32_t sign = 1u << (f.exp_bits + f.man_bits);
        if (f.ieee) {
            Probe p = products("inf * 1", {});
            p.a_bits = {{0, ((1u << f.exp_bits) - 1) << f.man_bits}};
            p.b_bits = {{0, enc(1.0, f)}};
            v.push_back(p);
        }
        Probe p = products("NaN input (payload 1) * 1", {});
        p.a_bits = {{0, f.ieee ? (((1u << f.exp_bits) - 1) << f.man_bits) | 1u : sign - 1}};
        p.b_bits = {{0, enc(1.0, f)}};
        v.push_back(p);
        p = products("C = NaN 0x7e55, product 1", {{0, 1.0}});
        p.use_c_bits = true;
        p.c_bits = 0x7e55;
        v.push_back(p);
        p = products("C = -inf, product 1", {{0, 1.0}});
        p.use_c_bits = true;
        p.c_bits = 0xfc00;
        v.push_back(p);
        return v;
    }
    // Exactness of one product with a long mantissa, and of one outside the input format's range.
    if (si.in == IN_F16) {
        Probe p = products("(1+2^-10)^2 = 1 + 2^-9 + 2^-20 (product exact?)", {});
        p.a_bits = {{0, enc(1 + p2(-10), f)}};
        p.b_bits = {{0, enc(1 + p2(-10), f)}};
        v.push_back(p);
        p = products("256 * 512 = 131072 (beyond f16)", {});
        p.a_bits = {{0, enc(256, f)}};
        p.b_bits = {{0, enc(512, f)}};
        v.push_back(p);
    } else if (si.in == IN_BF16) {
        Probe p = products("(1+2^-7)^2 = 1 + 2^-6 + 2^-14 (product exact?)", {});
        p.a_bits = {{0, enc(1 + p2(-7), f)}};
        p.b_bits = {{0, enc(1 + p2(-7), f)}};
        v.push_back(p);
    } else {
        Probe p = products("1.75 * 1.75 = 3.0625 (product exact?)", {});
        p.a_bits = {{0, enc(1.75, f)}};
        p.b_bits = {{0, enc(1.75, f)}};
        v.push_back(p);
    }
    // Precision of the k-sum: +big, big*2^-j, -big at k = 0, 1, 2 (the smallest term still a product
    // of two normal inputs).
    const double big = si.in == IN_E4M3 ? p2(16) : p2(30);
    const int max_j = si.in == IN_E4M3 ? 28 : 48;
    for (int j : {20, 23, 24, 25, 26, 27, 28, 30, 32, 36, 40, 48}) {
        if (j > max_j) continue;
        v.push_back(products("big, big*2^-" + std::to_string(j) + ", -big at k=0,1,2",
                             {{0, big}, {1, std::ldexp(big, -j)}, {2, -big}}));
    }
    // Order and grouping: a cancelling pair at k=0,1, and a small term at k=m; then the pair at the end.
    const double small = std::ldexp(big, -std::min(28, max_j));
    for (int m : {2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31}) {
        if (m >= K) continue;
        v.push_back(
            products("+big, -big at k=0,1; small at k=" + std::to_string(m), {{0, big}, {1, -big}, {m, small}}));
    }
    for (int m : {0, 1, 4, 8, 15, 16, 24, 29}) {
        if (m >= K - 2) continue;
        v.push_back(products("small at k=" + std::to_string(m) + "; +big, -big at k=K-2,K-1",
                             {{m, small}, {K - 2, big}, {K - 1, -big}}));
    }
    v.push_back(products("C=small with +big, -big products (is C aligned with them?)", {{0, big}, {1, -big}}, small));
    v.push_back(products("C=big with products small, -big (C inside the alignment?)", {{0, small}, {1, -big}}, big));
    v.push_back(products("C=2^24, product 3 (RN: 2^24+4, RZ: 2^24+2)", {{0, 3.0}}, p2(24)));
    v.push_back(products("C=-2^24, product -3", {{0, -3.0}}, -p2(24)));
    v.push_back(products("C=2^24, product 5 (tie: RN-even 2^24+4, RNA 2^24+6)", {{0, 5.0}}, p2(24)));
    v.push_back(products("C=2^24, product -2^-10 (dropped bits toward 0 or -inf?)", {{0, -p2(-10)}}, p2(24)));
    v.push_back(products("C=-2^24, product 2^-10", {{0, p2(-10)}}, -p2(24)));
    v.push_back(products("C=1, products 2^-24 at k=0 and k=1 (sticky/guard bits)", {{0, p2(-24)}, {1, p2(-24)}}, 1.0));
    v.push_back(products("product 1 + C=-1 (sign of an exact zero)", {{0, 1.0}}, -1.0));
    v.push_back(products("products -1, +1 and C=-0", {{0, -1.0}, {1, 1.0}}, -0.0));
    // Denormals.
    {
        Probe p = products("denormal input: smallest positive input * 1", {});
        p.a_bits = {{0, 1u}};
        p.b_bits = {{0, enc(1.0, f)}};
        v.push_back(p);
        p = products("denormal input: smallest positive input * 2^4", {});
        p.a_bits = {{0, 1u}};
        p.b_bits = {{0, enc(16.0, f)}};
        v.push_back(p);
    }
    if (si.in == IN_BF16) v.push_back(products("product 2^-130 (f32 denormal result)", {{0, p2(-130)}}));
    {
        Probe p = products("C = 2^-140 (f32 denormal), no products", {});
        p.use_c_bits = true;
        p.c_bits = 0x00000200;
        v.push_back(p);
        p = products("C = 2^-140 (f32 denormal) + product 2^-10", {{0, p2(-10)}});
        p.use_c_bits = true;
        p.c_bits = 0x00000200;
        v.push_back(p);
    }
    // NaN and infinity.
    const uint32_t sign = 1u << (f.exp_bits + f.man_bits);
    const uint32_t inf = f.ieee ? ((1u << f.exp_bits) - 1) << f.man_bits : 0;
    const uint32_t nan = f.ieee ? (((1u << f.exp_bits) - 1) << f.man_bits) | 1u : sign - 1;
    if (f.ieee) {
        Probe p = products("inf * 1", {});
        p.a_bits = {{0, inf}};
        p.b_bits = {{0, enc(1.0, f)}};
        v.push_back(p);
        p.what = "inf * 0";
        p.b_bits = {{0, 0u}};
        v.push_back(p);
        p = products("inf*1 + (-inf)*1 at k=0,1", {});
        p.a_bits = {{0, inf}, {1, inf | sign}};
        p.b_bits = {{0, enc(1.0, f)}, {1, enc(1.0, f)}};
        v.push_back(p);
    }
    {
        Probe p = products("NaN input (payload 1) * 1", {});
        p.a_bits = {{0, nan}};
        p.b_bits = {{0, enc(1.0, f)}};
        v.push_back(p);
        p = products("C = NaN 0x7fc12345, product 1", {{0, 1.0}});
        p.use_c_bits = true;
        p.c_bits = 0x7fc12345;
        v.push_back(p);
        p = products("C = -inf, product 1", {{0, 1.0}});
        p.use_c_bits = true;
        p.c_bits = 0xff800000;
        v.push_back(p);
        p = products("C = FLT_MAX, product 2^30 (overflow?)", {{0, p2(30)}});
        if (si.in == IN_E4M3) p.prods = {{0, p2(16)}};
        p.use_c_bits = true;
        p.c_bits = 0x7f7fffff;
        v.push_back(p);
    }
    return v;
}

// Processing order of the k-sum: C = -big, +big at k=P and a small product at k=m. When C is the
// initial accumulator and the k-sum proceeds group after group, aligning each group to its largest
// exponent, the small term survives exactly when m's group comes after P's group (in the same or an
// earlier group it is shifted out next to big). Prints the survival matrix and the groups it implies.
static void order_matrix(Shape s) {
    const ShapeInfo& si = kShapeInfo[s];
    const int K = si.k;
    const double big = si.acc_f16 ? std::ldexp(1.0, 14) : si.in == IN_E4M3 ? std::ldexp(1.0, 16) : std::ldexp(1.0, 30);
    const double small = si.acc_f16 ? std::ldexp(1.0, -12) : std::ldexp(big, -28);
    std::vector<Probe> probes;
    for (int P = 0; P < K; ++P)
        for (int m = 0; m < K; ++m)
            if (m != P) probes.push_back(products("", {{P, big}, {m, small}}, -big));
    std::vector<Mma> tests;
    for (auto& p : probes) tests.push_back(build_probe(s, p));
    run_mmas(s, tests);
    const Fmt out = si.acc_f16 ? kF16 : kF32;
    std::vector<std::string> rows(K, std::string(K, '-'));
    int odd = 0;
    size_t idx = 0;
    for (int P = 0; P < K; ++P)
        for (int m = 0; m < K; ++m) {
            if (m == P) continue;
            double d = to_double(tests[idx++].d[0] & (si.acc_f16 ? 0xffffu : 0xffffffffu), out);
            rows[P][m] = d == small ? '1' : d == 0 ? '.' : '?';
            odd += d != small && d != 0;
        }
    std::printf("Order probe (C=-big, +big at k=P, small at k=m; '1': small survives, '.': lost, '-': m=P):\n\n```\n");
    for (int P = 0; P < K; ++P) std::printf("P=%2d %s\n", P, rows[P].c_str());
    std::printf("```\n\n");
    // Positions whose rows agree (ignoring each other's column) form one group; earlier groups have
    // more survivors.
    std::vector<int> group(K, -1);
    std::vector<std::vector<int>> groups;
    for (int P = 0; P < K; ++P) {
        if (group[P] >= 0) continue;
        group[P] = int(groups.size());
        groups.push_back({P});
        for (int Q = P + 1; Q < K; ++Q) {
            bool same = group[Q] < 0;
            for (int m = 0; m < K && same; ++m)
                if (m != P && m != Q && rows[P][m] != rows[Q][m]) same = false;
            if (same && rows[P][Q] == '.' && rows[Q][P] == '.') {
                group[Q] = group[P];
                groups.back().push_back(Q);
            }
        }
    }
    auto survivors = [&](int P) { return int(std::count(rows[P].begin(), rows[P].end(), '1')); };
    std::sort(groups.begin(), groups.end(),
              [&](const std::vector<int>& a, const std::vector<int>& b) { return survivors(a[0]) > survivors(b[0]); });
    std::printf("- Groups in processing order implied by the matrix (%zu):", groups.size());
    for (auto& g : groups) {
        std::printf(" {");
        for (size_t i = 0; i < g.size(); ++i) std::printf("%s%d", i ? "," : "", g[i]);
        std::printf("}");
    }
    std::printf("%s\n\n",
                odd ? " — some results were neither small nor 0 ('?'), so the group picture is incomplete" : "");
}

// The first fitting model in words.
static std::string reading(const Model& m, const ShapeInfo& si) {
    const char* acc = si.acc_f16 ? "f16" : "f32";
    char buf[700];
    std::string pass = std::string("products exact; the accumulator and the products aligned to the largest ") +
                       (m.expsum ? "exponent sum (ea+eb; the accumulator's own exponent)" : "leading bit") +
                       ", keeping " + (m.F >= 100 ? std::string("every bit") : std::to_string(m.F) + " bits below it") +
                       ", lower bits " + (m.floor ? "floored (toward -inf)" : "truncated toward zero") +
                       ", the sum rounded " + (m.rn ? "to nearest-even" : "toward zero") + " to " + acc;
    if (m.split_fp8) {
        std::snprintf(buf, sizeof buf,
                      "computed as two k16 f16 tensor-core passes, the low byte pair of every "
                      "A/B register (k mod 4 in {0,1}) first, from a zero accumulator; each pass: %s; then C "
                      "added by an IEEE add (round to nearest-even)",
                      pass.c_str());
    } else if (m.G >= si.k) {
        std::snprintf(buf, sizeof buf, "one step for all %d products and C (C=%s): %s", si.k,
                      m.c_last ? "added after the products" : "inside the alignment", pass.c_str());
    } else {
        std::snprintf(buf, sizeof buf, "groups of %d consecutive k, each: %s", m.G, pass.c_str());
    }
    return buf;
}

// --selftest: the "hardware" is a known model, so the search must find it (and the probes must
// show what that model predicts). Runs without a GPU.
static const Model* g_emulated = nullptr;

static bool emulate_mmas(Shape s, std::vector<Mma>& tests) {
    if (!g_emulated) return false;
    const bool f16 = kShapeInfo[s].acc_f16;
    for (auto& t : tests)
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                std::vector<Term> prods;
                Term c;
                t.d[i * 8 + j] = terms_of(s, t, i, j, &prods, &c) ? model_eval(*g_emulated, prods, c, f16)
                                                                  : (f16 ? 0x7fffu : 0x7fffffffu);
            }
    return true;
}

static int selftest() {
    const Model known[] = {{25, 4, false, false, false, false},
                           {100, 16, false, true, false, false},
                           {24, 1, true, true, true, false},
                           {25, 16, false, false, false, false, true, false},
                           {25, 16, false, false, false, false, true, true}};
    int failures = 0;
    for (const Model& m : known) {
        g_emulated = &m;
        for (Shape s : {F16_K16_F32, E4M3_K32_F32}) {
            if (m.split_fp8 && s != E4M3_K32_F32) continue;
            int points = 0, skipped = 0;
            auto fits = model_search(s, &points, &skipped);
            bool found = false;
            for (const auto& f : fits)
                found |= f.F == m.F && f.G == m.G && f.floor == m.floor && f.rn == m.rn && f.c_last == m.c_last &&
                         f.expsum == m.expsum && f.split_fp8 == m.split_fp8;
            std::printf("selftest %-22s emulating `%s`: %zu fit(s) over %d points, %s\n", kShapeInfo[s].name,
                        describe(m, false).c_str(), fits.size(), points, found ? "found" : "NOT FOUND");
            failures += !found;
        }
    }
    g_emulated = nullptr;
    return failures ? 1 : 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--selftest") == 0) return selftest();
    if (argc > 2 && std::strcmp(argv[1], "--dump") == 0) g_dump = std::fopen(argv[2], "wb");
    if (argc > 2 && std::strcmp(argv[1], "--replay") == 0) {
        g_replay = std::fopen(argv[2], "rb");
        if (!g_replay) {
            std::fprintf(stderr, "cannot read %s\n", argv[2]);
            return 1;
        }
        std::printf("## mma.sync numerics REPLAYED from %s\n\n", argv[2]);
    }
    static const Model kEmulated = {25, 4, false, false, false, false};
    if (argc > 1 && std::strcmp(argv[1], "--emulate") == 0) {
        // The whole report with a known model in place of the GPU (to review the report itself).
        g_emulated = &kEmulated;
        std::printf("## mma.sync numerics EMULATED with `%s` (no GPU; a test of the report)\n\n",
                    describe(kEmulated, false).c_str());
    } else if (!g_replay) {
        cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        int driver = 0;
        cudaDriverGetVersion(&driver);
        std::printf("## mma.sync numerics measured on %s (sm_%d%d, driver API %d.%d)\n\n", prop.name, prop.major,
                    prop.minor, driver / 1000, (driver % 1000) / 10);
    }
    std::printf("Generated by `tests/device/mma_numerics.cu`. Model notation: products are exact; per group of G\n"
                "consecutive k, the running accumulator and the group's products are aligned to the largest\n"
                "exponent keeping F bits below its leading bit (drop=trunc: dropped bits truncated toward zero,\n"
                "floor: toward -inf), summed exactly and rounded to the accumulator format (RN-even or RZ);\n"
                "C=first: C is the initial accumulator, C=last: C is added after all products; for f16\n"
                "accumulators mid= is the format of the accumulator between groups.\n\n");
    for (int si = 0; si < kShapes; ++si) {
        Shape s = Shape(si);
        std::printf("### %s\n\n", kShapeInfo[s].name);
        bool layout_ok = layout_self_test(s);
        std::printf("- Fragment layout self-test (small integers, exact GEMM): **%s**\n", layout_ok ? "pass" : "FAIL");
        int points = 0, skipped = 0;
        std::vector<Model> fits = model_search(s, &points, &skipped);
        std::vector<Probe> probes = probes_for(s);
        std::vector<Mma> probe_results = run_probes(s, probes);
        size_t random_fits = fits.size();
        fits = consistent_with_probes(s, fits, probe_results);
        std::printf("- Model search over %d dot products (random + cancellation-heavy): %zu model(s) fit them, "
                    "**%zu also every probe below**",
                    points, random_fits, fits.size());
        if (fits.empty())
            std::printf(" — none of the candidate models reproduces the hardware; see the probes.\n");
        else
            std::printf(":\n");
        for (size_t i = 0; i < fits.size() && i < 12; ++i)
            std::printf("  - `%s`\n", describe(fits[i], kShapeInfo[s].acc_f16).c_str());
        if (fits.size() > 12) std::printf("  - … and %zu more\n", fits.size() - 12);
        if (!fits.empty()) std::printf("- Reading: %s\n", reading(fits[0], kShapeInfo[s]).c_str());
        std::printf("\n");
        print_probe_rows(s, probes, probe_results, fits);
        order_matrix(s);
    }
    return 0;
}
