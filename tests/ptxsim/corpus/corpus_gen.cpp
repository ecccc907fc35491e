// Deterministic input generation for the corpus: the PRNG, per-type edge tables, float encoding
// with round-to-nearest-even for every format the corpus uses, and the generators of corpus.h.
#include "corpus.h"

#include <cmath>
#include <cstring>

namespace d4r::corpus {

size_t elem_size(Elem e) {
    switch (e) {
    case Elem::u8:
    case Elem::e4m3:
    case Elem::e5m2:
        return 1;
    case Elem::u16:
    case Elem::f16:
    case Elem::bf16:
        return 2;
    case Elem::u32:
    case Elem::s32:
    case Elem::f32:
        return 4;
    case Elem::u64:
    case Elem::s64:
    case Elem::f64:
        return 8;
    }
    return 0;
}

const char* elem_name(Elem e) {
    switch (e) {
    case Elem::u8:
        return "u8";
    case Elem::u16:
        return "u16";
    case Elem::u32:
        return "u32";
    case Elem::u64:
        return "u64";
    case Elem::s32:
        return "s32";
    case Elem::s64:
        return "s64";
    case Elem::f16:
        return "f16";
    case Elem::bf16:
        return "bf16";
    case Elem::f32:
        return "f32";
    case Elem::f64:
        return "f64";
    case Elem::e4m3:
        return "e4m3";
    case Elem::e5m2:
        return "e5m2";
    }
    return "?";
}

bool elem_is_float(Elem e) {
    switch (e) {
    case Elem::f16:
    case Elem::bf16:
    case Elem::f32:
    case Elem::f64:
    case Elem::e4m3:
    case Elem::e5m2:
        return true;
    default:
        return false;
    }
}

uint64_t fnv1a64(const void* data, size_t size, uint64_t hash) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
        hash ^= p[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

// ---- PRNG ------------------------------------------------------------------------------------

static uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
    for (auto& s : m_s) s = splitmix64(seed);
}

uint64_t Rng::next() {
    auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
}

uint64_t Rng::below(uint64_t n) {
    // The high half of next() * n (a multiply-high mapping: a tiny bias for huge n does not matter
    // here; determinism does), written with 32-bit halves to stay within standard C++.
    uint64_t x = next();
    uint64_t x_lo = x & 0xffffffffu, x_hi = x >> 32, n_lo = n & 0xffffffffu, n_hi = n >> 32;
    uint64_t lo_lo = x_lo * n_lo, hi_lo = x_hi * n_lo, lo_hi = x_lo * n_hi, hi_hi = x_hi * n_hi;
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
    return hi_hi + (hi_lo >> 32) + (cross >> 32);
}

double Rng::unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

// ---- float formats ---------------------------------------------------------------------------

namespace {

struct FloatFmt {
    int exp_bits, man_bits, bias;
    bool ieee;        // all-ones exponent is inf/NaN (false for e4m3: only S.1111.111 is NaN)
    int moderate_exp; // |exponent| bound of the "moderate" category of the special mix
};

FloatFmt float_fmt(Elem e) {
    switch (e) {
    case Elem::f16:
        return {5, 10, 15, true, 8};
    case Elem::bf16:
        return {8, 7, 127, true, 12};
    case Elem::f32:
        return {8, 23, 127, true, 12};
    case Elem::f64:
        return {11, 52, 1023, true, 12};
    case Elem::e4m3:
        return {4, 3, 7, false, 4};
    case Elem::e5m2:
        return {5, 2, 15, true, 6};
    default:
        return {0, 0, 0, true, 0};
    }
}

int max_biased_exp(const FloatFmt& f) { return f.ieee ? (1 << f.exp_bits) - 2 : (1 << f.exp_bits) - 1; }

uint64_t compose(const FloatFmt& f, uint64_t sign, uint64_t biased, uint64_t man) {
    // e4m3 has no infinities; its all-ones pattern is NaN, so the largest finite mantissa there is 6.
    if (!f.ieee && biased == uint64_t(max_biased_exp(f)) && man == (1ull << f.man_bits) - 1) man -= 1;
    return (sign << (f.exp_bits + f.man_bits)) | (biased << f.man_bits) | man;
}

uint64_t canonical_nan(const FloatFmt& f) {
    if (!f.ieee) return (1ull << (f.exp_bits + f.man_bits)) - 1;
    return ((1ull << f.exp_bits) - 1) << f.man_bits | (1ull << (f.man_bits - 1));
}

// Round-to-nearest-even encoding of a double; out-of-range values saturate to the largest finite
// value (generators want finite values there; infinities come from the edge tables).
uint64_t encode(double v, Elem e) {
    if (e == Elem::f64) {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        return bits;
    }
    if (e == Elem::f32) {
        float f = static_cast<float>(v);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        return bits;
    }
    const FloatFmt f = float_fmt(e);
    if (std::isnan(v)) return canonical_nan(f);
    uint64_t sign = std::signbit(v) ? 1 : 0;
    double a = std::fabs(v);
    if (a == 0) return sign << (f.exp_bits + f.man_bits);
    int ex = 0;
    std::frexp(a, &ex);
    int ue = ex - 1; // a = 1.xxx * 2^ue
    const int min_exp = 1 - f.bias;
    bool denormal = ue < min_exp;
    double scaled = denormal ? std::ldexp(a, f.man_bits - min_exp) : std::ldexp(a, f.man_bits - ue);
    double fl = std::floor(scaled);
    double diff = scaled - fl;
    uint64_t q = static_cast<uint64_t>(fl);
    if (diff > 0.5 || (diff == 0.5 && (q & 1))) ++q;
    uint64_t biased;
    uint64_t man;
    if (denormal) {
        if (q >> f.man_bits) {
            biased = 1;
            man = 0;
        } else {
            biased = 0;
            man = q;
        }
    } else {
        biased = uint64_t(ue + f.bias);
        if (q >> (f.man_bits + 1)) {
            ++biased;
            man = 0;
        } else {
            man = q - (1ull << f.man_bits);
        }
    }
    if (biased > uint64_t(max_biased_exp(f))) {
        biased = max_biased_exp(f);
        man = (1ull << f.man_bits) - 1;
    }
    return compose(f, sign, biased, man);
}

// sign * 2^e * 1.m with random m; exponents below the normal range give a random denormal.
uint64_t random_with_exp(Rng& rng, Elem e, int ex) {
    if (e == Elem::f32 || e == Elem::f64 || e == Elem::f16 || e == Elem::bf16 || e == Elem::e4m3 || e == Elem::e5m2) {
        const FloatFmt f = float_fmt(e);
        uint64_t sign = rng.next() & 1;
        uint64_t man = f.man_bits == 64 ? rng.next() : rng.next() & ((1ull << f.man_bits) - 1);
        int biased = ex + f.bias;
        if (biased < 1) {
            if (man == 0) man = 1;
            return compose(f, sign, 0, man);
        }
        if (biased > max_biased_exp(f)) biased = max_biased_exp(f);
        return compose(f, sign, uint64_t(biased), man);
    }
    return 0;
}

const std::vector<uint64_t>& edge_table(Elem e) {
    static const std::vector<uint64_t> u8 = {0, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff};
    static const std::vector<uint64_t> u16 = {0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff};
    static const std::vector<uint64_t> u32 = {0,          1,          2,          3,          0x7f,       0x80,
                                              0xff,       0x100,      0x7fff,     0x8000,     0xffff,     0x10000,
                                              0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0xffffff80,
                                              0xffff8000, 0x00ffffff, 0x01000000, 0x01000001, 0xaaaaaaaa, 0x55555555};
    static const std::vector<uint64_t> u64 = {0,
                                              1,
                                              2,
                                              0x7fffffff,
                                              0x80000000,
                                              0xffffffff,
                                              0x100000000ull,
                                              0xffffffff80000000ull,
                                              0xffffffff7fffffffull,
                                              0x7fffffffffffffffull,
                                              0x8000000000000000ull,
                                              0x8000000000000001ull,
                                              0xffffffffffffffffull,
                                              0xfffffffffffffffeull,
                                              0x0020000000000000ull,
                                              0x0020000000000001ull,
                                              0x0100000000000001ull,
                                              0x0000000001000001ull,
                                              0x0000000001000003ull,
                                              0xaaaaaaaaaaaaaaaaull};
    static const std::vector<uint64_t> f16 = {
        0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e01, 0x7c01, 0xfd55, 0x7bff, 0xfbff, 0x7bfe, 0x0400,
        0x8400, 0x03ff, 0x83ff, 0x0001, 0x8001, 0x0200, 0x3c00, 0xbc00, 0x3800, 0xb800, 0x3e00, 0xbe00, 0x4100,
        0xc100, 0x3bff, 0x3c01, 0x7800, 0x5bf8, 0x5c00, 0x5f00, 0x5f40, 0x7b00, 0x1800, 0x0100, 0x3555, 0x57f0};
    static const std::vector<uint64_t> bf16 = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fc1, 0x7f81, 0xffa5,
                                               0x7f7f, 0xff7f, 0x0080, 0x8080, 0x007f, 0x807f, 0x0001, 0x8001, 0x3f80,
                                               0xbf80, 0x3f00, 0x3fc0, 0xbfc0, 0x4020, 0x3f7f, 0x3f81, 0x4f00, 0xcf00,
                                               0x5f00, 0x43e0, 0x4760, 0x477f, 0x4780, 0x3eab};
    static const std::vector<uint64_t> f32 = {
        0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0xffa5a5a5,
        0x7fffffff, 0x7f7fffff, 0xff7fffff, 0x7f7ffffe, 0x00800000, 0x80800000, 0x007fffff, 0x807fffff, 0x00000001,
        0x80000001, 0x00400000, 0x3f800000, 0xbf800000, 0x3f000000, 0xbf000000, 0x3fc00000, 0xbfc00000, 0x40200000,
        0xc0200000, 0x3effffff, 0x3f000001, 0x4b000000, 0x4b7fffff, 0x4b800000, 0x4b800001, 0x4effffff, 0x4f000000,
        0xcf000000, 0xcf000001, 0x4f800000, 0x4f7fffff, 0x5effffff, 0x5f000000, 0xdf000000, 0xdf000001, 0x5f800000,
        0x477fe000, 0x477ff000, 0x477fefff, 0x43e00000, 0x43e80000, 0x43f00000, 0x47600000, 0x47700000, 0x33800000,
        0x33000000, 0x387fc000, 0x38800000, 0x3b000000, 0x37800000, 0x42fe0000, 0x43000000, 0xc3010000, 0x437f0000,
        0x43800000, 0x46fffe00, 0x47000000, 0xc7000100, 0x477fff00, 0x40490fdb, 0x3fc90fdb, 0x42c80000, 0x3f7fffff};
    static const std::vector<uint64_t> f64 = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
        0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8000000012345ull, 0x7ff0000000000001ull,
        0xfff5a5a5a5a5a5a5ull, 0x7fefffffffffffffull, 0xffefffffffffffffull, 0x0010000000000000ull,
        0x8010000000000000ull, 0x000fffffffffffffull, 0x800fffffffffffffull, 0x0000000000000001ull,
        0x8000000000000001ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fe0000000000000ull,
        0x3ff8000000000000ull, 0xbff8000000000000ull, 0x4004000000000000ull, 0xc004000000000000ull,
        0x4330000000000000ull, 0x4340000000000000ull, 0x4340000000000001ull, 0x41e0000000000000ull,
        0x41dfffffffe00000ull, 0xc1e0000000000000ull, 0xc1e0000000200000ull, 0x41f0000000000000ull,
        0x41efffffffe00000ull, 0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43f0000000000000ull,
        0x43dfffffffffffffull, 0x47efffffe0000000ull, 0x47effffff0000000ull, 0x3810000000000000ull,
        0x36a0000000000000ull, 0x3690000000000000ull, 0x40effc0000000000ull, 0x40effe0000000000ull,
        0x3ff0000010000000ull, 0x3ff0000030000000ull, 0x3ff0000010000001ull, 0x400921fb54442d18ull};
    static const std::vector<uint64_t> e4m3 = {0x00, 0x80, 0x7f, 0xff, 0x7e, 0xfe, 0x01, 0x81,
                                               0x07, 0x08, 0x38, 0xb8, 0x30, 0x3c, 0x7d, 0x06};
    static const std::vector<uint64_t> e5m2 = {0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x7d, 0xff, 0x7b, 0xfb,
                                               0x01, 0x81, 0x03, 0x04, 0x3c, 0xbc, 0x38, 0x3e};
    switch (e) {
    case Elem::u8:
        return u8;
    case Elem::u16:
        return u16;
    case Elem::u32:
    case Elem::s32:
        return u32;
    case Elem::u64:
    case Elem::s64:
        return u64;
    case Elem::f16:
        return f16;
    case Elem::bf16:
        return bf16;
    case Elem::f32:
        return f32;
    case Elem::f64:
        return f64;
    case Elem::e4m3:
        return e4m3;
    case Elem::e5m2:
        return e5m2;
    }
    return u8;
}

