// A D3D12 "game" for d4r's NGX shim (d4r_nvngx.dll): creates a D3D12 device, uploads the frames that
// tests/bridge/programs/scene_frames.cpp wrote (colour, depth, motion vectors, jitter, exposure) into
// textures of the chosen formats, and calls the shim's NGX D3D12 API as a game does: Init, capability
// parameters, CreateFeature, per frame the uploads and EvaluateFeature in one command list followed by a
// copy of the output texture, then ReleaseFeature and Shutdown. Windows only (mingw); under Wine, D3D12
// is vkd3d on Vulkan (lavapipe in the tests) and CUDA is d4r's bridge.
//   d3d12_harness FRAMES_DIR [--color FORMAT] [--output FORMAT] [--scenario NAME]
//     FORMAT: a name of formats_encode.h (rgba16f, rgba32f, r11g11b10f, rgb10a2, rgba8, rgba8srgb, bgra8,
//             bgra8srgb, rgb9e5); colour defaults to rgba16f, the output to rgba16f
//     scenarios: frames (default) — every frame, printing one line per frame as ngx_frames does and writing
//                $PROGRAM_OUT/frame_<i>.bin (the output texture's bytes);
//                refusals — missing and unsupported resources, an unknown handle, null out-parameters;
//                recreate — release and create the feature again halfway through the frames;
//                no-core — D4R_SHIM_NGX_CORE names a missing DLL: Init must fail cleanly
// Exit status 0 when every check held, 77 (with a SKIPPED line) when the D3D12 implementation cannot create a
// texture of the colour format asked for.
#include <windows.h>

#include <d3d12.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "formats_encode.h"
#include "shim/ngx_d3d12.h"

using namespace d4r::abi;
namespace enc = d4r::test::encode;

namespace {

[[noreturn]] void fail(const std::string& why) {
    std::fprintf(stderr, "d3d12_harness: %s\n", why.c_str());
    std::fflush(stdout);
    std::exit(1);
}

void check_hr(HRESULT hr, const char* what) {
    if (FAILED(hr)) {
        char text[32];
        std::snprintf(text, sizeof text, "%#lx", static_cast<unsigned long>(hr));
        fail(std::string(what) + " failed with HRESULT " + text);
    }
}

std::string hex(unsigned v) {
    char text[16];
    std::snprintf(text, sizeof text, "%#x", v);
    return text;
}

void check_ngx(NVSDK_NGX_Result r, const char* what) {
    if (r != NVSDK_NGX_Result_Success) fail(std::string(what) + " gave NGX result " + hex(unsigned(r)));
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail("cannot open " + path);
    std::vector<uint8_t> bytes;
    uint8_t chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    std::fclose(f);
    return bytes;
}

uint64_t fnv1a(const void* data, size_t bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const uint8_t*>(data)[i]) * 0x100000001b3ull;
    return h;
}

float from_bits(const uint8_t* p) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
}

// ---- The shim's API -------------------------------------------------------------------------------------

#define SHIM_FUNCTIONS(X)                                                                                              \
    X(NVSDK_NGX_D3D12_Init) X(NVSDK_NGX_D3D12_Shutdown1) X(NVSDK_NGX_D3D12_GetCapabilityParameters)                   \
    X(NVSDK_NGX_D3D12_AllocateParameters) X(NVSDK_NGX_D3D12_DestroyParameters) X(NVSDK_NGX_D3D12_CreateFeature)       \
    X(NVSDK_NGX_D3D12_EvaluateFeature_C) X(NVSDK_NGX_D3D12_ReleaseFeature) X(NVSDK_NGX_D3D12_GetScratchBufferSize)    \
    X(NVSDK_NGX_D3D12_GetParameters) X(NVSDK_NGX_Parameter_SetUI) X(NVSDK_NGX_Parameter_GetUI)

struct Shim {
#define SHIM_MEMBER(name) decltype(&::name) name = nullptr;
    SHIM_FUNCTIONS(SHIM_MEMBER)
#undef SHIM_MEMBER
};

