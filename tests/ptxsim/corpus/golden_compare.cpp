// Comparing a ptxsim run with its H200 golden (golden_compare.h).
#include "golden_compare.h"

#include <fmt/format.h>
#include <zstd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "core/files.h"

namespace d4r::corpus {

Expected<std::vector<uint8_t>> read_golden(const std::string& path, size_t expected_bytes) {
    // A golden is at most a few hundred KB compressed; anything far larger is not ours.
    auto compressed = D4R_TRY_CTX(read_file(path, 64ull << 20), "{}", path);
    std::vector<uint8_t> out;
    // Stream-decompress so frames without a content size work too; stop one byte past the expected
    // size so an oversized golden is an error rather than a huge allocation.
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) return make_error(ErrorCode::Internal, "{}: ZSTD_createDCtx failed", path);
    out.resize(expected_bytes + 1);
    ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    while (in.pos < in.size) {
        const size_t rc = ZSTD_decompressStream(dctx.get(), &o, &in);
        if (ZSTD_isError(rc)) return make_error(ErrorCode::Invalid, "{}: zstd: {}", path, ZSTD_getErrorName(rc));
        if (o.pos == o.size) break;
        if (rc == 0 && in.pos == in.size) break;
    }
    if (o.pos != expected_bytes)
        return make_error(ErrorCode::Invalid, "{}: golden has {}{} bytes, the case outputs {}", path,
                          o.pos > expected_bytes ? "more than " : "", o.pos > expected_bytes ? expected_bytes : o.pos,
                          expected_bytes);
    out.resize(expected_bytes);
    return out;
}

// ---- the PTX ISA bounds ----------------------------------------------------------------------------
//
// Source: PTX ISA (NVIDIA "Parallel Thread Execution ISA", 9.x), the "Floating Point Instructions"
// and "Half Precision Floating Point Instructions" sections, one entry per instruction (re-checked
// against the ISA text for ex2, lg2, sin, cos, rcp, rsqrt, sqrt, tanh, div):
//   rcp.approx.f32              max 1 ulp error over the full range
//   div.approx.f32              max 2 ulp for |b| in [2^-126, 2^126] (beyond that the result is 0)
//   div.full.f32                max 2 ulp over the full range
//   sqrt.approx.f32             max relative error 2^-23 over the positive finite range
//   rsqrt.approx.f32            max relative error 2^-22.9
//   rcp.approx.ftz.f64          no error figure: the result is 1/a[63:32] in 1.11.20 format (20 mantissa
//                               bits, low word zero), so one unit of that format, relative 2^-20
//   rsqrt.approx.f64            no error figure ("emulated in software"); 2^-22 relative is kept as a
//                               generous allowance (the H200 measured within 1 f64 ulp of ptxsim)
//   sin/cos.approx.f32          max absolute error 2^-20.5 over [-2pi, 2pi], 2^-14.7 over [-100pi, 100pi]
//                               (nothing outside)
//   lg2.approx.f32              max absolute error 2^-22 for inputs in (0.5, 2), max relative error 2^-22
//                               elsewhere (the comparison does not see the input: both terms apply)
//   ex2.approx.f32              max 2 ulp over the full range
//   tanh.approx.f32             max relative error 2^-11
//   ex2.approx.f16/.f16x2       max relative error 2^-9.9
//   ex2.approx.ftz.bf16         max relative error 2^-7
//   tanh.approx.f16             max relative error 2^-10.987 (as f32), plus 1 ulp for rounding to f16
//
// The golden is the hardware's value h, not the exact value t. Both h and ptxsim's p are within the
// bound B of t, so |p - h| <= 2B: that is what is checked (the ulp distance is reported separately).
// The comparison does not see the input of each element, so sin/cos use the [-100pi, 100pi] bound.
bool approx_bound(const std::string& instruction, ApproxBound* b) {
    *b = ApproxBound{};
    auto is = [&](const char* prefix) { return instruction.rfind(prefix, 0) == 0; };
    const bool f64 = instruction.size() >= 4 && instruction.compare(instruction.size() - 4, 4, ".f64") == 0;
    if (instruction.find(".f16x2") != std::string::npos) {
        b->elem = Elem::f16;
        b->pairs = true;
    } else if (instruction.find(".bf16") != std::string::npos) {
        b->elem = Elem::bf16;
    } else if (instruction.find(".f16") != std::string::npos) {
        b->elem = Elem::f16;
    } else {
        b->elem = f64 ? Elem::f64 : Elem::f32;
    }
    if (is("rcp.approx") && !f64)
        b->ulps = 1, b->source = "rcp.approx.f32: 1 ulp";
    else if (is("div.approx") || is("div.full"))
        b->ulps = 2, b->source = instruction + ": 2 ulp";
    else if (is("sqrt.approx"))
        b->rel = std::ldexp(1.0, -23), b->source = "sqrt.approx.f32: rel 2^-23";
    else if (is("rsqrt.approx") && !f64)
        b->rel = std::exp2(-22.9), b->source = "rsqrt.approx.f32: rel 2^-22.9";
    else if (is("rcp.approx") && f64)
        b->rel = std::ldexp(1.0, -20), b->source = "rcp.approx.ftz.f64: 1.11.20 result, rel 2^-20";
    else if (is("rsqrt.approx") && f64)
        b->rel = std::ldexp(1.0, -22), b->source = "rsqrt.approx.f64: rel 2^-22";
    else if (is("sin.approx") || is("cos.approx"))
        b->abs = std::exp2(-14.7), b->source = "sin/cos.approx.f32: abs 2^-14.7 over [-100pi, 100pi]";
    else if (is("lg2.approx"))
        b->abs = std::ldexp(1.0, -22), b->rel = std::ldexp(1.0, -22),
        b->source = "lg2.approx.f32: abs 2^-22 + rel 2^-22";
    else if (is("ex2.approx") && b->elem == Elem::f32)
        b->ulps = 2, b->source = "ex2.approx.f32: 2 ulp";
    else if (is("ex2.approx") && b->elem == Elem::f16)
        b->rel = std::exp2(-9.9), b->source = "ex2.approx.f16: rel 2^-9.9";
    else if (is("ex2.approx") && b->elem == Elem::bf16)
        b->rel = std::ldexp(1.0, -7), b->source = "ex2.approx.bf16: rel 2^-7";
    else if (is("tanh.approx") && b->elem == Elem::f32)
        b->rel = std::ldexp(1.0, -11), b->source = "tanh.approx.f32: rel 2^-11";
    else if (is("tanh.approx") && b->elem == Elem::f16)
        b->rel = std::exp2(-10.987), b->ulps = 1, b->source = "tanh.approx.f16: rel 2^-10.987 + 1 ulp";
    else
        return false;
    return true;
}

