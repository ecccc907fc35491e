// The fast sm_90 kernels (src/kernels/refine/cuda) compiled to PTX by the build's nvcc, for running them on ptxsim
// (tests/network: refine_fast_sm90_test.cpp, refine_v2_test.cpp).
#pragma once

#include <string>
#include <string_view>

#include "network/plan.h"
#include "network/refine_pipeline.h"
#include "test_support.h"

namespace d4r::network {

struct FastPtx {
    std::string elementwise, unpatchify, regroup, linear, attention; // NUL-terminated texts
};

inline const FastPtx* fast_ptx(std::string* why) {
#ifdef D4R_TEST_FAST_SM90_PTX_DIR
    static FastPtx p = [] {
        auto read = [](const char* name) {
            std::string text = d4r::test::read_file_text(std::string(D4R_TEST_FAST_SM90_PTX_DIR) + "/" + name);
            text.push_back('\0');
            return text;
        };
        return FastPtx{read("fast_elementwise.ptx"), read("fast_unpatchify.ptx"), read("fast_regroup.ptx"),
                       read("fast_linear.ptx"), read("fast_attention.ptx")};
    }();
    return &p;
#else
    *why = "NVIDIA's nvcc was not found when the build was configured: the fast sm_90 kernels were not compiled";
    return nullptr;
#endif
}

// The fast kernel of K (MATRIX_TOO: also the linears' and attention's; otherwise those from the embedded PTX); the
// embedded PTX for every kernel the fast set has none of (refine-v2's pixel kernels and wide linear).
inline std::string_view pick(const FastPtx& f, Kernel k, bool matrix_too) {
    if (k == Kernel::Linear || k == Kernel::LinearFp8) return matrix_too ? std::string_view(f.linear) : kernel_ptx(k);
    if (k == Kernel::Attention) return matrix_too ? std::string_view(f.attention) : kernel_ptx(k);
    if (k == Kernel::Merge || k == Kernel::Expand) return f.regroup;
    if (k == Kernel::Unpatchify) return f.unpatchify;
    if (k == Kernel::Patchify || k == Kernel::LayerNorm) return f.elementwise;
    return kernel_ptx(k);
}

} // namespace d4r::network
