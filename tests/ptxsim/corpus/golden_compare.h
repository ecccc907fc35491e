// Comparing a ptxsim run of a corpus case with its golden from the H200.
//
// Promises:
// - read_golden() decompresses golden/<case>.out.zst (libzstd) and refuses anything whose size is not
//   the case's output size.
// - compare_with_golden() requires identical bytes for every exact output slice; for slices tagged with
//   an .approx instruction (OutputSlice::compare) each element must lie within the PTX ISA error bound
//   of that instruction (approx_bound() documents each bound and its source), and the ulp distance to
//   the hardware's value is collected (maximum and a histogram) so it can be reported.
// - A mismatch names the output parameter, element index, byte offset in the golden, and the expected
//   and actual values printed as the output's element type.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "corpus.h"

namespace d4r::corpus {

Expected<std::vector<uint8_t>> read_golden(const std::string& path, size_t expected_bytes);

// How far an .approx result may be from the hardware's result (see approx_bound() in the .cpp for the
// ISA bounds these are derived from).
struct ApproxBound {
    Elem elem = Elem::f32; // the value type (f16x2 outputs are compared as two f16 halves)
    bool pairs = false;    // the 32-bit output element holds two f16/bf16 values
    double abs = 0;        // absolute error bound against the exact result
    double rel = 0;        // relative error bound against the exact result
    double ulps = 0;       // bound in ulps of the result
    std::string source;    // what the PTX ISA says
};
// false when `instruction` has no known bound (the test must then fail: a new .approx tag needs a bound).
bool approx_bound(const std::string& instruction, ApproxBound* bound);

// Buckets of the ulp-distance histogram: 0, 1, 2, 3-4, 5-16, 17-256, 257-65536, more.
constexpr size_t kUlpBuckets = 8;
const char* ulp_bucket_name(size_t bucket);

struct ApproxStats {
    std::string param;       // output parameter name
    std::string instruction; // the .approx instruction
    size_t values = 0;
    uint64_t max_ulp = 0; // largest ulp distance to the hardware (NaN vs NaN counts as 0)
    std::array<size_t, kUlpBuckets> histogram{};
    size_t out_of_bound = 0;
    std::string first_violation; // "" when all values are within the bound
};

constexpr size_t kMoreMismatches = 6;

struct CompareReport {
    bool ok = true;
    std::string first_mismatch;               // the first exact-slice difference or bound violation
    size_t mismatched_elements = 0;           // over exact slices
    std::vector<std::string> more_mismatches; // a few exact-slice differences after the first
    std::vector<ApproxStats> approx;
};

// Messages name the case's output parameters; GOLDEN must be c.output_bytes() long.
CompareReport compare_with_golden(const Case& c, const CaseResult& result, const std::vector<uint8_t>& golden);

// The element at `bytes` printed as `elem` ("1.5 (0x3fc00000)", "-3 (0xfffffffd)").
std::string format_element(Elem elem, const uint8_t* bytes);

} // namespace d4r::corpus