const char* ulp_bucket_name(size_t bucket) {
    static const char* const kNames[kUlpBuckets] = {"0", "1", "2", "3-4", "5-16", "17-256", "257-65536", ">65536"};
    return bucket < kUlpBuckets ? kNames[bucket] : "?";
}

namespace {

size_t ulp_bucket(uint64_t ulps) {
    if (ulps <= 2) return size_t(ulps);
    if (ulps <= 4) return 3;
    if (ulps <= 16) return 4;
    if (ulps <= 256) return 5;
    if (ulps <= 65536) return 6;
    return 7;
}

struct FloatFormat {
    int bits, mantissa, min_exp; // min_exp: exponent of the smallest normal
};

FloatFormat float_format(Elem e) {
    switch (e) {
    case Elem::f16:
        return {16, 10, -14};
    case Elem::bf16:
        return {16, 7, -126};
    case Elem::f64:
        return {64, 52, -1022};
    default:
        return {32, 23, -126};
    }
}

uint64_t load_bits(const uint8_t* p, int bits) {
    uint64_t v = 0;
    std::memcpy(&v, p, size_t(bits / 8)); // little-endian host, as the goldens are
    return v;
}

// The value of the bit pattern as a double (exact for every format here).
double to_double(uint64_t bits, Elem e) {
    if (e == Elem::f64) {
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    if (e == Elem::f32) {
        float f;
        const uint32_t u = uint32_t(bits);
        std::memcpy(&f, &u, 4);
        return f;
    }
    if (e == Elem::bf16) {
        float f;
        const uint32_t u = uint32_t(bits) << 16;
        std::memcpy(&f, &u, 4);
        return f;
    }
    // f16
    const uint32_t sign = (bits >> 15) & 1, exp = (bits >> 10) & 0x1f, man = bits & 0x3ff;
    double v;
    if (exp == 0x1f)
        v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (exp == 0)
        v = std::ldexp(double(man), -24);
    else
        v = std::ldexp(double(man | 0x400), int(exp) - 25);
    return sign ? -v : v;
}

// Distance in representable values (the two zeros are one point; NaN handled by the caller).
uint64_t ulp_distance(uint64_t a, uint64_t b, int bits) {
    const uint64_t sign = 1ull << (bits - 1);
    auto key = [&](uint64_t x) -> int64_t {
        const int64_t mag = int64_t(x & (sign - 1));
        return (x & sign) ? -mag : mag;
    };
    const int64_t ka = key(a), kb = key(b);
    return ka > kb ? uint64_t(ka - kb) : uint64_t(kb - ka);
}

double ulp_of(double x, const FloatFormat& f) {
    int e = std::ilogb(x == 0 ? std::ldexp(1.0, f.min_exp) : x);
    if (e < f.min_exp) e = f.min_exp;
    return std::ldexp(1.0, e - f.mantissa);
}

// "" when P (ptxsim) is within the doubled bound of H (hardware); else why not.
std::string check_value(uint64_t h_bits, uint64_t p_bits, const ApproxBound& b, uint64_t* ulps) {
    const FloatFormat f = float_format(b.elem);
    const double h = to_double(h_bits, b.elem), p = to_double(p_bits, b.elem);
    *ulps = 0;
    if (std::isnan(h) || std::isnan(p)) {
        if (std::isnan(h) && std::isnan(p)) return "";
        *ulps = UINT64_MAX;
        return "NaN on one side only";
    }
    *ulps = ulp_distance(h_bits, p_bits, f.bits);
    if (std::isinf(h) || std::isinf(p)) return h == p ? "" : "infinity on one side only";
    // Denormal results may be flushed (the .ftz forms, and the hardware's transcendental units).
    const double min_normal = std::ldexp(1.0, f.min_exp);
    if (std::fabs(h) < min_normal && std::fabs(p) < min_normal) return "";
    const double mag = std::fmax(std::fabs(h), std::fabs(p));
    const double allowed = 2 * (b.abs + b.rel * mag + b.ulps * ulp_of(mag, f));
    const double diff = std::fabs(h - p);
    if (diff <= allowed) return "";
    return fmt::format("|diff| {:.6g} > allowed {:.6g} ({})", diff, allowed, b.source);
}

} // namespace

std::string format_element(Elem elem, const uint8_t* p) {
    const size_t size = elem_size(elem);
    const uint64_t bits = load_bits(p, int(size * 8));
    const std::string hex = fmt::format("0x{:0{}x}", bits, size * 2);
    switch (elem) {
    case Elem::f16:
    case Elem::bf16:
    case Elem::f32:
    case Elem::f64:
        return fmt::format("{:.9g} ({})", to_double(bits, elem), hex);
    case Elem::s32:
        return fmt::format("{} ({})", int32_t(uint32_t(bits)), hex);
    case Elem::s64:
        return fmt::format("{} ({})", int64_t(bits), hex);
    default:
        return fmt::format("{} ({})", bits, hex);
    }
}

CompareReport compare_with_golden(const Case& c, const CaseResult& result, const std::vector<uint8_t>& golden) {
    CompareReport report;
    auto mismatch = [&](std::string text) {
        if (report.ok) report.first_mismatch = std::move(text);
        report.ok = false;
    };
    if (golden.size() != result.output.size()) {
        mismatch(fmt::format("output is {} bytes, golden {}", result.output.size(), golden.size()));
        return report;
    }
    for (const OutputSlice& s : result.slices) {
        const std::string& name = c.params.at(s.param).name;
        const uint8_t* got = result.output.data() + s.offset;
        const uint8_t* want = golden.data() + s.offset;
        if (s.compare.empty()) {
            const size_t es = elem_size(s.elem);
            for (size_t off = 0; off + es <= s.bytes; off += es) {
                if (std::memcmp(got + off, want + off, es) == 0) continue;
                ++report.mismatched_elements;
                if (!report.ok && report.more_mismatches.size() < kMoreMismatches)
                    report.more_mismatches.push_back(fmt::format("'{}' [{}]: expected {}, got {}", name, off / es,
                                                                 format_element(s.elem, want + off),
                                                                 format_element(s.elem, got + off)));
                mismatch(fmt::format("output '{}' [{}] (byte {} of the golden): expected {}, got {}", name, off / es,
                                     s.offset + off, format_element(s.elem, want + off),
                                     format_element(s.elem, got + off)));
            }
            continue;
        }
        ApproxStats st;
        st.param = name;
        st.instruction = s.compare;
        ApproxBound b;
        if (!approx_bound(s.compare, &b)) {
            mismatch(fmt::format("output '{}': no ISA bound known for '{}'", name, s.compare));
            continue;
        }
        const size_t vbytes = elem_size(b.elem);
        for (size_t off = 0; off + vbytes <= s.bytes; off += vbytes) {
            const uint64_t h = load_bits(want + off, int(vbytes * 8)), p = load_bits(got + off, int(vbytes * 8));
            uint64_t ulps = 0;
            const std::string why = check_value(h, p, b, &ulps);
            ++st.values;
            if (ulps > st.max_ulp) st.max_ulp = ulps;
            ++st.histogram[ulp_bucket(ulps)];
            if (why.empty()) continue;
            ++st.out_of_bound;
            const std::string text =
                fmt::format("output '{}' ({}) value {} (byte {} of the golden): expected {}, got {}: {}", name,
                            s.compare, off / vbytes, s.offset + off, format_element(b.elem, want + off),
                            format_element(b.elem, got + off), why);
            if (st.first_violation.empty()) st.first_violation = text;
            mismatch(text);
        }
        report.approx.push_back(std::move(st));
    }
    return report;
}

} // namespace d4r::corpus
