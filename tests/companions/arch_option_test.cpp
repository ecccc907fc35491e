// The companion libnvrtc's PTX twin options (companions/nvrtc/arch_option.h).
#include <gtest/gtest.h>

#include "companions/nvrtc/arch_option.h"

using d4r::companion::ptx_twin_options;
using V = std::vector<std::string>;

TEST(NvrtcTwinOptions, EverySpellingOfAMachineTargetBecomesItsVirtualTarget) {
    EXPECT_EQ(ptx_twin_options({"--gpu-architecture=sm_90"}), V{"--gpu-architecture=compute_90"});
    EXPECT_EQ(ptx_twin_options({"-arch=sm_86", "-default-device"}), (V{"-arch=compute_86", "-default-device"}));
    EXPECT_EQ(ptx_twin_options({"-arch", "sm_90a"}), (V{"-arch", "compute_90a"}));
    EXPECT_EQ(ptx_twin_options({"-I/x", "--gpu-architecture", "sm_100f", "-G"}),
              (V{"-I/x", "--gpu-architecture", "compute_100f", "-G"}));
}

TEST(NvrtcTwinOptions, NoMachineTargetNoTwin) {
    EXPECT_EQ(ptx_twin_options({}), std::nullopt);
    EXPECT_EQ(ptx_twin_options({"--gpu-architecture=compute_90"}), std::nullopt);
    EXPECT_EQ(ptx_twin_options({"-arch"}), std::nullopt);                    // no value
    EXPECT_EQ(ptx_twin_options({"-architecture=sm_90"}), std::nullopt);      // not the option
    EXPECT_EQ(ptx_twin_options({"--std=c++17", "-lineinfo"}), std::nullopt); // nothing to change
}
