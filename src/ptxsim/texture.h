// ptxsim internals: texture and surface objects (the registry behind ptxsim_texture.h) and the texture
// unit's arithmetic: texel decoding, addressing, point and bilinear filtering, gathers, integer fetches.
//
// The registry is copy-on-write: every create/destroy publishes a new immutable ImageTable, and a launch
// keeps the table current when it started (LaunchState::images), so handlers look objects up without
// locks and an object destroyed during a launch stays valid until the launch ends.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ptxsim/ptxsim_texture.h"

namespace d4r::ptxsim {

// Storage of one array (host memory, rows `pitch` bytes apart).
struct ArrayStore {
    ArrayDesc desc;
    uint32_t texel_bytes = 0;
    uint64_t pitch = 0;              // bytes between rows: the row itself, or more over external storage
    std::unique_ptr<uint8_t[]> data; // own storage, or
    uint8_t* external = nullptr;     // storage its creator keeps (create_array_over)
    uint8_t* bytes() const { return external ? external : data.get(); }
};

// How the texture unit holds a format's values while filtering (measured on the H200, docs/ptxsim.md).
enum class FilterClass : uint8_t {
    Half,    // f16, R11G11B10F: texels aligned to the largest weighted texel with 15 bits, f16 result
    Single,  // f32 (and snorm reads): aligned with 28 bits, f32 result
    Unorm16, // u8/u16/RGB10A2 read as normalised floats: 16-bit unorm texels, 8.8 fixed-point weights
    Integer, // integer reads: no filtering
};

struct ImageObject {
    enum class Kind : uint8_t { Texture, Surface };
    Kind kind = Kind::Texture;
    std::shared_ptr<ArrayStore> array; // keeps an array alive while an object over it exists
    uint8_t* base = nullptr;           // texel (0, 0)
    uint64_t pitch = 0;
    uint32_t width = 0, height = 0;
    ChannelFormat format = ChannelFormat::U8;
    uint32_t channels = 1;
    uint32_t texel_bytes = 0;
    bool device_memory = false; // pitch-linear / linear textures: base lies in a device allocation
    uint64_t span = 0;          // bytes from base the texture reads (device memory is checked per launch)
    TextureDesc desc;
    FilterClass filter_class = FilterClass::Single;
    uint32_t border_bits[4] = {}; // border colour as the sampler returns it (missing channels 0)
    Geometry geometry = Geometry::Plain;
    uint32_t depth = 1;       // slices, layers or faces (Plain: 1)
    uint64_t slice_pitch = 0; // bytes between slices / layers / faces
};

struct ImageTable {
    std::unordered_map<uint64_t, std::shared_ptr<const ImageObject>> objects;
    const ImageObject* find(uint64_t handle) const {
        auto it = objects.find(handle);
        return it == objects.end() ? nullptr : it->second.get();
    }
};

class ImageRegistry {
public:
    ImageRegistry();
    std::shared_ptr<const ImageTable> snapshot() const;

    // Over EXTERNAL (rows PITCH bytes apart) when given; otherwise zero-filled storage of its own.
    Expected<ArrayId> create_array(const ArrayDesc& desc, uint8_t* external = nullptr, uint64_t pitch = 0);
    Status destroy_array(ArrayId id);
    Expected<std::shared_ptr<ArrayStore>> array(ArrayId id) const;
    Expected<uint64_t> add(std::shared_ptr<const ImageObject> object);
    Status remove(uint64_t handle, ImageObject::Kind kind);

private:
    mutable std::mutex m_mutex;
    std::map<ArrayId, std::shared_ptr<ArrayStore>> m_arrays;
    std::shared_ptr<const ImageTable> m_table;
    uint64_t m_next_array = 1;
    uint64_t m_next_object = 1;
};

// ---- the texture unit (texture.cpp) ----------------------------------------------------------

// One sample's four 32-bit results (float bits, or integers for integer reads).
struct TexResult {
    uint32_t v[4] = {0, 0, 0, 0};
};
// tex with float coordinates on a Plain image (Y ignored when ONE_D: 1D lookups filter in x only).
TexResult sample(const ImageObject& t, float x, float y, bool one_d);
// tex.a1d / tex.a2d: layer LAYER of a Layered1D / Layered2D image (a layer past the last reads the last,
// as the H200 does; Y ignored for Layered1D).
TexResult sample_layer(const ImageObject& t, uint32_t layer, float x, float y);
// tex.3d with point filtering (linear filtering of a Volume3D is refused when the object is created).
TexResult sample_3d(const ImageObject& t, float x, float y, float z);
// tex.cube / tex.acube: the face direction (X, Y, Z) points at (z wins ties, then y), then a point or
// bilinear lookup on that face of cube CUBE (past the last: the last) with its edges clamped.
TexResult sample_cube(const ImageObject& t, uint32_t cube, float x, float y, float z);
// tex with integer coordinates: the texel at (x, y) without filtering or addressing; zeros outside.
TexResult fetch_texel(const ImageObject& t, int32_t x, int32_t y);
// tld4: component COMP of the bilinear footprint, counter-clockwise from the lower left:
// (i0, j1), (i1, j1), (i1, j0), (i0, j0).
TexResult gather(const ImageObject& t, float x, float y, unsigned comp);

// ---- for compiled code (ops_texture.cpp) ------------------------------------------------------

// CompiledRuntime::image (compiled.h): one lane of a texture or surface instruction, the handlers' own code.
struct CompiledThread;
uint32_t compiled_image(CompiledThread* thread, uint32_t code, uint64_t handle, uint32_t x, uint32_t y, uint32_t z,
                        uint32_t layer, uint64_t* data);
// CompiledRuntime::warp_matrix's image form (warp_image_code, compiled.h): the instruction CODE (image_op_code) for
// the lanes of EXEC in lane order, each as compiled_image does it, the object looked up once per distinct handle.
// REGISTERS: the lanes' handles (64-bit), x, y, z and layer (32-bit), then the four data registers (64-bit words).
// False after recording the first faulting lane's fault.
struct Warp;
bool compiled_warp_image(Warp& w, uint32_t code, uint32_t exec, void* const* registers);

} // namespace d4r::ptxsim
