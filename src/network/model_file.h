// d4r refine network: the model file (docs/network.md, "The model file").
//
// Promise: parse_model() accepts exactly the documented format (magic, version 1, a known architecture,
// records whose dtype, rank, dims and offsets are consistent and inside the file, the FNV-1a 64 trailer) and
// checks every tensor the architecture needs is present with its shape and dtype; anything else is an Invalid
// error naming the file, the record or tensor and what was expected. serialize_model() writes the same
// format (for tests and tools); parse_model(serialize_model(m)) == m.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::network {

inline constexpr char kModelMagic[8] = {'d', '4', 'r', 'n', 'e', 't', '\0', '\0'};
inline constexpr uint32_t kModelVersion = 1;
inline constexpr const char* kArchRefineV1 = "refine-v1";
// refine-v1 with enc2's four linear weights in e4m3 and a per-tensor f16 scale each (docs/network.md).
inline constexpr const char* kArchRefineV1Fp8 = "refine-v1-fp8";
// refine-v2 (docs/network.md, "refine-v2"): refine-v1's structure, wider (kRefineV2), fed each pixel's features
// (the core's candidates, its terms and the geometry: 23 a pixel, 368 a patch) and answering each pixel's blend
// logits and residual (8 a pixel, 128 a patch).
inline constexpr const char* kArchRefineV2 = "refine-v2";
// refine-v2 with three of enc2's linear weights (kFp8LayersV2) in e4m3 and a per-tensor f16 scale each.
inline constexpr const char* kArchRefineV2Fp8 = "refine-v2-fp8";
// Whether ARCH's pass reads the open core's frame (refine-v2 and its FP8 variant) rather than an image.
inline bool reads_core_frame(std::string_view arch) { return arch == kArchRefineV2 || arch == kArchRefineV2Fp8; }
// The model the core loads when none is named (D4R_NETWORK_MODEL): the one that meets the quality goal
// (models/README.md).
inline constexpr const char* kModelFileName = "refine-v2.d4rnet";

enum class DType : uint32_t { F16 = 1, E4M3 = 2, F32 = 3 };

struct Tensor {
    std::string name;
    DType dtype = DType::F16;
    std::vector<uint32_t> dims; // rank 1..4
    std::vector<uint8_t> data;  // packed row-major

    uint64_t elements() const;
    // The data as f16 bits (dtype F16 only).
    std::span<const uint16_t> f16() const { return {reinterpret_cast<const uint16_t*>(data.data()), data.size() / 2}; }
};

struct Model {
    std::string arch;
    std::vector<Tensor> tensors;

    // The tensor NAME, or nullptr.
    const Tensor* find(std::string_view name) const;
};

// One tensor an architecture needs: its name, dims and dtype.
struct TensorSpec {
    std::string name;
    std::vector<uint32_t> dims;
    DType dtype = DType::F16;
};
// Every tensor of refine-v1, in file order.
const std::vector<TensorSpec>& refine_v1_tensors();
// Every tensor of refine-v1-fp8, in file order: refine-v1's, except that the weights of the layers in
// kFp8Layers are E4M3, each followed by its `<layer>.scale` (f16, dims [1]).
const std::vector<TensorSpec>& refine_v1_fp8_tensors();
inline constexpr const char* kFp8Layers[] = {"enc2.qkv", "enc2.proj", "enc2.fc1", "enc2.fc2"};
// Every tensor of refine-v2, in file order: refine-v1's names, kRefineV2's shapes.
const std::vector<TensorSpec>& refine_v2_tensors();
// refine-v2-fp8's: refine-v2's, with the weights of kFp8LayersV2 in E4M3, each followed by its scale. enc2.fc2 (256
// inputs) stays f16: the FP8 linear of the PTX path and of every native set takes at most kMaxChannels (128) inputs.
const std::vector<TensorSpec>& refine_v2_fp8_tensors();
inline constexpr const char* kFp8LayersV2[] = {"enc2.qkv", "enc2.proj", "enc2.fc1"};
// The channel counts of an architecture: the fine and coarse token grids', the embed's input and the head's output.
struct ArchDims {
    uint32_t c1, c2, patch_in, head_out;
};
inline constexpr ArchDims kRefineV1{32, 64, 16 * 3, 16 * 3}; // also refine-v1-fp8's
inline constexpr ArchDims kRefineV2{64, 128, 16 * 23, 16 * 8};
// refine-v1's for every name but refine-v2 and refine-v2-fp8.
const ArchDims& architecture_dims(std::string_view arch);
// The tensors of ARCH (refine-v1, refine-v1-fp8, refine-v2 or refine-v2-fp8), or nullptr for another name.
const std::vector<TensorSpec>* architecture_tensors(std::string_view arch);

// `where` names the source in errors (a path, "embedded model").
Expected<Model> parse_model(std::span<const uint8_t> bytes, const std::string& where);
Expected<Model> read_model(const std::filesystem::path& path);
std::vector<uint8_t> serialize_model(const Model& model);

} // namespace d4r::network
