// The ptxsim golden conformance corpus: the case table, deterministic input generators, the CUDA
// parameter-block layout, and a backend-neutral way to run one case.
//
// Promises:
// - Every case names a PTX module (ptx/<module>.ptx, compiled from kernels/<module>.cu), an entry,
//   launch dimensions and its parameters in order. Inputs are generated from a fixed-seed PRNG
//   implemented here (never <random> distributions), so every platform and standard library
//   produces the same bytes; the seed of a parameter depends only on the case name and the
//   parameter's index.
// - Output buffers are poisoned with kPoison before a launch and followed by kGuardBytes of poison
//   that must survive the launch, so unwritten bytes and writes past the end are visible.
// - run_case() does the same thing on every backend (the H200 through the driver API in
//   tests/device/ptxsim_golden_runner.cpp, ptxsim in CI): the golden of a case is the bytes of
//   all output buffers and output images, concatenated in parameter order.
//
// Plain C++17 and the standard library only: the device machine builds this with g++ alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace d4r::corpus {

constexpr uint8_t kPoison = 0xCD;
constexpr size_t kGuardBytes = 256;

// ---- element types and generators ------------------------------------------------------------

enum class Elem : uint8_t { u8, u16, u32, u64, s32, s64, f16, bf16, f32, f64, e4m3, e5m2 };
size_t elem_size(Elem e);
const char* elem_name(Elem e);
bool elem_is_float(Elem e);

enum class GenKind : uint8_t {
    full,    // integers: random bits with edge values sprinkled in; floats: same as special
    special, // floats: moderate and full-range normals, denormals, and the edge table (NaN with
             // payloads, +-inf, +-0, limits, ties, integer boundaries); integers: same as full
    edges,   // only values from the type's edge table (so equal operands and +-0 pairs are common)
    range,   // integers: uniform in [lo, hi] (signed types signed); floats: uniform in [lo, hi],
             // half of them snapped to a multiple of `step` when step > 0
    exp,     // floats: sign * 2^e * 1.m with e uniform in [lo, hi] (denormal where e is below the
             // normal range), random mantissa bits
    ints,    // floats: a uniform integer in [lo, hi] times `step` (a power of two: sums stay exact)
    index,   // integers: lo + i * hi, wrapped to the type's width
    fill,    // every element has the value lo
};

struct Gen {
    GenKind kind = GenKind::full;
    double lo = 0, hi = 0;
    double special = 0; // range/exp: fraction of elements taken from the edge table instead
    double step = 0;    // range: snapping quantum; ints: scale
};

namespace gen {
Gen full();
Gen special();
Gen edges();
Gen range(double lo, double hi, double special = 0, double step = 0);
Gen exp(int lo, int hi, double special = 0);
Gen ints(int64_t lo, int64_t hi, double scale = 1.0);
Gen index(int64_t start, int64_t stride);
Gen fill(double value);
} // namespace gen

// Deterministic PRNG (xoshiro256** seeded through splitmix64).
class Rng {
public:
    explicit Rng(uint64_t seed);
    uint64_t next();
    uint64_t below(uint64_t n); // uniform in [0, n), n > 0
    double unit();              // uniform in [0, 1)
private:
    uint64_t m_s[4];
};

// `count` elements of type `elem`, little-endian, from `g` seeded with `seed`.
std::vector<uint8_t> generate(const Gen& g, Elem elem, size_t count, uint64_t seed);

uint64_t fnv1a64(const void* data, size_t size, uint64_t hash = 0xcbf29ce484222325ull);

// ---- parameters ------------------------------------------------------------------------------

enum class Dir : uint8_t { in, out, inout };
enum class ParamKind : uint8_t { buffer, scalar, image };

struct BufferParam {
    Elem elem = Elem::u32;
    size_t count = 0;
    Gen gen;
    Dir dir = Dir::in;
    std::string compare; // "" = bit-exact; otherwise the .approx instruction whose ISA bound applies
};

struct ScalarParam {
    Elem elem = Elem::u32;
    uint64_t bits = 0;
};

enum class Format : uint8_t { rgba16f, rg16f, r32f, rgba8, rgb10a2 };
enum class Address : uint8_t { wrap, clamp, mirror, border };
enum class Filter : uint8_t { point, linear };
enum class ImageKind : uint8_t { texture_array, texture_pitch2d, surface };

const char* format_name(Format f);
size_t texel_bytes(Format f);
uint32_t format_channels(Format f); // channels as the texture unit sees them
Elem format_elem(Format f);         // element type the texel generator works in
size_t format_elems_per_texel(Format f);