Shim load_shim() {
    HMODULE dll = LoadLibraryA("d4r_nvngx.dll");
    if (!dll) fail("cannot load d4r_nvngx.dll (Windows error " + std::to_string(GetLastError()) + ")");
    Shim s;
#define SHIM_RESOLVE(name)                                                                                             \
    s.name = reinterpret_cast<decltype(s.name)>(GetProcAddress(dll, #name));                                           \
    if (!s.name) fail("d4r_nvngx.dll does not export " #name);
    SHIM_FUNCTIONS(SHIM_RESOLVE)
#undef SHIM_RESOLVE
    return s;
}

// ---- D3D12 ------------------------------------------------------------------------------------------------

constexpr D3D12_RESOURCE_STATES kInputState =
    D3D12_RESOURCE_STATES(int(D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE) | int(D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE));

struct Gpu {
    ID3D12Device* device = nullptr;
    ID3D12CommandQueue* queue = nullptr;
    ID3D12CommandAllocator* allocator = nullptr;
    ID3D12GraphicsCommandList* list = nullptr;
    ID3D12Fence* fence = nullptr;
    UINT64 fence_value = 0;
    HANDLE event = nullptr;

    void create() {
        HMODULE d3d12 = LoadLibraryA("d3d12.dll");
        if (!d3d12) fail("cannot load d3d12.dll");
        auto create_device = reinterpret_cast<PFN_D3D12_CREATE_DEVICE>(GetProcAddress(d3d12, "D3D12CreateDevice"));
        if (!create_device) fail("d3d12.dll has no D3D12CreateDevice");
        check_hr(create_device(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), reinterpret_cast<void**>(&device)),
                 "D3D12CreateDevice");
        D3D12_COMMAND_QUEUE_DESC q{};
        q.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
        check_hr(device->CreateCommandQueue(&q, __uuidof(ID3D12CommandQueue), reinterpret_cast<void**>(&queue)),
                 "CreateCommandQueue");
        check_hr(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, __uuidof(ID3D12CommandAllocator),
                                                reinterpret_cast<void**>(&allocator)),
                 "CreateCommandAllocator");
        check_hr(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, nullptr,
                                           __uuidof(ID3D12GraphicsCommandList), reinterpret_cast<void**>(&list)),
                 "CreateCommandList");
        check_hr(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, __uuidof(ID3D12Fence), reinterpret_cast<void**>(&fence)),
                 "CreateFence");
        event = CreateEventA(nullptr, FALSE, FALSE, nullptr);
    }

    // Closes the list, runs it, waits, and opens it again (as a game's frame loop does).
    void submit_and_wait() {
        check_hr(list->Close(), "ID3D12GraphicsCommandList::Close");
        ID3D12CommandList* lists[] = {list};
        queue->ExecuteCommandLists(1, lists);
        check_hr(queue->Signal(fence, ++fence_value), "Signal");
        if (fence->GetCompletedValue() < fence_value) {
            check_hr(fence->SetEventOnCompletion(fence_value, event), "SetEventOnCompletion");
            if (WaitForSingleObject(event, 60000) != WAIT_OBJECT_0) fail("the GPU did not finish within 60 s");
        }
        check_hr(allocator->Reset(), "ID3D12CommandAllocator::Reset");
        check_hr(list->Reset(allocator, nullptr), "ID3D12GraphicsCommandList::Reset");
    }

    ID3D12Resource* texture(uint32_t width, uint32_t height, DXGI_FORMAT format, D3D12_RESOURCE_FLAGS flags,
                            D3D12_RESOURCE_STATES state) {
        D3D12_HEAP_PROPERTIES heap{};
        heap.Type = D3D12_HEAP_TYPE_DEFAULT;
        D3D12_RESOURCE_DESC desc{};
        desc.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
        desc.Width = width;
        desc.Height = height;
        desc.DepthOrArraySize = 1;
        desc.MipLevels = 1;
        desc.Format = format;
        desc.SampleDesc.Count = 1;
        desc.Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN;
        desc.Flags = flags;
        ID3D12Resource* r = nullptr;
        check_hr(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                                 __uuidof(ID3D12Resource), reinterpret_cast<void**>(&r)),
                 ("creating a texture of DXGI format " + std::to_string(int(format))).c_str());
        return r;
    }

    bool can_create(uint32_t width, uint32_t height, DXGI_FORMAT format) {
        D3D12_HEAP_PROPERTIES heap{};
        heap.Type = D3D12_HEAP_TYPE_DEFAULT;
        D3D12_RESOURCE_DESC desc{};
        desc.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
        desc.Width = width;
        desc.Height = height;
        desc.DepthOrArraySize = 1;
        desc.MipLevels = 1;
        desc.Format = format;
        desc.SampleDesc.Count = 1;
        ID3D12Resource* r = nullptr;
        HRESULT hr = device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, kInputState, nullptr,
                                                     __uuidof(ID3D12Resource), reinterpret_cast<void**>(&r));
        if (r) r->Release();
        return SUCCEEDED(hr);
    }

    ID3D12Resource* buffer(D3D12_HEAP_TYPE type, UINT64 bytes) {
        D3D12_HEAP_PROPERTIES heap{};
        heap.Type = type;
        D3D12_RESOURCE_DESC desc{};
        desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
        desc.Width = bytes;
        desc.Height = 1;
        desc.DepthOrArraySize = 1;
        desc.MipLevels = 1;
        desc.SampleDesc.Count = 1;
        desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
        ID3D12Resource* r = nullptr;
        D3D12_RESOURCE_STATES state =
            type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ : D3D12_RESOURCE_STATE_COPY_DEST;
        check_hr(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                                 __uuidof(ID3D12Resource), reinterpret_cast<void**>(&r)),
                 "creating a buffer");
        return r;
    }
};

