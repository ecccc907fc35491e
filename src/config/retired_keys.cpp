#include "retired_keys.h"

#include <array>

#include "core/strings.h"

namespace d4r::config {

namespace {

// Removed in issue 25 ("settings that do nothing"): each exported a variable that no part of d4r ever read.
constexpr std::string_view kNeverRead = "nothing in d4r ever read it";

constexpr std::array<RetiredKey, 6> kRetired{{
    {"Kernels", "NativeSwinEncoders", "D4R_NATIVE_SWIN_ENCODERS", kNeverRead},
    {"Interop", "InputSync", "D4R_SHIM_INPUT_SYNC", kNeverRead},
    {"Interop", "LinearInputs", "D4R_SHIM_LINEAR_INPUTS", kNeverRead},
    {"Interop", "DirectOutput", "D4R_SHIM_OUTPUT_DIRECT", kNeverRead},
    {"Interop", "EvalSync", "D4R_SHIM_EVAL_SYNC", kNeverRead},
    {"Interop", "MarkerPollUs", "D4R_SHIM_MARKER_POLL_US", kNeverRead},
}};

} // namespace

std::span<const RetiredKey> retired_keys() { return kRetired; }

const RetiredKey* find_retired_key(std::string_view section, std::string_view name) {
    for (const RetiredKey& k : kRetired)
        if (iequals(k.section, section) && iequals(k.name, name)) return &k;
    return nullptr;
}

const RetiredKey* find_retired_variable(std::string_view name) {
    for (const RetiredKey& k : kRetired)
        if (k.variable == name) return &k;
    return nullptr;
}

} // namespace d4r::config
