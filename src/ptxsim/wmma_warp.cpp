// The arithmetic of wmma.mma (wmma_warp.h; the rules are ops_wmma.cpp's header): the vector tiles of
// numerics/mma_tile.h where they apply (f64, and f16/bf16/tf32 inputs with f32 accumulators), the scalar rule
// otherwise; both give the same bits.
#include "ptxsim/wmma_warp.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "numerics/mma_tile.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

namespace {

using mma::Elem;
using mma::Format;
using ptx::wmma::Dims;
using ptx::wmma::dims_of;

// A tf32 input: the 13 low mantissa bits are ignored, the value carries 10 fraction bits.
Elem decode_tf32(uint32_t bits) {
    Elem e = mma::decode(bits & 0xffffe000u, Format::F32);
    e.m >>= 13;
    return e;
}

Elem decode_input(uint64_t bits, EType t) {
    switch (t) {
    case EType::F16:
        return mma::decode(static_cast<uint32_t>(bits), Format::F16);
    case EType::BF16:
        return mma::decode(static_cast<uint32_t>(bits), Format::BF16);
    default:
        return decode_tf32(static_cast<uint32_t>(bits));
    }
}

// m8n8k32 (s4/u4) and m8n8k128 (b1).
void sub_byte(const WmmaSpec& s, const Dims dm, WmmaMatrices& x) {
    if (s.shape == WShape::M8N8K128) {
        constexpr unsigned kWords = 128 / 32; // a row of A / column of B as 32-bit words
        uint32_t arow[8][kWords] = {}, bcol[8][kWords] = {};
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned k = 0; k < dm.k; ++k) arow[i][k / 32] |= uint32_t(x.a[i * dm.k + k] & 1) << (k % 32);
        for (unsigned j = 0; j < dm.n; ++j)
            for (unsigned k = 0; k < dm.k; ++k) bcol[j][k / 32] |= uint32_t(x.b[k * dm.n + j] & 1) << (k % 32);
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned j = 0; j < dm.n; ++j) {
                uint32_t sum = static_cast<uint32_t>(x.c[i * dm.n + j]);
                for (unsigned q = 0; q < kWords; ++q)
                    sum += static_cast<uint32_t>(
                        __builtin_popcount(s.and_popc ? arow[i][q] & bcol[j][q] : arow[i][q] ^ bcol[j][q]));
                x.d[i * dm.n + j] = sum;
            }
        return;
    }
    const bool is_signed = s.ab == EType::S4;
    auto value = [is_signed](uint64_t bits) {
        const int v = static_cast<int>(bits & 15);
        return is_signed ? int64_t(v & 8 ? v - 16 : v) : int64_t(v);
    };
    for (unsigned i = 0; i < dm.m; ++i)
        for (unsigned j = 0; j < dm.n; ++j) {
            int64_t sum = static_cast<int32_t>(static_cast<uint32_t>(x.c[i * dm.n + j]));
            for (unsigned k = 0; k < dm.k; ++k) sum += value(x.a[i * dm.k + k]) * value(x.b[k * dm.n + j]);
            if (s.satfinite) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
            x.d[i * dm.n + j] = static_cast<uint32_t>(sum);
        }
}

} // namespace

void wmma_mma(const WmmaSpec& s, WmmaMatrices& x) {
    const Dims dm = dims_of(s.shape);
    const unsigned m = dm.m, n = dm.n, kk = dm.k;
    if (ptx::wmma::sub_byte_shape(s.shape)) return sub_byte(s, dm, x);
    if (s.ab == EType::S8 || s.ab == EType::U8) {
        for (unsigned i = 0; i < m; ++i)
            for (unsigned j = 0; j < n; ++j) {
                int64_t sum = static_cast<int32_t>(x.c[i * n + j]);
                for (unsigned k = 0; k < kk; ++k) {
                    const int64_t a = s.ab == EType::S8 ? int8_t(x.a[i * kk + k]) : int64_t(uint8_t(x.a[i * kk + k]));
                    const int64_t b = s.ab == EType::S8 ? int8_t(x.b[k * n + j]) : int64_t(uint8_t(x.b[k * n + j]));
                    sum += a * b;
                }
                if (s.satfinite) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
                x.d[i * n + j] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<uint32_t>(sum)));
            }
        return;
    }
    if (s.ab == EType::F64) {
        if (mma::tile_f64(x.a, kk, x.b, n, x.c, n, x.d, n, m, n, kk)) return;
        for (unsigned i = 0; i < m; ++i)
            for (unsigned j = 0; j < n; ++j) {
                double sum = std::bit_cast<double>(x.c[i * n + j]);
                for (unsigned k = 0; k < kk; ++k)
                    sum = std::fma(std::bit_cast<double>(x.a[i * kk + k]), std::bit_cast<double>(x.b[k * n + j]), sum);
                x.d[i * n + j] = std::bit_cast<uint64_t>(sum);
            }
        return;
    }
    const bool tf32 = s.ab == EType::TF32;
    const Format format = s.ab == EType::F16 ? Format::F16 : s.ab == EType::BF16 ? Format::BF16 : Format::F32;
    // tf32: two passes of k = 4 (as sm_80 and later issue tf32 MMAs), the first's f32 result the second's
    // accumulator: measured on the H200.
    if (s.c == EType::F32 && s.d == EType::F32 &&
        mma::tile_f32(format, tf32, x.a, kk, x.b, n, x.c, n, x.d, n, m, n, kk, tf32 ? 2 : 1))
        return;
    const int in_man = s.ab == EType::BF16 ? 7 : 10;
    const bool out_f16 = s.d == EType::F16;
    // Every column of B decoded once (not once per row of A).
    Elem arow[16], bcols[32][16];
    for (unsigned j = 0; j < n; ++j)
        for (unsigned k = 0; k < kk; ++k) bcols[j][k] = decode_input(x.b[k * n + j], s.ab);
    for (unsigned i = 0; i < m; ++i) {
        for (unsigned k = 0; k < kk; ++k) arow[k] = decode_input(x.a[i * kk + k], s.ab);
        for (unsigned j = 0; j < n; ++j) {
            const Elem* bcol = bcols[j];
            const Elem ce =
                mma::decode(static_cast<uint32_t>(x.c[i * n + j]), s.c == EType::F16 ? Format::F16 : Format::F32);
            if (tf32) {
                const uint32_t half = mma::dot(arow, bcol, 4, ce, in_man, false);
                x.d[i * n + j] = mma::dot(arow + 4, bcol + 4, 4, mma::decode(half, Format::F32), in_man, false);
            } else {
                x.d[i * n + j] = mma::dot(arow, bcol, static_cast<int>(kk), ce, in_man, out_f16);
            }
        }
    }
}

} // namespace d4r::ptxsim
