// The texture unit: texel formats, addressing, point and bilinear filtering, gathers and integer fetches,
// with the arithmetic measured on the H200 (corpus cases tex_*; docs/ptxsim.md "Textures and surfaces").
#include "ptxsim/texture.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

namespace {

// A texel as the filter sees it: float values (Half, Single; NaN payloads kept bit for bit), 16-bit unorm
// values (Unorm16, whose point-sampled value in f is n / (2^bits - 1)) or the raw 32-bit results
// (Integer). Missing channels are 0.
struct Texel {
    float f[4] = {0, 0, 0, 0};
    uint32_t u[4] = {0, 0, 0, 0};
};

float r11g11b10_channel(uint32_t bits, int mantissa_bits) {
    const uint32_t e = bits >> mantissa_bits, m = bits & ((1u << mantissa_bits) - 1);
    const float scale = std::ldexp(1.0f, -mantissa_bits);
    if (e == 31) return m ? std::bit_cast<float>(0x7fffffffu) : INFINITY;
    if (e == 0) return std::ldexp(static_cast<float>(m) * scale, -14);
    return std::ldexp(1.0f + static_cast<float>(m) * scale, static_cast<int>(e) - 15);
}

// 10- and 2-bit unorm channels widened to 16 bits by bit replication (what the H200 filters with).
uint32_t widen_unorm(uint32_t v, int bits) {
    uint32_t out = 0;
    for (int shift = 16 - bits; shift > -bits; shift -= bits) out |= shift >= 0 ? v << shift : v >> -shift;
    return out & 0xffffu;
}

void decode(const ImageObject& t, const uint8_t* p, Texel& out) {
    const bool norm = t.desc.read == ReadMode::NormalizedFloat;
    switch (t.format) {
    case ChannelFormat::RGB10A2: {
        uint32_t w;
        std::memcpy(&w, p, 4);
        for (int k = 0; k < 3; ++k) {
            const uint32_t c = (w >> (10 * k)) & 1023u;
            out.u[k] = widen_unorm(c, 10);
            out.f[k] = static_cast<float>(c / 1023.0);
        }
        out.u[3] = widen_unorm(w >> 30, 2);
        out.f[3] = static_cast<float>((w >> 30) / 3.0);
        return;
    }
    case ChannelFormat::R11G11B10F: {
        uint32_t w;
        std::memcpy(&w, p, 4);
        out.f[0] = r11g11b10_channel(w & 0x7ffu, 6);
        out.f[1] = r11g11b10_channel((w >> 11) & 0x7ffu, 6);
        out.f[2] = r11g11b10_channel(w >> 22, 5);
        return;
    }
    default:
        break;
    }
    for (uint32_t k = 0; k < t.channels; ++k) {
        switch (t.format) {
        case ChannelFormat::U8:
            out.u[k] = norm ? p[k] * 257u : p[k];
            out.f[k] = static_cast<float>(p[k] / 255.0);
            break;
        case ChannelFormat::S8: {
            int32_t v = static_cast<int8_t>(p[k]);
            if (norm)
                out.f[k] = std::max(static_cast<float>(v) / 127.0f, -1.0f);
            else
                out.u[k] = static_cast<uint32_t>(v);
            break;
        }
        case ChannelFormat::U16: {
            uint16_t v;
            std::memcpy(&v, p + 2 * k, 2);
            out.u[k] = v;
            out.f[k] = static_cast<float>(v / 65535.0);
            break;
        }
        case ChannelFormat::S16: {
            int16_t v;
            std::memcpy(&v, p + 2 * k, 2);
            if (norm)
                out.f[k] = std::max(static_cast<float>(v) / 32767.0f, -1.0f);
            else
                out.u[k] = static_cast<uint32_t>(int32_t(v));
            break;
        }
        case ChannelFormat::U32:
        case ChannelFormat::S32:
            std::memcpy(&out.u[k], p + 4 * k, 4);
            break;
        case ChannelFormat::F16: {
            uint16_t v;
            std::memcpy(&v, p + 2 * k, 2);
            out.f[k] = f16_to_float(v);
            break;
        }
        case ChannelFormat::F32: {
            float v;
            std::memcpy(&v, p + 4 * k, 4);
            out.f[k] = v;
            break;
        }
        default:
            break;
        }
    }
}

uint32_t float_bits(double v) { return std::bit_cast<uint32_t>(static_cast<float>(v)); }
uint32_t bits_of(float v) { return std::bit_cast<uint32_t>(v); }

// The 32-bit result a point sample returns for a decoded texel.
TexResult result_of(const ImageObject& t, const Texel& x) {
    TexResult r;
    for (int k = 0; k < 4; ++k) {
        switch (t.filter_class) {
        case FilterClass::Half:
        case FilterClass::Single:
        case FilterClass::Unorm16:
            r.v[k] = bits_of(x.f[k]);
            break;
        case FilterClass::Integer:
            r.v[k] = x.u[k];
            break;
        }
    }
    return r;
}

// Index after the address mode; -1 selects the border colour.
int64_t address(int64_t i, uint32_t n, AddressMode mode) {
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case AddressMode::Clamp:
        return i < 0 ? 0 : n - 1;
    case AddressMode::Border:
        return -1;
    case AddressMode::Wrap:
        return ((i % n) + n) % n;
    case AddressMode::Mirror: {
        int64_t p = ((i % (2 * int64_t(n))) + 2 * int64_t(n)) % (2 * int64_t(n));
        return p < n ? p : 2 * int64_t(n) - 1 - p;
    }
    }
    return 0;
}

