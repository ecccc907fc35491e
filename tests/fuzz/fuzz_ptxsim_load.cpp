// Fuzzes ptxsim's module loader (parser, variable layout, decoder) and executor: any input must give a
// Module or an Error, never a crash, a hang or a sanitizer report; every kernel that loads is then run
// for one warp under a small instruction budget with a zeroed parameter block (a null pointer faults,
// a loop stops at the budget), which exercises the handlers on arbitrary operands.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ptxsim/ptxsim.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > (1u << 16)) return 0;
    static d4r::ptxsim::Device device;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto m = d4r::ptxsim::Module::load(text, "fuzz.ptx");
    if (!m.ok()) return 0;
    for (const std::string& name : (*m)->kernel_names()) {
        auto k = (*m)->kernel(name);
        if (!k.ok() || (*k)->local_bytes_per_thread() > (64u << 10)) continue;
        d4r::ptxsim::LaunchConfig cfg;
        cfg.block = {32, 1, 1};
        cfg.worker_threads = 1;
        cfg.instruction_budget = 20000;
        std::vector<uint8_t> params((*k)->info().param_block_size, 0);
        (void)d4r::ptxsim::launch(device, **k, cfg, params);
    }
    return 0;
}
