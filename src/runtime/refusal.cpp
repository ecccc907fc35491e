// Refusal reasons, one per thread (refusal.h).
#include "runtime/refusal.h"

#include "core/log.h"

namespace d4r::runtime {

namespace {
thread_local std::string t_reason;
} // namespace

d4r::abi::CUresult refuse_text(d4r::abi::CUresult code, std::string why) noexcept {
    try {
        log::debug("{}", why);
        t_reason = std::move(why);
    } catch (...) {
    }
    return code;
}

std::string take_refusal() {
    std::string out;
    out.swap(t_reason);
    return out;
}

void clear_refusal() noexcept { t_reason.clear(); }

} // namespace d4r::runtime
