// d4r release: the install manifest (d4r-install.json) and the install journal (d4r-install.journal).
//
// Promise: an InstallPlan — every file an install writes (relative path, SHA-256, whether it was
// created or replaced an existing file, where the original was backed up), every folder it created,
// and for a release zip the zip and its SHA-256 — written as JSON and read back to an equal plan. The
// same plan, with the operation in progress and the files to keep, is the journal written before
// anything changes. Reading rejects anything malformed with an Error naming the file and the field,
// and every path that is absolute or leaves the install folder ("..").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::release {

inline constexpr const char* kManifestName = "d4r-install.json";
inline constexpr const char* kJournalName = "d4r-install.journal";
inline constexpr const char* kBackupFolder = "d4r-backup";

enum class FileAction { Create, Replace };

struct PlannedFile {
    std::string path;   // relative to the install folder, '/' separators
    std::string source; // absolute path of the file copied in
    std::string sha256; // of the file written
    FileAction action = FileAction::Create;
    std::string backup;          // Replace: relative path of the original's copy (under d4r-backup/)
    std::string original_sha256; // Replace: of the original
};

struct InstallPlan {
    std::string d4r_version;
    std::string release;        // the release folder, or the release zip, installed from
    std::string release_sha256; // the release zip's SHA-256 (empty for a folder; the key is then left out)
    std::string exe_reason;     // why this folder was chosen
    std::vector<PlannedFile> files;
    std::vector<std::string> created_folders; // relative, parents before children
};

enum class JournalOp { Install, Uninstall };

struct Journal {
    JournalOp op = JournalOp::Install;
    InstallPlan plan;
    std::vector<std::string> keep; // Uninstall: files left in place (a user-edited d4r.ini)
};

std::string plan_to_json(const InstallPlan& plan);
Expected<InstallPlan> plan_from_json(std::string_view text, std::string_view source);
std::string journal_to_json(const Journal& journal);
Expected<Journal> journal_from_json(std::string_view text, std::string_view source);

Expected<InstallPlan> load_manifest(const std::filesystem::path& path);
Expected<Journal> load_journal(const std::filesystem::path& path);

} // namespace d4r::release