uint64_t width_mask(Elem e) {
    size_t bytes = elem_size(e);
    return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

uint64_t pick_edge(Rng& rng, Elem e) {
    const auto& table = edge_table(e);
    return table[rng.below(table.size())];
}

uint64_t gen_integer_full(Rng& rng, Elem e) {
    uint64_t r = rng.below(100);
    if (r < 60) return rng.next() & width_mask(e);
    if (r < 80) return pick_edge(rng, e);
    int64_t small = int64_t(rng.below(2049)) - 1024;
    return uint64_t(small) & width_mask(e);
}

uint64_t gen_float_special(Rng& rng, Elem e) {
    const FloatFmt f = float_fmt(e);
    uint64_t r = rng.below(100);
    if (r < 42) {
        int m = f.moderate_exp;
        return random_with_exp(rng, e, int(rng.below(uint64_t(2 * m + 1))) - m);
    }
    if (r < 62) {
        int lo = 1 - f.bias, hi = max_biased_exp(f) - f.bias;
        return random_with_exp(rng, e, lo + int(rng.below(uint64_t(hi - lo + 1))));
    }
    if (r < 70) return random_with_exp(rng, e, -f.bias - 1); // denormal
    if (r < 75 && f.man_bits >= 7) {
        // Halves of small integers: rounding ties for the round-to-integer conversions.
        return encode((double(int64_t(rng.below(401)) - 200)) * 0.5, e);
    }
    return pick_edge(rng, e);
}

uint64_t gen_one(const Gen& g, Elem e, Rng& rng, size_t index) {
    const bool is_float = elem_is_float(e);
    switch (g.kind) {
    case GenKind::full:
    case GenKind::special:
        return is_float ? gen_float_special(rng, e) : gen_integer_full(rng, e);
    case GenKind::edges:
        return pick_edge(rng, e);
    case GenKind::range: {
        if (g.special > 0 && rng.unit() < g.special) return pick_edge(rng, e);
        if (!is_float) {
            int64_t lo = int64_t(g.lo), hi = int64_t(g.hi);
            int64_t v = lo + int64_t(rng.below(uint64_t(hi - lo) + 1));
            return uint64_t(v) & width_mask(e);
        }
        double v = g.lo + (g.hi - g.lo) * rng.unit();
        if (g.step > 0 && (rng.next() & 1)) v = std::round(v / g.step) * g.step;
        return encode(v, e);
    }
    case GenKind::exp: {
        if (g.special > 0 && rng.unit() < g.special) return pick_edge(rng, e);
        int lo = int(g.lo), hi = int(g.hi);
        return random_with_exp(rng, e, lo + int(rng.below(uint64_t(hi - lo + 1))));
    }
    case GenKind::ints: {
        int64_t lo = int64_t(g.lo), hi = int64_t(g.hi);
        int64_t k = lo + int64_t(rng.below(uint64_t(hi - lo) + 1));
        if (!is_float) return uint64_t(k) & width_mask(e);
        return encode(double(k) * (g.step > 0 ? g.step : 1.0), e);
    }
    case GenKind::index: {
        int64_t v = int64_t(g.lo) + int64_t(index) * int64_t(g.hi);
        return is_float ? encode(double(v), e) : uint64_t(v) & width_mask(e);
    }
    case GenKind::fill:
        return is_float ? encode(g.lo, e) : uint64_t(int64_t(g.lo)) & width_mask(e);
    }
    return 0;
}

} // namespace

