// cpu backend internals: turning what cuModuleLoadData & co. are given (PTX text, a fatbin, a fatbin
// wrapper, an ELF with .nv_fatbin, a file) into one loaded ptxsim module.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

// Loads IMAGE (its size is found from its headers; PTX text must be NUL-terminated). SIZE, when known
// (a file), bounds it. On failure returns the CUresult a driver gives (INVALID_IMAGE, NO_BINARY_FOR_GPU,
// INVALID_PTX) and the reason in ERROR_LOG.
CUresult load_image(const void* image, size_t size, const std::string& name, std::shared_ptr<ptxsim::Module>& out,
                    std::string& error_log, const void* origin = nullptr);

// The PTX text load_image would load from IMAGE (the newest entry for sm_90 or older of a fatbin), without
// loading it; the same results and error texts. MODULE_NAME (optional) receives the name load_image gives
// the module (NAME, with the fatbin entry it came from). An image of cubins only may be device-linked
// code: its PTX is then looked up beside ORIGIN (where the caller's image lives; IMAGE when null).
CUresult find_ptx_text(const void* image, size_t size, const std::string& name, std::string& text,
                       std::string& error_log, std::string* module_name = nullptr, const void* origin = nullptr);

// The number of an architecture name ("sm_89" -> 89; 0 when it has none).
int sm_number(const std::string& sm);

// One PTX module, named for logs.
struct NamedPtx {
    std::string name;
    std::string ptx;
};
// One PTX module from several (cpu_link.cpp): the first input's .target and .address_size, the highest
// .version, then each input without its header lines. ptxsim resolves `.extern .func` declarations to
// definitions anywhere in the module, so calls between the inputs work.
std::string join_ptx(const std::vector<NamedPtx>& inputs);

// Device-linked code (nvcc -rdc=true, cpu_rdc.cpp): cudart registers the image nvlink made, which holds
// only cubins; the PTX of every relocatable object stays in the same executable or library, in its
// __nv_relfatbin section. When IMAGE lies inside a loaded object with such a section, TEXT receives the
// newest PTX (sm_90 or older) of each of those objects joined into one module and ORIGIN says where it
// came from; false (and WHY) otherwise.
bool relocatable_ptx_for(const void* image, std::string& text, std::string& origin, std::string& why);

// The JIT options cuModuleLoadDataEx, cuLibraryLoadData and cuLink* take: where the logs go.
struct JitLogs {
    char* error_buffer = nullptr;
    size_t error_size = 0;
    int error_size_index = -1;
    char* info_buffer = nullptr;
    size_t info_size = 0;
    int info_size_index = -1;
    float* wall_time = nullptr; // CU_JIT_WALL_TIME as cuLinkCreate takes it (a pointer to a float)
};
// INVALID_VALUE for N > 0 without arrays; unknown options are accepted (nothing to tune in ptxsim).
CUresult parse_jit_options(unsigned n, CUjit_option* options, void** values, JitLogs& logs);
// Writes TEXT to a JIT log buffer (NUL-terminated, truncated) and the bytes used to its size option.
void write_log(char* buffer, size_t size, int size_index, void** values, const std::string& text);

} // namespace d4r::runtime::cpu
