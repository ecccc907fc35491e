#include "runtime/launch_params.h"

#include <cstring>

#include "abi/cuda.h"

namespace d4r::runtime {

using namespace d4r::abi;

Expected<std::vector<uint8_t>> launch_param_block(const ptx::EntryInfo* info, std::string_view name, void** params,
                                                  void** extra) {
    if (extra) {
        const void* buffer = nullptr;
        size_t size = 0;
        for (void** e = extra; *e != D4R_CU_LAUNCH_PARAM_END; e += 2) {
            if (e[0] == D4R_CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = e[1];
            else if (e[0] == D4R_CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<size_t*>(e[1]);
            else return make_error(ErrorCode::Invalid, "unknown cuLaunchKernel extra option");
        }
        if (!buffer && size) return make_error(ErrorCode::Invalid, "extra without a buffer pointer");
        const auto* b = static_cast<const uint8_t*>(buffer);
        return std::vector<uint8_t>(b, b + size);
    }
    if (!info) return make_error(ErrorCode::Invalid, "the parameter layout of {} is unknown", name);
    std::vector<uint8_t> block(info->param_block_size);
    if (!info->params.empty() && !params) return make_error(ErrorCode::Invalid, "kernelParams is NULL");
    for (size_t i = 0; i < info->params.size(); ++i) {
        const ptx::ParamInfo& p = info->params[i];
        std::memcpy(block.data() + p.offset, params[i], p.size);
    }
    return block;
}

} // namespace d4r::runtime
