#include "kernel_set.h"

#include <fmt/format.h>

#include "code_objects.h"
#include "core/files.h"
#include "core/strings.h"

namespace d4r::kernels {

const char* kernel_set_kind_name(KernelSetKind kind) {
    switch (kind) {
    case KernelSetKind::None:
        return "none";
    case KernelSetKind::HashChecked:
        return "hash-checked";
    case KernelSetKind::Developer:
        return "developer";
    }
    return "?";
}

bool has_manifest(const fs::path& dir) { return is_file(dir / kManifestFileName); }

bool has_valid_accuracy_marker(const fs::path& dir) {
    fs::path marker = dir / kAccuracyMarkerFileName;
    if (!is_file(marker)) return false;
    auto text = read_text_file(marker, 16);
    return text && *text == kAccuracyMarkerContent;
}

bool has_gfx_subfolders(const fs::path& dir) {
    auto entries = list_directory(dir);
    if (!entries) return false;
    for (const fs::path& entry : *entries) {
        if (starts_with(entry.filename().string(), "gfx") && is_dir(entry)) return true;
    }
    return false;
}

bool has_code_objects(const fs::path& dir) {
    auto entries = list_directory(dir);
    if (!entries) return false;
    for (const fs::path& entry : *entries) {
        if (code_object_kernel_name(entry) && is_file(entry)) return true;
    }
    return false;
}

namespace {

// Why a candidate does or does not qualify (rule 3 and 4 of docs/kernel-sets.md).
struct Verdict {
    KernelSetKind kind = KernelSetKind::None;
    std::string reason;
};

Verdict judge(const fs::path& dir, bool accuracy, bool is_base) {
    if (!is_dir(dir)) return {KernelSetKind::None, "no such folder"};
    bool marked = has_valid_accuracy_marker(dir);
    bool manifest = has_manifest(dir);
    if (accuracy) {
        if (!marked) {
            return {KernelSetKind::None, path_exists(dir / kAccuracyMarkerFileName)
                                             ? "accuracy marker is not exactly \"1\\n\" (an unfinished build?)"
                                             : "no accuracy marker d4r-accuracy.txt"};
        }
        if (manifest) return {KernelSetKind::HashChecked, "marked accuracy set with a manifest"};
        // A marked folder that still holds per-GPU folders is a root, not a set for this GPU.
        if (is_base && has_gfx_subfolders(dir))
            return {KernelSetKind::None, "holds gfx* folders: a kernel root is never handed out whole"};
        return {KernelSetKind::Developer, "marked accuracy developer set (no manifest)"};
    }
    if (manifest) return {KernelSetKind::HashChecked, "has a manifest"};
    if (!is_base) return {KernelSetKind::None, "no manifest (per-GPU folders must be release sets)"};
    if (has_gfx_subfolders(dir))
        return {KernelSetKind::None, "no manifest and holds gfx* folders: a kernel root is never handed out whole"};
    return {KernelSetKind::Developer, "flat developer folder (no manifest)"};
}

} // namespace

Selection select_kernel_set(const SelectionRequest& request) {
    Selection selection;
    if (request.root.empty()) {
        selection.notes.push_back("no kernel root configured");
        return selection;
    }
    // Rule 1: in accuracy mode the base is ROOT/accuracy unless the root itself is marked.
    fs::path base = request.root;
    if (request.accuracy && !has_valid_accuracy_marker(request.root)) base = request.root / kAccuracySubfolder;

    // Rule 2: candidates in order.
    std::vector<fs::path> candidates;
    if (request.fp8 && starts_with(request.arch, "gfx12")) candidates.push_back(base / (request.arch + "-fp8"));
    if (!request.arch.empty()) candidates.push_back(base / request.arch);
    candidates.push_back(base);

    for (size_t i = 0; i < candidates.size(); ++i) {
        bool is_base = i + 1 == candidates.size();
        Verdict verdict = judge(candidates[i], request.accuracy, is_base);
        selection.notes.push_back(fmt::format("{}: {}", candidates[i].string(), verdict.reason));
        if (verdict.kind != KernelSetKind::None) {
            selection.kind = verdict.kind;
            selection.path = candidates[i];
            return selection;
        }
    }
    // Rule 5: accuracy mode never falls back to fast kernels.
    selection.notes.push_back(request.accuracy
                                  ? "no qualifying accuracy set: every kernel compiles from PTX (fast kernels are "
                                    "never used in accuracy mode)"
                                  : "no qualifying kernel set: every kernel compiles from PTX");
    return selection;
}

Status check_accuracy_build_output(const fs::path& dir) {
    if (!path_exists(dir)) return ok_status();
    if (!is_dir(dir)) return make_error(ErrorCode::Invalid, "'{}' exists and is not a folder", dir.string());
    if (has_valid_accuracy_marker(dir) || !has_code_objects(dir)) return ok_status();
    return make_error(ErrorCode::Invalid,
                      "{}: accuracy kernels need an empty output directory or an existing accuracy set", dir.string());
}

Status write_accuracy_marker(const fs::path& dir) {
    return write_file_atomic(dir / kAccuracyMarkerFileName, std::string_view(kAccuracyMarkerContent));
}

} // namespace d4r::kernels