// A 2D image bound as a texture object (CUDA array or pitch-linear memory) or as a surface object
// (CUDA array with surface load/store). Texels are tightly packed rows in the case's data.
struct ImageParam {
    ImageKind kind = ImageKind::texture_array;
    Format format = Format::rgba16f;
    uint32_t width = 0, height = 0;
    Gen gen;
    Dir dir = Dir::in; // surfaces may be out/inout; textures are always in
    Address address = Address::clamp;
    Filter filter = Filter::point;
    bool normalized = false;
    bool read_as_integer = false;
    float border[4] = {0, 0, 0, 0};
    size_t data_bytes() const { return size_t(width) * height * texel_bytes(format); }
};

struct Param {
    ParamKind kind = ParamKind::buffer;
    std::string name;
    BufferParam buffer;
    ScalarParam scalar;
    ImageParam image;
    bool is_output() const;
    size_t output_bytes() const; // bytes this parameter contributes to the golden (0 for inputs)
};

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t total() const { return uint64_t(x) * y * z; }
};

struct Case {
    std::string name;   // unique; golden file is golden/<name>.out.zst
    std::string module; // ptx/<module>.ptx
    std::string entry;
    Dim3 grid, block;
    uint32_t dynamic_smem = 0;
    std::vector<Param> params;
    std::string summary; // one line: what the case covers
    size_t output_bytes() const;
};

const std::vector<Case>& all_cases();
const Case* find_case(const std::string& name);

// Seed of parameter `index` of case `c`: depends only on the name and index.
uint64_t param_seed(const Case& c, size_t index);

// Initial contents of a buffer or image parameter: generated for in/inout, poison for out.
std::vector<uint8_t> initial_bytes(const Case& c, size_t index);

// ---- parameter block -------------------------------------------------------------------------

struct ParamSlot {
    uint32_t offset = 0, size = 0, align = 0;
};

// Each parameter at its natural alignment (pointers and texture/surface handles are 8 bytes).
std::vector<ParamSlot> param_layout(const Case& c);
// values[i] is the device address (buffers), handle (images) or bit pattern (scalars) of param i.
std::vector<uint8_t> build_param_block(const Case& c, const std::vector<uint64_t>& values);

// The `.param` list of `.entry entry` in PTX text, as (size, align) pairs.
struct PtxParam {
    uint32_t size = 0, align = 0;
    std::string text;
};
bool parse_entry_params(const std::string& ptx, const std::string& entry, std::vector<PtxParam>* out,
                        std::string* error);
// "" when the case's parameter layout matches the PTX entry; otherwise what differs.
std::string check_case_against_ptx(const Case& c, const std::string& ptx);

// ---- running a case --------------------------------------------------------------------------

// A backend: the H200 through the CUDA driver API, or ptxsim. Every call returns "" on success or
// an error message. release() frees everything the current case created.
class Launcher {
public:
    virtual ~Launcher() = default;
    virtual std::string alloc(size_t bytes, uint64_t* address) = 0;
    virtual std::string upload(uint64_t address, const void* data, size_t bytes) = 0;
    virtual std::string download(uint64_t address, void* data, size_t bytes) = 0;
    // Creates the image with `texels` (tightly packed rows) and returns the 64-bit texture or
    // surface object handle the kernel receives.
    virtual std::string create_image(const ImageParam& image, const std::vector<uint8_t>& texels, uint64_t* handle) = 0;
    // Reads an image created by create_image back as tightly packed rows.
    virtual std::string read_image(uint64_t handle, std::vector<uint8_t>* texels) = 0;
    // Loads `ptx` and launches c.entry with c.grid/c.block/c.dynamic_smem and the parameter block;
    // returns after the kernel has finished.
    virtual std::string launch(const std::string& ptx, const Case& c, const std::vector<uint8_t>& param_block) = 0;
    virtual void release() = 0;
};

struct OutputSlice {
    size_t param = 0, offset = 0, bytes = 0;
    std::string compare; // copied from the buffer parameter
    Elem elem = Elem::u8;
};

struct CaseResult {
    std::vector<uint8_t> output; // every output parameter's bytes, in parameter order
    std::vector<OutputSlice> slices;
    size_t poison_words = 0; // aligned 4-byte words of output still equal to the poison pattern
};

// Generates inputs, poisons outputs, launches and collects the outputs. "" on success.
std::string run_case(const Case& c, const std::string& ptx, Launcher& launcher, CaseResult* result);

} // namespace d4r::corpus