AddressMode effective_mode(const ImageObject& t, int dim) {
    AddressMode m = t.desc.address[dim];
    // Wrap and mirror need normalised coordinates; CUDA clamps otherwise.
    if (!t.desc.normalized_coords && (m == AddressMode::Wrap || m == AddressMode::Mirror)) return AddressMode::Clamp;
    return m;
}

constexpr int kCoordFracBits = 21;

// A coordinate in texel units. NaN and subnormal coordinates are 0 (flushed); with wrap and mirror an
// infinite coordinate is 0 too. Wrap and mirror reduce the coordinate exactly (modulo one or two
// periods), so large coordinates keep their fraction, as the hardware's fixed-point coordinates do.
double texel_coord(float x, uint32_t size, AddressMode mode, bool normalized) {
    if (std::isnan(x) || std::fpclassify(x) == FP_SUBNORMAL) x = 0;
    if (!normalized) return x;
    // Normalised coordinates keep 21 fractional bits (truncated): tex_rgba8_linear_wrap_norm has a sample
    // whose x weight lies just above a rounding tie only by its 22nd fractional bit; the H200 rounds it down.
    const double xq =
        std::isinf(x) ? double(x) : std::floor(std::ldexp(double(x), kCoordFracBits)) / (1 << kCoordFracBits);
    if (mode == AddressMode::Wrap || mode == AddressMode::Mirror) {
        if (std::isinf(x)) return 0;
        double fl = std::floor(xq), frac = xq - fl;
        double period = 0;
        if (mode == AddressMode::Mirror) {
            period = std::fmod(fl, 2.0);
            if (period < 0) period += 2;
        }
        return period * size + frac * size;
    }
    return xq * size;
}

int64_t saturate(double v) {
    constexpr double kLimit = 0x1p60;
    if (std::isnan(v)) return 0;
    return static_cast<int64_t>(std::clamp(v, -kLimit, kLimit));
}

// The 8.8 fixed-point coordinate of a bilinear footprint's first texel (coordinate - 0.5, rounded to
// 1/256 of a texel, ties up: a coordinate of 1/512 texel gives the second texel 129/256, measured by
// rt_texture_volume's layered cases on the H200).
int64_t fixed_coord(double u) { return saturate(std::floor((u - 0.5) * 256.0 + 0.5)); }

// PLANE: texel (0, 0) of the slice, layer or face read (t.base for a Plain image).
const uint8_t* texel_ptr(const ImageObject& t, const uint8_t* plane, int64_t i, int64_t j) {
    return plane + uint64_t(j) * t.pitch + uint64_t(i) * t.texel_bytes;
}

Texel border_texel(const ImageObject& t) {
    Texel b;
    for (int k = 0; k < 4; ++k) {
        b.f[k] = std::bit_cast<float>(t.border_bits[k]);
        b.u[k] = t.border_bits[k];
    }
    if (t.filter_class == FilterClass::Unorm16)
        for (int k = 0; k < 4; ++k)
            b.u[k] = static_cast<uint32_t>(std::lround(std::clamp(double(b.f[k]), 0.0, 1.0) * 65535.0));
    return b;
}

Texel load(const ImageObject& t, const uint8_t* plane, int64_t i, int64_t j) {
    if (i < 0 || j < 0) return border_texel(t);
    Texel x;
    decode(t, texel_ptr(t, plane, i, j), x);
    return x;
}

