// Loading libLLVM and resolving its C API (see llvm_library.h).
#include "jit/llvm_library.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>

namespace d4r::jit {

namespace {

// Why LIBRARY cannot be used ("" when it can): the first function of the list it does not export.
std::string resolve(void* handle, LlvmLibrary& l) {
#define D4R_LLVM_RESOLVE(name, ret, params)                           \
    l.name = reinterpret_cast<abi::PFN_##name>(dlsym(handle, #name)); \
    if (!l.name) return "does not export " #name;
    D4R_LLVM_C_FUNCTIONS(D4R_LLVM_RESOLVE)
#undef D4R_LLVM_RESOLVE
    return {};
}

} // namespace

std::vector<std::string> default_llvm_candidates() {
    return {"libLLVM.so.19.1", "libLLVM-19.so.1", "libLLVM.so.18.1", "libLLVM-18.so.1",
            "libLLVM-17.so.1", "libLLVM-16.so.1", "libLLVM-15.so.1"};
}

Expected<const LlvmLibrary*> load_llvm_library(std::span<const std::string> candidates) {
    // One table per library path, kept for the process (a libLLVM is never unloaded: JIT code points into it).
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<LlvmLibrary>> loaded;
    std::lock_guard lock(mutex);
    std::string why;
    for (const std::string& path : candidates) {
        if (auto it = loaded.find(path); it != loaded.end()) return it->second.get();
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* e = dlerror();
            why += fmt::format("; {}: {}", path, e ? e : "not found");
            continue;
        }
        auto library = std::make_unique<LlvmLibrary>();
        if (std::string missing = resolve(handle, *library); !missing.empty()) {
            why += fmt::format("; {}: {}", path, missing);
            dlclose(handle);
            continue;
        }
        library->path = path;
        library->handle = handle;
        library->version = path;
        if (auto get_version = reinterpret_cast<abi::PFN_LLVMGetVersion>(dlsym(handle, "LLVMGetVersion"))) {
            unsigned major = 0, minor = 0, patch = 0;
            get_version(&major, &minor, &patch);
            library->version = fmt::format("{}.{}.{}", major, minor, patch);
        }
        library->LLVMInitializeX86TargetInfo();
        library->LLVMInitializeX86Target();
        library->LLVMInitializeX86TargetMC();
        library->LLVMInitializeX86AsmPrinter();
        return (loaded[path] = std::move(library)).get();
    }
    return make_error(ErrorCode::NotFound, "no usable libLLVM{}", why.empty() ? " (no candidate named)" : why);
}

bool make_llvm_library_global(const LlvmLibrary& library) {
    // The reference this adds is never dropped: the library stays loaded for the process anyway.
    return dlopen(library.path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) != nullptr;
}

std::string take_error_message(const LlvmLibrary& llvm, abi::LLVMErrorRef error) {
    if (!error) return {};
    char* message = llvm.LLVMGetErrorMessage(error);
    std::string text = message ? message : "?";
    if (message) llvm.LLVMDisposeErrorMessage(message);
    return text;
}

} // namespace d4r::jit
