// d4r PTX toolkit: the index of one PTX module — what it declares, without parsing instructions.
//
// Promise: from PTX text, the module header (.version, .target, .address_size), every kernel
// (.entry) with its parameter block laid out as CUDA lays it out (each parameter at the next multiple
// of its alignment; the block ends with the last parameter), the cheap kernel directives, the device
// functions (.func) and the module-scope .global / .const variables. Function bodies are skipped by
// brace matching. Linear time; memory proportional to what is declared; any input, however
// malformed, gives an index or an Error naming the line ("line 12: expected ')' after parameter
// list"), never a crash or a hang. Unknown module-scope directives are skipped and noted in
// ModuleIndex::notes so newer PTX still indexes.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ptx/container.h"

namespace d4r::ptx {

// Bytes of a PTX fundamental type (".u32" -> 4, ".b8" -> 1, ".f16x2" -> 4); 0 when TYPE is not one.
// Opaque handle types (.texref, .samplerref, .surfref) count as 8 bytes (a 64-bit handle).
unsigned ptx_type_size(std::string_view type);

struct ParamInfo {
    std::string name;
    std::string type;           // element type: ".u32", ".b8", ".f64", ".texref", ...
    unsigned vector = 1;        // 2, 4 or 8 for ".v2"/".v4"/".v8"
    std::vector<uint64_t> dims; // array dimensions, outermost first ("p[24]" -> {24}); empty for a scalar
    uint64_t size = 0;          // bytes: element size x vector x dims
    uint64_t align = 1;         // bytes: ".align N" when given, else the element size x vector
    uint64_t offset = 0;        // byte offset in the parameter block
    bool explicit_align = false;
    bool is_pointer = false;    // ".ptr" attribute
    std::string pointer_space;  // ".global", ".const", ".local", ".shared" or "" (generic) when is_pointer
    uint64_t pointer_align = 0; // ".ptr ... .align N" (alignment of what it points to), 0 when absent
    uint32_t line = 0;

    // ".u64 .ptr .global .align 16", ".align 8 .b8 [24]": the declaration as PTX writes it, minus the name.
    std::string describe() const;
};

// Performance-tuning directives of a kernel that are cheap to read.
struct KernelDirectives {
    std::optional<std::array<uint32_t, 3>> maxntid; // missing dimensions are 1
    std::optional<std::array<uint32_t, 3>> reqntid;
    std::optional<uint32_t> minnctapersm;
    std::optional<uint32_t> maxnreg;
};

struct EntryInfo {
    std::string name;
    std::string linkage; // ".visible", ".weak", ".extern" or ""
    std::vector<ParamInfo> params;
    uint64_t param_block_size = 0;  // end of the last parameter (0 without parameters)
    uint64_t param_block_align = 1; // the largest parameter alignment
    KernelDirectives directives;
    uint32_t line = 0; // line of '.entry'
};

struct FuncInfo {
    std::string name;
    std::string linkage;
    bool defined = false; // has a body (else a prototype, e.g. ".extern .func vprintf")
    uint32_t line = 0;
};

struct VariableInfo {
    std::string name;
    std::string space; // ".global" or ".const"
    std::string linkage;
    std::string type; // element type
    unsigned vector = 1;
    std::vector<uint64_t> dims; // an unsized dimension ("x[]") is 0 unless a flat initializer gives it
    uint64_t size = 0;          // bytes (0 while a dimension is unknown)
    uint64_t align = 1;
    bool has_initializer = false;
    bool managed = false; // .attribute(.managed): managed memory the host may use directly
    uint32_t line = 0;
};

struct ModuleIndex {
    std::optional<std::pair<uint32_t, uint32_t>> version; // .version major.minor
    std::vector<std::string> targets;                     // .target list in order: "sm_89", "debug", ...
    std::optional<uint32_t> address_size;
    std::vector<EntryInfo> entries; // in module order
    std::vector<FuncInfo> funcs;
    std::vector<VariableInfo> variables; // .global and .const, in module order
    std::vector<std::string> notes;      // "line 40: skipped unknown directive '.foo'"

    // The first .target naming an architecture ("sm_89", "sm_90a", "compute_80"), else "".
    std::string sm() const;
    const EntryInfo* find_entry(std::string_view name) const;
    std::string version_text() const; // "8.5", or "" without .version
};

struct IndexLimits {
    size_t max_notes = 64; // notes beyond this are counted in one final note
};

// Indexes one module. TEXT should not carry trailing NULs (strip_trailing_nuls in module_hash.h);
// an embedded NUL byte is an error like any other stray byte.
Expected<ModuleIndex> index_module(std::string_view text, const IndexLimits& limits = {});

// One PTX module of a file, hashed (module_hash.h) and indexed: what the PTX tools, the manifest writer
// and the runtime all need to know about a module.
struct IndexedModule {
    size_t number = 0;  // position among the file's PTX modules, from 0
    PtxModuleBlob blob; // as the container holds it
    uint64_t hash = 0;
    std::string sm; // the container's architecture, else the first .target architecture, else ""
    ModuleIndex index;

    std::string_view text() const; // blob.text without trailing NULs (what the hash covers)
};

// Every PTX module in BYTES (any container find_ptx_modules reads), hashed and indexed. An error names
// the module: "module 2 (fatbin 0 @0x1a40, entry 2 (sm_89 PTX)): line 12: expected ...".
Expected<std::vector<IndexedModule>> index_ptx_modules(std::span<const uint8_t> bytes,
                                                       const ContainerLimits& container_limits = {},
                                                       const IndexLimits& index_limits = {});

// Files larger than this are refused (the largest NVIDIA libraries are a few hundred MiB).
inline constexpr uint64_t kMaxPtxFileBytes = 8ull << 30;

struct PtxFile {
    std::filesystem::path path;
    ContainerKind kind = ContainerKind::Unknown;
    std::vector<IndexedModule> modules; // empty when the file holds no PTX (not an error)
};

// Reads PATH and indexes its PTX modules; errors start with the path ("lib.so: module 2 (...): ...").
// A folder is an Invalid error, a missing file NotFound.
Expected<PtxFile> index_ptx_file(const std::filesystem::path& path, const ContainerLimits& container_limits = {},
                                 const IndexLimits& index_limits = {});

} // namespace d4r::ptx
