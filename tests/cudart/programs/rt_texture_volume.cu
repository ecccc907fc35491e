// Runtime API conformance: texture and surface objects over 3D, layered and cubemap CUDA arrays (tex.3d,
// tex.a1d, tex.a2d, tex.cube, tex.acube; suld/sust .3d, .a1d, .a2d), with point and linear filtering, every
// address mode, normalised and unnormalised coordinates, element and normalised-float reads. The texels come
// from a fixed formula and the sample coordinates from a fixed generator (arbitrary floats, points on the
// texture unit's 1/256 grid, texel centres, edges, out-of-range layers and NaN/inf), so the digests printed
// are those of NVIDIA's texture unit on the H200 (the golden). With RT_TEXTURE_DUMP=FILE every sample's
// coordinates and result bits are also written to FILE, one line each, to compare a backend's arithmetic.
// Linear filtering of 3D textures runs only with --trilinear (d4r's cpu backend refuses it: its weight
// rounding is not modelled yet; tests/device/texture-volume.sh records it for that work).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "rt_check.h"

namespace {

FILE* g_dump = nullptr;

enum class Geo { Tex3D, Layered1D, Layered2D, Cube, CubeLayered };

template <typename T>
__global__ void sample(Geo geo, cudaTextureObject_t t, const float4* c, T* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 p = c[i];
    const int layer = __float_as_int(p.w);
    switch (geo) {
    case Geo::Tex3D:
        out[i] = tex3D<T>(t, p.x, p.y, p.z);
        break;
    case Geo::Layered1D:
        out[i] = tex1DLayered<T>(t, p.x, layer);
        break;
    case Geo::Layered2D:
        out[i] = tex2DLayered<T>(t, p.x, p.y, layer);
        break;
    case Geo::Cube:
        out[i] = texCubemap<T>(t, p.x, p.y, p.z);
        break;
    case Geo::CubeLayered:
        out[i] = texCubemapLayered<T>(t, p.x, p.y, p.z, layer);
        break;
    }
}

uint32_t g_rng = 12345u;
uint32_t next() {
    g_rng = g_rng * 1664525u + 1013904223u;
    return g_rng >> 8;
}
float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next()) / 16777216.0f; }

// A coordinate along an axis of SIZE texels (or [0, 1) when NORM): a quarter arbitrary floats, a quarter on
// the 1/256 grid, a quarter near texel centres, the rest at edges and special values.
float coord(int size, bool norm) {
    const float span = norm ? 1.0f : static_cast<float>(size);
    const float margin = norm ? 0.3f : 1.5f;
    switch (next() % 8) {
    case 0:
    case 1:
        return uniform(-margin, span + margin);
    case 2:
    case 3: {
        return std::floor(uniform(-margin, span + margin) * 256.0f) / 256.0f;
    }
    case 4:
    case 5: {
        const float v = std::floor(uniform(0, static_cast<float>(size))) + 0.5f;
        return norm ? v / static_cast<float>(size) : v;
    }
    case 6: {
        const float edges[] = {0.0f, span, -0.0f, span - 1.0f / 512.0f, 1.0f / 512.0f, -1.0f, span + 1.0f};
        return edges[next() % 7];
    }
    default: {
        const float specials[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.5f, 1.0f};
        return specials[next() % 7];
    }
    }
}

// A cubemap direction: mostly random, some on the faces' diagonals (ties between major axes) and zero.
float4 direction() {
    const unsigned kind = next() % 8;
    float4 p{uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), 0};
    if (kind == 5) p.y = (next() & 1) ? p.x : -p.x; // |x| == |y|
    if (kind == 6) p.z = (next() & 1) ? p.y : -p.y; // |y| == |z|
    if (kind == 7) {
        const float v[] = {0.0f, 1.0f, -1.0f, 0.5f};
        p = float4{v[next() % 4], v[next() % 4], v[next() % 4], 0};
    }
    return p;
}

int layer_index(int layers) {
    switch (next() % 8) {
    case 0:
        return layers + static_cast<int>(next() % 3); // past the last layer
    case 1:
        return -1 - static_cast<int>(next() % 2); // as u32: far past the end
    default:
        return static_cast<int>(next() % layers);
    }
}

struct Case {
    const char* name;
    Geo geo;
    cudaChannelFormatDesc format;
    int width, height, depth; // depth: slices, layers, or 6 x layers for cubemaps
    unsigned array_flags;
    cudaTextureFilterMode filter;
    cudaTextureAddressMode address;
    cudaTextureReadMode read;
    bool norm;
    bool integer_result; // sample as uint4 (element-type reads of integer texels)
};

