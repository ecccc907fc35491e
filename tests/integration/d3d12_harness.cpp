// A D3D12 "game" for d4r's NGX shim (d4r_nvngx.dll): creates a D3D12 device, uploads the frames that
// tests/bridge/programs/scene_frames.cpp wrote (colour, depth, motion vectors, jitter, exposure) into
// textures of the chosen formats, and calls the shim's NGX D3D12 API as a game does: Init, capability
// parameters, CreateFeature, per frame the uploads and EvaluateFeature in one command list followed by a
// copy of the output texture, then ReleaseFeature and Shutdown. Windows only (mingw); under Wine, D3D12
// is vkd3d on Vulkan (lavapipe in the tests) and CUDA is d4r's bridge.
//   d3d12_harness FRAMES_DIR [--color F] [--output F] [--depth F] [--motion F] [--subrect] [--scenario NAME]
//     colour and output F: a name of formats_encode.h (rgba16f, rgba32f, r11g11b10f, rgb10a2, rgba8, rgba8srgb,
//             bgra8, bgra8srgb, rgb9e5), default rgba16f; depth: r32f (default), d32f, d24s8; motion: rg16f
//             (default), rg32f
//     --subrect: every input lies at its own offset inside a larger texture whose other texels are 0xFF bytes
//             (NaN colour), passed as the NGX subrect bases, and the output is written at an offset into a
//             larger output texture prefilled with 0xAB bytes, which must stay untouched around it
//     scenarios: frames (default) — every frame, printing one line per frame as ngx_frames does and writing
//                $PROGRAM_OUT/frame_<i>.bin (the output texture's bytes, the output subrect's with --subrect);
//                refusals — missing and unsupported resources, an unknown handle, null out-parameters;
//                invalid — a buffer as colour, an RGBA8 depth texture, no output, an R32F motion texture;
//                recreate — release and create the feature again halfway through the frames;
//                core-invalid — the frames through d4r_test_core.dll answering invalid parameter once halfway
//                  (the shim recreates the core's feature and evaluates again), then twice in a row on an
//                  extra frame (FAIL_InvalidParameter to the game) and a good frame after it;
//                stall — d4r_test_core.dll hangs in the second frame: that EvaluateFeature fails after the
//                  stall watchdog's limit, the next is dropped at the in-flight limit (1), and ReleaseFeature
//                  and Shutdown return within 2 s;
//                blocking — the frames, each output read back right after EvaluateFeature on a second queue
//                  of the harness (nothing waits for the shim's own fence);
//                no-core — D4R_SHIM_NGX_CORE names a missing DLL: Init must fail cleanly;
//                requirements — GetFeatureRequirements before Init: SuperSampling supported (architecture 0, no
//                  OS minimum), another feature not implemented, null pointers refused; then the frames'
//                  first frame still evaluates
// Exit status 0 when every check held, 77 (with a SKIPPED line) when the D3D12 implementation cannot create a
// texture of the colour format asked for.
#include <windows.h>

#include <d3d12.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "formats_encode.h"
#include "harness_util.h"
#include "shim/d3d12/ngx_d3d12.h"

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

using harness::fnv1a;
using harness::from_bits;

// ---- The shim's API -------------------------------------------------------------------------------------

// clang-format off
#define SHIM_FUNCTIONS(X)                                                                                              \
    X(NVSDK_NGX_D3D12_Init) X(NVSDK_NGX_D3D12_Shutdown1) X(NVSDK_NGX_D3D12_GetCapabilityParameters)                   \
    X(NVSDK_NGX_D3D12_AllocateParameters) X(NVSDK_NGX_D3D12_DestroyParameters) X(NVSDK_NGX_D3D12_CreateFeature)       \
    X(NVSDK_NGX_D3D12_EvaluateFeature_C) X(NVSDK_NGX_D3D12_ReleaseFeature) X(NVSDK_NGX_D3D12_GetScratchBufferSize)    \
    X(NVSDK_NGX_D3D12_GetParameters) X(NVSDK_NGX_Parameter_SetUI) X(NVSDK_NGX_Parameter_GetUI)                        \
    X(NVSDK_NGX_D3D12_GetFeatureRequirements)
