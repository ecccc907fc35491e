// Test helper: an OptiScaler.ini with every line of a key d4r writes taken out, so that what is left is the
// user's (or OptiScaler's template's) own bytes, for "d4r changed nothing else" comparisons.
#pragma once

#include <string>
#include <vector>

#include "release/optiscaler_ini.h"
#include "release/optiscaler_keys.h"
#include "release/optiscaler_routing.h"

namespace d4r::release {

inline std::string without_d4r_keys(const std::string& text) {
    std::vector<IniRemoval> all;
    for (const RoutingKey& r : routing_keys()) all.push_back({r.key.section, r.key.key, nullptr});
    for (const OptiScalerKey& k : {kShowFps, kLogLevel, kQualityRatioOverrideEnabled})
        all.push_back({k.section, k.key, nullptr});
    all.push_back({"DLSS", "NvngxPath", nullptr});
    return remove_ini_keys(text, all);
}

} // namespace d4r::release
