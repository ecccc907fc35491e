// The model file: a header, 80-byte tensor records, 64-byte aligned data, an FNV-1a 64 trailer.
#include "network/model_file.h"

#include <cstring>
#include <fstream>

#include <fmt/ranges.h>

#include "core/fnv1a.h"

namespace d4r::network {

namespace {

constexpr size_t kHeaderBytes = 48, kRecordBytes = 80, kNameBytes = 48, kArchBytes = 32, kAlign = 64;
constexpr uint32_t kMaxTensors = 256;
constexpr uint64_t kMaxModelBytes = 64ull << 20;

template <typename T>
T load(std::span<const uint8_t> bytes, size_t at) {
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof(T));
    return v;
}
template <typename T>
void store(std::vector<uint8_t>& out, size_t at, T v) {
    std::memcpy(out.data() + at, &v, sizeof(T));
}

size_t dtype_bytes(DType t) { return t == DType::F32 ? 4 : t == DType::F16 ? 2 : 1; }
const char* dtype_name(DType t) { return t == DType::F32 ? "f32" : t == DType::F16 ? "f16" : "e4m3"; }

// A NUL-padded fixed-size text field: its text, or an error if it is not NUL-terminated inside the field.
Expected<std::string> fixed_text(std::span<const uint8_t> bytes, size_t at, size_t size, const char* what) {
    const char* p = reinterpret_cast<const char*>(bytes.data() + at);
    size_t n = strnlen(p, size);
    if (n == size) return make_error(ErrorCode::Invalid, "{} is not NUL-terminated within its {} bytes", what, size);
    return std::string(p, n);
}

Status check_tensors(const Model& model, const std::vector<TensorSpec>& specs) {
    for (const TensorSpec& spec : specs) {
        const Tensor* t = model.find(spec.name);
        if (!t) return make_error(ErrorCode::Invalid, "tensor '{}' is missing", spec.name);
        if (t->dtype != spec.dtype)
            return make_error(ErrorCode::Invalid, "tensor '{}' is {}, expected {}", spec.name, dtype_name(t->dtype),
                              dtype_name(spec.dtype));
        if (t->dims != spec.dims)
            return make_error(ErrorCode::Invalid, "tensor '{}' has shape [{}], expected [{}]", spec.name,
                              fmt::join(t->dims, ", "), fmt::join(spec.dims, ", "));
    }
    for (const Tensor& t : model.tensors) {
        bool known = false;
        for (const TensorSpec& spec : specs) known = known || spec.name == t.name;
        if (!known) return make_error(ErrorCode::Invalid, "tensor '{}' is not part of {}", t.name, model.arch);
    }
    return ok_status();
}

} // namespace

uint64_t Tensor::elements() const {
    uint64_t n = 1;
    for (uint32_t d : dims) n *= d;
    return n;
}

