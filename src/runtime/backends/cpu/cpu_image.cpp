// cpu backend: finding the PTX in a module image and loading it into ptxsim.
#include "runtime/backends/cpu/cpu_image.h"

#include <cstring>
#include <span>

#include "core/log.h"
#include "ptx/container.h"
#include "ptx/fatbin.h"

namespace d4r::runtime::cpu {

namespace {

constexpr uint32_t kFatbinWrapperMagic = 0x466243b1; // __fatBinC_Wrapper_t, what nvcc registers
constexpr size_t kMaxImageBytes = 1ull << 30;

template <typename T>
T read_le(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

// The number of bytes IMAGE spans, from its own headers, or 0 when it is none of the known forms.
size_t image_size(const uint8_t* b) {
    if (b[0] == 0x50 && b[1] == 0xED && b[2] == 0x55 && b[3] == 0xBA) { // fatbin
        uint16_t header = read_le<uint16_t>(b + 6);
        uint64_t body = read_le<uint64_t>(b + 8);
        return body > kMaxImageBytes ? 0 : size_t(header) + size_t(body);
    }
    if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
        if (b[4] != 2) return 0; // ELF64 only
        uint64_t shoff = read_le<uint64_t>(b + 0x28);
        uint16_t shentsize = read_le<uint16_t>(b + 0x3a);
        uint16_t shnum = read_le<uint16_t>(b + 0x3c);
        uint64_t end = shoff + uint64_t(shentsize) * shnum;
        return shoff == 0 || end > kMaxImageBytes ? 0 : size_t(end);
    }
    return strnlen(reinterpret_cast<const char*>(b), kMaxImageBytes);
}

int sm_number(const std::string& sm) {
    size_t i = sm.find_first_of("0123456789");
    return i == std::string::npos ? 0 : std::atoi(sm.c_str() + i);
}

} // namespace

CUresult load_image(const void* image, size_t size, const std::string& name, std::shared_ptr<ptxsim::Module>& out,
                    std::string& error_log) {
    const uint8_t* b = static_cast<const uint8_t*>(image);
    // Byte by byte, so a short PTX string is never read past its NUL.
    bool wrapper = b[0] == (kFatbinWrapperMagic & 0xff) && b[1] == ((kFatbinWrapperMagic >> 8) & 0xff) &&
                   b[2] == ((kFatbinWrapperMagic >> 16) & 0xff) && b[3] == (kFatbinWrapperMagic >> 24);
    if (wrapper && (size == 0 || size >= 16)) {
        const void* data = read_le<const void*>(b + 8);
        if (!data || data == image) return CUDA_ERROR_INVALID_IMAGE;
        return load_image(data, 0, name, out, error_log);
    }
    if (size == 0) size = image_size(b);
    if (size == 0) {
        error_log = fmt::format("{}: not a PTX text, fatbin or ELF image", name);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    std::span<const uint8_t> bytes(b, size);
    ptx::ContainerKind kind = ptx::detect_container(bytes);
    auto found = ptx::find_ptx_modules(bytes);
    if (!found) {
        error_log = fmt::format("{}: {}", name, found.error().text());
        return CUDA_ERROR_INVALID_IMAGE;
    }
    std::vector<ptx::PtxModuleBlob>& blobs = *found;
    if (blobs.empty()) {
        if (kind == ptx::ContainerKind::Fatbin || kind == ptx::ContainerKind::Elf || kind == ptx::ContainerKind::Pe) {
            error_log = fmt::format("{}: the {} holds no PTX (only cubins, which the cpu backend cannot run)", name,
                                    ptx::container_kind_name(kind));
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
    std::string_view text = chosen->text;
    while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
    std::string module_name = blobs.size() == 1 && kind == ptx::ContainerKind::PtxText ? name
                                                                                       : fmt::format("{} ({})", name, chosen->origin);
    auto loaded = ptxsim::Module::load(text, module_name);
    if (!loaded) {
        error_log = loaded.error().text();
        return CUDA_ERROR_INVALID_PTX;
    }
    out = std::move(*loaded);
    return CUDA_SUCCESS;
}

} // namespace d4r::runtime::cpu
