// Refusals: how an entry point says why it answered an error.
//
// Promise: refuse(code, format, args...) logs "why" at debug level, remembers it for the calling thread
// and returns CODE, so a refusal is one line: `return refuse(CUDA_ERROR_INVALID_VALUE, "cuX: {} is 0", n);`
// or, for a condition, D4R_CU_INVALID_IF(cond, code, format, args...). The trace (D4R_CUDA_TRACE=1)
// prints the reason of the call's refusal beside its result (take_refusal()). Formatting never throws
// out of refuse().
#pragma once

#include <string>

#include <fmt/format.h>

#include "abi/cuda.h"

namespace d4r::runtime {

// Records WHY as the calling thread's last refusal and logs it at debug level; returns CODE.
d4r::abi::CUresult refuse_text(d4r::abi::CUresult code, std::string why) noexcept;

template <typename... Args>
d4r::abi::CUresult refuse(d4r::abi::CUresult code, fmt::format_string<Args...> format, Args&&... args) noexcept {
    try {
        return refuse_text(code, fmt::format(format, std::forward<Args>(args)...));
    } catch (...) {
        return code;
    }
}

// The calling thread's last refusal reason, cleared ("" when none was recorded since the last take).
std::string take_refusal();

// Forgets the calling thread's last refusal (before a call whose reason is to be read).
void clear_refusal() noexcept;

} // namespace d4r::runtime

// Returns CODE from the enclosing function, with the reason, when COND holds.
#define D4R_CU_INVALID_IF(cond, code, ...)                            \
    do {                                                              \
        if (cond) return ::d4r::runtime::refuse((code), __VA_ARGS__); \
    } while (0)