const Tensor* Model::find(std::string_view name) const {
    for (const Tensor& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

namespace {

// FP8: the layers whose weights are e4m3 (none for an f16 architecture).
std::vector<TensorSpec> make_tensors(std::span<const char* const> fp8, const ArchDims& d) {
    const uint32_t c1 = d.c1, c2 = d.c2;
    std::vector<TensorSpec> s;
    auto linear = [&](const std::string& name, uint32_t out, uint32_t in) {
        bool e4m3 = false;
        for (const char* layer : fp8) e4m3 = e4m3 || name == layer;
        s.push_back({name + ".w", {out, in}, e4m3 ? DType::E4M3 : DType::F16});
        if (e4m3) s.push_back({name + ".scale", {1}});
        s.push_back({name + ".b", {out}});
    };
    auto block = [&](const std::string& name, uint32_t c) {
        s.push_back({name + ".ln1.g", {c}});
        s.push_back({name + ".ln1.b", {c}});
        linear(name + ".qkv", 3 * c, c);
        s.push_back({name + ".relbias", {c / 32, 225}});
        linear(name + ".proj", c, c);
        s.push_back({name + ".ln2.g", {c}});
        s.push_back({name + ".ln2.b", {c}});
        linear(name + ".fc1", 2 * c, c);
        linear(name + ".fc2", c, 2 * c);
    };
    linear("embed", c1, d.patch_in);
    block("enc1", c1);
    linear("merge", c2, 4 * c1);
    block("enc2", c2);
    linear("expand", 4 * c1, c2);
    block("dec1", c1);
    linear("head", d.head_out, c1);
    return s;
}

} // namespace

const std::vector<TensorSpec>& refine_v1_tensors() {
    static const std::vector<TensorSpec> specs = make_tensors({}, kRefineV1);
    return specs;
}

const std::vector<TensorSpec>& refine_v1_fp8_tensors() {
    static const std::vector<TensorSpec> specs = make_tensors(kFp8Layers, kRefineV1);
    return specs;
}

const std::vector<TensorSpec>& refine_v2_tensors() {
    static const std::vector<TensorSpec> specs = make_tensors({}, kRefineV2);
    return specs;
}

const std::vector<TensorSpec>& refine_v2_fp8_tensors() {
    static const std::vector<TensorSpec> specs = make_tensors(kFp8LayersV2, kRefineV2);
    return specs;
}

const ArchDims& architecture_dims(std::string_view arch) { return reads_core_frame(arch) ? kRefineV2 : kRefineV1; }

const std::vector<TensorSpec>* architecture_tensors(std::string_view arch) {
    if (arch == kArchRefineV1) return &refine_v1_tensors();
    if (arch == kArchRefineV1Fp8) return &refine_v1_fp8_tensors();
    if (arch == kArchRefineV2) return &refine_v2_tensors();
    if (arch == kArchRefineV2Fp8) return &refine_v2_fp8_tensors();
    return nullptr;
}

Expected<Model> parse_model(std::span<const uint8_t> bytes, const std::string& where) {
    auto fail = [&](Error e) { return e.add_context(fmt::format("model file {}", where)); };
    if (bytes.size() < kHeaderBytes + 8)
        return fail(make_error(ErrorCode::Invalid, "{} bytes is too short for a model file", bytes.size()));
    if (std::memcmp(bytes.data(), kModelMagic, sizeof(kModelMagic)) != 0)
        return fail(make_error(ErrorCode::Invalid, "not a d4r model file (its first 8 bytes are not 'd4rnet\\0\\0')"));
    uint32_t version = load<uint32_t>(bytes, 8), count = load<uint32_t>(bytes, 12);
    if (version != kModelVersion)
        return fail(
            make_error(ErrorCode::Invalid, "format version {} (this d4r reads version {})", version, kModelVersion));
    uint64_t stored = load<uint64_t>(bytes, bytes.size() - 8);
    uint64_t actual = fnv1a64(bytes.first(bytes.size() - 8));
    if (stored != actual)
        return fail(make_error(ErrorCode::Invalid,
                               "checksum mismatch (stored {:016x}, computed {:016x}): the file is "
                               "damaged or truncated",
                               stored, actual));
    Model model;
    auto arch = fixed_text(bytes, 16, kArchBytes, "the architecture name");
    if (!arch) return fail(arch.error());
    model.arch = *arch;
    const std::vector<TensorSpec>* specs = architecture_tensors(model.arch);
    if (!specs)
        return fail(make_error(ErrorCode::Invalid,
                               "architecture '{}' is unknown (this d4r runs '{}', '{}', '{}' and '{}')", model.arch,
                               kArchRefineV1, kArchRefineV1Fp8, kArchRefineV2, kArchRefineV2Fp8));
    if (count == 0 || count > kMaxTensors)
        return fail(make_error(ErrorCode::Invalid, "tensor count {} (accepted: 1..{})", count, kMaxTensors));
    const uint64_t data_end = bytes.size() - 8;
    if (kHeaderBytes + uint64_t(count) * kRecordBytes > data_end)
        return fail(make_error(ErrorCode::Invalid, "{} tensor records do not fit in the file", count));
    for (uint32_t i = 0; i < count; ++i) {
        size_t at = kHeaderBytes + size_t(i) * kRecordBytes;
        auto record_error = [&](Error e) { return fail(e.add_context(fmt::format("tensor record {}", i))); };
        auto name = fixed_text(bytes, at, kNameBytes, "the name");
        if (!name) return record_error(name.error());
        Tensor t;
        t.name = *name;
        uint32_t dtype = load<uint32_t>(bytes, at + 48), rank = load<uint32_t>(bytes, at + 52);
        if (dtype < 1 || dtype > 3)
            return record_error(
                make_error(ErrorCode::Invalid, "'{}': dtype {} (accepted: 1 f16, 2 e4m3, 3 f32)", t.name, dtype));
        t.dtype = static_cast<DType>(dtype);
        if (rank < 1 || rank > 4)
            return record_error(make_error(ErrorCode::Invalid, "'{}': rank {} (accepted: 1..4)", t.name, rank));
        uint64_t elements = 1;
        for (uint32_t d = 0; d < 4; ++d) {
            uint32_t dim = load<uint32_t>(bytes, at + 56 + 4 * d);
            if (d < rank) {
                if (dim == 0 || dim > (1u << 20))
                    return record_error(make_error(ErrorCode::Invalid, "'{}': dimension {} is {}", t.name, d, dim));
                t.dims.push_back(dim);
                elements *= dim;
            } else if (dim != 1) {
                return record_error(
                    make_error(ErrorCode::Invalid, "'{}': unused dimension {} is {}, expected 1", t.name, d, dim));
            }
        }
        uint64_t offset = load<uint64_t>(bytes, at + 72), size = elements * dtype_bytes(t.dtype);
        if (offset % kAlign != 0 || offset < kHeaderBytes + uint64_t(count) * kRecordBytes || offset > data_end ||
            size > data_end - offset)
            return record_error(make_error(ErrorCode::Invalid,
                                           "'{}': data at offset {} ({} bytes) is not 64-byte aligned inside the "
                                           "data section",
                                           t.name, offset, size));
        if (model.find(t.name)) return record_error(make_error(ErrorCode::Invalid, "'{}' appears twice", t.name));
        t.data.assign(bytes.begin() + static_cast<ptrdiff_t>(offset),
                      bytes.begin() + static_cast<ptrdiff_t>(offset + size));
        model.tensors.push_back(std::move(t));
    }
    if (Status s = check_tensors(model, *specs); !s) return fail(s.error());
    return model;
}

Expected<Model> read_model(const std::filesystem::path& path) {
    // std::ifstream rather than core/files.h: the Windows NGX core compiles this file without the rest of core.
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorCode::NotFound, "model file {}: cannot open it", path.string());
    std::vector<uint8_t> bytes;
    char chunk[65536];
    while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
        bytes.insert(bytes.end(), chunk, chunk + in.gcount());
        if (bytes.size() > kMaxModelBytes)
            return make_error(ErrorCode::Invalid, "model file {}: larger than {} bytes", path.string(), kMaxModelBytes);
    }
    if (in.bad()) return make_error(ErrorCode::Io, "model file {}: read error", path.string());
    return parse_model(bytes, path.string());
}

