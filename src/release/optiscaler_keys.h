// d4r release: the OptiScaler.ini keys d4r writes (d4r install, d4r play) and checks (d4r doctor --game).
//
// Promise: each name is the section and key OptiScaler itself reads, checked against OptiScaler's
// Config.cpp and its OptiScaler.ini template at the versions docs/optiscaler.md names. OptiScaler reads only
// OptiScaler.ini beside its own DLL, section and key names compared without case, a value running to the end
// of its line (no comment after a value), "auto" or a missing key meaning its default. Which OptiScaler
// versions read which key, and what d4r writes into each, is the routing table (optiscaler_routing.h).
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
// The NGX core OptiScaler's DLSS backend loads, from 0.9.1 on: a file is loaded on the first try, a folder
// has its _nvngx.dll tried before its nvngx.dll, a relative path is resolved against the working folder.
inline constexpr OptiScalerKey kNvngxPath{"Libraries", "NvngxPath"};
// The same before 0.9.1 (a file, or a folder ending in a slash); 0.9.1 and later no longer read it.
inline constexpr OptiScalerKey kDlssLibraryPath{"DLSS", "LibraryPath"};
// 0.9.1 and later: a folder holding nvngx_dlss.dll (used when it exists; else OptiScaler searches
// OptiDllPath's tree, then the exe folder's, and turns DLSS off when it finds none).
inline constexpr OptiScalerKey kNvngxDlssPath{"Libraries", "NvngxDlssPath"};
// 0.9.1 and later: the folder of OptiScaler's own side libraries (auto: the folder of OptiScaler's DLL).
inline constexpr OptiScalerKey kOptiDllPath{"Libraries", "OptiDllPath"};
// OptiScaler's DLSS backend (true or false; auto: true, turned off at start when OptiScaler sees no NVIDIA GPU).
inline constexpr OptiScalerKey kDlssEnabled{"DLSS", "Enabled"};
// DLSS inputs are taken from the game (auto: true).
inline constexpr OptiScalerKey kEnableDlssInputs{"Inputs", "EnableDlssInputs"};
// true: a nvngx.dll or _nvngx.dll loaded from the game's exe folder is left alone instead of being
// answered with OptiScaler itself (auto: false). False would send the shim's own load of NVIDIA's core
// back to OptiScaler.
inline constexpr OptiScalerKey kHookOriginalNvngxOnly{"Hooks", "HookOriginalNvngxOnly"};
// OptiScaler's own nvapi64.dll in place of Proton's (auto: true unless OptiScaler sees an NVIDIA GPU).
inline constexpr OptiScalerKey kOverrideNvapiDll{"NvApi", "OverrideNvapiDll"};
// The GPU DXGI reports is made an NVIDIA one (auto: true unless OptiScaler sees an NVIDIA GPU).
inline constexpr OptiScalerKey kDxgiSpoofing{"Spoofing", "Dxgi"};
// Frame generation: [FrameGen] Enabled from 0.9.0.2, FGInput/FGOutput from 0.8.0, FGType before 0.8.0.
inline constexpr OptiScalerKey kFrameGenEnabled{"FrameGen", "Enabled"};
inline constexpr OptiScalerKey kFgInput{"FrameGen", "FGInput"};
inline constexpr OptiScalerKey kFgOutput{"FrameGen", "FGOutput"};
inline constexpr OptiScalerKey kFgType{"FrameGen", "FGType"};
// OptiScaler writes its log file (OptiScaler.log beside its DLL) only with this (auto: false).
inline constexpr OptiScalerKey kLogToFile{"Log", "LogToFile"};
// The frame-rate overlay (true or false; auto: false).
inline constexpr OptiScalerKey kShowFps{"Menu", "ShowFps"};
// The log level: 0 trace, 1 debug, 2 info, 3 warning, 4 error (auto: 0 in 0.9.4, 1 before).
inline constexpr OptiScalerKey kLogLevel{"Log", "LogLevel"};
// The quality-mode ratios below are used only when this is true (auto: false).
inline constexpr OptiScalerKey kQualityRatioOverrideEnabled{"QualityOverrides", "QualityRatioOverrideEnabled"};
inline constexpr const char* kQualityOverridesSection = "QualityOverrides";

inline IniSetting optiscaler_setting(const OptiScalerKey& k, std::string value) {
    return {k.section, k.key, std::move(value)};
}

} // namespace d4r::release