// Rounds to BITS significant bits, ties away from zero, with quanta no smaller than 2^(MIN_EXP - BITS).
double round_away(double x, int bits, int min_exp) {
    if (x == 0) return 0;
    int e;
    std::frexp(x, &e);
    e = std::max(e, min_exp);
    double q = std::ldexp(1.0, e - bits);
    return std::round(x / q) * q;
}

// Bilinear filtering of float texels: each weighted texel is truncated to ALIGN_BITS below the leading
// bit of the largest weighted texel, the 8-bit weights are applied exactly, and the sum is rounded
// (ties away from zero) to f16 (HALF) or f32.
uint32_t filter_float(const int (&w)[4], const double (&v)[4], int align_bits, bool half) {
    double mx = 0;
    bool nan = false, pinf = false, ninf = false;
    for (int q = 0; q < 4; ++q) {
        if (!w[q]) continue;
        if (std::isnan(v[q]))
            nan = true;
        else if (std::isinf(v[q]))
            (v[q] > 0 ? pinf : ninf) = true;
        else
            mx = std::max(mx, std::fabs(v[q]));
    }
    if (nan || (pinf && ninf)) return kCanonicalNaN32;
    if (pinf || ninf) return float_bits(pinf ? INFINITY : -INFINITY);
    if (mx == 0) return 0;
    int e;
    std::frexp(mx, &e);
    const double quantum = std::ldexp(1.0, e - align_bits);
    double acc = 0;
    for (int q = 0; q < 4; ++q)
        if (w[q]) acc += w[q] * (std::trunc(v[q] / quantum) * quantum);
    const double r = acc / 256.0;
    return float_bits(half ? round_away(r, 11, -13) : round_away(r, 24, -125));
}

TexResult filter(const ImageObject& t, const int (&w)[4], const Texel (&x)[4]) {
    TexResult r;
    for (int k = 0; k < 4; ++k) {
        if (t.filter_class == FilterClass::Unorm16) {
            int64_t acc = 0;
            for (int q = 0; q < 4; ++q) acc += int64_t(w[q]) * x[q].u[k];
            r.v[k] = float_bits(double((acc + 128) >> 8) / 65535.0);
        } else {
            const double v[4] = {x[0].f[k], x[1].f[k], x[2].f[k], x[3].f[k]};
            const bool half = t.filter_class == FilterClass::Half;
            r.v[k] = filter_float(w, v, half ? 15 : 28, half);
        }
    }
    return r;
}

// Point or bilinear filtering of one plane at texel coordinates (U, V) with address modes MX, MY.
TexResult filter_plane(const ImageObject& t, const uint8_t* plane, double u, double v, AddressMode mx, AddressMode my) {
    if (t.desc.filter == FilterMode::Point || t.filter_class == FilterClass::Integer) {
        int64_t i = address(saturate(std::floor(u)), t.width, mx);
        int64_t j = address(saturate(std::floor(v)), t.height, my);
        return result_of(t, load(t, plane, i, j));
    }
    const int64_t fu = fixed_coord(u), fv = fixed_coord(v);
    const int64_t i0 = fu >> 8, j0 = fv >> 8;
    const int a = int(fu & 255), b = int(fv & 255);
    // The four weights are 8-bit fractions that sum to exactly 1: w11 = round(a * b), the rest follow.
    const int ab = (a * b + 128) >> 8;
    const int w[4] = {256 - a - b + ab, a - ab, b - ab, ab};
    const int64_t ia = address(i0, t.width, mx), ib = address(i0 + 1, t.width, mx);
    const int64_t ja = address(j0, t.height, my), jb = address(j0 + 1, t.height, my);
    const Texel x4[4] = {w[0] ? load(t, plane, ia, ja) : Texel{}, w[1] ? load(t, plane, ib, ja) : Texel{},
                         w[2] ? load(t, plane, ia, jb) : Texel{}, w[3] ? load(t, plane, ib, jb) : Texel{}};
    return filter(t, w, x4);
}

const uint8_t* plane_ptr(const ImageObject& t, uint64_t index) { return t.base + index * t.slice_pitch; }

// A cubemap direction's face and the face coordinates in [0, 1] (measured on the H200: the largest
// magnitude picks the axis, z winning ties and then y; s / |major| in single precision).
struct CubeFace {
    uint32_t face = 0;
    double u = 0.5, v = 0.5;
};