std::vector<uint8_t> serialize_model(const Model& model) {
    auto align = [](size_t v) { return (v + kAlign - 1) / kAlign * kAlign; };
    size_t end = align(kHeaderBytes + model.tensors.size() * kRecordBytes);
    std::vector<size_t> offsets;
    for (const Tensor& t : model.tensors) {
        offsets.push_back(end);
        end = align(end + t.data.size());
    }
    std::vector<uint8_t> out(end + 8, 0);
    std::memcpy(out.data(), kModelMagic, sizeof(kModelMagic));
    store<uint32_t>(out, 8, kModelVersion);
    store<uint32_t>(out, 12, static_cast<uint32_t>(model.tensors.size()));
    std::memcpy(out.data() + 16, model.arch.data(), std::min(model.arch.size(), kArchBytes - 1));
    for (size_t i = 0; i < model.tensors.size(); ++i) {
        const Tensor& t = model.tensors[i];
        size_t at = kHeaderBytes + i * kRecordBytes;
        std::memcpy(out.data() + at, t.name.data(), std::min(t.name.size(), kNameBytes - 1));
        store<uint32_t>(out, at + 48, static_cast<uint32_t>(t.dtype));
        store<uint32_t>(out, at + 52, static_cast<uint32_t>(t.dims.size()));
        for (size_t d = 0; d < 4; ++d) store<uint32_t>(out, at + 56 + 4 * d, d < t.dims.size() ? t.dims[d] : 1u);
        store<uint64_t>(out, at + 72, offsets[i]);
        std::memcpy(out.data() + offsets[i], t.data.data(), t.data.size());
    }
    store<uint64_t>(out, end, fnv1a64(std::span<const uint8_t>(out.data(), end)));
    return out;
}

} // namespace d4r::network