namespace gen {
Gen full() { return Gen{GenKind::full}; }
Gen special() { return Gen{GenKind::special}; }
Gen edges() { return Gen{GenKind::edges}; }
Gen range(double lo, double hi, double special, double step) { return Gen{GenKind::range, lo, hi, special, step}; }
Gen exp(int lo, int hi, double special) { return Gen{GenKind::exp, double(lo), double(hi), special, 0}; }
Gen ints(int64_t lo, int64_t hi, double scale) { return Gen{GenKind::ints, double(lo), double(hi), 0, scale}; }
Gen index(int64_t start, int64_t stride) { return Gen{GenKind::index, double(start), double(stride), 0, 0}; }
Gen fill(double value) { return Gen{GenKind::fill, value, 0, 0, 0}; }
} // namespace gen

std::vector<uint8_t> generate(const Gen& g, Elem elem, size_t count, uint64_t seed) {
    const size_t size = elem_size(elem);
    std::vector<uint8_t> out(count * size);
    Rng rng(seed);
    for (size_t i = 0; i < count; ++i) {
        uint64_t bits = gen_one(g, elem, rng, i);
        for (size_t b = 0; b < size; ++b) out[i * size + b] = uint8_t(bits >> (8 * b));
    }
    return out;
}

} // namespace d4r::corpus
