// The CUDA 1.0-3.2 execution-control API as a layer over cuLaunchKernel (legacy_launch.h).
#include "runtime/legacy_launch.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/refusal.h"

namespace d4r::runtime {

namespace {

using namespace d4r::abi;

struct LegacyLaunch {
    int block[3] = {1, 1, 1};
    unsigned shared = 0;
    std::vector<uint8_t> params; // bytes set by cuParamSet*
    size_t param_size = 0;       // cuParamSetSize: the bytes a launch passes
};

// What cuLaunchKernel accepts since sm_70 (4 KiB before).
constexpr size_t kMaxParamBytes = 32764;

struct Layer final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::LegacyLaunch;
    const ApiTable* inner = nullptr;
    const ApiTable* launcher = nullptr;
    decltype(ApiTable::cuModuleUnload) module_unload = nullptr;
    decltype(ApiTable::cuLibraryUnload) library_unload = nullptr;
    std::mutex mutex;
    std::map<CUfunction, LegacyLaunch> state;
};

Layer& layer() { return *installed_layer<Layer>(); }

// The backend's answer for H (INVALID_HANDLE for a stale or foreign handle, NOT_INITIALIZED, ...).
CUresult check_function(CUfunction h) {
    D4R_CU_INVALID_IF(!h, CUDA_ERROR_INVALID_HANDLE, "legacy launch: the function handle is null");
    int threads = 0;
    return layer().inner->cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, h);
}

// Runs F on the state of H after checking H.
template <typename F>
CUresult with_state(CUfunction h, F&& f) {
    if (CUresult r = check_function(h)) return r;
    Layer& l = layer();
    std::lock_guard lock(l.mutex);
    return f(l.state[h]);
}

// After an unload, the handles the backend no longer knows.
void forget_unloaded() {
    Layer& l = layer();
    std::lock_guard lock(l.mutex);
    std::erase_if(l.state, [&](const auto& entry) {
        CUmodule module = nullptr;
        return l.inner->cuFuncGetModule(&module, entry.first) != CUDA_SUCCESS;
    });
}

CUresult cu_func_set_block_shape(CUfunction h, int x, int y, int z) {
    return with_state(h, [&](LegacyLaunch& s) {
        D4R_CU_INVALID_IF(x <= 0 || y <= 0 || z <= 0, CUDA_ERROR_INVALID_VALUE,
                          "cuFuncSetBlockShape: block {}x{}x{} has a dimension below 1", x, y, z);
        s.block[0] = x;
        s.block[1] = y;
        s.block[2] = z;
        return CUDA_SUCCESS;
    });
}

CUresult cu_func_set_shared_size(CUfunction h, unsigned int bytes) {
    return with_state(h, [&](LegacyLaunch& s) {
        s.shared = bytes;
        return CUDA_SUCCESS;
    });
}

CUresult cu_param_set_size(CUfunction h, unsigned int bytes) {
    return with_state(h, [&](LegacyLaunch& s) {
        D4R_CU_INVALID_IF(bytes > kMaxParamBytes, CUDA_ERROR_INVALID_VALUE,
                          "cuParamSetSize: {} bytes is above the {} a launch takes", bytes, kMaxParamBytes);
        s.param_size = bytes;
        if (s.params.size() < bytes) s.params.resize(bytes);
        return CUDA_SUCCESS;
    });
}

CUresult set_param(const char* who, CUfunction h, int offset, const void* value, size_t bytes) {
    return with_state(h, [&](LegacyLaunch& s) {
        D4R_CU_INVALID_IF(offset < 0 || size_t(offset) + bytes > kMaxParamBytes, CUDA_ERROR_INVALID_VALUE,
                          "{}: offset {} + {} bytes is outside the {}-byte parameter buffer", who, offset, bytes,
                          kMaxParamBytes);
        D4R_CU_INVALID_IF(!value, CUDA_ERROR_INVALID_VALUE, "{}: the value pointer is null", who);
        if (s.params.size() < size_t(offset) + bytes) s.params.resize(size_t(offset) + bytes);
        std::memcpy(s.params.data() + offset, value, bytes);
        return CUDA_SUCCESS;
    });
}

CUresult cu_param_seti(CUfunction h, int offset, unsigned int value) {
    return set_param("cuParamSeti", h, offset, &value, sizeof value);
}
CUresult cu_param_setf(CUfunction h, int offset, float value) {
    return set_param("cuParamSetf", h, offset, &value, sizeof value);
}
CUresult cu_param_setv(CUfunction h, int offset, void* ptr, unsigned int bytes) {
    return set_param("cuParamSetv", h, offset, ptr, bytes);
}

CUresult launch_grid(const char* who, CUfunction h, int width, int height, CUstream stream) {
    LegacyLaunch s;
    if (CUresult r = with_state(h, [&](LegacyLaunch& state) {
            s = state;
            return CUDA_SUCCESS;
        }))
        return r;
    D4R_CU_INVALID_IF(width <= 0 || height <= 0, CUDA_ERROR_INVALID_VALUE, "{}: grid {}x{} has a dimension below 1",
                      who, width, height);
    s.params.resize(std::max(s.params.size(), s.param_size));
    size_t size = s.param_size;
    void* extra[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, s.params.data(), D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     D4R_CU_LAUNCH_PARAM_END};
    return layer().launcher->cuLaunchKernel(h, unsigned(width), unsigned(height), 1, unsigned(s.block[0]),
                                            unsigned(s.block[1]), unsigned(s.block[2]), s.shared, stream, nullptr,
                                            extra);
}

CUresult cu_launch(CUfunction h) { return launch_grid("cuLaunch", h, 1, 1, nullptr); }
CUresult cu_launch_grid(CUfunction h, int width, int height) {
    return launch_grid("cuLaunchGrid", h, width, height, nullptr);
}
CUresult cu_launch_grid_async(CUfunction h, int width, int height, CUstream stream) {
    return launch_grid("cuLaunchGridAsync", h, width, height, stream);
}

CUresult cu_module_unload(CUmodule module) {
    CUresult r = layer().module_unload(module);
    if (r == CUDA_SUCCESS) forget_unloaded();
    return r;
}

CUresult cu_library_unload(CUlibrary library) {
    CUresult r = layer().library_unload(library);
    if (r == CUDA_SUCCESS) forget_unloaded();
    return r;
}

} // namespace

void install_legacy_launch(Runtime& runtime, ApiTable& table, const ApiTable& inner, const ApiTable* launcher) {
    Layer& l = runtime.emplace_layer<Layer>();
    l.inner = &inner;
    l.launcher = launcher;
    l.module_unload = table.cuModuleUnload;
    l.library_unload = table.cuLibraryUnload;
    table.cuModuleUnload = cu_module_unload;
    table.cuLibraryUnload = cu_library_unload;
    table.cuFuncSetBlockShape = cu_func_set_block_shape;
    table.cuFuncSetSharedSize = cu_func_set_shared_size;
    table.cuParamSetSize = cu_param_set_size;
    table.cuParamSeti = cu_param_seti;
    table.cuParamSetf = cu_param_setf;
    table.cuParamSetv = cu_param_setv;
    table.cuLaunch = cu_launch;
    table.cuLaunchGrid = cu_launch_grid;
    table.cuLaunchGridAsync = cu_launch_grid_async;
}

} // namespace d4r::runtime
