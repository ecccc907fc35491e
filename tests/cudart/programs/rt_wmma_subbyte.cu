// Runtime API conformance: the sub-byte warp matrix operations of nvcuda::wmma::experimental (sm_75 and
// later): m8n8k32 with s4 and u4 inputs (wrapping and saturating), m8n8k128 with b1 inputs (XOR and AND
// popcounts), with padded strides, a K loop over a wider matrix, and element-wise use of the accumulator
// fragment. Every result is compared with an exact host computation, then printed as a digest and a
// few values, so the golden holds the H200's answers.
#include <climits>
#include <cstdio>
#include <mma.h>
#include <vector>

#include "rt_check.h"

using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

// Accumulator strides (int elements): wider than the 8 columns, so a wrong stride shows.
constexpr unsigned kLdc = 12, kLdd = 10;

// D = A * B + 3 * C for one 8x8 tile: A row-major (LDA elements apart), B column-major (LDB), K / KTILE
// steps along K; C and D row-major. KTILE: 32 (s4/u4) or 128 (b1). OP: 1 = .satfinite (s4/u4) or XOR
// (b1), 2 = AND (b1). Strides are multiples of 16 bytes, as CUDA's load_matrix_sync asks.
template <typename P, int KTILE>
__global__ void sub_mma(const unsigned char* a, const unsigned char* b, const int* c, int* d, unsigned lda,
                        unsigned ldb, int k, int op) {
    wmma::fragment<wmma::matrix_a, 8, 8, KTILE, P, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, KTILE, P, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, KTILE, int> fc;
    wmma::load_matrix_sync(fc, c, kLdc, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = fc.x[i] * 3;
    constexpr int kStepBytes = 16; // one K step: 32 four-bit or 128 one-bit elements
    for (int s = 0; s < k / KTILE; ++s) {
        wmma::load_matrix_sync(fa, a + s * kStepBytes, lda);
        wmma::load_matrix_sync(fb, b + s * kStepBytes, ldb);
        if constexpr (KTILE == 128) {
            if (op == 2)
                wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND, wx::bmmaAccumulateOpPOPC);
            else
                wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpXOR, wx::bmmaAccumulateOpPOPC);
        } else {
            wmma::mma_sync(fc, fa, fb, fc, op == 1);
        }
    }
    wmma::store_matrix_sync(d, fc, kLdd, wmma::mem_row_major);
}

// Deterministic pseudo-random bytes.
static unsigned char byte_at(int i, int salt) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ static_cast<unsigned>(salt) * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return static_cast<unsigned char>(x >> 7);
}

enum class Kind { S4, U4, B1Xor, B1And };

// Element K of line L (a row of A or a column of B) of a packed matrix, lines STRIDE elements apart.
static int element(const std::vector<unsigned char>& m, unsigned stride, int line, int k, Kind kind) {
    const bool bit = kind == Kind::B1Xor || kind == Kind::B1And;
    const size_t index = static_cast<size_t>(line) * stride + static_cast<size_t>(k);
    if (bit) return (m[index / 8] >> (index % 8)) & 1;
    const int v = (m[index / 2] >> (4 * (index % 2))) & 15;
    return kind == Kind::S4 && v >= 8 ? v - 16 : v;
}

// C near the int32 limits where EXTREME (the saturation cases), else small.
static int c_value(int i, int j, int salt, bool extreme) {
    const int small = static_cast<int>(byte_at(i * 8 + j, salt)) * 37 - 4000;
    if (!extreme) return small;
    if ((i + j) % 3 == 0) return INT_MAX / 3 - 20 + j; // times 3 in the kernel: within 62 of INT_MAX
    if ((i + j) % 3 == 1) return INT_MIN / 3 + 20 - i; // within 62 of INT_MIN
    return small;
}

