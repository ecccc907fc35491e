// ptxsim texture and surface objects: the host side of CUDA arrays, texture objects and surface objects
// (cuArrayCreate / cuArray3DCreate, cuMemcpy2D to and from arrays, cuTexObjectCreate, cuSurfObjectCreate),
// for the cpu backend of libd4rcuda and for tests. See docs/ptxsim.md "Textures and surfaces".
//
// Promises:
//   - Arrays are 2D (a 1D array has height 1) images owned by the Device, in one of the CUarray_format
//     channel formats (1, 2 or 4 channels of u8/u16/u32/s8/s16/s32/f16/f32) or the packed formats DLSS
//     uses (RGB10A2 unorm, R11G11B10F). Their memory is not device memory: kernels reach it only through
//     texture and surface objects.
//   - Texture objects sample an array, pitch-linear 2D device memory or linear device memory with a
//     TextureDesc (address mode per dimension, point/bilinear filtering, element-type or normalised-float
//     reads, normalised coordinates, border colour) exactly as the texture unit of an NVIDIA H200 does
//     (8-bit fixed-point filter weights, the unit's own accumulation precision: docs/ptxsim.md).
//   - Volumes (3D, layered and cubemap images in device memory: ResourceDesc::Kind::Volume) are sampled
//     the same way: point 3D, per-layer and per-face bilinear as the H200 does. Linear filtering of 3D
//     textures (trilinear) is refused at creation: its weight rounding is not modelled yet.
//   - Surface objects give suld.b/sust.b access to arrays created with `surface = true` and to volumes.
//   - Object handles are non-zero 64-bit values the kernel receives as .u64 parameters; they are never
//     reused by the Device that made them. Creating with bad arguments is an error value naming the
//     argument. A kernel that uses an unknown or destroyed handle stops with a launch fault naming the
//     handle (IllegalInstruction), never a crash.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptxsim/ptxsim.h"

namespace d4r::ptxsim {

// Element format of an array or of texture memory (CUarray_format, plus the packed formats).
enum class ChannelFormat : uint8_t {
    U8,
    U16,
    U32,
    S8,
    S16,
    S32,
    F16,
    F32,
    RGB10A2,    // one 32-bit word: R bits 0-9, G 10-19, B 20-29, A 30-31, unsigned normalised
    R11G11B10F, // one 32-bit word: R bits 0-10, G 11-21 (6-bit mantissa, 5-bit exponent), B 22-31 (5-bit mantissa),
                // unsigned floats
};
const char* channel_format_name(ChannelFormat f);
// Bytes of one texel; 0 when CHANNELS is not valid for F (1, 2 or 4 for the plain formats; 4 for RGB10A2,
// 3 for R11G11B10F, or 0 for "the packed format's own count").
uint32_t texel_bytes(ChannelFormat f, uint32_t channels);

using ArrayId = uint64_t;
using TexObject = uint64_t;
using SurfObject = uint64_t;

struct ArrayDesc {
    uint32_t width = 0;
    uint32_t height = 1; // 1 for a 1D array
    ChannelFormat format = ChannelFormat::U8;
    uint32_t channels = 1;
    bool surface = false; // CUDA_ARRAY3D_SURFACE_LDST: may be bound to surface objects
};

// A zero-filled array.
Expected<ArrayId> create_array(Device& device, const ArrayDesc& desc);
// An array whose texels are the caller's: row y starts at BASE + y * PITCH (PITCH at least a row's bytes). The
// caller keeps that memory mapped while the array or any object over it exists (an external memory's image).
Expected<ArrayId> create_array_over(Device& device, const ArrayDesc& desc, DevicePtr base, uint64_t pitch);
Status destroy_array(Device& device, ArrayId array);
Expected<ArrayDesc> array_desc(const Device& device, ArrayId array);
// cuMemcpy2D with an array on one side: HEIGHT rows of WIDTH_BYTES starting at byte X_BYTES of row Y of
// the array; rows of the host (or device: its address is a host address) side are PITCH bytes apart.
Status copy_to_array(Device& device, ArrayId dst, uint64_t x_bytes, uint32_t y, const void* src, uint64_t src_pitch,
                     uint64_t width_bytes, uint32_t height);
Status copy_from_array(const Device& device, ArrayId src, uint64_t x_bytes, uint32_t y, void* dst, uint64_t dst_pitch,
                       uint64_t width_bytes, uint32_t height);

enum class AddressMode : uint8_t { Wrap, Clamp, Mirror, Border }; // Wrap/Mirror need normalised coordinates
enum class FilterMode : uint8_t { Point, Linear };
enum class ReadMode : uint8_t { ElementType, NormalizedFloat }; // NormalizedFloat: 8/16-bit integer formats

// What a texture or surface object's image is, and so which instruction geometries may use it.
enum class Geometry : uint8_t {
    Plain,          // a 2D (or 1D: height 1) image: tex/tld4/suld/sust .1d and .2d
    Volume3D,       // depth slices: .3d
    Layered1D,      // depth layers of one row: .a1d
    Layered2D,      // depth layers: .a2d
    Cubemap,        // 6 square faces: tex.cube, surfaces .a2d (layer = face)
    CubemapLayered, // depth = 6 x layers: tex.acube, surfaces .a2d (layer = 6 x cube + face)
};
const char* geometry_name(Geometry g);

struct TextureDesc {
    AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp}; // x, y, z
    FilterMode filter = FilterMode::Point;
    ReadMode read = ReadMode::ElementType;
    bool normalized_coords = false;
    float border[4] = {0, 0, 0, 0};
};

struct ResourceDesc {
    enum class Kind : uint8_t { Array, Pitch2D, Linear, Volume };
    Kind kind = Kind::Array;
    ArrayId array = 0;                        // Array
    DevicePtr ptr = 0;                        // Pitch2D, Linear, Volume: inside one live allocation
    ChannelFormat format = ChannelFormat::U8; // Pitch2D, Linear, Volume (plain formats only)
    uint32_t channels = 1;                    // Pitch2D, Linear, Volume
    uint32_t width = 0, height = 0;           // Pitch2D, Volume: texels and rows (1 for Layered1D)
    uint64_t pitch = 0;                       // Pitch2D, Volume: bytes between rows
    uint64_t bytes = 0;                       // Linear: size (width = bytes / texel bytes)
    uint32_t depth = 0;                       // Volume: slices, layers or faces (6 per cube)
    uint64_t slice_pitch = 0;                 // Volume: bytes between slices
    Geometry geometry = Geometry::Plain;      // Volume: any geometry but Plain
};

Expected<TexObject> create_texture_object(Device& device, const ResourceDesc& resource, const TextureDesc& desc);
Status destroy_texture_object(Device& device, TexObject tex);
Expected<SurfObject> create_surface_object(Device& device, ArrayId array);
// A surface over a Volume resource (RESOURCE.kind must be Volume).
Expected<SurfObject> create_surface_object(Device& device, const ResourceDesc& resource);
Status destroy_surface_object(Device& device, SurfObject surf);

} // namespace d4r::ptxsim
