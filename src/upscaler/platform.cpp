// The open NGX core's system calls, for Linux and for Windows (see platform.h).
#include "upscaler/platform.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <filesystem>

namespace d4r::upscaler::platform {

namespace fs = std::filesystem;

#if defined(_WIN32)

namespace {

std::wstring widen(const std::string& text) {
    if (text.empty()) return {};
    int n = MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
    std::wstring out(static_cast<size_t>(n > 0 ? n : 0), L'\0');
    if (n > 0) MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n);
    return out;
}

std::string narrow(const std::wstring& text) {
    if (text.empty()) return {};
    int n = WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<size_t>(n > 0 ? n : 0), '\0');
    if (n > 0)
        WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n, nullptr, nullptr);
    return out;
}

} // namespace

Expected<void*> open_library(const std::string& path) {
    HMODULE module = LoadLibraryW(widen(path).c_str());
    if (!module) return make_error(ErrorCode::NotFound, "cannot load {}: Windows error {}", path, GetLastError());
    return reinterpret_cast<void*>(module);
}

void* find_symbol(void* library, const char* name) {
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(library), name));
}

std::string this_binary_directory() {
    HMODULE module = nullptr;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            reinterpret_cast<LPCWSTR>(&this_binary_directory), &module))
        return {};
    std::wstring file(32768, L'\0');
    DWORD n = GetModuleFileNameW(module, file.data(), static_cast<DWORD>(file.size()));
    if (n == 0 || n >= file.size()) return {};
    file.resize(n);
    return narrow(fs::path(file).parent_path().wstring());
}

#else

Expected<void*> open_library(const std::string& path) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* text = dlerror();
        std::string why = text ? text : "unknown error";
        dlerror(); // releases glibc's message buffer (otherwise reported as a leak at exit)
        return make_error(ErrorCode::NotFound, "cannot load {}: {}", path, why);
    }
    return handle;
}

void* find_symbol(void* library, const char* name) { return dlsym(library, name); }

std::string this_binary_directory() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&this_binary_directory), &info) == 0 || info.dli_fname == nullptr) return {};
    std::error_code ec;
    fs::path file = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    if (ec) file = fs::path(info.dli_fname);
    return file.parent_path().string();
}

#endif

} // namespace d4r::upscaler::platform
