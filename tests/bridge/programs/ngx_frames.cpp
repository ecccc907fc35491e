// Drives d4r's open NGX core through its NGX CUDA API the way an application does, on frames written by
// scene_frames: Init, a SuperSampling feature (HDR, motion vectors at render size), one evaluation per
// frame, a rejected evaluation, release and shutdown. Built for Linux (loads libd4r_ngx.so and
// libcuda.so.1) and for Windows with mingw (loads d4r_ngx.dll and nvcuda.dll, under Wine d4r's bridge);
// both runs must print the same and write the same outputs ($PROGRAM_OUT/frame_<i>.bin, RGBA16F).
//   ngx_frames FRAMES_DIR
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "abi/cuda.h"
#include "abi/cuda_api.h"
#include "abi/ngx.h"

using namespace d4r::abi;

namespace {

#if defined(_WIN32)
const char* const kCoreName = "d4r_ngx.dll";
const char* const kCudaName = "nvcuda.dll";
void* open_library(const char* name) { return reinterpret_cast<void*>(LoadLibraryA(name)); }
void* symbol(void* library, const char* name) {
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(library), name));
}
#else
const char* const kCoreName = "libd4r_ngx.so";
const char* const kCudaName = "libcuda.so.1";
void* open_library(const char* name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
void* symbol(void* library, const char* name) { return dlsym(library, name); }
#endif

[[noreturn]] void fail(const std::string& why) {
    std::fprintf(stderr, "ngx_frames: %s\n", why.c_str());
    std::exit(1);
}

template <typename Fn>
Fn need(void* library, const char* library_name, const char* name) {
    auto fn = reinterpret_cast<Fn>(symbol(library, name));
    if (!fn) fail(std::string(library_name) + " does not export " + name);
    return fn;
}

// clang-format off
#define CUDA_FUNCTIONS(X)                                                                                    \
    X(cuInit) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) X(cuCtxSetCurrent)  \
    X(cuCtxSynchronize) X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemsetD8_v2)
#define NGX_FUNCTIONS(X)                                                                                     \
    X(NVSDK_NGX_CUDA_Init) X(NVSDK_NGX_CUDA_Shutdown) X(NVSDK_NGX_CUDA_AllocateParameters)                   \
    X(NVSDK_NGX_CUDA_DestroyParameters) X(NVSDK_NGX_CUDA_CreateFeature) X(NVSDK_NGX_CUDA_EvaluateFeature_C)   \
    X(NVSDK_NGX_CUDA_ReleaseFeature) X(NVSDK_NGX_Parameter_SetUI) X(NVSDK_NGX_Parameter_SetI)                 \
    X(NVSDK_NGX_Parameter_SetF) X(NVSDK_NGX_Parameter_SetVoidPointer)
// clang-format on

struct Api {
#define CUDA_MEMBER(name) PFN_##name name = nullptr;
    CUDA_FUNCTIONS(CUDA_MEMBER)
#undef CUDA_MEMBER
#define NGX_MEMBER(name) decltype(&d4r::abi::name) name = nullptr;
    NGX_FUNCTIONS(NGX_MEMBER)
#undef NGX_MEMBER
};

Api load() {
    Api api;
    void* cuda = open_library(kCudaName);
    if (!cuda) fail(std::string("cannot load ") + kCudaName);
    void* core = open_library(kCoreName);
    if (!core) fail(std::string("cannot load ") + kCoreName);
#define CUDA_RESOLVE(name) api.name = need<PFN_##name>(cuda, kCudaName, #name);
    CUDA_FUNCTIONS(CUDA_RESOLVE)
#undef CUDA_RESOLVE
#define NGX_RESOLVE(name) api.name = need<decltype(api.name)>(core, kCoreName, #name);
    NGX_FUNCTIONS(NGX_RESOLVE)
#undef NGX_RESOLVE
    return api;
}

void check_cuda(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) fail(std::string(what) + " failed with CUresult " + std::to_string(int(r)));
}