// Texel bytes from a formula of the byte's position (distinct, non-trivial values).
std::vector<unsigned char> texels(size_t bytes, const cudaChannelFormatDesc& f) {
    std::vector<unsigned char> v(bytes);
    for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>((i * 37u + (i >> 5) * 11u + 3u) & 0xffu);
    if (f.f == cudaChannelFormatKindFloat) {
        // Finite floats of either sign: f32 texels (x = 32 bits) or f16 texels (x = 16 bits).
        if (f.x == 32) {
            for (size_t i = 0; i + 4 <= bytes; i += 4) {
                // Exactly rounded on every host (no libm): full mantissas, either sign, magnitudes below 21.
                const int n = static_cast<int>(((i * 2654435761u) >> 12) % 4001u) - 2000;
                const float x = static_cast<float>(n) / 97.0f;
                std::memcpy(&v[i], &x, 4);
            }
        } else {
            for (size_t i = 0; i + 2 <= bytes; i += 2) {
                const uint16_t h = static_cast<uint16_t>(0x3000u + ((i * 97u) & 0xfffu) + ((i & 2) ? 0x8000u : 0u));
                std::memcpy(&v[i], &h, 2);
            }
        }
    }
    return v;
}

size_t element_bytes(const cudaChannelFormatDesc& f) { return static_cast<size_t>(f.x + f.y + f.z + f.w) / 8; }

void run_case(const Case& k, int samples, uint32_t seed) {
    g_rng = seed; // each case its own coordinates, whichever cases run
    const bool layered = k.array_flags & cudaArrayLayered;
    cudaExtent extent = make_cudaExtent(k.width, k.geo == Geo::Layered1D ? 0 : k.height, k.depth);
    cudaArray_t array;
    CHECK(cudaMalloc3DArray(&array, &k.format, extent, k.array_flags));
    const size_t eb = element_bytes(k.format);
    const size_t rows = k.geo == Geo::Layered1D ? 1 : static_cast<size_t>(k.height);
    std::vector<unsigned char> host = texels(eb * k.width * rows * k.depth, k.format);
    cudaMemcpy3DParms copy{};
    copy.srcPtr = make_cudaPitchedPtr(host.data(), eb * k.width, k.width, rows);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(k.width, rows, k.depth);
    copy.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&copy));

    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td{};
    for (auto& a : td.addressMode) a = k.address;
    td.filterMode = k.filter;
    td.readMode = k.read;
    td.normalizedCoords = k.norm;
    td.borderColor[0] = 0.25f;
    td.borderColor[1] = -2.0f;
    td.borderColor[2] = 0.75f;
    td.borderColor[3] = 1.0f;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));

    std::vector<float4> coords(samples);
    const int layers = layered ? (k.geo == Geo::CubeLayered ? k.depth / 6 : k.depth) : 1;
    for (float4& p : coords) {
        if (k.geo == Geo::Cube || k.geo == Geo::CubeLayered) {
            p = direction();
        } else {
            p.x = coord(k.width, k.norm);
            p.y = coord(k.height, k.norm);
            p.z = coord(k.depth, k.norm);
        }
        if (layered) {
            const int l = layer_index(layers);
            std::memcpy(&p.w, &l, 4);
        }
    }
    float4* dc;
    uint4* dout;
    CHECK(cudaMalloc(&dc, samples * sizeof(float4)));
    CHECK(cudaMalloc(&dout, samples * sizeof(uint4)));
    CHECK(cudaMemcpy(dc, coords.data(), samples * sizeof(float4), cudaMemcpyHostToDevice));
    const int blocks = (samples + 127) / 128;
    if (k.integer_result)
        sample<uint4><<<blocks, 128>>>(k.geo, tex, dc, dout, samples);
    else
        sample<float4><<<blocks, 128>>>(k.geo, tex, dc, reinterpret_cast<float4*>(dout), samples);
    CHECK(cudaGetLastError());
    std::vector<uint4> out(samples);
    CHECK(cudaMemcpy(out.data(), dout, samples * sizeof(uint4), cudaMemcpyDeviceToHost));
    print_digest(k.name, out.data(), out.size() * sizeof(uint4));
    if (g_dump) {
        for (int i = 0; i < samples; ++i) {
            uint32_t c[4];
            std::memcpy(c, &coords[i], 16);
            std::fprintf(g_dump, "%s %d %08x %08x %08x %08x -> %08x %08x %08x %08x\n", k.name, i, c[0], c[1], c[2],
                         c[3], out[i].x, out[i].y, out[i].z, out[i].w);
        }
    }
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dout));
}

// Surfaces: every thread writes its texel of a 3D / layered / cubemap array through a surface object and
// reads a neighbour back with the zero and clamp boundary modes (out-of-range reads included). 3D reads
// cross slices, so they come from a second launch.
__global__ void surface_3d_write(cudaSurfaceObject_t s) {
    const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    surf3Dwrite(make_ushort2(static_cast<unsigned short>(x * 131 + y), static_cast<unsigned short>(z * 7 + 1)), s,
                x * 4, y, z);
}

