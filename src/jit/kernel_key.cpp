// The compile cache's keys (see kernel_key.h).
#include "jit/kernel_key.h"

#include <fmt/format.h>

#include "core/sha256.h"
#include "jit/jit_version.h" // generated: kJitSourceDigest (src/jit/CMakeLists.txt)
#include "ptx/module_hash.h"

namespace d4r::jit {

namespace {

// The format of a cache entry and of the kernel record in it (kernel_cache.cpp, kernel_record.cpp): change it when
// either changes. What the lowering generates is versioned by kJitSourceDigest instead, computed from the sources.
constexpr unsigned kEntryFormat = 2;

bool host_address(ptx::StateSpace space) {
    return space != ptx::StateSpace::Shared && space != ptx::StateSpace::Local && space != ptx::StateSpace::Param;
}

std::string place_text(const ptxsim::VariablePlace& p) {
    // A host address is not part of the code (read at run time): only where it is and how large.
    if (host_address(p.space)) return fmt::format("{} host {}", static_cast<int>(p.space), p.size);
    return fmt::format("{} {} {}", static_cast<int>(p.space), p.address, p.size);
}

} // namespace

CacheKey make_key(const KeyParts& parts) {
    CacheKey key;
    key.text = fmt::format("jit {}\nllvm {}\ntriple {}\ncpu {}\nfeatures {}\ncode {}\n{}", parts.jit, parts.llvm,
                           parts.triple, parts.cpu, parts.features, parts.code, parts.kernel);
    key.digest = sha256_hex(key.text);
    return key;
}

std::string jit_version() { return fmt::format("format {} sources {}", kEntryFormat, kJitSourceDigest); }

std::string kernel_text(const ptxsim::KernelSource& source) {
    if (source.module_text.empty() || !source.module || !source.info || !source.layout) return {};
    std::string text = fmt::format("module {}\nentry {} {}\ntarget {}\nparams {}",
                                   sha256_hex(ptx::strip_trailing_nuls(source.module_text)), source.info->name,
                                   source.function, source.target, source.info->param_block_size);
    for (const ptx::ParamInfo& p : source.info->params) text += fmt::format(" {}:{}:{}", p.name, p.offset, p.size);
    text += '\n';
    for (const auto& [name, place] : source.layout->module_variables)
        text += fmt::format("variable {} {}\n", name, place_text(place));
    for (const auto& [at, place] : source.layout->declared)
        text += fmt::format("declared {}.{} {}\n", at.first, at.second, place_text(place));
    return text;
}

} // namespace d4r::jit
