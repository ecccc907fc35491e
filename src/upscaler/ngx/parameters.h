// d4r open NGX core: NGX parameter maps.
//
// Promise: a ParameterStore holds one typed value per name (names are case-sensitive, a Set replaces
// the value and its type). A ParameterObject is an NVSDK_NGX_Parameter whose table (abi/ngx.h, MSVC
// slot order) reads and writes its store, so games, the shim and the demo can all use it. Get converts
// like NGX does, and d4r documents the rules here:
//   - a missing name, a null name or a null output fails (NVSDK_NGX_Result_Fail, output untouched);
//   - numbers (unsigned long long, float, double, unsigned int, int) convert to any number type as a C
//     cast would, except that a floating value is clamped into an integer type's range (NaN gives 0);
//   - pointers (void*, ID3D11Resource*, ID3D12Resource*) convert to any pointer type unchanged;
//   - a pointer reads as unsigned long long (its bits) and an unsigned long long reads as a pointer,
//     because CUDA callers pass a CUdeviceptr either way; other number/pointer mixes fail.
// Reset() removes every value. A retired object (the GetParameters map after Shutdown, which a game may
// still hold) keeps its valid table: Set and Reset do nothing and Get answers FAIL_NotInitialized.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <unordered_map>

#include "abi/ngx.h"

namespace d4r::upscaler::ngx {

using abi::NVSDK_NGX_Parameter;
using abi::NVSDK_NGX_Result;

enum class ValueType { ULL, Float, Double, UInt, Int, D3D11, D3D12, Pointer };

const char* value_type_name(ValueType type);

struct Value {
    ValueType type = ValueType::Int;
    union {
        unsigned long long ull;
        float f;
        double d;
        unsigned int ui;
        int i;
        void* p;
    };
    Value() : ull(0) {}
};

class ParameterStore {
public:
    void set(const char* name, Value value);
    const Value* find(const char* name) const;
    void clear() { m_values.clear(); }
    size_t size() const { return m_values.size(); }

    // Typed reads with the conversion rules above; empty when missing or not convertible.
    template <typename T>
    std::optional<T> get(const char* name) const;

private:
    std::unordered_map<std::string, Value> m_values;
};

// Converts a stored value to T by the rules above.
template <typename T>
std::optional<T> convert(const Value& value);

// The parameter object handed out by the core. `vtbl` is the first member, as in abi/ngx.h.
struct ParameterObject : NVSDK_NGX_Parameter {
    ParameterStore store;
    // Set by Core::shutdown on the GetParameters map instead of freeing it: a game calling through a map
    // it kept past Shutdown must meet this object and its table, not freed memory.
    std::atomic<bool> retired{false};
    ParameterObject();
};

// The table every ParameterObject points to (exposed so tests can check each slot).
const abi::NVSDK_NGX_Parameter_Vtbl& parameter_vtbl();

// Capabilities as NGX reports them for Super Resolution: Available 1, NeedsUpdatedDriver 0,
// MinDriverVersion 0.0, FeatureInitResult Success, the optimal-settings and stats callbacks.
void set_capabilities(NVSDK_NGX_Parameter& params);

// The optimal-settings callback (PFN_NVSDK_NGX_DLSS_GetOptimalSettingsCallback): render scale per
// PerfQualityValue — UltraPerformance 1/3, MaxPerf 1/2, Balanced 0.58, MaxQuality 2/3,
// UltraQuality 0.77, DLAA 1 — of the output size in Width/Height.
NVSDK_NGX_Result optimal_settings_callback(NVSDK_NGX_Parameter* params);
NVSDK_NGX_Result stats_callback(NVSDK_NGX_Parameter* params);

} // namespace d4r::upscaler::ngx