// clang-format on

struct Shim {
#define SHIM_MEMBER(name) decltype(&::name) name = nullptr;
    SHIM_FUNCTIONS(SHIM_MEMBER)
#undef SHIM_MEMBER
};

Shim load_shim() {
    HMODULE dll = LoadLibraryA("d4r_nvngx.dll");
    if (!dll) fail("cannot load d4r_nvngx.dll (Windows error " + std::to_string(GetLastError()) + ")");
    Shim s;
#define SHIM_RESOLVE(name)                                                                            \
    s.name = reinterpret_cast<decltype(s.name)>(reinterpret_cast<void*>(GetProcAddress(dll, #name))); \
    if (!s.name) fail("d4r_nvngx.dll does not export " #name);
    SHIM_FUNCTIONS(SHIM_RESOLVE)
#undef SHIM_RESOLVE
    return s;
}

// ---- D3D12 ------------------------------------------------------------------------------------------------

constexpr D3D12_RESOURCE_STATES kInputState = D3D12_RESOURCE_STATES(
    int(D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE) | int(D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE));

struct Gpu {
    ID3D12Device* device = nullptr;
    ID3D12CommandQueue* queue = nullptr;
    ID3D12CommandAllocator* allocator = nullptr;
    ID3D12GraphicsCommandList* list = nullptr;
    ID3D12Fence* fence = nullptr;
    UINT64 fence_value = 0;
    HANDLE event = nullptr;
    // A second queue with a list of its own (the blocking scenario's readbacks).
    ID3D12CommandQueue* queue2 = nullptr;
    ID3D12CommandAllocator* allocator2 = nullptr;
    ID3D12GraphicsCommandList* list2 = nullptr;

    void create_second_queue() {
        D3D12_COMMAND_QUEUE_DESC q{};
        q.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
        check_hr(device->CreateCommandQueue(&q, __uuidof(ID3D12CommandQueue), reinterpret_cast<void**>(&queue2)),
                 "CreateCommandQueue (second)");
        check_hr(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, __uuidof(ID3D12CommandAllocator),
                                                reinterpret_cast<void**>(&allocator2)),
                 "CreateCommandAllocator (second)");
        check_hr(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator2, nullptr,
                                           __uuidof(ID3D12GraphicsCommandList), reinterpret_cast<void**>(&list2)),
                 "CreateCommandList (second)");
    }

    // Runs the second queue's list and waits for that queue only.
    void submit_second_and_wait() {
        check_hr(list2->Close(), "Close (second list)");
        ID3D12CommandList* lists[] = {list2};
        queue2->ExecuteCommandLists(1, lists);
        check_hr(queue2->Signal(fence, ++fence_value), "Signal (second queue)");
        if (fence->GetCompletedValue() < fence_value) {
            check_hr(fence->SetEventOnCompletion(fence_value, event), "SetEventOnCompletion");
            if (WaitForSingleObject(event, 60000) != WAIT_OBJECT_0) fail("the second queue did not finish within 60 s");
        }
        check_hr(allocator2->Reset(), "Reset (second allocator)");
        check_hr(list2->Reset(allocator2, nullptr), "Reset (second list)");
    }

    void create() {
        HMODULE d3d12 = LoadLibraryA("d3d12.dll");
        if (!d3d12) fail("cannot load d3d12.dll");
        auto create_device = reinterpret_cast<PFN_D3D12_CREATE_DEVICE>(
            reinterpret_cast<void*>(GetProcAddress(d3d12, "D3D12CreateDevice")));
        if (!create_device) fail("d3d12.dll has no D3D12CreateDevice");
        check_hr(
            create_device(nullptr, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), reinterpret_cast<void**>(&device)),
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

    bool can_create(uint32_t width, uint32_t height, DXGI_FORMAT format,
                    D3D12_RESOURCE_FLAGS flags = D3D12_RESOURCE_FLAG_NONE) {
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
        desc.Flags = flags;
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

void barrier(ID3D12GraphicsCommandList* list, ID3D12Resource* r, D3D12_RESOURCE_STATES before,
             D3D12_RESOURCE_STATES after) {
    D3D12_RESOURCE_BARRIER b{};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b.Transition.pResource = r;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b.Transition.StateBefore = before;
    b.Transition.StateAfter = after;
    list->ResourceBarrier(1, &b);
}

// A texture the harness fills from the CPU each frame through its own upload buffer: WIDTH x HEIGHT texels
// of data at (X, Y) inside a texture MARGIN_X/Y larger, the rest FILL bytes.
struct InputTexture {
    ID3D12Resource* texture = nullptr;
    ID3D12Resource* upload = nullptr;
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT footprint{};
    uint32_t width = 0, height = 0, x = 0, y = 0;
    size_t texel = 0;
    uint8_t fill = 0;
    UINT64 total = 0; // the upload buffer's size (the last row has no padding)

    void create(Gpu& gpu, uint32_t w, uint32_t h, DXGI_FORMAT format, size_t texel_bytes, D3D12_RESOURCE_FLAGS flags,
                uint32_t at_x = 0, uint32_t at_y = 0, uint32_t margin_x = 0, uint32_t margin_y = 0) {
        width = w, height = h, texel = texel_bytes, x = at_x, y = at_y;
        fill = margin_x || margin_y ? 0xFF : 0;
        texture = gpu.texture(w + margin_x, h + margin_y, format, flags, kInputState);
        D3D12_RESOURCE_DESC desc = texture->GetDesc();
        gpu.device->GetCopyableFootprints(&desc, 0, 1, 0, &footprint, nullptr, nullptr, &total);
        upload = gpu.buffer(D3D12_HEAP_TYPE_UPLOAD, total);
    }
    // Writes packed rows into the upload buffer and records the copy into the texture.
    void record_upload(ID3D12GraphicsCommandList* list, const uint8_t* rows) {
        void* mapped = nullptr;
        D3D12_RANGE none{0, 0};
        check_hr(upload->Map(0, &none, &mapped), "mapping an upload buffer");
        uint8_t* base = static_cast<uint8_t*>(mapped) + footprint.Offset;
        if (fill) std::memset(base, fill, static_cast<size_t>(total - footprint.Offset));
        for (uint32_t row = 0; row < height; ++row)
            std::memcpy(base + size_t(row + y) * footprint.Footprint.RowPitch + size_t(x) * texel,
                        rows + size_t(row) * width * texel, width * texel);
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

struct Frames : harness::FrameSet {
    void open(const std::string& d) {
        if (std::string why = FrameSet::open(d); !why.empty()) fail(why);
    }
    std::vector<uint8_t> frame(unsigned i) const {
        std::vector<uint8_t> bytes;
        if (std::string why = read(i, bytes); !why.empty()) fail("frame " + std::to_string(i) + ": " + why);
        return bytes;
    }
};

struct Options {
    std::string frames;
    const enc::Format* color = nullptr;
    const enc::Format* output = nullptr;
    const enc::Format* depth = nullptr;
    const enc::Format* motion = nullptr;
    bool subrect = false;
    std::string scenario = "frames";
};

Options parse(int argc, char** argv) {
    Options o;
    o.color = enc::find("rgba16f");
    o.output = enc::find("rgba16f");
    o.depth = enc::find_depth("r32f");
    o.motion = enc::find_motion("rg16f");
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
        } else if (a == "--depth") {
            std::string v = value();
            if (!(o.depth = enc::find_depth(v))) fail("unknown depth format " + v);
        } else if (a == "--motion") {
            std::string v = value();
            if (!(o.motion = enc::find_motion(v))) fail("unknown motion format " + v);
        } else if (a == "--subrect") {
            o.subrect = true;
        } else if (a == "--scenario") {
            o.scenario = value();
        } else if (o.frames.empty()) {
            o.frames = a;
        } else {
            fail("unexpected argument " + a);
        }
    }
    if (o.frames.empty())
        fail(
            "usage: d3d12_harness FRAMES_DIR [--color F] [--output F] [--depth F] [--motion F] [--subrect] [--scenario S]");
    return o;
}

// Where --subrect puts each plane inside its texture, and how much larger the textures are.
struct Placement {
    uint32_t x = 0, y = 0;
};
constexpr Placement kColorAt{5, 3}, kDepthAt{3, 1}, kMotionAt{1, 4}, kOutputAt{7, 2};
constexpr uint32_t kInputMarginX = 8, kInputMarginY = 6, kOutputMarginX = 12, kOutputMarginY = 5;
constexpr uint8_t kOutputSentinel = 0xAB;
constexpr uint32_t kCreateMarginX = 4, kCreateMarginY = 2; // the created render size's excess with --subrect

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
    UINT64 out_total = 0;          // the readback buffer's size
    uint32_t out_w = 0, out_h = 0; // the output texture (larger than the output with --subrect)
    Placement out_at;
    NVSDK_NGX_Parameter* params = nullptr;
    NVSDK_NGX_Handle* feature = nullptr;

    static bool is_depth_stencil(const enc::Format& f) {
        return f.dxgi == DXGI_FORMAT_D32_FLOAT || f.dxgi == DXGI_FORMAT_D24_UNORM_S8_UINT;
    }

    void create_resources() {
        const unsigned rw = frames.rw, rh = frames.rh;
        const bool sub = options.subrect;
        const uint32_t mx = sub ? kInputMarginX : 0, my = sub ? kInputMarginY : 0;
        if (!gpu.can_create(rw, rh, DXGI_FORMAT(options.color->dxgi))) {
            // vkd3d on lavapipe has no R9G9B9E5 textures: the conversion is then covered by shim_formats only.
            std::printf("SKIPPED: this D3D12 implementation cannot create a %s texture\n", options.color->name);
            std::exit(77);
        }
        // A game's depth buffer is a depth-stencil target; the shim reads it as it is.
        const D3D12_RESOURCE_FLAGS depth_flags =
            is_depth_stencil(*options.depth) ? D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL : D3D12_RESOURCE_FLAG_NONE;
        if (!gpu.can_create(rw, rh, DXGI_FORMAT(options.depth->dxgi), depth_flags)) {
            std::printf("SKIPPED: this D3D12 implementation cannot create a %s depth texture\n", options.depth->name);
            std::exit(77);
        }
        color.create(gpu, rw, rh, DXGI_FORMAT(options.color->dxgi), options.color->bytes, D3D12_RESOURCE_FLAG_NONE,
                     sub ? kColorAt.x : 0, sub ? kColorAt.y : 0, mx, my);
        depth.create(gpu, rw, rh, DXGI_FORMAT(options.depth->dxgi), options.depth->bytes, depth_flags,
                     sub ? kDepthAt.x : 0, sub ? kDepthAt.y : 0, mx, my);
        motion.create(gpu, rw, rh, DXGI_FORMAT(options.motion->dxgi), options.motion->bytes, D3D12_RESOURCE_FLAG_NONE,
                      sub ? kMotionAt.x : 0, sub ? kMotionAt.y : 0, mx, my);
        exposure.create(gpu, 1, 1, DXGI_FORMAT_R32_FLOAT, 4, D3D12_RESOURCE_FLAG_NONE);
        out_w = frames.ow + (sub ? kOutputMarginX : 0);
        out_h = frames.oh + (sub ? kOutputMarginY : 0);
        out_at = sub ? kOutputAt : Placement{};
        output = gpu.texture(out_w, out_h, DXGI_FORMAT(options.output->dxgi),
                             D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        D3D12_RESOURCE_DESC desc = output->GetDesc();
        UINT64& total = out_total;
        gpu.device->GetCopyableFootprints(&desc, 0, 1, 0, &out_footprint, nullptr, nullptr, &total);
        readback = gpu.buffer(D3D12_HEAP_TYPE_READBACK, total);
        if (sub) { // the sentinel around the output subrect
            ID3D12Resource* up = gpu.buffer(D3D12_HEAP_TYPE_UPLOAD, total);
            void* mapped = nullptr;
            D3D12_RANGE none{0, 0};
            check_hr(up->Map(0, &none, &mapped), "mapping the output's upload buffer");
            std::memset(static_cast<uint8_t*>(mapped) + out_footprint.Offset, kOutputSentinel,
                        static_cast<size_t>(total - out_footprint.Offset));
            up->Unmap(0, nullptr);
            barrier(gpu.list, output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
            D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
            dst.pResource = output;
            dst.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
            src.pResource = up;
            src.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
            src.PlacedFootprint = out_footprint;
            gpu.list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
            barrier(gpu.list, output, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
            gpu.submit_and_wait();
            up->Release();
        }
    }

    void create_feature() {
        NVSDK_NGX_Parameter* p = params;
        // With --subrect the feature is created for a larger render size than the frames have (a game with
        // dynamic resolution); each frame's size comes as DLSS.Render.Subrect.Dimensions.
        p->Set(NVSDK_NGX_Parameter_Width, frames.rw + (options.subrect ? kCreateMarginX : 0));
        p->Set(NVSDK_NGX_Parameter_Height, frames.rh + (options.subrect ? kCreateMarginY : 0));
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

    void set_subrects() {
        if (!options.subrect) return;
        params->Set(NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_X, kColorAt.x);
        params->Set(NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_Y, kColorAt.y);
        params->Set(NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_X, kDepthAt.x);
        params->Set(NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_Y, kDepthAt.y);
        params->Set(NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_X, kMotionAt.x);
        params->Set(NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_Y, kMotionAt.y);
        params->Set(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, kOutputAt.x);
        params->Set(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_Y, kOutputAt.y);
        params->Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, frames.rw);
        params->Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, frames.rh);
    }

    // Records the copy of the whole output texture into the readback buffer.
    void record_output_copy(ID3D12GraphicsCommandList* list) {
        barrier(list, output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
        D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
        dst.pResource = readback;
        dst.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        dst.PlacedFootprint = out_footprint;
        src.pResource = output;
        src.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
        barrier(list, output, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    }

    // Uploads frame I, evaluates in the same command list (expecting WANT), copies the output out; returns the
    // output subrect's bytes. SECOND_QUEUE: the copy runs on the harness's second queue right after
    // EvaluateFeature returns, before the main list is even submitted again.
    std::vector<uint8_t> run_frame(unsigned i, bool reset, NVSDK_NGX_Result want = NVSDK_NGX_Result_Success,
                                   bool second_queue = false) {
        std::vector<uint8_t> in = frames.frame(i);
        const size_t n = size_t(frames.rw) * frames.rh;
        const uint8_t* at = in.data() + 12;
        std::vector<uint8_t> encoded = enc::encode_color(*options.color, reinterpret_cast<const uint16_t*>(at), n);
        std::vector<uint8_t> depth_bytes =
            enc::encode_depth(*options.depth, reinterpret_cast<const float*>(at + n * 8), n);
        std::vector<uint8_t> motion_bytes =
            enc::encode_motion(*options.motion, reinterpret_cast<const uint16_t*>(at + n * 12), n);
        ID3D12GraphicsCommandList* list = gpu.list;
        color.record_upload(list, encoded.data());
        depth.record_upload(list, depth_bytes.data());
        motion.record_upload(list, motion_bytes.data());
        exposure.record_upload(list, in.data() + 8);
        set_resources(color.texture, depth.texture, motion.texture, exposure.texture, output);
        set_subrects();
        params->Set(NVSDK_NGX_Parameter_Jitter_Offset_X, from_bits(in.data()));
        params->Set(NVSDK_NGX_Parameter_Jitter_Offset_Y, from_bits(in.data() + 4));
        params->Set(NVSDK_NGX_Parameter_MV_Scale_X, 1.0f);
        params->Set(NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f);
        params->Set(NVSDK_NGX_Parameter_Reset, reset ? 1 : 0);
        NVSDK_NGX_Result r = shim.NVSDK_NGX_D3D12_EvaluateFeature_C(list, feature, params, nullptr);
        if (r != want)
            fail("frame " + std::to_string(i) + ": NVSDK_NGX_D3D12_EvaluateFeature_C gave " + hex(unsigned(r)) +
                 ", expected " + hex(unsigned(want)));
        if (second_queue) {
            record_output_copy(gpu.list2);
            gpu.submit_second_and_wait();
            gpu.submit_and_wait();
        } else {
            // What the game records after the evaluation: a copy of the output.
            record_output_copy(list);
            gpu.submit_and_wait();
        }

        const size_t row = size_t(frames.ow) * options.output->bytes;
        std::vector<uint8_t> out(row * frames.oh);
        void* mapped = nullptr;
        D3D12_RANGE all{0, static_cast<SIZE_T>(out_total)};
        check_hr(readback->Map(0, &all, &mapped), "mapping the readback buffer");
        const uint8_t* base = static_cast<uint8_t*>(mapped) + out_footprint.Offset;
        const size_t texel = options.output->bytes;
        for (unsigned y = 0; y < frames.oh; ++y)
            std::memcpy(out.data() + y * row,
                        base + size_t(y + out_at.y) * out_footprint.Footprint.RowPitch + out_at.x * texel, row);
        if (options.subrect) { // nothing outside the output subrect was written
            for (unsigned y = 0; y < out_h; ++y)
                for (unsigned x = 0; x < out_w; ++x) {
                    if (x >= out_at.x && x < out_at.x + frames.ow && y >= out_at.y && y < out_at.y + frames.oh)
                        continue;
                    const uint8_t* t = base + size_t(y) * out_footprint.Footprint.RowPitch + x * texel;
                    for (size_t b = 0; b < texel; ++b)
                        if (t[b] != kOutputSentinel)
                            fail("frame " + std::to_string(i) + ": the output texel (" + std::to_string(x) + ", " +
                                 std::to_string(y) + ") outside the output subrect was written");
                }
        }
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

    void print_frame(unsigned i, const std::vector<uint8_t>& out) {
        if (options.output->dxgi == DXGI_FORMAT_R16G16B16A16_FLOAT)
            std::printf("frame %u: output %ux%u RGBA16F, fnv1a %016llx\n", i, frames.ow, frames.oh,
                        static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
        else
            std::printf("frame %u: output %ux%u %s, fnv1a %016llx\n", i, frames.ow, frames.oh, options.output->name,
                        static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
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
    ID3D12Resource* r8 =
        s.gpu.texture(s.frames.rw, s.frames.rh, DXGI_FORMAT_R8_UNORM, D3D12_RESOURCE_FLAG_NONE, kInputState);
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
    std::printf("evaluation after the refusals: fnv1a %016llx\n",
                static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
    expect(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), NVSDK_NGX_Result_Success, "ReleaseFeature");
    expect(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), NVSDK_NGX_Result_FAIL_FeatureNotFound,
           "ReleaseFeature(released handle)");
    s.feature = nullptr;
}

// A buffer, an RGBA8 depth texture, no output and an R32F motion texture: NGX errors; the shim logs the
// first three refusals (the runner checks the lines, and that the fourth is not logged), then a good frame.
void scenario_invalid(Session& s) {
    ID3D12Resource* buffer = s.gpu.buffer(D3D12_HEAP_TYPE_READBACK, 4096);
    s.set_resources(buffer, s.depth.texture, s.motion.texture, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_UnsupportedInputFormat, "EvaluateFeature(a buffer as colour)");
    ID3D12Resource* rgba8 =
        s.gpu.texture(s.frames.rw, s.frames.rh, DXGI_FORMAT_R8G8B8A8_UNORM, D3D12_RESOURCE_FLAG_NONE, kInputState);
    s.set_resources(s.color.texture, rgba8, s.motion.texture, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_UnsupportedFormat, "EvaluateFeature(RGBA8 depth)");
    s.set_resources(s.color.texture, s.depth.texture, s.motion.texture, s.exposure.texture, nullptr);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_MissingInput, "EvaluateFeature(no output)");
    ID3D12Resource* r32 =
        s.gpu.texture(s.frames.rw, s.frames.rh, DXGI_FORMAT_R32_FLOAT, D3D12_RESOURCE_FLAG_NONE, kInputState);
    s.set_resources(s.color.texture, s.depth.texture, r32, s.exposure.texture, s.output);
    expect(s.shim.NVSDK_NGX_D3D12_EvaluateFeature_C(s.gpu.list, s.feature, s.params, nullptr),
           NVSDK_NGX_Result_FAIL_UnsupportedFormat, "EvaluateFeature(R32F motion vectors)");
    buffer->Release();
    rgba8->Release();
    r32->Release();
    std::vector<uint8_t> out = s.run_frame(0, true);
    std::printf("evaluation after the invalid resources: fnv1a %016llx\n",
                static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
}

unsigned long long elapsed_ms(ULONGLONG since) { return static_cast<unsigned long long>(GetTickCount64() - since); }

void expect_within(unsigned long long ms, unsigned long long low, unsigned long long high, const char* what) {
    std::printf("%s: %llu ms\n", what, ms);
    if (ms < low || ms > high)
        fail(std::string(what) + " took " + std::to_string(ms) + " ms, expected " + std::to_string(low) + " to " +
             std::to_string(high) + " ms");
}

// d4r_test_core.dll hangs in the second evaluation for good (D4R_TEST_CORE_STALL=1), with
// D4R_SHIM_MAX_IN_FLIGHT=1: the shim gives that frame up after 5 s, drops the next at the in-flight limit
// after another 5 s, and releases and shuts down without waiting for the stuck worker.
void scenario_stall(Session& s) {
    std::vector<uint8_t> out = s.run_frame(0, true);
    std::printf("frame 0 before the stall: fnv1a %016llx\n",
                static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
    ULONGLONG t = GetTickCount64();
    s.run_frame(1, false, NVSDK_NGX_Result_Fail);
    expect_within(elapsed_ms(t), 4500, 15000, "stalled EvaluateFeature (given up, NVSDK_NGX_Result_Fail)");
    t = GetTickCount64();
    s.run_frame(2, false, NVSDK_NGX_Result_Fail);
    expect_within(elapsed_ms(t), 4500, 15000,
                  "EvaluateFeature at the in-flight limit (dropped, NVSDK_NGX_Result_Fail)");
    t = GetTickCount64();
    expect(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), NVSDK_NGX_Result_Success,
           "ReleaseFeature on a stuck worker");
    expect_within(elapsed_ms(t), 0, 2000, "ReleaseFeature on a stuck worker");
    s.feature = nullptr;
    t = GetTickCount64();
    check_ngx(s.shim.NVSDK_NGX_D3D12_DestroyParameters(s.params), "NVSDK_NGX_D3D12_DestroyParameters");
    expect(s.shim.NVSDK_NGX_D3D12_Shutdown1(s.gpu.device), NVSDK_NGX_Result_Success, "Shutdown1 on a stuck worker");
    expect_within(elapsed_ms(t), 0, 2000, "Shutdown1 on a stuck worker");
}

// GetFeatureRequirements, as a game asks before Init: an adapter that is never touched (a bogus pointer),
// SuperSampling, another feature, null pointers. Every answer starts from a poisoned output.
void scenario_requirements(Shim& shim) {
    NVSDK_NGX_FeatureDiscoveryInfo info{};
    info.SDKVersion = NVSDK_NGX_Version_API;
    info.FeatureID = NVSDK_NGX_Feature_SuperSampling;
    info.Identifier.IdentifierType = NVSDK_NGX_Application_Identifier_Type_Application_Id;
    info.Identifier.v.ApplicationId = 0xd4d4;
    info.ApplicationDataPath = L".";
    IDXGIAdapter* adapter = reinterpret_cast<IDXGIAdapter*>(uintptr_t{0x10}); // crashes if dereferenced
    NVSDK_NGX_FeatureRequirement req;
    auto poison = [&] { std::memset(&req, 0x5A, sizeof req); };

    poison();
    expect(shim.NVSDK_NGX_D3D12_GetFeatureRequirements(adapter, &info, &req), NVSDK_NGX_Result_Success,
           "GetFeatureRequirements(SuperSampling)");
    if (req.FeatureSupported != NVSDK_NGX_FeatureSupportResult_Supported)
        fail("SuperSampling: FeatureSupported " + hex(unsigned(req.FeatureSupported)) + ", expected 0 (Supported)");
    if (req.MinHWArchitecture != 0)
        fail("SuperSampling: MinHWArchitecture " + hex(req.MinHWArchitecture) + ", expected 0");
    for (char c : req.MinOSVersion)
        if (c != 0) fail("SuperSampling: MinOSVersion is not all zero bytes");
    std::printf("SuperSampling: FeatureSupported %d, MinHWArchitecture %u, MinOSVersion \"%s\"\n",
                int(req.FeatureSupported), req.MinHWArchitecture, req.MinOSVersion);

    info.FeatureID = NVSDK_NGX_Feature_DeepResolve;
    poison();
    expect(shim.NVSDK_NGX_D3D12_GetFeatureRequirements(nullptr, &info, &req), NVSDK_NGX_Result_FAIL_FeatureNotSupported,
           "GetFeatureRequirements(DeepResolve)");
    if (req.FeatureSupported != NVSDK_NGX_FeatureSupportResult_NotImplemented)
        fail("DeepResolve: FeatureSupported " + hex(unsigned(req.FeatureSupported)) +
             ", expected 0x10 (NotImplemented)");
    if (req.MinHWArchitecture != 0 || req.MinOSVersion[0] != 0)
        fail("DeepResolve: the rest of the answer is not zeroed");

    poison();
    expect(shim.NVSDK_NGX_D3D12_GetFeatureRequirements(adapter, nullptr, &req), NVSDK_NGX_Result_FAIL_InvalidParameter,
           "GetFeatureRequirements(null discovery info)");
    if (req.FeatureSupported != 0 || req.MinHWArchitecture != 0 || req.MinOSVersion[254] != 0)
        fail("GetFeatureRequirements(null discovery info) did not zero its out-parameter");
    info.FeatureID = NVSDK_NGX_Feature_SuperSampling;
    expect(shim.NVSDK_NGX_D3D12_GetFeatureRequirements(adapter, &info, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter,
           "GetFeatureRequirements(null out)");
    expect(shim.NVSDK_NGX_D3D12_GetFeatureRequirements(nullptr, nullptr, nullptr),
           NVSDK_NGX_Result_FAIL_InvalidParameter, "GetFeatureRequirements(all null)");
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

    if (s.options.scenario == "requirements") scenario_requirements(s.shim);
    check_ngx(s.shim.NVSDK_NGX_D3D12_Init(0xd4d4, L".", s.gpu.device, nullptr, NVSDK_NGX_Version_API),
              "NVSDK_NGX_D3D12_Init");
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

    const std::string& scenario = s.options.scenario;
    if (scenario == "requirements") {
        std::vector<uint8_t> out = s.run_frame(0, true);
        std::printf("evaluation after the requirements: fnv1a %016llx\n",
                    static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
        check_ngx(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), "NVSDK_NGX_D3D12_ReleaseFeature");
    } else if (scenario == "refusals") {
        scenario_refusals(s);
    } else if (scenario == "invalid") {
        scenario_invalid(s);
        check_ngx(s.shim.NVSDK_NGX_D3D12_ReleaseFeature(s.feature), "NVSDK_NGX_D3D12_ReleaseFeature");
    } else if (scenario == "stall") {
        scenario_stall(s);
        std::printf("d3d12_harness: stall: the stalled evaluation did not hang the harness, ok\n");
        return 0;
    } else if (scenario == "frames" || scenario == "recreate" || scenario == "core-invalid" || scenario == "blocking") {
        const bool second_queue = scenario == "blocking";
        if (second_queue) s.gpu.create_second_queue();
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
            std::vector<uint8_t> out = s.run_frame(i, reset, NVSDK_NGX_Result_Success, second_queue);
            s.write_output(i, out);
            s.print_frame(i, out);
        }
        if (scenario == "core-invalid") {
            // The test core answers invalid parameter to the next two calls: the recreated feature's retry
            // fails too, and the game gets the error; the frame after it is good again.
            s.run_frame(0, false, NVSDK_NGX_Result_FAIL_InvalidParameter);
            std::printf("extra frame: FAIL_InvalidParameter after one recreation, as expected\n");
            s.run_frame(1, false);
            std::printf("the frame after it: ok\n");
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
