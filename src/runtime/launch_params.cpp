#include "runtime/launch_params.h"

#include <cstring>

#include "abi/cuda.h"

namespace d4r::runtime {

using namespace d4r::abi;

namespace {

// More options than any driver defines: an `extra` without CU_LAUNCH_PARAM_END is refused here instead
// of being read past its end (the cpu backend's bound).
constexpr size_t kMaxExtraOptions = 32;
// CUDA's largest parameter block (32764 bytes from PTX ISA 8.1 on sm_70+): the bound for an `extra`
// buffer whose kernel's layout is unknown, so a wild BUFFER_SIZE never becomes a wild copy.
constexpr size_t kMaxUnknownBlock = 32764;

} // namespace

Expected<std::vector<uint8_t>> launch_param_block(const ptx::EntryInfo* info, std::string_view name, void** params,
                                                  void** extra) {
    if (params && extra) return make_error(ErrorCode::Invalid, "{}: both kernelParams and extra are given", name);
    if (extra) {
        const void* buffer = nullptr;
        size_t size = 0;
        bool have_size = false;
        for (size_t i = 0; extra[i] != D4R_CU_LAUNCH_PARAM_END; i += 2) {
            if (i / 2 >= kMaxExtraOptions)
                return make_error(ErrorCode::Invalid, "{}: extra has no CU_LAUNCH_PARAM_END within {} options", name,
                                  kMaxExtraOptions);
            if (extra[i] == D4R_CU_LAUNCH_PARAM_BUFFER_POINTER) {
                buffer = extra[i + 1];
            } else if (extra[i] == D4R_CU_LAUNCH_PARAM_BUFFER_SIZE) {
                if (!extra[i + 1])
                    return make_error(ErrorCode::Invalid, "{}: CU_LAUNCH_PARAM_BUFFER_SIZE is NULL", name);
                std::memcpy(&size, extra[i + 1], sizeof(size));
                have_size = true;
            } else {
                return make_error(ErrorCode::Invalid, "{}: unknown cuLaunchKernel extra option {}", name, extra[i]);
            }
        }
        if (!buffer) return make_error(ErrorCode::Invalid, "{}: extra without a CU_LAUNCH_PARAM_BUFFER_POINTER", name);
        if (!have_size) return make_error(ErrorCode::Invalid, "{}: extra without a CU_LAUNCH_PARAM_BUFFER_SIZE", name);
        // The kernel receives its parameter block, however large the buffer claims to be.
        size_t take = size;
        if (info) {
            if (size < info->param_block_size)
                return make_error(ErrorCode::Invalid, "{}: extra's buffer has {} bytes, the parameters need {}", name,
                                  size, info->param_block_size);
            take = info->param_block_size;
        } else if (size > kMaxUnknownBlock) {
            return make_error(ErrorCode::Invalid,
                              "{}: extra's buffer of {} bytes exceeds CUDA's {}-byte parameter limit", name, size,
                              kMaxUnknownBlock);
        }
        const auto* b = static_cast<const uint8_t*>(buffer);
        return std::vector<uint8_t>(b, b + take);
    }
    if (!info) return make_error(ErrorCode::Invalid, "the parameter layout of {} is unknown", name);
    std::vector<uint8_t> block(info->param_block_size);
    if (!info->params.empty() && !params) return make_error(ErrorCode::Invalid, "{}: kernelParams is NULL", name);
    for (size_t i = 0; i < info->params.size(); ++i) {
        const ptx::ParamInfo& p = info->params[i];
        if (!params[i]) return make_error(ErrorCode::Invalid, "{}: kernelParams[{}] is NULL", name, i);
        std::memcpy(block.data() + p.offset, params[i], p.size);
    }
    return block;
}

} // namespace d4r::runtime
