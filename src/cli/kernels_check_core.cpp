// d4r kernels check's core frame for refine-v2 (kernels_check_core.h).
#include "kernels_check_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "core/files.h"
#include "kernelset/kernel_set.h"
#include "network/core_frame.h"
#include "network/refine_pipeline.h"

namespace d4r::cli {

namespace fs = std::filesystem;

Expected<network::LayerTrace> trace_after_core(const upscaler::CudaFunctions& cuda, const network::Model& model,
                                               uint32_t width, uint32_t height, uint64_t seed,
                                               network::PlanOptions options) {
    network::LayerTrace trace;
    D4R_TRY(network::with_core_frame(cuda, width, height, seed, [&](const upscaler::math::Params& core) -> Status {
        trace = D4R_TRY(network::trace_forward_after_core(cuda, model, core, network::kernel_ptx, options));
        return ok_status();
    }));
    return trace;
}

Status network_only_root(const fs::path& root, const fs::path& dst) {
    std::error_code ec;
    size_t sets = 0;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_directory() || !kernels::has_manifest(it->path())) continue;
        const fs::path out = dst / fs::relative(it->path(), root);
        fs::create_directories(out, ec);
        if (ec) return make_error(ErrorCode::Io, "creating {}: {}", out.string(), ec.message());
        std::string manifest = D4R_TRY(read_text_file(it->path() / kernels::kManifestFileName));
        std::string kept;
        size_t at = 0;
        while (at < manifest.size()) {
            size_t end = manifest.find('\n', at);
            if (end == std::string::npos) end = manifest.size();
            const std::string line = manifest.substr(at, end - at);
            if (line.empty() || line[0] == '#' || line.rfind("d4r_nn_", 0) == 0) kept += line + "\n";
            at = end + 1;
        }
        D4R_TRY(write_file_atomic(out / kernels::kManifestFileName, std::string_view(kept)));
        for (const fs::directory_entry& f : fs::directory_iterator(it->path(), ec)) {
            const std::string name = f.path().filename().string();
            if (!f.is_regular_file() || (name.rfind("d4r_nn_", 0) != 0 && name != kernels::kAccuracyMarkerFileName))
                continue;
            fs::copy_file(f.path(), out / name, fs::copy_options::overwrite_existing, ec);
            if (ec) return make_error(ErrorCode::Io, "copying {}: {}", f.path().string(), ec.message());
        }
        ++sets;
    }
    if (ec) return make_error(ErrorCode::Io, "reading {}: {}", root.string(), ec.message());
    if (sets == 0)
        return make_error(ErrorCode::NotFound, "{} holds no kernel set (no {})", root.string(),
                          kernels::kManifestFileName);
    return {};
}

} // namespace d4r::cli