static void run(const char* name, Kind kind, unsigned lda, unsigned ldb, int k, bool satf, bool extreme, int salt) {
    const bool bit = kind == Kind::B1Xor || kind == Kind::B1And;
    const size_t a_bytes = (static_cast<size_t>(lda) * 8) / (bit ? 8 : 2);
    const size_t b_bytes = (static_cast<size_t>(ldb) * 8) / (bit ? 8 : 2);
    std::vector<unsigned char> a(a_bytes), b(b_bytes);
    for (size_t i = 0; i < a.size(); ++i) a[i] = byte_at(static_cast<int>(i), salt);
    for (size_t i = 0; i < b.size(); ++i) b[i] = byte_at(static_cast<int>(i), salt + 1);
    std::vector<int> c(8 * kLdc, 0x5a5a5a5a), d(8 * kLdd, 0x5a5a5a5a);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) c[i * kLdc + j] = c_value(i, j, salt + 2, extreme);

    unsigned char *da = nullptr, *db = nullptr;
    int *dc = nullptr, *dd = nullptr;
    CHECK(cudaMalloc(&da, a.size()));
    CHECK(cudaMalloc(&db, b.size()));
    CHECK(cudaMalloc(&dc, c.size() * sizeof(int)));
    CHECK(cudaMalloc(&dd, d.size() * sizeof(int)));
    CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, d.data(), d.size() * sizeof(int), cudaMemcpyHostToDevice));
    switch (kind) {
    case Kind::S4:
        sub_mma<wx::precision::s4, 32><<<1, 32>>>(da, db, dc, dd, lda, ldb, k, satf ? 1 : 0);
        break;
    case Kind::U4:
        sub_mma<wx::precision::u4, 32><<<1, 32>>>(da, db, dc, dd, lda, ldb, k, satf ? 1 : 0);
        break;
    case Kind::B1Xor:
        sub_mma<wx::precision::b1, 128><<<1, 32>>>(da, db, dc, dd, lda, ldb, k, 1);
        break;
    case Kind::B1And:
        sub_mma<wx::precision::b1, 128><<<1, 32>>>(da, db, dc, dd, lda, ldb, k, 2);
        break;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(int), cudaMemcpyDeviceToHost));

    // The exact result: 3 * C (wrapping), then each K step added (clamped per step with .satfinite).
    const int ktile = bit ? 128 : 32;
    int mismatches = 0, limited = 0;
    long long sum = 0;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            int acc = static_cast<int>(3u * static_cast<unsigned>(c[i * kLdc + j]));
            for (int s = 0; s < k / ktile; ++s) {
                long long t = acc;
                for (int kk = s * ktile; kk < (s + 1) * ktile; ++kk) {
                    const int x = element(a, lda, i, kk, kind), y = element(b, ldb, j, kk, kind);
                    t += kind == Kind::B1Xor ? (x ^ y) : kind == Kind::B1And ? (x & y) : x * y;
                }
                if (t > INT_MAX || t < INT_MIN) ++limited;
                if (satf) t = t > INT_MAX ? INT_MAX : t < INT_MIN ? INT_MIN : t;
                acc = static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(t)));
            }
            const int got = d[i * kLdd + j];
            if (got != acc && mismatches++ < 4)
                EXPECT(false, "%s: D[%d][%d] = %d, the exact result is %d", name, i, j, got, acc);
            sum += got;
        }
    EXPECT(mismatches == 0, "%s: %d of 64 results differ from the exact ones", name, mismatches);
    EXPECT(!extreme || limited > 0, "%s: no sum left the int32 range", name);
    EXPECT(d[8] == 0x5a5a5a5a, "%s: the stride's padding of D was written", name);
    print_digest(name, d.data(), d.size() * sizeof(int));
    std::printf("%s: D[0][0] %d D[3][5] %d D[7][7] %d sum %lld\n", name, d[0], d[3 * kLdd + 5], d[7 * kLdd + 7], sum);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dd));
}

int main() {
    // name, kind, lda, ldb (elements), K, satfinite, C near the limits, salt
    run("s4_m8n8k32", Kind::S4, 32, 32, 32, false, false, 1);
    run("s4_m8n8k32_padded", Kind::S4, 64, 96, 32, false, false, 2);
    run("s4_k128_loop", Kind::S4, 128, 160, 128, false, false, 3);
    run("s4_wrap", Kind::S4, 32, 32, 32, false, true, 4);
    run("s4_satfinite", Kind::S4, 32, 64, 32, true, true, 4);
    run("u4_m8n8k32", Kind::U4, 32, 32, 32, false, false, 5);
    run("u4_k96_loop", Kind::U4, 128, 96, 96, false, false, 6);
    run("u4_satfinite", Kind::U4, 32, 32, 32, true, true, 7);
    run("b1_xor_m8n8k128", Kind::B1Xor, 128, 128, 128, false, false, 8);
    run("b1_xor_k512_loop", Kind::B1Xor, 512, 640, 512, false, false, 9);
    run("b1_and_m8n8k128", Kind::B1And, 128, 128, 128, false, false, 10);
    run("b1_and_padded", Kind::B1And, 256, 384, 256, false, false, 11);
    return finish("rt_wmma_subbyte");
}
