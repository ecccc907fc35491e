// The Wine bridge (nvcuda.dll): d4r's own exports for the NGX shim (d4r_helpers.h), implemented over
// libd4rcuda's public CUDA driver API. Exported under their d4r_* names by the spec (special_exports.h).
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>

#include "bridge/d4r_helpers.h"
#include "bridge/linux_api.h"
#include "core/env_vars.h"

using namespace d4r::bridge;

#define D4R_HELPER extern "C" __attribute__((ms_abi, visibility("default"))) CUresult

namespace {

// A refused argument: said at debug level (the caller gets the code; a shim that probes must not spam).
CUresult refuse(const char* call, const std::string& why) {
    log_debug(std::string(call) + ": " + why + "; CUDA_ERROR_INVALID_VALUE");
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult unexpected(const char* call) {
    log_once(std::string("exception ") + call, std::string(call) + ": internal error (exception); CUDA_ERROR_UNKNOWN");
    return CUDA_ERROR_UNKNOWN;
}

// libd4rcuda's FIRST entry point if it has it, else SECOND's (the unversioned one), else null.
template <typename Fn>
Fn pick(Fn first, Fn second) {
    return first ? first : second;
}

} // namespace

D4R_HELPER d4r_helper_SetEnvironment(const char* name, const char* value) {
    try {
        if (!name || !*name) return refuse("d4r_SetEnvironment", "no variable name");
        if (std::strchr(name, '=')) return refuse("d4r_SetEnvironment", std::string("'=' in the name ") + name);
        int r = value ? setenv(name, value, 1) : unsetenv(name);
        if (r != 0) return refuse("d4r_SetEnvironment", std::string(name) + ": " + std::strerror(errno));
        if (std::strcmp(name, d4r::env_name(d4r::EnvVar::Log)) == 0 ||
            std::strcmp(name, d4r::env_name(d4r::EnvVar::LogFile)) == 0)
            reread_log_settings();
        log_debug(std::string("d4r_SetEnvironment: ") + name + (value ? "=" + std::string(value) : " removed"));
        return CUDA_SUCCESS;
    } catch (...) {
        return unexpected("d4r_SetEnvironment");
    }
}

D4R_HELPER d4r_helper_GetLoadError(char* text, size_t size, size_t* length) {
    try {
        if (text && size) text[0] = 0;
        if (length) *length = 0;
        if (!text && size) return refuse("d4r_GetLoadError", "no buffer for a non-zero size");
        if (!text && !length) return refuse("d4r_GetLoadError", "neither a buffer nor a length");
        const std::string& error = load_error();
        if (length) *length = error.size();
        if (text && size) {
            size_t n = std::min(error.size(), size - 1);
            std::memcpy(text, error.data(), n);
            text[n] = 0;
        }
        return CUDA_SUCCESS;
    } catch (...) {
        return unexpected("d4r_GetLoadError");
    }
}

D4R_HELPER d4r_helper_EventWait(CUevent event, unsigned int timeout_ms) {
    try {
        const LinuxApi* api = linux_api();
        if (!api || !api->cuEventQuery) return not_available("cuEventQuery");
        if (!event) {
            log_debug("d4r_EventWait: no event; CUDA_ERROR_INVALID_HANDLE");
            return CUDA_ERROR_INVALID_HANDLE;
        }
        // Polled, not cuEventSynchronize: that one spins on NVIDIA's driver unless the event was created
        // with CU_EVENT_BLOCKING_SYNC, and it is what an elision of NGX's synchronisations would skip.
        using Clock = std::chrono::steady_clock;
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        auto pause = std::chrono::microseconds(20);
        for (;;) {
            CUresult r = api->cuEventQuery(event);
            if (r != CUDA_ERROR_NOT_READY) return r;
            if (timeout_ms != D4R_WAIT_FOREVER && Clock::now() >= deadline) return CUDA_ERROR_NOT_READY;
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::microseconds(500));
        }
    } catch (...) {
        return unexpected("d4r_EventWait");
    }
}

