// cpu backend internals: turning what cuModuleLoadData & co. are given (PTX text, a fatbin, a fatbin
// wrapper, an ELF with .nv_fatbin, a file) into one loaded ptxsim module.
#pragma once

#include <memory>
#include <string>

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

// Loads IMAGE (its size is found from its headers; PTX text must be NUL-terminated). SIZE, when known
// (a file), bounds it. On failure returns the CUresult a driver gives (INVALID_IMAGE, NO_BINARY_FOR_GPU,
// INVALID_PTX) and the reason in ERROR_LOG.
CUresult load_image(const void* image, size_t size, const std::string& name, std::shared_ptr<ptxsim::Module>& out,
                    std::string& error_log);

} // namespace d4r::runtime::cpu