void check_ngx(NVSDK_NGX_Result r, const char* what) {
    if (r != NVSDK_NGX_Result_Success) {
        char text[16];
        std::snprintf(text, sizeof text, "%#x", unsigned(r));
        fail(std::string(what) + " gave NGX result " + text);
    }
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

void write_output(int frame, const std::vector<uint16_t>& halves) {
    const char* dir = std::getenv("PROGRAM_OUT");
    if (!dir || !*dir) return;
    std::string path = std::string(dir) + "/frame_" + std::to_string(frame) + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(halves.data(), 2, halves.size(), f) != halves.size()) fail("cannot write " + path);
    std::fclose(f);
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

void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: ngx_frames FRAMES_DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    unsigned rw = 0, rh = 0, ow = 0, oh = 0, frames = 0;
    {
        std::vector<uint8_t> index = read_file(dir + "/frames.txt");
        index.push_back(0);
        if (std::sscanf(reinterpret_cast<const char*>(index.data()), "%u %u %u %u %u", &rw, &rh, &ow, &oh, &frames) !=
                5 ||
            !rw || !rh || !ow || !oh || !frames)
            fail("bad " + dir + "/frames.txt");
    }
    Api api = load();
    check_cuda(api.cuInit(0), "cuInit");
    CUdevice device;
    CUcontext context;
    check_cuda(api.cuDeviceGet(&device, 0), "cuDeviceGet");
    check_cuda(api.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check_cuda(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");

    check_ngx(api.NVSDK_NGX_CUDA_Init(0xd4d4, L".", nullptr, NVSDK_NGX_Version_API), "NVSDK_NGX_CUDA_Init");
    NVSDK_NGX_Parameter* p = nullptr;
    check_ngx(api.NVSDK_NGX_CUDA_AllocateParameters(&p), "NVSDK_NGX_CUDA_AllocateParameters");
    api.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_Width, rw);
    api.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_Height, rh);
    api.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_OutWidth, ow);
    api.NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_OutHeight, oh);
    api.NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_PerfQualityValue, NVSDK_NGX_PerfQuality_Value_MaxQuality);
    api.NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags,
                                 NVSDK_NGX_DLSS_Feature_Flags_IsHDR | NVSDK_NGX_DLSS_Feature_Flags_MVLowRes);
    NVSDK_NGX_Handle* feature = nullptr;
    check_ngx(api.NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, p, &feature),
              "NVSDK_NGX_CUDA_CreateFeature");

    const size_t color_bytes = size_t(rw) * rh * 8, depth_bytes = size_t(rw) * rh * 4,
                 motion_bytes = size_t(rw) * rh * 4;
    const size_t output_bytes = size_t(ow) * oh * 8;
    CUdeviceptr color, depth, motion, exposure, output;
    check_cuda(api.cuMemAlloc_v2(&color, color_bytes), "cuMemAlloc");
    check_cuda(api.cuMemAlloc_v2(&depth, depth_bytes), "cuMemAlloc");
    check_cuda(api.cuMemAlloc_v2(&motion, motion_bytes), "cuMemAlloc");
    check_cuda(api.cuMemAlloc_v2(&exposure, 4), "cuMemAlloc");
    check_cuda(api.cuMemAlloc_v2(&output, output_bytes), "cuMemAlloc");
    check_cuda(api.cuMemsetD8_v2(output, 0xff, output_bytes), "cuMemsetD8"); // NaN halves unless written

    std::vector<uint16_t> result(output_bytes / 2);
    for (unsigned i = 0; i < frames; ++i) {
        std::vector<uint8_t> in = read_file(dir + "/frame_" + std::to_string(i) + ".bin");
        if (in.size() != 12 + color_bytes + depth_bytes + motion_bytes)
            fail("frame " + std::to_string(i) + ": wrong size");
        const uint8_t* at = in.data() + 12;
        check_cuda(api.cuMemcpyHtoD_v2(color, at, color_bytes), "cuMemcpyHtoD");
        check_cuda(api.cuMemcpyHtoD_v2(depth, at + color_bytes, depth_bytes), "cuMemcpyHtoD");
        check_cuda(api.cuMemcpyHtoD_v2(motion, at + color_bytes + depth_bytes, motion_bytes), "cuMemcpyHtoD");
        check_cuda(api.cuMemcpyHtoD_v2(exposure, in.data() + 8, 4), "cuMemcpyHtoD");
        api.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Color, as_pointer(color));
        api.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Depth, as_pointer(depth));
        api.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_MotionVectors, as_pointer(motion));
        api.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_ExposureTexture, as_pointer(exposure));
        api.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Output, as_pointer(output));
        api.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_Jitter_Offset_X, from_bits(in.data()));
        api.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_Jitter_Offset_Y, from_bits(in.data() + 4));
        api.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_MV_Scale_X, 1.0f);
        api.NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f);
        api.NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_Reset, i == 0 ? 1 : 0);
        check_ngx(api.NVSDK_NGX_CUDA_EvaluateFeature_C(feature, p, nullptr), "NVSDK_NGX_CUDA_EvaluateFeature_C");
        check_cuda(api.cuCtxSynchronize(), "cuCtxSynchronize");
        check_cuda(api.cuMemcpyDtoH_v2(result.data(), output, output_bytes), "cuMemcpyDtoH");
        size_t unwritten = 0;
        for (uint16_t h : result) unwritten += h == 0xffff;
        if (unwritten)
            fail("frame " + std::to_string(i) + ": " + std::to_string(unwritten) + " output halves never written");
        write_output(int(i), result);
        std::printf("frame %u: output %ux%u RGBA16F, fnv1a %016llx\n", i, ow, oh,
                    static_cast<unsigned long long>(fnv1a(result.data(), output_bytes)));
    }

    // A rejected evaluation (no colour) answers an NGX error, the same through both builds.
    api.NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Color, nullptr);
    NVSDK_NGX_Result rejected = api.NVSDK_NGX_CUDA_EvaluateFeature_C(feature, p, nullptr);
    if (rejected == NVSDK_NGX_Result_Success) fail("an evaluation without colour succeeded");
    std::printf("evaluation without colour: %#x\n", unsigned(rejected));

    check_ngx(api.NVSDK_NGX_CUDA_ReleaseFeature(feature), "NVSDK_NGX_CUDA_ReleaseFeature");
    check_ngx(api.NVSDK_NGX_CUDA_DestroyParameters(p), "NVSDK_NGX_CUDA_DestroyParameters");
    check_ngx(api.NVSDK_NGX_CUDA_Shutdown(), "NVSDK_NGX_CUDA_Shutdown");
    for (CUdeviceptr b : {color, depth, motion, exposure, output}) check_cuda(api.cuMemFree_v2(b), "cuMemFree");
    check_cuda(api.cuDevicePrimaryCtxRelease_v2(device), "cuDevicePrimaryCtxRelease");
    std::printf("ngx_frames: %u frames, ok\n", frames);
    return 0;
}