__global__ void surface_3d_read(cudaSurfaceObject_t s, int w, int h, uint2* probe) {
    const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    const int i = (z * h + y) * w + x;
    ushort2 a = surf3Dread<ushort2>(s, (x + 2) * 4, y, z - 1, cudaBoundaryModeZero);
    ushort2 b = surf3Dread<ushort2>(s, (x - 3) * 4, y + 2, z + 1, cudaBoundaryModeClamp);
    probe[i] = make_uint2(a.x | (a.y << 16u), b.x | (b.y << 16u));
}

__global__ void surface_layered(cudaSurfaceObject_t s2, cudaSurfaceObject_t s1, cudaSurfaceObject_t cube, int w,
                                uint4* probe) {
    const int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
    surf2DLayeredwrite(static_cast<float>(x + 10 * y + 100 * layer), s2, x * 4, y, layer);
    if (y == 0) surf1DLayeredwrite(static_cast<unsigned char>(x * 3 + layer), s1, x, layer);
    if (layer < 6) surfCubemapwrite(make_uchar4(x, y, layer, 255), cube, x * 4, y, layer);
    __syncthreads();
    const int i = (layer * blockDim.y + y) * w + x;
    const float f = surf2DLayeredread<float>(s2, (w - 1 - x) * 4, y, layer, cudaBoundaryModeClamp);
    const unsigned char c = surf1DLayeredread<unsigned char>(s1, x + 1, layer, cudaBoundaryModeZero);
    const uchar4 q = layer < 6 ? surfCubemapread<uchar4>(cube, (x + 1) * 4, y, layer, cudaBoundaryModeZero)
                               : make_uchar4(0, 0, 0, 0);
    probe[i] = make_uint4(__float_as_uint(f), c, q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u), 0);
}

cudaSurfaceObject_t surface_of(cudaArray_t a) {
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &res));
    return s;
}

template <typename T>
void digest_array(const char* what, cudaArray_t a, int w, int rows, int depth) {
    std::vector<T> host(static_cast<size_t>(w) * rows * depth);
    cudaMemcpy3DParms copy{};
    copy.srcArray = a;
    copy.dstPtr = make_cudaPitchedPtr(host.data(), w * sizeof(T), w, rows);
    copy.extent = make_cudaExtent(w, rows, depth);
    copy.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&copy));
    print_digest(what, host.data(), host.size() * sizeof(T));
}

