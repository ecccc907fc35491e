// d4r release: the launcher's restore journal (what `d4r play` changed, and how to put it back).
//
// Promise: begin_journal() copies every file the launcher may change to a backup and writes the
// journal (JSON, atomically) BEFORE anything is changed; restore_journal() puts every file back (a file
// that did not exist and that d4r may create is removed) and then deletes the journal and its backups,
// so it can run again after being interrupted. A journal whose owner (pid and start time) is gone is
// "pending": the next `d4r play` or `d4r restore` completes it. Journals live in
// $XDG_CACHE_HOME/d4r/restore (else ~/.cache/d4r/restore) as <key>.json plus a <key>/ folder of copies;
// the key is a hash of the Proton prefix (or of the game folder), so one prefix has one journal.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/env.h"
#include "core/status.h"

namespace d4r::release {

namespace fs = std::filesystem;

struct TrackedFile {
    std::string path;          // absolute
    std::string what;          // "OptiScaler.ini", "prefix d3d12.dll", ...
    bool existed = false;      // before d4r started
    bool remove_if_new = true; // did not exist: remove it at restore (false: leave what others created)
    std::string backup;        // existed: the copy (absolute)
    std::string sha256;        // existed: of the original
};

struct RestoreJournal {
    std::string key;
    std::string target;  // the prefix (or game folder) the key was made from
    std::string command; // for messages
    int64_t pid = 0;     // the d4r that wrote it
    uint64_t pid_start = 0;
    std::vector<TrackedFile> files;
};

// $XDG_CACHE_HOME/d4r/restore, else $HOME/.cache/d4r/restore; an error when neither is set.
Expected<fs::path> journal_dir(const Environment& env);
// 16 hex digits of the SHA-256 of TARGET.
std::string journal_key(const std::string& target);
fs::path journal_path(const fs::path& dir, const std::string& key);

// The start time of PID (/proc/PID/stat field 22), 0 when it is not running.
uint64_t process_start_time(int64_t pid);
// True while the d4r that wrote J is still running.
bool journal_owner_alive(const RestoreJournal& j);

// Backs up FILES (which may not exist) and writes the journal for this process. Changes nothing else.
Expected<RestoreJournal> begin_journal(const fs::path& dir, const std::string& target, const std::string& command,
                                       std::vector<TrackedFile> files);
Expected<RestoreJournal> read_journal(const fs::path& path);
// Every journal in DIR, sorted by file name (unreadable ones are errors naming the file).
Expected<std::vector<fs::path>> list_journals(const fs::path& dir);

using Say = std::function<void(std::string_view)>;
// Restores every file of the journal at PATH, then removes the journal and its copies. Every file is
// tried even when one fails; the first failure is returned (and the journal kept, to try again).
Status restore_journal(const fs::path& path, const Say& say);

} // namespace d4r::release