void barrier(ID3D12GraphicsCommandList* list, ID3D12Resource* r, D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after) {
    D3D12_RESOURCE_BARRIER b{};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b.Transition.pResource = r;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b.Transition.StateBefore = before;
    b.Transition.StateAfter = after;
    list->ResourceBarrier(1, &b);
}

// A texture the harness fills from the CPU each frame through its own upload buffer.
struct InputTexture {
    ID3D12Resource* texture = nullptr;
    ID3D12Resource* upload = nullptr;
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT footprint{};
    uint32_t width = 0, height = 0;
    size_t texel = 0;

    void create(Gpu& gpu, uint32_t w, uint32_t h, DXGI_FORMAT format, size_t texel_bytes, D3D12_RESOURCE_FLAGS flags) {
        width = w, height = h, texel = texel_bytes;
        texture = gpu.texture(w, h, format, flags, kInputState);
        D3D12_RESOURCE_DESC desc = texture->GetDesc();
        UINT64 total = 0;
        gpu.device->GetCopyableFootprints(&desc, 0, 1, 0, &footprint, nullptr, nullptr, &total);
        upload = gpu.buffer(D3D12_HEAP_TYPE_UPLOAD, total);
    }
    // Writes packed rows into the upload buffer and records the copy into the texture.
    void record_upload(ID3D12GraphicsCommandList* list, const uint8_t* rows) {
        void* mapped = nullptr;
        D3D12_RANGE none{0, 0};
        check_hr(upload->Map(0, &none, &mapped), "mapping an upload buffer");
        for (uint32_t y = 0; y < height; ++y)
            std::memcpy(static_cast<uint8_t*>(mapped) + footprint.Offset + size_t(y) * footprint.Footprint.RowPitch,
                        rows + size_t(y) * width * texel, width * texel);
        upload->Unmap(0, nullptr);
        barrier(list, texture, kInputState, D3D12_RESOURCE_STATE_COPY_DEST);
        D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
        dst.pResource = texture;
        dst.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        src.pResource = upload;
        src.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        src.PlacedFootprint = footprint;
        list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
        barrier(list, texture, D3D12_RESOURCE_STATE_COPY_DEST, kInputState);
    }
};

struct Frames {
    std::string dir;
    unsigned rw = 0, rh = 0, ow = 0, oh = 0, count = 0;

    void open(const std::string& d) {
        dir = d;
        std::vector<uint8_t> index = read_file(dir + "/frames.txt");
        index.push_back(0);
        if (std::sscanf(reinterpret_cast<const char*>(index.data()), "%u %u %u %u %u", &rw, &rh, &ow, &oh, &count) != 5 ||
            !rw || !rh || !ow || !oh || !count)
            fail("bad " + dir + "/frames.txt");
    }
    std::vector<uint8_t> frame(unsigned i) const {
        std::vector<uint8_t> in = read_file(dir + "/frame_" + std::to_string(i) + ".bin");
        if (in.size() != 12 + size_t(rw) * rh * 16) fail("frame " + std::to_string(i) + ": wrong size");
        return in;
    }
};

struct Options {
    std::string frames;
    const enc::Format* color = nullptr;
    const enc::Format* output = nullptr;
    std::string scenario = "frames";
};

Options parse(int argc, char** argv) {
    Options o;
    o.color = enc::find("rgba16f");
    o.output = enc::find("rgba16f");
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) fail(a + " needs a value");
            return argv[++i];
        };
        if (a == "--color") {
            std::string v = value();
            if (!(o.color = enc::find(v))) fail("unknown colour format " + v);
        } else if (a == "--output") {
            std::string v = value();
            if (!(o.output = enc::find(v))) fail("unknown output format " + v);
        } else if (a == "--scenario") {
            o.scenario = value();
        } else if (o.frames.empty()) {
            o.frames = a;
        } else {
            fail("unexpected argument " + a);
        }
    }
    if (o.frames.empty()) fail("usage: d3d12_harness FRAMES_DIR [--color F] [--output F] [--scenario S]");
    return o;
}

