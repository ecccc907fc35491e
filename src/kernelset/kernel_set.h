// d4r kernel sets: which folder of native kernels the runtime uses (docs/kernel-sets.md).
//
// Promise: select_kernel_set() applies docs/kernel-sets.md's selection rules exactly and explains every
// candidate it considered, so the runtime can log why a set was (or was not) chosen. It never hands
// out fast kernels in accuracy mode, never hands out a release root (a folder with gfx* subfolders)
// whole, and never treats an accuracy folder as valid unless its marker reads exactly "1\n".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::kernels {

namespace fs = std::filesystem;

inline constexpr const char* kManifestFileName = "d4r-kernels.txt";
inline constexpr const char* kAccuracyMarkerFileName = "d4r-accuracy.txt";
inline constexpr const char* kAccuracyMarkerContent = "1\n";
inline constexpr const char* kAccuracySubfolder = "accuracy";

enum class KernelSetKind : int {
    None = 0,        // no set: every kernel compiles from PTX
    HashChecked = 1, // a release set: served only for modules whose hash the manifest lists
    Developer = 2,   // a developer set: served without hash checks
};
const char* kernel_set_kind_name(KernelSetKind kind);

struct SelectionRequest {
    fs::path root;    // the configured kernel root
    std::string arch; // e.g. "gfx1101"; empty when unknown
    bool accuracy = false;
    bool fp8 = false; // native FP8 WMMA kernels wanted (only gfx12 has *-fp8 folders)
};

struct Selection {
    KernelSetKind kind = KernelSetKind::None;
    fs::path path;                  // empty for None
    std::vector<std::string> notes; // one line per candidate considered, in order
};

Selection select_kernel_set(const SelectionRequest& request);

// Folder facts used by the rules (exposed for doctor and tests).
bool has_manifest(const fs::path& dir);
bool has_valid_accuracy_marker(const fs::path& dir); // d4r-accuracy.txt is exactly "1\n"
bool has_gfx_subfolders(const fs::path& dir);        // any subfolder named gfx*
bool has_code_objects(const fs::path& dir);          // any NAME.<code object ext> file

// The kernel builder's guard (docs/kernel-sets.md): building accuracy kernels into DIR is allowed only when DIR is
// missing or empty of code objects, or already a valid accuracy set.
Status check_accuracy_build_output(const fs::path& dir);
// Written last, after a successful accuracy build (atomically).
Status write_accuracy_marker(const fs::path& dir);

} // namespace d4r::kernels
