// fuzz_cuda_api: fuzzed descriptors (arrays, 2D/3D copies, resources, properties, graph nodes).
#include "fuzz_api.h"

namespace fuzz_api {

namespace {

// One side of a 2D/3D copy: host, device, unified or array, each with fuzzed offsets and pitch.
struct CopySide {
    CUmemorytype type;
    void* host;
    CUdeviceptr dev;
    CUarray array;
    size_t x, y, z, pitch, height;
};

} // namespace

// ---- Descriptors ------------------------------------------------------------------------------------

CUarray_format pick_format(Input& in) {
    static const unsigned values[] = {0x01, 0x02, 0x03, 0x08, 0x09, 0x0a, 0x10, 0x20, 0x00, 0x7f, 0xffffffff};
    return static_cast<CUarray_format>(values[in.below(std::size(values))]);
}

size_t pick_extent(Input& in) {
    static const uint64_t values[] = {
        0, 1, 2, 3, 16, 64, 100, 256, 1000, 4096, 65536, 1ull << 31, 1ull << 32, (1ull << 33) + 1, ~0ull};
    return values[in.below(std::size(values))];
}

// An array descriptor whose texels fit in 64 MiB, or whose size does not fit in 64 bits (the product must
// be refused, not wrapped), never one in between that the machine would have to hold.
void bound_extent(size_t& w, size_t& h, size_t& d, unsigned channels) {
    unsigned __int128 total = (unsigned __int128)std::max<size_t>(w, 1) * std::max<size_t>(h, 1) *
                              std::max<size_t>(d, 1) * std::max(channels, 1u) * 16;
    if (total > (64u << 20) && total < ((unsigned __int128)1 << 64) && !g_budget) {
        w = std::min<size_t>(w, 256);
        h = std::min<size_t>(h, 256);
        d = std::min<size_t>(d, 16);
    }
}

void fill_array3d(Input& in, CUDA_ARRAY3D_DESCRIPTOR& d) {
    d.Width = pick_extent(in);
    d.Height = pick_extent(in);
    d.Depth = in.u8() % 3 ? 0 : pick_extent(in);
    d.Format = pick_format(in);
    d.NumChannels = in.u8() % 3 == 0 ? in.below(6) : 1u << in.below(3);
    d.Flags = in.u8() % 4 ? 0 : in.u32() & 0x3f;
    bound_extent(d.Width, d.Height, d.Depth, d.NumChannels);
}

CUmemorytype pick_memtype(Input& in) { return static_cast<CUmemorytype>(in.below(6)); }

CopySide pick_side(Input& in) {
    CopySide s{};
    s.type = pick_memtype(in);
    s.host = pick_host(in);
    s.dev = s.type == CU_MEMORYTYPE_UNIFIED ? pick_unified(in) : pick_dptr(in);
    s.array = pick(in, P->array);
    auto small = [&]() -> size_t {
        switch (in.u8() % 8) {
        case 0:
            return huge_size(in);
        case 1:
            return in.u16();
        default:
            return in.below(16);
        }
    };
    s.x = small();
    s.y = small();
    s.z = in.u8() % 4 ? 0 : small();
    switch (in.u8() % 8) {
    case 0:
        s.pitch = huge_size(in);
        break;
    case 1:
        s.pitch = 0;
        break;
    case 2:
        s.pitch = ~0ull - in.below(512);
        break; // (rows - 1) * pitch wraps
    default:
        s.pitch = in.u16() % 2048;
        break;
    }
    s.height = in.u8() % 4 ? in.below(64) : huge_size(in);
    return s;
}

void fill_copy2d(Input& in, CUDA_MEMCPY2D& c) {
    std::memset(&c, 0, sizeof c);
    CopySide s = pick_side(in), d = pick_side(in);
    c.srcMemoryType = s.type;
    c.srcHost = s.host;
    c.srcDevice = s.dev;
    c.srcArray = s.array;
    c.srcXInBytes = s.x;
    c.srcY = s.y;
    c.srcPitch = s.pitch;
    c.dstMemoryType = d.type;
    c.dstHost = d.host;
    c.dstDevice = d.dev;
    c.dstArray = d.array;
    c.dstXInBytes = d.x;
    c.dstY = d.y;
    c.dstPitch = d.pitch;
    c.WidthInBytes = in.u8() % 8 ? in.u16() % 1024 : huge_size(in);
    c.Height = in.u8() % 8 ? in.below(32) : huge_size(in);
}

void fill_copy3d(Input& in, CUDA_MEMCPY3D& c) {
    std::memset(&c, 0, sizeof c);
    CopySide s = pick_side(in), d = pick_side(in);
    c.srcMemoryType = s.type;
    c.srcHost = s.host;
    c.srcDevice = s.dev;
    c.srcArray = s.array;
    c.srcXInBytes = s.x;
    c.srcY = s.y;
    c.srcZ = s.z;
    c.srcPitch = s.pitch;
    c.srcHeight = s.height;
    c.dstMemoryType = d.type;
    c.dstHost = d.host;
    c.dstDevice = d.dev;
    c.dstArray = d.array;
    c.dstXInBytes = d.x;
    c.dstY = d.y;
    c.dstZ = d.z;
    c.dstPitch = d.pitch;
    c.dstHeight = d.height;
    c.srcLOD = in.u8() % 16 == 0;
    c.WidthInBytes = in.u8() % 8 ? in.u16() % 1024 : huge_size(in);
    c.Height = in.u8() % 8 ? in.below(16) : huge_size(in);
    c.Depth = in.u8() % 8 ? in.below(4) : huge_size(in);
}

void fill_resource(Input& in, CUDA_RESOURCE_DESC& r) {
    std::memset(&r, 0, sizeof r);
    r.resType = static_cast<CUresourcetype>(in.below(5));
    switch (in.u8() % 4) {
    case 0:
        r.res.array.hArray = pick(in, P->array);
        break;
    case 1:
        r.res.mipmap.hMipmappedArray = pick(in, P->mipmap);
        break;
    case 2:
        r.res.linear.devPtr = pick_dptr(in);
        r.res.linear.format = pick_format(in);
        r.res.linear.numChannels = in.below(6);
        r.res.linear.sizeInBytes = pick_size(in);
        break;
    default:
        r.res.pitch2D.devPtr = pick_dptr(in);
        r.res.pitch2D.format = pick_format(in);
        r.res.pitch2D.numChannels = in.below(6);
        r.res.pitch2D.width = pick_extent(in);
        r.res.pitch2D.height = pick_extent(in);
        r.res.pitch2D.pitchInBytes = in.flip() ? pick_size(in) : (in.u16() & ~31u);
        break;
    }
    if (r.resType == CU_RESOURCE_TYPE_ARRAY && in.flip()) r.res.array.hArray = pick(in, P->array);
    r.flags = in.u8() % 8 ? 0 : in.u32();
}

void fill_ctx_params(Input& in, CUctxCreateParams& p) {
    std::memset(&p, 0, sizeof p);
    p.numExecAffinityParams = in.u8() % 4 ? 0 : int(in.u32());
    // execAffinityParams / cigParams stay NULL: d4r's only answer to them is a refusal.
}

void fill_mem_prop(Input& in, CUmemAllocationProp& p) {
    std::memset(&p, 0, sizeof p);
    p.type = static_cast<CUmemAllocationType>(in.u8() % 4 ? 1 : in.below(4));
    p.requestedHandleTypes = static_cast<CUmemAllocationHandleType>(in.u8() % 4 ? 0 : in.below(10));
    p.location.type = static_cast<CUmemLocationType>(in.u8() % 4 ? 1 : in.below(6));
    p.location.id = in.u8() % 4 ? 0 : int(in.u32());
    p.allocFlags.compressionType = in.u8() % 8 ? 0 : in.u8();
}

void fill_pool_props(Input& in, CUmemPoolProps& p) {
    std::memset(&p, 0, sizeof p);
    p.allocType = static_cast<CUmemAllocationType>(in.u8() % 4 ? 1 : in.below(4));
    p.handleTypes = static_cast<CUmemAllocationHandleType>(in.u8() % 4 ? 0 : in.below(10));
    p.location.type = static_cast<CUmemLocationType>(in.u8() % 4 ? 1 : in.below(6));
    p.location.id = in.u8() % 4 ? 0 : int(in.u32());
    p.maxSize = in.u8() % 4 ? 0 : alloc_size(in);
    if (in.u8() % 8 == 0) p.reserved[in.below(54)] = 1;
}

CUmemLocation pick_location(Input& in) {
    CUmemLocation l{};
    l.type = static_cast<CUmemLocationType>(in.u8() % 4 ? 1 : in.below(6));
    l.id = in.u8() % 4 ? 0 : int(in.u32());
    return l;
}

Deps pick_deps(Input& in) {
    Deps d{};
    d.count = in.below(5);
    for (size_t i = 0; i < d.count; ++i) d.nodes[i] = pick(in, P->node);
    d.ptr = d.nodes;
    if (in.u8() % 6 == 0) d.ptr = nullptr; // with a count > 0: refused
    if (d.count == 0 && in.flip()) d.ptr = nullptr;
    return d;
}

void fill_kernel_node(Input& in, CUDA_KERNEL_NODE_PARAMS& k, LaunchArgs& a) {
    std::memset(&k, 0, sizeof k);
    k.func = pick_function(in);
    k.gridDimX = pick_dim(in, true);
    k.gridDimY = in.u8() % 8 ? 1 : pick_dim(in, true);
    k.gridDimZ = in.u8() % 8 ? 1 : pick_dim(in, true);
    k.blockDimX = pick_dim(in, false);
    k.blockDimY = in.u8() % 8 ? 1 : pick_dim(in, false);
    k.blockDimZ = 1;
    k.sharedMemBytes = pick_shared(in);
    build_args(in, k.func, a, k.kernelParams, k.extra);
    if (in.u8() % 8 == 0) k.kern = pick(in, P->kernel);
    if (in.u8() % 8 == 0) k.ctx = pick_ctx(in);
    // A CUkernel resolves in the current context: make sure its signature is known if params are used.
    if (k.kern) {
        k.kernelParams = nullptr;
        a.buffer_size = std::min(a.buffer_size, sizeof a.buffer);
    }
}

void fill_memset_node(Input& in, CUDA_MEMSET_NODE_PARAMS& m) {
    m.dst = pick_dptr(in);
    m.pitch = in.flip() ? in.u16() : pick_size(in);
    m.value = in.u32();
    static const unsigned sizes[] = {1, 2, 4, 0, 3, 8};
    m.elementSize = sizes[in.below(6)];
    m.width = in.u8() % 8 ? in.u16() % 512 : pick_size(in);
    m.height = in.u8() % 8 ? in.below(8) : pick_size(in);
}

} // namespace fuzz_api