// Everything one run of the frames needs.
struct Session {
    Gpu gpu;
    Shim shim;
    Frames frames;
    Options options;
    InputTexture color, depth, motion, exposure;
    ID3D12Resource* output = nullptr;
    ID3D12Resource* readback = nullptr;
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT out_footprint{};
    NVSDK_NGX_Parameter* params = nullptr;
    NVSDK_NGX_Handle* feature = nullptr;

    void create_resources() {
        const unsigned rw = frames.rw, rh = frames.rh;
        if (!gpu.can_create(rw, rh, DXGI_FORMAT(options.color->dxgi))) {
            // vkd3d on lavapipe has no R9G9B9E5 textures: the conversion is then covered by shim_formats only.
            std::printf("SKIPPED: this D3D12 implementation cannot create a %s texture\n", options.color->name);
            std::exit(77);
        }
        color.create(gpu, rw, rh, DXGI_FORMAT(options.color->dxgi), options.color->bytes, D3D12_RESOURCE_FLAG_NONE);
        depth.create(gpu, rw, rh, DXGI_FORMAT_R32_FLOAT, 4, D3D12_RESOURCE_FLAG_NONE);
        motion.create(gpu, rw, rh, DXGI_FORMAT_R16G16_FLOAT, 4, D3D12_RESOURCE_FLAG_NONE);
        exposure.create(gpu, 1, 1, DXGI_FORMAT_R32_FLOAT, 4, D3D12_RESOURCE_FLAG_NONE);
        output = gpu.texture(frames.ow, frames.oh, DXGI_FORMAT(options.output->dxgi),
                             D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        D3D12_RESOURCE_DESC desc = output->GetDesc();
        UINT64 total = 0;
        gpu.device->GetCopyableFootprints(&desc, 0, 1, 0, &out_footprint, nullptr, nullptr, &total);
        readback = gpu.buffer(D3D12_HEAP_TYPE_READBACK, total);
    }

    void create_feature() {
        NVSDK_NGX_Parameter* p = params;
        p->Set(NVSDK_NGX_Parameter_Width, frames.rw);
        p->Set(NVSDK_NGX_Parameter_Height, frames.rh);
        p->Set(NVSDK_NGX_Parameter_OutWidth, frames.ow);
        p->Set(NVSDK_NGX_Parameter_OutHeight, frames.oh);
        p->Set(NVSDK_NGX_Parameter_PerfQualityValue, int(NVSDK_NGX_PerfQuality_Value_MaxQuality));
        p->Set(NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags,
               int(NVSDK_NGX_DLSS_Feature_Flags_IsHDR | NVSDK_NGX_DLSS_Feature_Flags_MVLowRes));
        check_ngx(shim.NVSDK_NGX_D3D12_CreateFeature(gpu.list, NVSDK_NGX_Feature_SuperSampling, p, &feature),
                  "NVSDK_NGX_D3D12_CreateFeature");
    }

    void set_resources(ID3D12Resource* c, ID3D12Resource* d, ID3D12Resource* m, ID3D12Resource* e, ID3D12Resource* o) {
        auto res = [](ID3D12Resource* r) { return reinterpret_cast<d4r::abi::ID3D12Resource*>(r); };
        params->Set(NVSDK_NGX_Parameter_Color, res(c));
        params->Set(NVSDK_NGX_Parameter_Depth, res(d));
        params->Set(NVSDK_NGX_Parameter_MotionVectors, res(m));
        params->Set(NVSDK_NGX_Parameter_ExposureTexture, res(e));
        params->Set(NVSDK_NGX_Parameter_Output, res(o));
    }

    // Uploads frame I, evaluates in the same command list, copies the output out; returns the output bytes.
    std::vector<uint8_t> run_frame(unsigned i, bool reset) {
        std::vector<uint8_t> in = frames.frame(i);
        const size_t n = size_t(frames.rw) * frames.rh;
        const uint8_t* at = in.data() + 12;
        std::vector<uint8_t> encoded = enc::encode_color(*options.color, reinterpret_cast<const uint16_t*>(at), n);
        ID3D12GraphicsCommandList* list = gpu.list;
        color.record_upload(list, encoded.data());
        depth.record_upload(list, at + n * 8);
        motion.record_upload(list, at + n * 12);
        exposure.record_upload(list, in.data() + 8);
        set_resources(color.texture, depth.texture, motion.texture, exposure.texture, output);
        params->Set(NVSDK_NGX_Parameter_Jitter_Offset_X, from_bits(in.data()));
        params->Set(NVSDK_NGX_Parameter_Jitter_Offset_Y, from_bits(in.data() + 4));
        params->Set(NVSDK_NGX_Parameter_MV_Scale_X, 1.0f);
        params->Set(NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f);
        params->Set(NVSDK_NGX_Parameter_Reset, reset ? 1 : 0);
        check_ngx(shim.NVSDK_NGX_D3D12_EvaluateFeature_C(list, feature, params, nullptr), "NVSDK_NGX_D3D12_EvaluateFeature_C");
        // What the game records after the evaluation: a copy of the output.
        barrier(list, output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
        D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
        dst.pResource = readback;
        dst.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        dst.PlacedFootprint = out_footprint;
        src.pResource = output;
        src.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
        barrier(list, output, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        gpu.submit_and_wait();

        const size_t row = size_t(frames.ow) * options.output->bytes;
        std::vector<uint8_t> out(row * frames.oh);
        void* mapped = nullptr;
        D3D12_RANGE all{0, static_cast<SIZE_T>(out_footprint.Footprint.RowPitch) * frames.oh};
        check_hr(readback->Map(0, &all, &mapped), "mapping the readback buffer");
        for (unsigned y = 0; y < frames.oh; ++y)
            std::memcpy(out.data() + y * row,
                        static_cast<uint8_t*>(mapped) + out_footprint.Offset + size_t(y) * out_footprint.Footprint.RowPitch, row);
        D3D12_RANGE none{0, 0};
        readback->Unmap(0, &none);
        return out;
    }

    void write_output(unsigned i, const std::vector<uint8_t>& out) {
        const char* dir = std::getenv("PROGRAM_OUT");
        if (!dir || !*dir) return;
        std::string path = std::string(dir) + "/frame_" + std::to_string(i) + ".bin";
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size()) fail("cannot write " + path);
        std::fclose(f);
    }
};

void expect(NVSDK_NGX_Result got, NVSDK_NGX_Result want, const char* what) {
    if (got != want) fail(std::string(what) + ": expected " + hex(unsigned(want)) + ", got " + hex(unsigned(got)));
    std::printf("%s: %#x\n", what, unsigned(got));
}

void scenario_refusals(Session& s) {
    // Null out-parameters and unknown handles.
    expect(s.shim.NVSDK_NGX_D3D12_AllocateParameters(nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter,
           "AllocateParameters(null)");
    size_t scratch = 123;
    expect(s.shim.NVSDK_NGX_D3D12_GetScratchBufferSize(NVSDK_NGX_Feature_SuperSampling, s.params, &scratch),
           NVSDK_NGX_Result_Success, "GetScratchBufferSize");
    if (scratch != 0) fail("GetScratchBufferSize: expected 0 bytes");
    NVSDK_NGX_Handle bogus{4242};
    s.set_resources(s.color.texture, s.depth.texture, s.motion.texture, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, &bogus, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_FeatureNotFound, "EvaluateFeature(unknown handle)");
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(nullptr, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_InvalidParameter, "EvaluateFeature(null command list)");
    // A missing input.
    s.set_resources(nullptr, s.depth.texture, s.motion.texture, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_MissingInput, "EvaluateFeature(no colour)");
    // Unsupported formats: an R8 colour texture, an R8G8B8A8_UINT output.
    ID3D12Resource* r8 = s.gpu.texture(s.frames.rw, s.frames.rh, DXGI_FORMAT_R8_UNORM, D3D12_RESOURCE_FLAG_NONE, kInputState);
    s.set_resources(r8, s.depth.texture, s.motion.texture, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_UnsupportedFormat, "EvaluateFeature(R8_UNORM colour)");
    // A colour texture smaller than the render size.
    ID3D12Resource* small = s.gpu.texture(s.frames.rw / 2, s.frames.rh, DXGI_FORMAT_R16G16B16A16_FLOAT,
                                          D3D12_RESOURCE_FLAG_NONE, kInputState);
    s.set_resources(small, s.depth.texture, s.motion.texture, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_InvalidParameter, "EvaluateFeature(colour smaller than the render size)");
    r8->Release();
    small->Release();
    // The list is still usable, and a good evaluation still works after the refusals.
    std::vector<uint8_t> out = s.run_frame(0, true);
    std::printf("evaluation after the refusals: fnv1a %016llx\n", static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
    expect(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), NVSDK_NGX_Result_Success, "ReleaseFeature");
    expect(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), NVSDK_NGX_Result_FAIL_FeatureNotFound,
           "ReleaseFeature(released handle)");
    s.feature = nullptr;
}

} // namespace

int main(int argc, char** argv) {
    Session s;
    s.options = parse(argc, argv);
    s.frames.open(s.options.frames);
    s.gpu.create();
    s.shim = load_shim();

    if (s.options.scenario == "no-core") {
        NVSDK_NGX_Result r = s.shim.NVSDK_NGX_D3D12_Init(0xd4d4, L".", s.gpu.device, nullptr, NVSDK_NGX_Version_API);
        if (r == NVSDK_NGX_Result_Success) fail("Init succeeded without an NGX core");
        std::printf("Init without an NGX core: %#x\n", unsigned(r));
        NVSDK_NGX_Parameter* p = reinterpret_cast<NVSDK_NGX_Parameter*>(1);
        expect(s.shim.NVSDK_NGX_D3D12_AllocateParameters(&p), NVSDK_NGX_Result_FAIL_NotInitialized,
               "AllocateParameters before a successful Init");
        if (p != nullptr) fail("AllocateParameters did not null its out-parameter");
        return 0;
    }

    check_ngx(s.shim.NVSDK_NGX_D3D12_Init(0xd4d4, L".", s.gpu.device, nullptr, NVSDK_NGX_Version_API), "NVSDK_NGX_D3D12_Init");
    NVSDK_NGX_Parameter* caps = nullptr;
    check_ngx(s.shim.NVSDK_NGX_D3D12_GetCapabilityParameters(&caps), "NVSDK_NGX_D3D12_GetCapabilityParameters");
    unsigned available = 0;
    check_ngx(s.shim.NVSDK_NGX_Parameter_GetUI(caps, NVSDK_NGX_Parameter_SuperSampling_Available, &available),
              "reading SuperSampling.Available");
    if (available != 1) fail("SuperSampling.Available is not 1");
    check_ngx(s.shim.NVSDK_NGX_D3D12_DestroyParameters(caps), "NVSDK_NGX_D3D12_DestroyParameters");
    check_ngx(s.shim.NVSDK_NGX_D3D12_AllocateParameters(&s.params), "NVSDK_NGX_D3D12_AllocateParameters");
    s.create_resources();
    s.create_feature();

    if (s.options.scenario == "refusals") {
        scenario_refusals(s);
    } else if (s.options.scenario == "frames" || s.options.scenario == "recreate") {
        for (unsigned i = 0; i < s.frames.count; ++i) {
            bool reset = i == 0;
            if (s.options.scenario == "recreate" && i == s.frames.count / 2) {
                // A game that recreates its feature (a resolution change) mid-run: the new feature starts
                // with no history, so its first frame is evaluated with Reset.
                check_ngx(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), "NVSDK_NGX_D3D12_ReleaseFeature");
                s.create_feature();
                reset = true;
                std::printf("feature recreated before frame %u\n", i);
            }
            std::vector<uint8_t> out = s.run_frame(i, reset);
            s.write_output(i, out);
            if (s.options.output->dxgi == DXGI_FORMAT_R16G16B16A16_FLOAT)
                std::printf("frame %u: output %ux%u RGBA16F, fnv1a %016llx\n", i, s.frames.ow, s.frames.oh,
                            static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
            else
                std::printf("frame %u: output %ux%u %s, fnv1a %016llx\n", i, s.frames.ow, s.frames.oh,
                            s.options.output->name, static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
        }
        check_ngx(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), "NVSDK_NGX_D3D12_ReleaseFeature");
    } else {
        fail("unknown scenario " + s.options.scenario);
    }
    check_ngx(s.shim.NVSDK_NGX_D3D12_DestroyParameters(s.params), "NVSDK_NGX_D3D12_DestroyParameters");
    check_ngx(s.shim.NVSDK_NGX_D3D12_Shutdown1(s.gpu.device), "NVSDK_NGX_D3D12_Shutdown1");
    std::printf("d3d12_harness: %s, %u frames, colour %s, ok\n", s.options.scenario.c_str(), s.frames.count,
                s.options.color->name);
    return 0;
}