void surfaces() {
    const int w = 8, h = 4, d = 3, layers = 7;
    cudaChannelFormatDesc u16x2 = cudaCreateChannelDesc<ushort2>();
    cudaArray_t a3;
    CHECK(cudaMalloc3DArray(&a3, &u16x2, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s3 = surface_of(a3);
    uint2* probe3;
    CHECK(cudaMalloc(&probe3, w * h * d * sizeof(uint2)));
    surface_3d_write<<<d, dim3(w, h)>>>(s3);
    surface_3d_read<<<d, dim3(w, h)>>>(s3, w, h, probe3);
    CHECK(cudaGetLastError());
    std::vector<uint2> p3(w * h * d);
    CHECK(cudaMemcpy(p3.data(), probe3, p3.size() * sizeof(uint2), cudaMemcpyDeviceToHost));
    print_digest("surface 3d probes", p3.data(), p3.size() * sizeof(uint2));
    digest_array<ushort2>("surface 3d texels", a3, w, h, d);

    cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>(), u8 = cudaCreateChannelDesc<unsigned char>();
    cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a2, a1, cube;
    CHECK(cudaMalloc3DArray(&a2, &f32, make_cudaExtent(w, h, layers), cudaArrayLayered | cudaArraySurfaceLoadStore));
    CHECK(cudaMalloc3DArray(&a1, &u8, make_cudaExtent(w, 0, layers), cudaArrayLayered | cudaArraySurfaceLoadStore));
    CHECK(cudaMalloc3DArray(&cube, &u8x4, make_cudaExtent(h, h, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s2 = surface_of(a2), s1 = surface_of(a1), sc = surface_of(cube);
    uint4* probe;
    CHECK(cudaMalloc(&probe, w * h * layers * sizeof(uint4)));
    // h x h threads per layer: the cube's faces are h x h, and the default (trap) boundary mode of a write
    // outside them would fault.
    surface_layered<<<layers, dim3(h, h)>>>(s2, s1, sc, h, probe);
    CHECK(cudaGetLastError());
    std::vector<uint4> pl(h * h * layers);
    CHECK(cudaMemcpy(pl.data(), probe, pl.size() * sizeof(uint4), cudaMemcpyDeviceToHost));
    print_digest("surface layered probes", pl.data(), pl.size() * sizeof(uint4));
    digest_array<float>("surface a2d texels", a2, w, h, layers);
    digest_array<unsigned char>("surface a1d texels", a1, w, 1, layers);
    digest_array<uchar4>("surface cube texels", cube, h, h, 6);
    for (cudaSurfaceObject_t s : {s3, s2, s1, sc}) CHECK(cudaDestroySurfaceObject(s));
    for (cudaArray_t a : {a3, a2, a1, cube}) CHECK(cudaFreeArray(a));
    CHECK(cudaFree(probe3));
    CHECK(cudaFree(probe));
}

} // namespace

int main(int argc, char** argv) {
    const bool trilinear = argc > 1 && std::strcmp(argv[1], "--trilinear") == 0;
    if (const char* path = std::getenv("RT_TEXTURE_DUMP")) g_dump = std::fopen(path, "w");
    const cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>(), f32x4 = cudaCreateChannelDesc<float4>();
    const cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>(), f16 = cudaCreateChannelDescHalf();
    const cudaChannelFormatDesc u16 = cudaCreateChannelDesc<unsigned short>();
    const auto P = cudaFilterModePoint, L = cudaFilterModeLinear;
    const auto E = cudaReadModeElementType, N = cudaReadModeNormalizedFloat;
    const Case cases[] = {
        {"3d f32 point clamp", Geo::Tex3D, f32, 5, 4, 3, 0, P, cudaAddressModeClamp, E, false, false},
        {"3d f32x4 linear clamp", Geo::Tex3D, f32x4, 5, 4, 3, 0, L, cudaAddressModeClamp, E, false, false},
        {"3d f32x4 linear border", Geo::Tex3D, f32x4, 4, 3, 5, 0, L, cudaAddressModeBorder, E, false, false},
        {"3d u8x4 linear wrap norm", Geo::Tex3D, u8x4, 6, 5, 4, 0, L, cudaAddressModeWrap, N, true, false},
        {"3d u8x4 linear mirror norm", Geo::Tex3D, u8x4, 3, 4, 5, 0, L, cudaAddressModeMirror, N, true, false},
        {"3d f16 linear clamp norm", Geo::Tex3D, f16, 7, 3, 4, 0, L, cudaAddressModeClamp, E, true, false},
        {"3d u16 linear border", Geo::Tex3D, u16, 4, 4, 4, 0, L, cudaAddressModeBorder, N, false, false},
        {"3d u8x4 point integer", Geo::Tex3D, u8x4, 5, 3, 4, 0, P, cudaAddressModeClamp, E, false, true},
        {"a1d u8x4 linear clamp", Geo::Layered1D, u8x4, 9, 1, 5, cudaArrayLayered, L, cudaAddressModeClamp, N, false,
         false},
        {"a2d f32 point wrap norm", Geo::Layered2D, f32, 5, 4, 6, cudaArrayLayered, P, cudaAddressModeWrap, E, true,
         false},
        {"a2d f32x4 linear clamp", Geo::Layered2D, f32x4, 5, 4, 6, cudaArrayLayered, L, cudaAddressModeClamp, E, false,
         false},
        {"a2d u8x4 linear border", Geo::Layered2D, u8x4, 6, 3, 4, cudaArrayLayered, L, cudaAddressModeBorder, N, false,
         false},
        {"a2d u8x4 point border", Geo::Layered2D, u8x4, 6, 3, 4, cudaArrayLayered, P, cudaAddressModeBorder, N, false,
         false},
        {"a2d u16 point border", Geo::Layered2D, u16, 3, 5, 2, cudaArrayLayered, P, cudaAddressModeBorder, N, true,
         false},
        {"cube f32x4 point", Geo::Cube, f32x4, 4, 4, 6, cudaArrayCubemap, P, cudaAddressModeClamp, E, true, false},
        {"cube f32x4 linear", Geo::Cube, f32x4, 4, 4, 6, cudaArrayCubemap, L, cudaAddressModeClamp, E, true, false},
        {"cube u8x4 linear", Geo::Cube, u8x4, 5, 5, 6, cudaArrayCubemap, L, cudaAddressModeClamp, N, true, false},
        {"acube f32 point", Geo::CubeLayered, f32, 3, 3, 12, cudaArrayCubemap | cudaArrayLayered, P,
         cudaAddressModeClamp, E, true, false},
    };
    uint32_t seed = 12345u;
    for (const Case& k : cases) {
        seed = seed * 2654435761u + 1u;
        if (k.geo == Geo::Tex3D && k.filter == L && !trilinear) continue;
        run_case(k, 1024, seed);
    }
    surfaces();
    CHECK(cudaDeviceSynchronize());
    if (g_dump) std::fclose(g_dump);
    return finish("rt_texture_volume");
}
