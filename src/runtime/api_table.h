// libd4rcuda internals: the CUDA driver API as a table of function pointers.
//
// A backend is an ApiTable (the driver backend fills it with dlsym results, the cpu backend with its
// own C++ functions); the runtime builds the table the exported entry points call from the backend's
// table and its own layers (trace, native-kernel overrides). Every entry has exactly the signature of
// the exported function of the same name (abi/cuda_api.h).
#pragma once

#include <cstddef>
#include <string_view>

#include "abi/cuda.h"
#include "abi/cuda_api.h"

namespace d4r::runtime {

using namespace d4r::abi;

struct ApiTable {
#define D4R_API_TABLE_FIELD(exp, base, since, params, args) CUresult(*exp) params = nullptr;
    D4R_CUDA_API(D4R_API_TABLE_FIELD)
#undef D4R_API_TABLE_FIELD
};

// Index of each function in D4R_CUDA_API order.
enum class ApiId : uint16_t {
#define D4R_API_ID(exp, base, since, params, args) exp,
    D4R_CUDA_API(D4R_API_ID)
#undef D4R_API_ID
        Count
};

struct ApiInfo {
    std::string_view export_name; // "cuMemAlloc_v2"
    std::string_view base_name;   // "cuMemAlloc"
    int since = 0;                // CUDA version from which cuda.h maps base_name to export_name
};

// Every function of D4R_CUDA_API, in order.
const ApiInfo& api_info(ApiId id);
constexpr size_t kApiCount = static_cast<size_t>(ApiId::Count);

// The slot of ID in TABLE (as an untyped pointer, for loaders and cuGetProcAddress).
void*& table_slot(ApiTable& table, ApiId id);
void* table_slot(const ApiTable& table, ApiId id);

// Fills every empty entry of TABLE with a stub that logs once "backend NAME does not implement cuX" (NAME:
// the installed runtime's backend, runtime_object.h) and returns CUDA_ERROR_NOT_SUPPORTED (what a driver
// without the entry point effectively gives).
void fill_missing(ApiTable& table);

// cuGetProcAddress's lookup: the function with base name SYMBOL for CUDA_VERSION (the entry with the
// largest `since` not above it). Returns Count and sets *version_too_low when SYMBOL exists only in
// newer versions; Count when it does not exist at all.
ApiId find_proc(std::string_view symbol, int cuda_version, bool* version_too_low);

// cuGetErrorName / cuGetErrorString texts; nullptr for an unknown code (as the driver reports
// CUDA_ERROR_INVALID_VALUE then).
const char* error_name(CUresult r);
const char* error_string(CUresult r);

} // namespace d4r::runtime
