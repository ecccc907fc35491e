// What the driver-API probes of compare-probe.sh share: a result's name, and device 0's primary context made current.
#pragma once

#include <cuda.h>

#include <cstdio>

namespace probe {

inline const char* name(CUresult r) {
    const char* n = nullptr;
    cuGetErrorName(r, &n);
    return n ? n : "?";
}

// False (with a line saying so) when there is no CUDA device.
inline bool open_context() {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        std::printf("no CUDA device\n");
        return false;
    }
    return true;
}

} // namespace probe