CubeFace cube_face(float x, float y, float z) {
    auto flush = [](float c) { return std::isnan(c) || std::fpclassify(c) == FP_SUBNORMAL ? 0.0f : c; };
    x = flush(x);
    y = flush(y);
    z = flush(z);
    const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
    CubeFace f;
    float s, t, major;
    if (az >= ax && az >= ay) {
        f.face = std::signbit(z) ? 5 : 4;
        major = az;
        s = std::signbit(z) ? -x : x;
        t = -y;
    } else if (ay >= ax) {
        f.face = std::signbit(y) ? 3 : 2;
        major = ay;
        s = x;
        t = std::signbit(y) ? -z : z;
    } else {
        f.face = std::signbit(x) ? 1 : 0;
        major = ax;
        s = std::signbit(x) ? z : -z;
        t = -y;
    }
    if (major == 0) return f; // the zero vector: the centre of face +z (measured)
    f.u = (double(s / major) + 1.0) / 2.0;
    f.v = (double(t / major) + 1.0) / 2.0;
    return f;
}

// A lookup at float coordinates (X, Y) of one plane, with the object's address modes (Y ignored when ONE_D).
TexResult sample_at(const ImageObject& t, const uint8_t* plane, float x, float y, bool one_d) {
    const AddressMode mx = effective_mode(t, 0), my = effective_mode(t, 1);
    const bool norm = t.desc.normalized_coords;
    const double u = texel_coord(x, t.width, mx, norm);
    const double v = one_d ? 0.5 : texel_coord(y, t.height, my, norm);
    return filter_plane(t, plane, u, v, mx, my);
}

} // namespace

TexResult sample(const ImageObject& t, float x, float y, bool one_d) { return sample_at(t, t.base, x, y, one_d); }

TexResult sample_layer(const ImageObject& t, uint32_t layer, float x, float y) {
    return sample_at(t, plane_ptr(t, std::min(layer, t.depth - 1)), x, y, t.geometry == Geometry::Layered1D);
}

TexResult sample_3d(const ImageObject& t, float x, float y, float z) {
    const AddressMode mx = effective_mode(t, 0), my = effective_mode(t, 1), mz = effective_mode(t, 2);
    const bool norm = t.desc.normalized_coords;
    const int64_t i = address(saturate(std::floor(texel_coord(x, t.width, mx, norm))), t.width, mx);
    const int64_t j = address(saturate(std::floor(texel_coord(y, t.height, my, norm))), t.height, my);
    const int64_t k = address(saturate(std::floor(texel_coord(z, t.depth, mz, norm))), t.depth, mz);
    if (k < 0) return result_of(t, border_texel(t));
    return result_of(t, load(t, plane_ptr(t, uint64_t(k)), i, j));
}

TexResult sample_cube(const ImageObject& t, uint32_t cube, float x, float y, float z) {
    const CubeFace f = cube_face(x, y, z);
    const uint32_t cubes = t.depth / 6;
    const uint64_t plane = uint64_t(std::min(cube, cubes - 1)) * 6 + f.face;
    return filter_plane(t, plane_ptr(t, plane), f.u * t.width, f.v * t.height, AddressMode::Clamp, AddressMode::Clamp);
}

TexResult fetch_texel(const ImageObject& t, int32_t x, int32_t y) {
    if (x < 0 || y < 0 || uint32_t(x) >= t.width || uint32_t(y) >= t.height) return {};
    return result_of(t, load(t, t.base, x, y));
}

TexResult gather(const ImageObject& t, float x, float y, unsigned comp) {
    const AddressMode mx = effective_mode(t, 0), my = effective_mode(t, 1);
    const bool norm = t.desc.normalized_coords;
    const int64_t fu = fixed_coord(texel_coord(x, t.width, mx, norm));
    const int64_t fv = fixed_coord(texel_coord(y, t.height, my, norm));
    const int64_t i0 = address(fu >> 8, t.width, mx), i1 = address((fu >> 8) + 1, t.width, mx);
    const int64_t j0 = address(fv >> 8, t.height, my), j1 = address((fv >> 8) + 1, t.height, my);
    const int64_t order[4][2] = {{i0, j1}, {i1, j1}, {i1, j0}, {i0, j0}};
    TexResult r;
    for (int q = 0; q < 4; ++q) r.v[q] = result_of(t, load(t, t.base, order[q][0], order[q][1])).v[comp & 3];
    return r;
}

} // namespace d4r::ptxsim
