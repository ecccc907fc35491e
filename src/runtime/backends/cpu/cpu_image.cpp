// cpu backend: finding the PTX in a module image and loading it into ptxsim.
#include "runtime/backends/cpu/cpu_image.h"

#include <cstring>
#include <span>

#include "core/log.h"
#include "ptx/container.h"
#include "ptx/image_extent.h"
#include "ptx/module_hash.h"
#include "ptx/module_index.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"

namespace d4r::runtime::cpu {

int sm_number(const std::string& sm) {
    size_t i = sm.find_first_of("0123456789");
    return i == std::string::npos ? 0 : std::atoi(sm.c_str() + i);
}

CUresult find_ptx_text(const void* image, size_t size, const std::string& name, std::string& text_out,
                       std::string& error_log, std::string* module_name, const void* origin) {
    std::span<const uint8_t> bytes;
    if (size != 0) {
        bytes = std::span<const uint8_t>(static_cast<const uint8_t*>(image), size);
    } else {
        auto extent = ptx::image_extent(image);
        if (!extent || extent->empty()) {
            error_log = fmt::format("{}: not a PTX text, fatbin or ELF image{}", name,
                                    extent ? "" : " (" + extent.error().text() + ")");
            return CUDA_ERROR_INVALID_IMAGE;
        }
        bytes = *extent;
    }
    ptx::ContainerKind kind = ptx::detect_container(bytes);
    auto found = ptx::find_ptx_modules(bytes);
    if (!found) {
        error_log = fmt::format("{}: {}", name, found.error().text());
        return CUDA_ERROR_INVALID_IMAGE;
    }
    std::vector<ptx::PtxModuleBlob>& blobs = *found;
    if (blobs.empty()) {
        if (kind == ptx::ContainerKind::Fatbin || kind == ptx::ContainerKind::Elf || kind == ptx::ContainerKind::Pe) {
            // Device-linked code (nvcc -rdc): its objects' PTX is elsewhere in the same executable.
            std::string from, why;
            if (relocatable_ptx_for(origin ? origin : image, text_out, from, why)) {
                log::info("cpu backend: {}: the {} holds only cubins (device-linked code, nvcc -rdc); running the "
                          "{} instead, joined into one module",
                          name, ptx::container_kind_name(kind), from);
                if (module_name) *module_name = fmt::format("{} ({})", name, from);
                return CUDA_SUCCESS;
            }
            // NVRTC's and nvJitLink's output reaches here when d4r's companions did not run beside them.
            error_log = fmt::format("{}: the {} holds no PTX (only cubins, which the cpu backend cannot run; {}; a "
                                    "cubin NVRTC or nvJitLink made runs when d4r's libnvrtc.so.13 or "
                                    "libnvJitLink.so.13 is loaded instead of NVIDIA's: docs/companions.md)",
                                    name, ptx::container_kind_name(kind), why);
            return CUDA_ERROR_NO_BINARY_FOR_GPU;
        }
        error_log = fmt::format("{}: not a PTX text, fatbin or ELF image", name);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    // Several PTX entries (one per virtual architecture): the newest the modelled sm_90 device can JIT.
    const ptx::PtxModuleBlob* chosen = blobs.size() == 1 ? &blobs[0] : nullptr;
    int best = -1;
    if (!chosen) {
        for (const auto& blob : blobs) {
            int sm = sm_number(blob.sm);
            if (sm <= 90 && sm > best) {
                best = sm;
                chosen = &blob;
            }
        }
    }
    if (!chosen) {
        error_log = fmt::format("{}: no PTX entry for sm_90 or older ({} entries)", name, blobs.size());
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    text_out = std::string(ptx::strip_trailing_nuls(chosen->text));
    if (module_name)
        *module_name = blobs.size() == 1 && kind == ptx::ContainerKind::PtxText
                           ? name
                           : fmt::format("{} ({})", name, chosen->origin);
    return CUDA_SUCCESS;
}

CUresult load_image(const void* image, size_t size, const std::string& name, std::shared_ptr<ptxsim::Module>& out,
                    std::string& error_log, const void* origin) {
    std::string text, module_name;
    if (CUresult r = find_ptx_text(image, size, name, text, error_log, &module_name, origin)) return r;
    // ptxsim zero-fills the module's variables as it loads them: what does not fit the memory budget is
    // OUT_OF_MEMORY before anything is allocated (an index is cheap next to the load itself).
    if (auto index = ptx::index_module(ptx::strip_trailing_nuls(text))) {
        // A newer PTX ISA than this JIT knows: NVIDIA's driver answers UNSUPPORTED_PTX_VERSION (H200, driver
        // 580: tests/device/hostile.sh, ptx_version_99), not INVALID_PTX.
        if (index->version && index->version->first > ptxsim::kNewestPtxIsaMajor) {
            error_log = fmt::format("{}: .version {}: PTX ISA newer than the {}.x this version of d4r knows",
                                    module_name, index->version_text(), ptxsim::kNewestPtxIsaMajor);
            return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
        }
        uint64_t bytes = 0;
        for (const ptx::VariableInfo& v : index->variables) bytes += v.size;
        if (CUresult r = budget_check(bytes, "module load")) {
            error_log = fmt::format("{}: its variables take {} bytes, more than the memory budget has free",
                                    module_name, bytes);
            return r;
        }
    }
    auto loaded = ptxsim::Module::load(text, module_name);
    if (!loaded) {
        error_log = loaded.error().text();
        return CUDA_ERROR_INVALID_PTX;
    }
    out = std::move(*loaded);
    return CUDA_SUCCESS;
}

} // namespace d4r::runtime::cpu