D4R_HELPER d4r_helper_Memcpy2DAsync(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width,
                                    size_t height, d4r_memcpy_kind kind, CUstream stream) {
    try {
        const LinuxApi* api = linux_api();
        auto copy = api ? api->cuMemcpy2DAsync_v2 : nullptr;
        if (!copy) return not_available("cuMemcpy2DAsync_v2");
        if (kind < D4R_MEMCPY_HOST_TO_HOST || kind > D4R_MEMCPY_DEVICE_TO_DEVICE)
            return refuse("d4r_Memcpy2DAsync", "unknown copy kind " + std::to_string(int(kind)));
        if (height > 1 && (width > dst_pitch || width > src_pitch))
            return refuse("d4r_Memcpy2DAsync", "width " + std::to_string(width) + " above a pitch (" +
                                                   std::to_string(src_pitch) + ", " + std::to_string(dst_pitch) + ")");
        const bool src_device = kind == D4R_MEMCPY_DEVICE_TO_HOST || kind == D4R_MEMCPY_DEVICE_TO_DEVICE;
        const bool dst_device = kind == D4R_MEMCPY_HOST_TO_DEVICE || kind == D4R_MEMCPY_DEVICE_TO_DEVICE;
        CUDA_MEMCPY2D c{};
        c.srcMemoryType = src_device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        if (src_device)
            c.srcDevice = reinterpret_cast<uintptr_t>(src);
        else
            c.srcHost = src;
        c.srcPitch = src_pitch;
        c.dstMemoryType = dst_device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        if (dst_device)
            c.dstDevice = reinterpret_cast<uintptr_t>(dst);
        else
            c.dstHost = dst;
        c.dstPitch = dst_pitch;
        c.WidthInBytes = width;
        c.Height = height;
        return copy(&c, stream);
    } catch (...) {
        return unexpected("d4r_Memcpy2DAsync");
    }
}

D4R_HELPER d4r_helper_StreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) {
    try {
        const LinuxApi* api = linux_api();
        auto wait = api ? pick(api->cuStreamWaitValue32_v2, api->cuStreamWaitValue32) : nullptr;
        if (!wait) return not_available("cuStreamWaitValue32_v2");
        if (!addr || addr % 4) return refuse("d4r_StreamWaitValue32", "address not 4-byte aligned device memory");
        CUresult r = wait(stream, addr, value, flags);
        if (r == CUDA_ERROR_NOT_SUPPORTED)
            log_once("wait-value", "d4r_StreamWaitValue32: the backend has no stream memory operations");
        return r;
    } catch (...) {
        return unexpected("d4r_StreamWaitValue32");
    }
}

D4R_HELPER d4r_helper_StreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) {
    try {
        const LinuxApi* api = linux_api();
        auto write = api ? pick(api->cuStreamWriteValue32_v2, api->cuStreamWriteValue32) : nullptr;
        if (!write) return not_available("cuStreamWriteValue32_v2");
        if (!addr || addr % 4) return refuse("d4r_StreamWriteValue32", "address not 4-byte aligned device memory");
        CUresult r = write(stream, addr, value, flags);
        if (r == CUDA_ERROR_NOT_SUPPORTED)
            log_once("write-value", "d4r_StreamWriteValue32: the backend has no stream memory operations");
        return r;
    } catch (...) {
        return unexpected("d4r_StreamWriteValue32");
    }
}

// The header's declarations and these definitions must agree (the export names differ from the function
// names, so the compiler cannot check it by itself).
static_assert(std::is_same_v<decltype(&d4r_helper_SetEnvironment), PFN_d4r_SetEnvironment>);
static_assert(std::is_same_v<decltype(&d4r_helper_GetLoadError), PFN_d4r_GetLoadError>);
static_assert(std::is_same_v<decltype(&d4r_helper_EventWait), PFN_d4r_EventWait>);
static_assert(std::is_same_v<decltype(&d4r_helper_Memcpy2DAsync), PFN_d4r_Memcpy2DAsync>);
static_assert(std::is_same_v<decltype(&d4r_helper_StreamWaitValue32), PFN_d4r_StreamWaitValue32>);
static_assert(std::is_same_v<decltype(&d4r_helper_StreamWriteValue32), PFN_d4r_StreamWriteValue32>);
