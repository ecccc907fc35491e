// The exception barrier and the unimplemented answer of the exported entry points (entry_guard.h).
#include "runtime/entry_guard.h"

#include <exception>
#include <new>
#include <string>

#include "core/log.h"

namespace d4r::runtime {

using namespace d4r::abi;

CUresult exception_result(const char* function) noexcept {
    CUresult result = CUDA_ERROR_UNKNOWN;
    std::string what = "an unknown exception";
    try {
        throw;
    } catch (const std::bad_alloc&) {
        result = CUDA_ERROR_OUT_OF_MEMORY;
        what = "out of memory (std::bad_alloc)";
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    try {
        if (log::once(std::string("entry.exception.") + function))
            log::error("{}: stopped by an internal exception: {}; it answers {} (logged once per function)", function,
                       what, result == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_UNKNOWN");
    } catch (...) {
    }
    return result;
}

CUresult unimplemented(const char* function) noexcept {
    try {
        if (log::once(std::string("entry.unimplemented.") + function))
            log::warn("{} is not implemented by d4r: it answers CUDA_ERROR_NOT_SUPPORTED", function);
    } catch (...) {
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}

} // namespace d4r::runtime
