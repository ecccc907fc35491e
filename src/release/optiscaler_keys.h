// d4r release: the OptiScaler.ini keys d4r writes (d4r play) and checks (d4r doctor --game).
//
// Promise: each name is the section and key OptiScaler itself reads, checked against OptiScaler's
// Config.cpp and its OptiScaler.ini template (docs/optiscaler.md names the version and commit). OptiScaler
// reads only OptiScaler.ini beside its own DLL, section and key names compared without case, a value running
// to the end of its line (no comment after a value), "auto" or a missing key meaning its default.
#pragma once

#include <string>
#include <utility>

#include "optiscaler_ini.h"

namespace d4r::release {

struct OptiScalerKey {
    const char* section;
    const char* key;
};

inline constexpr const char* kOptiScalerIniName = "OptiScaler.ini";

// The D3D12 upscaler: xess, fsr21, fsr22, fsr31, dlss (auto: DLSS when the NGX core loads, else XeSS).
inline constexpr OptiScalerKey kDx12Upscaler{"Upscalers", "Dx12Upscaler"};
inline constexpr const char* kDx12UpscalerDlss = "dlss";
// The NGX core OptiScaler's DLSS backend loads: a file, or a folder where _nvngx.dll is tried before
// nvngx.dll (auto: the driver's path from the registry).
inline constexpr OptiScalerKey kDlssLibraryPath{"DLSS", "LibraryPath"};
// OptiScaler's DLSS backend (true or false; auto: true).
inline constexpr OptiScalerKey kDlssEnabled{"DLSS", "Enabled"};
// true: a nvngx.dll or _nvngx.dll loaded from the game's exe folder is left alone instead of being
// answered with OptiScaler itself (auto: false).
inline constexpr OptiScalerKey kHookOriginalNvngxOnly{"Hooks", "HookOriginalNvngxOnly"};
// The GPU DXGI reports is made an NVIDIA one (auto: true unless the GPU is NVIDIA's).
inline constexpr OptiScalerKey kDxgiSpoofing{"Spoofing", "Dxgi"};
// The frame-rate overlay (true or false; auto: false).
inline constexpr OptiScalerKey kShowFps{"Menu", "ShowFps"};
// The log level: 0 trace, 1 debug, 2 info, 3 warning, 4 error (auto: 1).
inline constexpr OptiScalerKey kLogLevel{"Log", "LogLevel"};
// The quality-mode ratios below are used only when this is true (auto: false).
inline constexpr OptiScalerKey kQualityRatioOverrideEnabled{"QualityOverrides", "QualityRatioOverrideEnabled"};
inline constexpr const char* kQualityOverridesSection = "QualityOverrides";

inline IniSetting optiscaler_setting(const OptiScalerKey& k, std::string value) {
    return {k.section, k.key, std::move(value)};
}

} // namespace d4r::release
