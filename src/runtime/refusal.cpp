// Refusal reasons, one per thread (refusal.h).
#include "runtime/refusal.h"

#include <cstring>

#include "core/log.h"

namespace d4r::runtime {

namespace {
// A fixed buffer, not a std::string: a thread_local with a destructor is destroyed when its thread (for
// the main thread: the process) exits, and entry points still run after that (cudart's own exit handlers
// call cuModuleUnload and friends), which then wrote into a destroyed string and corrupted the heap.
// Trivially destructible storage lives as long as the thread does. Longer reasons are cut, marked "...".
constexpr size_t kReasonBytes = 512;
thread_local char t_reason[kReasonBytes];
thread_local size_t t_length = 0;
} // namespace

d4r::abi::CUresult refuse_text(d4r::abi::CUresult code, std::string why) noexcept {
    try {
        log::debug("{}", why);
    } catch (...) {
    }
    size_t n = why.size();
    if (n >= kReasonBytes) {
        n = kReasonBytes - 4;
        std::memcpy(t_reason, why.data(), n);
        std::memcpy(t_reason + n, "...", 3);
        n += 3;
    } else {
        std::memcpy(t_reason, why.data(), n);
    }
    t_length = n;
    return code;
}

std::string take_refusal() {
    std::string out(t_reason, t_length);
    t_length = 0;
    return out;
}

void clear_refusal() noexcept { t_length = 0; }

} // namespace d4r::runtime
